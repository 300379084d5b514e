"""Every house way over every rank pattern, with and without the joker, under every house's card rules.

A rank pattern is seven ranks (each at most four times; with the joker, six ranks and the
joker). Each is dealt twice: suits spread so that no flush can be made, and suits packed so
that the most cards share a suit (a flush wherever the ranks allow one). The counts: settings,
fouls (must be 0), and repairs (a chart line amended because a wild joker made its front
outrank its back; 0 under the bug joker, where a repair raises ChartFoulError).
Run: python bench/house_way_fouls.py [--every N]   (N > 1: every Nth pattern, for a quick check)
"""

from __future__ import annotations

import argparse
import json
import time

from appliance.config import load_all_houses
from appliance.game.house_ways import HOUSE_WAYS, ChartFoulError, decide
from appliance.game.house_ways.patterns import deals, rank_patterns


def check(every: int = 1) -> dict:
    houses = load_all_houses()
    rules = sorted({(h.joker, h.wheel, h.equal_pair_behind_fouls): h.evaluator() for h in houses.values()}.items(),
                   key=lambda item: str(item[0]))
    patterns = list(rank_patterns(every))
    out = {"patterns": len(patterns), "rules": []}
    for (joker, wheel, strict), ev in rules:
        for way in HOUSE_WAYS:
            settings = fouls = repairs = chart_fouls = 0
            started = time.perf_counter()
            for ranks, with_joker in patterns:
                for hand in deals(ranks, with_joker):
                    settings += 1
                    try:
                        _, _, fv, bv, rule = decide(hand, way, ev)
                    except ChartFoulError:
                        chart_fouls += 1
                        continue
                    fouls += ev.fouls(fv, bv)
                    repairs += rule.startswith("Amended chart line")
            out["rules"].append({"joker": joker.value, "wheel": wheel.value, "equal_pair_behind_fouls": strict,
                                 "way": way, "settings": settings, "fouls": fouls, "repairs": repairs,
                                 "chart_fouls": chart_fouls, "seconds": round(time.perf_counter() - started, 2)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1)
    print(json.dumps(check(parser.parse_args().every), indent=1))


if __name__ == "__main__":
    main()
