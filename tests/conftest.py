"""Fixtures shared across test modules: one PostgreSQL server for the whole session."""

from __future__ import annotations

import itertools
import os

import pytest

from postgres_server import NoPostgres, PostgresServer

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (started once; skipped, saying why, where it cannot run)."""
    try:
        server = PostgresServer()
    except NoPostgres as why:
        if os.environ.get("CI"):  # CI installs it (.ci/run): missing there is a failure, not a skip
            pytest.fail(str(why), pytrace=False)
        pytest.skip(str(why))
    yield server
    server.close()


@pytest.fixture
def floor_dsn(postgres):
    """A fresh, empty database on the session's server, for one test."""
    return postgres.create_database(f"floor_{next(_databases)}")
