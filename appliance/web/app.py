"""The dashboard: the dealer's live table view and a small JSON API. It renders the table's state
and holds no game logic: the round engine decides, the audit log records, this shows."""

from __future__ import annotations

import functools
import json
import os
import queue
import secrets
import time
from importlib import resources

from flask import Flask, Response, abort, jsonify, request, session

from ..audit.index import Index
from ..game.cards import format_cards, parse_cards
from ..game.house_ways import decide
from ..game.rules import HouseRules
from ..game.setting import SPLITS, SetHand
from ..game.values import evaluator
from ..table.live import LiveTable
from ..table.round import RoundStateError
from ..table.supervisor import PinError
from ..table.dealer import DealerLoop
from ..table.table import Table
from .dealer import dealer_routes

KEEPALIVE_S = 15.0


def create_app(live: LiveTable, rules: HouseRules, table: Table | None = None, session_minutes: float = 15,
               secret_key: bytes | None = None, index: Index | None = None, dealer: DealerLoop | None = None) -> Flask:
    """The dashboard. With ``table``, supervisors log in with their PIN and correct, void or declare a
    misdeal; every such request needs the session, its CSRF token and the PIN again. With ``dealer``,
    the touch screen drives the dealer's loop as the rail's buttons do."""
    app = Flask(__name__, static_folder=None)
    app.secret_key = secret_key or os.urandom(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict")
    ev = evaluator(rules.joker, rules.wheel)
    static = resources.files("appliance.web").joinpath("static")
    page = static.joinpath("table.html").read_text(encoding="utf-8")
    supervisor_page = static.joinpath("supervisor.html").read_text(encoding="utf-8")
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

    def supervisor_only(view):
        @functools.wraps(view)
        def guarded(*args, **kwargs):
            if table is None:
                return jsonify({"error": "no supervisor actions on this table"}), 503
            if "supervisor" not in session or session.get("expires", 0) < time.time():
                session.clear()
                return jsonify({"error": "log in as a supervisor first"}), 401
            token = request.headers.get("X-CSRF-Token", "")
            if not secrets.compare_digest(token, session.get("csrf", "")):
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
        """Each device's status and its recent faults (the supervisor's device panel)."""
        return jsonify(live.device_status())

    @app.get("/api/history")
    def history():
        """Settled seats by seat, result and time (the supervisor's search), from the index."""
        if index is None:
            return jsonify({"error": "no history index on this table"}), 503
        seat = request.args.get("seat", type=int)
        return jsonify(index.search(seat=seat, result=request.args.get("result"), since=request.args.get("since")))

    @app.get("/api/shift")
    def shift():
        if index is None:
            return jsonify({"error": "no history index on this table"}), 503
        return jsonify(index.shift(request.args.get("since", "")))

    @app.post("/login")
    def login():
        if table is None:
            return jsonify({"error": "no supervisor actions on this table"}), 503
        body = request.get_json(silent=True) or {}
        try:
            who = table.gate.check(str(body.get("supervisor", "")), str(body.get("pin", "")))
        except PinError as err:
            return jsonify({"error": str(err)}), 401
        session.clear()
        session.update(supervisor=who, csrf=secrets.token_urlsafe(32), expires=time.time() + session_minutes * 60)
        return jsonify({"supervisor": who, "csrf": session["csrf"], "expires_in_s": session_minutes * 60})

    @app.post("/logout")
    def logout():
        session.clear()
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
