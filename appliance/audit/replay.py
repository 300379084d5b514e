"""Audit tools on top of the log: re-derive every settlement from the raw records, and export
the settled rounds for a cage or accounting system."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TextIO

from ..game.rules import HouseRules
from ..records.fold import derive, each_round, fold_rounds
from ..records.round_state import RoundState, Stamp
from .log import AuditError, day_files, lines_in_order, records, verify
from .seal import seal_text, seals_of


def rounds_in(folder) -> dict[str, RoundState]:
    """Every logged round, folded (the audit tools' whole-log view)."""
    return fold_rounds(records(folder))


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
    for rid, state in rounds.items():
        if state.settlement is None:
            continue
        settled += 1
        rules = HouseRules.from_mapping(state.rules, f"the rules recorded for round {rid}", state.house)
        again = derive(state, rules)
        if again != state.settlement:
            differences.append({"round": rid, "recorded": state.settlement["totals"], "derived": again["totals"]})
    return {"rounds": len(rounds), "settled": settled,
            "voided": sum(1 for s in rounds.values() if s.void is not None),
            "open": sum(1 for s in rounds.values() if not s.closed), "differences": differences}


@dataclass(frozen=True)
class Export:
    text: str
    rows: int  # one per settled seat
    seals: int  # shift seals of the same gaming days, after the rows


def export_csv(folder: str | Path, key: bytes, start: dt.date, end: dt.date) -> Export:
    """Settled rounds whose settlement falls in the gaming days from ``start`` to ``end`` (inclusive),
    one row per seat; then, after a blank line, the shift seals of those gaming days, so the export
    carries what proves the log it came from was whole (as text: see :func:`write_export`)."""
    out = io.StringIO()
    rows, seals = write_export(folder, key, start, end, out)
    return Export(out.getvalue(), rows, seals)


def write_export(folder: str | Path, key: bytes, start: dt.date, end: dt.date, out: TextIO) -> tuple[int, int]:
    """:func:`export_csv` written to ``out`` as the log is read, record by record: what is held is the
    settlements of the days asked for, never the whole log (one day of thirty took the log's size in
    memory, 820 MB). Returns the rows (one per settled seat) and the seals written."""
    checked = verify(folder, key)
    if not checked.ok:
        raise AuditError(f"{checked.where()}: {checked.problem}; verify the log first")
    first, last = start.isoformat(), end.isoformat()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["round", "settled_at", "gaming_day", "seat", "wager", "action", "result", "won", "lost",
                     "commission", "collection", "bonus", "net", "banker_net"])
    rows = 0
    for rid, (s, settled) in settled_in(folder, first, last).items():
        for seat in s["seats"]:
            bonus = str(Decimal(seat["bonus"]["fortune"]) + Decimal(seat["bonus"]["envy"]))
            writer.writerow([rid, settled.at, settled.gaming_day, seat["seat"], seat["wager"], seat["action"],
                             seat["result"], seat["won"], seat["lost"], seat["commission"], seat["collection"], bonus,
                             seat["net"], s["totals"]["banker_net"]])
            rows += 1
    seals = seals_of(Path(folder), first, last)
    if seals:
        writer.writerow([])
        writer.writerow(["seal_seq", "seal_hash", "sealed_at", "gaming_day", "seal"])
        for seal in seals:
            writer.writerow([seal["seq"], seal["hash"], seal["ts"], seal["gaming_day"], seal_text(seal)])
    return rows, len(seals)


def settled_in(folder: str | Path, first: str, last: str) -> dict[str, tuple[dict, Stamp]]:
    """Each round's settlement that stands and its record's stamp, where its gaming day lies from ``first`` to
    ``last``, by round in the order the rounds were played, from the log read as a stream in sequence order
    (one round's state held at a time, by the one fold): a correction after the settlement takes the round
    out until it is settled again."""
    settled: dict[str, tuple[dict, Stamp]] = {}
    logged = (line.record for line in lines_in_order(day_files(Path(folder))) if line.record is not None)
    for state in each_round(logged):
        settled.pop(state.round, None)  # its records resumed after another round's: the last state stands
        if state.settlement is not None and first <= state.settled.gaming_day <= last:
            settled[state.round] = (state.settlement, state.settled)
    return settled
