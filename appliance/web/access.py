"""Who may use a route of the dashboard, and how every refusal is answered.

A supervisor's read needs this browser's open session; a supervisor's action needs the session, its
CSRF token and a JSON body, and the table checks the PIN again. A press on the dealer's screen needs a
screen paired to the table (or the appliance's own) and the screen's CSRF token. A route refuses by
raising: a domain error, or :class:`Refused` for what only the route can say. The one error handler
here answers every refusal as ``{"error": ...}`` naming what was wrong, with the status the kind of
route gives it (a wrong PIN is a 401 at login, where it refuses the session, and a 403 for an action
of a session)."""

from __future__ import annotations

import functools
import json
import logging
import secrets
from collections.abc import Callable, Mapping

from flask import Flask, abort, g, jsonify, request, session
from werkzeug.exceptions import HTTPException

from ..audit.log import RecordingStopped
from ..game.rules import HouseRulesError
from ..table.dealer_errors import SupervisorPinNeeded
from ..table.round import RoundStateError
from ..table.supervisor import PIN_LIMIT, PinError
from ..vision.calibrate import CalibrationError
from ..vision.capture import CaptureError
from ..vision.deck import DeckError
from .query_params import ParameterError
from .request_body import BODY_LIMIT, BodyError, json_object, text
from .screen_pairing import SCREEN_COOKIE, PairingError
from .services import services
from .site_guard import is_loopback
from .supervisor_sessions import SupervisorSession

log = logging.getLogger(__name__)

OWN_SCREEN = "dealer (screen)"  # the appliance's own screen, as the log names it

#: A refusal's status, and the fields beside ``error`` that the page acts on.
Answer = int | tuple[int, Mapping[str, str]]
Refusals = Mapping[type[Exception], Answer]

#: On every route: a request that cannot be used names its field (400); nothing is done that cannot
#: be recorded (503).
EVERY_ROUTE: Refusals = {BodyError: 400, ParameterError: 400, RecordingStopped: 503}
#: A supervisor's login: a wrong id or PIN opens no session.
LOGIN: Refusals = {PinError: 401}
#: A supervisor's action: a wrong PIN, or what the table cannot do in its state, in its own words.
SUPERVISOR_ACTION: Refusals = {PinError: 403, ValueError: 409}
#: A supervisor's revoking a screen: a screen that is not paired is not found.
REVOKING_A_SCREEN: Refusals = {**SUPERVISOR_ACTION, PairingError: 404}
#: The technician's setup: a wrong PIN, or what the camera, the deck, a house or the table cannot do now.
SETUP: Refusals = {PinError: 403, CaptureError: 409, CalibrationError: 409, DeckError: 409, HouseRulesError: 409,
                   RoundStateError: 409}
ASK_FOR_PIN = {"needs": "supervisor_pin"}  # the dealer's screen asks for a supervisor's id and PIN (again)
#: A press on the dealer's screen: whatever the dealer's loop refuses (a stopped recording too) is a 409
#: the screen shows as it is; where a supervisor's PIN is wanted, the screen asks for it.
DEALER_SCREEN: Refusals = {PinError: (403, ASK_FOR_PIN), SupervisorPinNeeded: (409, ASK_FOR_PIN),
                           RecordingStopped: 409, ValueError: 409}
#: A device that asks to be paired with a code that is wrong, used, or tried too often.
PAIRING: Refusals = {PairingError: 403}


class Refused(Exception):
    """A refusal only the route can state: its status, and what was wrong in plain words."""

    def __init__(self, status: int, message: str, **also: str):
        super().__init__(message)
        self.status, self.also = status, also


def answer_of(err: Exception, refusals: Refusals) -> tuple[int, Mapping[str, str]] | None:
    """The status ``err`` is answered with, and the fields beside its message, by its closest class
    the route's ``refusals`` or every route name; None for a fault of our own.

    >>> answer_of(PinError("wrong PIN"), SUPERVISOR_ACTION), answer_of(PinError("wrong PIN"), LOGIN)
    ((403, {}), (401, {}))
    >>> answer_of(BodyError("pin: expected a string"), SUPERVISOR_ACTION)  # a field named, not a table's state
    (400, {})
    >>> answer_of(PinError("wrong PIN"), DEALER_SCREEN)
    (403, {'needs': 'supervisor_pin'})
    >>> answer_of(KeyError("seat"), SUPERVISOR_ACTION) is None
    True
    """
    if isinstance(err, Refused):
        return err.status, err.also
    for kind in type(err).__mro__:
        for known in (refusals, EVERY_ROUTE):
            if kind in known:
                answer = known[kind]
                return answer if isinstance(answer, tuple) else (answer, {})
    return None


def answering(refusals: Refusals):
    """A view whose refusals are answered as ``refusals`` says (and as on every route)."""
    def wrap(view):
        @functools.wraps(view)
        def answered(*args, **kwargs):
            g.refusals = refusals
            return view(*args, **kwargs)
        return answered
    return wrap


def answer_errors_as_json(app: Flask) -> None:
    """Every refusal is a JSON ``{"error"}`` naming what was wrong; a body over the limit is refused
    before anything reads it (413); a fault of our own is a 500 that says so, never a traceback."""
    @app.before_request
    def body_limit():
        if (request.content_length or 0) > BODY_LIMIT:
            abort(413, f"the body is {request.content_length} bytes; at most {BODY_LIMIT}")

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        response = err.get_response()  # keeps the headers a status needs (Allow on a 405)
        response.set_data(json.dumps({"error": err.description or err.name}))
        response.mimetype = "application/json"
        return response

    @app.errorhandler(Exception)
    def refusal(err: Exception):
        answer = answer_of(err, g.get("refusals", {}))
        if answer is None:
            log.exception("dashboard fault on %s %s", request.method, request.path)
            return jsonify({"error": "the appliance failed to answer this request (logged)"}), 500
        status, also = answer
        return jsonify({"error": str(err), **also}), status


def open_session() -> SupervisorSession:
    """This browser's open supervisor's session (kept in ``g.supervisor``), or a 401; a cookie naming an
    ended session is cleared."""
    table, sessions = services().table, services().sessions
    g.supervisor = None if table is None else sessions.get(session.get("sid"), table.gate.stored)
    if g.supervisor is None:
        session.pop("sid", None)
        raise Refused(401, "log in as a supervisor first")
    return g.supervisor


def check_token() -> None:
    """A 403 unless the request carries the open session's CSRF token."""
    token = request.headers.get("X-CSRF-Token", "").encode()
    if not secrets.compare_digest(token, g.supervisor.csrf.encode()):
        raise Refused(403, "missing or wrong CSRF token")


def pin(body: dict) -> str:
    return text(body, "pin", PIN_LIMIT)


def supervisor_read(*needs: str) -> Callable:
    """A GET for a logged-in supervisor that reads from ``needs`` (``index``, ``audit``)."""
    def wrap(view):
        @functools.wraps(view)
        def guarded(*args, **kwargs):
            open_session()
            parts = services()
            missing = [name for name in needs if getattr(parts, name) is None]
            if missing:
                raise Refused(503, f"no {' or '.join(missing)} on this table")
            return view(*args, **kwargs)
        return guarded
    return wrap


def supervisor_action(view):
    """A change by a logged-in supervisor (the session, its CSRF token), given the request's JSON object."""
    @functools.wraps(view)
    @answering(SUPERVISOR_ACTION)
    def guarded(*args, **kwargs):
        if services().table is None:
            raise Refused(503, "no supervisor actions on this table")
        open_session()
        check_token()
        return view(json_object(), *args, **kwargs)
    return guarded


def this_screen() -> str | None:
    """Who drives the dealer's controls from here: a paired screen (named in the log), the
    appliance's own screen, or nobody."""
    screen = services().pairings.screen(request.cookies.get(SCREEN_COOKIE))
    if screen is not None:
        return f"dealer (screen {screen.name}, {screen.id})"
    return OWN_SCREEN if is_loopback(request.remote_addr or "") else None


def paired_screen() -> str:
    """:func:`this_screen`, or a 403 that sends the device to be paired."""
    screen = this_screen()
    if screen is None:
        raise Refused(403, "this device is not paired to the table: pair it at /pair", pair="/pair")
    return screen


def screen_token() -> str:
    """The screen's CSRF token, handed to the page itself (a page of another site cannot read it)."""
    return session.setdefault("dealer_csrf", secrets.token_urlsafe(32))


def screen_action(view):
    """A press on the dealer's screen (a paired screen, kept in ``g.screen``, and its CSRF token),
    given the request's JSON object."""
    @functools.wraps(view)
    @answering(DEALER_SCREEN)
    def guarded():
        g.screen = paired_screen()
        token = request.headers.get("X-CSRF-Token", "").encode()
        if not token or not secrets.compare_digest(token, session.get("dealer_csrf", "").encode()):
            raise Refused(403, "missing or wrong CSRF token: reload the page")
        return view(json_object())
    return guarded
