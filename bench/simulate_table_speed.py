"""simulate-table rounds per second, with the renderer and the reader and without them (a perfect
eye), through the same round engine and audit log, in the same run.
Run: python bench/simulate_table_speed.py [--rounds 200] [--rendered-rounds 10]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.table.simulation import play_rounds


def timed(rounds: int, render: bool) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as folder:
        audit = AuditLog(Path(folder), b"k" * 64)
        start = time.perf_counter()
        totals = play_rounds(load_house("general"), audit, rounds, seed=1, render=render)
        return rounds / (time.perf_counter() - start), totals


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--rendered-rounds", type=int, default=10)
    args = parser.parse_args()
    plain, _ = timed(args.rounds, False)
    rendered, totals = timed(args.rendered_rounds, True)
    print(json.dumps({
        "rounds_per_s_without_renderer": round(plain, 2),
        "rounds_per_s_with_renderer": round(rendered, 3),
        "renderer_cost_ratio": round(plain / rendered, 1),
        "reads_confirmed_by_the_dealer": totals["confirmed_reads"],
    }, indent=1))


if __name__ == "__main__":
    main()
