"""The floor's side of its door (:mod:`.door`), which runs in a process of its own.

Started on the bound, listening socket, which is the door's from then on; a socketpair between the
two processes is the door's feed. The door asks through it whether a table's token is right, before
it reads that table's request body, and a thread here answers each question (``table_token``, one
indexed query; the door keeps what it was told). When the feed ends the door's process ends: the
floor stopped or died. When the door's process ends, :attr:`DoorProcess.ended` is set and the floor's
service stops (``appliance floor serve`` exits 1 for systemd to start it again).
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

from ..web.front import TlsFiles, frame
from .door import ASK, READY, TOKEN, DoorLimits, arguments

log = logging.getLogger(__name__)

START_TIMEOUT_S = 20.0
ANSWERS = {True: b"1", False: b"0", None: b"?"}


class DoorProcess:
    def __init__(self, sock: socket.socket, upstream: str, limits: DoorLimits, tls: TlsFiles | None,
                 proxy: str | None, table_token: Callable[[str, str], bool | None]):
        """Start the door on ``sock``; ``table_token(table, token)`` says whether ``token`` is enrolled
        ``table``'s (None: cannot tell now)."""
        self._table_token = table_token
        self._ready, self.ended = threading.Event(), threading.Event()
        self._stopping = False
        ours, theirs = socket.socketpair()
        self._feed = ours
        self.process = subprocess.Popen([sys.executable, "-m", "appliance.floor.door",
                                         arguments(sock, theirs, upstream, limits, tls, proxy)],
                                        pass_fds=(sock.fileno(), theirs.fileno()), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL)  # stdout is floor serve's JSON
        theirs.close()
        sock.close()
        self._answering = threading.Thread(target=self._answer, name="floor-door-feed", daemon=True)
        self._answering.start()
        if not self._ready.wait(START_TIMEOUT_S):
            self.stop()
            raise RuntimeError(f"the floor's door did not start within {START_TIMEOUT_S:.0f} s")

    @property
    def pid(self) -> int:
        return self.process.pid

    def _answer(self) -> None:
        reader = self._feed.makefile("rb")
        try:
            while len(head := reader.read(5)) == 5:
                payload = reader.read(int.from_bytes(head[1:], "big"))
                if head[:1] == READY:
                    self._ready.set()
                elif head[:1] == ASK:
                    table, token = json.loads(payload)
                    self._feed.sendall(frame(TOKEN, ANSWERS[self._table_token(table, token)]))
        except OSError:
            pass  # the door is gone, or stop() closed the feed
        finally:
            self.ended.set()
        if not self._stopping:
            log.error("the floor's door stopped (pid %s, exit status %s)", self.process.pid, self.process.wait(5))

    def stop(self) -> None:
        """The feed ends, and with it the door's process."""
        self._stopping = True
        with contextlib.suppress(OSError):  # the door may be gone already
            self._feed.shutdown(socket.SHUT_RDWR)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._answering.join(5)
        self._feed.close()
