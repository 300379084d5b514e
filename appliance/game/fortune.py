"""The 7-card Fortune bonus: which pay-table lines seven cards hold, and what they pay.

The seven cards count however the hand is set. The joker plays by the house's
joker rule; a 7-card straight flush may run ace-to-seven.

>>> from .values import evaluator, JokerRule, WheelRule
>>> ev = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
>>> fortune_category(parse_cards("Th Jh Qh Kh Ah Ks Qs"), ev)
'royal-match'
>>> fortune_category(parse_cards("Qs Qh Qd Jc Td 9s 8h"), ev)  # trips rank above the straight
'three-of-a-kind'
>>> fortune_category(parse_cards("2c 2d 5h 7s 9c Jd Kh"), ev) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .cards import JOKER_INDEX, parse_cards  # noqa: F401  (doctest)
from .rules import FORTUNE_CATEGORIES
from .setting import SPLITS
from .values import ACE_HIGH_STRAIGHT, Category, Evaluator

_BY_CATEGORY: dict[int, tuple[str, ...]] = {
    Category.THREE_OF_A_KIND: ("three-of-a-kind",),
    Category.STRAIGHT: ("straight",),
    Category.FLUSH: ("flush",),
    Category.FULL_HOUSE: ("full-house", "three-of-a-kind"),
    Category.FOUR_OF_A_KIND: ("four-of-a-kind", "three-of-a-kind"),
    Category.STRAIGHT_FLUSH: ("straight-flush", "flush", "straight"),
}
_ORDER = {name: i for i, name in enumerate(FORTUNE_CATEGORIES)}
_SEVEN_RUNS = [set(range(low, low + 7)) for low in range(2, 9)] + [{14, 2, 3, 4, 5, 6, 7}]


def fortune_holdings(cards: Sequence[int], ev: Evaluator) -> set[str]:
    """Every Fortune pay-table line the seven cards hold (a hand holding a line also holds the lines it implies)."""
    if len(cards) != 7:
        raise ValueError(f"the Fortune bonus is judged on 7 cards, got {len(cards)}")
    held: set[str] = set()
    for back_pos, (f1, f2) in SPLITS:
        back = [cards[i] for i in back_pos]
        value = ev.five(back)
        category = value >> 20
        if category == Category.FIVE_OF_A_KIND:
            held.update(("five-aces" if (value >> 16) & 15 == 14 else "five-of-a-kind", "four-of-a-kind", "three-of-a-kind"))
        elif category == Category.STRAIGHT_FLUSH and (value >> 16) & 15 == ACE_HIGH_STRAIGHT:
            held.update(("royal-flush", "straight-flush", "flush", "straight"))
            if _royal_match(cards[f1], cards[f2]):
                held.add("royal-match")
        elif category in _BY_CATEGORY:
            held.update(_BY_CATEGORY[category])
    naturals = [c for c in cards if c != JOKER_INDEX]
    if len({c & 3 for c in naturals}) == 1:
        ranks = {(c >> 2) + 2 for c in naturals}
        if len(naturals) == 7 and ranks in _SEVEN_RUNS:
            held.add("seven-card-straight-flush")
        elif len(naturals) == 6 and any(ranks <= run for run in _SEVEN_RUNS):
            held.add("seven-card-straight-flush-joker")
    return held


def _royal_match(a: int, b: int) -> bool:
    """The two cards beside a royal flush are a king and a queen of one suit."""
    if JOKER_INDEX in (a, b) or a & 3 != b & 3:
        return False
    return {(a >> 2) + 2, (b >> 2) + 2} == {12, 13}


def fortune_category(cards: Sequence[int], ev: Evaluator) -> str | None:
    """The best line of the common pay table that the cards hold, or None."""
    held = fortune_holdings(cards, ev)
    return min(held, key=_ORDER.__getitem__) if held else None


def best_paying(cards: Sequence[int], ev: Evaluator, pays: Mapping[str, object]) -> str | None:
    """The held line that pays most under ``pays`` (a line missing from the table pays nothing)."""
    held = [name for name in fortune_holdings(cards, ev) if name in pays]
    return max(held, key=lambda name: (pays[name], -_ORDER[name])) if held else None
