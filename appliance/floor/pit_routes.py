"""The people's part of the floor: the pit view and its JSON (the tables, the open alerts, the figures,
a table's recall) and the accounting report, each for the roles that see it (:data:`.floor_access.SEES`)."""

from __future__ import annotations

import datetime as dt
from importlib import resources

from flask import Blueprint, Response, g, jsonify, redirect, request

from .floor_access import HOME, SEES, BadRequest, allowed, signed_in
from .floor_services import floor
from .pit import alerts, gaming_day, recall, stats, tables
from .report import as_csv, as_page, day_report

STATIC = resources.files("appliance.floor").joinpath("static")

bp = Blueprint("pit", __name__)


def day_arg(text: str | None) -> dt.date:
    """The day asked for, else the gaming day now."""
    try:
        return dt.date.fromisoformat(text) if text else gaming_day(dt.datetime.now(), floor().day_starts_at)
    except ValueError:
        raise BadRequest(f"day: {text!r} is not a date (YYYY-MM-DD)") from None


@bp.get("/api/floor/tables")
@allowed("tables")
def all_tables():
    return jsonify(tables(floor().db.conn()))


@bp.get("/api/floor/alerts")
@allowed("alerts")
def open_alerts():
    return jsonify(alerts(floor().db.conn(), day_arg(None)))


@bp.get("/api/floor/stats")
@allowed("figures")
def figures():
    return jsonify(stats(floor().db.conn(), day_arg(request.args.get("day")), request.args.get("by", "table"),
                         floor().day_starts_at))


@bp.get("/api/floor/day")
def today():
    return jsonify(gaming_day=day_arg(None).isoformat())


@bp.get("/api/floor/tables/<table>/recall")
@allowed("recall")
def game_recall(table: str):
    return jsonify(recall(floor().db.conn(), table))


@bp.get("/api/floor/report/<day>.csv")
@allowed("report")
def report_csv(day: str):
    date = day_arg(day)
    return Response(as_csv(day_report(floor().db.conn(), date)), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename=floor-{date}.csv",
                             "Cache-Control": "no-store"})


@bp.get("/floor/report/<day>")
@allowed("report", page=True)
def report_page(day: str):
    date = day_arg(None if day == "today" else day)
    return Response(as_page(day_report(floor().db.conn(), date), date), mimetype="text/html",
                    headers={"Cache-Control": "no-store"})


@bp.get("/")
def pit():
    """The pit view, for the roles that see the tables; anyone else is sent to their own home."""
    if signed_in() is None:
        return redirect("/login", 303)
    if g.role not in SEES["tables"]:
        return redirect(HOME[g.role], 303)
    return Response(STATIC.joinpath("pit.html").read_text(encoding="utf-8"), mimetype="text/html",
                    headers={"Cache-Control": "no-store"})
