"""A set hand: the 2-card front and 5-card back, its values, and whether it is fouled.

>>> from .values import evaluator, JokerRule, WheelRule
>>> ev = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
>>> s = SetHand.of(parse_cards("Ah Ad"), parse_cards("Kc Kd 7s 4h 2c"), ev)
>>> s.foul
'front outranks back: Pair of aces over Pair of kings'
>>> SetHand.of(parse_cards("Kh"), parse_cards("Ac Ad 7s 4h 2c 3d"), ev).foul
'front has 1 card, not 2'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import Card, card, format_cards, parse_cards  # noqa: F401  (doctest)
from .values import Evaluator

#: The 21 ways to split seven cards: (back positions, front positions).
SPLITS: tuple[tuple[tuple[int, ...], tuple[int, int]], ...] = tuple(
    (back, tuple(i for i in range(7) if i not in back))  # type: ignore[misc]
    for back in combinations(range(7), 5)
)


@dataclass(frozen=True)
class SetHand:
    """A front and back as laid on the table, valued; ``foul`` says why it is fouled, or is None."""

    front: tuple[Card, ...]
    back: tuple[Card, ...]
    front_value: int | None
    back_value: int | None
    foul: str | None

    @classmethod
    def of(cls, front: Sequence[int], back: Sequence[int], ev: Evaluator) -> SetHand:
        front_cards = tuple(card(c) for c in front)
        back_cards = tuple(card(c) for c in back)
        if len(front_cards) != 2:
            return cls(front_cards, back_cards, None, None,
                       f"front has {len(front_cards)} card{'s' * (len(front_cards) != 1)}, not 2")
        if len(back_cards) != 5:
            return cls(front_cards, back_cards, None, None,
                       f"back has {len(back_cards)} card{'s' * (len(back_cards) != 1)}, not 5")
        fv, bv = ev.two(front_cards), ev.five(back_cards)
        foul = None
        if fv > bv:
            foul = f"front outranks back: {ev.name(fv)} over {ev.name(bv)}"
        elif ev.fouls(fv, bv):
            foul = f"the back does not rank higher: {ev.name(bv)} behind {ev.name(fv)} (a pair in front needs two pair or better behind)"
        return cls(front_cards, back_cards, fv, bv, foul)

    def to_json(self, ev: Evaluator) -> dict:
        return {
            "front": format_cards(self.front),
            "back": format_cards(self.back),
            "front_value": None if self.front_value is None else ev.name(self.front_value),
            "back_value": None if self.back_value is None else ev.name(self.back_value),
            "foul": self.foul,
        }
