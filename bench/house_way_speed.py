"""House-way settings and 5-card evaluations per second on one core, against treys in the same run.

The house way must set a hand faster than treys can evaluate the 21 possible backs of
that hand. Both sides get the same joker-free hands, so treys (which has no joker) can
take part. Each house way runs as its Python module and as its chart (config/house_ways/*.toml)
in the same run; "chart_vs_module" is the module's time over the chart's (below 1: the chart is
slower), cold (every rank pattern met for the first time), warm (remembered by rank pattern, as at
a table after a while) and uncached (every hand read through the chart or module, the two timed turn
about: on a shared machine the steadiest of the three).
Run: python bench/house_way_speed.py [--hands N]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from itertools import combinations

from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from appliance.config import chart_file, read_chart
from appliance.game import house_ways
from appliance.game.house_ways import HOUSE_WAYS, _decide, decide
from appliance.game.house_ways.chart import parse_chart
from appliance.game.values import JokerRule, WheelRule, evaluator


def timed(fn, items, repeat: int = 3) -> float:
    """The best of a few runs: the least disturbed by whatever else the machine does."""
    fn(items[:1000])  # warm up
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - start)
    return best


def alternating(fa, fb, items, repeat: int = 5) -> tuple[float, float]:
    """The best of a few runs of each, the two taken turn about: on a shared machine a burst of load
    then falls on both alike, which the ratio of two separate timings does not promise."""
    fa(items[:1000])
    fb(items[:1000])
    best_a = best_b = float("inf")
    for _ in range(repeat):
        for fn, which in ((fa, "a"), (fb, "b")):
            gc.collect()
            start = time.perf_counter()
            fn(items)
            took = time.perf_counter() - start
            if which == "a":
                best_a = min(best_a, took)
            else:
                best_b = min(best_b, took)
    return best_a, best_b


def _set_all(items, way, ev) -> None:
    for hand in items:
        decide(hand, way, ev)


def _set_all_uncached(items, way, ev) -> None:
    for hand in items:
        _decide(hand, way, ev)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(args.hands)]
    ev = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
    treys = TreysEvaluator()
    codes = [TreysCard.new(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    treys_hands = [[codes[c] for c in hand] for hand in hands]
    backs = [back for hand in hands[: args.hands // 4] for back in combinations(hand, 5)]
    treys_backs = [[codes[c] for c in back] for back in backs]

    def treys_21(items):
        evaluate = treys.evaluate
        for hand in items:
            for back in combinations(hand, 5):
                evaluate(list(back), [])

    def treys_five(items):
        evaluate = treys.evaluate
        for back in items:
            evaluate(back, [])

    def ours_five(items):
        five = ev.five
        for back in items:
            five(back)

    report = {"hands": args.hands, "five_card_hands": len(backs)}
    treys_time = timed(treys_21, treys_hands)
    report["treys_21_backs_hands_per_s"] = round(args.hands / treys_time)
    sorted_hands = [tuple(sorted(hand)) for hand in hands]
    for name in HOUSE_WAYS:
        chart = parse_chart(read_chart(chart_file(name)), name)
        times = {}
        for label, way in ((name, name), (f"{name}_chart", chart)):
            # Cold: every rank pattern met for the first time; warm: as at a table after a while.
            house_ways._BY_RANKS.clear()
            gc.collect()
            start = time.perf_counter()
            _set_all(hands, way, ev)
            cold = time.perf_counter() - start
            warm = timed(lambda items, way=way: _set_all(items, way, ev), hands)
            times[label] = (cold, warm)
            report[f"{label}_settings_per_s_cold"] = round(args.hands / cold)
            report[f"{label}_settings_per_s_warm"] = round(args.hands / warm)
            report[f"{label}_vs_treys_21_backs_cold"] = round(treys_time / cold, 2)
            report[f"{label}_vs_treys_21_backs_warm"] = round(treys_time / warm, 2)
        for i, kind in enumerate(("cold", "warm")):
            report[f"{name}_chart_vs_module_{kind}"] = round(times[name][i] / times[f"{name}_chart"][i], 2)
        module_t, chart_t = alternating(lambda items, way=name: _set_all_uncached(items, way, ev),
                                        lambda items, way=chart: _set_all_uncached(items, way, ev), sorted_hands)
        report[f"{name}_settings_per_s_uncached"] = round(args.hands / module_t)
        report[f"{name}_chart_settings_per_s_uncached"] = round(args.hands / chart_t)
        report[f"{name}_chart_vs_module_uncached"] = round(module_t / chart_t, 2)
    t_ours, t_treys = timed(ours_five, backs), timed(treys_five, treys_backs)
    report["five_card_evals_per_s"] = round(len(backs) / t_ours)
    report["treys_five_card_evals_per_s"] = round(len(backs) / t_treys)
    report["five_card_vs_treys"] = round(t_treys / t_ours, 2)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
