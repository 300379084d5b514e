"""The append-only audit log: one JSON line per event, one file per gaming day, chained and signed.

Each record carries ``seq``, its ``gaming_day`` (the name of the file it belongs in), ``prev``,
the SHA-256 of the previous record's line (the chain runs across files in sequence order,
whatever the file names and whatever the wall clock did), and ``hmac``, an HMAC-SHA256 of the
record under a key kept outside the log. Editing, deleting, inserting or reordering any
record, renaming a day file or cutting a file breaks the chain, a signature or a gaming day,
and :func:`verify` names the first bad record by file and line. ``HEAD.json`` holds the last
record's seq and hash, signed: a log cut at the end no longer matches it, and a log without
it does not verify (a head one record behind, naming the record before the last, is what a power
cut between the two writes leaves: it verifies, with a note). A head put back together with a cut log is caught by a shift seal
(:mod:`.seal`), which leaves the box.

An append is whole or absent: every byte is checked written, the file and its head are
``fsync``-ed (and the folder, for a new file and the head's rename) before :meth:`AuditLog.append`
returns; a write that fails part-way (a full disk, at any byte) is cut back to the last whole
record, and the log stops recording (:attr:`AuditLog.stopped`, in plain words) until a record
can be written again, which it then records. A power cut can still leave a partial last line:
at start-up the writer moves it aside (``<file>.partial-<n>``, kept as evidence), cuts the file
back to its last whole record and records that it did so.
"""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import heapq
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..records.events import ROUND_STEPS, Events
from .clock import ClockInDoubt, ClockWatch, boot_seconds
from .files import HEAD, SEALS, SUFFIX
from .gaming_day import GamingDay
from .longer_log import longer_log, witnesses
from .seal import SealError, latest_seal
from .signing import AuditError, canonical, sign, signed_by

GENESIS = "0" * 64
STEP_BACK = dt.timedelta(seconds=1)  # a wall clock going back more than this is recorded (NTP slews less)

# The records the log writes itself (their names in the one registry, appliance/records/events.py):
AUDIT_RECOVERED = Events.AUDIT_RECOVERED
AUDIT_GAP = Events.AUDIT_GAP
AUDIT_ACKNOWLEDGED = Events.AUDIT_ACKNOWLEDGED
CLOCK_STEPPED = Events.CLOCK_STEPPED
CLOCK_CONFIRMED = Events.CLOCK_CONFIRMED
RECORDING_RESUMED = Events.RECORDING_RESUMED
SHIFT_SEALED = Events.SHIFT_SEALED


class RecordingStopped(AuditError):
    """Nothing can be recorded now; the message says why in plain words."""


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def plain_reason(err: OSError) -> str:
    """What stopped the recording, as the dealer and the supervisor are told."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return "The audit disk is full: nothing can be recorded"
    if err.errno == errno.EROFS:
        return "The audit disk has become read-only: nothing can be recorded"
    if err.errno == errno.EIO:
        return "The audit disk reports a read/write error: nothing can be recorded"
    return f"The audit log cannot be written ({err.strerror or err}): nothing can be recorded"


def load_key(path: str | Path) -> bytes:
    path = Path(path)
    try:
        key = path.read_bytes().strip()
    except FileNotFoundError:
        raise AuditError(f"{path}: no audit key; create one with: appliance audit keygen {path}") from None
    except IsADirectoryError:
        raise AuditError(f"{path}: a folder, not an audit key") from None
    if len(key) < 32:
        raise AuditError(f"{path}: the audit key is shorter than 32 bytes")
    return key


def new_key(path: str | Path, key: bytes | None = None) -> None:
    """A key file readable by its owner only (the service user): ``key`` (one escrowed elsewhere),
    else a random one. An existing file is never overwritten."""
    path = Path(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write((key or os.urandom(32).hex().encode()) + b"\n")


def day_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob(f"*{SUFFIX}") if p.is_file())


def fsync_dir(folder: Path) -> None:
    """A new or renamed entry survives a power cut only once its folder is on disk too."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Line:
    """One line of a day file, in sequence order among all files."""

    seq: int  # the record's seq; for a line that is not a record, the seq before it in its file
    file: str
    number: int
    raw: bytes
    record: dict | None
    problem: str | None = None


def _cheap_seq(raw: bytes) -> int | None:
    """A canonical record's seq read without parsing it: keys are sorted, so the top-level "seq" comes
    after "data" and every nested object, and a quote inside a string is escaped: the last ``"seq":``
    in the line is the record's own."""
    at = raw.rfind(b'"seq":')
    if at < 0:
        return None
    digits = raw[at + 6:at + 26].split(b",", 1)[0]
    return int(digits) if digits.isdigit() else None


def _file_lines(path: Path, skip_below: int = 0) -> Iterator[Line]:
    """The file's lines; with ``skip_below``, whole records numbered below it are passed over unparsed
    (catching up with the end of a long day file costs what is new)."""
    last = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.endswith(b"\n"):
                yield Line(last, path.name, number, raw, None, "the last record is cut short (no line end)")
                return
            raw = raw[:-1]
            if skip_below:
                seq = _cheap_seq(raw)
                if seq is not None and seq < skip_below:
                    last = seq
                    continue
            try:
                record = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                yield Line(last, path.name, number, raw, None, "not a JSON record")
                continue
            if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
                yield Line(last, path.name, number, raw, None, "not an audit record")
                continue
            last = record["seq"]
            yield Line(last, path.name, number, raw, record)


def lines_in_order(files: list[Path]) -> Iterator[Line]:
    """Every line of ``files`` in sequence order: each file is written in order, so they merge."""
    return heapq.merge(*(_file_lines(p) for p in files), key=lambda line: line.seq)


def records(folder: str | Path) -> list[dict]:
    """Every record in sequence order (after :func:`verify` has passed)."""
    return [line.record for line in lines_in_order(day_files(Path(folder))) if line.record is not None]


def lines_backwards(path: Path, size: int | None = None, block: int = 1 << 16) -> Iterator[bytes]:
    """A file's whole lines, last first, read a block at a time back from the end of its first ``size``
    bytes (the whole file by default). A line without its line end (one still being written, or cut by a
    power cut) is not a whole line; empty lines are passed over."""
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END) if size is None else size
        rest, ended = b"", False  # the start of a line cut by the block; whether the last line end is found
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            data, end = handle.read(end - start) + rest, start
            if not ended:
                if b"\n" not in data:
                    continue  # all of it after the last line end so far
                data, ended = data[: data.rfind(b"\n")], True
            lines = data.split(b"\n")
            rest, lines = (lines[0], lines[1:]) if start > 0 else (b"", lines)
            yield from (line for line in reversed(lines) if line)


@dataclass(frozen=True)
class Stoppage:
    reason: str  # in plain words, for the screens
    since: str  # the wall-clock time it began
    began: float  # monotonic, for how long it lasted
    event: str  # the record that could not be written
    lasting: bool = False  # no retry clears it: only a start on a log put back (a longer log is known)


class AuditLog:
    """Appends records to the gaming day's file; safe to call from several threads.

    ``write`` is the seam a test puts a failing disk behind (``os.write``'s signature). ``index`` is the
    history index kept beside the log: with the seals and the checkpoint, it tells a start whether the
    log once went further than it does now (:mod:`.longer_log`). ``timer`` is the box's own, which the
    wall ``clock`` is checked against (:mod:`.clock`); a ``clock`` given without one is its own timer."""

    def __init__(self, folder: str | Path, key: bytes, day: GamingDay = GamingDay(),
                 clock: Callable[[], dt.datetime] | None = None,
                 write: Callable[[int, Any], int] = os.write, index: Path | None = None,
                 timer: Callable[[], float] | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(mode=0o750, parents=True, exist_ok=True)
        self.key, self.day = key, day
        self._clock, self._write_fn = clock or (lambda: dt.datetime.now(dt.UTC)), write
        self._watch = ClockWatch(timer if timer is not None or clock is not None else boot_seconds)
        #: A step of the clock forward not yet confirmed: {"reason", "seq"} (seq None until it is on disk)
        self.clock_doubt: dict | None = None
        self.on_clock_doubt: list[Callable[[str], None]] = []  # told the reason once a step is found running
        self._lock = threading.RLock()
        self.seq, self.prev = 0, GENESIS
        self.last_ts: dt.datetime | None = None
        self.last_day: str | None = None
        self.stopped: Stoppage | None = None
        self.findings: list[dict] = []  # start-up problems a supervisor must see: {"problem", "seq"}
        self._pending: list[tuple[str, dict]] = []  # start-up notes not yet on disk (the disk was full)
        self.last_seal: dict | None = latest_seal(self.folder)
        for event, data in self._open():
            self._pending.append((event, data))
        now = self._clock()
        step = self._watch.at_start(self.last_ts, now)
        if step is not None:
            self._pending.append((CLOCK_STEPPED, step.data()))
            self.clock_doubt = {"reason": step.reason(), "seq": None}
        self._watch.written(now)  # watched from the start, before any record is written
        if self._hold_for_a_longer_log(index):
            return  # nothing is written, not even what start-up found: the log stays as it was found
        try:
            self._flush_pending()
        except RecordingStopped:
            pass  # written first once recording resumes

    def gaming_day(self, when: dt.datetime) -> str:
        return self.day.of(when)

    # --- opening ---------------------------------------------------------------------------------

    def _open(self) -> list[tuple[str, dict]]:
        """Cut partial records, find the last record (by seq, in whichever file) and check it against
        the head; the notes to record about what was found."""
        notes = []
        tail: tuple[dict, bytes] | None = None
        for path in day_files(self.folder):
            cut = self._cut_partial(path)
            if cut:
                notes.append((AUDIT_RECOVERED, cut))
            raw = next(lines_backwards(path), None)
            if raw is None:
                continue
            try:
                record = json.loads(raw)
                seq = record["seq"]
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
                raise AuditError(f"{path}: the last line is not an audit record: the chain cannot go on "
                                 f"(run appliance audit verify {self.folder})") from None
            if tail is None or seq > tail[0]["seq"]:
                tail = (record, raw)
        if tail is not None:
            record, raw = tail
            self.seq, self.prev = record["seq"], line_hash(raw)
            self.last_ts = dt.datetime.fromisoformat(record["ts"])
            self.last_day = record.get("gaming_day")
        gap = self._check_head(tail[0] if tail else None)
        if gap:
            notes.append((AUDIT_GAP, gap))
        return notes

    def _hold_for_a_longer_log(self, index: Path | None) -> bool:
        """Stop for good if anything on the box knows a record past the log's end (beyond what the head
        already accounts for as a gap, which is recorded and acknowledged): going on would give sequence
        numbers and round ids a second time."""
        gap = next((data for event, data in self._pending if event == AUDIT_GAP), {})
        reason = longer_log(witnesses(self.folder, self.key, index), max(self.seq, gap.get("to_seq") or 0))
        if reason is None:
            return False
        self.stopped = Stoppage(reason, dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                                time.monotonic(), "start-up", lasting=True)
        return True

    def _cut_partial(self, path: Path) -> dict | None:
        # Every day file is looked at on every start: its last byte tells whether anything was cut,
        # and only a file whose last record is cut short is read whole.
        with open(path, "rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            if end == 0:
                return None
            handle.seek(end - 1)
            if handle.read(1) == b"\n":
                return None
        data = path.read_bytes()
        whole = data[: data.rfind(b"\n") + 1]
        if len(whole) == len(data):
            return None
        partial = data[len(whole):]
        n = len(list(self.folder.glob(f"{path.name}.partial-*")))
        aside = path.with_name(f"{path.name}.partial-{n}")
        try:
            self._write_file(aside, partial)
            kept = aside.name
        except OSError:
            kept = None  # a full disk: its hash below still says what was cut
        with open(path, "r+b") as handle:
            handle.truncate(len(whole))
            handle.flush()
            os.fsync(handle.fileno())
        return {"file": path.name, "cut_bytes": len(partial), "cut_sha256": line_hash(partial), "kept_as": kept}

    def _check_head(self, tail: dict | None) -> dict | None:
        """The head against the log's last record: what is missing, if anything. A head one record
        behind, naming the record before the last, is a power cut between the two writes: repaired."""
        head = read_head(self.folder, self.key)
        if head is None and tail is None:
            return None
        if head is None:
            return self._finding(f"{HEAD} is missing: records may have been removed from the end of the log "
                                 f"(it ends at record {self.seq})", log_seq=self.seq)
        if head == "unsigned":
            return self._finding(f"{HEAD} is not signed by this key: the end of the log cannot be checked "
                                 f"(it ends at record {self.seq})", log_seq=self.seq)
        if head["seq"] == self.seq and head["hash"] == self.prev:
            return None
        if tail is not None and head["seq"] == self.seq - 1 and head["hash"] == tail["prev"]:
            self._replace_head(self._head_file(self.seq, self.prev, f"{self.last_day}{SUFFIX}"))
            return None
        if head["seq"] > self.seq:
            return self._finding(f"records {self.seq + 1} to {head['seq']} are missing from the end of the log "
                                 f"({HEAD} names record {head['seq']}; the log ends at {self.seq})",
                                 log_seq=self.seq, from_seq=self.seq + 1, to_seq=head["seq"], head_hash=head["hash"])
        return self._finding(f"{HEAD} names record {head['seq']} but the log goes on to {self.seq}: "
                             "the head was replaced", log_seq=self.seq, head_seq=head["seq"])

    def _finding(self, problem: str, **data) -> dict:
        self.findings.append({"problem": problem, "seq": None})
        return {"problem": problem, **data}

    # --- writing ---------------------------------------------------------------------------------

    def append(self, event: str, data: dict[str, Any], who: str = "appliance") -> dict:
        """Write one record, whole, and fsync it; returns the record as written. Raises
        :class:`RecordingStopped` (nothing written) when the disk refuses it, and from then on until
        :meth:`resume` has recorded that recording resumed."""
        with self._lock:
            if self.stopped is not None:
                raise RecordingStopped(self.stopped.reason)
            doubted = self.clock_doubt
            try:
                return self._append(event, data, who)
            finally:
                if doubted is None and self.clock_doubt is not None:
                    for listener in self.on_clock_doubt:
                        listener(self.clock_doubt["reason"])

    def confirm_clock(self, gaming_day: str, who: str) -> dict:
        """A supervisor confirms the gaming day the clock now gives, after a step forward: recorded, and
        rounds are booked again. A day other than the clock's is refused (the clock is still wrong)."""
        with self._lock:
            if self.stopped is not None:
                raise RecordingStopped(self.stopped.reason)
            if self.clock_doubt is None:
                raise ClockInDoubt("the clock has not stepped: there is nothing to confirm")
            now = self._clock()
            today = self.day.of(now)
            if gaming_day != today:
                raise ClockInDoubt(f"the clock gives gaming day {today}, not {gaming_day[:40]}: have the clock set "
                                   "right, then confirm the day it gives")
            record = self._append(CLOCK_CONFIRMED, {"gaming_day": today, "clock": now.isoformat(timespec="seconds"),
                                                    "step_record": self.clock_doubt["seq"]}, who)
            self.clock_doubt = None
            return record

    def resume(self) -> dict | None:
        """Try to record again after a stop: the record saying how long recording stopped, or None
        if it was not stopped. Raises :class:`RecordingStopped` while the disk still refuses."""
        with self._lock:
            if self.stopped is not None and self.stopped.lasting:
                raise RecordingStopped(self.stopped.reason)
            return self._resume() if self.stopped is not None else None

    def stop(self, reason: str, event: str) -> None:
        """Recording stops for a reason found outside the log (the history index could not be written)."""
        with self._lock:
            if self.stopped is None:
                self.stopped = Stoppage(reason, dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                                        time.monotonic(), event)

    def record_when_possible(self, event: str, data: dict, who: str = "appliance") -> dict | None:
        """A record about the box itself (the history index set aside) that a stop must not lose: written
        now, else kept and written first once recording resumes (None until then)."""
        with self._lock:
            if self.stopped is None:
                try:
                    return self._append(event, data, who)
                except RecordingStopped:
                    pass
            self._pending.append((event, data))
            return None

    def free_mb(self) -> float:
        stat = os.statvfs(self.folder)
        return stat.f_bavail * stat.f_frsize / 1e6

    def _resume(self) -> dict:
        stopped, self.stopped = self.stopped, None
        try:
            self._flush_pending()
            return self._append(RECORDING_RESUMED, {
                "reason": stopped.reason, "stopped_at": stopped.since, "seconds": round(time.monotonic() - stopped.began, 3),
                "failed_record": stopped.event,
                "note": "nothing was recorded while recording was stopped, so no round was settled meanwhile"},
                "appliance")
        except RecordingStopped:
            self.stopped = stopped  # still stopped: since the first failure
            raise

    def _flush_pending(self) -> None:
        while self._pending:
            event, data = self._pending[0]
            skip_to = data.get("to_seq") if event == AUDIT_GAP else None
            record = self._append(event, data, "appliance (start-up)", skip_to)
            self._pending.pop(0)
            for finding in self.findings:
                if finding["problem"] == data.get("problem"):
                    finding["seq"] = record["seq"]

    def _append(self, event: str, data: dict, who: str, skip_to: int | None = None) -> dict:
        now = self._clock()
        step = self._watch.check(now)
        if self.last_ts is not None and now < self.last_ts - STEP_BACK:
            self._write(CLOCK_STEPPED, {"from": self.last_ts.isoformat(timespec="microseconds"),
                                        "to": now.isoformat(timespec="microseconds"),
                                        "seconds": round((self.last_ts - now).total_seconds(), 6)}, "appliance", now)
        elif step is not None:
            stepped = self._write(CLOCK_STEPPED, step.data(), "appliance", now)
            self.clock_doubt = {"reason": step.reason(), "seq": stepped["seq"]}
        if self.clock_doubt is not None and event in ROUND_STEPS:
            raise ClockInDoubt(self.clock_doubt["reason"])  # nothing of a round is booked to a day in doubt
        if self.last_day is not None and self.day.of(now) > self.last_day:
            self.seal_head("the gaming day ended", "appliance", now)
        return self._write(event, data, who, now, skip_to)

    def seal_head(self, reason: str, who: str, now: dt.datetime | None = None) -> dict:
        """Seal the log's head now (:mod:`.seal`): the seal is kept beside the log, recorded, and returned.
        The caller holds the log's lock (or this takes it)."""
        with self._lock:
            if self.seq == 0:
                raise SealError("nothing to seal: the log is empty")
            now = now or self._clock()
            seal = {"seal": 1, "seq": self.seq, "hash": self.prev, "ts": now.isoformat(timespec="seconds"),
                    "gaming_day": self.last_day, "reason": reason}
            seal["hmac"] = sign(self.key, seal)
            self.store_file(self.folder / SEALS / f"{self.seq:012d}.json", canonical(seal), SHIFT_SEALED)
            self._write(SHIFT_SEALED, {"seal": seal}, who, now)
            self.last_seal = seal
            return seal

    def _write(self, event: str, data: dict, who: str, now: dt.datetime, skip_to: int | None = None) -> dict:
        day = self.day.of(now)
        seq = (skip_to if skip_to is not None else self.seq) + 1
        record = {"seq": seq, "ts": now.isoformat(timespec="microseconds"), "gaming_day": day, "event": event,
                  "who": who, "data": data, "prev": self.prev}
        record["hmac"] = sign(self.key, record)
        line = canonical(record)
        path = self.folder / f"{day}{SUFFIX}"
        created = not path.exists()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        except OSError as err:
            raise self._stopped_by(err, event) from err
        try:
            start = os.fstat(fd).st_size
            try:
                self._write_all(fd, line + b"\n")
                os.fsync(fd)
                if created:
                    fsync_dir(self.folder)
                head = self._head_file(seq, line_hash(line), path.name)
            except OSError as err:
                self._undo(fd, start, path if created else None)
                raise self._stopped_by(err, event) from err
        finally:
            os.close(fd)
        self.seq, self.prev, self.last_ts, self.last_day = seq, line_hash(line), now, day
        self._watch.written(now)
        if event == CLOCK_STEPPED and self.clock_doubt is not None and self.clock_doubt["seq"] is None:
            self.clock_doubt["seq"] = seq  # the step found at start-up, now on disk
        try:
            self._replace_head(head)
        except OSError as err:
            # The record is whole and on disk; the head lags it by one, which the next start repairs.
            self._stopped_by(err, event)
        return record

    def _write_all(self, fd: int, data: bytes) -> None:
        view, done = memoryview(data), 0
        while done < len(data):
            written = self._write_fn(fd, view[done:])
            if written <= 0:
                raise OSError(errno.ENOSPC, "no byte was written")
            done += written

    def _undo(self, fd: int, size: int, created: Path | None) -> None:
        """Cut a record that did not go down whole (the file back to ``size``)."""
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
            if created is not None and size == 0:
                created.unlink()
                fsync_dir(self.folder)
        except OSError:
            pass  # the partial record stays at the end; the next start cuts it
        (self.folder / f".{HEAD}.tmp").unlink(missing_ok=True)

    def _stopped_by(self, err: OSError, event: str) -> RecordingStopped:
        self.stop(plain_reason(err), event)
        return RecordingStopped(self.stopped.reason)

    def _head_file(self, seq: int, digest: str, file: str) -> Path:
        head = {"seq": seq, "hash": digest, "file": file}
        head["hmac"] = sign(self.key, head)
        tmp = self.folder / f".{HEAD}.tmp"
        self._write_file(tmp, canonical(head), replace=False)
        return tmp

    def _replace_head(self, tmp: Path) -> None:
        os.replace(tmp, self.folder / HEAD)
        fsync_dir(self.folder)

    def _write_file(self, path: Path, content: bytes, replace: bool = True) -> None:
        """A whole file, fsync-ed (through the same write seam as the log), put in place by a rename."""
        tmp = path.with_name(f".{path.name}.part") if replace else path
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
        try:
            self._write_all(fd, content)
            os.fsync(fd)
        except OSError:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        os.close(fd)
        if replace:
            os.replace(tmp, path)
            fsync_dir(path.parent)

    def store_file(self, path: Path, content: bytes, event: str) -> None:
        """A file beside the log (a zone image, a seal): written whole, or recording stops."""
        with self._lock:
            if self.stopped is not None and self.stopped.lasting:  # the checkpoint and seals are evidence now
                raise RecordingStopped(self.stopped.reason)
            try:
                path.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
                self._write_file(path, content)
            except OSError as err:
                raise self._stopped_by(err, event) from err

    def store_image(self, png: bytes) -> str:
        """Keep a zone image as ``images/<sha256>.png`` (once), and return its SHA-256 for a record to cite."""
        digest = hashlib.sha256(png).hexdigest()
        path = self.folder / "images" / digest[:2] / f"{digest}.png"
        if not path.exists():
            self.store_file(path, png, "zone image")
        return digest


def read_head(folder: Path, key: bytes) -> dict | str | None:
    """The signed head, "unsigned" if it is there but not signed by ``key``, or None if it is missing."""
    path = folder / HEAD
    if not path.is_file():
        return None
    try:
        head = json.loads(path.read_bytes())
        if isinstance(head, dict) and isinstance(head.get("seq"), int) and signed_by(key, head):
            return head
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    return "unsigned"


@dataclass(frozen=True)
class Verification:
    ok: bool
    records: int
    files: tuple[str, ...]
    file: str | None = None
    line: int | None = None
    problem: str | None = None
    gap_only: bool = False  # the one failure is a gap found and recorded at start-up
    end: tuple[int, str] = (0, GENESIS)  # the last record checked: seq, line hash
    note: str | None = None  # something found that is not a failure (a head left behind by a power cut)

    def to_json(self) -> dict:
        out = {"ok": self.ok, "records": self.records, "files": list(self.files)}
        if self.note is not None:
            out["note"] = self.note
        if not self.ok:
            out.update(file=self.file, line=self.line, problem=self.problem)
        return out

    def where(self) -> str:
        return f"{self.file} line {self.line}" if self.line is not None else str(self.file)


@dataclass(frozen=True)
class Start:
    """Where a verification starts: the beginning, or after records verified before (a checkpoint)."""

    seq: int = 0
    prev: str = GENESIS
    count: int = 0


def verify(folder: str | Path, key: bytes, seal: dict | None = None, start: Start = Start(),
           files: list[Path] | None = None) -> Verification:
    """Check a log folder as one chain in sequence order, its head, and (``seal``) that it still holds
    every record up to a shift seal. A gap found at start-up stays a failure, acknowledged or not.
    ``start`` and ``files`` (the files that may hold records after it) make a check incremental."""
    folder = Path(folder)
    whole = folder.is_dir()
    base = folder if whole else folder.parent
    every = day_files(folder) if whole else ([folder] if folder.is_file() else [])
    if not every and start.seq == 0 and not (whole and (base / HEAD).exists()):
        raise AuditError(f"{folder}: no audit log files here")
    names = tuple(p.name for p in every)
    walk = _Walk(key, base, start, seal["seq"] if seal else None)
    for line in lines_in_order(every if files is None else files):
        if line.seq <= start.seq and line.record is not None:
            continue  # verified before
        problem = line.problem or walk.step(line)
        if problem:
            return Verification(False, walk.count, names, line.file, line.number, problem)
    if seal is not None:
        problem = walk.seal_problem(seal)
        if problem:
            return Verification(False, walk.count, names, walk.last_file or "(no record)", None, problem)
    note = None
    if whole:
        head = read_head(base, key)
        note = walk.head_behind_by_a_power_cut(head)
        problem = None if note else walk.head_problem(head)
        if problem:
            return Verification(False, walk.count, names, HEAD, None, problem)
    end = (walk.seq, walk.prev)
    if walk.gaps:
        file, number, text = walk.gaps[0]
        return Verification(False, walk.count, names, file, number, text, gap_only=True, end=end, note=note)
    return Verification(True, walk.count, names, end=end, note=note)


class _Walk:
    """The chain checked record by record."""

    def __init__(self, key: bytes, base: Path, start: Start, seal_seq: int | None):
        self.key, self.base, self.seal_seq = key, base, seal_seq
        self.prev, self.seq, self.count = start.prev, start.seq, start.count
        self.before_last: str | None = None  # the line hash of the record before the last one checked
        self.last_file: str | None = None
        self.gaps: list[tuple[str, int, str]] = []
        self._gap_at: dict[int, int] = {}  # a gap record's seq -> its place in gaps
        self.sealed_hash: str | None = None  # the line hash of the record a seal names

    def step(self, line: Line) -> str | None:
        record = line.record
        if not {"seq", "prev", "hmac", "event", "ts", "gaming_day", "data"} <= set(record):
            return "not an audit record (a field is missing)"
        if canonical(record) != line.raw:
            return "the record's bytes differ from its canonical form (edited)"
        if not signed_by(self.key, record):
            return "signature does not match (edited, or another key)"
        if record["gaming_day"] != line.file.removesuffix(SUFFIX):
            return f"the record belongs to gaming day {record['gaming_day']}, not to this file (renamed or moved)"
        if record["prev"] != self.prev:
            return "chain broken: the record before it is missing, moved or changed"
        data = record["data"] if isinstance(record["data"], dict) else {}
        expected = self.seq + 1
        if record["event"] == AUDIT_GAP and data.get("from_seq") == expected and isinstance(data.get("to_seq"), int):
            expected = data["to_seq"] + 1
        if record["seq"] != expected:
            return f"sequence {record['seq']} where {expected} was expected"
        for digest in data.get("images", []):
            problem = self._image_problem(digest)
            if problem:
                return problem
        self._note(record, line)
        self.before_last = self.prev
        self.prev, self.seq, self.count, self.last_file = line_hash(line.raw), record["seq"], self.count + 1, line.file
        if self.seq == self.seal_seq:
            self.sealed_hash = self.prev
        return None

    def _image_problem(self, digest: str) -> str | None:
        image = self.base / "images" / digest[:2] / f"{digest}.png"
        if not image.is_file():
            return f"zone image {digest[:12]}... is missing"
        if hashlib.sha256(image.read_bytes()).hexdigest() != digest:
            return f"zone image {digest[:12]}... does not match its SHA-256 (changed)"
        return None

    def _note(self, record: dict, line: Line) -> None:
        data = record["data"]
        if record["event"] == AUDIT_GAP:
            self._gap_at[record["seq"]] = len(self.gaps)
            self.gaps.append((line.file, line.number, f"found at start-up: {data.get('problem')} (not acknowledged)"))
        elif record["event"] == AUDIT_ACKNOWLEDGED and data.get("record") in self._gap_at:
            at = self._gap_at[data["record"]]
            file, number, text = self.gaps[at]
            self.gaps[at] = (file, number, text.replace("(not acknowledged)", f"(acknowledged by {record['who']} "
                                                        f"at record {record['seq']})"))

    def seal_problem(self, seal: dict) -> str | None:
        if self.seq < seal["seq"]:
            return (f"the log ends at record {self.seq} but the seal of {seal['ts']} covers up to record "
                    f"{seal['seq']}: sealed records are gone (cut or rolled back)")
        if self.sealed_hash != seal["hash"]:
            return f"record {seal['seq']} is not the one sealed at {seal['ts']} (the log was changed or rewritten)"
        return None

    def head_behind_by_a_power_cut(self, head: dict | str | None) -> str | None:
        """A head naming the record before the last, whole and verified: the state a power cut between a
        record's write and its head's leaves (the next start repairs it), not a sign of tampering."""
        if not isinstance(head, dict) or self.before_last is None:
            return None
        if head["seq"] != self.seq - 1 or head["hash"] != self.before_last:
            return None
        return (f"{HEAD} names record {head['seq']}, the one before the log's last ({self.seq}), which verifies: "
                "the state a power cut leaves between a record and its head; the next start brings the head up")

    def head_problem(self, head: dict | str | None) -> str | None:
        if head is None:
            return f"{HEAD} is missing: the end of the log cannot be checked (it ends at record {self.seq})"
        if head == "unsigned":
            return f"{HEAD} is not signed by this key"
        if head["seq"] > self.seq:
            return f"records missing at the end: {HEAD} says {head['seq']}, the log ends at {self.seq}"
        if head["seq"] < self.seq:
            return f"{HEAD} is older than the log: it says {head['seq']}, the log goes on to {self.seq}"
        if head["hash"] != self.prev:
            return f"{HEAD} names another record {head['seq']} than the log's last (the end was replaced)"
        return None


def _last_seq(path: Path) -> int | None:
    raw = next(lines_backwards(path), None)
    try:
        return json.loads(raw)["seq"] if raw else None
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
        return None


def records_from(folder: str | Path, seq: int) -> Iterator[dict]:
    """The records numbered ``seq`` and after, in sequence order, read from the day files that hold
    them only (a file's last line tells whether it does), so that catching up with the end of a long
    log costs what is new, not what is old."""
    files = [p for p in day_files(Path(folder)) if (_last_seq(p) or 0) >= seq]
    lines = heapq.merge(*(_file_lines(p, seq) for p in files), key=lambda line: line.seq)
    return (line.record for line in lines if line.record is not None and line.seq >= seq)


def tail(folder: str | Path, block: int = 1 << 16) -> Iterator[dict]:
    """The records newest first (by sequence, whichever file holds them), read backwards from the end
    of each day file a block at a time: start-up finds the last round without reading the history."""
    # A file is opened only once the records yielded so far are older than its last one: the day
    # files a clock step interleaved merge by seq, and the old days are never read.
    files = sorted(((_last_seq(p) or 0, p) for p in day_files(Path(folder))), reverse=True)
    heap: list[tuple[int, int, dict, Iterator[dict]]] = []

    def push(n: int, records: Iterator[dict]) -> None:
        record = next(records, None)
        if record is not None:
            heapq.heappush(heap, (-record["seq"], n, record, records))

    opened = 0
    while heap or opened < len(files):
        while opened < len(files) and (not heap or files[opened][0] >= -heap[0][0]):
            push(opened, (json.loads(line) for line in lines_backwards(files[opened][1], block=block)))
            opened += 1
        if not heap:
            continue
        _, n, record, records = heapq.heappop(heap)
        yield record
        push(n, records)
