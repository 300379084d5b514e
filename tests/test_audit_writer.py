"""The audit writer fails safe: an append is whole or absent, whatever byte the disk fills at, and the
log says in plain words that recording stopped, then records how long once it can write again."""

import datetime as dt
import json

import pytest

from appliance.audit.log import AuditLog, RecordingStopped, canonical, records, verify
from audit_disk import FillingDisk, fill, tmpfs

KEY = b"k" * 64
FULL = "The audit disk is full: nothing can be recorded"


class Clock:
    def __init__(self):
        self.now = dt.datetime(2026, 11, 28, 20, 0, tzinfo=dt.UTC)

    def __call__(self):
        self.now += dt.timedelta(minutes=1)
        return self.now


def test_the_disk_filled_between_two_records(tmp_path):
    disk = FillingDisk()
    log = AuditLog(tmp_path, KEY, clock=Clock(), write=disk.write)
    for i in range(3):
        log.append("DeviceValue", {"value": i})
    disk.budget = 0  # another writer took the last byte
    with pytest.raises(RecordingStopped, match=FULL):
        log.append("RoundSettled", {"round": "r1"})
    assert log.stopped.reason == FULL and log.stopped.event == "RoundSettled"
    assert verify(tmp_path, KEY).ok and verify(tmp_path, KEY).records == 3
    with pytest.raises(RecordingStopped):
        log.resume()  # still full
    disk.budget = None
    resumed = log.resume()
    assert resumed["event"] == "RecordingResumed" and resumed["data"]["reason"] == FULL
    assert resumed["data"]["failed_record"] == "RoundSettled" and "no round was settled" in resumed["data"]["note"]
    assert log.stopped is None
    log.append("RoundSettled", {"round": "r1"})
    result = verify(tmp_path, KEY)
    assert result.ok and result.records == 5


def test_the_disk_fills_at_any_byte_of_a_record_or_of_its_head(tmp_path):
    """Every byte at which the disk can fill, in the record or in the head written after it."""
    probe = AuditLog(tmp_path / "probe", KEY, clock=Clock())
    probe.append("DeviceValue", {"value": 0})
    record = probe.append("RoundSettled", {"round": "r1", "net": "10.00"})
    span = len(canonical(record)) + 1 + (tmp_path / "probe" / "HEAD.json").stat().st_size
    for budget in range(0, span, 7):
        folder = tmp_path / f"at-{budget}"
        disk = FillingDisk()
        log = AuditLog(folder, KEY, clock=Clock(), write=disk.write)
        log.append("DeviceValue", {"value": 0})
        disk.budget = budget
        with pytest.raises(RecordingStopped, match=FULL):
            log.append("RoundSettled", {"round": "r1", "net": "10.00"})
        day_file = next(folder.glob("*.jsonl"))
        assert day_file.read_bytes().endswith(b"\n") and day_file.read_bytes().count(b"\n") == 1, budget
        assert verify(folder, KEY).ok, budget
        disk.budget = None
        log.resume()
        log.append("RoundSettled", {"round": "r1", "net": "10.00"})
        assert verify(folder, KEY).ok and [r["event"] for r in records(folder)] == [
            "DeviceValue", "RecordingResumed", "RoundSettled"], budget


def test_a_log_reopened_after_the_disk_filled_goes_on(tmp_path):
    disk = FillingDisk()
    clock = Clock()
    log = AuditLog(tmp_path, KEY, clock=clock, write=disk.write)
    log.append("DeviceValue", {"value": 1})
    disk.budget = 40
    with pytest.raises(RecordingStopped):
        log.append("DeviceValue", {"value": 2})
    again = AuditLog(tmp_path, KEY, clock=clock)  # a restart once space is back
    assert again.findings == [] and again.seq == 1
    again.append("DeviceValue", {"value": 2})
    assert verify(tmp_path, KEY).ok


def test_a_zone_image_that_cannot_be_stored_stops_recording(tmp_path):
    disk = FillingDisk()
    log = AuditLog(tmp_path, KEY, clock=Clock(), write=disk.write)
    disk.budget = 10
    with pytest.raises(RecordingStopped, match=FULL):
        log.store_image(b"\x89PNG" + b"0" * 100)
    assert not list((tmp_path / "images").rglob("*.png")) and not list((tmp_path / "images").rglob(".*"))
    assert log.stopped.event == "zone image"


def test_data_files_are_0640(tmp_path):
    log = AuditLog(tmp_path / "log", KEY, clock=Clock())
    log.append("DeviceValue", {"value": 1})
    log.store_image(b"png")
    for path in [*(tmp_path / "log").glob("*.jsonl"), tmp_path / "log" / "HEAD.json",
                 *(tmp_path / "log" / "images").rglob("*.png")]:
        assert path.stat().st_mode & 0o777 == 0o640, path


def test_a_real_filesystem_filled_by_another_writer(tmp_path):
    """A 2 MB tmpfs: another writer fills it between two records, then leaves a few hundred bytes (the
    next record is cut in the middle); the log stays whole and goes on once the space is freed."""
    folder = tmp_path / "disk"
    with tmpfs(folder) as mounted:
        if not mounted:
            pytest.skip("mounting a tmpfs is not permitted here (needs root)")
        log = AuditLog(folder / "audit", KEY, clock=Clock())
        log.append("ApplianceStarted", {})
        big = {"rules": "x" * 2000}
        filler = fill(folder)
        with pytest.raises(RecordingStopped, match=FULL):
            log.append("RoundOpened", big)
        filler.unlink()
        log.resume()
        log.append("RoundOpened", big)
        filler = fill(folder, leave=1000)  # room for part of a record only
        for _ in range(5):
            try:
                log.append("RoundOpened", big)
            except RecordingStopped:
                break
        else:
            pytest.fail("the disk never filled")
        for path in (folder / "audit").glob("*.jsonl"):
            assert path.read_bytes().endswith(b"\n")
            assert all(json.loads(line) for line in path.read_bytes().splitlines())
        assert verify(folder / "audit", KEY).ok
        filler.unlink()
        log.resume()
        log.append("RoundSettled", {"round": "r1"})
        result = verify(folder / "audit", KEY)
        assert result.ok
        assert [r["event"] for r in records(folder / "audit")].count("RecordingResumed") == 2
