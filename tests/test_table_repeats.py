"""Repeated faults coalesce: the same device rejection or camera tick fault within the window is one
record with a count, and a valid device line is not kept waiting behind a flood. (Refused logins go
through the same coalescing, per address: tests/test_web_gate.py.)"""

import os
import threading
from pathlib import Path

import pytest
from settled_table import settled_table
from test_heartbeats import deck, station_at_a_table  # noqa: F401 - deck is a fixture
from test_station import wait_for

from appliance.audit.log import records
from appliance.devices.protocol import frame
from appliance.table.repeats import Repeats
from appliance.table.round import Events
from appliance.table.supervisor import PinError


def of(folder: Path, event: str) -> list[dict]:
    return [r for r in records(folder) if r["event"] == event]


def test_a_flood_of_bad_lines_is_counted_and_a_valid_line_is_not_kept_waiting(tmp_path, deck):  # noqa: F811
    master, slave = os.openpty()
    try:
        station = station_at_a_table(tmp_path, os.ttyname(slave), tmp_path, deck)
        arrived = {}
        station.table.listeners.append(lambda r: arrived.setdefault("at", r["seq"])
                                       if r["event"] == Events.DEVICE_VALUE and r["data"]["seq"] == 77 else None)
        station.start()
        try:
            device = next(w for w in station.workers if hasattr(w, "roll"))
            wait_for(lambda: device._port is not None, 10)
            bad = b"".join(b"garbage on the line\r\n" if n % 2 else frame(f"R,{n},5")[:-4] + b"00\r\n"
                           for n in range(3000))
            writer = threading.Thread(target=_write_all, args=(master, bad))
            writer.start()
            writer.join(60)
            os.write(master, frame("R,77,3"))
            wait_for(lambda: "at" in arrived, 10)  # the 10 s only stop a hang
            # not kept waiting behind 3,000 fsync-ed rejections: the first of each kind is all that is written before it
            assert len([r for r in of(tmp_path / "log", Events.DEVICE_REJECTED) if r["seq"] < arrived["at"]]) <= 2
        finally:
            station.stop()
    finally:
        os.close(master)
        os.close(slave)
    rejected = of(tmp_path / "log", Events.DEVICE_REJECTED)
    assert len(rejected) == 4 and sum(r["data"]["count"] for r in rejected) == 3000
    summary = next(r for r in rejected if r["data"]["count"] > 1)
    assert summary["data"]["repeats_seq"] in {r["seq"] for r in rejected} and summary["data"]["rejected"]


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def test_a_camera_tick_that_keeps_failing_is_one_record_with_a_count(tmp_path, deck):  # noqa: F811
    station = station_at_a_table(tmp_path, "/dev/null", tmp_path, deck)

    def tick():
        raise RuntimeError("reader failed on frame 1234")

    for _ in range(100):  # ten seconds of a camera thread at ten looks a second
        station._guarded("camera", tick)()
    faults = [r for r in of(tmp_path / "log", Events.DEVICE_STATUS) if r["data"]["status"] == "fault"]
    assert len(faults) == 1 and faults[0]["data"]["detail"] == "RuntimeError: reader failed on frame 1234"
    station.table.repeats.flush()
    faults = [r for r in of(tmp_path / "log", Events.DEVICE_STATUS) if r["data"]["status"] == "fault"]
    assert [r["data"]["count"] for r in faults] == [1, 99]


def test_a_window_that_ends_records_its_count_by_itself(tmp_path):
    table, _ = settled_table(tmp_path / "log", b"x" * 64)
    table.repeats.window = 0.2
    for _ in range(3):
        table.repeats.offer("k", Events.DEVICE_REJECTED, {"device": "rng", "reason": "noise"}, "device")
    wait_for(lambda: len(of(tmp_path / "log", Events.DEVICE_REJECTED)) == 2, 5)
    assert [r["data"]["count"] for r in of(tmp_path / "log", Events.DEVICE_REJECTED)] == [1, 2]
    table.repeats.offer("k", Events.DEVICE_REJECTED, {"device": "rng", "reason": "noise"}, "device")
    assert len(of(tmp_path / "log", Events.DEVICE_REJECTED)) == 3  # a new window: recorded at once


def test_a_first_record_that_cannot_be_written_leaves_no_window_counting_in_silence():
    written, failing = [], [True]

    def write(event, data, who):
        if failing[0]:
            raise OSError("no space left on device")
        written.append(data)
        return {"seq": len(written)}

    repeats = Repeats(write)
    with pytest.raises(OSError):
        repeats.offer("k", Events.DEVICE_REJECTED, {"reason": "noise"}, "device")
    failing[0] = False
    assert repeats.offer("k", Events.DEVICE_REJECTED, {"reason": "noise"}, "device")  # recorded, not counted
    repeats.flush()
    assert written == [{"reason": "noise", "count": 1}]


def test_refused_logins_still_being_counted_are_recorded_when_the_station_stops(tmp_path, deck):  # noqa: F811
    station = station_at_a_table(tmp_path, "/dev/null", tmp_path, deck)
    for _ in range(3):
        with pytest.raises(PinError):
            station.table.gate.check("1042", "000000", "10.0.0.9")
    station.stop()
    refused = of(tmp_path / "log", Events.SUPERVISOR_REFUSED)
    assert [(r["data"]["count"], r["data"]["address"]) for r in refused] == [(1, "10.0.0.9"), (2, "10.0.0.9")]
