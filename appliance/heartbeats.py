"""What the systemd watchdog watches: a heartbeat per thread that matters, so a hang stops the pings.

Each watched thread (the table, the camera reader, the device reader, the web server) beats when
it makes progress; the watchdog is pinged only while every one has beaten within ``stale_after``
seconds. A thread that blocks (a deadlocked lock, a serial write that never returns, a web server
whose every worker is stuck) goes quiet, the pings stop, and systemd restarts the appliance.
The table and the web server do not loop on their own, so a :class:`Probe` thread asks them
(takes the table's lock; fetches ``/healthz``) and beats for them when they answer.
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable

from .devices.worker import Worker

log = logging.getLogger(__name__)


class Heartbeats:
    def __init__(self, stale_after: float, clock: Callable[[], float] = time.monotonic):
        self.stale_after, self._clock = stale_after, clock
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self._reported: tuple[str, ...] = ()

    def watch(self, name: str) -> Callable[[], None]:
        """Start watching ``name`` (counted from now); returns the function its thread calls to beat."""
        self.beat(name)
        return lambda: self.beat(name)

    def beat(self, name: str) -> None:
        with self._lock:
            self._last[name] = self._clock()

    def stale(self) -> list[str]:
        """The watched threads that have not beaten within ``stale_after`` seconds."""
        now = self._clock()
        with self._lock:
            return sorted(name for name, last in self._last.items() if now - last > self.stale_after)

    def healthy(self) -> bool:
        """True while every watched thread beats; a change of the stale set is logged once."""
        stale = tuple(self.stale())
        if stale != self._reported:
            self._reported = stale
            if stale:
                log.error("no progress for over %.1f s from: %s: the watchdog is no longer pinged",
                          self.stale_after, ", ".join(stale))
            else:
                log.warning("every watched thread makes progress again")
        return not stale


class Probe(Worker):
    """Runs ``check()`` every ``every`` seconds and beats each time it returns True."""

    def __init__(self, name: str, check: Callable[[], bool], every: float):
        super().__init__()
        self.thread_name = f"probe-{name}"
        self._check, self.every = check, every

    def _work(self) -> None:
        while not self._stop.is_set():
            if self._check():
                self.on_beat()
            self._stop.wait(self.every)


def lock_probe(lock) -> Callable[[], bool]:
    """A check that the lock can be taken (it blocks while another thread holds it)."""
    def check() -> bool:
        with lock:
            return True
    return check


def http_probe(url: str, timeout: float) -> Callable[[], bool]:
    """A check that the web server answers ``url`` with 200 within ``timeout`` seconds. Over HTTPS
    the certificate is not checked: the appliance asks itself, on loopback."""
    context = ssl._create_unverified_context() if url.startswith("https:") else None

    def check() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
                return response.status == 200
        except OSError:
            return False
    return check
