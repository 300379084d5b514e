"""A front in a process of its own (the dashboard's front, the floor's door) and its feed from the
process that serves behind it: a socketpair carrying frames of one kind byte, a 4-byte length and a
payload. The front's process is started on the bound, listening socket, which is its own from then
on, and ends when its feed ends (the process behind it stopped or died).

>>> frames = FrameReader()
>>> sent = frame(b"R", b"") + frame(b"S", b'{"seq": 1}')
>>> frames.take(sent[:9]), frames.take(sent[9:])
([(b'R', b'')], [(b'S', b'{"seq": 1}')])
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator


def frame(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


class FrameReader:
    """The frames in a feed read as it comes, in pieces (the front's asyncio side)."""

    def __init__(self) -> None:
        self.pending = bytearray()

    def take(self, data: bytes) -> list[tuple[bytes, bytes]]:
        """The frames ``data`` completes, in order, as (kind, payload); a partial one waits for the rest."""
        self.pending += data
        frames = []
        while len(self.pending) >= 5 and len(self.pending) >= 5 + (length := int.from_bytes(self.pending[1:5], "big")):
            frames.append((bytes(self.pending[:1]), bytes(self.pending[5:5 + length])))
            del self.pending[:5 + length]
        return frames


class FedProcess:
    """``python -m module`` serving on ``sock``, fed through :attr:`feed` (this end of the socketpair)."""

    def __init__(self, module: str, sock: socket.socket, arguments: Callable[[socket.socket, socket.socket], str]):
        """``arguments(sock, their_feed)``: the module's one argument (the sockets are passed by descriptor)."""
        self.feed, theirs = socket.socketpair()
        self.process = subprocess.Popen([sys.executable, "-m", module, arguments(sock, theirs)],
                                        pass_fds=(sock.fileno(), theirs.fileno()), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL)  # stdout is the command's JSON
        theirs.close()
        sock.close()

    @property
    def pid(self) -> int:
        return self.process.pid

    def frames(self) -> Iterator[tuple[bytes, bytes]]:
        """The frames from the front's process as (kind, payload), until the feed ends (a thread's side)."""
        reader = self.feed.makefile("rb")
        while len(head := reader.read(5)) == 5:
            yield head[:1], reader.read(int.from_bytes(head[1:], "big"))

    def end_feed(self, *readers: threading.Thread) -> None:
        """The feed ends, and with it the front's process (killed if it has not gone within 10 s); the
        threads reading the feed are waited for."""
        with contextlib.suppress(OSError):  # the front may be gone already
            self.feed.shutdown(socket.SHUT_RDWR)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for reader in readers:
            reader.join(5)
        self.feed.close()
