"""People's door to the floor: logging in with a name and password (``appliance floor user add``),
who the session is, and logging out. Every outcome is recorded in ``floor_logins`` before it takes
effect; the browser's cookie holds only the session's random id."""

from __future__ import annotations

import logging

from flask import Blueprint, Response, g, jsonify, request, session

from .floor_access import HOME, SEES, BadRequest, check_token, open_session
from .floor_services import floor
from .login_gate import LoginRefused
from .pit_routes import STATIC

log = logging.getLogger(__name__)

bp = Blueprint("login", __name__)


def record_login(outcome: str, name: str, role: str | None = None, reason: str | None = None) -> None:
    """The floor's audit of its door (``floor_logins``): who, from where (the door's ``X-Forwarded-For``),
    when, and what came of it. A database that cannot record it answers 503: nothing unrecorded opens."""
    floor().db.conn().execute(
        "INSERT INTO floor_logins (name, address, outcome, role, reason) VALUES (%s, %s, %s, %s, %s)",
        (name, request.remote_addr or "?", outcome, role, reason))


@bp.get("/login")
def login_page():
    return Response(STATIC.joinpath("login.html").read_text(encoding="utf-8"), mimetype="text/html")


def name_and_password() -> tuple[str, str]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("user"), str) \
            or not isinstance(body.get("password"), str):
        raise BadRequest('the body must be a JSON object {"user": str, "password": str}')
    # Cut: a name or password past these lengths is no user's, and scrypt would hash all of one however long.
    return body["user"][:64], body["password"][:256]


@bp.post("/login")
def login():
    name, password = name_and_password()
    try:
        user = floor().gate.check(name, password, request.remote_addr or "?")
    except LoginRefused as err:
        record_login("lockout" if err.locked else "failure", name, reason=str(err))
        raise  # a 401, as every wrong password
    record_login("success", user.name, user.role)  # recorded before the session opens
    sessions = floor().sessions
    sessions.end(session.get("sid"))
    sid, opened = sessions.open(user.name, f"{user.role}:{user.password_hash}")
    session["sid"] = sid
    log.warning("floor login: user %r (%s) from %s", user.name, user.role, request.remote_addr)
    return jsonify(user=user.name, role=user.role, csrf=opened.csrf, home=HOME[user.role],
                   idle_timeout_s=sessions.idle_s)


@bp.get("/api/floor/me")
def me():
    open_session()
    return jsonify(user=g.user, role=g.role, csrf=g.csrf, sees=[p for p, roles in SEES.items() if g.role in roles])


@bp.post("/logout")
def logout():
    """Ends the session on the floor (a saved cookie opens nothing); needs the session's CSRF token."""
    open_session()
    check_token()
    record_login("logout", g.user, g.role)
    floor().sessions.end(session.pop("sid", None))
    return jsonify(ok=True)
