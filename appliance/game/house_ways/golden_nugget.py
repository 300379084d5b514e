"""House way: Golden Nugget (Las Vegas) (``shared/house-ways/golden-nugget-las-vegas.md``).

Where a line is the same as Trump Plaza's, the Trump Plaza branch is used.
"""

from __future__ import annotations

from ..values import ACE_HIGH_STRAIGHT, Category, pack
from . import trump_plaza
from .shape import ACE, JACK, KING, Decision, Shape, pair_class

NAME = "Golden Nugget"

_JACK_HIGH = pack(Category.HIGH_CARD, JACK)
_KING_HIGH = pack(Category.HIGH_CARD, KING)


def decide(h: Shape) -> Decision:
    sizes = h.sizes
    if sizes[0] == 5:
        return five_aces(h)
    if h.sf_with_at_most_trips:
        return straight_or_flush(h)
    if h.sf and sizes[:3] == (2, 2, 1) and not _two_pair_over_sf(h):
        _, _, back, front = h.played_sf()
        return h.decide(front, back, "Straight or flush with two pair: play the straight or flush in back")
    if sizes[0] == 4:
        return four_of_a_kind(h)
    return trump_plaza.pairs_and_trips(h, two_pair)


def _two_pair_over_sf(h: Shape) -> bool:
    """The chart's exceptions that play a straight or flush hand as two pair."""
    high, low = h.groups[0], h.groups[1]
    # "Pair of jacks and pair of 6's" is read as jacks or better with sixes or better.
    return h.has_single(ACE) or high.rank == ACE or (high.rank >= JACK and low.rank >= 6)


def two_pair(h: Shape) -> Decision:
    high, low = h.groups[0], h.groups[1]
    pair = f"{pair_class(low.rank)} and {pair_class(high.rank)}"
    if high.rank == ACE:
        return trump_plaza.split(h, "Pair of aces and any other pair: split")
    ace = h.has_single(ACE)
    if high.rank >= 7 and not ace:
        return trump_plaza.split(h, f"Two pair, {pair}: one pair is sevens or better and no ace singleton: split")
    if high.rank >= JACK and low.rank >= 6 and ace:
        return trump_plaza.split(h, f"Two pair, {pair}: jacks or better and sixes or better with an ace: split")
    return trump_plaza.together(h, f"Two pair, {pair}: play two pair in back")


_SIX_OR_SEVEN = "with a six or seven card straight or flush put the highest hand possible in front"


def straight_or_flush(h: Shape) -> Decision:
    """Where a straight flush could be given up for a higher front, two lines apply: the six-or-seven
    card line (the highest front) and the straight-flush line (give it up to bring the front to jack,
    king for a royal, or better). The straight-flush line wins: it is the one written for hands
    holding a straight flush, so a higher front below jack does not break it. Both are named."""
    best = h.played_sf()
    best_sf = h.best_sf(lambda fv, bv, back: bv >> 20 == Category.STRAIGHT_FLUSH)
    if best_sf is not None and best_sf[0] < best[0]:
        royal = (best_sf[1] >> 16) & 15 == ACE_HIGH_STRAIGHT
        needed = _KING_HIGH if royal else _JACK_HIGH
        if best[0] < needed:
            what = "royal flush" if royal else "straight flush"
            return h.decide(best_sf[3], best_sf[2],
                            f"Play the {what}: a straight or flush would not bring the front to "
                            f"{'king' if royal else 'jack'} or better (this line wins over \"{_SIX_OR_SEVEN}\")")
        what = "royal flush to improve the front to king" if royal else "straight flush to improve the front to jack"
        return h.decide(best[3], best[2], f"Play the straight or flush over the {what} or better "
                                          f"(and \"{_SIX_OR_SEVEN}\")")
    return h.decide(best[3], best[2], trump_plaza.sf_rule(h, best[3]))


def four_of_a_kind(h: Shape) -> Decision:
    quads, other = h.groups[0], h.groups[1]
    r = quads.rank
    pair = other.rank if other.size >= 2 else 0
    if r <= 6:
        return _together(h, "Four of a kind, 2 through 6: always together")
    if r <= 10:
        if pair or h.has_single(ACE):
            return _together(h, "Four of a kind, 7 through 10, with an ace or better for the front: together")
        return h.split_quads(quads, "Four of a kind, 7 through 10: split unless an ace or better can be played in front")
    if r < ACE:
        if pair >= 10:
            return _together(h, "Four of a kind, jack through king, with a pair of tens or higher: together")
        return h.split_quads(quads, "Four of a kind, jack through king: split unless the hand holds a pair of tens or higher")
    if pair >= 7:
        return _together(h, "Four aces with a pair of sevens or higher for the front: together")
    return h.split_quads(quads, "Four aces: split unless a pair of sevens or higher can be played in front")


def _together(h: Shape, rule: str) -> Decision:
    other = h.groups[1]
    if other.size >= 2:
        return h.group_in_front(other, rule + ", the pair in front")
    return h.highest_in_front([h.groups[0]], rule)


def five_aces(h: Shape) -> Decision:
    aces, other = h.groups[0], h.groups[1]
    if other.size == 2 and other.rank == KING:
        return h.group_in_front(other, "Five aces with a pair of kings: kings in front, five aces in back")
    return h.group_in_front(aces, "Five aces: split, two aces in front")
