"""The gaming day's report for accounting: per table and for the floor, computed in SQL from the
shipped records, as CSV and as a printable page."""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
from decimal import Decimal

from ..game.money import fmt
from .pit import stats

COLUMNS = ("table", "rounds", "wagers", "commission", "collection", "banker_result", "house_result", "hold",
           "fouls", "misdeals", "voids", "corrections", "unreadable_cards")
SUMMED = ("wagers", "commission", "collection", "banker_result", "house_result")
COUNTED = ("rounds", "fouls", "misdeals", "voids", "corrections", "unreadable_cards")


def day_report(conn, day: dt.date) -> list[dict]:
    """One row per table, then the floor's total."""
    rows = [{k: row[k] for k in COLUMNS} for row in stats(conn, day, "table")]
    total = {"table": "FLOOR"}
    total.update({k: fmt(sum((Decimal(r[k]) for r in rows), Decimal(0))) for k in SUMMED})
    total.update({k: sum(r[k] for r in rows) for k in COUNTED})
    wagers = Decimal(total["wagers"])
    total["hold"] = f"{Decimal(total['banker_result']) / wagers * 100:.2f}%" if wagers else None
    return [*rows, {k: total[k] for k in COLUMNS}]


def as_csv(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: ("" if v is None else v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def as_page(rows: list[dict], day: dt.date) -> str:
    head = "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str('' if row[c] is None else row[c]))}</td>" for c in COLUMNS)
                   + "</tr>" for row in rows)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gaming day {day}</title>
<style>body{{font:12pt serif;margin:2em}} table{{border-collapse:collapse;width:100%}}
td,th{{border:1px solid #444;padding:.2em .4em;text-align:right}} td:first-child,th:first-child{{text-align:left}}
tr:last-child{{font-weight:bold}} @media print{{a{{display:none}}}}</style></head><body>
<h1>Pai Gow Poker: gaming day {day}</h1>
<p>Computed from the tables' signed records held by the floor. Hold is the bank's result over wagers.
<a href="/api/floor/report/{day}.csv">CSV</a></p>
<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>
<p>Signed: ______________________ (accounting) &nbsp; ______________________ (table games)</p></body></html>"""
