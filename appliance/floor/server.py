"""The floor service: the tables' ingest API, the pit view and its JSON API, the accounting report.

Shipping requests carry the table's id (``X-Floor-Table``) and its token (``Authorization:
Bearer``); an unknown table or a wrong token is refused before anything is read (by the door, before
the body is read, and here again). Bad input is a 400 naming what was wrong; the database being down
is a 503 the shipper retries.

People log in (``/login``) with a name and password (``appliance floor user add``) and see what
their role allows (:mod:`.users`, :data:`.floor_access.SEES`); a session is kept on the floor, the browser's
cookie holds only its random id (HttpOnly, SameSite=Strict, Secure over TLS). Every request must
name the floor (``Host``: a name or address it was given, or loopback's), and a request that
changes something from a page of another site (``Origin``) is refused.
"""

from __future__ import annotations

import datetime as dt
import functools
import os

from flask import Flask, Response, abort, request

from ..web.site_guard import Site, security_headers
from ..web.supervisor_sessions import SessionStore
from . import login_routes, pit_routes, shipping_routes
from .database import Database
from .floor_access import account, answer_errors_as_json
from .floor_services import FloorServices, install
from .login_gate import LoginGate
from .shipping_routes import MAX_IMAGE

BODY_LIMIT = MAX_IMAGE + (1 << 20)  # bytes of any request's body: a zone image and its framing
SESSION_MINUTES = 30  # idle: a pit screen polls every 2 s and stays logged in while it is open


def host_name(host: str) -> str:
    """The name in a ``Host`` header or an origin, without its port (names are checked, not ports:
    a proxy in front may listen on another).

    >>> host_name("Floor.Casino:8090"), host_name("[::1]:8090"), host_name("10.0.0.5")
    ('floor.casino', '[::1]', '10.0.0.5')
    """
    host = host.lower()
    if host.startswith("["):
        return host[:host.find("]") + 1]
    return host.rpartition(":")[0] if ":" in host else host


def guard_site(app: Flask, site: Site) -> None:
    """Only requests naming the floor (``Host``) are answered, and a change only from its own pages
    (``Origin``, which a browser sends with every POST): DNS rebinding and other sites' forms."""
    names = site.hostnames()

    @app.before_request
    def check_host_and_origin():
        if host_name(request.host) not in names:
            abort(400, f"Host {request.host[:100]!r} is not one of this floor's names (floor serve --name)")
        origin = request.headers.get("Origin")
        if request.method not in ("GET", "HEAD", "OPTIONS") and origin is not None:
            scheme, sep, rest = origin.partition("://")
            if not (sep and scheme == site.scheme and "/" not in rest and host_name(rest) in names):
                abort(403, f"changes from pages of {origin[:100]!r} are not taken")

    @app.after_request
    def add_security_headers(response: Response) -> Response:
        for name, value in security_headers(site.tls).items():
            response.headers.setdefault(name, value)
        return response


def create_floor_app(db: Database, day_starts_at: dt.time = dt.time(6, 0), site: Site = Site("127.0.0.1"),
                     gate: LoginGate | None = None) -> Flask:
    """The floor put together: the site's guard, the one error handler, the services the routes read,
    and the blueprints of the tables' shipping, the pit view and people's logins."""
    app = Flask(__name__)  # named for this module: its root, and so its /static, is the floor package's folder
    app.secret_key = os.urandom(32)  # signs the cookie holding the session's id; sessions end with the process
    app.config.update(MAX_CONTENT_LENGTH=BODY_LIMIT, SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_SECURE=site.tls, SESSION_COOKIE_NAME="floor_session")
    guard_site(app, site)
    answer_errors_as_json(app)
    gate = gate or LoginGate(functools.partial(account, db))
    install(app, FloorServices(db, day_starts_at, gate, SessionStore(SESSION_MINUTES * 60, limit=2000)))
    for blueprint in (shipping_routes.bp, pit_routes.bp, login_routes.bp):
        app.register_blueprint(blueprint)
    return app
