"""The supervisor's part of the dashboard: log in with the PIN; read the history, the shift totals, a
round's records, its zone images and the CSV export; correct, void, declare a misdeal, enter a start
value, let the house dealer's held setting stand, release a held table. Every action needs the session, its CSRF token and the PIN again."""

from __future__ import annotations

import hashlib
import re

from flask import Blueprint, Response, g, jsonify, request, send_file, session

from ..audit.dispute import dispute, round_records
from ..audit.history_index import RESULTS
from ..audit.log import AuditError
from ..audit.replay import export_csv
from ..audit.seal import seal_qr_svg, seal_text
from ..table.round import Events, RoundStateError
from . import request_body
from .access import (LOGIN, REVOKING_A_SCREEN, Refused, answering, check_token, open_session, pin, supervisor_action,
                     supervisor_read)
from .query_params import HISTORY_LIMIT, ParameterError, date_param, day_param, int_param, time_param
from .request_body import BODY_LIMIT, ID_LIMIT, json_object, text, whole
from .services import services

bp = Blueprint("supervisor", __name__)


@bp.get("/api/history")
@supervisor_read("index")
def history():
    """History rows by round, seat, result and time, newest first, from the index."""
    result = request.args.get("result", "").strip() or None
    if result is not None and result not in RESULTS:
        raise ParameterError(f"result: {result!r} is not one of {', '.join(RESULTS)}")
    return jsonify(services().index.search(
        round_id=request.args.get("round", "").strip() or None,
        seat=int_param("seat", 1, services().rules.start.player_seats), result=result, start=time_param("from"),
        end=time_param("to"), day=day_param("day"), limit=int_param("limit", 1, HISTORY_LIMIT, default=200)))


@bp.get("/api/shift")
@supervisor_read("index")
def shift():
    return jsonify(services().index.shift(time_param("since"), day_param("day")))


@bp.get("/api/shift/hours")
@supervisor_read("index")
def shift_hours():
    return jsonify(services().index.shift_hours(time_param("since")))


@bp.get("/api/seal")
@supervisor_read("audit")
def last_seal():
    """The last shift seal, as text and QR code, to be kept off the appliance."""
    seal = services().audit.last_seal
    if seal is None:
        return jsonify({"seal": None})
    return jsonify({"seal": seal, "text": seal_text(seal), "qr_svg": seal_qr_svg(seal)})


@bp.get("/api/rounds/<round_id>/dispute")
@supervisor_read("index", "audit")
def dispute_view(round_id: str):
    """Every record of one round, read from the log (any round, not only the last ten)."""
    audit, events = services().audit, services().index.events_of(round_id)
    if not events:
        raise Refused(404, f"no round {round_id!r} in the log")
    found = round_records(audit.folder, round_id, [e["ts"] for e in events])
    return jsonify(dispute(round_id, found, [e["seq"] for e in events], audit.key))


@bp.get("/api/images/<digest>")
@supervisor_read("audit")
def zone_image(digest: str):
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise ParameterError(f"image: {digest[:80]!r} is not a SHA-256 (64 lower-case hex digits)")
    # absolute: send_file would take a relative path (the default ./data) as the package's own
    path = (services().audit.folder / "images" / digest[:2] / f"{digest}.png").absolute()
    if not path.is_file():
        raise Refused(404, f"no zone image {digest}")
    response = send_file(path, mimetype="image/png", conditional=True)
    # Named by its content, an image never changes: the browser may keep it, but no shared cache may.
    response.headers["Cache-Control"] = "private, max-age=31536000, immutable"
    return response


@bp.get("/api/export")
@supervisor_read("audit")
def export():
    """The settled rounds of the gaming days between two dates as CSV, one row per seat, and the
    shift seals of those days; the download is logged."""
    start, end = date_param("from"), date_param("to")
    if end < start:
        raise ParameterError(f"to: {end} is before from: {start}")
    table, audit = services().table, services().audit
    try:
        export = export_csv(audit.folder, audit.key, start, end)
    except AuditError as err:
        raise Refused(409, f"no export: {err}") from err
    record = table.log if table is not None else audit.append  # the table also tells the live view
    record(Events.AUDIT_EXPORTED, {"from": start.isoformat(), "to": end.isoformat(), "rows": export.rows,
                                   "sha256": hashlib.sha256(export.text.encode()).hexdigest()},
           who=f"supervisor {g.supervisor.supervisor}")
    name = f"rounds-{start}-to-{end}.csv"
    return Response(export.text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@bp.post("/login")
@answering(LOGIN)
def login():
    table, sessions = services().table, services().sessions
    if table is None:
        raise Refused(503, "no supervisor actions on this table")
    body = json_object()
    # the id is not cut here: a refusal logs its first 64 characters, whatever was sent
    who = table.gate.check(text(body, "supervisor", limit=BODY_LIMIT), pin(body), request.remote_addr or "?")
    sessions.end(session.get("sid"))
    sid, opened = sessions.open(who, table.gate.stored(who))
    session["sid"] = sid
    table.log(Events.SUPERVISOR_LOGGED_IN, {"supervisor": who, "address": request.remote_addr},
              who=f"supervisor {who}")
    return jsonify({"supervisor": who, "csrf": opened.csrf, "idle_timeout_s": sessions.idle_s})


@bp.post("/logout")
def logout():
    """Ends the session on the appliance (a saved cookie opens nothing); needs the CSRF token, so that
    another site cannot log the supervisor out."""
    open_session()
    check_token()
    services().sessions.end(session.pop("sid", None))
    return jsonify({"ok": True})


@bp.post("/api/rounds/<round_id>/correct")
@supervisor_action
def correct(body, round_id):
    seat = request_body.seat(body, "seat")
    if seat == "banker":
        hand = {"cards": request_body.cards(body, "cards")}
    else:
        hand = {"front": request_body.cards(body, "front"), "back": request_body.cards(body, "back")}
    settlement = services().table.correct(round_id, g.supervisor.supervisor, pin(body), text(body, "reason"), seat,
                                          address=request.remote_addr, **hand)
    return jsonify({"ok": True, "settlement": settlement})


@bp.post("/api/rounds/<round_id>/void")
@supervisor_action
def void(body, round_id):
    services().table.void(round_id, g.supervisor.supervisor, pin(body), text(body, "reason"), request.remote_addr)
    return jsonify({"ok": True})


@bp.post("/api/rounds/<round_id>/misdeal")
@supervisor_action
def misdeal(body, round_id):
    services().table.misdeal(round_id, g.supervisor.supervisor, pin(body), text(body, "reason"), request.remote_addr)
    return jsonify({"ok": True})


@bp.post("/api/rounds/<round_id>/setting-stands")
@supervisor_action
def setting_stands(body, round_id):
    """The house dealer's held setting let stand, settled as the cards lie: the setting the page showed
    (front, back), why, and the PIN."""
    shown = {"front": request_body.cards(body, "front"), "back": request_body.cards(body, "back")}
    services().table.setting_stands(round_id, g.supervisor.supervisor, pin(body), text(body, "reason"), shown,
                                    request.remote_addr)
    return jsonify({"ok": True})


@bp.post("/api/rounds/<round_id>/start")
@supervisor_action
def manual_start(body, round_id):
    """The start value entered by the supervisor while the device is down: ``dice`` (three) at a house
    that throws dice, or ``value`` (an RNG value 1-7) at a house with an electronic device."""
    dice = request_body.dice(body, "dice", required=False)
    first = services().table.manual_start(round_id, g.supervisor.supervisor, pin(body),
                                          whole(body, "value", required=dice is None), request.remote_addr, dice=dice)
    return jsonify({"ok": True, "first_hand": first})


@bp.post("/api/table/release")
@supervisor_action
def release(body):
    """The supervisor has dealt with what held the table; the dealer carries on."""
    services().table.release(g.supervisor.supervisor, pin(body), text(body, "reason"), request.remote_addr)
    return jsonify({"ok": True})


@bp.post("/api/clock/confirm")
@supervisor_action
def confirm_clock(body):
    """After the clock stepped forward: the supervisor confirms the gaming day (``gaming_day``, the date
    the clock now gives, which the held table's reason shows) and rounds are booked again."""
    table = services().table
    record = table.confirm_clock(g.supervisor.supervisor, pin(body), text(body, "gaming_day", 10),
                                 request.remote_addr or "?")
    return jsonify({"ok": True, "gaming_day": record["data"]["gaming_day"], "held": table.held})


@bp.get("/api/screens")
@supervisor_read()
def screens():
    """The screens paired to drive the dealer's controls."""
    pairings = services().pairings
    return jsonify(pairings.screens() if pairings is not None else [])


@bp.post("/api/screens/code")
@supervisor_action
def screen_code(body):
    """A one-time code to pair another screen, for a supervisor with the PIN."""
    table, pairings = services().table, services().pairings
    if pairings is None:
        raise RoundStateError("this table has no dealer's controls to pair a screen to")
    who = table.gate.check(g.supervisor.supervisor, pin(body), request.remote_addr or "?")
    code = pairings.new_code(f"supervisor {who}")
    table.log(Events.SCREEN_PAIRING_CODE, {"by": f"supervisor {who}"}, f"supervisor {who}")
    return jsonify({"code": code})


@bp.post("/api/screens/<screen_id>/revoke")
@supervisor_action
@answering(REVOKING_A_SCREEN)
def revoke_screen(body, screen_id):
    table, pairings = services().table, services().pairings
    if pairings is None:
        raise RoundStateError("this table has no paired screens")
    who = table.gate.check(g.supervisor.supervisor, pin(body), request.remote_addr or "?")
    screen = pairings.revoke(screen_id[:ID_LIMIT])
    table.log(Events.SCREEN_REVOKED, {**screen.to_json(), "reason": text(body, "reason", required=False)},
              f"supervisor {who}")
    return jsonify({"ok": True})


@bp.post("/api/shift/close")
@supervisor_action
def close_shift(body):
    """The supervisor closes the shift: the log's head is sealed (and recorded), and every
    supervisor's session ends with the shift."""
    seal = services().table.close_shift(g.supervisor.supervisor, pin(body), request.remote_addr or "?")
    services().sessions.end_all()
    session.pop("sid", None)
    return jsonify({"seal": seal, "text": seal_text(seal), "qr_svg": seal_qr_svg(seal)})
