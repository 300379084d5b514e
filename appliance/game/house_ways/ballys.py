"""House way: Bally's Atlantic City (``shared/house-ways/ballys-atlantic-city.md``).

Where a line is the same as Trump Plaza's, the Trump Plaza branch is used.
"""

from __future__ import annotations

from ..values import ACE_HIGH_STRAIGHT
from ..cards import JOKER_INDEX
from . import trump_plaza
from .shape import ACE, KING, TEN, Decision, Shape

NAME = "Bally's Atlantic City"


def decide(h: Shape) -> Decision:
    sizes = h.sizes
    if sizes[0] == 5:
        return trump_plaza.five_aces(h)
    if h.sf_with_at_most_trips:
        return straight_or_flush(h)
    if sizes[0] == 4:
        return four_of_a_kind(h)
    return trump_plaza.pairs_and_trips(h, trump_plaza.two_pair)


def _ace_high_with_joker(value: int, back: tuple[int, ...]) -> bool:
    return JOKER_INDEX in back and (value & 0xF0000) >> 16 == ACE_HIGH_STRAIGHT and (value >> 20) != 5


def straight_or_flush(h: Shape) -> Decision:
    best = h.played_sf()
    # The joker is an ace where pairs are counted: a natural ace and the joker make a pair of aces.
    aces = next((g for g in h.groups if g.rank == ACE), None)
    if h.joker and aces is not None and aces.size >= 2 and _ace_high_with_joker(best[1], best[2]):
        lower = h.best_sf(lambda fv, bv, back: not _ace_high_with_joker(bv, back))
        if lower is not None:
            return h.decide(lower[3], lower[2],
                            "Ace-high straight with the joker, and a lower straight can be played: play the lower straight")
        return _aces_behind_next_two_in_front(
            h, aces, "Ace-high straight with the joker: play the pair of aces in back, the next two highest cards in front")
    return h.decide(best[3], best[2], trump_plaza.sf_rule(h, best[3]))


def _aces_behind_next_two_in_front(h: Shape, aces, rule: str) -> Decision:
    """A pair of aces behind (natural aces first, so with two natural aces the joker plays in front as an ace)."""
    pair = sorted(aces.cards)[:2]  # the joker sorts last
    others = sorted((c for c in h.cards if c not in pair), key=h._rank_key, reverse=True)
    return h.decide(tuple(others[:2]), (*pair, *others[2:]), rule)


def four_of_a_kind(h: Shape) -> Decision:
    quads, other = h.groups[0], h.groups[1]
    r = quads.rank
    if r == ACE:
        if other.size >= 2 and other.rank == KING:
            return h.group_in_front(other, "Four aces and a pair of kings: kings in front, four aces in back")
        return h.split_quads(quads, "Four aces: always split")
    if other.size >= 2:
        return h.group_in_front(
            other, "Four of a kind with a pair or three of a kind: the pair in front, four of a kind in back")
    if r < TEN:
        return h.highest_in_front([quads], "Four of a kind, twos through nines: never split")
    if max(h.single_ranks()) == ACE:
        return h.highest_in_front(
            [quads], "Four of a kind, tens through kings, with an ace for the front: keep together")
    return h.split_quads(quads, "Four of a kind, tens through kings: split unless an ace can be played in front")
