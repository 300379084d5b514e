"""The floor service: the tables' ingest API, the pit view and its JSON API, the accounting report.

Shipping requests carry the table's id (``X-Floor-Table``) and its token (``Authorization:
Bearer``); an unknown table or a wrong token is refused before anything is read (by the door, before
the body is read, and here again). Bad input is a 400 naming what was wrong; the database being down
is a 503 the shipper retries.

People log in (``/login``) with a name and password (``appliance floor user add``) and see what
their role allows (:mod:`.users`, ``SEES`` below); a session is kept on the floor, the browser's
cookie holds only its random id (HttpOnly, SameSite=Strict, Secure over TLS). Every request must
name the floor (``Host``: a name or address it was given, or loopback's), and a request that
changes something from a page of another site (``Origin``) is refused.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import importlib.resources
import json
import logging
import os
import secrets

import psycopg
from flask import Flask, Response, abort, g, jsonify, redirect, request, session
from werkzeug.exceptions import HTTPException

from ..web.site_guard import Site, security_headers
from ..web.supervisor_sessions import SessionStore
from .database import Database
from .enroll import WrongToken, token_digest, token_is_right
from .ingest import Incoming, ingest
from .login_gate import Account, LoginGate, LoginRefused
from .pit import StatsError, alerts, gaming_day, recall, stats, tables
from .report import as_csv, as_page, day_report
from .users import ACCOUNTING, PIT, SURVEILLANCE

MAX_BATCH = 1000
MAX_IMAGE = 16 << 20
BODY_LIMIT = MAX_IMAGE + (1 << 20)  # bytes of any request's body: a zone image and its framing
SESSION_MINUTES = 30  # idle: a pit screen polls every 2 s and stays logged in while it is open
# What each role sees (docs/floor.md): the pit view's parts by role.
SEES = {"tables": (PIT, SURVEILLANCE), "alerts": (PIT, SURVEILLANCE), "figures": (PIT, ACCOUNTING),
        "recall": (SURVEILLANCE,), "report": (ACCOUNTING,)}
HOME = {PIT: "/", SURVEILLANCE: "/", ACCOUNTING: "/floor/report/today"}
log = logging.getLogger(__name__)


class BadRequest(ValueError):
    """A request the floor cannot take as it is (the message says what and where)."""


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


def day_arg(text: str | None, starts: dt.time) -> dt.date:
    """The day asked for, else the gaming day now."""
    try:
        return dt.date.fromisoformat(text) if text else gaming_day(dt.datetime.now(), starts)
    except ValueError:
        raise BadRequest(f"day: {text!r} is not a date (YYYY-MM-DD)") from None


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
    app = Flask(__name__)
    app.secret_key = os.urandom(32)  # signs the cookie holding the session's id; sessions end with the process
    app.config.update(MAX_CONTENT_LENGTH=BODY_LIMIT, SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_SECURE=site.tls, SESSION_COOKIE_NAME="floor_session")
    static = importlib.resources.files("appliance.floor") / "static"
    guard_site(app, site)

    def account(name: str) -> Account | None:
        row = db.conn().execute("SELECT name, role, password_hash FROM floor_users WHERE name = %s",
                                (name,)).fetchone()
        return Account(*row) if row else None

    def held_with(name: str) -> str | None:
        """What a session was opened with: a changed role or password, or a removed user, ends it."""
        found = account(name)
        return f"{found.role}:{found.password_hash}" if found else None

    gate = gate or LoginGate(account)

    def record_login(outcome: str, name: str, role: str | None = None, reason: str | None = None) -> None:
        """The floor's audit of its door (``floor_logins``): who, from where (the door's ``X-Forwarded-For``),
        when, and what came of it. A database that cannot record it answers 503: nothing unrecorded opens."""
        db.conn().execute("INSERT INTO floor_logins (name, address, outcome, role, reason) VALUES (%s, %s, %s, %s, %s)",
                          (name, request.remote_addr or "?", outcome, role, reason))

    sessions = SessionStore(SESSION_MINUTES * 60, limit=2000)

    def signed_in():
        """The open session of this browser (its ``supervisor`` is the user's name), else None."""
        opened = sessions.get(session.get("sid"), held_with)
        if opened is None:
            session.pop("sid", None)
            return None
        g.user, g.role, g.csrf = opened.supervisor, opened.pin_hash.split(":", 1)[0], opened.csrf
        return opened

    def allowed(part: str, page: bool = False):
        """A route for the roles that see ``part``: 401 (a page: to the login page) without a session,
        403 for another role."""
        def wrap(view):
            @functools.wraps(view)
            def guarded(*args, **kwargs):
                if signed_in() is None:
                    return redirect("/login", 303) if page else (jsonify(error="log in first"), 401)
                if g.role not in SEES[part]:
                    return jsonify(error=f"the {g.role} role does not see the {part}"), 403
                return view(*args, **kwargs)
            return guarded
        return wrap

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        response = err.get_response()
        response.set_data(json.dumps({"error": err.description or err.name}))
        response.mimetype = "application/json"
        return response

    def table_of_request() -> str:
        """The authenticated table's id, or a 401 that says why."""
        table = request.headers.get("X-Floor-Table", "")
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if not token_is_right(db.conn(), table, token):
            raise WrongToken(table)
        return table

    @app.errorhandler(PermissionError)
    def unauthorised(err):
        return jsonify(error=str(err)), 401

    @app.errorhandler(BadRequest)
    @app.errorhandler(StatsError)
    def bad_request(err):
        return jsonify(error=str(err)), 400

    @app.errorhandler(psycopg.OperationalError)
    def database_down(err):
        db.drop()
        log.error("database: %s", err)
        return jsonify(error="the floor's database is unavailable; try again"), 503

    @app.post("/api/floor/ingest")
    def ingest_records():
        # The token is checked in the ingest's first statement, with the table's head (a round trip less a
        # batch); the door has checked it before the body was read. A body the floor cannot take is
        # answered only to the table itself: anyone else is told the token is wrong.
        table = request.headers.get("X-Floor-Table", "")
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        body = request.get_json(silent=True)
        try:
            batch, says = parse_batch(body)
        except BadRequest:
            table_of_request()
            raise
        recording = body.get("recording")
        recording = recording if isinstance(recording, bool) else None
        return jsonify(ingest(db.conn(), table, batch, says, token_sha256=token_digest(token),
                              recording=recording).to_json())

    @app.get("/api/floor/head")
    def head():
        table = table_of_request()
        row = db.conn().execute("SELECT head_seq, head_hash FROM floor_tables WHERE table_id = %s", (table,)).fetchone()
        return jsonify(head_seq=row[0], head_hash=row[1])

    @app.put("/api/floor/images/<digest>")
    def image(digest: str):
        table = table_of_request()
        png = request.get_data()
        if len(png) > MAX_IMAGE:
            raise BadRequest(f"image {digest[:12]}...: {len(png)} bytes, at most {MAX_IMAGE}")
        if hashlib.sha256(png).hexdigest() != digest:
            raise BadRequest(f"image {digest[:12]}...: the bytes sent do not have this SHA-256")
        conn = db.conn()
        with conn.transaction():
            conn.execute("INSERT INTO floor_images (sha256, png) VALUES (%s, %s) ON CONFLICT DO NOTHING", (digest, png))
            conn.execute("DELETE FROM floor_images_wanted WHERE sha256 = %s", (digest,))
        return jsonify(stored=digest, table=table)

    @app.get("/api/floor/tables")
    @allowed("tables")
    def all_tables():
        return jsonify(tables(db.conn()))

    @app.get("/api/floor/alerts")
    @allowed("alerts")
    def open_alerts():
        return jsonify(alerts(db.conn(), day_arg(None, day_starts_at)))

    @app.get("/api/floor/stats")
    @allowed("figures")
    def figures():
        return jsonify(stats(db.conn(), day_arg(request.args.get("day"), day_starts_at),
                             request.args.get("by", "table"), day_starts_at))

    @app.get("/api/floor/day")
    def today():
        return jsonify(gaming_day=day_arg(None, day_starts_at).isoformat())

    @app.get("/api/floor/tables/<table>/recall")
    @allowed("recall")
    def game_recall(table: str):
        return jsonify(recall(db.conn(), table))

    @app.get("/api/floor/report/<day>.csv")
    @allowed("report")
    def report_csv(day: str):
        date = day_arg(day, day_starts_at)
        return Response(as_csv(day_report(db.conn(), date)), mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename=floor-{date}.csv",
                                 "Cache-Control": "no-store"})

    @app.get("/floor/report/<day>")
    @allowed("report", page=True)
    def report_page(day: str):
        date = day_arg(None if day == "today" else day, day_starts_at)
        return Response(as_page(day_report(db.conn(), date), date), mimetype="text/html",
                        headers={"Cache-Control": "no-store"})

    @app.get("/")
    def pit():
        if signed_in() is None:
            return redirect("/login", 303)
        if g.role not in SEES["tables"]:
            return redirect(HOME[g.role], 303)
        return Response((static / "pit.html").read_text(encoding="utf-8"), mimetype="text/html",
                        headers={"Cache-Control": "no-store"})

    @app.get("/login")
    def login_page():
        return Response((static / "login.html").read_text(encoding="utf-8"), mimetype="text/html")

    @app.post("/login")
    def login():
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not isinstance(body.get("user"), str) \
                or not isinstance(body.get("password"), str):
            raise BadRequest('the body must be a JSON object {"user": str, "password": str}')
        name = body["user"][:64]  # cut: a name or password past these lengths is no user's ...
        try:
            user = gate.check(name, body["password"][:256], request.remote_addr or "?")  # ... and scrypt hashes all
        except LoginRefused as err:
            record_login("lockout" if err.locked else "failure", name, reason=str(err))
            return jsonify(error=str(err)), 401
        record_login("success", user.name, user.role)  # recorded before the session opens
        sessions.end(session.get("sid"))
        sid, opened = sessions.open(user.name, f"{user.role}:{user.password_hash}")
        session["sid"] = sid
        log.warning("floor login: user %r (%s) from %s", user.name, user.role, request.remote_addr)
        return jsonify(user=user.name, role=user.role, csrf=opened.csrf, home=HOME[user.role],
                       idle_timeout_s=sessions.idle_s)

    @app.get("/api/floor/me")
    def me():
        if signed_in() is None:
            return jsonify(error="log in first"), 401
        return jsonify(user=g.user, role=g.role, csrf=g.csrf, sees=[p for p, roles in SEES.items() if g.role in roles])

    @app.post("/logout")
    def logout():
        """Ends the session on the floor (a saved cookie opens nothing); needs the session's CSRF token."""
        if signed_in() is None:
            return jsonify(error="log in first"), 401
        if not secrets.compare_digest(request.headers.get("X-CSRF-Token", "").encode(), g.csrf.encode()):
            return jsonify(error="missing or wrong CSRF token"), 403
        record_login("logout", g.user, g.role)
        sessions.end(session.pop("sid", None))
        return jsonify(ok=True)

    return app
