"""The dashboard: the dealer's live table view and a small JSON API. It renders the table's state
and holds no game logic: the round engine decides, the audit log records, this shows."""

from __future__ import annotations

import json
import queue
from importlib import resources

from flask import Flask, Response, abort, jsonify, request

from ..game.cards import format_cards, parse_cards
from ..game.house_ways import decide
from ..game.rules import HouseRules
from ..game.setting import SPLITS, SetHand
from ..game.values import evaluator
from ..table.live import LiveTable

KEEPALIVE_S = 15.0


def create_app(live: LiveTable, rules: HouseRules) -> Flask:
    app = Flask(__name__, static_folder=None)
    ev = evaluator(rules.joker, rules.wheel)
    page = resources.files("appliance.web").joinpath("static", "table.html").read_text(encoding="utf-8")

    @app.get("/")
    def table_view():
        return Response(page, mimetype="text/html")

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
