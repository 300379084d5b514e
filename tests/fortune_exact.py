"""Exact Fortune category counts over all C(53, 7) hands, by rank pattern and suit structure.

A hand with no five cards of a suit (four with the joker) is valued by its ranks
alone, so one representative per rank multiset stands for all its suit
assignments. A hand with a flush has exactly one flush suit; those hands are
enumerated as the flush suit's ranks plus at most two other cards, whose suits
matter only in whether they share one (a royal match).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement
from math import comb, prod

from appliance.game.cards import JOKER_INDEX
from appliance.game.fortune import fortune_category
from appliance.game.values import Evaluator


def _multisets(size: int, cap: int):
    for combo in combinations_with_replacement(range(13), size):
        counts = Counter(combo)
        if max(counts.values(), default=0) <= cap:
            yield combo, counts


def _cards(rank_suits) -> list[int]:
    return [rank * 4 + suit for rank, suit in rank_suits]


def _other_suits(ranks: tuple[int, ...]):
    """(cards, ways) for up to two cards of the given ranks in the three non-flush suits."""
    if len(ranks) == 0:
        return [([], 1)]
    if len(ranks) == 1:
        return [(_cards([(ranks[0], 1)]), 3)]
    a, b = ranks
    if a == b:
        return [(_cards([(a, 1), (a, 2)]), 3)]
    return [(_cards([(a, 1), (b, 1)]), 3), (_cards([(a, 1), (b, 2)]), 6)]


def exact_counts(ev: Evaluator) -> Counter:
    result: Counter = Counter()
    for joker in (False, True):
        naturals = 7 - joker
        extra = [JOKER_INDEX] if joker else []
        flush_ways: Counter = Counter()
        for k in range(5 - joker, naturals + 1):
            for suited in combinations(range(13), k):
                for others, _ in _multisets(naturals - k, 3):
                    for other_cards, ways in _other_suits(others):
                        hand = _cards((r, 0) for r in suited) + other_cards
                        result[fortune_category(hand + extra, ev)] += 4 * ways
                        flush_ways[tuple(sorted(suited + others))] += 4 * ways
        for ranks, counts in _multisets(naturals, 4):
            ways = prod(comb(4, c) for c in counts.values()) - flush_ways[ranks]
            if ways:
                hand = [rank * 4 + i % 4 for i, rank in enumerate(ranks)]
                result[fortune_category(hand + extra, ev)] += ways
    return result
