"""The table's public part of the dashboard: the dealer's live view and its JSON (the state, the last
rounds, the devices' status), the house-way hint, the supervisor's page itself (its data needs the
session), the vendored charting library and the watchdog's probe. None of it changes anything."""

from __future__ import annotations

import html
from importlib import resources

from flask import Blueprint, Response, abort, jsonify

from ..game.cards import format_cards
from ..game.house_ways import house_way_split
from ..game.setting import SPLITS, SetHand
from .query_params import cards_param
from .services import services

STATIC = resources.files("appliance.web").joinpath("static")
TABLE_PAGE = STATIC.joinpath("table.html").read_text(encoding="utf-8")
HINT_PAGE = STATIC.joinpath("hint.html").read_text(encoding="utf-8")
SUPERVISOR_PAGE = STATIC.joinpath("supervisor.html").read_text(encoding="utf-8")
VENDORED = {"uPlot.iife.min.js": "text/javascript", "uPlot.min.css": "text/css"}

bp = Blueprint("table", __name__)


@bp.get("/")
def table_view():
    return Response(TABLE_PAGE, mimetype="text/html")


@bp.get("/hint")
def hint_view():
    return Response(HINT_PAGE, mimetype="text/html")


@bp.get("/supervisor")
def supervisor_view():
    """The supervisor's page, the house's misdeal reasons (Capitol rule 29) offered as the misdeal
    form's choices."""
    reasons = "".join(f'<option value="{html.escape(r)}">' for r in services().rules.misdeal_reasons)
    page = SUPERVISOR_PAGE.replace('<datalist id="misdeal-reasons"></datalist>',
                                   f'<datalist id="misdeal-reasons">{reasons}</datalist>')
    return Response(page, mimetype="text/html")


@bp.get("/vendor/uplot/<name>")
def vendor(name: str):
    """The charting library, served by the appliance itself (the table has no internet)."""
    if name not in VENDORED:
        abort(404)
    response = Response(STATIC.joinpath("vendor", "uplot", name).read_bytes(), mimetype=VENDORED[name])
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@bp.get("/healthz")
def healthz():
    """The watchdog's probe: an answer shows the web server still takes requests."""
    return Response("ok\n", mimetype="text/plain")


@bp.get("/api/state")
def state():
    """The live state. The front answers GET /api/state itself with the same bytes (fed to it by
    :mod:`.front_process`); this route answers what reaches Flask (HEAD, the tests' client)."""
    return Response(services().live.state_json(), mimetype="application/json")


@bp.get("/api/rounds")
def rounds():
    return jsonify([{"round": r["round"], "phase": r["phase"], "totals": r.get("totals")}
                    for r in services().live.history])


@bp.get("/api/rounds/<round_id>")
def one_round(round_id: str):
    for r in services().live.history:
        if r["round"] == round_id:
            return jsonify(r)
    abort(404)


@bp.get("/api/hint")
def hint():
    """How the house way sets seven cards, and each of the 21 splits with why it is not chosen."""
    rules = services().rules
    ev, cards = rules.evaluator(), cards_param("cards", 7)
    front, back, fv, bv, rule = house_way_split(cards, rules.way, ev)
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


@bp.get("/api/devices")
def devices():
    """Each device's status and its recent faults: public, as the dealer's status lamp reads it
    too, and it shows no money and changes nothing."""
    return jsonify(services().live.device_status())
