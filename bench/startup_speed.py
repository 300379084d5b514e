"""Start-up time against history: ``appliance run`` to READY=1 with a long log (default 1,000,000
records, about 120,000 rounds over some 120 gaming days) against a restart with an empty log, in the
same run on the same machine, and the one-off first start that builds the history index.

The history is made by the log writer itself (so it is chained, signed and laid out in day files as
the appliance writes them), from the records of simulated rounds played once and repeated with new
round ids and times; only ``fsync`` is skipped while it is made, to make it in minutes.
Run: python bench/startup_speed.py [--records N] [--restarts K]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import appliance.audit.log as audit_log
from appliance.audit.log import AuditLog, records
from appliance.config import load_house
from appliance.table.simulation import play_rounds

KEY = b"b" * 64
ROUND_EVERY = dt.timedelta(seconds=70)  # about 50 rounds an hour, around the clock


def template(rounds: int, folder: Path) -> list[list[dict]]:
    """Each simulated round's records (event, who, data), in order."""
    play_rounds(load_house("general"), AuditLog(folder, KEY), rounds, seed=1)
    by_round: dict[str, list[dict]] = {}
    for record in records(folder):
        if "round" in record["data"]:
            by_round.setdefault(record["data"]["round"], []).append(
                {"event": record["event"], "who": record["who"], "data": record["data"]})
    return list(by_round.values())


def make_history(folder: Path, count: int, rounds: list[list[dict]]) -> dict:
    """``count`` records written by the log writer, round after round, a clock moving on per round."""
    folder.mkdir(parents=True)
    (folder / "audit.key").write_bytes(KEY.hex().encode() + b"\n")
    now = [dt.datetime(2025, 6, 1, 6, 30, tzinfo=dt.UTC)]
    real_fsync, audit_log.os.fsync = audit_log.os.fsync, lambda fd: None
    try:
        log = AuditLog(folder / "audit", KEY, clock=lambda: now[0])
        made, played, numbers = 0, 0, {}
        while made < count:
            day = log.gaming_day(now[0])
            numbers[day] = numbers.get(day, 0) + 1
            round_id = f"{day}-{numbers[day]:04d}"
            for step in rounds[played % len(rounds)][: count - made]:
                log.append(step["event"], {**step["data"], "round": round_id}, step["who"])
                made += 1
            played += 1
            now[0] += ROUND_EVERY
    finally:
        audit_log.os.fsync = real_fsync
    files = list((folder / "audit").glob("*.jsonl"))
    return {"records": made, "rounds": played, "day_files": len(files),
            "log_mb": round(sum(p.stat().st_size for p in files) / 1e6, 1)}


def to_ready(data: Path) -> float:
    """Seconds from starting ``appliance run`` (simulated devices) to its READY=1; then it is stopped."""
    path = tempfile.mktemp(prefix="ready-", dir="/tmp")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(1800)
        env = {**os.environ, "NOTIFY_SOCKET": path}
        env.pop("WATCHDOG_USEC", None)
        start = time.perf_counter()
        with subprocess.Popen([shutil.which("appliance") or sys.executable, *([] if shutil.which("appliance") else
                               ["-m", "appliance"]), "run", "--simulate", "--port", "0", "--data", str(data),
                               "--pace", "30"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
            try:
                while sock.recv(256) != b"READY=1":
                    pass
                took = time.perf_counter() - start
            finally:
                proc.terminate()
                proc.wait(timeout=60)
    os.unlink(path)
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--template-rounds", type=int, default=100)
    parser.add_argument("--restarts", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        started = time.perf_counter()
        rounds = template(args.template_rounds, work / "template")
        history = make_history(work / "long", args.records, rounds)
        made_s = time.perf_counter() - started
        empty = work / "empty"
        empty.mkdir()
        (empty / "audit.key").write_bytes(KEY.hex().encode() + b"\n")
        first_empty = to_ready(empty)
        first_long = to_ready(work / "long")  # builds the index of the whole history, once
        long_s, empty_s = [], []
        for _ in range(args.restarts):  # interleaved, so that the machine's load falls on both alike
            long_s.append(to_ready(work / "long"))
            empty_s.append(to_ready(empty))
    print(json.dumps({
        **history, "history_made_s": round(made_s, 1),
        "first_start_empty_s": round(first_empty, 2), "first_start_long_s (builds the index once)": round(first_long, 2),
        "restart_empty_s": round(statistics.median(empty_s), 2), "restart_long_s": round(statistics.median(long_s), 2),
        "restarts": args.restarts,
        "ratio_long_to_empty (goal <= 1.5)": round(statistics.median(long_s) / statistics.median(empty_s), 3),
    }, indent=1))


if __name__ == "__main__":
    main()
