"""The start-seat devices' line protocol (``hardware/serial-protocol.md``): framing, checksums, messages.

Pure: bytes in, messages or rejections out. A message is ``<body>*<XX>\\r\\n`` where
``XX`` is the upper-case hex XOR of the body's bytes (the NMEA checksum).

>>> frame("R,42,5")
b'R,42,5*61\\r\\n'
>>> parse(b"R,42,5*61")
RngResult(seq=42, value=5)
>>> parse(b"D,7,3,5,6*43")
DiceResult(seq=7, dice=(3, 5, 6))
>>> parse(b"R,42,8*6C")
Rejection(reason='value 8 out of range 1..7', line='R,42,8*6C')
>>> parse(b"R,42,5*00").reason
'checksum 00 does not match 61'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINE = 40  # the longest valid line is 16 bytes; anything much longer is noise
SEQ_MODULO = 10_000
ROLL = b"ROLL\r\n"

_BODY = re.compile(rb"^(?P<body>[A-Z](?:,[0-9]{1,4})+)\*(?P<sum>[0-9A-F]{2})$")


@dataclass(frozen=True)
class RngResult:
    seq: int
    value: int  # 1..7

    def to_json(self) -> dict:
        return {"device": "rng", "seq": self.seq, "value": self.value}


@dataclass(frozen=True)
class DiceResult:
    seq: int
    dice: tuple[int, int, int]  # each 1..6

    @property
    def total(self) -> int:
        return sum(self.dice)

    def to_json(self) -> dict:
        return {"device": "dice", "seq": self.seq, "dice": list(self.dice), "total": self.total}


@dataclass(frozen=True)
class Heartbeat:
    seq: int


@dataclass(frozen=True)
class Rejection:
    """A line that is not a valid message, and why; never turned into a value."""

    reason: str
    line: str

    def to_json(self) -> dict:
        return {"rejected": self.line, "reason": self.reason}


Message = RngResult | DiceResult | Heartbeat


def checksum(body: bytes) -> int:
    value = 0
    for byte in body:
        value ^= byte
    return value


def frame(body: str) -> bytes:
    """A body framed as the devices send it."""
    raw = body.encode("ascii")
    return raw + b"*%02X\r\n" % checksum(raw)


def parse(line: bytes) -> Message | Rejection:
    """One line without its ``\\r\\n``."""
    shown = line[:MAX_LINE].decode("ascii", "replace")
    if len(line) > MAX_LINE:
        return Rejection(f"line of {len(line)} bytes is longer than {MAX_LINE}", shown)
    match = _BODY.match(line)
    if match is None:
        return Rejection("not a framed message", shown)
    body = match["body"]
    expected = checksum(body)
    if int(match["sum"], 16) != expected:
        return Rejection(f"checksum {match['sum'].decode()} does not match {expected:02X}", shown)
    kind, *fields = body.decode("ascii").split(",")
    numbers = [int(f) for f in fields]
    if kind == "R" and len(numbers) == 2:
        seq, value = numbers
        if not 1 <= value <= 7:
            return Rejection(f"value {value} out of range 1..7", shown)
        return RngResult(seq, value)
    if kind == "D" and len(numbers) == 4:
        seq, *dice = numbers
        bad = [d for d in dice if not 1 <= d <= 6]
        if bad:
            return Rejection(f"die {bad[0]} out of range 1..6", shown)
        return DiceResult(seq, (dice[0], dice[1], dice[2]))
    if kind == "H" and len(numbers) == 1:
        return Heartbeat(numbers[0])
    return Rejection(f"unknown message {kind!r} with {len(numbers)} fields", shown)


class LineReader:
    """Splits a byte stream into lines; a partial or over-long line never becomes a message.

    >>> r = LineReader()
    >>> r.feed(b"R,1,3*1F\\r\\nR,2")
    [b'R,1,3*1F']
    >>> r.feed(b",4*1A\\r\\n")
    [b'R,2,4*1A']
    """

    def __init__(self, max_line: int = MAX_LINE):
        self.max_line = max_line
        self._buffer = bytearray()
        self._overflow = False  # inside a line that is already too long: drop to its end

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        lines = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > self.max_line:
                    lines.append(bytes(self._buffer[: self.max_line + 1]))  # reported as over-long
                    self._buffer.clear()
                    self._overflow = True
                return lines
            line = bytes(self._buffer[:end]).rstrip(b"\r")
            del self._buffer[: end + 1]
            if self._overflow:
                self._overflow = False
                continue
            lines.append(line)

    def discard_partial(self) -> bytes:
        """Forget an unfinished line (after a reconnect the rest of it never comes)."""
        partial = bytes(self._buffer)
        self._buffer.clear()
        self._overflow = False
        return partial


class SequenceCheck:
    """Refuses a repeated ``seq`` (a replayed or duplicated message); seq wraps at 9999."""

    def __init__(self, memory: int = 64):
        self.memory = memory
        self._recent: dict[str, list[int]] = {}

    def repeated(self, kind: str, seq: int) -> bool:
        recent = self._recent.setdefault(kind, [])
        if seq in recent:
            return True
        recent.append(seq % SEQ_MODULO)
        del recent[: -self.memory]
        return False
