"""A log cut back, rolled back or wiped is not written on: when a shift seal, the verification checkpoint
or the history index on the box knows a record past the log's end, the start is held with the reason in
plain words on the dealer's screen, and nothing is appended (sequence numbers and round ids are never
given twice)."""

import datetime as dt
import json
import shutil
import time
import urllib.request

import pytest

from appliance.audit.checkpoint import CHECKPOINT, check_at_startup
from appliance.audit.history_index import Index
from appliance.audit.log import AuditLog, RecordingStopped, records, verify
from appliance.table.recording import RecordingProbe
from dealer_table import KEY, Dealer
from started_run import StartedRun

APPLIANCE = shutil.which("appliance")


class Clock:
    def __init__(self):
        self.now = dt.datetime(2026, 11, 28, 20, 0, tzinfo=dt.UTC)

    def __call__(self):
        self.now += dt.timedelta(minutes=3)
        return self.now


def snapshot(folder):
    """The log's files and head as they are now (what a rollback puts back)."""
    return {p.name: p.read_bytes() for p in [*folder.glob("*.jsonl"), folder / "HEAD.json"]}


def roll_back(folder, kept):
    for p in folder.glob("*.jsonl"):
        p.unlink()
    for name, data in kept.items():
        (folder / name).write_bytes(data)


def written(folder, clock, n, start=0):
    log = AuditLog(folder, KEY, clock=clock)
    for i in range(start, start + n):
        log.append("DeviceValue", {"round": f"r{i}"}, who="dealer")
    return log


def assert_held_writing_nothing(folder, index=None, knows="", ends=""):
    before = snapshot(folder) if (folder / "HEAD.json").exists() else {}
    log = AuditLog(folder, KEY, clock=Clock(), **({"index": index} if index else {}))
    assert log.stopped is not None and log.stopped.lasting
    assert knows in log.stopped.reason and ends in log.stopped.reason
    assert "Nothing is recorded until the log is put back" in log.stopped.reason
    with pytest.raises(RecordingStopped):
        log.append("ApplianceStarted", {})
    with pytest.raises(RecordingStopped):
        log.resume()  # no retry clears it
    d = Dealer(folder, audit=log)
    assert d.loop.press("next") == "the table is held: only a supervisor can release it"
    assert d.loop.prompt()["held"] == log.stopped.reason  # the dealer's screen, in the same words
    probe = RecordingProbe(d.table.resume_recording, lambda: log.stopped is not None, d.loop.announce)
    probe.check()
    assert d.loop.prompt()["step"] == "held"
    after = snapshot(folder) if (folder / "HEAD.json").exists() else {}
    assert after == before  # not one record appended
    return log


def test_a_seal_past_the_end_holds_the_start(tmp_path):
    clock = Clock()
    log = written(tmp_path, clock, 5)
    kept = snapshot(tmp_path)
    for i in range(10):
        log.append("DeviceValue", {"round": f"later-{i}"})
    log.seal_head("shift close", "supervisor 1042")
    roll_back(tmp_path, kept)  # log and head put back as they were: it verifies on its own
    assert verify(tmp_path, KEY).ok
    assert_held_writing_nothing(tmp_path, knows="the shift seal of 2026-11-28", ends="ends at record 5")


def test_a_checkpoint_past_the_end_holds_the_start(tmp_path):
    clock = Clock()
    log = written(tmp_path, clock, 5)
    kept = snapshot(tmp_path)
    for i in range(7):
        log.append("DeviceValue", {"round": f"later-{i}"})
    assert check_at_startup(log).problem is None and (tmp_path / CHECKPOINT).is_file()
    roll_back(tmp_path, kept)
    held = assert_held_writing_nothing(tmp_path, knows="the verification checkpoint knows record 12")
    assert check_at_startup(held).problem is None  # a start-up check cannot move the checkpoint back
    assert json.loads((tmp_path / CHECKPOINT).read_bytes())["seq"] == 12


def test_an_index_past_the_end_holds_the_start(tmp_path):
    clock = Clock()
    log = written(tmp_path / "log", clock, 5)
    kept = snapshot(tmp_path / "log")
    for i in range(3):
        log.append("DeviceValue", {"round": f"later-{i}"})
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "log")
    index.close()
    roll_back(tmp_path / "log", kept)
    assert_held_writing_nothing(tmp_path / "log", index=tmp_path / "index.sqlite",
                                knows="the history index knows record 8", ends="ends at record 5")


def test_a_deleted_audit_folder_with_the_index_left_holds_the_start(tmp_path):
    written(tmp_path / "audit", Clock(), 6)
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "audit")
    index.close()
    shutil.rmtree(tmp_path / "audit")
    assert_held_writing_nothing(tmp_path / "audit", index=tmp_path / "index.sqlite",
                                knows="the history index knows record 6", ends="The audit log is empty")
    assert not list((tmp_path / "audit").glob("*.jsonl"))  # no new log at seq 1


def test_a_wiped_log_with_the_checkpoint_and_seals_left_holds_the_start(tmp_path):
    log = written(tmp_path, Clock(), 6)
    log.seal_head("shift close", "supervisor 1042")
    check_at_startup(log)
    for p in [*tmp_path.glob("*.jsonl"), tmp_path / "HEAD.json"]:
        p.unlink()
    held = assert_held_writing_nothing(tmp_path, knows="knows record 7", ends="The audit log is empty")
    assert "the shift seal" in held.stopped.reason and "the verification checkpoint" in held.stopped.reason


def test_a_log_and_its_witnesses_at_the_same_end_start_as_ever(tmp_path):
    clock = Clock()
    log = written(tmp_path / "log", clock, 4)
    log.seal_head("shift close", "supervisor 1042")
    check_at_startup(log)
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "log")
    index.close()
    again = AuditLog(tmp_path / "log", KEY, clock=clock, index=tmp_path / "index.sqlite")
    assert again.stopped is None and again.append("ApplianceStarted", {})["seq"] == 6


def test_records_lost_under_a_head_that_names_them_stay_a_recorded_gap(tmp_path):
    """What the head already names is a gap, recorded and acknowledged as before; only more is held."""
    clock = Clock()
    written(tmp_path / "log", clock, 8)
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "log")
    index.close()
    [path] = sorted((tmp_path / "log").glob("*.jsonl"))
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-2]))
    log = AuditLog(tmp_path / "log", KEY, clock=clock, index=tmp_path / "index.sqlite")
    assert log.stopped is None and "records 7 to 8 are missing" in log.findings[0]["problem"]
    assert records(tmp_path / "log")[-1]["event"] == "AuditGap"


@pytest.mark.slow
def test_run_on_a_deleted_audit_folder_is_held_with_the_reason_and_starts_no_new_log(tmp_path):
    """The old appliance started a new log at seq 1 and gave round ids again."""
    data = tmp_path / "data"
    command = [APPLIANCE, "run", "--simulate", "--rounds", "1", "--pace", "0.05", "--data", str(data)]
    with StartedRun(command) as first:
        assert wait_for_state(first, lambda s: s.get("dealer") and (s.get("last_settlement") or s.get("round")))
    shutil.rmtree(data / "audit")
    with StartedRun(command) as run:
        state = wait_for_state(run, lambda s: s.get("dealer"))
        held = state["dealer"]["held"]
        assert held.startswith("The audit log is empty (its folder was deleted or emptied) but the history index")
        time.sleep(1)  # the simulated dealer is at the table: nothing is recorded
        assert wait_for_state(run, lambda s: s.get("dealer"))["dealer"]["step"] == "held"
        assert not list((data / "audit").glob("*.jsonl"))


def wait_for_state(run, ready, seconds=60):
    deadline, state = time.monotonic() + seconds, {}
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{run.address}api/state", timeout=2) as r:
                state = json.loads(r.read())
            if ready(state):
                return state
        except OSError:
            pass
        time.sleep(0.2)
    return state
