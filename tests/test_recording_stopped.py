"""Recording stopped: a table that cannot record is held at once with the reason in plain words on
both screens, the attention lamp lit, no thread dead; it carries on by itself once a record can be
written, with a record saying how long it stopped."""

import json
import shutil
import sqlite3
import subprocess
import threading

import pytest

from appliance.audit.log import AuditLog, records, verify
from appliance.table.dealer import Step
from appliance.table.recording import IndexFeed, RecordingProbe, SpaceLimits
from audit_disk import FillingDisk, fill, tmpfs
from dealer_table import BANKER, KEY, SEAT2, Dealer
from started_run import StartedRun

FULL = "The audit disk is full: nothing can be recorded"
APPLIANCE = shutil.which("appliance")


def dealer_on(tmp_path, disk):
    return Dealer(tmp_path / "log", audit=AuditLog(tmp_path / "log", KEY, write=disk.write))


def test_a_full_disk_holds_the_table_at_once_and_it_clears_by_itself(tmp_path):
    disk = FillingDisk()
    d = dealer_on(tmp_path, disk)
    d.open_round()
    d.look({"banker": BANKER})
    disk.budget = 150  # another writer filled the disk: the BankerCards record is cut in the middle
    said = d.loop.press("confirm")
    assert said == FULL
    prompt = d.loop.prompt()
    assert prompt["step"] == "held" and FULL in prompt["say"] and prompt["held"] == FULL
    assert prompt["recording"]["stopped"] == FULL
    assert d.lamps["attention"] is True and d.lamps["ready"] is False
    assert d.live.snapshot()["dealer"]["recording"]["stopped"] == FULL  # what both pages read
    assert d.loop.press("next") == "the table is held: only a supervisor can release it"
    assert verify(tmp_path / "log", KEY).ok  # the log is whole
    probe = RecordingProbe(d.table.resume_recording, lambda: d.audit.stopped is not None, d.loop.announce)
    probe.check()  # still full
    assert d.loop.step is Step.HELD
    disk.budget = None  # room again
    probe.check()
    assert d.loop.step is Step.BANKER and d.lamps["attention"] is False
    resumed = [r for r in records(tmp_path / "log") if r["event"] == "RecordingResumed"]
    assert len(resumed) == 1 and resumed[0]["data"]["failed_record"] == "BankerCards"
    assert resumed[0]["data"]["seconds"] >= 0 and "no round was settled" in resumed[0]["data"]["note"]
    d.loop.press("confirm")
    d.look(SEAT2)
    d.loop.press("confirm")
    assert d.loop.step is Step.IDLE and verify(tmp_path / "log", KEY).ok
    assert sum(r["event"] == "RoundSettled" for r in records(tmp_path / "log")) == 1


def test_a_device_thread_survives_a_record_it_cannot_write(tmp_path):
    """The old gpio-panel thread died when its own fault record hit ENOSPC."""
    disk = FillingDisk()
    d = dealer_on(tmp_path, disk)
    disk.budget = 0
    assert d.table.note("DeviceStatus", {"device": "gpio-panel", "status": "fault", "detail": "x"}, "appliance") is None
    died = []
    thread = threading.Thread(target=lambda: d.table.note("DeviceRejected", {"device": "rng"}, "device"))
    thread.start()
    thread.join()
    assert not died and d.table.held == FULL


def test_a_history_index_that_cannot_be_written_stops_recording_and_catches_up(tmp_path):
    """SQLite's "disk is full" after a record was written: the table is held (not an HTTP 500), and the
    index gets the missed record once it can."""
    d = Dealer(tmp_path / "log")
    indexed, failing = [], [True]

    def add(record):
        if failing[0]:
            raise sqlite3.OperationalError("database or disk is full")
        indexed.append(record["seq"])

    feed = IndexFeed(add, d.audit)
    d.table.listeners.insert(0, feed)
    d.loop.press("supervisor")
    assert d.table.held == "The audit disk is full: nothing can be recorded (the history index cannot be written)"
    assert d.loop.prompt()["step"] == "held"
    failing[0] = False
    probe = RecordingProbe(d.table.resume_recording, lambda: d.audit.stopped is not None, d.loop.announce,
                           ready=feed.flush)
    probe.check()
    assert d.audit.stopped is None and d.table.held == "the supervisor was called by dealer"
    assert indexed == [r["seq"] for r in records(tmp_path / "log")]


def test_below_the_refuse_threshold_no_round_opens(tmp_path):
    d = Dealer(tmp_path / "log", space=SpaceLimits(warn_mb=1e12, refuse_mb=1e11))
    d.loop.set_bets([{"seat": 2, "wager": "25"}])
    said = d.loop.press("next")
    assert said.startswith("The audit disk has only") and "no round can be opened" in said
    assert d.loop.step is Step.IDLE and d.table.current is None
    assert "no new round can be opened" in d.loop.prompt()["recording"]["warning"]
    warn = Dealer(tmp_path / "log2", space=SpaceLimits(warn_mb=1e12, refuse_mb=0))
    assert warn.loop.prompt()["recording"]["warning"].endswith("make room soon")


def test_the_web_answers_a_stopped_recording_in_plain_words(tmp_path):
    from appliance.web.app import create_app

    disk = FillingDisk()
    d = dealer_on(tmp_path, disk)
    client = create_app(d.live, d.table.rules, table=d.table, audit=d.audit, dealer=d.loop).test_client()
    disk.budget = 0
    answer = client.post("/login", json={"supervisor": "1042", "pin": "4821"})
    assert answer.status_code == 503 and answer.get_json()["error"] == FULL


@pytest.mark.slow
def test_simulate_table_stops_with_one_line_when_the_disk_fills(tmp_path):
    folder = tmp_path / "disk"
    with tmpfs(folder, "2m") as mounted:
        if not mounted:
            pytest.skip("mounting a tmpfs is not permitted here (needs root)")
        (folder / "log").mkdir()
        subprocess.run([APPLIANCE, "audit", "keygen", str(tmp_path / "k")], check=True, capture_output=True)
        fill(folder, leave=250_000)  # some rounds go down first
        out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "500", "--audit", str(folder / "log"),
                              "--key-file", str(tmp_path / "k"), "--refuse-free-mb", "0"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith(f"appliance simulate-table: {FULL}")  # the log's or the index's disk
        result = subprocess.run([APPLIANCE, "audit", "verify", str(folder / "log"), "--key-file", str(tmp_path / "k")],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["ok"]


def test_simulate_table_refuses_to_open_a_round_below_the_threshold(tmp_path):
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "3", "--audit", str(tmp_path / "log"),
                          "--refuse-free-mb", "1e12"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "no round can be opened" in out.stderr


def test_the_station_lives_through_a_full_disk_and_resumes_by_itself(tmp_path):
    """The old button thread died when its own fault record hit ENOSPC; nothing tried to record again."""
    import time
    from pathlib import Path

    from appliance.config import load_devices, load_house, read_toml
    from appliance.station import Station
    from appliance.table.table import Table

    rules = load_house("general")
    disk = FillingDisk()
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY, write=disk.write), {})
    station = Station(table, load_devices(), simulate=True, pace=3600, rounds=0).start()
    try:
        disk.budget = 0
        assert station._guarded("buttons", lambda name: 1 / 0)("next") is None  # its fault cannot be recorded
        assert table.held == FULL and all(w._thread.is_alive() for w in station.workers)
        deadline = time.monotonic() + 5
        while station.loop.prompt()["step"] != "held" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert station.loop.prompt()["held"] == FULL
        disk.budget = None
        while table.audit.stopped is not None and time.monotonic() < deadline + 5:
            time.sleep(0.05)
        assert table.audit.stopped is None and all(w._thread.is_alive() for w in station.workers)
        assert any(r["event"] == "RecordingResumed" for r in records(tmp_path / "log"))
    finally:
        station.stop()
    assert verify(tmp_path / "log", KEY).ok


@pytest.mark.slow
def test_run_holds_a_forged_log_at_start_up(tmp_path):
    """The old appliance started on an edited log and showed the forged records' totals."""
    import time
    import urllib.request

    data = tmp_path / "data"
    data.mkdir()
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "3", "--audit", str(data / "audit")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    day = sorted((data / "audit").glob("*.jsonl"))[0]
    day.write_bytes(day.read_bytes().replace(b'"commission":"', b'"commission":"9', 1))
    with StartedRun([APPLIANCE, "run", "--simulate", "--rounds", "1", "--keep-serving", "--pace", "0.05",
                     "--data", str(data)]) as run:
        deadline, state = time.monotonic() + 60, {}
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{run.address}api/state", timeout=2) as r:
                    state = json.loads(r.read())
                if state.get("dealer"):
                    break
            except OSError:
                pass
            time.sleep(0.2)
        held = state["dealer"]["held"]
        assert held.startswith(f"The audit log failed verification at start-up: {day.name} line ")
        assert "A supervisor must acknowledge this with the PIN" in held
        time.sleep(1)  # the simulated dealer is at the table: no round opens
        with urllib.request.urlopen(f"{run.address}api/state", timeout=2) as r:
            assert json.loads(r.read())["dealer"]["step"] == "held"
