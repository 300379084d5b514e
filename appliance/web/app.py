"""The dashboard: the dealer's live table view and a small JSON API. It renders the table's state
and holds no game logic: the round engine decides, the audit log records, this shows."""

from __future__ import annotations

import html
import os
import re
from importlib import resources
from pathlib import Path

from flask import Flask, Response, abort, jsonify, request

from ..audit.history_index import Index
from ..audit.log import AuditLog
from ..game.cards import format_cards
from ..game.house_ways import decide
from ..game.rules import HouseRules
from ..game.setting import SPLITS, SetHand
from ..table.dealer import DealerLoop
from ..table.live import LiveTable
from ..table.table import Table
from . import dealer_routes, setup_routes, supervisor_routes
from .access import answer_errors_as_json
from .query_params import cards_param
from .request_body import BODY_LIMIT
from .screen_pairing import ScreenPairings
from .setup_rig import SetupRig
from .site_guard import Site, security_headers
from .services import Services, install
from .supervisor_sessions import SessionStore

VENDORED = {"uPlot.iife.min.js": "text/javascript", "uPlot.min.css": "text/css"}


INSECURE_BANNER = ('<div id="insecure-http" role="alert" style="background:#b00020;color:#fff;padding:.4em 1em;'
                   'font:bold 1rem sans-serif">Not secure: this dashboard is served over plain HTTP on the floor '
                   'network (--insecure-http). Anyone on the network can read and change what it sends.</div>')


def guard_site(app: Flask, site: Site) -> None:
    """Only requests naming this dashboard (Host) from its own pages (Origin, where a browser sends
    one) are answered; over TLS, browsers are told to keep to HTTPS; over plain HTTP off loopback,
    every page says so."""
    @app.before_request
    def check_host_and_origin():
        port = site.port or int(request.environ.get("SERVER_PORT") or 0)
        if not site.allows_host(request.host, port):
            abort(400, f"Host {request.host[:100]!r} is not this dashboard's name")
        origin = request.headers.get("Origin")
        if origin is not None and not site.allows_origin(origin, port):
            abort(403, f"requests from pages of {origin[:100]!r} are not answered")

    @app.after_request
    def add_security_headers(response: Response) -> Response:
        for name, value in security_headers(site.tls).items():
            response.headers.setdefault(name, value)
        if site.insecure_http and response.mimetype == "text/html" and not response.is_streamed:
            html = response.get_data(as_text=True)
            response.set_data(re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + INSECURE_BANNER, html, count=1))
        return response


def create_app(live: LiveTable, rules: HouseRules, table: Table | None = None, session_minutes: float = 15,
               secret_key: bytes | None = None, index: Index | None = None, audit: AuditLog | None = None,
               dealer: DealerLoop | None = None, site: Site = Site("127.0.0.1"),
               screens_file: Path | None = None, setup: SetupRig | None = None) -> Flask:
    """The dashboard. With ``table``, supervisors log in with their PIN and correct, void or declare a
    misdeal; every such request needs the session, its CSRF token and the PIN again. Behind the same
    session (no token: they change nothing), they read the history and shift totals from ``index``,
    and a round's records, its zone images and the CSV export from ``audit``; an export is logged.
    With ``dealer``, the touch screen drives the dealer's loop as the rail's buttons do (the appliance's
    own screen, and screens paired to it, kept in ``screens_file`` across restarts). ``site`` says which
    names and origins are answered, and whether the dashboard is served over TLS. With ``setup`` (and
    ``table``), the technician's setup is at /setup, behind the same supervisor's session."""
    app = Flask(__name__, static_folder=None)
    app.secret_key = secret_key or os.urandom(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict", MAX_CONTENT_LENGTH=BODY_LIMIT,
                      SESSION_COOKIE_SECURE=site.tls)
    guard_site(app, site)
    answer_errors_as_json(app)
    ev = rules.evaluator()
    static = resources.files("appliance.web").joinpath("static")
    page = static.joinpath("table.html").read_text(encoding="utf-8")
    # The house's misdeal reasons (Capitol rule 29) offered as the misdeal form's choices.
    supervisor_page = static.joinpath("supervisor.html").read_text(encoding="utf-8").replace(
        '<datalist id="misdeal-reasons"></datalist>', '<datalist id="misdeal-reasons">' + "".join(
            f'<option value="{html.escape(r)}">' for r in rules.misdeal_reasons) + "</datalist>")
    hint_page = static.joinpath("hint.html").read_text(encoding="utf-8")
    pairings = None
    if dealer is not None:
        pairings = ScreenPairings((screens_file, dealer.table.audit.store_file) if screens_file else None)
    sessions = SessionStore(session_minutes * 60)
    install(app, Services(live, rules, sessions, table, index, audit, dealer, pairings, setup))
    app.register_blueprint(supervisor_routes.bp)
    if setup is not None and table is not None:
        app.register_blueprint(setup_routes.bp)
    if dealer is not None:
        app.register_blueprint(dealer_routes.bp)

    @app.get("/")
    def table_view():
        return Response(page, mimetype="text/html")

    @app.get("/hint")
    def hint_view():
        return Response(hint_page, mimetype="text/html")

    @app.get("/supervisor")
    def supervisor_view():
        return Response(supervisor_page, mimetype="text/html")

    @app.get("/vendor/uplot/<name>")
    def vendor(name: str):
        """The charting library, served by the appliance itself (the table has no internet)."""
        if name not in VENDORED:
            abort(404)
        response = Response(static.joinpath("vendor", "uplot", name).read_bytes(), mimetype=VENDORED[name])
        response.headers["Cache-Control"] = "public, max-age=86400"
        return response

    @app.get("/healthz")
    def healthz():
        """The watchdog's probe: an answer shows the web server still takes requests."""
        return Response("ok\n", mimetype="text/plain")

    @app.get("/api/state")
    def state():
        """The live state. The front answers GET /api/state itself with the same bytes (fed to it by
        :mod:`.front_process`); this route answers what reaches Flask (HEAD, the tests' client)."""
        return Response(live.state_json(), mimetype="application/json")

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
        cards = cards_param("cards", 7)
        front, back, fv, bv, rule = decide(cards, rules.way, ev)
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


    @app.get("/api/devices")
    def devices():
        """Each device's status and its recent faults: public, as the dealer's status lamp reads it
        too, and it shows no money and changes nothing."""
        return jsonify(live.device_status())

    return app
