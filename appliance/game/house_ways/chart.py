"""A house way written as data: a chart of lines, read top to bottom, the first that fits sets the hand.

A chart is a parsed TOML table (``config/house_ways/*.toml``; the language is stated in
``config/house_ways/README.md``). Each ``[[line]]`` names the hands it is for, the conditions
under which it applies, how the cards are played, and the chart's own words for it, which are
recorded as the rule that set the hand.

>>> from appliance.game.values import evaluator, JokerRule, WheelRule
>>> from appliance.game.cards import parse_cards
>>> chart = parse_chart({"chart": {"name": "Tiny"}, "line": [
...     {"hand": "no pair", "play": "highest card in back, next two highest in front", "rule": "No pair"},
...     {"hand": "any", "play": "straight or flush in back, highest front", "rule": "Otherwise"}]}, "tiny.toml")
>>> chart.lines[0].hands
frozenset({'no pair'})
>>> parse_chart({"chart": {"name": "Bad"}, "line": [{"hand": "one pair", "play": "pair in back",
...     "rule": "One pair", "holdin": "an ace"}]}, "bad.toml")
Traceback (most recent call last):
...
appliance.game.house_ways.chart.ChartError: bad.toml: chart line 1 ("One pair"): unknown rule term 'holdin': expected one of hand, play, rule, rank, pair, pairs, higher_pair, lower_pair, holding, straight_or_flush, front, lower_straight, unless
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cards import JOKER_INDEX, RANK_NAMES
from ..values import ACE_HIGH_STRAIGHT, Category, pack
from .shape import ACE, Decision, Shape, pair_class


class ChartError(ValueError):
    """A chart that cannot be read: a missing or unknown rule term, or a value it does not understand."""


#: The hands a line can be for, by the sizes of the groups of equal ranks (the joker joins the aces).
HANDS = {
    "no pair": lambda s: s[0] == 1,
    "one pair": lambda s: s[0] == 2 and s[1] == 1,
    "two pair": lambda s: s[:3] == (2, 2, 1),
    "three pair": lambda s: s[:3] == (2, 2, 2),
    "three of a kind": lambda s: s[0] == 3 and s[1] == 1,
    "full house": lambda s: s[:3] == (3, 2, 1),
    "three of a kind and two pairs": lambda s: s[:3] == (3, 2, 2),
    "three of a kind twice": lambda s: s[:2] == (3, 3),
    "four of a kind": lambda s: s[0] == 4 and s[1] == 1,
    "four of a kind and a pair": lambda s: s[:2] == (4, 2),
    "four of a kind and three of a kind": lambda s: s[:2] == (4, 3),
    "five aces": lambda s: s[0] == 5 and s[1] == 1,
    "five aces and a pair": lambda s: s[:2] == (5, 2),
}
_SIZES_7 = [(5, 2), (5, 1, 1), (4, 3), (4, 2, 1), (4, 1, 1, 1), (3, 3, 1), (3, 2, 2), (3, 2, 1, 1),
            (3, 1, 1, 1, 1), (2, 2, 2, 1), (2, 2, 1, 1, 1), (2, 1, 1, 1, 1, 1), (1,) * 7]
#: Sizes of groups -> the hand's name (every seven-card shape has exactly one).
HAND_OF_SIZES = {sizes: next(name for name, fits in HANDS.items() if fits(sizes + (0, 0))) for sizes in _SIZES_7}

_WORDS = {**{name: rank for rank, name in RANK_NAMES.items()},
          **{str(rank): rank for rank in range(2, 11)}, "deuce": 2, "t": 10}


def rank_word(text: str) -> int | None:
    """A rank as a chart writes it: ``ace``, ``aces``, ``kings``, ``10``, ``10's``, ``sixes``, ``a jack``.

    >>> [rank_word(w) for w in ("aces", "10's", "sixes", "a jack", "nines", "bishop")]
    [14, 10, 6, 11, 9, None]
    """
    word = text.strip().lower()
    for article in ("a ", "an ", "pair of ", "the "):
        if word.startswith(article):
            word = word[len(article):]
    word = word.removesuffix("'s").removesuffix("s") if word not in _WORDS else word
    if word not in _WORDS and word.endswith("e"):  # "sixes" -> "sixe" -> "six"
        word = word[:-1]
    return _WORDS.get(word)


def rank_range(text: str) -> frozenset[int]:
    """``aces``, ``7 through 10``, ``jacks or better`` (``or higher``), ``any``: the ranks meant.

    >>> sorted(rank_range("jack through king")), sorted(rank_range("tens or better"))
    ([11, 12, 13], [10, 11, 12, 13, 14])
    """
    t = text.strip().lower()
    if t in ("any", "any rank"):
        return frozenset(range(2, 15))
    m = re.fullmatch(r"(.+?)\s+(?:through|thru|to)\s+(.+)", t)
    if m:
        lo, hi = rank_word(m[1]), rank_word(m[2])
        if lo is not None and hi is not None and lo <= hi:
            return frozenset(range(lo, hi + 1))
    m = re.fullmatch(r"(.+?)\s+or\s+(?:better|higher)", t)
    if m and (least := rank_word(m[1])) is not None:
        return frozenset(range(least, 15))
    if (rank := rank_word(t)) is not None:
        return frozenset({rank})
    raise ValueError(f"{text!r} is no rank or range of ranks (e.g. \"aces\", \"7 through 10\", \"jacks or better\")")


def _holding(text: str) -> Callable[[Shape], bool]:
    """``king or better``, ``an ace``, ``ace and king``, ``no ace``: a test of the singletons."""
    t = text.strip().lower()
    if t.startswith("no "):
        ranks = rank_range(t[3:])
        return lambda h: not any(g.rank in ranks for g in h.singles)
    if " and " in t:
        wanted = [rank_range(part) for part in t.split(" and ")]
        return lambda h: all(any(g.rank in ranks for g in h.singles) for ranks in wanted)
    ranks = rank_range(t)
    return lambda h: any(g.rank in ranks for g in h.singles)


_PAIR_CLASSES = ("low", "medium", "high", "aces")


def _pairs(value: Any) -> Callable[[Shape], bool]:
    """``low and medium``: the classes of the lower and the higher pair of two pair."""
    wanted = set()
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, str):
            raise ValueError(f"expected text such as \"low and medium\", got {item!r}")
        parts = [p.strip() for p in item.lower().split(" and ")]
        if len(parts) != 2 or not all(p in _PAIR_CLASSES for p in parts):
            raise ValueError(f"{item!r}: expected \"<lower pair> and <higher pair>\", each one of "
                             f"{', '.join(_PAIR_CLASSES)}")
        wanted.add(tuple(parts))
    return lambda h: (pair_class(h.groups[1].rank), pair_class(h.groups[0].rank)) in wanted


_JOKER_ACE_HIGH = "ace-high with the joker"


def _ace_high_with_joker(value: int, back: tuple[int, ...]) -> bool:
    """A straight or straight flush, ace high, that the joker completes (a flush of any kind does not count)."""
    return JOKER_INDEX in back and (value >> 16) & 15 == ACE_HIGH_STRAIGHT and value >> 20 != Category.FLUSH


def _aces_with_joker(h: Shape):
    """The aces group when the joker and a natural ace make a pair of aces (or more)."""
    if not h.joker:
        return None
    aces = next((g for g in h.groups if g.rank == ACE), None)
    return aces if aces is not None and aces.size >= 2 else None


def _is_straight_flush(fv: int, bv: int, back: tuple[int, ...]) -> bool:
    return bv >> 20 == Category.STRAIGHT_FLUSH


def _sf_given_up(h: Shape, royal: bool) -> bool:
    """A straight flush behind leaves a lower front than some straight or flush behind."""
    best = h.played_sf()
    best_sf = h.top_straight_flush
    return (best_sf is not None and best_sf[0] < best[0]
            and ((best_sf[1] >> 16) & 15 == ACE_HIGH_STRAIGHT) == royal)


_STRAIGHT_OR_FLUSH = {
    True: lambda h: h.has_sf,
    False: lambda h: not h.has_sf,
    "with the pair in front": lambda h: h.has_sf and h.played_sf()[0] >> 20 == Category.PAIR,
    "more than one": lambda h: len(h.sf) > 1,
    "over a straight flush": lambda h: h.has_sf and _sf_given_up(h, royal=False),
    "over a royal flush": lambda h: h.has_sf and _sf_given_up(h, royal=True),
    _JOKER_ACE_HIGH: lambda h: h.has_sf and _aces_with_joker(h) is not None and _ace_high_with_joker(*h.played_sf()[1:3]),
}


def _front(text: str) -> Callable[[Shape], bool]:
    """``jack or better``: the front left by the best straight or flush behind is at least that high."""
    m = re.fullmatch(r"(.+?)\s+or\s+(?:better|higher)", text.strip().lower())
    rank = rank_word(m[1]) if m else None
    if rank is None:
        raise ValueError(f"{text!r}: expected \"<rank> or better\", e.g. \"jack or better\"")
    least = pack(Category.HIGH_CARD, rank)
    return lambda h: h.has_sf and h.played_sf()[0] >= least


def _lower_straight(h: Shape) -> bool:
    return h.best_sf(lambda fv, bv, back: not _ace_high_with_joker(bv, back)) is not None


# --- the plays ---------------------------------------------------------------------------------------


def _no_pair(h: Shape, rule: str) -> Decision:
    ordered = sorted(h.cards, key=h._rank_key, reverse=True)
    return h.decide((ordered[1], ordered[2]), (ordered[0], *ordered[3:]), rule)


def _highest_pair(h: Shape):
    """The highest group of exactly two; with none, the highest three of a kind (a pair from it)."""
    return next((g for g in h.groups if g.size == 2), h.groups[0])


def _sf(h: Shape, rule: str, accept: Callable[[int, int, tuple[int, ...]], bool] | None = None) -> Decision:
    best = h.best_sf(accept) if accept else h.top_sf
    if best is None:
        raise ValueError("no straight or flush can be played in back")
    return h.decide(best[3], best[2], rule)


def _aces_behind_next_two_in_front(h: Shape, rule: str) -> Decision:
    """A pair of aces behind (natural aces first, so with two natural aces the joker plays in front as an ace)."""
    aces = next(g for g in h.groups if g.rank == ACE)
    pair = sorted(aces.cards)[:2]  # the joker sorts last
    others = sorted((c for c in h.cards if c not in pair), key=h._rank_key, reverse=True)
    return h.decide(tuple(others[:2]), (*pair, *others[2:]), rule)


def _second_group(h: Shape):
    if h.groups[1].size < 2:
        raise ValueError("the hand has no second pair to play in front")
    return h.groups[1]


#: What a line can say to do; the front is named, the rest goes behind.
PLAYS: dict[str, Callable[[Shape, str], Decision]] = {
    "highest card in back, next two highest in front": _no_pair,
    "pair in back, next two highest in front": lambda h, r: h.highest_in_front(h.groups[:1], r),
    "two pair in back, next two highest in front": lambda h, r: h.highest_in_front(h.groups[:2], r),
    "three of a kind in back, next two highest in front": lambda h, r: h.highest_in_front(h.groups[:1], r),
    "four of a kind in back, next two highest in front": lambda h, r: h.highest_in_front(h.groups[:1], r),
    "full house in back, next two highest in front": lambda h, r: h.highest_in_front(h.groups[:2], r),
    "split, lower pair in front": lambda h, r: h.group_in_front(_second_group(h), r),
    "highest pair in front": lambda h, r: h.group_in_front(_highest_pair(h), r),
    "pair in front": lambda h, r: h.group_in_front(_second_group(h), r),
    "split four of a kind, a pair in front": lambda h, r: h.split_quads(h.groups[0], r),
    "two aces in front, three aces in back": lambda h, r: h.group_in_front(h.groups[0], r),
    "pair of aces in back, one ace and the next highest card in front":
        lambda h, r: h.ace_and_highest_in_front(h.groups[0], r),
    "straight or flush in back, highest front": _sf,
    "straight flush in back, highest front": lambda h, r: _sf(h, r, _is_straight_flush),
    "lower straight in back, highest front":
        lambda h, r: _sf(h, r, lambda fv, bv, back: not _ace_high_with_joker(bv, back)),
    "pair of aces in back, next two highest in front": _aces_behind_next_two_in_front,
}


# --- reading a chart ---------------------------------------------------------------------------------


def _group_rank(index: int):
    def build(value: Any) -> Callable[[Shape], bool]:
        ranks = rank_range(_text(value))
        return lambda h: h.groups[index].size >= 2 and h.groups[index].rank in ranks
    return build


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {value!r}")
    return value


def _choice(table: Mapping) -> Callable[[Any], Callable[[Shape], bool]]:
    def build(value: Any) -> Callable[[Shape], bool]:
        if isinstance(value, bool) and value in table or isinstance(value, str) and value.strip().lower() in table:
            return table[value if isinstance(value, bool) else value.strip().lower()]
        options = ", ".join(json.dumps(k) for k in table)
        raise ValueError(f"expected one of {options}, got {value!r}")
    return build


def _flag(test: Callable[[Shape], bool]) -> Callable[[Any], Callable[[Shape], bool]]:
    def build(value: Any) -> Callable[[Shape], bool]:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {value!r}")
        return test if value else (lambda h: not test(h))
    return build


#: The conditions a line (or its ``unless``) can state, each a test of the seven cards.
CONDITIONS: dict[str, Callable[[Any], Callable[[Shape], bool]]] = {
    "rank": _group_rank(0),  # the rank of the largest group: the pair, three or four of a kind
    "pair": _group_rank(1),  # the rank of the second group: the pair beside it (or a second three)
    "pairs": _pairs,
    "higher_pair": _group_rank(0),
    "lower_pair": _group_rank(1),
    "holding": lambda value: _holding(_text(value)),
    "straight_or_flush": _choice(_STRAIGHT_OR_FLUSH),
    "front": lambda value: _front(_text(value)),
    "lower_straight": _flag(_lower_straight),
}
_LINE_TERMS = ("hand", "play", "rule", *CONDITIONS, "unless")


@dataclass(frozen=True, eq=False)
class ChartLine:
    number: int  # 1 for the chart's first [[line]]
    rule: str  # the chart's words, recorded as the rule that set the hand
    hands: frozenset[str]
    play: str
    tests: tuple[Callable[[Shape], bool], ...]
    unless: tuple[tuple[Callable[[Shape], bool], ...], ...]
    _play: Callable[[Shape, str], Decision] = field(repr=False)

    def fits(self, h: Shape) -> bool:
        for test in self.tests:
            if not test(h):
                return False
        for alternative in self.unless:  # noqa: SIM110  (plain loops: a chart asks this of every line, every hand)
            if all(test(h) for test in alternative):
                return False
        return True

    def where(self) -> str:
        return f"chart line {self.number} ({json.dumps(self.rule)})"


@dataclass(frozen=True, eq=False)
class Chart:
    """A house way read from a chart; equal charts are those of equal content (``digest``)."""

    name: str
    source: str
    notes: tuple[str, ...]
    lines: tuple[ChartLine, ...]
    digest: str  # sha256 of the chart's content, the same wherever it is written
    #: hand name -> the lines that can set it, in chart order
    by_hand: dict[str, tuple[ChartLine, ...]] = field(repr=False)
    data: Any = field(repr=False, default=None)  # the chart as read, to send it to another process

    def __reduce__(self):
        return parse_chart, (self.data, self.source)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Chart) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __str__(self) -> str:
        return self.name

    def line_for(self, h: Shape) -> ChartLine:
        for line in self.by_hand[HAND_OF_SIZES[h.sizes]]:
            if line.fits(h):
                return line
        raise ChartGapError(f"{self.source}: no line of the chart sets this hand "
                            f"({HAND_OF_SIZES[h.sizes]})")

    def decide(self, h: Shape) -> Decision:
        return self.play(self.line_for(h), h)

    def play(self, line: ChartLine, h: Shape) -> Decision:
        """Set the hand as ``line`` says, its rule the line's words ({pairs} filled in)."""
        rule = line.rule
        if "{pairs}" in rule:
            rule = rule.replace("{pairs}", f"{pair_class(h.groups[1].rank)} and {pair_class(h.groups[0].rank)}")
        return line._play(h, rule)


class ChartGapError(ValueError):
    """Seven cards that no line of a chart fits."""


def parse_chart(data: Any, source: str) -> Chart:
    """Read a chart (a parsed TOML table); every error names ``source`` and the line."""
    if not isinstance(data, Mapping):
        raise ChartError(f"{source}: expected a table, got {type(data).__name__}")
    unknown = [key for key in data if key not in ("chart", "line")]
    if unknown:
        raise ChartError(f"{source}: unknown key {unknown[0]!r}: a chart has a [chart] table and [[line]] tables")
    head = data.get("chart")
    if not isinstance(head, Mapping) or not isinstance(head.get("name"), str) or not head["name"].strip():
        raise ChartError(f"{source}: [chart] name: missing; a chart names its house way")
    for key in head:
        if key not in ("name", "published", "notes"):
            raise ChartError(f"{source}: [chart] {key}: unknown key; expected name, published, notes")
    notes = head.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ChartError(f"{source}: [chart] notes: expected a list of texts")
    raw_lines = data.get("line")
    if not isinstance(raw_lines, list) or not raw_lines:
        raise ChartError(f"{source}: no [[line]]: a chart has at least one line")
    lines = tuple(_line(item, number, source) for number, item in enumerate(raw_lines, 1))
    by_hand = {hand: tuple(line for line in lines if hand in line.hands) for hand in HANDS}
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    return Chart(head["name"].strip(), source, tuple(notes), lines, digest, by_hand, data)


def _line(item: Any, number: int, source: str) -> ChartLine:
    rule = item.get("rule") if isinstance(item, Mapping) else None
    where = f"{source}: chart line {number}" + (f" ({json.dumps(rule)})" if isinstance(rule, str) else "")
    if not isinstance(item, Mapping):
        raise ChartError(f"{where}: expected a table, got {item!r}")
    for key in item:
        if key not in _LINE_TERMS:
            raise ChartError(f"{where}: unknown rule term {key!r}: expected one of {', '.join(_LINE_TERMS)}")
    for key in ("hand", "play", "rule"):
        if key not in item:
            raise ChartError(f"{where}: {key}: missing")
    if not isinstance(rule, str) or not rule.strip():
        raise ChartError(f"{where}: rule: expected the chart's words for the line")
    hands = item["hand"] if isinstance(item["hand"], list) else [item["hand"]]
    names: set[str] = set()
    for hand in hands:
        name = hand.strip().lower() if isinstance(hand, str) else hand
        if name == "any":
            names.update(HANDS)
        elif name in HANDS:
            names.add(name)
        else:
            raise ChartError(f"{where}: hand: unknown hand {hand!r}: expected \"any\" or one of {', '.join(HANDS)}")
    play = item["play"].strip().lower() if isinstance(item["play"], str) else item["play"]
    if play not in PLAYS:
        raise ChartError(f"{where}: play: unknown play {item['play']!r}: expected one of "
                         + "; ".join(json.dumps(p) for p in PLAYS))
    tests = _conditions(item, where, exclude=("hand", "play", "rule", "unless"))
    unless_raw = item.get("unless", [])
    alternatives = unless_raw if isinstance(unless_raw, list) else [unless_raw]
    unless = []
    for alternative in alternatives:
        if not isinstance(alternative, Mapping) or not alternative:
            raise ChartError(f"{where}: unless: expected a table of conditions, or a list of them")
        for key in alternative:
            if key not in CONDITIONS:
                raise ChartError(f"{where}: unless: unknown rule term {key!r}: expected one of {', '.join(CONDITIONS)}")
        unless.append(_conditions(alternative, f"{where}: unless", exclude=()))
    return ChartLine(number, rule.strip(), frozenset(names), play, tests, tuple(unless), PLAYS[play])


def _conditions(item: Mapping, where: str, exclude: tuple[str, ...]) -> tuple[Callable[[Shape], bool], ...]:
    tests = []
    for key, value in item.items():
        if key in exclude:
            continue
        try:
            tests.append(CONDITIONS[key](value))
        except ValueError as err:
            raise ChartError(f"{where}: {key}: {err}") from None
    return tuple(tests)
