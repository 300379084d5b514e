"""The floor's side of its door (:mod:`.door`), which runs in a process of its own.

Started on the bound, listening socket, which is the door's from then on; a socketpair between the
two processes is the door's feed. The door asks through it whether a table's token is right, before
it reads that table's request body, and a thread here answers each question (``table_token``, one
indexed query; the door keeps what it was told). When the feed ends the door's process ends: the
floor stopped or died. When the door's process ends, :attr:`DoorProcess.ended` is set and the floor's
service stops (``appliance floor serve`` exits 1 for systemd to start it again).
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable

from ..web.front import TlsFiles
from ..web.front_feed import FedProcess, frame
from .door import ASK, READY, TOKEN, DoorLimits, arguments

log = logging.getLogger(__name__)

START_TIMEOUT_S = 20.0
ANSWERS = {True: b"1", False: b"0", None: b"?"}


class DoorProcess(FedProcess):
    def __init__(self, sock: socket.socket, upstream: str, limits: DoorLimits, tls: TlsFiles | None,
                 proxy: str | None, table_token: Callable[[str, str], bool | None]):
        """Start the door on ``sock``; ``table_token(table, token)`` says whether ``token`` is enrolled
        ``table``'s (None: cannot tell now)."""
        self._table_token = table_token
        self._ready, self.ended = threading.Event(), threading.Event()
        self._stopping = False
        super().__init__("appliance.floor.door", sock,
                         lambda sock, feed: arguments(sock, feed, upstream, limits, tls, proxy))
        self._answering = threading.Thread(target=self._answer, name="floor-door-feed", daemon=True)
        self._answering.start()
        if not self._ready.wait(START_TIMEOUT_S):
            self.stop()
            raise RuntimeError(f"the floor's door did not start within {START_TIMEOUT_S:.0f} s")

    def _answer(self) -> None:
        try:
            for kind, payload in self.frames():
                if kind == READY:
                    self._ready.set()
                elif kind == ASK:
                    table, token = json.loads(payload)
                    self.feed.sendall(frame(TOKEN, ANSWERS[self._table_token(table, token)]))
        except OSError:
            pass  # the door is gone, or stop() closed the feed
        finally:
            self.ended.set()
        if not self._stopping:
            log.error("the floor's door stopped (pid %s, exit status %s)", self.process.pid, self.process.wait(5))

    def stop(self) -> None:
        """The feed ends, and with it the door's process."""
        self._stopping = True
        self.end_feed(self._answering)
