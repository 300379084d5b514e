"""What the shipper reads of a table's audit log: its whole records after a sequence number, in
sequence order.

This is the one place the floor's table side touches the log's files, so a change of the log's
layout is absorbed here. The log's chain runs in sequence order across its day files whatever
their names (a clock stepped back writes into an earlier day's file), so every file is read
forward from where it was last read, and records are handed out by sequence number. A line still
being written (no line end yet) is left for the next read. A record's gaming day is its own
``gaming_day``, else its file's name (logs written before records carried it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..audit.log import GENESIS, SUFFIX, day_files, line_hash, lines_backwards

CHUNK = 1 << 20  # a day file is read a megabyte at a time: a long backlog is not held in memory at once


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


def _pending(line: bytes, after: int, path: Path) -> Pending:
    """A line that is not a record is shipped all the same, as the one after the last record of its file: the
    floor refuses it and says so, where a shipper that stopped on it would leave the floor blind."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        record = None
    record = record if isinstance(record, dict) else {}
    seq, day = record.get("seq"), record.get("gaming_day")
    return Pending(seq if isinstance(seq, int) else after + 1, line.rstrip(b"\n"),
                   day if isinstance(day, str) else path.name[: -len(SUFFIX)])


class TableLog:
    """Reads each day file forward from where it stopped; starts again from the beginning when asked for
    records it has already handed out, or when a file was cut."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self._rewind()

    def _rewind(self) -> None:
        self._offsets: dict[Path, int] = {}
        self._last_in_file: dict[Path, int] = {}
        self._waiting: dict[int, Pending] = {}  # read, not handed out yet
        self._given = 0  # the last seq handed out
        self._tails: dict[Path, tuple[int, LogHead]] = {}  # each file's size and last whole record

    @property
    def read_to(self) -> int:
        """The last seq handed out."""
        return self._given

    def _read(self, after: int) -> bool:
        """Read on, a chunk of each file, keeping the records above ``after``; False once every file is read
        to its end."""
        more = False
        for path in day_files(self.folder) if self.folder.is_dir() else []:
            offset = self._offsets.get(path, 0)
            if path.stat().st_size < offset:
                self._rewind()  # the log was cut (rolled back): read it again from the start
                return True
            with open(path, "rb") as handle:
                handle.seek(offset)
                data = handle.read(CHUNK)
                if len(data) == CHUNK:
                    data += handle.readline()  # to the end of the line the chunk cut
                    more = True
            for line in data[: data.rfind(b"\n") + 1].splitlines(keepends=True):
                pending = _pending(line, self._last_in_file.get(path, 0), path)
                offset += len(line)
                self._last_in_file[path] = pending.seq
                if pending.seq > after:
                    self._waiting[pending.seq] = pending
            self._offsets[path] = offset
        return more

    def _run_from(self, seq: int, limit: int) -> list[int]:
        run = []
        while seq + 1 + len(run) in self._waiting and len(run) < limit:
            run.append(seq + 1 + len(run))
        return run

    def after(self, seq: int, limit: int = 500) -> list[Pending]:
        """Up to ``limit`` records with sequence numbers above ``seq``, in order. A gap is handed out as it is
        once every file has been read (the floor refuses what does not follow, and says so)."""
        if seq < self._given:
            self._rewind()
        self._waiting = {s: p for s, p in self._waiting.items() if s > seq}
        more = True
        while len(self._run_from(seq, limit)) < limit and more:
            more = self._read(seq)
        wanted = self._run_from(seq, limit)
        if len(wanted) < limit and not more:
            wanted += sorted(s for s in self._waiting if s not in wanted)[: limit - len(wanted)]
        out = [self._waiting.pop(s) for s in wanted]
        if out:
            self._given = out[-1].seq
        return out

    def head(self) -> LogHead:
        """The log's last whole record as far as written (seq 0 for an empty log): the highest among the
        files' last records, each file's read again only when it has grown."""
        top = LogHead(0, GENESIS)
        for path in day_files(self.folder) if self.folder.is_dir() else []:
            size = path.stat().st_size
            known = self._tails.get(path)
            if known is None or known[0] != size:
                known = (size, _last_record(path, size))
                self._tails[path] = known
            if known[1].seq > top.seq:
                top = known[1]
        return top


def _last_record(path: Path, size: int) -> LogHead:
    """The last whole line of the file's first ``size`` bytes that is a record (one that is not is shipped
    and refused, not taken for the head)."""
    for line in lines_backwards(path, size):
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(record, dict) and isinstance(record.get("seq"), int):
            return LogHead(record["seq"], line_hash(line))
    return LogHead(0, GENESIS)
