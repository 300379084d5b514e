"""Audit tools on top of the log: re-derive every settlement from the raw records, and export
the settled rounds for a cage or accounting system."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ..game.rules import HouseRules
from ..table.round import derive, rounds_in
from .log import AuditError, verify
from .seal import seal_text, seals_of


def replay(folder: str | Path, key: bytes, round_id: str | None = None) -> dict:
    """Settle every recorded round again with the rules in force at the time; report differences."""
    checked = verify(folder, key)
    if not checked.ok:
        raise AuditError(f"{checked.where()}: {checked.problem}; verify the log first")
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


@dataclass(frozen=True)
class Export:
    text: str
    rows: int  # one per settled seat
    seals: int  # shift seals of the same gaming days, after the rows


def export_csv(folder: str | Path, key: bytes, start: dt.date, end: dt.date) -> Export:
    """Settled rounds whose settlement falls in the gaming days from ``start`` to ``end`` (inclusive),
    one row per seat; then, after a blank line, the shift seals of those gaming days, so the export
    carries what proves the log it came from was whole."""
    checked = verify(folder, key)
    if not checked.ok:
        raise AuditError(f"{checked.where()}: {checked.problem}; verify the log first")
    first, last = start.isoformat(), end.isoformat()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["round", "settled_at", "gaming_day", "seat", "wager", "action", "result", "won", "lost",
                     "commission", "collection", "bonus", "net", "banker_net"])
    rows = 0
    for rid, entry in rounds_in(folder).items():
        s = entry["settlement"]
        if s is None or not first <= entry["gaming_day"] <= last:
            continue
        for seat in s["seats"]:
            bonus = str(Decimal(seat["bonus"]["fortune"]) + Decimal(seat["bonus"]["envy"]))
            writer.writerow([rid, entry["settled_at"], entry["gaming_day"], seat["seat"], seat["wager"], seat["action"],
                             seat["result"], seat["won"], seat["lost"], seat["commission"], seat["collection"], bonus,
                             seat["net"], s["totals"]["banker_net"]])
            rows += 1
    seals = seals_of(Path(folder), first, last)
    if seals:
        writer.writerow([])
        writer.writerow(["seal_seq", "seal_hash", "sealed_at", "gaming_day", "seal"])
        for seal in seals:
            writer.writerow([seal["seq"], seal["hash"], seal["ts"], seal["gaming_day"], seal_text(seal)])
    return Export(out.getvalue(), rows, len(seals))
