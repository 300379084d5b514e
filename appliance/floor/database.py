"""One PostgreSQL connection per server thread, made again after the database restarts."""

from __future__ import annotations

import threading

import psycopg


class DatabaseUnavailable(ValueError):
    """The floor's database cannot be reached (PostgreSQL's reason, first line)."""


def connect(dsn: str, **options) -> psycopg.Connection:
    try:
        return psycopg.connect(dsn, connect_timeout=5, **options)
    except psycopg.OperationalError as err:
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise DatabaseUnavailable(f"cannot reach the floor's database: {reason}") from None
    except psycopg.ProgrammingError as err:  # libpq cannot read the DSN itself
        raise DatabaseUnavailable(f"--db {dsn!r}: not a libpq connection string: {str(err).strip()}") from None


class Database:
    def __init__(self, dsn: str):
        self.dsn = dsn
        self._local = threading.local()
        self._all: set[psycopg.Connection] = set()  # every thread's, to close when the service stops
        self._lock = threading.Lock()

    def conn(self) -> psycopg.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed or conn.broken:
            conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)  # errors: the server's 503
            self._local.conn = conn
            with self._lock:
                self._all = {c for c in self._all if not c.closed}
                self._all.add(conn)
        return conn

    def close(self) -> None:
        """Close every thread's connection (the service has stopped: its threads are done)."""
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()

    def drop(self) -> None:
        """Forget this thread's connection (after an error, so the next request connects afresh)."""
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()
