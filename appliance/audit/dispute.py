"""The dispute view of one round: every record of the round as logged, and what a supervisor settles a
dispute with, gathered from them: the cards and the house-way setting, each read with its confidence
or reason, the confirmations and corrections with who and why, the zone images and the settlement.

Records are read from the log itself (the index only says which records and days to read), and each
record's signature is checked, so the view shows what the log says and whether it still says it. The
round is the one fold's (:class:`~appliance.records.round_state.RoundState`): this module only shows it.
"""

from __future__ import annotations

import datetime as dt
import hmac
import json
from pathlib import Path

from ..records.round_state import RoundState, SeatState, StartValue
from .log import SUFFIX, sign


def round_records(folder: str | Path, round_id: str, times: list[str]) -> list[dict]:
    """The round's records in log order, from the day files around ``times`` (when the index saw the
    round's records) only. A day file is named by the local gaming day, so one day either side covers
    any offset; a record the index missed (one written outside the round engine) is still found."""
    first = dt.datetime.fromisoformat(min(times)).date() - dt.timedelta(days=1)
    last = dt.datetime.fromisoformat(max(times)).date() + dt.timedelta(days=1)
    days = [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]
    # Canonical records have no spaces, so a cheap byte test skips the other rounds' lines unparsed.
    marker = f'"round":{json.dumps(round_id, ensure_ascii=False)}'.encode()
    found = []
    for day in days:
        found += _lines_of(Path(folder) / f"{day.isoformat()}{SUFFIX}", marker, round_id)
    return found


def _lines_of(path: Path, marker: bytes, round_id: str) -> list[dict]:
    """The round's records in one day file, read a line at a time: a day file holds every round of the
    day (a gigabyte on a busy one), so only the round's lines are kept, never the file."""
    if not path.is_file():
        return []
    found = []
    with open(path, "rb") as handle:
        for line in handle:
            if marker in line and line.endswith(b"\n"):  # not a record still being written
                record = json.loads(line)
                if record["data"].get("round") == round_id:
                    found.append(record)
    return found


def dispute(round_id: str, found: list[dict], seqs: list[int], key: bytes) -> dict:
    """The dispute view of a round from its records; ``seqs`` are the records the index expects, so a
    record missing from the log, or one whose signature fails, is named in ``problems``."""
    problems = [f"record {seq} is in the index but not in the log"
                for seq in sorted(set(seqs) - {r["seq"] for r in found})]
    shown, state = [], RoundState(round_id)
    for record in found:
        signed = hmac.compare_digest(str(record.get("hmac", "")), sign(key, record))
        if not signed:
            problems.append(f"record {record['seq']} is not signed by this key (changed)")
        shown.append({k: record[k] for k in ("seq", "ts", "event", "who", "data")} | {"signed": signed})
        state.fold(record)
    seats = [_seat(seat) for _, seat in sorted(state.seats.items()) if seat.bet is not None or seat.read is not None]
    banker = _banker(state)
    return {"round": round_id, "status": state.status, "house": state.house, "rules_sha256": state.rules_sha256,
            "opened_at": state.opened and state.opened.at, "start": _start(state.start), "banker": banker,
            "seats": seats,
            "confirmations": [{"zone": c.zone, "position": c.position, "card": c.card} | c.stamp.to_json()
                              for c in state.confirmations],
            "corrections": [c.to_json() | c.stamp.to_json() for c in state.corrections],
            "flags": [{"flags": f.flags, "where": f.where} | f.stamp.to_json() for f in state.flags],
            "settlement": state.settlement, "settled_at": state.settled and state.settled.at,
            "settled_by": state.settled and state.settled.who,
            "voided": state.void and {"reason": state.void.reason} | state.void.stamp.to_json(),
            "records": shown, "problems": problems,
            "images": [*banker.get("images", []), *(d for s in seats for d in s.get("images", []))]}


def _start(start: StartValue | None) -> dict | None:
    if start is None:
        return None
    return {"source": start.source, "value": start.value, "dice": start.dice, "first_hand": start.first_hand,
            **start.stamp.to_json()}


def _banker(state: RoundState) -> dict:
    """The banker's hand as read, each setting of the house dealer's held, the one accepted (the house way's as
    read, or let stand by a supervisor: why), and the images of each."""
    b = state.banker
    view = {"seat": b.seat, "wager": b.wager} if state.opened else {}
    if b.read is not None:
        r = b.read
        view.update(cards=r.cards, front=r.front, back=r.back, rule=r.rule, set_by=r.set_by, read=r.read,
                    read_by=r.stamp.to_json())
    if b.holds:
        view["set_holds"] = [{"front": h.front, "back": h.back, "differs": h.differs} | h.stamp.to_json()
                             for h in b.holds]
    if b.accepted is not None:
        a = b.accepted
        view.update(front=a.front, back=a.back, set_by=a.set_by, set_reason=a.reason, set_read=a.read,
                    set_accepted=a.stamp.to_json())
    if b.read is not None or b.holds or b.accepted is not None:
        view["images"] = b.images
    return view


def _seat(seat: SeatState) -> dict:
    """A seat's wager and its hand as read (a correction is shown as such, beside it)."""
    view = {"seat": seat.seat}
    if seat.bet is not None:
        view.update(wager=seat.bet["wager"], bonus=seat.bet.get("bonus"), backline=seat.bet.get("backline", []))
    if seat.read is not None:
        r = seat.read
        view.update(front=r.front, back=r.back, read=r.read, images=r.images, read_by=r.stamp.to_json())
    return view
