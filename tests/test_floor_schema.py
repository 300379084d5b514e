"""The floor's schema and enrollment on a real PostgreSQL: appliance floor migrate and enroll."""

from __future__ import annotations

import json
import stat

import psycopg
import pytest

from appliance.cli import main
from appliance.floor.enroll import Credentials, CredentialsError, EnrollError, enroll, table_key
from appliance.floor.migrate import migrate, migrations


def test_migrate_creates_the_schema_and_is_safe_to_run_twice(floor_dsn, capsys):
    assert main(["floor", "migrate", "--db", floor_dsn]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["applied"] == [v for v, _, _ in migrations()] and first["version"] == migrations()[-1][0]
    assert main(["floor", "migrate", "--db", floor_dsn]) == 0
    assert json.loads(capsys.readouterr().out) == {"applied": [], "version": first["version"]}
    with psycopg.connect(floor_dsn) as conn:
        names = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"floor_tables", "floor_keys", "floor_records", "floor_refused", "floor_alerts"} <= names


def test_migrate_names_an_unreachable_database(tmp_path, capsys):
    assert main(["floor", "migrate", "--db", f"postgresql://nobody@/none?host={tmp_path}"]) == 2
    assert "appliance floor migrate:" in capsys.readouterr().err


def test_enroll_writes_private_credentials_and_escrows_the_key(floor_dsn, tmp_path, capsys):
    migrate(floor_dsn)
    out = tmp_path / "T1.credentials"
    assert main(["floor", "enroll", "T1", "--db", floor_dsn, "--out", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    credentials = Credentials.read(out)
    assert credentials.table == "T1"
    with psycopg.connect(floor_dsn) as conn:
        key = conn.execute("SELECT audit_key FROM floor_keys WHERE table_id = 'T1'").fetchone()[0]
        token = conn.execute("SELECT token_sha256 FROM floor_tables WHERE table_id = 'T1'").fetchone()[0]
    assert bytes(key) == credentials.audit_key and credentials.token not in token
    # The table's key file is made from the credentials on first use, and then must agree with them.
    assert table_key(tmp_path / "t1.key", credentials, tmp_path / "log") == credentials.audit_key
    (tmp_path / "other.key").write_text("b" * 64 + "\n")
    with pytest.raises(CredentialsError, match="enroll the table with --audit-key"):
        table_key(tmp_path / "other.key", credentials, tmp_path / "log")


def test_enroll_escrows_an_existing_key_and_refuses_twice_and_bad_ids(floor_dsn, tmp_path):
    migrate(floor_dsn)
    key_file = tmp_path / "existing.key"
    key_file.write_text("c" * 64 + "\n")
    assert enroll(floor_dsn, "T2", tmp_path / "t2", key_file).audit_key == b"c" * 64
    with pytest.raises(EnrollError, match="already enrolled"):
        enroll(floor_dsn, "T2", tmp_path / "t2-again")
    assert not (tmp_path / "t2-again").exists()
    with pytest.raises(EnrollError, match="table id"):
        enroll(floor_dsn, "T 3;--", tmp_path / "t3")
    with pytest.raises(EnrollError, match="never overwritten"):
        enroll(floor_dsn, "T4", tmp_path / "t2")


def test_enroll_before_migrate_says_so(floor_dsn, tmp_path):
    with pytest.raises(EnrollError, match="floor migrate"):
        enroll(floor_dsn, "T1", tmp_path / "t1")


def test_credentials_readable_by_others_are_refused(floor_dsn, tmp_path):
    migrate(floor_dsn)
    enroll(floor_dsn, "T1", tmp_path / "t1")
    (tmp_path / "t1").chmod(0o644)
    with pytest.raises(CredentialsError, match="chmod 600"):
        Credentials.read(tmp_path / "t1")


def test_prune_deletes_old_gaming_days_and_keeps_the_anchored_head(floor_dsn, tmp_path, capsys):
    from floor_helpers import enrolled, floor_service, ship, table_log

    migrate(floor_dsn)
    credentials = enrolled(floor_dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    with floor_service(floor_dsn) as url:
        head = ship(audit_dir, url, credentials).head_seq
        with psycopg.connect(floor_dsn) as conn:  # the first round's records, as if shipped 400 days ago
            conn.execute("UPDATE floor_records SET gaming_day = gaming_day - 400 WHERE seq <= 5")
        assert main(["floor", "prune", "--db", floor_dsn, "--keep-days", "365"]) == 0
        assert json.loads(capsys.readouterr().out)["records"] == 5
        with psycopg.connect(floor_dsn) as conn:
            assert conn.execute("SELECT min(seq), max(seq) FROM floor_records").fetchone() == (6, head)
            assert conn.execute("SELECT head_seq FROM floor_tables").fetchone() == (head,)
        assert ship(audit_dir, url, credentials).to_json() == {"head_seq": head, "sent": 0, "pending": 0}
    assert main(["floor", "prune", "--db", floor_dsn, "--keep-days", "0"]) == 2
    assert "--keep-days: 0; at least 1" in capsys.readouterr().err
