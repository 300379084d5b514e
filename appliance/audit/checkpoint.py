"""Verify before trusting: at start-up the appliance verifies what it has not verified before.

A signed checkpoint (``VERIFIED.json``) names the last record verified (seq, hash, count) and each
day file as it was then (size, modification time, SHA-256). At the next start a file unchanged
since is not read again; a file that only grew (its old bytes hash the same) is checked from the
checkpoint on; any other change (an edit, a file cut or replaced) means the whole log is verified
again. So a start-up reads about what was written since the last one, and an edited log is never
trusted. ``appliance audit verify`` always checks everything.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from .files import CHECKPOINT
from .log import AuditLog, RecordingStopped, Start, Verification, day_files, verify
from .signing import canonical, sign, signed_by


@dataclass(frozen=True)
class StartupCheck:
    verification: Verification
    incremental: bool  # only what was written since the last checkpoint was read

    @property
    def problem(self) -> str | None:
        """The failure a supervisor must see, in words (a gap found at start-up is its own finding)."""
        v = self.verification
        if v.ok or v.gap_only:
            return None
        return f"The audit log failed verification at start-up: {v.where()}: {v.problem}"


def _digest(path: Path, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        left = size
        while left > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()


def _read(audit: AuditLog) -> dict | None:
    path = audit.folder / CHECKPOINT
    try:
        checkpoint = json.loads(path.read_bytes())
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return checkpoint if isinstance(checkpoint, dict) and signed_by(audit.key, checkpoint) else None


def check_at_startup(audit: AuditLog) -> StartupCheck:
    """Verify what was not verified before; on success the checkpoint moves to the log's end."""
    files = day_files(audit.folder)
    if not files:
        return StartupCheck(Verification(True, 0, ()), True)
    checkpoint = _read(audit)
    start, todo = Start(), files
    if checkpoint is not None:
        known, todo, whole = checkpoint["files"], [], False
        for path in files:
            stat = path.stat()
            was = known.get(path.name)
            if was is None:
                todo.append(path)
            elif [stat.st_size, stat.st_mtime_ns] != was[:2]:
                if stat.st_size < was[0] or _digest(path, was[0]) != was[2]:
                    whole = True  # changed, not only grown
                    break
                todo.append(path)
        if whole or set(known) - {p.name for p in files}:
            start, todo = Start(), files
        else:
            start = Start(checkpoint["seq"], checkpoint["hash"], checkpoint["count"])
    result = verify(audit.folder, audit.key, start=start, files=todo)
    if result.ok or result.gap_only:
        _write(audit, result, files, checkpoint)
    return StartupCheck(result, start.seq > 0)


def _write(audit: AuditLog, result: Verification, files: list[Path], previous: dict | None) -> None:
    known = previous["files"] if previous else {}
    entries = {}
    for path in files:
        stat = path.stat()
        was = known.get(path.name)
        same = was is not None and was[:2] == [stat.st_size, stat.st_mtime_ns]
        entries[path.name] = was if same else [stat.st_size, stat.st_mtime_ns, _digest(path, stat.st_size)]
    checkpoint = {"seq": result.end[0], "hash": result.end[1], "count": result.records, "files": entries}
    checkpoint["hmac"] = sign(audit.key, checkpoint)
    try:
        audit.store_file(audit.folder / CHECKPOINT, canonical(checkpoint), "verification checkpoint")
    except RecordingStopped:
        pass  # recording stopped (the table is held by it); the next start verifies more
