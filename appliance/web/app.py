"""The dashboard put together: the site's guard, the one error handler, the services the routes read,
and the blueprints of the table, the supervisor, the setup and the dealer's screen. It renders the
table's state and holds no game logic: the round engine decides, the audit log records, this shows."""

from __future__ import annotations

import os
import re
from pathlib import Path

from flask import Flask, Response, abort, request

from ..audit.history_index import Index
from ..audit.log import AuditLog
from ..game.rules import HouseRules
from ..setup.rig import SetupRig
from ..table.dealer import DealerLoop
from ..table.live import LiveTable
from ..table.table import Table
from . import dealer_routes, setup_routes, supervisor_routes, table_routes
from .access import answer_errors_as_json
from .request_body import BODY_LIMIT
from .screen_pairing import ScreenPairings
from .site_guard import Site, security_headers
from .services import Services, install
from .supervisor_sessions import SessionStore

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
    pairings = None
    if dealer is not None:
        pairings = ScreenPairings((screens_file, dealer.table.audit.store_file) if screens_file else None)
    sessions = SessionStore(session_minutes * 60)
    install(app, Services(live, rules, sessions, table, index, audit, dealer, pairings, setup))
    app.register_blueprint(table_routes.bp)
    app.register_blueprint(supervisor_routes.bp)
    if setup is not None and table is not None:
        app.register_blueprint(setup_routes.bp)
    if dealer is not None:
        app.register_blueprint(dealer_routes.bp)
    return app
