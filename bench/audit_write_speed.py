"""Audit records per second with fsync (as the appliance writes them) against a plain append
without fsync, in the same run, on this machine's disk.
Run: python bench/audit_write_speed.py [--records N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from appliance.audit.log import AuditLog, canonical


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=2000)
    args = parser.parse_args()
    data = {"round": 1, "seat": 3, "result": "win", "won": "25.00", "commission": "1.25"}
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "plain.jsonl"
        start = time.perf_counter()
        with open(plain, "ab") as handle:
            for i in range(args.records):
                handle.write(canonical({"seq": i, "event": "RoundSettled", "data": data}) + b"\n")
        plain_s = time.perf_counter() - start
        log = AuditLog(Path(folder) / "log", b"k" * 64)
        start = time.perf_counter()
        for _ in range(args.records):
            log.append("RoundSettled", data)
        audit_s = time.perf_counter() - start
    print(json.dumps({
        "records": args.records,
        "plain_append_per_s": round(args.records / plain_s),
        "chained_signed_fsynced_per_s": round(args.records / audit_s),
        "ratio": round(plain_s / audit_s, 4),
    }, indent=1))


if __name__ == "__main__":
    main()
