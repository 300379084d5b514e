"""Heads-up simulation: a player and the banker, both set by the house way, over many random hands.

Hands are dealt in chunks, each from its own seeded generator, so a run with a
given seed gives the same figures whatever the number of workers.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from decimal import Decimal

from .game.house_ways import HouseWay, decide, way_name
from .game.rules import CommissionKind, HouseRules
from .game.values import CATEGORY_SHIFT, evaluator

CHUNK = 20_000
_RANKS = "23456789TJQKA"


@dataclass(frozen=True)
class Job:
    joker: object
    wheel: object
    equal_pair_behind_fouls: bool
    way: HouseWay
    seed: int
    chunk: int
    hands: int


def _front_label(value: int) -> str:
    high, low = (value >> 16) & 15, (value >> 12) & 15
    if value >> CATEGORY_SHIFT:
        return f"{_RANKS[high - 2]}-{_RANKS[high - 2]}"
    return f"{_RANKS[high - 2]}-{_RANKS[low - 2]}"


def run_chunk(job: Job) -> Counter:
    ev = evaluator(job.joker, job.wheel, job.equal_pair_behind_fouls)
    rng = random.Random(f"{job.seed}:{job.chunk}")
    deck = list(range(53))
    tally: Counter = Counter()
    banker_fronts: Counter = Counter()
    sample, way = rng.sample, job.way
    for _ in range(job.hands):
        dealt = sample(deck, 14)
        _, _, pf, pb, _ = decide(dealt[:7], way, ev)
        _, _, bf, bb, _ = decide(dealt[7:], way, ev)
        banker_fronts[bf] += 1
        if ev.fouls(pf, pb) or ev.fouls(bf, bb):
            tally["fouls"] += 1
        front_win, back_win = pf > bf, pb > bb
        tally["front_copies"] += pf == bf
        tally["back_copies"] += pb == bb
        tally[("loss", "push", "win")[front_win + back_win]] += 1
    for value, count in banker_fronts.items():
        tally["front " + _front_label(value)] += count
    return tally


def simulate(rules: HouseRules, hands: int, seed: int = 1, workers: int = 1, way: HouseWay | None = None) -> dict:
    way = way or rules.way
    jobs = [Job(rules.joker, rules.wheel, rules.equal_pair_behind_fouls, way, seed, i, min(CHUNK, hands - start))
            for i, start in enumerate(range(0, hands, CHUNK))]
    total: Counter = Counter()
    workers = min(workers, len(jobs))  # a process per job at most
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            for tally in pool.map(run_chunk, jobs):
                total.update(tally)
    else:
        for job in jobs:
            total.update(run_chunk(job))
    return summarize(total, hands, rules, way, seed)


def _rate(count: int, n: int) -> dict:
    p = count / n
    return {"count": count, "rate": p, "se": math.sqrt(p * (1 - p) / n)}


def summarize(total: Counter, n: int, rules: HouseRules, way: HouseWay, seed: int) -> dict:
    c = rules.commission
    keep = 1 - (c.percent / 100 if c.kind is CommissionKind.PERCENT else Decimal(0))
    win, push, loss = total["win"], total["push"], total["loss"]
    # Per-hand player result: +keep on a win, 0 on a push, -1 on a loss (a statistic, not money).
    mean = (float(keep) * win - loss) / n
    second = (float(keep) ** 2 * win + loss) / n
    se = math.sqrt(max(second - mean * mean, 0) / n)
    return {
        "house": rules.key,
        "house_way": way_name(way),
        "hands": n,
        "seed": seed,
        "player_win": _rate(win, n),
        "push": _rate(push, n),
        "banker_win": _rate(loss, n),
        "front_copies": _rate(total["front_copies"], n),
        "back_copies": _rate(total["back_copies"], n),
        "fouls": total["fouls"],
        "commission_percent": str(c.percent) if c.kind is CommissionKind.PERCENT else "0",
        "house_edge": {"value": -mean, "se": se},
        "banker_fronts": {key[6:]: _rate(v, n) for key, v in sorted(total.items()) if isinstance(key, str) and key.startswith("front ")},
    }
