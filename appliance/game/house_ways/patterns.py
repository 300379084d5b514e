"""Every rank pattern of seven cards, each dealt twice: the sweep that proves a house way.

A rank pattern is seven ranks (each at most four times) or six ranks and the joker: 67,600 in all.
Each is dealt with suits spread, so that no flush can be made, and with suits packed, so that the
most cards share a suit (a flush wherever the ranks allow one). A house way reads ranks, and suits
only for flushes, so these two deals show every line a pattern can reach.

>>> sum(1 for _ in rank_patterns())
67600
>>> from appliance.game.cards import format_cards
>>> [format_cards(hand) for hand in deals((0, 0, 1, 2, 3, 4, 12), False)]
[['2c', '2h', '3h', '4s', '5c', '6d', 'Ah'], ['2c', '2d', '3c', '4c', '5c', '6c', 'Ac']]
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations_with_replacement

from ..cards import JOKER_INDEX

PATTERNS = 67_600


def rank_patterns(every: int = 1) -> Iterator[tuple[tuple[int, ...], bool]]:
    """(ranks 0-12 with repeats, joker?) for every legal pattern, every ``every``-th one."""
    k = 0
    for joker in (False, True):
        for ranks in combinations_with_replacement(range(13), 6 if joker else 7):
            if max(ranks.count(r) for r in set(ranks)) <= 4:
                if k % every == 0:
                    yield ranks, joker
                k += 1


def deals(ranks: tuple[int, ...], joker: bool) -> list[tuple[int, ...]]:
    """The pattern dealt with suits spread, and with suits packed into one suit where the ranks allow."""
    spread: list[int] = []
    packed: list[int] = []
    used: dict[int, int] = {}
    for r in ranks:
        n = used.get(r, 0)
        used[r] = n + 1
        spread.append(4 * r + (len(spread) + n) % 4)
        packed.append(4 * r + n)  # a rank's first card is a club: every distinct rank shares suit 0
    hands = [spread, packed]
    for hand in hands:
        if len(set(hand)) != len(hand):  # spread collided on a suit: move it to a free suit
            seen = set()
            for i, c in enumerate(hand):
                while c in seen:
                    c = 4 * (c >> 2) + ((c & 3) + 1) % 4
                hand[i] = c
                seen.add(c)
    return [tuple(h + [JOKER_INDEX]) if joker else tuple(h) for h in hands]


def every_deal(every: int = 1) -> Iterator[tuple[int, ...]]:
    """Both deals of every ``every``-th pattern, each sorted (as a house way sorts the cards it reads)."""
    for ranks, joker in rank_patterns(every):
        for hand in deals(ranks, joker):
            yield tuple(sorted(hand))
