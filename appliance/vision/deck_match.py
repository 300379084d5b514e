"""Whether the cards in play are of the taught deck, told from how well many of them match it.

A card of the taught deck matches its templates closely: the lower of its rank's and its suit's
best score (normalised cross-correlation, averaged over its index corners in view) is under
POOR_MATCH for only a few cards in a hundred, even on degraded tables. Cards of another design
match poorly far more often, yet now and then one of them still wins clearly as the wrong card
(a 5 of one font that looks like the 8 of another); a card of a design that prints its index
elsewhere shows no rank and suit where the taught deck prints them (it matches at 0). One card
cannot tell a foreign deck from a glare spot; many can. The poorly matching cards among those in
view are counted and weighed against both hypotheses (binomial tails): the taught deck, or another design. Once another design
is beyond doubt no card at all is named, and the reader says so; until the taught deck is likely
(too few cards, or a count between the two), no poorly matching card is named.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

POOR_MATCH = 0.94
# Cards under POOR_MATCH, on degraded tables of 49 cards each, cards apart and spread: of the taught
# deck, 0.2% (drawn casino, classic, modern: 10 tables each) and 1.3% to 2.1% (two real photographed
# decks: 40 tables each, no table over 4); read with a deck taught from another drawn design (casino
# or classic cards with a modern deck, modern cards with a casino deck: 10 tables each), 41% to 48%;
# another real deck, over 90%. Cards of another design named wrongly all matched under 0.89. (At
# 0.96 the real decks' own tables had 3-4%, one table 8 of 49: too close to another design's count.)
# The rates below are taken on the safe side of those.
TAUGHT_POOR_RATE = 0.04
OTHER_POOR_RATE = 0.25
# Another design is declared only beyond all doubt, and on enough cards (it holds the table); the
# taught deck on a likelihood below 10% of another design (a mistake there names a poorly matching
# card, and few of those are wrong). Of 49 cards: the taught deck up to 7 poor, another from 10.
OTHER_DOUBT, TAUGHT_DOUBT = 1e-4, 0.1
MIN_CARDS = 10
# The rates above hold for cards seen at the installation's resolution (every card at least 120 px
# wide in a 4608 px frame: 1.9 px/mm); a card seen coarser matches any deck less closely, and its
# score is no evidence either way (its read stands or falls on its own clarity).
EVIDENCE_MIN_PX_PER_MM = 1.8

DECK_MISMATCH = "the cards in play do not match the taught deck: teach this deck"


class Verdict(enum.Enum):
    TAUGHT = "taught"  # the cards are of the taught deck: every read stands
    UNSURE = "unsure"  # too few cards to tell: a poorly matching card is not named
    OTHER = "other"  # another design: no card is named


@dataclass(frozen=True)
class DeckMatch:
    cards: int  # cards whose rank and suit were seen
    poor: int  # of them, those matching the taught deck poorly
    verdict: Verdict

    @classmethod
    def of(cls, scores: Iterable[float | None]) -> DeckMatch:
        """The verdict on the cards whose match scores are given (None: no index seen, no evidence)."""
        seen = [s for s in scores if s is not None]
        n, poor = len(seen), sum(s < POOR_MATCH for s in seen)
        if n >= MIN_CARDS and _tail_at_least(poor, n, TAUGHT_POOR_RATE) < OTHER_DOUBT:
            return cls(n, poor, Verdict.OTHER)
        if _tail_at_least(n - poor, n, 1 - OTHER_POOR_RATE) < TAUGHT_DOUBT:  # so few poor cards: not another design
            return cls(n, poor, Verdict.TAUGHT)
        return cls(n, poor, Verdict.UNSURE)

    def vouch(self, read):
        """The card read (a reader's CardRead) as it may be reported under this verdict."""
        if self.verdict is Verdict.OTHER:
            return replace(read, card=None, confidence=0.0, reason=f"unreadable: {DECK_MISMATCH}")
        if self.verdict is Verdict.UNSURE and read.card is not None and read.match is not None \
                and read.match < POOR_MATCH:
            return replace(read, card=None, confidence=0.0,
                           reason=f"unreadable: matches the taught deck poorly ({read.match:.2f}) and too few cards "
                                  f"are in view to tell that they are of the taught deck")
        return read


def _tail_at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))
