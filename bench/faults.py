"""Fault injection against the audit log: the disk fills at random moments, and the appliance is killed
(SIGKILL) at random moments. After each fault, and after space returns or the table restarts, the
log must verify, hold no partial record, and every round settled before the fault must be there
once (none lost, none repeated). Prints one table row per kind of fault.

Run: python bench/faults.py [--fills 20] [--kills 50] [--seed 1] [--tmpfs]

The disk fills through a write layer that refuses bytes from a random point on (as if another
writer took the space between two records or in the middle of one); with --tmpfs (root) the
log lives on a real 2 MB tmpfs that another writer fills, leaving a random number of bytes.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from appliance.audit.keys import audit_key
from appliance.audit.log import AuditLog, RecordingStopped, day_files, records, verify
from appliance.config import load_house
from appliance.table.recording import SpaceLimits
from appliance.table.simulation import play_rounds

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from audit_disk import FillingDisk, fill, tmpfs  # noqa: E402  (the tests' own disks that fill)

ROOM = SpaceLimits(0, 0)  # a 2 MB disk: no threshold (the faults are what is measured)

FULL = "The audit disk is full: nothing can be recorded"
RULES = load_house("general")


def settled(folder: Path) -> Counter:
    """Settled rounds, counted by round id (a correction's re-settlement is the same round again:
    only the last settlement of a round counts, so a round appears once)."""
    last = {}
    for record in records(folder):
        if record["event"] == "RoundSettled":
            last[record["data"]["round"]] = record["seq"]
    return Counter(last)


def whole(folder: Path) -> bool:
    return all(p.read_bytes().endswith(b"\n") or p.stat().st_size == 0 for p in day_files(folder))


def repeated(folder: Path) -> int:
    """Rounds settled more than once without a correction between (a settlement repeated)."""
    seen, twice = {}, 0
    for record in records(folder):
        round_id = record["data"].get("round")
        if record["event"] == "ReadCorrected":
            seen.pop(round_id, None)
        elif record["event"] == "RoundSettled":
            twice += round_id in seen
            seen[round_id] = True
    return twice


def fill_trials(n: int, rng: random.Random, work: Path) -> dict:
    row = {"fault": "disk fills (write layer)", "trials": n, "stopped_with_reason": 0, "whole_while_full": 0,
           "verify_after": 0, "lost": 0, "repeated": 0}
    for trial in range(n):
        folder = work / f"fill-{trial}"
        key = b"f" * 64
        warm = AuditLog(folder, key)
        play_rounds(RULES, warm, rng.randint(1, 4), seed=trial)  # some history first
        before = settled(folder)
        disk = FillingDisk()
        disk.budget = rng.randint(0, 60_000)  # the disk fills at a random byte of the next ones
        try:
            play_rounds(RULES, AuditLog(folder, key, write=disk.write), 50, seed=trial)
        except RecordingStopped as err:
            row["stopped_with_reason"] += str(err).startswith(FULL)
        row["whole_while_full"] += whole(folder) and verify(folder, key).ok
        during = settled(folder)
        play_rounds(RULES, AuditLog(folder, key), 2, seed=trial)  # space is back: the table goes on
        after = settled(folder)
        row["verify_after"] += verify(folder, key).ok and whole(folder)
        row["lost"] += sum(1 for r in during if r not in after) + sum(1 for r in before if r not in after)
        row["repeated"] += repeated(folder)
    return row


def tmpfs_trials(n: int, rng: random.Random, work: Path) -> dict | None:
    row = {"fault": "disk fills (2 MB tmpfs)", "trials": n, "stopped_with_reason": 0, "whole_while_full": 0,
           "verify_after": 0, "lost": 0, "repeated": 0}
    mount = work / "tmpfs"
    with tmpfs(mount) as mounted:
        if not mounted:
            return None
        for trial in range(n):
            folder, key = mount / f"log-{trial}", b"t" * 64
            play_rounds(RULES, AuditLog(folder, key), 1, seed=trial, space=ROOM)
            filler = fill(mount, leave=rng.randint(0, 40_000))
            try:
                play_rounds(RULES, AuditLog(folder, key), 200, seed=trial, space=ROOM)
            except RecordingStopped as err:
                row["stopped_with_reason"] += str(err).startswith(FULL)
            row["whole_while_full"] += whole(folder) and verify(folder, key).ok
            during = settled(folder)
            filler.unlink()
            play_rounds(RULES, AuditLog(folder, key), 1, seed=trial, space=ROOM)
            after = settled(folder)
            row["verify_after"] += verify(folder, key).ok and whole(folder)
            row["lost"] += sum(1 for r in during if r not in after)
            row["repeated"] += repeated(folder)
            shutil.rmtree(folder)
    return row


def kill_trials(n: int, rng: random.Random, work: Path) -> dict:
    appliance = shutil.which("appliance") or sys.exit("the appliance command is not installed")
    folder, key_file = work / "killed", work / "killed.key"
    key = audit_key(key_file, folder)
    row = {"fault": "SIGKILL", "trials": n, "stopped_with_reason": "-", "whole_while_full": "-",
           "verify_after": 0, "lost": 0, "repeated": 0}
    for _ in range(n):
        before = settled(folder) if folder.is_dir() else Counter()
        proc = subprocess.Popen([appliance, "simulate-table", "--rounds", "100000", "--audit", str(folder),
                                 "--key-file", str(key_file)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.0, 4.0))  # a random moment (the first second is the interpreter starting)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        play_rounds(RULES, AuditLog(folder, key), 1, seed=7)  # the restart: cuts a partial record, goes on
        after = settled(folder)
        row["verify_after"] += verify(folder, key).ok and whole(folder)
        row["lost"] += sum(1 for r in before if r not in after)
    row["repeated"] = repeated(folder)
    row["settled_rounds"] = len(settled(folder))
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fills", type=int, default=20)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tmpfs", action="store_true", help="also fill a real 2 MB tmpfs (needs root)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        start = time.perf_counter()
        rows.append(fill_trials(args.fills, rng, work))
        if args.tmpfs:
            row = tmpfs_trials(args.fills, rng, work)
            rows.append(row or {"fault": "disk fills (2 MB tmpfs)", "trials": "not permitted (needs root)"})
        rows.append(kill_trials(args.kills, rng, work))
        seconds = time.perf_counter() - start
    keys = ["fault", "trials", "stopped_with_reason", "whole_while_full", "verify_after", "lost", "repeated"]
    widths = [max(len(k), *(len(str(r.get(k, ""))) for r in rows)) for k in keys]
    print("  ".join(k.ljust(w) for k, w in zip(keys, widths)))
    for r in rows:
        print("  ".join(str(r.get(k, "")).ljust(w) for k, w in zip(keys, widths)))
    kills = rows[-1]
    print(f"SIGKILL runs left {kills.get('settled_rounds')} settled rounds in one log; {seconds:.0f} s in all")


if __name__ == "__main__":
    main()
