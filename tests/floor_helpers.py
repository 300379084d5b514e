"""Shared pieces of the floor's tests: a migrated floor database, a floor service on a free port,
enrolled tables and simulated tables' logs."""

from __future__ import annotations

import http.cookiejar
import json
import socket
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import psycopg

from appliance.audit.log import AuditLog, line_hash
from appliance.config import load_house
from appliance.floor.database import Database
from appliance.floor.enroll import Credentials, enroll, table_key
from appliance.floor.migrate import migrate
from appliance.floor.floor_serving import serve_floor
from appliance.floor.shipper import Shipped, Shipper
from appliance.floor.users import add_user
from appliance.table.simulation import play_rounds

PASSWORD = "a floor test password"


@contextmanager
def floor_service(dsn: str, port: int = 0, **options):
    """The floor service as ``appliance floor serve`` serves it (the door, waitress behind it) on
    127.0.0.1; yields its URL."""
    service = serve_floor(Database(dsn), port=port, threads=8, **options)
    try:
        yield service.url
    finally:
        service.stop()


@contextmanager
def floor_down():
    """The URL of a floor that is down: its port held bound and never listening, so every connection to it is
    refused, and no other process can serve there meanwhile (as it could on a port chosen and freed)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}"


def user(dsn: str, role: str, name: str | None = None) -> str:
    """A floor user of ``role`` (named after it unless ``name``) with :data:`PASSWORD`; its name."""
    name = name or role
    add_user(dsn, name, role, PASSWORD, replace=True)
    return name


def logged_in(url: str, name: str, password: str = PASSWORD) -> urllib.request.OpenerDirector:
    """An opener holding the session cookie of ``name``'s login (its ``csrf`` token as an attribute)."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    request = urllib.request.Request(f"{url}/login", json.dumps({"user": name, "password": password}).encode(),
                                     {"Content-Type": "application/json"})
    with opener.open(request, timeout=10) as response:
        opener.csrf = json.loads(response.read())["csrf"]
    return opener


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


def kept_by_an_old_floor(dsn: str, version: int, table: str, audit_dir: Path, day: str | None = None) -> None:
    """The database of a floor whose schema is at ``version``, holding a table's log as that floor stored
    it: each line with its round, booked to ``day`` (else the day it was signed with), and its rounds'
    figures as the SQL view of that version counted them (migrations 002 to 008 kept one)."""
    migrate(dsn, through=version)
    lines = log_lines(audit_dir)
    with psycopg.connect(dsn) as conn:
        conn.execute("INSERT INTO floor_tables (table_id, token_sha256) VALUES (%s, %s)", (table, "0" * 64))
        conn.cursor().executemany(
            "INSERT INTO floor_records (table_id, seq, ts, gaming_day, event, who, round, hash, line) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(table, r["seq"], r["ts"], day or r["gaming_day"], r["event"], r["who"], r["data"].get("round"),
              line_hash(line.encode()), line) for line, r in zip(lines, map(json.loads, lines))])
        conn.execute("INSERT INTO floor_rounds SELECT * FROM floor_round_figures")


def ship(audit_dir: Path, url: str, credentials: Credentials, batch: int = 500) -> Shipped:
    """One shipping pass, its connection closed after."""
    with Shipper(audit_dir, url, credentials, batch) as shipper:
        return shipper.ship_pending()


def role_for(path: str) -> str:
    """The role that sees ``path``: recall is surveillance's, the reports accounting's, the rest the pit's."""
    if path.startswith("/api/floor/tables/") and path.endswith("/recall"):
        return "surveillance"
    return "accounting" if path.startswith(("/api/floor/report/", "/floor/report/")) else "pit"


def seen(url: str, role: str | None = None) -> bytes:
    """What a GET of ``url`` answers to the user named after ``role`` (made by :func:`user`), logged in
    for this request (``role`` by default: :func:`role_for` the path)."""
    parts = urllib.parse.urlsplit(url)
    with logged_in(f"{parts.scheme}://{parts.netloc}", role or role_for(parts.path)).open(url, timeout=10) as answer:
        return answer.read()


def seen_json(url: str, role: str | None = None):
    return json.loads(seen(url, role))


def users(dsn: str) -> str:
    """The three roles' users (named after their roles); ``dsn``."""
    for role in ("pit", "accounting", "surveillance"):
        user(dsn, role)
    return dsn


AS_LAID = {"front": ["Ah", "Ad"], "back": ["Kh", "Ks", "Kc", "4d", "3c"]}  # seat 2's hand in corrected_rounds


def corrected_rounds(dsn: str, folder: Path) -> tuple[Credentials, Path]:
    """Table T1 enrolled on a migrated floor (with its users), and its log: round t-1 settled, seat 2's hand
    corrected to AS_LAID (read otherwise) and settled again; round t-2 settled, corrected, and the appliance
    stopped before it settled again."""
    from dealer_table import BANKER, SEAT2, Dealer

    from appliance.devices.protocol import RngResult

    users(migrated(dsn))
    credentials = enrolled(dsn, "T1", folder)
    audit_dir = folder / "T1"
    d = Dealer(audit_dir, audit=AuditLog(audit_dir, table_key(folder / "T1.key", credentials, audit_dir)))
    d.open_round()
    d.look({"banker": BANKER})
    assert d.loop.press("confirm") == ""
    d.look(SEAT2)
    assert d.loop.press("confirm") == ""
    d.table.correct("t-1", "1042", "4821", "seat 2's hand was misread", 2, **AS_LAID)  # settled again
    d.loop.press("next")
    d.loop.start_value("rng", RngResult(2, 3))
    d.look({"banker": BANKER})
    assert d.loop.press("confirm") == ""
    d.look(SEAT2)
    assert d.loop.press("confirm") == ""
    d.table.current.correct(2, "seat 2's hand was misread", "supervisor 1042", **AS_LAID)  # the power cut here
    return credentials, audit_dir
