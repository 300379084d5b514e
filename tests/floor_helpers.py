"""Shared pieces of the floor's tests: a migrated floor database, a floor service on a free port,
enrolled tables and simulated tables' logs."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path

import psycopg
import waitress

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.floor.database import Database
from appliance.floor.enroll import Credentials, enroll, table_key
from appliance.floor.migrate import migrate
from appliance.floor.server import create_floor_app
from appliance.floor.shipper import Shipped, Shipper
from appliance.table.simulation import play_rounds


@contextmanager
def floor_service(dsn: str, port: int = 0):
    """The floor service (the same app ``appliance floor serve`` runs) on 127.0.0.1; yields its URL."""
    server = waitress.create_server(create_floor_app(Database(dsn)), host="127.0.0.1", port=port, threads=8)
    closing = threading.Event()

    def serve():
        try:
            server.run()
        except OSError:
            if not closing.is_set():  # closing the socket under waitress's select loop is how it stops
                raise

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        closing.set()
        server.close()
        thread.join(5)


def migrated(dsn: str) -> str:
    migrate(dsn)
    return dsn


def enrolled(dsn: str, table: str, folder: Path) -> Credentials:
    return enroll(dsn, table, folder / f"{table}.credentials")


def table_log(folder: Path, credentials: Credentials, rounds: int, seed: int = 1) -> Path:
    """A simulated table's log signed with the key escrowed for it."""
    audit_dir = folder / f"{credentials.table}-audit"
    key = table_key(folder / f"{credentials.table}.key", credentials, audit_dir)
    play_rounds(load_house("general"), AuditLog(audit_dir, key), rounds, seed=seed)
    return audit_dir


def floor_lines(dsn: str, table: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute("SELECT line FROM floor_records WHERE table_id = %s ORDER BY seq", (table,))]


def log_lines(audit_dir: Path) -> list[str]:
    return [line for path in sorted(audit_dir.glob("*.jsonl")) for line in path.read_text().splitlines()]


def ship(audit_dir: Path, url: str, credentials: Credentials, batch: int = 500) -> Shipped:
    """One shipping pass, its connection closed after."""
    with Shipper(audit_dir, url, credentials, batch) as shipper:
        return shipper.ship_pending()
