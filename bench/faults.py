"""Fault injection against the audit log: the disk fills at random moments, and the appliance is killed
(SIGKILL) at random moments. After each fault, and after space returns or the table restarts, the
log must verify, hold no partial record, and every round settled before the fault must be there
once (none lost, none repeated). Prints one table row per kind of fault.

A second table covers faults found at start-up: the audit folder wiped (the history index left),
the log rolled back under a shift seal, the clock stepped 400 days forward (at a start, or while the
table plays), and two writers (a second appliance started on a data folder another is writing to: refused
by the folder's exclusive lock in one line naming the holder, having written nothing). Each must be detected, the table held with the reason the screens show, nothing written
over the evidence, no round's step booked to the day the clock jumped to (``booked_on_step``), and no
settled round lost once the log is put back and the table started again. The history index damaged
four ways (a row edited, a round's rows deleted, its header overwritten, pages overwritten) must be
detected, rebuilt from the log with the reason said, the old file kept aside, and the shift's totals
the log's own.

Run: python bench/faults.py [--fills 20] [--kills 50] [--starts 10] [--seed 1] [--tmpfs]

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

import datetime as dt

from appliance.audit.clock import boot_seconds
from appliance.audit.history_index import Index, index_key, open_checked
from appliance.audit.keys import audit_key
from appliance.audit.log import CLOCK_STEPPED, AuditLog, RecordingStopped, day_files, load_key, records, verify
from appliance.config import load_house, read_toml
from appliance.table.recording import SpaceLimits
from appliance.records.events import ROUND_STEPS
from appliance.table.simulation import SimulationStopped, play_rounds
from appliance.table.table import Table

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


class SteppedClock:
    """The wall clock, moved on by ``ahead`` when the bench says so (an RTC or NTP gone wrong)."""

    def __init__(self):
        self.ahead = dt.timedelta(0)

    def __call__(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + self.ahead


def _held_with_reason(audit: AuditLog) -> bool:
    """Held, with a reason the screens show: the table's ``held`` is what the dealer and supervisor read."""
    held = Table(RULES, read_toml(Path(RULES.source)), audit, {}).held
    return bool(held) and (audit.stopped is None or held == audit.stopped.reason)


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to, ignore=shutil.ignore_patterns("writer.lock"))
    return to


def _put_back(backup: Path, folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(backup, folder)


def wiped(folder: Path, index: Path, key: bytes, rng: random.Random) -> Path:
    """The audit folder deleted; the history index left beside it. Returns the backup to put back."""
    backup = _copy(folder, folder.with_name(folder.name + ".backup"))
    shutil.rmtree(folder)
    return backup


def sealed_past(folder: Path, index: Path, key: bytes, rng: random.Random) -> Path:
    """The log and its head put back as they were some rounds ago, under a later shift seal."""
    old = {p.name: p.read_bytes() for p in [*folder.glob("*.jsonl"), folder / "HEAD.json"]}
    play_rounds(RULES, AuditLog(folder, key), rng.randint(1, 3), seed=rng.randrange(1000))
    AuditLog(folder, key).seal_head("shift close", "supervisor 1042")
    backup = _copy(folder, folder.with_name(folder.name + ".backup"))
    for p in folder.glob("*.jsonl"):
        p.unlink()
    for name, data in old.items():
        (folder / name).write_bytes(data)
    index.unlink(missing_ok=True)  # only the seal knows: the index is not there to tell
    return backup


def _index_of(folder: Path, path: Path) -> None:
    index = Index(path)
    index.catch_up(folder)
    index.close()


def start_trials(n: int, rng: random.Random, work: Path) -> list[dict]:
    rows = []
    for name, fault in (("wiped audit (index left)", wiped), ("seal past the end", sealed_past)):
        row = {"fault": name, "runs": n, "detected": 0, "held_with_reason": 0, "wrote_nothing": 0, "lost": 0}
        for trial in range(n):
            folder, index, key = work / f"{fault.__name__}-{trial}", work / f"{fault.__name__}-{trial}.sqlite", b"s" * 64
            play_rounds(RULES, AuditLog(folder, key), rng.randint(1, 4), seed=trial)
            _index_of(folder, index)
            backup = fault(folder, index, key, rng)
            before = settled(backup)
            found = {p.name: p.read_bytes() for p in folder.glob("*.jsonl")} if folder.is_dir() else {}
            audit = AuditLog(folder, key, index=index)
            row["detected"] += audit.stopped is not None and audit.stopped.lasting
            row["held_with_reason"] += _held_with_reason(audit)
            row["wrote_nothing"] += {p.name: p.read_bytes() for p in folder.glob("*.jsonl")} == found
            _put_back(backup, folder)  # from a backup (or the floor): the table starts again and goes on
            catching_up = Index(index)
            play_rounds(RULES, AuditLog(folder, key, index=index), 1, seed=trial, index=catching_up)
            catching_up.close()
            after = settled(folder)
            row["lost"] += sum(1 for r in before if r not in after) + (not verify(folder, key).ok)
        rows.append(row)
    rows += clock_trials(n, rng, work)
    rows.append(two_writers_trials(n, rng, work))
    return rows


def _written(audit: Path) -> bool:
    """Records in the log and its head written (the first writer is under way)."""
    return audit.is_dir() and any(p.stat().st_size for p in day_files(audit)) and (audit / "HEAD.json").is_file()


def _files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def two_writers_trials(n: int, rng: random.Random, work: Path) -> dict:
    """A second appliance started on a data folder another one writes to, at a random moment: each of
    ``simulate-table`` and ``run`` in turn. Detected: refused with exit status 2; held with the reason: one
    line naming the folder and the writing process; wrote nothing: the folder as the first left it (the
    first is stopped (SIGSTOP) while the second tries, so the two can be compared); lost: a round settled
    before missing once the first goes on and is killed, or the log failing to verify."""
    appliance = shutil.which("appliance") or sys.exit("the appliance command is not installed")
    row = {"fault": "two writers (one data folder)", "runs": n, "detected": 0, "held_with_reason": 0,
           "wrote_nothing": 0, "lost": 0}
    for trial in range(n):
        data = work / f"two-writers-{trial}"
        data.mkdir()
        audit = data / "audit"
        second = (["simulate-table", "--rounds", "1", "--audit", str(audit)] if trial % 2 == 0 else
                  ["run", "--simulate", "--data", str(data), "--port", "0"])
        first = subprocess.Popen([appliance, "simulate-table", "--rounds", "100000", "--audit", str(audit),
                                  "--seed", str(trial)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not _written(audit) and first.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 2.0))  # some rounds in, at a random moment
            first.send_signal(signal.SIGSTOP)
            before, settled_before = _files(data), settled(audit)
            out = subprocess.run([appliance, *second], capture_output=True, text=True, timeout=120)
            lines = out.stderr.strip().splitlines()
            row["detected"] += out.returncode == 2
            row["held_with_reason"] += (len(lines) == 1 and lines[0].startswith(f"appliance {second[0]}: {audit}: ")
                                        and f"another process (process {first.pid}" in lines[0])
            row["wrote_nothing"] += out.stdout == "" and _files(data) == before
            first.send_signal(signal.SIGCONT)
            time.sleep(0.5)  # the first goes on writing
        finally:
            first.send_signal(signal.SIGCONT)
            first.kill()
            first.wait()
        key = load_key(data / "audit.key")
        play_rounds(RULES, AuditLog(audit, key), 1, seed=trial)  # the restart: cuts a partial record, goes on
        row["lost"] += sum(1 for r in settled_before if r not in settled(audit)) + (not verify(audit, key).ok)
    return row


def clock_trials(n: int, rng: random.Random, work: Path) -> list[dict]:
    """The wall clock stepped 400 days forward between two starts, or while the table plays (checked against
    the box's own timer): recorded, held with the reason, and no round's step booked to the day it jumped to."""
    rows = []
    for name, running in (("clock +400 days (at a start)", False), ("clock +400 days (while playing)", True)):
        row = {"fault": name, "runs": n, "detected": 0, "held_with_reason": 0, "wrote_nothing": "-",
               "booked_on_step": 0, "lost": 0}
        for trial in range(n):
            folder, key, clock = work / f"clock-{running}-{trial}", b"c" * 64, SteppedClock()
            play_rounds(RULES, AuditLog(folder, key, clock=clock, timer=boot_seconds), rng.randint(1, 3), seed=trial)
            before = settled(folder)
            days = {r["gaming_day"] for r in records(folder)}
            moves = iter(range(rng.randint(1, 12)))  # the step comes at a random move of the next round

            def pace() -> None:
                if next(moves, None) is None:
                    clock.ahead = dt.timedelta(days=400)

            if not running:
                clock.ahead = dt.timedelta(days=400)
            audit = AuditLog(folder, key, clock=clock, timer=boot_seconds)
            try:
                play_rounds(RULES, audit, 3, seed=trial, pace=pace)
            except (SimulationStopped, RuntimeError):
                pass  # held: the simulation has no supervisor to confirm the day
            row["held_with_reason"] += _held_with_reason(audit) and audit.clock_doubt is not None
            logged = records(folder)
            row["detected"] += any(r["event"] == CLOCK_STEPPED and r["data"].get("direction") == "forward"
                                   for r in logged)
            row["booked_on_step"] += sum(1 for r in logged if r["event"] in ROUND_STEPS and r["gaming_day"] not in days)
            row["lost"] += sum(1 for r in before if r not in settled(folder)) + (not verify(folder, key).ok)
        rows.append(row)
    return rows


def edited_row(path: Path, rng: random.Random) -> None:
    """A settled round's commission raised in the file with sqlite3, as anyone with the disk could."""
    import sqlite3

    db = sqlite3.connect(path)
    rounds = [r[0] for r in db.execute("SELECT round FROM rounds WHERE status = 'settled'")]
    db.execute("UPDATE rounds SET commission = '999.00' WHERE round = ?", (rng.choice(rounds),))
    db.commit()
    db.close()


def deleted_round(path: Path, rng: random.Random) -> None:
    """A settled round deleted from the file with sqlite3 (its row, its seats, its events), as anyone with the
    disk could: no row left behind fails its signature."""
    import sqlite3

    db = sqlite3.connect(path)
    rounds = [r[0] for r in db.execute("SELECT round FROM rounds WHERE status = 'settled'")]
    chosen = rng.choice(rounds)
    for table in ("rounds", "seats", "events"):
        db.execute(f"DELETE FROM {table} WHERE round = ?", (chosen,))
    db.commit()
    db.close()


def damaged_header(path: Path, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    data[:16] = rng.randbytes(16)
    path.write_bytes(bytes(data))


def damaged_pages(path: Path, rng: random.Random) -> None:
    """Whole pages past the first overwritten (a bad sector, a torn write)."""
    data = bytearray(path.read_bytes())
    pages = len(data) // 4096
    first = rng.randrange(1, pages)
    data[first * 4096:(first + 1) * 4096] = rng.randbytes(4096)
    path.write_bytes(bytes(data))


def index_trials(n: int, rng: random.Random, work: Path) -> list[dict]:
    """What a start (or the shift page, for an edited row) makes of a damaged history index."""
    rows = []
    for name, damage in (("index: edited row", edited_row), ("index: deleted round", deleted_round),
                         ("index: damaged header", damaged_header),
                         ("index: damaged pages", damaged_pages)):
        row = {"fault": name, "runs": n, "detected": 0, "held_with_reason": 0, "wrote_nothing": "-", "lost": 0}
        for trial in range(n):
            folder, path, key = work / f"{damage.__name__}-{trial}", work / f"{damage.__name__}-{trial}.sqlite", b"x" * 64
            play_rounds(RULES, AuditLog(folder, key), rng.randint(20, 40), seed=trial)
            index = Index(path, index_key(key))
            index.catch_up(folder)
            truth = index.shift()
            index.close()
            damage(path, rng)
            said = []
            index, why = open_checked(path, index_key(key), folder, said.append)
            index.catch_up(folder)
            shown = index.shift()
            index.close()
            why = why or (said[0] if said else None)
            row["detected"] += why is not None
            # Rebuilt with the reason the screens show: the old file kept aside (a start) or rebuilt in place (a read)
            row["held_with_reason"] += bool(why) and "history index" in why and (
                "kept as" not in why or path.with_name(path.name + ".damaged-0").is_file())
            row["lost"] += shown != truth
        rows.append(row)
    return rows


def _print_table(rows: list[dict], keys: list[str]) -> None:
    widths = [max(len(k), *(len(str(r.get(k, ""))) for r in rows)) for k in keys]
    print("  ".join(k.ljust(w) for k, w in zip(keys, widths)))
    for r in rows:
        print("  ".join(str(r.get(k, "")).ljust(w) for k, w in zip(keys, widths)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fills", type=int, default=20)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--starts", type=int, default=10, help="runs of each start-up fault")
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
        starts = start_trials(args.starts, rng, work) if args.starts else []
        starts += index_trials(args.starts, rng, work) if args.starts else []
        seconds = time.perf_counter() - start
    _print_table(rows, ["fault", "trials", "stopped_with_reason", "whole_while_full", "verify_after", "lost",
                        "repeated"])
    if starts:
        print()
        _print_table(starts, ["fault", "runs", "detected", "held_with_reason", "wrote_nothing", "booked_on_step",
                              "lost"])
    kills = rows[-1]
    print(f"SIGKILL runs left {kills.get('settled_rounds')} settled rounds in one log; {seconds:.0f} s in all")


if __name__ == "__main__":
    main()
