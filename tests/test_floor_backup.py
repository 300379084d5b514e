"""The documented backup and restore (docs/floor.md): pg_dump of a floor in use, pg_restore into an
empty database, and the tables' shippers carry on against the restored floor with nothing lost."""

from __future__ import annotations

import subprocess

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.floor.migrate import migrate
from appliance.table.simulation import play_rounds
from floor_helpers import enrolled, floor_lines, floor_service, log_lines, migrated, ship, table_log


def test_a_dumped_and_restored_floor_takes_up_shipping_where_the_dump_left_it(postgres, floor_dsn, tmp_path):
    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=3)
    with floor_service(floor_dsn) as url:
        ship(audit_dir, url, credentials)
    dump = tmp_path / "floor.dump"
    subprocess.run([str(postgres.bin / "pg_dump"), "--format=custom", f"--file={dump}", floor_dsn], check=True,
                   timeout=60)
    # The table plays on after the backup; then the floor's database is lost and restored from it.
    play_rounds(load_house("general"), AuditLog(audit_dir, (tmp_path / "T1.key").read_bytes().strip()), 2, seed=8)
    restored = postgres.create_database("floor_restored")
    subprocess.run([str(postgres.bin / "pg_restore"), f"--dbname={restored}", "--no-owner", str(dump)], check=True,
                   timeout=60)
    assert migrate(restored).applied == []  # the dump's schema is current
    with floor_service(restored) as url:
        shipped = ship(audit_dir, url, credentials)  # the same credentials: the table is still enrolled
    assert shipped.pending == 0 and floor_lines(restored, "T1") == log_lines(audit_dir)
