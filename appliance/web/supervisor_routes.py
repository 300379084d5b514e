"""The supervisor's part of the dashboard: log in with the PIN; read the history, the shift totals, a
round's records, its zone images and the CSV export; correct, void, declare a misdeal, enter a start
value, let the house dealer's held setting stand, release a held table. Every action needs the session, its CSRF token and the PIN again."""

from __future__ import annotations

import functools
import hashlib
import re

from flask import Blueprint, Response, g, jsonify, request, send_file, session

from ..audit.dispute import dispute, round_records
from ..audit.history_index import RESULTS, Index
from ..audit.log import AuditError, AuditLog, RecordingStopped
from ..audit.replay import export_csv
from ..audit.seal import seal_qr_svg, seal_text
from ..game.rules import HouseRules
from ..table.round import Events, RoundStateError
from ..table.supervisor import PinError
from ..table.table import Table
from . import request_body
from .request_body import BODY_LIMIT, ID_LIMIT, BodyError, json_object, text, whole
from .screen_pairing import PairingError, ScreenPairings
from .supervisor_guard import session_refused, token_refused
from .supervisor_sessions import SessionStore
from .query_params import HISTORY_LIMIT, ParameterError, date_param, day_param, int_param, time_param


PIN_LIMIT = 8  # digits of a PIN at most


def supervisor_routes(table: Table | None, rules: HouseRules, index: Index | None, audit: AuditLog | None,
                      sessions: SessionStore, pairings: ScreenPairings | None) -> Blueprint:
    bp = Blueprint("supervisor", __name__)

    def pin_of(body: dict) -> str:
        return text(body, "pin", PIN_LIMIT)

    def no_session():
        return session_refused(sessions, table)

    def supervisor_read(*needs: str):
        """A GET for a logged-in supervisor that reads from ``needs`` (``index``, ``audit``)."""
        def wrap(view):
            @functools.wraps(view)
            def guarded(*args, **kwargs):
                refused = no_session()
                if refused:
                    return refused
                missing = [name for name, part in (("index", index), ("audit", audit)) if name in needs and part is None]
                if missing:
                    return jsonify({"error": f"no {' or '.join(missing)} on this table"}), 503
                return view(*args, **kwargs)
            return guarded
        return wrap

    def supervisor_only(view):
        @functools.wraps(view)
        def guarded(*args, **kwargs):
            if table is None:
                return jsonify({"error": "no supervisor actions on this table"}), 503
            refused = no_session()
            if refused:
                return refused
            refused = token_refused()
            if refused:
                return refused
            body = json_object()
            try:
                return view(body, *args, **kwargs)
            except (BodyError, RecordingStopped):
                raise  # the app answers 400 naming the field, or 503: nothing can be recorded now
            except PinError as err:
                return jsonify({"error": str(err)}), 403
            except (RoundStateError, ValueError) as err:
                return jsonify({"error": str(err)}), 409
        return guarded

    @bp.get("/api/history")
    @supervisor_read("index")
    def history():
        """History rows by round, seat, result and time, newest first, from the index."""
        result = request.args.get("result", "").strip() or None
        if result is not None and result not in RESULTS:
            raise ParameterError(f"result: {result!r} is not one of {', '.join(RESULTS)}")
        return jsonify(index.search(round_id=request.args.get("round", "").strip() or None,
                                    seat=int_param("seat", 1, rules.start.player_seats), result=result,
                                    start=time_param("from"), end=time_param("to"), day=day_param("day"),
                                    limit=int_param("limit", 1, HISTORY_LIMIT, default=200)))

    @bp.get("/api/shift")
    @supervisor_read("index")
    def shift():
        return jsonify(index.shift(time_param("since"), day_param("day")))

    @bp.get("/api/shift/hours")
    @supervisor_read("index")
    def shift_hours():
        return jsonify(index.shift_hours(time_param("since")))

    @bp.get("/api/seal")
    @supervisor_read("audit")
    def last_seal():
        """The last shift seal, as text and QR code, to be kept off the appliance."""
        seal = audit.last_seal
        if seal is None:
            return jsonify({"seal": None})
        return jsonify({"seal": seal, "text": seal_text(seal), "qr_svg": seal_qr_svg(seal)})

    @bp.get("/api/rounds/<round_id>/dispute")
    @supervisor_read("index", "audit")
    def dispute_view(round_id: str):
        """Every record of one round, read from the log (any round, not only the last ten)."""
        events = index.events_of(round_id)
        if not events:
            return jsonify({"error": f"no round {round_id!r} in the log"}), 404
        found = round_records(audit.folder, round_id, [e["ts"] for e in events])
        return jsonify(dispute(round_id, found, [e["seq"] for e in events], audit.key))

    @bp.get("/api/images/<digest>")
    @supervisor_read("audit")
    def zone_image(digest: str):
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ParameterError(f"image: {digest[:80]!r} is not a SHA-256 (64 lower-case hex digits)")
        # absolute: send_file would take a relative path (the default ./data) as the package's own
        path = (audit.folder / "images" / digest[:2] / f"{digest}.png").absolute()
        if not path.is_file():
            return jsonify({"error": f"no zone image {digest}"}), 404
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
        try:
            export = export_csv(audit.folder, audit.key, start, end)
        except AuditError as err:
            return jsonify({"error": f"no export: {err}"}), 409
        text = export.text
        record = table.log if table is not None else audit.append  # the table also tells the live view
        record(Events.AUDIT_EXPORTED, {"from": start.isoformat(), "to": end.isoformat(), "rows": export.rows,
                                       "sha256": hashlib.sha256(text.encode()).hexdigest()},
               who=f"supervisor {g.supervisor.supervisor}")
        name = f"rounds-{start}-to-{end}.csv"
        return Response(text, mimetype="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})

    @bp.post("/login")
    def login():
        if table is None:
            return jsonify({"error": "no supervisor actions on this table"}), 503
        body = json_object()
        # the id is not cut here: a refusal logs its first 64 characters, whatever was sent
        supervisor, pin = text(body, "supervisor", limit=BODY_LIMIT), text(body, "pin", PIN_LIMIT)
        try:
            who = table.gate.check(supervisor, pin, request.remote_addr or "?")
        except PinError as err:
            return jsonify({"error": str(err)}), 401
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
        refused = no_session() or token_refused()
        if refused:
            return refused
        sessions.end(session.pop("sid", None))
        return jsonify({"ok": True})

    @bp.post("/api/rounds/<round_id>/correct")
    @supervisor_only
    def correct(body, round_id):
        seat = request_body.seat(body, "seat")
        if seat == "banker":
            hand = {"cards": request_body.cards(body, "cards")}
        else:
            hand = {"front": request_body.cards(body, "front"), "back": request_body.cards(body, "back")}
        settlement = table.correct(round_id, g.supervisor.supervisor, pin_of(body), text(body, "reason"), seat,
                                   address=request.remote_addr, **hand)
        return jsonify({"ok": True, "settlement": settlement})

    @bp.post("/api/rounds/<round_id>/void")
    @supervisor_only
    def void(body, round_id):
        table.void(round_id, g.supervisor.supervisor, pin_of(body), text(body, "reason"), request.remote_addr)
        return jsonify({"ok": True})

    @bp.post("/api/rounds/<round_id>/misdeal")
    @supervisor_only
    def misdeal(body, round_id):
        table.misdeal(round_id, g.supervisor.supervisor, pin_of(body), text(body, "reason"), request.remote_addr)
        return jsonify({"ok": True})

    @bp.post("/api/rounds/<round_id>/setting-stands")
    @supervisor_only
    def setting_stands(body, round_id):
        """The house dealer's held setting let stand, settled as the cards lie: the setting the page showed
        (front, back), why, and the PIN."""
        shown = {"front": request_body.cards(body, "front"), "back": request_body.cards(body, "back")}
        table.setting_stands(round_id, g.supervisor.supervisor, pin_of(body), text(body, "reason"), shown,
                             request.remote_addr)
        return jsonify({"ok": True})

    @bp.post("/api/rounds/<round_id>/start")
    @supervisor_only
    def manual_start(body, round_id):
        """The start value entered by the supervisor while the device is down: ``dice`` (three) at a house
        that throws dice, or ``value`` (an RNG value 1-7) at a house with an electronic device."""
        dice = request_body.dice(body, "dice", required=False)
        first = table.manual_start(round_id, g.supervisor.supervisor, pin_of(body),
                                   whole(body, "value", required=dice is None), request.remote_addr, dice=dice)
        return jsonify({"ok": True, "first_hand": first})

    @bp.post("/api/table/release")
    @supervisor_only
    def release(body):
        """The supervisor has dealt with what held the table; the dealer carries on."""
        table.release(g.supervisor.supervisor, pin_of(body), text(body, "reason"), request.remote_addr)
        return jsonify({"ok": True})

    @bp.post("/api/clock/confirm")
    @supervisor_only
    def confirm_clock(body):
        """After the clock stepped forward: the supervisor confirms the gaming day (``gaming_day``, the date
        the clock now gives, which the held table's reason shows) and rounds are booked again."""
        record = table.confirm_clock(g.supervisor.supervisor, pin_of(body), text(body, "gaming_day", 10),
                                     request.remote_addr or "?")
        return jsonify({"ok": True, "gaming_day": record["data"]["gaming_day"], "held": table.held})

    @bp.get("/api/screens")
    @supervisor_read()
    def screens():
        """The screens paired to drive the dealer's controls."""
        return jsonify(pairings.screens() if pairings is not None else [])

    @bp.post("/api/screens/code")
    @supervisor_only
    def screen_code(body):
        """A one-time code to pair another screen, for a supervisor with the PIN."""
        if pairings is None:
            raise RoundStateError("this table has no dealer's controls to pair a screen to")
        who = table.gate.check(g.supervisor.supervisor, pin_of(body), request.remote_addr or "?")
        code = pairings.new_code(f"supervisor {who}")
        table.log(Events.SCREEN_PAIRING_CODE, {"by": f"supervisor {who}"}, f"supervisor {who}")
        return jsonify({"code": code})

    @bp.post("/api/screens/<screen_id>/revoke")
    @supervisor_only
    def revoke_screen(body, screen_id):
        if pairings is None:
            raise RoundStateError("this table has no paired screens")
        who = table.gate.check(g.supervisor.supervisor, pin_of(body), request.remote_addr or "?")
        try:
            screen = pairings.revoke(screen_id[:ID_LIMIT])
        except PairingError as err:
            return jsonify({"error": str(err)}), 404
        table.log(Events.SCREEN_REVOKED, {**screen.to_json(), "reason": text(body, "reason", required=False)},
                  f"supervisor {who}")
        return jsonify({"ok": True})

    @bp.post("/api/shift/close")
    @supervisor_only
    def close_shift(body):
        """The supervisor closes the shift: the log's head is sealed (and recorded), and every
        supervisor's session ends with the shift."""
        seal = table.close_shift(g.supervisor.supervisor, pin_of(body), request.remote_addr or "?")
        sessions.end_all()
        session.pop("sid", None)
        return jsonify({"seal": seal, "text": seal_text(seal), "qr_svg": seal_qr_svg(seal)})

    return bp
