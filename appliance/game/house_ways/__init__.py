"""House ways: how the dealer sets seven cards, with the rule that decided it.

>>> from appliance.game.values import evaluator, JokerRule, WheelRule
>>> ev = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
>>> s = set_by_house_way(parse_cards("Ah Kd 9c 9s 5h 5d 2c"), "trump-plaza", ev)
>>> s.rule
'Two pair, low and medium, holding a king or better: play two pair in back'
>>> format_cards(s.front), format_cards(s.back)
(['Ah', 'Kd'], ['9s', '9c', '5h', '5d', '2c'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter

from ..cards import JOKER_INDEX, Card, card, check_unique, format_cards, parse_cards  # noqa: F401  (doctest)
from ..setting import SPLITS
from ..values import Evaluator, JokerRule
from . import ballys, golden_nugget, trump_plaza
from .chart import Chart
from .shape import Decision, Shape

HOUSE_WAYS = {
    "trump-plaza": trump_plaza,
    "ballys": ballys,
    "golden-nugget": golden_nugget,
}


#: What sets a hand: a house way module's name (``"trump-plaza"``) or a chart read from data.
HouseWay = str | Chart


def way_name(way: HouseWay) -> str:
    """The name a setting and a message give the house way."""
    return way.name if isinstance(way, Chart) else way


class UnknownHouseWayError(ValueError):
    """A house way name that is not implemented."""


class ChartFoulError(AssertionError):
    """A chart line that fouled a hand under the joker the charts are written for (never expected)."""


class HandSizeError(ValueError):
    """A hand to be set that does not hold exactly seven cards."""


@dataclass(frozen=True)
class HouseWaySetting:
    """Seven cards set by a house way, with the rule that set them."""

    way: str
    hand: tuple[Card, ...]
    front: tuple[Card, Card]
    back: tuple[Card, ...]
    front_value: int
    back_value: int
    rule: str

    def to_json(self, ev: Evaluator) -> dict:
        return {
            "hand": format_cards(self.hand),
            "front": format_cards(self.front),
            "back": format_cards(self.back),
            "front_value": ev.name(self.front_value),
            "back_value": ev.name(self.back_value),
            "rule": self.rule,
        }


# Seven cards in which no flush can be made are set by their ranks alone: the charts read
# ranks, values are rank-only, and among equal settings the first in card order is taken.
# So such a hand's setting is remembered by its rank pattern (at most 67,000 patterns) as
# the positions of the front cards in the sorted hand, its values and its rule.
_BY_RANKS: dict[tuple, dict[tuple[int, ...], tuple]] = {}
_BACK_OF = {front: itemgetter(*(i for i in range(7) if i not in front)) for front in combinations(range(7), 2)}


def decide(cards: Sequence[int], way: HouseWay, ev: Evaluator) -> tuple[tuple[int, int], tuple[int, ...], int, int, str]:
    """The fast path for simulations: (front, back, front value, back value, rule), no checks."""
    cards = tuple(sorted(cards))
    joker = cards[-1] == JOKER_INDEX
    suits = [c & 3 for c in (cards[:-1] if joker else cards)]
    if max(suits.count(0), suits.count(1), suits.count(2), suits.count(3)) + joker >= 5:
        return _decide(cards, way, ev)
    memo = _BY_RANKS.get((ev, way))
    if memo is None:
        memo = _BY_RANKS[(ev, way)] = {}
    pattern = tuple([c >> 2 for c in cards])
    known = memo.get(pattern)
    if known is None:
        front, _, fv, bv, rule = _decide(cards, way, ev)
        known = memo[pattern] = ((cards.index(front[0]), cards.index(front[1])), fv, bv, rule)
    (i, j), fv, bv, rule = known
    return (cards[i], cards[j]), _BACK_OF[(i, j) if i < j else (j, i)](cards), fv, bv, rule


def _decide(cards: tuple[int, ...], way: HouseWay, ev: Evaluator) -> tuple[tuple[int, int], tuple[int, ...], int, int, str]:
    shape = Shape(cards, ev)
    d = (way if isinstance(way, Chart) else HOUSE_WAYS[way]).decide(shape)
    fv, bv = ev.two(d.front), ev.five(d.back)
    if ev.fouls(fv, bv):
        if ev.joker is not JokerRule.WILD:
            # The charts are written for the bug: a fouled setting there is a bug in the chart's code.
            raise ChartFoulError(f"house way {way_name(way)!r} fouled {format_cards(cards)} by its line {d.rule!r}")
        d, fv, bv = _keep_back_higher(shape.cards, d, ev)
    return d.front, d.back, fv, bv, d.rule


def house_way_split(cards: Sequence[int | str], way: HouseWay,
                    ev: Evaluator) -> tuple[tuple[int, int], tuple[int, ...], int, int, str]:
    """``decide``, checked: the way is known, and the hand is seven cards, none twice. The round, the
    hints and ``set_by_house_way`` set hands through it; only simulations take ``decide`` unchecked.

    >>> from appliance.game.values import evaluator, JokerRule, WheelRule
    >>> ev = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
    >>> front, back, _, _, rule = house_way_split(["Ah", "Kd", "9c", "9s", "5h", "5d", "2c"], "trump-plaza", ev)
    >>> format_cards(front), format_cards(back)
    (['Ah', 'Kd'], ['2c', '5d', '5h', '9c', '9s'])
    >>> house_way_split(["Ah", "Ah", "9c", "9s", "5h", "5d", "2c"], "trump-plaza", ev)
    Traceback (most recent call last):
    ...
    appliance.game.cards.DuplicateCardError: card Ah appears twice in the hand
    """
    if not isinstance(way, Chart) and way not in HOUSE_WAYS:
        raise UnknownHouseWayError(f"unknown house way {way!r}: expected one of {', '.join(HOUSE_WAYS)}")
    hand = tuple(card(c) for c in cards)
    if len(hand) != 7:
        raise HandSizeError(f"the house way sets exactly 7 cards, got {len(hand)}")
    check_unique(hand, " in the hand")
    return decide(hand, way, ev)


def set_by_house_way(cards: Sequence[int | str], way: HouseWay, ev: Evaluator) -> HouseWaySetting:
    """Set seven cards by the named house way, or by a chart; the result is never fouled."""
    hand = tuple(card(c) for c in cards)
    front, back, fv, bv, rule = house_way_split(hand, way, ev)
    # Shown high to low (the joker first), as a dealer lays the cards out.
    high, low = sorted(front, reverse=True)
    shown_front = (card(high), card(low))
    shown_back = tuple(card(c) for c in sorted(back, reverse=True))
    return HouseWaySetting(way_name(way), hand, shown_front, shown_back, fv, bv, rule)


def _keep_back_higher(cards: tuple[int, ...], d: Decision, ev: Evaluator) -> tuple[Decision, int, int]:
    """A wild joker can make a chart's front outrank its back (the charts are written for the
    bug): then the highest front that keeps the back higher is played, then the highest back,
    and the rule names the chart line it amends."""
    legal: list[tuple[int, int, tuple[int, int], tuple[int, ...]]] = []
    for back_pos, (f1, f2) in SPLITS:
        front, back = (cards[f1], cards[f2]), tuple(cards[i] for i in back_pos)
        fv, bv = ev.two(front), ev.five(back)
        if not ev.fouls(fv, bv):
            legal.append((fv, bv, front, back))
    # max keeps the first of equal settings, in the order of SPLITS.
    fv, bv, front, back = max(legal, key=lambda option: (option[0], option[1]))
    rule = (f"Amended chart line \"{d.rule}\": the wild joker made its front outrank its back, "
            "so the highest legal front is played")
    return Decision(front, back, rule), fv, bv
