"""`appliance simulate` with Trump Plaza on both sides: speed, and the published figures.

Prints hands per second with the given workers (the goal: 2,000,000 hands in under
3 minutes on a 2-core machine), a one-worker run of the same hands as the baseline,
and how far win/push/loss and the banker's front-hand counts are from the figures
published in shared/house-ways/trump-plaza-atlantic-city.md, in standard errors.
Run: python bench/simulate_figures.py [--hands 2000000] [--workers 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import math
import time

from appliance.config import load_house
from appliance.simulate import simulate

PUBLISHED_OUTCOMES = {"player_win": 0.2855, "push": 0.4147, "banker_win": 0.2998}
ALL_HANDS = 154_143_080
PUBLISHED_FRONTS = {
    "3-2": 221_460, "4-2": 203_436, "4-3": 188_708, "5-2": 183_192, "5-3": 170_756, "5-4": 163_256,
    "6-2": 165_882, "6-3": 153_212, "6-4": 147_932, "6-5": 146_594, "7-2": 157_212, "7-3": 153_030,
    "7-4": 148_574, "7-5": 187_184, "7-6": 272_000, "8-2": 148_254, "8-3": 138_024, "8-4": 142_064,
    "8-5": 181_434, "8-6": 306_278, "8-7": 842_290, "9-2": 149_448,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline-hands", type=int, default=500_000, help="one-worker run for the speed ratio")
    args = parser.parse_args()
    rules = load_house("general")  # 5% commission, bug joker, A-2-3-4-5 second-highest

    start = time.perf_counter()
    simulate(rules, args.baseline_hands, seed=args.seed + 1, workers=1, way="trump-plaza")
    one_worker = args.baseline_hands / (time.perf_counter() - start)
    start = time.perf_counter()
    result = simulate(rules, args.hands, seed=args.seed, workers=args.workers, way="trump-plaza")
    elapsed = time.perf_counter() - start

    n = result["hands"]
    outcomes = {
        key: {"rate": round(result[key]["rate"], 5), "published": p,
              "z": round((result[key]["rate"] - p) / math.sqrt(p * (1 - p) / n), 2)}
        for key, p in PUBLISHED_OUTCOMES.items()
    }
    fronts = {}
    for label, count in PUBLISHED_FRONTS.items():
        p = count / ALL_HANDS
        got = result["banker_fronts"].get(label, {"count": 0})["count"]
        fronts[label] = {"count_scaled": round(got / n * ALL_HANDS), "published": count,
                         "z": round((got - p * n) / math.sqrt(p * (1 - p) * n), 2)}
    print(json.dumps({
        "hands": n, "workers": args.workers, "seconds": round(elapsed, 1),
        "hands_per_s": round(n / elapsed), "one_worker_hands_per_s": round(one_worker),
        "speedup_vs_one_worker": round(n / elapsed / one_worker, 2),
        "projected_seconds_for_2M": round(2_000_000 / (n / elapsed), 1),
        "fouls": result["fouls"], "house_edge": result["house_edge"],
        "outcomes": outcomes, "fronts_within_3_se": sum(abs(f["z"]) <= 3 for f in fronts.values()),
        "fronts": fronts,
    }, indent=1))


if __name__ == "__main__":
    main()
