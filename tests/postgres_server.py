"""A real PostgreSQL server in a temporary folder for the floor's tests (Debian's ``postgresql``).

The server listens on a unix socket in its own folder only (no TCP port to collide with),
trusts local connections, and is torn down with its folder. ``initdb`` refuses to run as
root, so as root the server runs as the ``postgres`` user the Debian package creates.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


class NoPostgres(RuntimeError):
    """PostgreSQL's server programs are not installed here (the reason is the message)."""


def bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise NoPostgres("PostgreSQL is not installed (no initdb; .ci/run installs Debian's postgresql)")


class PostgresServer:
    def __init__(self) -> None:
        self.bin = bin_dir()
        self.as_user: list[str] = []
        owner = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise NoPostgres("running as root and there is no postgres user to run the server as") from None
            self.as_user = ["runuser", "-u", "postgres", "--"]
        # Not under pytest's tmp folder: that one is private to root, and the server user must reach it.
        self.folder = Path(tempfile.mkdtemp(prefix="floor-pg-"))
        if owner:
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        self.data = self.folder / "data"
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8",
                  "--locale=C.UTF-8")
        self.start()

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run([*self.as_user, str(self.bin / program), *args], capture_output=True, text=True,
                              timeout=120)
        if done.returncode:
            raise RuntimeError(f"{program} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> None:
        options = f"-k {self.folder} -c listen_addresses='' -c fsync=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@/{dbname}?host={self.folder}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
