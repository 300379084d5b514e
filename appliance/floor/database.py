"""One PostgreSQL connection per server thread, made again after the database restarts.

A restart breaks every thread's connection at once, and a broken connection only says so when it is
next used: each of the floor's 16 server threads then answered one request of its own with a 503
before it connected again, and a shipper backing off between tries (up to 5 s) met one after another
for over a minute. So the first thread to find its connection broken, or the database unreachable,
tells the others: every connection made before that is dropped at its thread's next request.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

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
        self._generation = 0  # counts the times a connection was found broken: older ones are not used

    def conn(self) -> psycopg.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.generation != self._generation:
            conn.close()  # made before the database was found gone: broken too, most likely
            conn = None
        if conn is None or conn.closed or conn.broken:
            generation = self._generation
            self._local.conn = None
            conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)  # errors: the server's 503
            self._local.conn, self._local.generation = conn, generation
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
        """Forget this thread's connection (after an error, so the next request connects afresh); if it
        is broken, or none could be made, the other threads' connections from before are forgotten too."""
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is None or conn.broken or conn.closed:
            with self._lock:
                self._generation += 1
        if conn is not None:
            conn.close()


@contextmanager
def sent_together(conn: psycopg.Connection) -> Iterator[None]:
    """A transaction whose statements travel together (psycopg's pipeline mode): BEGIN goes with the first
    statement whose result is read, and COMMIT with the statements after the last such read, so a
    transaction that reads once and then writes costs the database two round trips, however many
    statements it has. (psycopg's own ``transaction()`` waits for BEGIN and for COMMIT each on its own.)

    A result read inside waits for the statements sent before it; one that failed raises there, or when
    the block ends. Whatever raises, the transaction is rolled back: nothing of it is committed, and the
    thread's connection is left ready for its next request (closed, to be made again, if it cannot be).
    """
    try:
        with conn.pipeline():
            conn.execute("BEGIN")
            yield
            conn.execute("COMMIT")
    except BaseException:
        try:
            conn.rollback()
        except psycopg.Error:
            conn.close()
        raise
