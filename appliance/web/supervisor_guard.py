"""The two checks every supervisor's route makes, for the supervisor's pages and the technician's
setup alike: an open session for this browser, and for a change its CSRF token."""

from __future__ import annotations

import secrets

from flask import g, jsonify, request, session

from ..table.table import Table
from .supervisor_sessions import SessionStore


def session_refused(sessions: SessionStore, table: Table | None):
    """The 401 to answer with unless this browser has a supervisor's open session (kept in
    ``g.supervisor``); a cookie naming an ended session is cleared."""
    g.supervisor = None if table is None else sessions.get(session.get("sid"), table.gate.stored)
    if g.supervisor is None:
        session.pop("sid", None)
        return jsonify({"error": "log in as a supervisor first"}), 401
    return None


def token_refused():
    """The 403 to answer with unless the request carries the open session's CSRF token."""
    token = request.headers.get("X-CSRF-Token", "").encode()
    if not secrets.compare_digest(token, g.supervisor.csrf.encode()):
        return jsonify({"error": "missing or wrong CSRF token"}), 403
    return None
