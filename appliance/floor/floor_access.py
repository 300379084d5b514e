"""Who may use a route of the floor, and how every refusal is answered.

A table's request carries its id (``X-Floor-Table``) and its token (``Authorization: Bearer``). A
person's request needs their open session and a role that sees the part asked for (``SEES``); a
change (logging out) needs the session's CSRF token too. A route refuses by raising: a domain error,
:class:`BadRequest` for input it cannot take, or :class:`Refused` for what only the route can say.
The handlers here answer each as ``{"error": ...}`` naming what was wrong; the database being down
is a 503 the shipper retries."""

from __future__ import annotations

import functools
import json
import logging
import secrets
from collections.abc import Callable, Mapping

import psycopg
from flask import Flask, g, jsonify, redirect, request, session
from werkzeug.exceptions import HTTPException

from ..web.supervisor_sessions import SupervisorSession
from .database import Database
from .enroll import WrongToken, token_is_right
from .floor_services import floor
from .login_gate import Account
from .pit import StatsError
from .users import ACCOUNTING, PIT, SURVEILLANCE

# What each role sees (docs/floor.md): the pit view's parts by role.
SEES = {"tables": (PIT, SURVEILLANCE), "alerts": (PIT, SURVEILLANCE), "figures": (PIT, ACCOUNTING),
        "recall": (SURVEILLANCE,), "report": (ACCOUNTING,)}
HOME = {PIT: "/", SURVEILLANCE: "/", ACCOUNTING: "/floor/report/today"}
log = logging.getLogger(__name__)


class BadRequest(ValueError):
    """A request the floor cannot take as it is (the message says what and where)."""


class Refused(Exception):
    """A refusal only the route can state: its status, and what was wrong in plain words."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


#: A refusal's status by the closest class of its error: a wrong token or password, and input the
#: floor cannot take (a figures request naming no grouping or day among it).
REFUSALS: Mapping[type[Exception], int] = {PermissionError: 401, BadRequest: 400, StatsError: 400}


def status_of(err: Exception) -> int:
    """The status a refusal is answered with.

    >>> status_of(WrongToken("T1")), status_of(StatsError("by: 'seat'")), status_of(Refused(403, "no"))
    (401, 400, 403)
    """
    if isinstance(err, Refused):
        return err.status
    return next(REFUSALS[kind] for kind in type(err).__mro__ if kind in REFUSALS)


def refusal(err: Exception):
    return jsonify(error=str(err)), status_of(err)


def http_error(err: HTTPException):
    response = err.get_response()  # keeps the headers a status needs (Allow on a 405)
    response.set_data(json.dumps({"error": err.description or err.name}))
    response.mimetype = "application/json"
    return response


def database_down(err: psycopg.OperationalError):
    floor().db.drop()
    log.error("database: %s", err)
    return jsonify(error="the floor's database is unavailable; try again"), 503


def answer_errors_as_json(app: Flask) -> None:
    """Every refusal, and every HTTP error of Flask's own, a JSON ``{"error"}``."""
    app.register_error_handler(HTTPException, http_error)
    for kind in (Refused, *REFUSALS):
        app.register_error_handler(kind, refusal)
    app.register_error_handler(psycopg.OperationalError, database_down)


def credentials() -> tuple[str, str]:
    """The table and the token a request names, unchecked (:func:`shipping_table` checks them)."""
    return request.headers.get("X-Floor-Table", ""), request.headers.get("Authorization", "").removeprefix("Bearer ")


def shipping_table() -> str:
    """The authenticated table's id, or a 401 that says why."""
    table, token = credentials()
    if not token_is_right(floor().db.conn(), table, token):
        raise WrongToken(table)
    return table


def account(db: Database, name: str) -> Account | None:
    row = db.conn().execute("SELECT name, role, password_hash FROM floor_users WHERE name = %s", (name,)).fetchone()
    return Account(*row) if row else None


def held_with(name: str) -> str | None:
    """What a session was opened with: a changed role or password, or a removed user, ends it."""
    found = account(floor().db, name)
    return f"{found.role}:{found.password_hash}" if found else None


def signed_in() -> SupervisorSession | None:
    """The open session of this browser (its ``supervisor`` is the user's name; the user, the role and
    the CSRF token kept in ``g``), else None; a cookie naming an ended session is cleared."""
    opened = floor().sessions.get(session.get("sid"), held_with)
    if opened is None:
        session.pop("sid", None)
        return None
    g.user, g.role, g.csrf = opened.supervisor, opened.pin_hash.split(":", 1)[0], opened.csrf
    return opened


def open_session() -> None:
    """A 401 without an open session."""
    if signed_in() is None:
        raise Refused(401, "log in first")


def check_token() -> None:
    """A 403 unless the request carries the open session's CSRF token."""
    if not secrets.compare_digest(request.headers.get("X-CSRF-Token", "").encode(), g.csrf.encode()):
        raise Refused(403, "missing or wrong CSRF token")


def allowed(part: str, page: bool = False) -> Callable:
    """A route for the roles that see ``part``: 401 (a page: to the login page) without a session,
    403 for another role."""
    def wrap(view):
        @functools.wraps(view)
        def guarded(*args, **kwargs):
            if signed_in() is None:
                if page:
                    return redirect("/login", 303)
                raise Refused(401, "log in first")
            if g.role not in SEES[part]:
                raise Refused(403, f"the {g.role} role does not see the {part}")
            return view(*args, **kwargs)
        return guarded
    return wrap
