"""Whether the cards in play are of the taught deck, told from how well many of them match it.

A card of the taught deck matches its templates closely: the lower of its rank's and its suit's
best score (normalised cross-correlation, averaged over its index corners in view) is under the
deck's poor match (POOR_MATCH for a deck printed bold and clear, lower for one printed thin or small:
each deck measures its own, ``own_poor_match``) for only a few cards in a hundred, even on degraded
tables. Cards of another design
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .card_faces import CANON_PX_PER_MM
from .index import index_glyphs

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

# POOR_MATCH was measured on designs printed bold and clear. A deck printed thin or small matches
# itself less closely on the table (a serif 8 mm rank at 2 px/mm: a stroke is a pixel), and at
# POOR_MATCH one zoo deck in three held its own tables as another design's. Each deck measures its
# own: its index corners seen as the overhead camera sees a card (OWN_VIEWS a card: turned a little,
# off the pixel grid, at table resolutions, blurred, noisy, JPEG), matched against its templates;
# its poor match is OWN_MARGIN under the OWN_QUANTILE of those scores, and never over POOR_MATCH (a
# clear deck keeps the rates measured above). The margin is what the rendered tables' cards (uneven
# light, perspective, glare) matched under these views on five zoo designs: 0.04 to 0.05 at the 5th
# percentile.
OWN_VIEWS = 2
OWN_PX_PER_MM = (1.9, 2.8)
OWN_BLUR_PX = (0.4, 1.0)
OWN_TURN_DEG = 3.0
OWN_NOISE = 3.0
OWN_JPEG = 80
OWN_QUANTILE, OWN_MARGIN = 0.05, 0.03
# A deck that matches itself less closely than POOR_MATCH (printed thin or small) is also less even
# from one table to the next: its cards' scores lie nearer its poor match, and a table's light, lens
# and JPEG, which all its cards share, move many of them under it at once. On the design zoo's
# rendered tables (38 designs, 4 tables each, cards apart and spread), the taught deck's worst tables
# were all of such decks, at 23% to 27% poor (11 of 47, 13 of 48: a thin print under a strong light
# gradient and JPEG at 61), and at TAUGHT_POOR_RATE six tables of 152 were held as another deck's,
# 39 to 49 cards each left unread. The same tables read with the next design's deck were 48% poor
# at the least (11 of 23), most of them all poor. Such a deck is declared another only beyond doubt
# at THIN_TAUGHT_POOR_RATE (of 49 cards, from 15 poor); the taught deck still only as before, so a
# table between the two names none of its poorly matching cards (on such a table a 6h of a spread
# matching 0.92 read as the 8h). (A clear deck keeps the rates above: a design alike in lettering
# read with one was 29% poor on a table, 8 of 28.)
THIN_TAUGHT_POOR_RATE = 0.10


class Verdict(enum.Enum):
    TAUGHT = "taught"  # the cards are of the taught deck: every read stands
    UNSURE = "unsure"  # too few cards to tell: a poorly matching card is not named
    OTHER = "other"  # another design: no card is named


@dataclass(frozen=True)
class DeckMatch:
    cards: int  # cards whose rank and suit were seen
    poor: int  # of them, those matching the taught deck poorly
    verdict: Verdict
    poor_match: float = POOR_MATCH  # the score a card matching the deck poorly is under

    @classmethod
    def of(cls, scores: Iterable[float | None], poor_match: float = POOR_MATCH) -> DeckMatch:
        """The verdict on the cards whose match scores are given (None: no index seen, no evidence),
        a card under ``poor_match`` (the deck's, ``own_poor_match``) matching poorly."""
        seen = [s for s in scores if s is not None]
        n, poor = len(seen), sum(s < poor_match for s in seen)
        beyond_a_clear_decks = n >= MIN_CARDS and _tail_at_least(poor, n, TAUGHT_POOR_RATE) < OTHER_DOUBT
        if beyond_a_clear_decks and (poor_match >= POOR_MATCH or _tail_at_least(poor, n, THIN_TAUGHT_POOR_RATE) < OTHER_DOUBT):
            return cls(n, poor, Verdict.OTHER, poor_match)
        # (a thin deck's table with more poor cards than a clear deck's shows is never taught: unsure)
        if not beyond_a_clear_decks and _tail_at_least(n - poor, n, 1 - OTHER_POOR_RATE) < TAUGHT_DOUBT:
            return cls(n, poor, Verdict.TAUGHT, poor_match)  # so few poor cards: not another design
        return cls(n, poor, Verdict.UNSURE, poor_match)

    def vouch(self, read):
        """The card read (a reader's CardRead) as it may be reported under this verdict."""
        if self.verdict is Verdict.OTHER:
            return replace(read, card=None, confidence=0.0, reason=f"unreadable: {DECK_MISMATCH}")
        if self.verdict is Verdict.UNSURE and read.card is not None and read.match is not None \
                and read.match < self.poor_match:
            return replace(read, card=None, confidence=0.0,
                           reason=f"unreadable: matches the taught deck poorly ({read.match:.2f}) and too few cards "
                                  f"are in view to tell that they are of the taught deck")
        return read


def _tail_at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def own_poor_match(corners: dict[str, np.ndarray], geometry, scored: Callable[[tuple, float], float | None],
                   seed: int = 0) -> float:
    """The score under which a card matches the deck poorly, from how its own ``corners`` (code ->
    index corner as learned) match it as the camera sees them (see OWN_QUANTILE): ``scored`` gives
    a view's match (its symbols found at a resolution) or None where none are found. Seeded, so a
    deck learned twice from the same faces matches alike."""
    rng = np.random.default_rng(seed)
    scores = []
    for code in sorted(corners):
        for _ in range(OWN_VIEWS):
            px = float(rng.uniform(*OWN_PX_PER_MM))
            score = scored(index_glyphs(_as_the_table_shows(corners[code], px, rng), geometry, px), px)
            if score is not None:
                scores.append(score)
    if len(scores) < MIN_CARDS:
        return POOR_MATCH
    return min(POOR_MATCH, float(np.quantile(scores, OWN_QUANTILE)) - OWN_MARGIN)


def _as_the_table_shows(corner: np.ndarray, px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    """An index corner (at CANON_PX_PER_MM) as a card's corner cut from a frame shows it: turned a
    little and off the pixel grid, seen at ``px_per_mm`` through a soft lens, noisy and JPEG-coded,
    and flattened back to CANON_PX_PER_MM."""
    h, w = corner.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-OWN_TURN_DEG, OWN_TURN_DEG)), 1.0)
    turn[:, 2] += rng.uniform(-2, 2, 2)
    turned = cv2.warpAffine(corner, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    scale = px_per_mm / CANON_PX_PER_MM
    small = cv2.resize(turned, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), float(rng.uniform(*OWN_BLUR_PX)))
    noisy = np.clip(small + rng.normal(0, OWN_NOISE, small.shape), 0, 255).astype(np.uint8)
    coded = cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, OWN_JPEG])[1], cv2.IMREAD_UNCHANGED)
    return cv2.resize(coded, (w, h), interpolation=cv2.INTER_LINEAR)
