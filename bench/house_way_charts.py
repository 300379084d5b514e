"""The charts in config/house_ways/ against the house way modules they replace: every rank pattern, every rule.

Both deals of every rank pattern (67,600 patterns, 135,200 hands; see
appliance/game/house_ways/patterns.py) are set by the module and by its chart under every
joker rule, wheel rule and same-pair foul rule a house file can name (8 in all), and the
front, back, values and rule text compared. Also the load-time proof of each chart (the
sweep for fouls under the general house's rules) and its time.
Run: python bench/house_way_charts.py [--every N] [--way NAME]   (N > 1: every Nth pattern)
"""

from __future__ import annotations

import argparse
import json
import time

from appliance.config import chart_file, read_chart
from appliance.game.house_ways import HOUSE_WAYS, _decide
from appliance.game.house_ways.chart_check import _PROVEN, check_chart, load_chart
from appliance.game.house_ways.patterns import every_deal
from appliance.game.values import JokerRule, WheelRule, evaluator

ALL_EVALUATORS = [evaluator(j, w, strict) for j in JokerRule for w in WheelRule for strict in (False, True)]


def compare(way: str, every: int = 1) -> dict:
    path = chart_file(way)
    general = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST, True)
    chart = load_chart(read_chart(path), str(path), general)
    _PROVEN.clear()
    proof = check_chart(chart, general)
    hands = list(every_deal(every))
    out = {"way": way, "chart": str(path), "hands": len(hands), "load_check_seconds": proof.seconds, "rules": []}
    for ev in ALL_EVALUATORS:
        same = differ = 0
        first = None
        module_s = chart_s = 0.0
        for hand in hands:
            t0 = time.perf_counter()
            a = _decide(hand, way, ev)
            t1 = time.perf_counter()
            b = _decide(hand, chart, ev)
            chart_s += time.perf_counter() - t1
            module_s += t1 - t0
            if (sorted(a[0]), sorted(a[1]), a[2], a[3], a[4]) == (sorted(b[0]), sorted(b[1]), b[2], b[3], b[4]):
                same += 1
            else:
                differ += 1
                first = first or {"hand": hand, "module": a, "chart": b}
        out["rules"].append({"joker": ev.joker.value, "wheel": ev.wheel.value,
                             "equal_pair_behind_fouls": ev.equal_pair_behind_fouls, "identical": same,
                             "different": differ, "first_difference": first,
                             "module_seconds": round(module_s, 2), "chart_seconds": round(chart_s, 2)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--way", choices=list(HOUSE_WAYS))
    args = parser.parse_args()
    started = time.perf_counter()
    report = [compare(way, args.every) for way in ([args.way] if args.way else HOUSE_WAYS)]
    print(json.dumps({"ways": report, "seconds": round(time.perf_counter() - started, 1)}, indent=1, default=str))


if __name__ == "__main__":
    main()
