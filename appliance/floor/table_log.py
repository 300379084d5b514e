"""What the shipper reads of a table's audit log: its whole records after a sequence number, in order.

This is the one place the floor's table side touches the log's files, so a change of the log's
layout (the audit issue's) is absorbed here. A record's gaming day is its own ``gaming_day``
when it has one, else its day file's name. A line still being written (no line end yet) is
left for the next read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..audit.log import SUFFIX, day_files, line_hash


CHUNK = 1 << 20  # read a day file a megabyte at a time: a day's backlog is not read whole for each batch
TAIL = 1 << 16  # the end of the log read for its head: far more than the longest record


@dataclass(frozen=True)
class Pending:
    seq: int
    line: bytes
    gaming_day: str

    def to_json(self) -> dict:
        return {"line": self.line.decode("utf-8"), "gaming_day": self.gaming_day}


@dataclass(frozen=True)
class LogHead:
    seq: int
    hash: str

    def to_json(self) -> dict:
        return {"seq": self.seq, "hash": self.hash}


def _record(line: bytes) -> dict | None:
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) else None


def _pending(line: bytes, expected: int, path: Path) -> Pending:
    """A line that is not a record is shipped all the same, as the one expected: the floor refuses it
    and says so, where a shipper that stopped on it would leave the floor blind."""
    record = _record(line) or {}
    seq, day = record.get("seq"), record.get("gaming_day")
    return Pending(seq if isinstance(seq, int) else expected, line.rstrip(b"\n"),
                   day if isinstance(day, str) else path.name[: -len(SUFFIX)])


class TableLog:
    """Reads forward from where it last stopped; goes back to the start when asked for an earlier record."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self._file: Path | None = None
        self._offset = 0
        self._seq = 0  # the seq of the last record before (file, offset)

    @property
    def read_to(self) -> int:
        """The seq of the last record read so far."""
        return self._seq

    def _rewind(self) -> None:
        self._file, self._offset, self._seq = None, 0, 0

    def after(self, seq: int, limit: int = 500) -> list[Pending]:
        """Up to ``limit`` records with sequence numbers above ``seq``, in order."""
        if seq < self._seq or (self._file is not None and (
                not self._file.exists() or self._file.stat().st_size < self._offset)):
            self._rewind()  # asked again from further back, or the log was cut: read it from the start
        out: list[Pending] = []
        for path in day_files(self.folder) if self.folder.is_dir() else []:
            if self._file is not None and path.name < self._file.name:
                continue
            if path != self._file:
                self._file, self._offset = path, 0
            while len(out) < limit:
                lines = self._read_lines(path)
                if not lines:
                    break
                for line in lines:
                    pending = _pending(line, self._seq + 1, path)
                    self._offset, self._seq = self._offset + len(line), pending.seq
                    if pending.seq > seq:
                        out.append(pending)
                        if len(out) >= limit:
                            return out
        return out

    def _read_lines(self, path: Path) -> list[bytes]:
        """The whole lines (with their line ends) from the current offset, about a megabyte of them."""
        with open(path, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read(CHUNK)
            if len(data) == CHUNK:
                data += handle.readline()  # to the end of the line the chunk cut
        return data[: data.rfind(b"\n") + 1].splitlines(keepends=True)

    def head(self) -> LogHead:
        """The last whole record (seq 0 for an empty log)."""
        for path in reversed(day_files(self.folder) if self.folder.is_dir() else []):
            with open(path, "rb") as handle:
                size = handle.seek(0, 2)
                handle.seek(max(0, size - TAIL))
                data = handle.read()
            lines = data[: data.rfind(b"\n") + 1].splitlines()
            if lines:
                return LogHead(json.loads(lines[-1])["seq"], line_hash(lines[-1]))
        return LogHead(0, "0" * 64)
