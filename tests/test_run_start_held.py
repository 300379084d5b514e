"""`appliance run` at start-up on what the last round of faults found stopping it for good: a disk
already full and a damaged history index gave exit status 2, which the unit's
``RestartPreventExitStatus=2`` never restarts. Now the dashboard comes up, the screens say what is
wrong in plain words, and nothing is recorded until it can be."""

import json
import shutil
import subprocess
import time
import urllib.request

import pytest

from appliance.audit.log import records, verify
from audit_disk import fill, tmpfs
from started_run import StartedRun

APPLIANCE = shutil.which("appliance")
FULL = "The audit disk is full: nothing can be recorded"


def state(run: StartedRun) -> dict:
    with urllib.request.urlopen(f"{run.address}api/state", timeout=2) as r:
        return json.loads(r.read())


def until(run: StartedRun, ok, seconds: float = 60) -> dict:
    """The dealer's state once ``ok`` says so; the run must not have ended meanwhile."""
    deadline, last = time.monotonic() + seconds, {}
    while time.monotonic() < deadline:
        run.check()
        try:
            last = state(run)
            if last.get("dealer") and ok(last["dealer"]):
                return last["dealer"]
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"not seen in {seconds} s: {last.get('dealer')}")


def simulated_run(data, rounds=2) -> StartedRun:
    return StartedRun([APPLIANCE, "run", "--simulate", "--rounds", str(rounds), "--keep-serving", "--pace", "0.05",
                       "--data", str(data)])


def played(data, rounds=3) -> None:
    out = subprocess.run([APPLIANCE, "run", "--simulate", "--rounds", str(rounds), "--pace", "0.01", "--port", "0",
                          "--data", str(data)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr


@pytest.mark.slow
def test_a_disk_full_at_start_up_starts_held_and_goes_on_once_there_is_room(tmp_path):
    """The old start stopped with exit 2 ("No space left on device", or the index's "disk is full")."""
    # (room for rounds at first: below the 20 MB a new round needs, the table refuses to open one,
    # and a simulated dealer asked for three rounds waits for them as long as the table is held)
    with tmpfs(tmp_path / "disk", "64m") as mounted:
        if not mounted:
            pytest.skip("mounting a tmpfs is not permitted here (needs root)")
        data = tmp_path / "disk" / "data"
        data.mkdir()
        played(data)
        (data / "index.sqlite").unlink()  # the index must be built again: SQLite cannot write either
        before = {p.name: p.read_bytes() for p in (data / "audit").glob("*.jsonl")}
        filler = fill(tmp_path / "disk")
        with simulated_run(data) as run:  # (a full disk is below the 20 MB a new round needs: no round is played)
            dealer = until(run, lambda d: d.get("held"))
            assert dealer["held"].startswith(FULL) and dealer["recording"]["stopped"].startswith(FULL)
            time.sleep(2)  # the simulated dealer is at the table: nothing is recorded, the run goes on
            run.check()
            assert state(run)["dealer"]["step"] == "held"
            assert {p.name: p.read_bytes() for p in (data / "audit").glob("*.jsonl")} == before
            filler.unlink()  # room again: the table carries on by itself
            until(run, lambda d: not d.get("held"))
        resumed = [r for r in records(data / "audit") if r["event"] == "RecordingResumed"]
        assert len(resumed) == 1 and resumed[0]["data"]["reason"].startswith(FULL)
        assert verify(data / "audit", (data / "audit.key").read_bytes().strip()).ok


@pytest.fixture(scope="module")
def played_30(tmp_path_factory):
    """A data folder after 30 rounds (an index of more than two pages to damage), played once for the module:
    each test damages its own copy."""
    data = tmp_path_factory.mktemp("played") / "data"
    data.mkdir()
    played(data, rounds=30)
    return data


@pytest.mark.parametrize("at, size, said", [(0, 16, "file is not a database"),
                                            (2 * 4096, 4096, "database disk image is malformed")],
                         ids=["header", "pages"])
@pytest.mark.slow
def test_a_damaged_index_at_start_up_is_rebuilt_from_the_log_and_the_start_goes_on(tmp_path, played_30, at, size,
                                                                                   said):
    """The old start gave a traceback (header) or exit 2 (pages) at every start: the service stayed down."""
    data = tmp_path / "data"
    shutil.copytree(played_30, data)
    index = data / "index.sqlite"
    damaged = bytearray(index.read_bytes())
    damaged[at:at + size] = b"\xa5" * size
    index.write_bytes(bytes(damaged))
    with simulated_run(data, rounds=1) as run:
        dealer = until(run, lambda d: any("history index" in n for n in d.get("notices", [])))
        note = next(n for n in dealer["notices"] if "history index" in n)
        assert note.startswith(f"The history index is damaged ({said}")
        assert note.endswith("the old file is kept as index.sqlite.damaged-0")
        assert (data / "index.sqlite.damaged-0").read_bytes() == bytes(damaged)  # kept as evidence
        until(run, lambda d: d["step"] != "held")
    rebuilt = [r for r in records(data / "audit") if r["event"] == "IndexRebuilt"]
    assert len(rebuilt) == 1 and rebuilt[0]["data"]["reason"] == note
