"""systemd integration without a dependency: readiness and watchdog pings over $NOTIFY_SOCKET.

Outside systemd (no $NOTIFY_SOCKET) every call does nothing.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

log = logging.getLogger(__name__)


def notify(message: str) -> bool:
    """Send ``READY=1``, ``WATCHDOG=1``, ``STOPPING=1`` or ``STATUS=...`` to systemd; False outside it."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # an abstract socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall(message.encode())
    return True


def start_watchdog(healthy=lambda: True, stop: threading.Event | None = None) -> threading.Thread | None:
    """Ping the watchdog at half the interval systemd asks for ($WATCHDOG_USEC), while ``healthy()``."""
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec or not os.environ.get("NOTIFY_SOCKET"):
        return None
    interval = int(usec) / 1e6 / 2
    stop = stop or threading.Event()

    def ping() -> None:
        while not stop.wait(interval):
            if healthy():
                try:
                    notify("WATCHDOG=1")
                except OSError as err:  # systemd's socket gone for a moment: the next ping tries again
                    log.warning("watchdog ping not sent: %s", err)

    thread = threading.Thread(target=ping, name="watchdog", daemon=True)
    thread.start()
    return thread
