"""The export of some gaming days reads the log as a stream: it holds those days' settlements, never the
whole log (the old export folded every record of every day first: 820 MB for one day of thirty), and
says what the whole-log fold says."""

import csv
import datetime as dt
import io
import subprocess
import sys
import tracemalloc

from appliance.audit.log import AuditLog, new_key
from appliance.audit.replay import write_export
from appliance.config import load_house
from appliance.audit.replay import rounds_in
from appliance.table.simulation import play_rounds

KEY = b"e" * 64


class Clock:
    """Ten minutes a record: forty rounds lie over about four gaming days."""

    def __init__(self):
        self.now = dt.datetime(2026, 3, 1, 5, 0, tzinfo=dt.UTC)

    def __call__(self):
        self.now += dt.timedelta(minutes=10)
        return self.now


def peak(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_one_day_of_four_is_exported_as_the_log_is_read(tmp_path):
    play_rounds(load_house("general"), AuditLog(tmp_path / "log", KEY, clock=Clock()), 40, seed=9)
    days = sorted(p.stem for p in (tmp_path / "log").glob("*.jsonl"))
    assert len(days) >= 4
    day = dt.date.fromisoformat(days[1])

    out = io.StringIO()
    exported = peak(lambda: write_export(tmp_path / "log", KEY, day, day, out))
    folded = peak(lambda: rounds_in(tmp_path / "log"))  # what the export held before
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    whole = rounds_in(tmp_path / "log")
    expected = [(rid, str(seat["seat"]), seat["net"]) for rid, state in whole.items()
                if state.settlement and state.settled.gaming_day == days[1] for seat in state.settlement["seats"]]
    seat_rows = rows[1:rows.index([])] if [] in rows else rows[1:]  # then the day's shift seals
    assert [(r[0], r[3], r[12]) for r in seat_rows] == expected
    assert expected and exported < folded / 3, (exported, folded)


def test_the_command_writes_the_same_export(tmp_path):
    play_rounds(load_house("general"), AuditLog(tmp_path / "log", KEY, clock=Clock()), 12, seed=9)
    new_key(tmp_path / "key", KEY)
    day = sorted(p.stem for p in (tmp_path / "log").glob("*.jsonl"))[0]
    done = subprocess.run([sys.executable, "-m", "appliance", "audit", "export", str(tmp_path / "log"), "--key-file",
                           str(tmp_path / "key"), "--from", day, "--to", day], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = io.StringIO()
    write_export(tmp_path / "log", KEY, dt.date.fromisoformat(day), dt.date.fromisoformat(day), out)
    assert done.stdout == out.getvalue() and done.stdout.count("\n") > 1
