"""What a house way looks at in seven cards: pairs and the like, straights and flushes.

The house-way modules read a :class:`Shape` and build a :class:`Decision`;
the helpers here build the settings every chart shares ("pair in back, next
two highest in front") so that each house way reads like its chart.

The joker counts as an ace when the hand's pairs are counted and in the "king
or better" / "ace" tests; a straight or flush that needs it plays it as the card
it completes. So ace, joker and another pair is two pair (aces split) even when
the joker could also complete a straight. The reading notes of the Trump Plaza
chart say the joker is no ace where it is needed for a straight or flush; taken
for pair counting too, that reading misses the published Trump Plaza figures
(push 41.84% against 41.47%, 11 standard errors over 2,000,000 hands), while
this one meets them. For ace and joker as the only pair the two readings set
every hand alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from operator import itemgetter
from typing import NamedTuple

from ..cards import JOKER_INDEX
from ..setting import SPLITS
from ..values import Category, Evaluator

ACE, KING, QUEEN, JACK, TEN = 14, 13, 12, 11, 10
_SF_CATEGORIES = (Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH)
#: A straight or flush behind: (front value, back value, back, front).
SfOption = tuple[int, int, tuple[int, ...], tuple[int, ...]]
_SPLIT_GETTERS = tuple((itemgetter(*back), itemgetter(*front)) for back, front in SPLITS)


@dataclass(frozen=True)
class Decision:
    front: tuple[int, int]
    back: tuple[int, ...]
    rule: str


class Group(NamedTuple):
    """Cards of one rank (the joker joins the aces when it plays as an ace); tuples sort by size, then rank."""

    size: int
    rank: int
    cards: list[int]


def _five_in_a_row(mask: int, need: int) -> bool:
    mask |= (mask >> ACE) << 1  # the ace also plays low
    return any(bin((mask >> low) & 0b11111).count("1") >= need for low in range(1, 11))


#: Whether a set of ranks (bit r for rank r) holds a straight, without and with the joker.
_STRAIGHT_POSSIBLE = tuple(
    bytes(_five_in_a_row(m << 2, need) for m in range(1 << 13)) for need in (5, 4)
)


class Shape:
    """Seven cards as a house way sees them."""

    def __init__(self, cards: tuple[int, ...], ev: Evaluator):
        cards = tuple(sorted(cards))  # equal settings are then chosen the same way whatever the order
        self.cards = cards
        self.ev = ev
        self.joker = cards[-1] == JOKER_INDEX
        naturals = cards[:-1] if self.joker else cards
        by_rank: dict[int, list[int]] = {}
        mask = 0
        for c in naturals:
            rank = (c >> 2) + 2
            if mask >> rank & 1:
                by_rank[rank].append(c)
            else:
                by_rank[rank] = [c]
                mask |= 1 << rank
        self.by_rank = by_rank
        suits = [c & 3 for c in naturals]
        natural_flush = max(suits.count(0), suits.count(1), suits.count(2), suits.count(3)) >= 5
        ranks = mask >> 2
        has_sf = bool(natural_flush or _STRAIGHT_POSSIBLE[0][ranks] or self.joker and (
            max(suits.count(0), suits.count(1), suits.count(2), suits.count(3)) >= 4 or _STRAIGHT_POSSIBLE[1][ranks]))
        self.groups = _groups(by_rank, JOKER_INDEX if self.joker else None)
        self.sizes = tuple([g[0] for g in self.groups])
        self.singles = [g for g in self.groups if g[0] == 1]
        #: The largest group (3: trips, 2: a pair, 1: no pair), for the straight-and-flush rules.
        self.sf_largest = self.sizes[0]
        #: No pair, one pair or trips, with a straight or flush: the charts' straight-and-flush rules apply.
        self.sf_with_at_most_trips = has_sf and _paired(self.groups) <= 1 and self.sf_largest <= 3
        self.has_sf = has_sf

    @cached_property
    def sf(self) -> list[SfOption]:
        """Every back that is a straight, flush or straight flush: (front value, back value, back, front)."""
        if not self.has_sf:
            return []
        ev, cards, out = self.ev, self.cards, []
        for back_of, front_of in _SPLIT_GETTERS:
            back = back_of(cards)
            value = ev.five(back)
            if (value >> 20) in _SF_CATEGORIES:
                front = front_of(cards)
                out.append((ev.two(front), value, back, front))
        return out

    # --- what the charts ask about -------------------------------------------------

    def single_ranks(self) -> list[int]:
        return [g.rank for g in self.singles]

    def has_single(self, rank_at_least: int) -> bool:
        """"Holding a king or better": a singleton of at least that rank (the joker counts as an ace)."""
        return any(g.rank >= rank_at_least for g in self.singles)

    def pairs(self) -> list[Group]:
        return [g for g in self.groups if g.size == 2]

    # --- settings every chart uses ------------------------------------------------

    def best_sf(self, accept: Callable[[int, int, tuple[int, ...]], bool] = lambda front_value, back_value, back: True
                ) -> SfOption | None:
        """The straight/flush back that allows the highest front (then the highest back)."""
        best = None
        for option in self.sf:
            if accept(option[0], option[1], option[2]) and (best is None or option[:2] > best[:2]):
                best = option
        return best

    @cached_property
    def top_sf(self) -> SfOption | None:
        """``best_sf()``, found once per hand (several chart lines ask)."""
        return self.best_sf()

    @cached_property
    def top_straight_flush(self) -> SfOption | None:
        """The straight flush behind that allows the highest front, found once per hand."""
        return self.best_sf(lambda front_value, back_value, back: back_value >> 20 == Category.STRAIGHT_FLUSH)

    def played_sf(self) -> SfOption:
        """The best straight or flush behind, for a hand the way has found to hold one."""
        if self.top_sf is None:
            raise ValueError("no straight or flush can be played in back")
        return self.top_sf

    def highest_in_front(self, keep: list[Group], rule: str) -> Decision:
        """Keep these groups behind; the two highest other cards go in front, the rest behind."""
        kept = [c for g in keep for c in g.cards]
        rest = [c for g in self.groups if g not in keep for c in g.cards]
        rest_sorted = sorted(rest, key=self._rank_key, reverse=True)
        front = tuple(rest_sorted[:2])
        return self.decide(front, tuple(kept + rest_sorted[2:]), rule)

    def group_in_front(self, group: Group, rule: str) -> Decision:
        """Two cards of ``group`` in front (the two that leave the higher back), the rest behind."""
        if len(group.cards) == 2:
            return self.decide(tuple(group.cards), self._behind(group.cards), rule)
        # max keeps the first of equal backs, as the chart's order of trial does.
        front = max(combinations(group.cards, 2), key=lambda f: self.ev.five(self._behind(f)))
        return self.decide(front, self._behind(front), rule)

    def split_quads(self, quads: Group, rule: str) -> Decision:
        """Split four of a kind, a pair in front; where this house fouls a pair behind the same pair
        (a pair in front needs two pair or better behind) and no other pair stays behind, keep them together."""
        d = self.group_in_front(quads, rule)
        if self.ev.fouls(self.ev.two(d.front), self.ev.five(d.back)):
            return self.highest_in_front(
                [quads], rule + "; here a pair in front needs two pair or better behind, so the four are kept together")
        return d

    def ace_and_highest_in_front(self, aces: Group, rule: str) -> Decision:
        """Break up three aces: one ace and the highest other card in front, two aces behind."""
        others = sorted((g.cards[0] for g in self.singles), key=self._rank_key, reverse=True)
        fronts = [(ace, others[0]) for ace in aces.cards]
        front = max(fronts, key=lambda f: self.ev.five(self._behind(f)))
        return self.decide(front, self._behind(front), rule)

    def _behind(self, front: Sequence[int]) -> tuple[int, ...]:
        """The cards not in ``front``."""
        return tuple(c for c in self.cards if c not in front)

    def decide(self, front: tuple, back: tuple, rule: str) -> Decision:
        return Decision(tuple(front), tuple(back), rule)  # type: ignore[arg-type]

    @staticmethod
    def _rank_key(c: int) -> int:
        return 15 if c == JOKER_INDEX else (c >> 2) + 2


_new = tuple.__new__


def _groups(by_rank: dict[int, list[int]], joker: int | None) -> list[Group]:
    # tuple.__new__ skips NamedTuple's Python-level constructor: this runs for every hand set.
    groups = [_new(Group, (len(cards), rank, cards)) for rank, cards in by_rank.items() if rank != ACE or joker is None]
    if joker is not None:
        aces = [*by_rank.get(ACE, ()), joker]
        groups.append(_new(Group, (len(aces), ACE, aces)))
    groups.sort(reverse=True)
    return groups


def _paired(groups: list[Group]) -> int:
    return sum(1 for g in groups if g.size >= 2)


def pair_class(rank: int) -> str:
    """The charts' pair classes: low 2-6, medium 7-10, high J-K, aces."""
    if rank == ACE:
        return "aces"
    if rank >= JACK:
        return "high"
    if rank >= 7:
        return "medium"
    return "low"
