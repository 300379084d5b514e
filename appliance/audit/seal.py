"""Shift seals: the signed head of the log (sequence, hash, time) at a shift's close, made to leave the box.

A log on one box cannot prove its own end: a copy of the head put back with a log cut to match
it verifies. A seal, printed on the supervisor's page (as text and a QR code), included in the
export and kept off the appliance, can: ``appliance audit verify --seal SEAL`` fails unless the
log still holds the sealed record, unchanged. A seal is made at every shift close (a supervisor's
action) and by the log itself when the gaming day ends; each is also a ``ShiftSealed`` record.
"""

from __future__ import annotations

import json
from pathlib import Path

from .files import SEALS
from .signing import AuditError, canonical, signed_by


class SealError(AuditError):
    """A seal that cannot be read, or is not signed by the log's key."""


def latest_seal(folder: Path) -> dict | None:
    files = sorted((folder / SEALS).glob("*.json")) if (folder / SEALS).is_dir() else []
    return json.loads(files[-1].read_bytes()) if files else None


def seals_of(folder: Path, first_day: str, last_day: str) -> list[dict]:
    """The seals of gaming days from ``first_day`` to ``last_day`` (ISO dates), oldest first."""
    folder = Path(folder) / SEALS
    found = [json.loads(p.read_bytes()) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return [s for s in found if first_day <= (s.get("gaming_day") or "") <= last_day]


def seal_text(seal: dict) -> str:
    return canonical(seal).decode()


def parse_seal(given: str, key: bytes) -> dict:
    """A seal given as its text or as a file holding it, checked against the key."""
    text = given.strip()
    if not text.startswith("{"):
        path = Path(given)
        if not path.is_file():
            raise SealError(f"--seal: {given!r} is neither a seal's text nor a file")
        text = path.read_text(encoding="utf-8").strip()
    try:
        seal = json.loads(text)
    except json.JSONDecodeError as err:
        raise SealError(f"--seal: not a seal ({err})") from None
    if not isinstance(seal, dict) or not {"seq", "hash", "ts", "hmac"} <= set(seal):
        raise SealError("--seal: not a seal (it needs seq, hash, ts and hmac)")
    if not signed_by(key, seal):
        raise SealError(f"--seal: the seal of {seal['ts']} is not signed by this key (forged or another table's)")
    return seal


def seal_qr_svg(seal: dict) -> str | None:
    """The seal as a QR code (SVG), for a phone to carry off the floor; None without segno."""
    try:
        import segno
    except ImportError:
        return None
    return segno.make(seal_text(seal), error="m").svg_inline(scale=3)
