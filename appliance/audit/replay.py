"""Audit tools on top of the log: re-derive every settlement from the raw records, and export
the settled rounds for a cage or accounting system."""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal
from pathlib import Path

from ..game.rules import HouseRules
from ..table.round import derive, rounds_in
from .log import AuditError, verify


def replay(folder: str | Path, key: bytes, round_id: str | None = None) -> dict:
    """Settle every recorded round again with the rules in force at the time; report differences."""
    checked = verify(folder, key)
    if not checked.ok:
        raise AuditError(f"{checked.file} line {checked.line}: {checked.problem}; verify the log first")
    rounds = rounds_in(folder)
    if round_id is not None:
        if round_id not in rounds:
            raise AuditError(f"no round {round_id!r} in the log")
        rounds = {round_id: rounds[round_id]}
    differences, settled = [], 0
    for rid, entry in rounds.items():
        if entry["settlement"] is None:
            continue
        settled += 1
        state = entry["state"]
        rules = HouseRules.from_mapping(state["rules"], f"the rules recorded for round {rid}", state["house"])
        again = derive(state, rules)
        if again != entry["settlement"]:
            differences.append({"round": rid, "recorded": entry["settlement"]["totals"], "derived": again["totals"]})
    return {"rounds": len(rounds), "settled": settled,
            "voided": sum(1 for e in rounds.values() if e["voided"] is not None),
            "open": sum(1 for e in rounds.values() if e["settlement"] is None and e["voided"] is None),
            "differences": differences}


def export_csv(folder: str | Path, key: bytes, start: dt.date, end: dt.date) -> str:
    """Settled rounds whose settlement was recorded between two dates (inclusive), one row per seat."""
    checked = verify(folder, key)
    if not checked.ok:
        raise AuditError(f"{checked.file} line {checked.line}: {checked.problem}; verify the log first")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["round", "settled_at", "seat", "wager", "action", "result", "won", "lost", "commission",
                     "collection", "bonus", "net", "banker_net"])
    for rid, entry in rounds_in(folder).items():
        s = entry["settlement"]
        if s is None or not start <= dt.datetime.fromisoformat(entry["settled_at"]).date() <= end:
            continue
        for seat in s["seats"]:
            bonus = str(Decimal(seat["bonus"]["fortune"]) + Decimal(seat["bonus"]["envy"]))
            writer.writerow([rid, entry["settled_at"], seat["seat"], seat["wager"], seat["action"], seat["result"],
                             seat["won"], seat["lost"], seat["commission"], seat["collection"], bonus, seat["net"],
                             s["totals"]["banker_net"]])
    return out.getvalue()

