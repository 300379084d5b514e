"""The table side of the floor: appliance floor ship, simulate-table --floor, the background shipper
(store-and-forward: the table never waits, a floor that was down is caught up) and [floor] in devices.toml."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from appliance.audit.log import AuditLog
from appliance.config import DeviceConfigError, load_devices, load_house, shipped_config_dir
from appliance.floor.enroll import table_key
from appliance.floor.shipper import Shipper
from appliance.table.simulation import play_rounds
from floor_helpers import (enrolled, floor_down, floor_lines, floor_service, log_lines, migrated, seen_json, table_log,
                           users)
from started_run import StartedRun


def appliance(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "appliance", *args], capture_output=True, text=True, timeout=timeout)


def test_floor_ship_exits_0_when_all_is_acknowledged(floor_dsn, tmp_path):
    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    with floor_service(floor_dsn) as url:
        done = appliance("floor", "ship", "--audit", str(audit_dir), "--floor", url,
                         "--floor-credentials", str(tmp_path / "T1.credentials"))
    assert done.returncode == 0, done.stderr
    lines = log_lines(audit_dir)
    assert json.loads(done.stdout) == {"head_seq": len(lines), "sent": len(lines), "pending": 0}
    assert floor_lines(floor_dsn, "T1") == lines


def test_floor_ship_to_a_floor_that_is_down_exits_1_saying_so(floor_dsn, tmp_path):
    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    with floor_down() as url:
        done = appliance("floor", "ship", "--audit", str(audit_dir), "--floor", url,
                         "--floor-credentials", str(tmp_path / "T1.credentials"), "--wait", "1")
    assert done.returncode == 1 and "appliance floor ship: floor 127.0.0.1:" in done.stderr


def test_floor_ship_keeps_trying_until_its_wait_is_out(floor_dsn, tmp_path):
    import time

    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    began = time.monotonic()
    with floor_down() as url:
        done = appliance("floor", "ship", "--audit", str(audit_dir), "--floor", url,
                         "--floor-credentials", str(tmp_path / "T1.credentials"), "--wait", "10")
    assert done.returncode == 1 and "appliance floor ship: floor 127.0.0.1:" in done.stderr
    assert time.monotonic() - began >= 10  # its last try at the end of the wait, not one back-off before it


def test_simulate_table_ships_while_it_plays_and_catches_up_after_the_floor_was_down(floor_dsn, tmp_path):
    migrated(floor_dsn)
    enrolled(floor_dsn, "T7", tmp_path)
    audit_dir, creds = tmp_path / "audit", str(tmp_path / "T7.credentials")
    # The floor is down: the table plays all the same, and its log keeps what it could not ship.
    with floor_down() as url:
        down = appliance("simulate-table", "--rounds", "3", "--audit", str(audit_dir), "--floor", url,
                         "--floor-credentials", creds)
    assert down.returncode == 0, down.stderr
    report = json.loads(down.stdout)
    assert report["rounds"] == 3 and "error" in report["floor"]
    # Up again, on a port of its own: what the table ships is learnt from the floor's head, not from its address.
    with floor_service(floor_dsn) as url:
        up = appliance("simulate-table", "--rounds", "2", "--seed", "2", "--audit", str(audit_dir), "--floor", url,
                       "--floor-credentials", creds)
        assert up.returncode == 0, up.stderr
    lines = log_lines(audit_dir)
    floor = json.loads(up.stdout)["floor"]  # what the last pass sent depends on what the thread had sent
    assert (floor["head_seq"], floor["pending"]) == (len(lines), 0)
    assert floor_lines(floor_dsn, "T7") == lines  # the backlog first, then the new rounds


def test_the_background_shipper_follows_a_table_as_it_writes(floor_dsn, tmp_path):
    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T2", tmp_path)
    audit_dir = tmp_path / "audit"
    audit = AuditLog(audit_dir, table_key(tmp_path / "t2.key", credentials, audit_dir))
    with floor_service(floor_dsn) as url, Shipper(audit_dir, url, credentials) as shipper:
        thread, stop = shipper.start()
        play_rounds(load_house("general"), audit, 5, seed=4)
        for _ in range(100):
            if len(floor_lines(floor_dsn, "T2")) == audit.seq:
                break
            stop.wait(0.1)
        stop.set()
        thread.join(10)
    assert floor_lines(floor_dsn, "T2") == log_lines(audit_dir)


def test_devices_toml_names_the_floor(tmp_path):
    path = tmp_path / "devices.toml"
    text = (shipped_config_dir() / "devices.toml").read_text()
    path.write_text(text + '\n[floor]\nurl = "http://floor:8090"\ncredentials = "t1.credentials"\n')
    floor = load_devices(path).floor
    assert floor.url == "http://floor:8090" and floor.credentials == tmp_path / "t1.credentials"
    assert load_devices().floor is None
    path.write_text(text + '\n[floor]\nurl = "http://floor:8090"\n')
    with pytest.raises(DeviceConfigError, match="floor.credentials"):
        load_devices(path)


def test_a_table_whose_log_stopped_recording_shows_so_in_the_pit(floor_dsn, tmp_path):

    users(migrated(floor_dsn))
    credentials = enrolled(floor_dsn, "T4", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    recording = [False]
    with floor_service(floor_dsn) as url, Shipper(audit_dir, url, credentials) as shipper:
        shipper.recording = lambda: recording[0]  # as run sets it: the audit log's own stoppage
        shipper.ship_pending()

        def pit(path):
            return seen_json(url + path)

        assert pit("/api/floor/tables")[0]["status"] == "recording-stopped"
        assert [a["kind"] for a in pit("/api/floor/alerts")] == ["recording-stopped"]
        recording[0] = True
        shipper.ship_pending()
        assert pit("/api/floor/tables")[0]["status"] == "online" and pit("/api/floor/alerts") == []


def test_appliance_run_ships_its_records_as_it_plays(floor_dsn, tmp_path):
    import time

    migrated(floor_dsn)
    enrolled(floor_dsn, "T9", tmp_path)
    data = tmp_path / "data"
    credentials = str(tmp_path / "T9.credentials")
    with floor_service(floor_dsn) as url, StartedRun(
            [sys.executable, "-m", "appliance", "run", "--simulate", "--rounds", "1", "--keep-serving", "--pace", "0.05",
             "--data", str(data), "--floor", url, "--floor-credentials", credentials]) as run:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
                '"event":"RoundSettled"' in line for line in floor_lines(floor_dsn, "T9")):
            run.check()
            time.sleep(0.2)
    held = floor_lines(floor_dsn, "T9")
    assert any('"event":"RoundSettled"' in line for line in held)
    assert held == log_lines(data / "audit")[: len(held)]  # the table's own records, in order


def test_floor_ship_waits_out_a_database_restart_then_ships(postgres, floor_dsn, tmp_path):
    """``floor ship --wait 60`` while the floor's database restarts (3 s down) under ``floor serve``,
    whose every server thread held a connection from before: it keeps trying, and ships."""
    import http.client
    import time

    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T5", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    with StartedRun([sys.executable, "-m", "appliance", "floor", "serve", "--db", floor_dsn], "floor") as floor:
        url = floor.address.rstrip("/")
        ship_command = ["floor", "ship", "--audit", str(audit_dir), "--floor", url,
                        "--floor-credentials", str(tmp_path / "T5.credentials")]
        assert appliance(*ship_command).returncode == 0
        for _ in range(40):  # a floor that has served a while: each of its server threads holds a connection
            connection = http.client.HTTPConnection("127.0.0.1", floor.port, timeout=10)
            connection.request("GET", "/api/floor/head", headers={
                "X-Floor-Table": "T5", "Authorization": f"Bearer {credentials.token}"})
            assert connection.getresponse().status == 200
            connection.close()
        table_log(tmp_path, credentials, rounds=2, seed=2)  # more to ship
        postgres.stop("fast")
        try:
            began = time.monotonic()
            shipping = subprocess.Popen([sys.executable, "-m", "appliance", *ship_command, "--wait", "60"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(3)
        finally:
            postgres.start()
        out, err = shipping.communicate(timeout=90)
        assert shipping.returncode == 0, f"gave up after {time.monotonic() - began:.0f} s: {err}"
        assert json.loads(out)["pending"] == 0 and floor_lines(floor_dsn, "T5") == log_lines(audit_dir)
