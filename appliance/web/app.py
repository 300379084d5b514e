"""The dashboard: the dealer's live table view and a small JSON API. It renders the table's state
and holds no game logic: the round engine decides, the audit log records, this shows."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import html
import json
import os
import queue
import re
import secrets
import time
from importlib import resources

from flask import Flask, Response, abort, jsonify, request, send_file, session

from ..audit.dispute import dispute, round_records
from ..audit.index import RESULTS, Index
from ..audit.log import AuditError, AuditLog, RecordingStopped
from ..audit.replay import export_csv
from ..audit.seal import seal_qr_svg, seal_text
from ..game.cards import format_cards, parse_cards
from ..game.house_ways import decide
from ..game.rules import HouseRules
from ..game.setting import SPLITS, SetHand
from ..table.live import LiveTable
from ..table.round import Events, RoundStateError
from ..table.supervisor import PinError
from ..table.dealer import DealerLoop
from ..table.table import Table
from .dealer import dealer_routes

KEEPALIVE_S = 15.0
HISTORY_LIMIT = 1000  # rows in one history answer at most: a search, not a dump (the export is the dump)


class ParameterError(ValueError):
    """A query parameter that cannot be used; the message names it (a 400)."""


def time_param(name: str) -> dt.datetime | None:
    text = request.args.get(name, "").strip()
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise ParameterError(f"{name}: {text!r} is not a time (YYYY-MM-DDTHH:MM, optionally with an offset)") from None


def date_param(name: str) -> dt.date:
    text = request.args.get(name, "").strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ParameterError(f"{name}: give a date as YYYY-MM-DD, got {text!r}")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ParameterError(f"{name}: {text!r} is not a date") from None


def int_param(name: str, low: int, high: int, default: int | None = None) -> int | None:
    text = request.args.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise ParameterError(f"{name}: give a whole number from {low} to {high}, got {text!r}")
    return int(text)


def create_app(live: LiveTable, rules: HouseRules, table: Table | None = None, session_minutes: float = 15,
               secret_key: bytes | None = None, index: Index | None = None, audit: AuditLog | None = None,
               dealer: DealerLoop | None = None) -> Flask:
    """The dashboard. With ``table``, supervisors log in with their PIN and correct, void or declare a
    misdeal; every such request needs the session, its CSRF token and the PIN again. Behind the same
    session (no token: they change nothing), they read the history and shift totals from ``index``,
    and a round's records, its zone images and the CSV export from ``audit``; an export is logged.
    With ``dealer``, the touch screen drives the dealer's loop as the rail's buttons do."""
    app = Flask(__name__, static_folder=None)
    app.secret_key = secret_key or os.urandom(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict")
    ev = rules.evaluator()
    static = resources.files("appliance.web").joinpath("static")
    page = static.joinpath("table.html").read_text(encoding="utf-8")
    # The house's misdeal reasons (Capitol rule 29) offered as the misdeal form's choices.
    supervisor_page = static.joinpath("supervisor.html").read_text(encoding="utf-8").replace(
        '<datalist id="misdeal-reasons"></datalist>', '<datalist id="misdeal-reasons">' + "".join(
            f'<option value="{html.escape(r)}">' for r in rules.misdeal_reasons) + "</datalist>")
    hint_page = static.joinpath("hint.html").read_text(encoding="utf-8")
    if dealer is not None:
        app.register_blueprint(dealer_routes(dealer))

    @app.get("/")
    def table_view():
        return Response(page, mimetype="text/html")

    @app.get("/hint")
    def hint_view():
        return Response(hint_page, mimetype="text/html")

    @app.get("/supervisor")
    def supervisor_view():
        return Response(supervisor_page, mimetype="text/html")

    @app.get("/api/state")
    def state():
        return jsonify(live.snapshot())

    @app.get("/api/rounds")
    def rounds():
        return jsonify([{"round": r["round"], "phase": r["phase"], "totals": r.get("totals")} for r in live.history])

    @app.get("/api/rounds/<round_id>")
    def one_round(round_id: str):
        for r in live.history:
            if r["round"] == round_id:
                return jsonify(r)
        abort(404)

    @app.get("/api/hint")
    def hint():
        """How the house way sets seven cards, and each of the 21 splits with why it is not chosen."""
        try:
            cards = parse_cards(request.args.get("cards", ""))
            if len(cards) != 7:
                raise ValueError(f"give 7 cards, got {len(cards)}")
        except ValueError as err:
            return jsonify({"error": str(err)}), 400
        front, back, fv, bv, rule = decide(cards, rules.house_way, ev)
        chosen = sorted(front)
        splits = []
        for back_pos, front_pos in SPLITS:
            f = [cards[i] for i in front_pos]
            setting = SetHand.of(f, [cards[i] for i in back_pos], ev)
            splits.append({"front": format_cards(f), "back": format_cards(setting.back),
                           "front_value": ev.name(setting.front_value), "back_value": ev.name(setting.back_value),
                           "house_way": sorted(f) == chosen, "foul": setting.foul})
        return jsonify({"front": format_cards(sorted(front, reverse=True)), "back": format_cards(sorted(back, reverse=True)),
                        "front_value": ev.name(fv), "back_value": ev.name(bv), "rule": rule, "splits": splits})

    @app.errorhandler(ParameterError)
    def bad_parameter(err):
        return jsonify({"error": str(err)}), 400

    @app.errorhandler(RecordingStopped)
    def not_recorded(err):
        """Nothing is done that cannot be recorded: the reason, in plain words."""
        return jsonify({"error": str(err)}), 503

    def end_supervisor_session():
        """The supervisor's part of the session ends; the dealer's screen token in the same browser stays."""
        for key in ("supervisor", "csrf", "expires"):
            session.pop(key, None)

    def no_session():
        """The 401 to answer with, unless a supervisor's session is open and unexpired."""
        if "supervisor" not in session or session.get("expires", 0) < time.time():
            end_supervisor_session()
            return jsonify({"error": "log in as a supervisor first"}), 401
        return None

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
            token = request.headers.get("X-CSRF-Token", "").encode()
            if not secrets.compare_digest(token, session.get("csrf", "").encode()):
                return jsonify({"error": "missing or wrong CSRF token"}), 403
            body = request.get_json(silent=True) or {}
            try:
                return view(body, *args, **kwargs)
            except PinError as err:
                return jsonify({"error": str(err)}), 403
            except (RoundStateError, ValueError) as err:
                return jsonify({"error": str(err)}), 409
        return guarded

    @app.get("/api/devices")
    def devices():
        """Each device's status and its recent faults: public, as the dealer's status lamp reads it
        too, and it shows no money and changes nothing."""
        return jsonify(live.device_status())

    @app.get("/api/history")
    @supervisor_read("index")
    def history():
        """History rows by round, seat, result and time, newest first, from the index."""
        result = request.args.get("result", "").strip() or None
        if result is not None and result not in RESULTS:
            raise ParameterError(f"result: {result!r} is not one of {', '.join(RESULTS)}")
        return jsonify(index.search(round_id=request.args.get("round", "").strip() or None,
                                    seat=int_param("seat", 1, rules.start.player_seats), result=result,
                                    start=time_param("from"), end=time_param("to"),
                                    limit=int_param("limit", 1, HISTORY_LIMIT, default=200)))

    @app.get("/api/shift")
    @supervisor_read("index")
    def shift():
        return jsonify(index.shift(time_param("since")))

    @app.get("/api/rounds/<round_id>/dispute")
    @supervisor_read("index", "audit")
    def dispute_view(round_id: str):
        """Every record of one round, read from the log (any round, not only the last ten)."""
        events = index.events_of(round_id)
        if not events:
            return jsonify({"error": f"no round {round_id!r} in the log"}), 404
        found = round_records(audit.folder, round_id, [e["ts"] for e in events])
        return jsonify(dispute(round_id, found, [e["seq"] for e in events], audit.key))

    @app.get("/api/images/<digest>")
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

    @app.get("/api/export")
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
               who=f"supervisor {session['supervisor']}")
        name = f"rounds-{start}-to-{end}.csv"
        return Response(text, mimetype="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})

    @app.post("/login")
    def login():
        if table is None:
            return jsonify({"error": "no supervisor actions on this table"}), 503
        body = request.get_json(silent=True) or {}
        try:
            who = table.gate.check(str(body.get("supervisor", "")), str(body.get("pin", "")))
        except PinError as err:
            return jsonify({"error": str(err)}), 401
        end_supervisor_session()
        session.update(supervisor=who, csrf=secrets.token_urlsafe(32), expires=time.time() + session_minutes * 60)
        table.log(Events.SUPERVISOR_LOGGED_IN, {"supervisor": who}, who=f"supervisor {who}")
        return jsonify({"supervisor": who, "csrf": session["csrf"], "expires_in_s": session_minutes * 60})

    @app.post("/logout")
    def logout():
        end_supervisor_session()
        return jsonify({"ok": True})

    @app.post("/api/rounds/<round_id>/correct")
    @supervisor_only
    def correct(body, round_id):
        cards = {k: body[k] for k in ("cards", "front", "back") if k in body}
        settlement = table.correct(round_id, session["supervisor"], str(body.get("pin", "")),
                                   str(body.get("reason", "")), body.get("seat"), **cards)
        return jsonify({"ok": True, "settlement": settlement})

    @app.post("/api/rounds/<round_id>/void")
    @supervisor_only
    def void(body, round_id):
        table.void(round_id, session["supervisor"], str(body.get("pin", "")), str(body.get("reason", "")))
        return jsonify({"ok": True})

    @app.post("/api/rounds/<round_id>/misdeal")
    @supervisor_only
    def misdeal(body, round_id):
        table.misdeal(round_id, session["supervisor"], str(body.get("pin", "")), str(body.get("reason", "")))
        return jsonify({"ok": True})

    @app.post("/api/rounds/<round_id>/start")
    @supervisor_only
    def manual_start(body, round_id):
        """The start value entered by the supervisor while the device is down."""
        value = body.get("value")
        if not isinstance(value, int):
            raise ValueError(f"value: {value!r} is not a start value")
        first = table.manual_start(round_id, session["supervisor"], str(body.get("pin", "")), value)
        return jsonify({"ok": True, "first_hand": first})

    @app.get("/api/seal")
    @supervisor_read("audit")
    def last_seal():
        """The last shift seal, as text and QR code, to be kept off the appliance."""
        seal = audit.last_seal
        if seal is None:
            return jsonify({"seal": None})
        return jsonify({"seal": seal, "text": seal_text(seal), "qr_svg": seal_qr_svg(seal)})

    @app.post("/api/shift/close")
    @supervisor_only
    def close_shift(body):
        """The supervisor closes the shift: the log's head is sealed (and recorded)."""
        seal = table.close_shift(session["supervisor"], str(body.get("pin", "")))
        return jsonify({"seal": seal, "text": seal_text(seal), "qr_svg": seal_qr_svg(seal)})

    @app.post("/api/table/release")
    @supervisor_only
    def release(body):
        """The supervisor has dealt with what held the table; the dealer carries on."""
        table.release(session["supervisor"], str(body.get("pin", "")), str(body.get("reason", "")))
        return jsonify({"ok": True})

    @app.get("/events")
    def events():
        subscriber = live.subscribe()

        def stream():
            try:
                yield "retry: 2000\n\n"
                while True:
                    try:
                        message = subscriber.get(timeout=KEEPALIVE_S)
                    except queue.Empty:
                        yield ": keep-alive\n\n"
                        continue
                    yield f"event: {message['event']}\ndata: {json.dumps(message)}\n\n"
            finally:
                live.unsubscribe(subscriber)

        return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-store"})

    return app
