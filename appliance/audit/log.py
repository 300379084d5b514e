"""The append-only audit log: one JSON line per event, one file per gaming day, chained and signed.

Each record carries ``prev``, the SHA-256 of the previous record's line (across files: the
chain runs from the first day to the last), and ``hmac``, an HMAC-SHA256 of the record
under a key kept outside the log. Editing, deleting, inserting or reordering any record, or
cutting a file, breaks the chain or a signature, and :func:`verify` names the first bad
record by file and line.

A record is written and ``fsync``-ed before :meth:`AuditLog.append` returns, so nothing is
shown before it is on disk. A power cut can leave a partial last line: at start-up the
writer moves it aside (``<file>.partial-<n>``, kept as evidence), cuts the log back to its
last whole record and records that it did so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

GENESIS = "0" * 64
SUFFIX = ".jsonl"
HEAD = "HEAD.json"  # the last record's seq and hash: deleting records from the end shows against it


class AuditError(ValueError):
    """An audit log that cannot be opened or written as the chain requires."""


def canonical(record: dict) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(key: bytes, record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "hmac"}
    return hmac.new(key, canonical(body), hashlib.sha256).hexdigest()


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def load_key(path: str | Path) -> bytes:
    path = Path(path)
    try:
        key = path.read_bytes().strip()
    except FileNotFoundError:
        raise AuditError(f"{path}: no audit key; create one with: appliance audit keygen {path}") from None
    if len(key) < 32:
        raise AuditError(f"{path}: the audit key is shorter than 32 bytes")
    return key


def new_key(path: str | Path) -> None:
    """A random key, readable by its owner only (the service user)."""
    path = Path(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(os.urandom(32).hex().encode() + b"\n")


def key_for(path: str | Path) -> bytes:
    """The key at ``path``, made there (and its folder) on first use."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        new_key(path)
    return load_key(path)


def day_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob(f"*{SUFFIX}") if p.is_file())


class AuditLog:
    """Appends records to the day's file; safe to call from several threads."""

    def __init__(self, folder: str | Path, key: bytes, day_starts_at: dt.time = dt.time(6, 0),
                 clock=lambda: dt.datetime.now(dt.timezone.utc)):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.key = key
        self.day_starts_at = day_starts_at
        self._clock = clock
        self._lock = threading.Lock()
        self.seq, self.prev = 0, GENESIS
        recovered = self._recover()
        if recovered:
            self.append("AuditRecovered", recovered)

    def gaming_day(self, when: dt.datetime) -> str:
        """The date of the gaming day: a day runs from ``day_starts_at`` to the next."""
        local = when.astimezone()
        start = dt.datetime.combine(local.date(), self.day_starts_at, local.tzinfo)
        return (local.date() if local >= start else local.date() - dt.timedelta(days=1)).isoformat()

    def _recover(self) -> dict | None:
        files = day_files(self.folder)
        if not files:
            return None
        last = files[-1]
        data = last.read_bytes()
        whole = data[: data.rfind(b"\n") + 1]
        note = None
        if len(whole) != len(data):
            n = len(list(self.folder.glob(f"{last.name}.partial-*")))
            aside = last.with_name(f"{last.name}.partial-{n}")
            aside.write_bytes(data[len(whole):])
            with open(last, "r+b") as handle:
                handle.truncate(len(whole))
                handle.flush()
                os.fsync(handle.fileno())
            note = {"file": last.name, "cut_bytes": len(data) - len(whole),
                    "cut_sha256": line_hash(data[len(whole):]), "kept_as": aside.name}
        lines = whole.splitlines()
        if not lines:
            return note
        record = json.loads(lines[-1])
        self.seq, self.prev = record["seq"], line_hash(lines[-1])
        return note

    def append(self, event: str, data: dict[str, Any], who: str = "appliance") -> dict:
        """Write one record and fsync it; returns the record as written."""
        with self._lock:
            now = self._clock()
            record = {"seq": self.seq + 1, "ts": now.isoformat(timespec="microseconds"), "event": event,
                      "who": who, "data": data, "prev": self.prev}
            record["hmac"] = sign(self.key, record)
            line = canonical(record)
            path = self.folder / f"{self.gaming_day(now)}{SUFFIX}"
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
            try:
                os.write(fd, line + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            self.seq, self.prev = record["seq"], line_hash(line)
            self._write_head(path.name)
            return record

    def store_image(self, png: bytes) -> str:
        """Keep a zone image as ``images/<sha256>.png`` (once), and return its SHA-256 for a record to cite."""
        digest = hashlib.sha256(png).hexdigest()
        path = self.folder / "images" / digest[:2] / f"{digest}.png"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            with open(tmp, "wb") as handle:
                handle.write(png)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        return digest

    def _write_head(self, file: str) -> None:
        head = {"seq": self.seq, "hash": self.prev, "file": file}
        head["hmac"] = sign(self.key, head)
        tmp = self.folder / f".{HEAD}.tmp"
        with open(tmp, "wb") as handle:
            handle.write(canonical(head))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.folder / HEAD)


@dataclass(frozen=True)
class Verification:
    ok: bool
    records: int
    files: tuple[str, ...]
    file: str | None = None
    line: int | None = None
    problem: str | None = None

    def to_json(self) -> dict:
        out = {"ok": self.ok, "records": self.records, "files": list(self.files)}
        if not self.ok:
            out.update(file=self.file, line=self.line, problem=self.problem)
        return out


def verify(folder: str | Path, key: bytes) -> Verification:
    """Check every file of a log folder, in day order, as one chain."""
    folder = Path(folder)
    files = day_files(folder) if folder.is_dir() else ([folder] if folder.is_file() else [])
    if not files:
        raise AuditError(f"{folder}: no audit log files here")
    names = tuple(p.name for p in files)
    prev, seq, count = GENESIS, 0, 0
    for path in files:
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            last = data.count(b"\n") + 1
            return Verification(False, count, names, path.name, last, "the last record is cut short (no line end)")
        for number, line in enumerate(data.splitlines(), 1):
            def bad(problem: str) -> Verification:
                return Verification(False, count, names, path.name, number, problem)
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                return bad("not a JSON record")
            if not isinstance(record, dict) or not {"seq", "prev", "hmac", "event", "ts"} <= set(record):
                return bad("not an audit record")
            if canonical(record) != line:
                return bad("the record's bytes differ from its canonical form (edited)")
            if not hmac.compare_digest(str(record["hmac"]), sign(key, record)):
                return bad("signature does not match (edited, or another key)")
            if record["prev"] != prev:
                return bad("chain broken: the record before it is missing, moved or changed")
            if record["seq"] != seq + 1:
                return bad(f"sequence {record['seq']} where {seq + 1} was expected")
            for digest in record.get("data", {}).get("images", []) if isinstance(record.get("data"), dict) else []:
                image = (folder if folder.is_dir() else folder.parent) / "images" / digest[:2] / f"{digest}.png"
                if not image.is_file():
                    return bad(f"zone image {digest[:12]}... is missing")
                if hashlib.sha256(image.read_bytes()).hexdigest() != digest:
                    return bad(f"zone image {digest[:12]}... does not match its SHA-256 (changed)")
            prev, seq, count = line_hash(line), record["seq"], count + 1
    head_path = (folder if folder.is_dir() else folder.parent) / HEAD
    if head_path.is_file():
        try:
            head = json.loads(head_path.read_bytes())
            signed = hmac.compare_digest(str(head["hmac"]), sign(key, head))
        except (json.JSONDecodeError, KeyError, TypeError):
            signed = False
        if not signed:
            return Verification(False, count, names, HEAD, 1, "the head record is not signed by this key")
        # The head is written just after each record, so it may lag the log by one after a power cut.
        if head["seq"] > seq:
            return Verification(False, count, names, names[-1], count + 1,
                                f"records missing at the end: the head says {head['seq']}, the log ends at {seq}")
    return Verification(True, count, names)


def records(folder: str | Path) -> list[dict]:
    """Every record in day order (after :func:`verify` has passed)."""
    return [json.loads(line) for path in day_files(Path(folder)) for line in path.read_bytes().splitlines()]


def _first_seq(path: Path) -> int | None:
    with open(path, "rb") as handle:
        line = handle.readline()
    return json.loads(line)["seq"] if line.endswith(b"\n") else None


def records_from(folder: str | Path, seq: int) -> Iterator[dict]:
    """The records numbered ``seq`` and after, in order, read from the day files that hold them only
    (the first line of each earlier file tells where to begin), so that catching up with the end of
    a long log costs what is new, not what is old."""
    files = day_files(Path(folder))
    start = 0
    for n in range(len(files) - 1, -1, -1):
        first = _first_seq(files[n])
        if first is not None and first <= seq:
            start = n
            break
    for path in files[start:]:
        for line in path.read_bytes().splitlines():
            record = json.loads(line)
            if record["seq"] >= seq:
                yield record


def tail(folder: str | Path, block: int = 1 << 16) -> Iterator[dict]:
    """The records newest first, read backwards from the end of the log a block at a time: start-up
    finds the last round without reading the history before it."""
    for path in reversed(day_files(Path(folder))):
        with open(path, "rb") as handle:
            end, rest = handle.seek(0, os.SEEK_END), b""
            while end > 0:
                start = max(0, end - block)
                handle.seek(start)
                lines = (handle.read(end - start) + rest).split(b"\n")
                rest, lines = (lines[0], lines[1:]) if start > 0 else (b"", lines)  # a line cut by the block
                end = start
                for line in reversed(lines):
                    if line:
                        yield json.loads(line)
