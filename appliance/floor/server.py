"""The floor service: the tables' ingest API, the pit view and its JSON API, the accounting report.

Shipping requests carry the table's id (``X-Floor-Table``) and its token (``Authorization:
Bearer``); an unknown table or a wrong token is refused before anything is read. Bad input
is a 400 naming what was wrong; the database being down is a 503 the shipper retries.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import importlib.resources
import logging

import psycopg
from flask import Flask, Response, jsonify, request

from .alerts import close_alert, raise_alert
from .database import Database
from .enroll import token_digest
from .ingest import Incoming, ingest
from .pit import StatsError, alerts, gaming_day, recall, stats, tables
from .report import as_csv, as_page, day_report

MAX_BATCH = 1000
MAX_IMAGE = 16 << 20
log = logging.getLogger(__name__)


class BadRequest(ValueError):
    """A request the floor cannot take as it is (the message says what and where)."""


def parse_batch(body) -> tuple[list[Incoming], dict | None]:
    if not isinstance(body, dict) or not isinstance(body.get("records"), list):
        raise BadRequest("the body must be a JSON object with a list of records")
    if len(body["records"]) > MAX_BATCH:
        raise BadRequest(f"records: {len(body['records'])} in one request, at most {MAX_BATCH}")
    batch = []
    for number, item in enumerate(body["records"]):
        if not isinstance(item, dict) or not isinstance(item.get("line"), str):
            raise BadRequest(f"records[{number}]: expected {{\"line\": str, \"gaming_day\": \"YYYY-MM-DD\"}}")
        # The day beside the line is optional and never booked to (the record's own, signed, is): shippers
        # of before still send it, and one that disagrees with the record is alerted on.
        try:
            day = dt.date.fromisoformat(item["gaming_day"]).isoformat() if "gaming_day" in item else None
        except (TypeError, ValueError):
            raise BadRequest(f"records[{number}].gaming_day: not a date (YYYY-MM-DD)") from None
        batch.append(Incoming(item["line"].encode("utf-8"), day))
    says = body.get("table_head")
    return batch, says if isinstance(says, dict) else None


def day_arg(text: str | None, starts: dt.time) -> dt.date:
    """The day asked for, else the gaming day now."""
    try:
        return dt.date.fromisoformat(text) if text else gaming_day(dt.datetime.now(), starts)
    except ValueError:
        raise BadRequest(f"day: {text!r} is not a date (YYYY-MM-DD)") from None


def create_floor_app(db: Database, day_starts_at: dt.time = dt.time(6, 0)) -> Flask:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_IMAGE + (1 << 20)  # a flood is refused with a 413 before it is read
    static = importlib.resources.files("appliance.floor") / "static"

    def table_of_request() -> str:
        """The authenticated table's id, or a 401 that says why."""
        table = request.headers.get("X-Floor-Table", "")
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        row = db.conn().execute("SELECT token_sha256 FROM floor_tables WHERE table_id = %s", (table,)).fetchone()
        if row is None or not hmac.compare_digest(row[0], token_digest(token)):
            raise PermissionError(f"table {table!r} is not enrolled here, or its token is wrong")
        return table

    @app.errorhandler(PermissionError)
    def unauthorised(err):
        return jsonify(error=str(err)), 401

    @app.errorhandler(BadRequest)
    @app.errorhandler(StatsError)
    def bad_request(err):
        return jsonify(error=str(err)), 400

    @app.errorhandler(psycopg.OperationalError)
    def database_down(err):
        db.drop()
        log.error("database: %s", err)
        return jsonify(error="the floor's database is unavailable; try again"), 503

    @app.post("/api/floor/ingest")
    def ingest_records():
        table = table_of_request()
        body = request.get_json(silent=True)
        batch, says = parse_batch(body)
        recording = body.get("recording")
        conn = db.conn()
        recording = recording if isinstance(recording, bool) else None
        with conn.transaction():
            conn.execute("UPDATE floor_tables SET recording = %s WHERE table_id = %s", (recording, table))
            if recording is False:
                raise_alert(conn, table, "recording-stopped", f"table {table}'s log has stopped recording: "
                                                              "no round can be settled there")
            elif recording:
                close_alert(conn, table, "recording-stopped")
        return jsonify(ingest(conn, table, batch, says).to_json())

    @app.get("/api/floor/head")
    def head():
        table = table_of_request()
        row = db.conn().execute("SELECT head_seq, head_hash FROM floor_tables WHERE table_id = %s", (table,)).fetchone()
        return jsonify(head_seq=row[0], head_hash=row[1])

    @app.put("/api/floor/images/<digest>")
    def image(digest: str):
        table = table_of_request()
        png = request.get_data()
        if len(png) > MAX_IMAGE:
            raise BadRequest(f"image {digest[:12]}...: {len(png)} bytes, at most {MAX_IMAGE}")
        if hashlib.sha256(png).hexdigest() != digest:
            raise BadRequest(f"image {digest[:12]}...: the bytes sent do not have this SHA-256")
        conn = db.conn()
        with conn.transaction():
            conn.execute("INSERT INTO floor_images (sha256, png) VALUES (%s, %s) ON CONFLICT DO NOTHING", (digest, png))
            conn.execute("DELETE FROM floor_images_wanted WHERE sha256 = %s", (digest,))
        return jsonify(stored=digest, table=table)

    @app.get("/api/floor/tables")
    def all_tables():
        return jsonify(tables(db.conn()))

    @app.get("/api/floor/alerts")
    def open_alerts():
        return jsonify(alerts(db.conn(), day_arg(None, day_starts_at)))

    @app.get("/api/floor/stats")
    def figures():
        return jsonify(stats(db.conn(), day_arg(request.args.get("day"), day_starts_at),
                             request.args.get("by", "table"), day_starts_at))

    @app.get("/api/floor/day")
    def today():
        return jsonify(gaming_day=day_arg(None, day_starts_at).isoformat())

    @app.get("/api/floor/tables/<table>/recall")
    def game_recall(table: str):
        return jsonify(recall(db.conn(), table))

    @app.get("/api/floor/report/<day>.csv")
    def report_csv(day: str):
        date = day_arg(day, day_starts_at)
        return Response(as_csv(day_report(db.conn(), date)), mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename=floor-{date}.csv"})

    @app.get("/floor/report/<day>")
    def report_page(day: str):
        date = day_arg(day, day_starts_at)
        return Response(as_page(day_report(db.conn(), date), date), mimetype="text/html")

    @app.get("/")
    def pit():
        return Response((static / "pit.html").read_text(encoding="utf-8"), mimetype="text/html")

    return app
