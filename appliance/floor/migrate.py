"""``appliance floor migrate``: the numbered SQL files of ``migrations/``, applied in order, each once.

Each file runs in its own transaction with its version row, under an advisory lock, so two
migrations started at once, or one killed half-way, leave the schema at a whole version.
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass

import psycopg

from .database import connect

LOCK = 0x666C6F6F72  # "floor": the advisory lock that serialises migrations
NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


class MigrationError(ValueError):
    """A migration file that cannot be applied (its name and PostgreSQL's reason)."""


@dataclass(frozen=True)
class Migrated:
    applied: list[int]
    version: int

    def to_json(self) -> dict:
        return {"applied": self.applied, "version": self.version}


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) in order."""
    folder = importlib.resources.files("appliance.floor") / "migrations"
    found = []
    for entry in folder.iterdir():
        match = NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(dsn: str, through: int | None = None) -> Migrated:
    """Each migration not applied yet, in order (only those up to version ``through``, where given)."""
    with connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS floor_migrations (version integer PRIMARY KEY, "
                     "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        applied = []
        for version, name, sql in migrations():
            if through is not None and version > through:
                break
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
                if conn.execute("SELECT 1 FROM floor_migrations WHERE version = %s", (version,)).fetchone():
                    continue
                try:
                    conn.execute(sql)
                except psycopg.Error as err:
                    raise MigrationError(f"{name}: {err}") from None
                conn.execute("INSERT INTO floor_migrations (version, name) VALUES (%s, %s)", (version, name))
                applied.append(version)
        version = conn.execute("SELECT coalesce(max(version), 0) FROM floor_migrations").fetchone()[0]
    return Migrated(applied, version)
