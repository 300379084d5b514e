"""The tables' part of the floor: the ingest of their records, their head as the floor holds it, and
their zone images. Every request names its table and carries the table's token (:mod:`.floor_access`)."""

from __future__ import annotations

import datetime as dt
import hashlib

from flask import Blueprint, jsonify, request

from .enroll import token_digest
from .floor_access import BadRequest, credentials, shipping_table
from .floor_services import floor
from .ingest import Incoming, ingest

MAX_BATCH = 1000
MAX_IMAGE = 16 << 20

bp = Blueprint("shipping", __name__)


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


@bp.post("/api/floor/ingest")
def ingest_records():
    # The token is checked in the ingest's first statement, with the table's head (a round trip less a
    # batch); the door has checked it before the body was read. A body the floor cannot take is
    # answered only to the table itself: anyone else is told the token is wrong.
    table, token = credentials()
    body = request.get_json(silent=True)
    try:
        batch, says = parse_batch(body)
    except BadRequest:
        shipping_table()
        raise
    recording = body.get("recording")
    recording = recording if isinstance(recording, bool) else None
    return jsonify(ingest(floor().db.conn(), table, batch, says, token_sha256=token_digest(token),
                          recording=recording).to_json())


@bp.get("/api/floor/head")
def head():
    table = shipping_table()
    row = floor().db.conn().execute("SELECT head_seq, head_hash FROM floor_tables WHERE table_id = %s",
                                    (table,)).fetchone()
    return jsonify(head_seq=row[0], head_hash=row[1])


@bp.put("/api/floor/images/<digest>")
def image(digest: str):
    table = shipping_table()
    png = request.get_data()
    if len(png) > MAX_IMAGE:
        raise BadRequest(f"image {digest[:12]}...: {len(png)} bytes, at most {MAX_IMAGE}")
    if hashlib.sha256(png).hexdigest() != digest:
        raise BadRequest(f"image {digest[:12]}...: the bytes sent do not have this SHA-256")
    conn = floor().db.conn()
    with conn.transaction():
        conn.execute("INSERT INTO floor_images (sha256, png) VALUES (%s, %s) ON CONFLICT DO NOTHING", (digest, png))
        conn.execute("DELETE FROM floor_images_wanted WHERE sha256 = %s", (digest,))
    return jsonify(stored=digest, table=table)
