"""House way: Trump Plaza (Atlantic City), the reference chart.

Follows ``shared/house-ways/trump-plaza-atlantic-city.md`` and its reading
notes; each branch below is one line of the chart and returns that line as
the rule, so a dealer can say why the hand was set so.
"""

from __future__ import annotations

from .shape import ACE, KING, Decision, Shape, pair_class

NAME = "Trump Plaza"


def decide(h: Shape) -> Decision:
    sizes = h.sizes
    if sizes[0] == 5:
        return five_aces(h)
    if h.sf_with_at_most_trips:
        return straight_or_flush(h)
    if sizes[0] == 4:
        return four_of_a_kind(h)
    return pairs_and_trips(h, two_pair)


def pairs_and_trips(h: Shape, two_pair_rule) -> Decision:
    """Everything from two trips down to no pair; the two-pair rule is the house's own."""
    sizes, g = h.sizes, h.groups
    if sizes[:2] == (3, 3):
        return h.group_in_front(g[0], "Three of a kind twice: play the highest pair in front")
    if sizes[:3] == (3, 2, 2):
        return h.group_in_front(g[1], "Full house with three of a kind and two pairs: play the highest pair in front")
    if sizes[:2] == (3, 2):
        return full_house(h)
    if sizes[0] == 3:
        return three_of_a_kind(h)
    if sizes[:3] == (2, 2, 2):
        return h.group_in_front(g[0], "Three pair: play the highest pair in front")
    if sizes[:2] == (2, 2):
        return two_pair_rule(h)
    if sizes[0] == 2:
        return h.highest_in_front([g[0]], "One pair: pair in back, the next two highest cards in front")
    return no_pair(h)


def no_pair(h: Shape) -> Decision:
    ordered = sorted(h.cards, key=h._rank_key, reverse=True)
    return h.decide(
        (ordered[1], ordered[2]), (ordered[0], *ordered[3:]),
        "No pair: highest card in back, the next two highest cards in front",
    )


def three_of_a_kind(h: Shape) -> Decision:
    trips = h.groups[0]
    if trips.rank == ACE:
        return h.ace_and_highest_in_front(
            trips, "Three of a kind, aces: a pair of aces in back and one ace in front")
    return h.highest_in_front([trips], "Three of a kind: play three of a kind in back")


def full_house(h: Shape) -> Decision:
    trips, pair = h.groups[0], h.groups[1]
    if pair.rank == 2 and set(h.single_ranks()) == {ACE, KING}:
        return h.highest_in_front(
            [trips, pair], "Full house with a pair of twos and an ace and a king: keep the full house, ace-king in front")
    return h.group_in_front(pair, "Full house: split, the pair in front")


def two_pair(h: Shape) -> Decision:
    high, low = h.groups[0], h.groups[1]
    pair = f"{pair_class(low.rank)} and {pair_class(high.rank)}"
    if high.rank == ACE:
        return split(h, "Pair of aces and any other pair: always split")
    if (pair_class(low.rank), pair_class(high.rank)) in {("low", "low"), ("low", "medium")}:
        if h.has_single(KING):
            return together(h, f"Two pair, {pair}, holding a king or better: play two pair in back")
        return split(h, f"Two pair, {pair}: split unless holding a king or better")
    if (pair_class(low.rank), pair_class(high.rank)) in {("low", "high"), ("medium", "medium")}:
        if h.has_single(ACE):
            return together(h, f"Two pair, {pair}, holding an ace: play two pair in back")
        return split(h, f"Two pair, {pair}: split unless holding an ace")
    return split(h, f"Two pair, {pair}: always split")


def split(h: Shape, rule: str) -> Decision:
    """The lower pair in front, the higher pair behind."""
    return h.group_in_front(h.groups[1], rule)


def together(h: Shape, rule: str) -> Decision:
    return h.highest_in_front([h.groups[0], h.groups[1]], rule)


def straight_or_flush(h: Shape) -> Decision:
    _, _, back, front = h.played_sf()
    return h.decide(front, back, sf_rule(h, front))


def sf_rule(h: Shape, front: tuple) -> str:
    """Which line of the straights-and-flushes rule set this hand."""
    pair_in_front = h.ev.two(front) >> 20 == 1
    held = {3: "three of a kind", 2: "one pair"}.get(h.sf_largest)
    if held and pair_in_front:
        return f"Straight or flush with {held}: play the pair in front, the straight or flush in back"
    if held:
        return (f"Straight or flush with {held}: no straight or flush stays behind with the pair in front, "
                "so the straight or flush is played behind with the highest front")
    if len(h.sf) > 1:
        return "Straights and flushes: play the one that allows the highest two cards in front"
    return "Straight or flush: play it in back, the other two cards in front"


def four_of_a_kind(h: Shape) -> Decision:
    quads, other = h.groups[0], h.groups[1]
    if other.size == 3:
        return h.group_in_front(other, "Four of a kind and three of a kind: play a pair from the three of a kind in front")
    if other.size == 2:
        return h.group_in_front(other, "Four of a kind and a pair: play the pair in front")
    top = max(h.single_ranks())
    r = quads.rank
    if r <= 6:
        return h.highest_in_front([quads], "Four of a kind, 2 through 6: always keep together")
    if r <= 10:
        if top >= KING:
            return h.highest_in_front([quads], "Four of a kind, 7 through 10, with a king or better for the front: keep together")
        return h.split_quads(quads, "Four of a kind, 7 through 10: split unless a king or better can be played in front")
    if r < ACE:
        if top == ACE:
            return h.highest_in_front([quads], "Four of a kind, jack through king, with an ace for the front: keep together")
        return h.split_quads(quads, "Four of a kind, jack through king: split unless an ace can be played in front")
    return h.split_quads(quads, "Four of a kind, aces: always split")


def five_aces(h: Shape) -> Decision:
    aces, other = h.groups[0], h.groups[1]
    if other.size == 2 and other.rank == KING:
        return h.group_in_front(other, "Five aces with a pair of kings: five aces in back, kings in front")
    return h.group_in_front(aces, "Five aces: three aces in back, two aces in front")
