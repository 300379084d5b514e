"""The dispute view of one round: every record of the round as logged, and what a supervisor settles a
dispute with, gathered from them: the cards and the house-way setting, each read with its confidence
or reason, the confirmations and corrections with who and why, the zone images and the settlement.

Records are read from the log itself (the index only says which records and days to read), and each
record's signature is checked, so the view shows what the log says and whether it still says it.
"""

from __future__ import annotations

import datetime as dt
import hmac
import json
from pathlib import Path

from ..records.events import Events
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
        path = Path(folder) / f"{day.isoformat()}{SUFFIX}"
        data = path.read_bytes() if path.is_file() else b""
        whole = data[: data.rfind(b"\n") + 1]  # not a record still being written
        found += [r for r in (json.loads(line) for line in whole.splitlines() if marker in line)
                  if r["data"].get("round") == round_id]
    return found


def dispute(round_id: str, found: list[dict], seqs: list[int], key: bytes) -> dict:
    """The dispute view of a round from its records; ``seqs`` are the records the index expects, so a
    record missing from the log, or one whose signature fails, is named in ``problems``."""
    view = {"round": round_id, "status": "open", "house": None, "rules_sha256": None, "opened_at": None,
            "start": None, "banker": {}, "seats": {}, "confirmations": [], "corrections": [], "flags": [],
            "settlement": None, "settled_at": None, "settled_by": None, "voided": None, "records": [],
            "problems": [f"record {seq} is in the index but not in the log"
                         for seq in sorted(set(seqs) - {r["seq"] for r in found})]}
    for record in found:
        signed = hmac.compare_digest(str(record.get("hmac", "")), sign(key, record))
        if not signed:
            view["problems"].append(f"record {record['seq']} is not signed by this key (changed)")
        view["records"].append({k: record[k] for k in ("seq", "ts", "event", "who", "data")} | {"signed": signed})
        FOLD.get(record["event"], lambda v, r: None)(view, record)
    view["seats"] = [view["seats"][seat] for seat in sorted(view["seats"])]
    view["images"] = [*view["banker"].get("images", []), *(d for s in view["seats"] for d in s.get("images", []))]
    return view


def _by(record: dict) -> dict:
    return {"seq": record["seq"], "at": record["ts"], "who": record["who"]}


def _opened(view: dict, record: dict) -> None:
    data = record["data"]
    view.update(house=data["house"], rules_sha256=data.get("rules_sha256"), opened_at=record["ts"])
    view["banker"] = {"seat": data["banker"], "wager": data.get("banker_wager")}
    view["seats"] = {b["seat"]: {"seat": b["seat"], "wager": b["wager"], "bonus": b.get("bonus"),
                                 "backline": b.get("backline", [])} for b in data["bets"]}


def _start(view: dict, record: dict) -> None:
    data = record["data"]
    view["start"] = {k: data.get(k) for k in ("source", "value", "dice", "first_hand")} | _by(record)


def _banker(view: dict, record: dict) -> None:
    data = record["data"]
    view["banker"].update({k: data.get(k) for k in ("cards", "front", "back", "rule", "set_by", "read")},
                          images=data.get("images", []), read_by=_by(record))


def _set_held(view: dict, record: dict) -> None:
    """The house dealer's setting confirmed against the house way: each one, with who confirmed it."""
    data = record["data"]
    view["banker"].setdefault("set_holds", []).append(
        {"front": data["front"], "back": data["back"], "differs": data["differs"]} | _by(record))
    view["banker"]["images"] = [*view["banker"].get("images", []), *data.get("images", [])]


def _set(view: dict, record: dict) -> None:
    """The house dealer's setting accepted: the house way's as read, or let stand by a supervisor (why)."""
    data = record["data"]
    view["banker"].update(front=data["front"], back=data["back"], set_by=data["set_by"], set_reason=data.get("reason"),
                          set_read=data.get("read"), set_accepted=_by(record))
    view["banker"]["images"] = [*view["banker"].get("images", []), *data.get("images", [])]


def _seat(view: dict, record: dict) -> None:
    data = record["data"]
    view["seats"].setdefault(data["seat"], {"seat": data["seat"]}).update(
        front=data["front"], back=data["back"], read=data.get("read"), images=data.get("images", []),
        read_by=_by(record))


def _confirmed(view: dict, record: dict) -> None:
    view["confirmations"].append({k: record["data"][k] for k in ("zone", "position", "card")} | _by(record))


def _corrected(view: dict, record: dict) -> None:
    view["corrections"].append({k: v for k, v in record["data"].items() if k != "round"} | _by(record))


def _flagged(view: dict, record: dict) -> None:
    view["flags"].append({"flags": record["data"]["flags"], "where": record["data"]["where"]} | _by(record))


def _settled(view: dict, record: dict) -> None:
    # A correction settles the round again: the last settlement stands, the earlier stay in ``records``.
    view.update(status="settled", settlement=record["data"]["settlement"], settled_at=record["ts"],
                settled_by=record["who"])


def _voided(view: dict, record: dict) -> None:
    view.update(status="voided", voided={"reason": record["data"]["reason"]} | _by(record))


FOLD = {Events.ROUND_OPENED: _opened, Events.START_SEAT: _start, Events.BANKER_CARDS: _banker,
        Events.BANKER_SET_HELD: _set_held, Events.BANKER_SET: _set,
        Events.SEAT_CARDS: _seat, Events.READ_CONFIRMED: _confirmed, Events.READ_CORRECTED: _corrected,
        Events.TABLE_FLAGGED: _flagged, Events.ROUND_SETTLED: _settled, Events.ROUND_VOIDED: _voided}
