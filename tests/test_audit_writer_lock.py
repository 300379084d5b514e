"""One writer per audit folder, with two real processes on one data folder: the second is refused in
one line (exit 2) naming the folder and the process holding it, and writes nothing; the lock goes with
its holder, however it ends."""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from appliance.audit.log import day_files, load_key, verify

APPLIANCE = shutil.which("appliance")
UNIT = Path(__file__).parent.parent / "systemd" / "paigow-appliance.service"


def files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def written(audit: Path) -> bool:
    """Records are in the log, and its head is written (a process killed between its first record and
    its first head leaves a log whose end nothing vouches for: the next start records that gap)."""
    return audit.is_dir() and any(p.stat().st_size for p in day_files(audit)) and (audit / "HEAD.json").is_file()


def wait_for_records(audit: Path, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not written(audit):
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "simulate-table wrote nothing"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_second_appliance_on_one_data_folder_is_refused_and_writes_nothing(tmp_path):
    data = tmp_path / "data"
    data.mkdir()  # simulate-table makes its log folder, not the folder above it
    audit = data / "audit"
    with subprocess.Popen([APPLIANCE, "simulate-table", "--rounds", "100000", "--audit", str(audit), "--seed", "3"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as first:
        try:
            wait_for_records(audit, first)
            first.send_signal(signal.SIGSTOP)  # it holds the lock, and the folder holds still to be compared
            before = files(data)
            for second in (["simulate-table", "--rounds", "1", "--audit", str(audit)],
                           ["run", "--simulate", "--data", str(data), "--port", "0"]):
                out = subprocess.run([APPLIANCE, *second], capture_output=True, text=True, timeout=120)
                assert out.returncode == 2, out.stderr
                lines = out.stderr.strip().splitlines()
                assert len(lines) == 1 and lines[0].startswith(f"appliance {second[0]}: {audit}: "), out.stderr
                assert f"another process (process {first.pid}: " in lines[0] and "simulate-table" in lines[0]
                assert out.stdout == "" and files(data) == before
        finally:
            first.send_signal(signal.SIGCONT)
            first.kill()
            first.wait(timeout=10)
    # Killed, the holder's lock is gone with it: the next start takes the folder and goes on with the chain.
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "1", "--audit", str(audit)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    checked = verify(audit, load_key(data / "audit.key"))
    assert checked.ok, (checked.where(), checked.problem)


def test_a_refused_start_is_not_restarted_by_the_service():
    """Exit status 2 is not restarted (the unit's RestartPreventExitStatus): a second start refused for the
    lock says so once in the journal instead of looping every RestartSec."""
    unit = UNIT.read_text()
    assert "RestartPreventExitStatus=2" in unit.splitlines() and "Restart=on-failure" in unit.splitlines()


def test_the_same_process_may_open_its_folder_again(tmp_path):
    """In-process restarts (the tests', the benches') hold the lock already; the file names the holder."""
    from appliance.audit.writer_lock import hold_for_writing

    lock = hold_for_writing(tmp_path / "audit")
    assert hold_for_writing(tmp_path / "audit") == lock
    assert lock.read_text().strip() == str(os.getpid())
