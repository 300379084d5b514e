"""An anchored log: a missing or stale head, a renamed day file, records cut from the end, a log rolled
back under an old head (against a shift seal), a forged log at start-up, a deleted key: each is caught
and named. A clock that steps back is recorded and breaks nothing; the gaming day is the house's."""

import datetime as dt
import json
import shutil
import subprocess

import pytest

from appliance.audit.checkpoint import CHECKPOINT, check_at_startup
from appliance.audit.gaming_day import GamingDay
from appliance.audit.keys import AuditKeyError, audit_key, key_path
from appliance.audit.log import AuditLog, records, records_from, tail, verify
from appliance.audit.replay import export_csv
from appliance.audit.seal import parse_seal, seal_text
from appliance.config import load_house, read_toml
from appliance.table.simulation import play_rounds

KEY = b"k" * 64
APPLIANCE = shutil.which("appliance")
LA = GamingDay("America/Los_Angeles", dt.time(6, 0))


class Clock:
    def __init__(self, start=dt.datetime(2026, 11, 28, 20, 0, tzinfo=dt.UTC), step=dt.timedelta(minutes=7)):
        self.now, self.step = start, step

    def __call__(self):
        self.now += self.step
        return self.now


def filled(folder, n=12, clock=None, day=GamingDay()):
    log = AuditLog(folder, KEY, day=day, clock=clock or Clock())
    for i in range(n):
        log.append("DeviceValue", {"round": f"r{i}"}, who="dealer")
    return log


def last_file(folder):
    return sorted(folder.glob("*.jsonl"))[-1]


def cut_last(folder, n):
    path = last_file(folder)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-n]))


def test_a_deleted_head_fails_verification(tmp_path):
    filled(tmp_path)
    (tmp_path / "HEAD.json").unlink()
    result = verify(tmp_path, KEY)
    assert not result.ok and result.file == "HEAD.json" and "missing" in result.problem


def test_a_deleted_head_and_last_day_file_fail_verification(tmp_path):
    filled(tmp_path, 40, Clock(step=dt.timedelta(hours=1)))  # over two gaming days
    (tmp_path / "HEAD.json").unlink()
    last_file(tmp_path).unlink()
    assert not verify(tmp_path, KEY).ok
    filled(tmp_path / "b", 40, Clock(step=dt.timedelta(hours=1)))
    (tmp_path / "b" / "HEAD.json").unlink()
    last_file(tmp_path / "b").write_bytes(b"")
    assert not verify(tmp_path / "b", KEY).ok


def test_an_old_head_fails_verification(tmp_path):
    log = filled(tmp_path, 3)
    old = (tmp_path / "HEAD.json").read_bytes()
    log.append("RoundSettled", {"round": "r4"})
    log.append("RoundSettled", {"round": "r5"})  # one record behind is what a power cut leaves: two is not
    (tmp_path / "HEAD.json").write_bytes(old)
    result = verify(tmp_path, KEY)
    assert not result.ok and "older than the log" in result.problem


def test_records_cut_from_the_end_stay_a_gap_after_a_start(tmp_path):
    """The old writer trusted the last line on disk and rewrote the head: the cut log verified."""
    clock = Clock()
    filled(tmp_path, 12, clock)
    cut_last(tmp_path, 3)
    log = AuditLog(tmp_path, KEY, clock=clock)  # the appliance starts once
    assert log.findings and "records 10 to 12 are missing" in log.findings[0]["problem"]
    log.append("ApplianceStarted", {})
    result = verify(tmp_path, KEY)
    assert not result.ok and result.file == last_file(tmp_path).name
    assert "records 10 to 12 are missing" in result.problem and "not acknowledged" in result.problem
    gap = next(r for r in records(tmp_path) if r["event"] == "AuditGap")
    assert gap["seq"] == 13  # sequence numbers are never given twice


def test_an_acknowledged_gap_is_still_named_by_verify(tmp_path):
    from dealer_table import Dealer

    clock = Clock()
    filled(tmp_path / "log", 6, clock)
    cut_last(tmp_path / "log", 2)
    d = Dealer(tmp_path / "log", audit=AuditLog(tmp_path / "log", KEY, clock=clock))
    d.table.hold_for_audit(d.audit.findings)
    assert d.loop.press("next") == "the table is held: only a supervisor can release it"
    assert "missing from the end" in d.loop.prompt()["held"]
    d.table.release("1042", "4821", "seen: the disk was restored from a backup")
    ack = [r for r in records(tmp_path / "log") if r["event"] == "AuditAcknowledged"]
    assert len(ack) == 1 and ack[0]["who"] == "supervisor 1042" and "records 5 to 6" in ack[0]["data"]["problem"]
    result = verify(tmp_path / "log", KEY)
    assert not result.ok and "acknowledged by supervisor 1042" in result.problem


def test_a_rollback_under_an_old_head_is_caught_by_the_seal(tmp_path):
    folder = tmp_path / "log"
    log = filled(folder, 5)
    kept = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    for i in range(10):
        log.append("RoundSettled", {"round": f"later-{i}"})
    seal = log.seal_head("shift close", "supervisor 1042")
    for p in folder.glob("*.jsonl"):
        p.unlink()
    for name, data in kept.items():
        (folder / name).write_bytes(data)
    assert verify(folder, KEY).ok  # a log cannot prove its own end...
    result = verify(folder, KEY, seal=seal)  # ...the seal, kept off the box, can
    assert not result.ok and "covers up to record 15" in result.problem and "sealed records are gone" in result.problem
    seal_file = tmp_path / "seal.txt"
    seal_file.write_text(seal_text(seal))
    out = subprocess.run([APPLIANCE, "audit", "verify", str(folder), "--key-file", str(write_key(tmp_path)),
                          "--seal", str(seal_file)], capture_output=True, text=True)
    assert out.returncode == 1 and "sealed records are gone" in out.stderr


def write_key(tmp_path):
    path = tmp_path / "k.key"
    path.write_bytes(KEY)
    return path


def test_a_seal_proves_a_whole_log(tmp_path):
    log = filled(tmp_path / "log", 5)
    seal = log.seal_head("shift close", "supervisor 1042")
    log.append("RoundSettled", {"round": "after"})
    assert verify(tmp_path / "log", KEY, seal=parse_seal(seal_text(seal), KEY)).ok
    out = subprocess.run([APPLIANCE, "audit", "verify", str(tmp_path / "log"), "--key-file", str(write_key(tmp_path)),
                          "--seal", seal_text(seal)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    forged = dict(seal, seq=3)
    with pytest.raises(ValueError, match="not signed by this key"):
        parse_seal(json.dumps(forged), KEY)


def test_a_renamed_day_file_fails(tmp_path):
    """The gaming day was not covered by the signature: a renamed file verified."""
    filled(tmp_path, 40)
    first = sorted(tmp_path.glob("*.jsonl"))[0]
    first.rename(tmp_path / "2026-10-01.jsonl")
    result = verify(tmp_path, KEY)
    assert not result.ok and result.file == "2026-10-01.jsonl" and "belongs to gaming day" in result.problem


def test_a_clock_stepped_back_and_forward_a_day_keeps_the_chain(tmp_path):
    """Files were read in name order: a clock stepping back a day broke a genuine chain."""
    clock = Clock(dt.datetime(2026, 11, 29, 20, 0, tzinfo=dt.UTC))
    log = AuditLog(tmp_path, KEY, day=LA, clock=clock)
    for i in range(3):
        log.append("DeviceValue", {"value": i})
    clock.now -= dt.timedelta(days=1)  # the clock steps back a day
    for i in range(3):
        log.append("DeviceValue", {"value": 10 + i})
    clock.now += dt.timedelta(days=2)  # and forward again
    log.append("DeviceValue", {"value": 20})
    result = verify(tmp_path, KEY)
    assert result.ok, result
    logged = records(tmp_path)
    assert [r["seq"] for r in logged] == list(range(1, len(logged) + 1))
    stepped = [r for r in logged if r["event"] == "ClockStepped"]
    assert len(stepped) == 1 and stepped[0]["data"]["seconds"] > 85000
    for r in logged:
        assert r["gaming_day"] == LA.of(dt.datetime.fromisoformat(r["ts"]))
    assert sorted(p.stem for p in tmp_path.glob("*.jsonl")) == ["2026-11-28", "2026-11-29", "2026-11-30"]
    assert [r["seq"] for r in tail(tmp_path)] == [r["seq"] for r in reversed(logged)]
    assert [r["seq"] for r in records_from(tmp_path, 5)] == [r["seq"] for r in logged if r["seq"] >= 5]
    reopened = AuditLog(tmp_path, KEY, day=LA, clock=clock)  # the tail is the highest seq, not the last file
    assert reopened.findings == [] and reopened.seq == logged[-1]["seq"]


def test_every_shipped_house_states_its_gaming_day():
    from appliance.config import house_files

    for key, path in house_files().items():
        mapping = read_toml(path)
        assert "timezone" in mapping and "gaming_day_start" in mapping, key
        GamingDay.from_house(mapping, str(path))
    with pytest.raises(ValueError, match="timezone: 'Mars/Olympus' is not a time zone"):
        GamingDay.from_house({"timezone": "Mars/Olympus"}, "x.toml")


def test_the_export_takes_gaming_days_not_utc_dates(tmp_path):
    """In a UTC-8 room, a round settled at 19:00 local is on the next UTC date but the same gaming day."""
    rules = load_house("general")
    day = GamingDay.from_house(read_toml(rules.source), rules.source)
    clock = Clock(dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.UTC), dt.timedelta(seconds=1))
    play_rounds(rules, AuditLog(tmp_path, KEY, day=day, clock=clock), 2)
    same_day = export_csv(tmp_path, KEY, dt.date(2026, 11, 28), dt.date(2026, 11, 28))
    assert same_day.rows > 0 and all(",2026-11-28," in line for line in same_day.text.splitlines()[1:])
    assert export_csv(tmp_path, KEY, dt.date(2026, 11, 29), dt.date(2026, 11, 29)).rows == 0


def test_the_export_carries_the_seals_of_its_days(tmp_path):
    log = filled(tmp_path, 3, day=LA)
    seal = log.seal_head("shift close", "supervisor 1042")
    export = export_csv(tmp_path, KEY, dt.date(2026, 11, 28), dt.date(2026, 11, 28))
    assert export.seals == 1 and seal_text(seal) in export.text.replace('""', '"')


def test_a_forged_log_is_caught_at_start_up_and_holds_the_table(tmp_path):
    """The old appliance started on an edited log and showed forged totals."""
    from dealer_table import Dealer

    folder = tmp_path / "log"
    log = filled(folder, 5)
    assert check_at_startup(log).problem is None and (folder / CHECKPOINT).is_file()
    path = last_file(folder)
    path.write_bytes(path.read_bytes().replace(b'"round":"r2"', b'"round":"r9"'))
    d = Dealer(folder, audit=AuditLog(folder, KEY, clock=Clock(dt.datetime(2026, 11, 29, 0, 0, tzinfo=dt.UTC))))
    check = check_at_startup(d.audit)
    assert check.problem.startswith(f"The audit log failed verification at start-up: {path.name} line 3: signature")
    d.table.hold_for_audit([{"problem": check.problem, "seq": None}])
    assert d.loop.press("next") == "the table is held: only a supervisor can release it"
    d.table.release("1042", "4821", "seen; the log goes to the regulator")
    ack = [r for r in records(folder) if r["event"] == "AuditAcknowledged"]
    assert ack and ack[0]["data"]["problem"] == check.problem and ack[0]["who"] == "supervisor 1042"


def test_start_up_verifies_only_what_is_new_and_still_catches_an_edit(tmp_path):
    clock = Clock()
    log = filled(tmp_path, 30, clock)
    first = check_at_startup(log)
    assert first.problem is None and not first.incremental and first.verification.records == 30
    for i in range(4):
        log.append("RoundSettled", {"round": f"new{i}"})
    again = check_at_startup(AuditLog(tmp_path, KEY, clock=clock))
    assert again.problem is None and again.incremental and again.verification.records == 34
    old = sorted(tmp_path.glob("*.jsonl"))[0]
    old.write_bytes(old.read_bytes().replace(b'"round":"r1"', b'"round":"r7"'))
    edited = check_at_startup(AuditLog(tmp_path, KEY, clock=clock))
    assert edited.problem is not None and "signature does not match" in edited.problem and not edited.incremental


def test_a_head_one_record_behind_after_a_power_cut_is_repaired(tmp_path):
    log = filled(tmp_path, 3)
    behind = (tmp_path / "HEAD.json").read_bytes()
    log.append("RoundSettled", {"round": "r4"})
    (tmp_path / "HEAD.json").write_bytes(behind)  # the power went between the record and its head
    again = AuditLog(tmp_path, KEY, clock=Clock(dt.datetime(2026, 11, 29, tzinfo=dt.UTC)))
    assert again.findings == [] and verify(tmp_path, KEY).ok


@pytest.mark.slow
def test_no_key_is_made_where_a_log_exists(tmp_path):
    """A deleted key was silently replaced by a new one, and the old log verified under neither."""
    # the simulation's log and key where appliance run --simulate keeps them: <data>/audit and <data>/audit.key
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "1", "--audit", str(tmp_path / "audit")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    (tmp_path / "audit.key").unlink()
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "1", "--audit", str(tmp_path / "audit")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "no audit key, but the log" in out.stderr
    assert not (tmp_path / "audit.key").exists()
    out = subprocess.run([APPLIANCE, "run", "--data", str(tmp_path), "--simulate", "--port", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "no audit key, but the log" in out.stderr.splitlines()[-1]


def test_the_key_is_looked_for_outside_the_data(tmp_path, monkeypatch):
    monkeypatch.delenv("APPLIANCE_KEY_FILE", raising=False)
    assert key_path(None, tmp_path / "etc") == tmp_path / "etc" / "audit.key"
    assert key_path("given.key", tmp_path / "etc").name == "given.key"
    monkeypatch.setenv("APPLIANCE_KEY_FILE", str(tmp_path / "env.key"))
    assert key_path(None, tmp_path / "etc") == tmp_path / "env.key"
    monkeypatch.delenv("APPLIANCE_KEY_FILE")
    with pytest.raises(AuditKeyError, match="no audit key: give --key-file"):
        key_path(None, None)
    assert len(audit_key(tmp_path / "audit.key", tmp_path / "no-log")) == 64
    with pytest.raises(AuditKeyError, match="no folder"):  # a mistyped folder is not made
        audit_key(tmp_path / "new" / "audit.key", tmp_path / "no-log")
    with pytest.raises(AuditKeyError, match="create one with: appliance audit keygen"):  # a named key is never made
        audit_key(tmp_path / "named.key", tmp_path / "no-log", make=False)
    assert not (tmp_path / "new").exists() and not (tmp_path / "named.key").exists()
    filled(tmp_path / "log", 1)
    with pytest.raises(AuditKeyError, match="already holds records"):
        audit_key(tmp_path / "other.key", tmp_path / "log")


def test_verify_right_after_a_power_cut_passes_with_a_note(tmp_path):
    """The old verify failed a log whose head the power cut left one record behind: a crash, not tampering."""
    log = filled(tmp_path, 3)
    behind = (tmp_path / "HEAD.json").read_bytes()
    log.append("RoundSettled", {"round": "r4"})
    (tmp_path / "HEAD.json").write_bytes(behind)  # the power went between the record and its head
    result = verify(tmp_path, KEY)
    assert result.ok and "power cut" in result.note and result.to_json()["note"] == result.note
    out = subprocess.run([APPLIANCE, "audit", "verify", str(tmp_path), "--key-file", str(write_key(tmp_path))],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "power cut" in json.loads(out.stdout)["note"], out.stderr


def test_a_head_ahead_of_the_log_two_behind_or_missing_still_fails_verify(tmp_path):
    log = filled(tmp_path, 3)
    two_behind = (tmp_path / "HEAD.json").read_bytes()
    log.append("RoundSettled", {"round": "r4"})
    ahead = (tmp_path / "HEAD.json").read_bytes()
    log.append("RoundSettled", {"round": "r5"})
    (tmp_path / "HEAD.json").write_bytes(two_behind)
    assert not verify(tmp_path, KEY).ok
    cut_last(tmp_path, 2)
    (tmp_path / "HEAD.json").write_bytes(ahead)  # the head names a record the log no longer holds
    result = verify(tmp_path, KEY)
    assert not result.ok and "records missing at the end" in result.problem and result.note is None
    (tmp_path / "HEAD.json").unlink()
    assert not verify(tmp_path, KEY).ok
