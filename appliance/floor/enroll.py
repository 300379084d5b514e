"""``appliance floor enroll``: register a table and write the credentials file it ships with.

The credentials hold the table's id, its shipping token (the floor keeps only its SHA-256) and
the table's HMAC audit key, escrowed in the floor's database so that the floor verifies every
record's signature itself (docs/floor.md says why escrow rather than Ed25519).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import psycopg

from ..audit.keys import AuditKeyError, audit_key
from ..audit.log import load_key
from .database import connect

FORMAT = "paigow-floor-credentials/1"


class CredentialsError(ValueError):
    """A credentials file that is missing, unreadable or not one of ours."""


class EnrollError(ValueError):
    """A table that cannot be enrolled as asked."""


@dataclass(frozen=True)
class Credentials:
    table: str
    token: str
    audit_key: bytes

    def to_json(self) -> dict:
        return {"format": FORMAT, "table": self.table, "token": self.token, "audit_key": self.audit_key.decode()}

    def write(self, path: Path) -> None:
        """Written once, readable by its owner only (it holds the table's signing key)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(self.to_json(), handle, indent=1)
            handle.write("\n")

    @classmethod
    def read(cls, path: str | Path) -> Credentials:
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CredentialsError(f"{path}: no floor credentials here (appliance floor enroll writes them)") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise CredentialsError(f"{path}: not a floor credentials file: {err}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CredentialsError(f"{path}: not a floor credentials file (format is not {FORMAT})")
        for name in ("table", "token", "audit_key"):
            if not isinstance(data.get(name), str) or not data[name]:
                raise CredentialsError(f"{path}: {name}: missing or not a string")
        if path.stat().st_mode & 0o077:
            raise CredentialsError(f"{path}: readable by others (mode {path.stat().st_mode & 0o777:o}); chmod 600 it")
        return cls(data["table"], data["token"], data["audit_key"].encode())


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class WrongToken(PermissionError):
    """A table's request whose table is not enrolled here, or whose token is not the table's (a 401)."""

    def __init__(self, table: str):
        super().__init__(f"table {table!r} is not enrolled here, or its token is wrong")


def token_is_right(conn: psycopg.Connection, table: str, token: str) -> bool:
    """Whether ``token`` is enrolled ``table``'s shipping token (the app's check and the door's question)."""
    row = conn.execute("SELECT token_sha256 FROM floor_tables WHERE table_id = %s", (table,)).fetchone()
    return row is not None and hmac.compare_digest(row[0], token_digest(token))


def enroll(dsn: str, table: str, out: Path, audit_key_file: Path | None = None) -> Credentials:
    """A new table: a fresh token and, unless the table already has an audit key to escrow, a fresh key."""
    if out.exists():
        raise EnrollError(f"{out}: already exists; credentials are never overwritten")
    key = load_key(audit_key_file) if audit_key_file else secrets.token_hex(32).encode()
    credentials = Credentials(table, secrets.token_urlsafe(32), key)
    with connect(dsn) as conn:
        try:
            conn.execute("INSERT INTO floor_tables (table_id, token_sha256) VALUES (%s, %s)",
                         (table, token_digest(credentials.token)))
        except psycopg.errors.UniqueViolation:
            raise EnrollError(f"table {table!r} is already enrolled") from None
        except psycopg.errors.CheckViolation:
            raise EnrollError(f"table id {table!r}: use 1-32 letters, digits, '.', '_' or '-'") from None
        except psycopg.errors.UndefinedTable:
            raise EnrollError("the floor database has no schema yet: run appliance floor migrate first") from None
        conn.execute("INSERT INTO floor_keys (table_id, audit_key) VALUES (%s, %s)", (table, key))
        # The file is written before the commit: a table whose credentials could not be written is not enrolled.
        credentials.write(out)
    return credentials


def table_key(key_file: Path, credentials: Credentials, log_folder: Path) -> bytes:
    """The table's audit key when it ships to a floor: the escrowed one. Written to the key file on first
    use, where no log exists yet (audit/keys.py's rule); a key file holding another key is an error
    (enroll that key with --audit-key)."""
    try:
        key = audit_key(key_file, log_folder, credentials.audit_key)
    except AuditKeyError as err:
        raise CredentialsError(f"{err}; then enroll the table with --audit-key") from None
    if key != credentials.audit_key:
        raise CredentialsError(f"{key_file}: this log's key is not the one the floor holds for table "
                               f"{credentials.table}; enroll the table with --audit-key {key_file}")
    return key
