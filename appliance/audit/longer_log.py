"""What else on the box remembers of the log's end: a start on a log shorter than any of them is held.

A log cut back, rolled back under an old head, or deleted with its folder verifies on its own (or is
simply empty), and a writer that carried on from it would give its sequence numbers and round ids a
second time. Three things beside it remember a record it held: the shift seals (``seals/``, signed),
the verification checkpoint (``VERIFIED.json``, signed) and the history index (the last record it
took; a cache, unsigned, but written only after the record was on disk). None of them can run ahead
of the log by itself (each is written after the record it names), so one that names a record the
log does not reach means records are gone. The writer then records nothing, and says why in plain
words, until the log is put back and the appliance started again.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .files import CHECKPOINT, SEALS
from .signing import signed_by


@dataclass(frozen=True)
class Witness:
    """Something on the box that knows the log reached record ``seq``."""

    name: str  # in plain words, for the screens
    seq: int


def _signed(path: Path, key: bytes) -> dict | None:
    try:
        found = json.loads(path.read_bytes())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    ok = isinstance(found, dict) and isinstance(found.get("seq"), int) and signed_by(key, found)
    return found if ok else None  # an unsigned file proves nothing (anyone with the disk could make one)


def _seal(folder: Path, key: bytes) -> Witness | None:
    seals = [s for s in map(lambda p: _signed(p, key), (folder / SEALS).glob("*.json")) if s is not None]
    if not seals:
        return None
    last = max(seals, key=lambda s: s["seq"])
    return Witness(f"the shift seal of {last.get('ts', '?')}", last["seq"])


def _checkpoint(folder: Path, key: bytes) -> Witness | None:
    checkpoint = _signed(folder / CHECKPOINT, key)
    return Witness("the verification checkpoint", checkpoint["seq"]) if checkpoint else None


def _index(path: Path | None) -> Witness | None:
    if path is None or not path.is_file():
        return None
    try:  # read-only: the index is neither made nor changed here
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT seq FROM indexed").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None  # damaged or of another layout: rebuilt from the log, it knows nothing of its own
    return Witness("the history index", row[0]) if row and isinstance(row[0], int) else None


def witnesses(folder: Path, key: bytes, index: Path | None = None) -> list[Witness]:
    """What on the box knows of the log's end: the last signed seal, the checkpoint, the index."""
    return [w for w in (_seal(folder, key), _checkpoint(folder, key), _index(index)) if w is not None]


def longer_log(found: list[Witness], log_seq: int) -> str | None:
    """Why the log must not be written to, in plain words, if anything knows a record past its end.

    >>> longer_log([Witness("the history index", 40), Witness("the verification checkpoint", 38)], 12)
    'The audit log ends at record 12 but the history index knows record 40 (and the verification checkpoint 38): records were cut from the log, or it was rolled back or replaced. Nothing is recorded until the log is put back (from a backup or the floor) and the appliance is started again'
    >>> longer_log([Witness("the history index", 40)], 0)[:96]
    'The audit log is empty (its folder was deleted or emptied) but the history index knows record 40'
    >>> longer_log([Witness("the history index", 12)], 12) is None
    True
    """
    ahead = sorted((w for w in found if w.seq > log_seq), key=lambda w: -w.seq)
    if not ahead:
        return None
    first, *others = ahead
    also = f" (and {', '.join(f'{w.name} {w.seq}' for w in others)})" if others else ""
    where = ("The audit log is empty (its folder was deleted or emptied)" if log_seq == 0
             else f"The audit log ends at record {log_seq}")
    cause = "" if log_seq == 0 else ": records were cut from the log, or it was rolled back or replaced"
    return (f"{where} but {first.name} knows record {first.seq}{also}{cause}. Nothing is recorded until the log "
            "is put back (from a backup or the floor) and the appliance is started again")
