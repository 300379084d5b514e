"""A start-seat device on a pseudo-terminal, speaking the same bytes as the real one.

It answers ``ROLL``, can send a result every N seconds or on demand, sends a
heartbeat about once a second, and can inject faults: bad checksums, line
noise, silence. ``link`` gives it a stable name (as udev does for the real
device), and ``unplug``/``replug`` take the port away and bring a new one back
under that name, as pulling the USB adapter would.
"""

from __future__ import annotations

import os
import random
import secrets
import select
import threading
import time
import tty
from dataclasses import dataclass

from .protocol import SEQ_MODULO, frame
from .serial_device import DeviceKind
from .worker import Worker


@dataclass
class Faults:
    bad_checksum: float = 0.0  # probability that a line's checksum is wrong
    noise: float = 0.0  # probability that random bytes precede a line
    silent: bool = False  # send nothing at all


class DeviceSimulator(Worker):
    thread_name = "device-simulator"

    def __init__(self, kind: DeviceKind, *, every: float | None = None, heartbeat: float = 1.0,
                 faults: Faults | None = None, seed: int | None = None, link: str | None = None):
        super().__init__()
        self.kind = kind
        self.every = every
        self.heartbeat = heartbeat
        self.faults = faults or Faults()
        self._rng = random.Random(seed)
        self._values = self._rng if seed is not None else None  # seeded: reproducible results
        self.link = link
        self.seq = 0
        self.sent: list[bytes] = []
        self._lock = threading.Lock()
        self._plug()

    # --- the port -------------------------------------------------------------------------

    def _plug(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        if self.link:
            tmp = f"{self.link}.new"
            if os.path.lexists(tmp):
                os.remove(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, self.link)

    def unplug(self) -> None:
        with self._lock:
            if self.link and os.path.lexists(self.link):
                os.remove(self.link)
            os.close(self.master)
            os.close(self._slave)
            self.master = -1

    def replug(self) -> None:
        with self._lock:
            self._plug()

    @property
    def name(self) -> str:
        return self.link or self.path

    # --- what it sends --------------------------------------------------------------------

    def _next_seq(self) -> int:
        seq = self.seq
        self.seq = (self.seq + 1) % SEQ_MODULO
        return seq

    def _draw(self, high: int) -> int:
        return self._values.randint(1, high) if self._values else secrets.randbelow(high) + 1

    def send_result(self) -> bytes:
        if self.kind is DeviceKind.RNG:
            body = f"R,{self._next_seq()},{self._draw(7)}"
        else:
            body = f"D,{self._next_seq()},{self._draw(6)},{self._draw(6)},{self._draw(6)}"
        return self.send_body(body)

    def send_heartbeat(self) -> bytes:
        return self.send_body(f"H,{self._next_seq()}")

    def send_body(self, body: str) -> bytes:
        line = frame(body)
        if self._rng.random() < self.faults.bad_checksum:
            line = line[:-4] + (b"%02X" % ((int(line[-4:-2], 16) + 1) % 256)) + b"\r\n"
        if self._rng.random() < self.faults.noise:
            line = bytes(self._rng.randrange(256) for _ in range(self._rng.randint(1, 12))) + line
        return self.send_raw(line)

    def send_raw(self, data: bytes) -> bytes:
        with self._lock:
            if self.faults.silent or self.master < 0:
                return b""
            os.write(self.master, data)
        self.sent.append(data)
        return data

    # --- running ----------------------------------------------------------------------------

    def serve(self, stdin_fd: int | None = None) -> None:
        """Run until stopped: heartbeats, timed results, answers to ROLL (and Enter on ``stdin_fd``)."""
        pending = b""
        next_beat = time.monotonic() + self.heartbeat
        next_result = time.monotonic() + self.every if self.every else float("inf")
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= next_beat:
                self.send_heartbeat()
                next_beat = now + self.heartbeat
            if now >= next_result:
                self.send_result()
                next_result = now + self.every
            fds = [fd for fd in (self.master, stdin_fd) if fd is not None and fd >= 0]
            timeout = max(0.0, min(next_beat, next_result, now + 0.2) - time.monotonic())
            try:
                readable, _, _ = select.select(fds, [], [], timeout)
            except (OSError, ValueError):  # the port was unplugged under us
                time.sleep(0.05)
                continue
            for fd in readable:
                try:
                    data = os.read(fd, 256)
                except OSError:
                    continue
                if fd == stdin_fd:
                    if not data:
                        stdin_fd = None  # stdin closed: keep serving the port
                        continue
                    for _ in range(data.count(b"\n")):
                        self.send_result()
                else:
                    pending += data
                    while b"\n" in pending:
                        line, pending = pending.split(b"\n", 1)
                        if line.strip() == b"ROLL":
                            self.send_result()

    def stop_serving(self) -> None:
        self._stop.set()

    def _work(self) -> None:
        self.serve()

    def _stopped(self) -> None:
        if self.master >= 0:
            self.unplug()
