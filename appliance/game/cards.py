"""Cards of the 53-card pai gow deck and their text notation.

A card is a small int (``0..52``) behind a friendly face, so the hot loops of
the evaluator and the house way index tables with it directly:
``index = rank_index * 4 + suit`` for the 52 natural cards, and 52 for the joker.

>>> Card.parse("10h")
Card.parse('Th')
>>> str(Card.parse("joker"))
'Jk'
>>> Card.parse("As").rank, Card.parse("As").suit
(14, 's')
>>> parse_cards("Ah Kd jk")
(Card.parse('Ah'), Card.parse('Kd'), Card.parse('Jk'))
"""

from __future__ import annotations

from collections.abc import Iterable

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
JOKER_INDEX = 52
JOKER_CODE = "Jk"

#: Rank values as the game uses them: 2..14, ace high.
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(2, 15)

RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS = {rank: (name + "es" if name == "six" else name + "s") for rank, name in RANK_NAMES.items()}
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}

_RANK_ALIASES = {"10": "T"}
_JOKER_ALIASES = {"jk", "joker", "jkr", "jo", "xx"}


class CardError(ValueError):
    """A card code that is not one of the 53 cards."""


class DuplicateCardError(ValueError):
    """The same physical card appears twice where a single deck is in play."""


class Card(int):
    """One of the 53 cards; an ``int`` so tables can be indexed by it."""

    __slots__ = ()

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card code leniently: ``Ah``, ``AH``, ``10h``, ``joker``.

        >>> Card.parse(" 9C ")
        Card.parse('9c')
        >>> Card.parse("Zz")
        Traceback (most recent call last):
        ...
        appliance.game.cards.CardError: unknown card 'Zz': expected a rank 2-9, T, J, Q, K, A then a suit c, d, h, s, or Jk for the joker
        """
        if not isinstance(text, str):
            raise CardError(f"unknown card {text!r}: a card code must be text such as 'Ah'")
        code = text.strip()
        if code.lower() in _JOKER_ALIASES:
            return CARDS[JOKER_INDEX]
        rank, suit = code[:-1].upper(), code[-1:].lower()
        rank = _RANK_ALIASES.get(rank, rank)
        if len(rank) == 1 and rank in RANK_CHARS and suit in SUIT_CHARS and suit:
            return CARDS[RANK_CHARS.index(rank) * 4 + SUIT_CHARS.index(suit)]
        raise CardError(
            f"unknown card {text!r}: expected a rank 2-9, T, J, Q, K, A then a suit c, d, h, s, "
            "or Jk for the joker"
        )

    @property
    def is_joker(self) -> bool:
        return self == JOKER_INDEX

    @property
    def rank(self) -> int | None:
        """2..14 (ace high), or ``None`` for the joker."""
        return None if self == JOKER_INDEX else (self >> 2) + 2

    @property
    def suit(self) -> str | None:
        """``'c'``, ``'d'``, ``'h'`` or ``'s'``, or ``None`` for the joker."""
        return None if self == JOKER_INDEX else SUIT_CHARS[self & 3]

    @property
    def name(self) -> str:
        """The card as a person says it.

        >>> Card.parse("Th").name, Card.parse("Jk").name
        ('ten of hearts', 'joker')
        """
        if self.rank is None or self.suit is None:
            return "joker"
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        if self == JOKER_INDEX:
            return JOKER_CODE
        return RANK_CHARS[self >> 2] + SUIT_CHARS[self & 3]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(53))
JOKER = CARDS[JOKER_INDEX]


def card(value: Card | int | str) -> Card:
    """One card from a code, an index or a card."""
    if isinstance(value, Card):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= JOKER_INDEX:
        return CARDS[value]
    if isinstance(value, str):
        return Card.parse(value)
    raise CardError(f"unknown card {value!r}: a card code must be text such as 'Ah'")


def parse_cards(text: str | Iterable[str | int], *, unique: bool = True) -> tuple[Card, ...]:
    """Cards from a space/comma separated string or an iterable of codes.

    >>> parse_cards("Ah,Ah")
    Traceback (most recent call last):
    ...
    appliance.game.cards.DuplicateCardError: card Ah appears twice
    """
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = tuple(card(item) for item in items)
    if unique:
        check_unique(cards)
    return cards


def check_unique(cards: Iterable[int], where: str = "") -> None:
    """Raise :class:`DuplicateCardError` if a card is repeated."""
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise DuplicateCardError(f"card {CARDS[c]} appears twice{where}")
        seen.add(c)


def format_cards(cards: Iterable[int]) -> list[str]:
    """Canonical codes, e.g. for JSON output."""
    return [str(CARDS[c]) for c in cards]
