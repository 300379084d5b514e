"""What the dashboard's routes work with, put together once by :func:`.app.create_app` and kept on the
app: the blueprints are module-level, so one process can serve several apps (the tests make many), each
with its own table."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app

from ..audit.history_index import Index
from ..audit.log import AuditLog
from ..game.rules import HouseRules
from ..setup.rig import SetupRig
from ..table.dealer import DealerLoop
from ..table.live import LiveTable
from ..table.table import Table
from .screen_pairing import ScreenPairings
from .supervisor_sessions import SessionStore

KEY = "appliance"


@dataclass(frozen=True)
class Services:
    """The table and its records as the routes see them; a part a table lacks is None (no ``table``:
    no supervisor's actions; no ``index`` or ``audit``: none of the reads that need them)."""
    live: LiveTable
    rules: HouseRules
    sessions: SessionStore
    table: Table | None = None
    index: Index | None = None
    audit: AuditLog | None = None
    dealer: DealerLoop | None = None  # the dealer's loop, driven from the touch screen as by the rail's buttons
    pairings: ScreenPairings | None = None
    setup: SetupRig | None = None  # the technician's setup, on an appliance that has a station to set up


def install(app: Flask, services: Services) -> None:
    app.extensions[KEY] = services


def services_of(app: Flask) -> Services:
    return app.extensions[KEY]


def services() -> Services:
    """The services of the app answering the current request."""
    return services_of(current_app)
