"""Hand values: 5-card back hands and 2-card front hands, under each joker and wheel rule.

A value is an ``int`` (a :class:`HandValue`) that orders hands: a bigger value
is a better hand, equal values are a copy. Front and back values share one
scale, so a setting is fouled exactly when ``front > back``.

Layout of a value: ``category << 20`` then five 4-bit rank slots, highest
first. Straights keep one slot, the straight's order: its top card, except
that an ace-high straight is 15 and the wheel (A-2-3-4-5) is 14 when it is
the second-highest straight and 5 when it is the lowest.

>>> ev = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
>>> ev.name(ev.five(parse_cards("Qs Qh Qd 7c 2h")))
'Three of a kind, queens'
>>> ev.name(ev.five(parse_cards("Ah 2h 3c 4d Jk")))
'Straight, five high (A-2-3-4-5)'
>>> ev.name(ev.two(parse_cards("Jk Kd")))
'Ace, king'
>>> wild = evaluator(JokerRule.WILD, WheelRule.SECOND_HIGHEST)
>>> wild.name(wild.two(parse_cards("Jk Kd")))
'Pair of kings'
"""

from __future__ import annotations

import copy
import enum
from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement

from .cards import RANK_NAMES, RANK_PLURALS, parse_cards  # noqa: F401  (doctest)


class JokerRule(enum.Enum):
    """How the joker plays."""

    #: An ace, or any card that completes a straight, flush or straight flush.
    BUG = "bug"
    #: Any card; five of a kind is possible, and in the front it pairs the other card.
    WILD = "wild"


class WheelRule(enum.Enum):
    """Where A-2-3-4-5 ranks among straights and straight flushes."""

    SECOND_HIGHEST = "second-highest"
    LOWEST = "lowest"


class Category(enum.IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9


CATEGORY_SHIFT = 20
ACE_HIGH_STRAIGHT = 15
_WHEEL = (14, 5, 4, 3, 2)
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_JOKER_PRIME = 43

#: Per card index: the prime of its rank (the joker has its own) and its suit bit (the joker 0).
PRIME = tuple(_PRIMES[i >> 2] for i in range(52)) + (_JOKER_PRIME,)
SUIT_BIT = tuple(1 << (i & 3) for i in range(52)) + (0,)


class HandValue(int):
    """A hand's value; ``int`` ordering is hand ordering."""

    __slots__ = ()

    @property
    def category(self) -> Category:
        return Category(self >> CATEGORY_SHIFT)

    @property
    def slots(self) -> tuple[int, ...]:
        """The five rank slots, highest first (zeros where a 2-card hand has no card)."""
        return tuple((self >> shift) & 15 for shift in (16, 12, 8, 4, 0))

    def __repr__(self) -> str:
        return f"HandValue({int(self)})"


def pack(category: int, *ranks: int) -> int:
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def _straight_order(distinct: set[int], wheel: WheelRule) -> int:
    """The straight's order for five distinct ranks, or 0 if they are no straight."""
    if len(distinct) != 5:
        return 0
    if distinct == set(_WHEEL):
        return 14 if wheel is WheelRule.SECOND_HIGHEST else 5
    top = max(distinct)
    if top - min(distinct) == 4:
        return ACE_HIGH_STRAIGHT if top == 14 else top
    return 0


def natural_value(ranks: Sequence[int], suited: bool, wheel: WheelRule) -> int:
    """Value of five natural ranks (``suited``: all one suit).

    Five equal ranks (a joker that became a duplicate) are five of a kind.
    """
    counts = Counter(ranks)
    # Group by count, then by rank: the order in which a dealer reads the hand.
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ordered = [rank for rank, _ in groups]
    shape = [count for _, count in groups]
    straight = _straight_order(set(ranks), wheel)
    if shape[0] == 5:
        return pack(Category.FIVE_OF_A_KIND, ordered[0])
    if straight and suited:
        return pack(Category.STRAIGHT_FLUSH, straight)
    if shape[0] == 4:
        return pack(Category.FOUR_OF_A_KIND, *ordered)
    if shape[:2] == [3, 2]:
        return pack(Category.FULL_HOUSE, *ordered)
    if suited:
        return pack(Category.FLUSH, *ordered)
    if straight:
        return pack(Category.STRAIGHT, straight)
    if shape[0] == 3:
        return pack(Category.THREE_OF_A_KIND, *ordered)
    if shape[:2] == [2, 2]:
        return pack(Category.TWO_PAIR, *ordered)
    if shape[0] == 2:
        return pack(Category.PAIR, *ordered)
    return pack(Category.HIGH_CARD, *ordered)


def joker_value(ranks: Sequence[int], suited: bool, joker: JokerRule, wheel: WheelRule) -> int:
    """Value of four natural ranks and the joker (``suited``: the four share a suit)."""
    held = set(ranks)
    options = []
    for r in range(2, 15):
        fresh = r not in held
        if joker is JokerRule.WILD:
            options.append(natural_value([*ranks, r], suited and fresh, wheel))
        elif fresh and _straight_order(held | {r}, wheel):
            options.append(natural_value([*ranks, r], suited, wheel))
    if joker is JokerRule.BUG:
        options.append(natural_value([*ranks, 14], False, wheel))
        if suited:  # the highest card of the suit not already held
            options.append(natural_value([*ranks, max(set(range(2, 15)) - held)], True, wheel))
    return max(options)


def front_value(ranks: Sequence[int], has_joker: bool, joker: JokerRule) -> int:
    """Value of a 2-card hand (``ranks`` are the natural cards' ranks)."""
    if has_joker:
        (other,) = ranks
        if joker is JokerRule.WILD:
            return pack(Category.PAIR, other)
        ranks = [other, 14]
    high, low = sorted(ranks, reverse=True)
    if high == low:
        return pack(Category.PAIR, high)
    return pack(Category.HIGH_CARD, high, low)


class Evaluator:
    """Fast hand values for one joker rule and one wheel rule.

    Values are looked up by the product of the cards' rank primes, in one table
    for suited hands and one for the rest; both are filled from
    :func:`natural_value` and :func:`joker_value`, which are the definition.
    """

    def __init__(self, joker: JokerRule, wheel: WheelRule, equal_pair_behind_fouls: bool = False):
        self.joker = joker
        self.wheel = wheel
        #: A back holding only the front's pair (with any kickers) does not rank higher: a foul
        #: (general rules: "If the two-card hand is a pair of aces ... the five-card hand must hold two pair or better").
        self.equal_pair_behind_fouls = equal_pair_behind_fouls
        self._mixed: dict[int, int] = {}
        self._suited: dict[int, int] = {}
        self._front: dict[int, int] = {}
        for combo in combinations_with_replacement(range(2, 15), 5):
            if max(Counter(combo).values()) <= 4:
                key = _key(combo)
                self._mixed[key] = natural_value(combo, False, wheel)
                if len(set(combo)) == 5:
                    self._suited[key] = natural_value(combo, True, wheel)
        for four in combinations_with_replacement(range(2, 15), 4):
            if max(Counter(four).values()) <= 4:
                key = _key(four) * _JOKER_PRIME
                self._mixed[key] = joker_value(four, False, joker, wheel)
                if len(set(four)) == 4:
                    self._suited[key] = joker_value(four, True, joker, wheel)
        for a in range(2, 15):
            self._front[_key([a]) * _JOKER_PRIME] = front_value([a], True, joker)
            for b in range(a, 15):
                self._front[_key([a, b])] = front_value([a, b], False, joker)

    def five(self, cards: Sequence[int]) -> int:
        """Value of a 5-card hand (card indices or :class:`Card`)."""
        a, b, c, d, e = cards
        suits = SUIT_BIT[a] | SUIT_BIT[b] | SUIT_BIT[c] | SUIT_BIT[d] | SUIT_BIT[e]
        key = PRIME[a] * PRIME[b] * PRIME[c] * PRIME[d] * PRIME[e]
        if suits & (suits - 1):
            return self._mixed[key]
        return self._suited[key]

    def two(self, cards: Sequence[int]) -> int:
        """Value of a 2-card hand."""
        a, b = cards
        return self._front[PRIME[a] * PRIME[b]]

    def value(self, cards: Sequence[int]) -> HandValue:
        """The value of a 2- or 5-card hand, as a :class:`HandValue`."""
        if len(cards) == 5:
            return HandValue(self.five(cards))
        if len(cards) == 2:
            return HandValue(self.two(cards))
        raise ValueError(f"a hand has 2 or 5 cards, not {len(cards)}")

    def fouls(self, front_value: int, back_value: int) -> bool:
        """Whether a setting with these values is fouled: the back must rank higher than the front."""
        if front_value > back_value:
            return True
        return (self.equal_pair_behind_fouls and front_value >> CATEGORY_SHIFT == Category.PAIR
                and back_value >> CATEGORY_SHIFT == Category.PAIR and back_value >> 16 == front_value >> 16)

    def name(self, value: int) -> str:
        """A name a dealer would say: ``'Full house, kings over fives'``."""
        return describe(value, self.wheel)


def _key(ranks: Sequence[int]) -> int:
    key = 1
    for r in ranks:
        key *= _PRIMES[r - 2]
    return key


def describe(value: int, wheel: WheelRule = WheelRule.SECOND_HIGHEST) -> str:
    """The dealer's words for a value.

    >>> describe(pack(Category.FULL_HOUSE, 13, 5))
    'Full house, kings over fives'
    >>> describe(pack(Category.STRAIGHT_FLUSH, ACE_HIGH_STRAIGHT))
    'Royal flush'
    """
    v = HandValue(value)
    cat = v.category
    r = [s for s in v.slots if s]
    if cat is Category.FIVE_OF_A_KIND:
        return "Five aces" if r[0] == 14 else f"Five of a kind, {RANK_PLURALS[r[0]]}"
    if cat in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        if cat is Category.STRAIGHT_FLUSH and r[0] == ACE_HIGH_STRAIGHT:
            return "Royal flush"
        label = "Straight" if cat is Category.STRAIGHT else "Straight flush"
        if r[0] == ACE_HIGH_STRAIGHT:
            return f"{label}, ace high"
        wheel_order = 14 if wheel is WheelRule.SECOND_HIGHEST else 5
        if r[0] == wheel_order:
            return f"{label}, five high (A-2-3-4-5)"
        return f"{label}, {RANK_NAMES[r[0]]} high"
    if cat is Category.FOUR_OF_A_KIND:
        return f"Four of a kind, {RANK_PLURALS[r[0]]}"
    if cat is Category.FULL_HOUSE:
        return f"Full house, {RANK_PLURALS[r[0]]} over {RANK_PLURALS[r[1]]}"
    if cat is Category.FLUSH:
        return f"Flush, {RANK_NAMES[r[0]]} high"
    if cat is Category.THREE_OF_A_KIND:
        return f"Three of a kind, {RANK_PLURALS[r[0]]}"
    if cat is Category.TWO_PAIR:
        return f"Two pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[1]]}"
    if cat is Category.PAIR:
        return f"Pair of {RANK_PLURALS[r[0]]}"
    if len(r) == 2:
        return f"{RANK_NAMES[r[0]].capitalize()}, {RANK_NAMES[r[1]]}"
    return f"{RANK_NAMES[r[0]].capitalize()} high"


@cache
def evaluator(joker: JokerRule, wheel: WheelRule, equal_pair_behind_fouls: bool = False) -> Evaluator:
    """The shared evaluator for a house's card rules (the value tables are built once per joker and wheel rule)."""
    if not equal_pair_behind_fouls:
        return Evaluator(joker, wheel)
    strict = copy.copy(evaluator(joker, wheel))
    strict.equal_pair_behind_fouls = True
    return strict
