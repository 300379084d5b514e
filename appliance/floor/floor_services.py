"""What the floor's routes work with, put together once by :func:`.server.create_floor_app` and kept on
the app: the blueprints are module-level, so one process can serve several apps (the tests make many),
each with its own database."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from flask import Flask, current_app

from ..web.supervisor_sessions import SessionStore
from .database import Database
from .login_gate import LoginGate

KEY = "appliance.floor"


@dataclass(frozen=True)
class FloorServices:
    """The floor's database, the hour its gaming day starts, its door for people and their sessions."""
    db: Database
    day_starts_at: dt.time
    gate: LoginGate
    sessions: SessionStore  # a session's ``supervisor`` is the user's name, its ``pin_hash`` "role:password hash"


def install(app: Flask, services: FloorServices) -> None:
    app.extensions[KEY] = services


def floor() -> FloorServices:
    """The services of the floor app answering the current request."""
    return current_app.extensions[KEY]
