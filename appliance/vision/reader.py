"""Reading the cards on the layout: zone by zone, card by card, never a guessed card.

Each zone is rectified through the calibration's homography, card outlines are found,
each card is flattened from the full-resolution frame, and both index corners (or, in a
hand spread with overlap, each card's corner in view) are cut into rank and suit and matched
against the learned templates (normalised cross-correlation, at each one-pixel shift). A
card is named only when both its rank and its suit win clearly (a score above the floor, and
much closer than the runner-up), the suit's ink colour agrees, and the two corners do not
disagree; anything else is reported as unreadable. Whether the cards are of the taught deck at
all is judged over many cards (:mod:`.deck_match`): a frame's, or what the caller has seen.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from .calibrate import Calibration
from .card_edge import on_edges, snap_to_edge
from .card_faces import CARD_H_MM, CARD_W_MM, Glyph, card_quads, flatten, index_corners, quad_px_per_mm
from .deck import Deck, Templates
from .deck_match import DECK_MISMATCH, EVIDENCE_MIN_PX_PER_MM, POOR_MATCH, DeckMatch, Verdict
from .face_picture import agrees, card_picture, compare, contradicts, picture_part, picture_part_width, tell
from .index import index_glyphs
from .layout import Layout, Zone
from .photo import CardOutline, find_cards, image_aspect
from .spread import SpreadCard, spread_corners, spread_pieces, spread_px_per_mm
from .spread_gaps import joker_about, with_gaps_filled, with_missed_joker, without_picture_places
from .whole_corner import JOKER

ZONE_PX_PER_MM = 3.0  # the zone image the audit log keeps
# Cards are found in a coarser view of the zone, sampled without interpolation (an outline needs
# less detail than a person checking the log: a third of the time), then read from the
# full-resolution frame.
FIND_PX_PER_MM = 2.0
ZONE_MARGIN_MM = 8.0
RED_SUITS = {"h", "d"}
BLACK_SUITS = {"c", "s", "*"}  # the joker's star is printed in black ink
JOKER_KEYS = {"JK", "*"}  # the joker's rank and suit templates: a joker has no other suit (rank)


@dataclass(frozen=True)
class Thresholds:
    score: float = 0.75  # normalised cross-correlation floor
    # The best's distance (1 - score) at most this share of the runner-up's: for a card read
    # from one corner alone, and (looser) for scores averaged over both corners. On 100 degraded
    # tables (4,900 cards) no card was misread even at 0.9 for two corners; of 9,800 single corners
    # of two designs (cards apart and spread) not one had a wrong best rank or suit, 2 a ratio over 0.7.
    ratio: float = 0.7
    ratio_agreeing: float = 0.8
    # ... and for a card read from one of two corners in view, the other's symbols found but
    # matching nothing: the glare or blur that spoilt that corner may have touched this one too
    # (a glared 4 reads 9 0.90, next 4 0.85: a ratio of 0.68).
    ratio_outweighed: float = 0.5
    # Templates learned at a resolution within this factor of the card's are compared with it: a
    # club seen at 3 px/mm is a blob much like a spade learned at 3, not like a sharp club; and a
    # card of another design matches the taught deck less closely (told apart over many cards).
    resolution_span: float = 1.3
    # A card the index names, seen whole, whose middle matches its own taught picture less than this
    # is not named (0: not asked): see PHOTO_THRESHOLDS.
    own_picture: float = 0.0
    red: float = 60.0  # suit ink at least this red is red ink
    black: float = 25.0  # ... and at most this red is black ink (between: the colour is not used)


@dataclass(frozen=True)
class CardRead:
    card: str | None
    confidence: float
    reason: str | None  # why it is unreadable; for a card read, how it was told where its index alone did not
    match: float | None  # how closely its rank and suit match the deck (None: no index seen, or too coarse to tell)
    center_mm: tuple[float, float]

    def to_json(self) -> dict:
        if self.card is None:
            return {"card": None, "reason": self.reason}
        return {"card": self.card, "confidence": round(self.confidence, 3)} | ({"reason": self.reason} if self.reason else {})


@dataclass
class FrameRead:
    zones: dict[str, list[CardRead]]
    warnings: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0

    def to_json(self) -> dict:
        return {"elapsed_ms": round(self.elapsed_ms, 1),
                "zones": {z: [c.to_json() for c in cards] for z, cards in self.zones.items() if cards},
                "warnings": self.warnings}


@dataclass(frozen=True)
class _Look:
    """One index corner's symbols scored against the deck: each rank's and suit's best score
    (in the templates' key order) and the suit's ink colour. The scores are kept as Python floats:
    deciding a card weighs a dozen of them a few times, where numpy's calls cost more than the sums."""

    ranks: list[float]
    suits: list[float]
    redness: float
    faint: bool  # its symbols were found again at their own ink cut (see index_glyphs)

    @classmethod
    def of(cls, corners: list[tuple[Glyph, Glyph]], deck: Deck, px_per_mm: float, span: float) -> list[_Look]:
        """Each corner's look, the corners' ranks (and suits) scored together."""
        return cls.of_cards([corners], deck, [px_per_mm], span)[0]

    @classmethod
    def of_cards(cls, cards: list[list[tuple[Glyph, Glyph]]], deck: Deck, px_per_mm: list[float],
                 span: float) -> list[list[_Look]]:
        """Each card's corners' looks (``of``), the cards that are compared with the same templates
        (seen at about one resolution: a zone's) scored together, in one product: numpy's calls for a
        card cost more than its arithmetic."""
        together: dict[tuple[int, int], tuple[Templates, Templates, list[int]]] = {}
        for i, px in enumerate(px_per_mm):
            ranks, suits = deck.rank_templates.near(px, span), deck.suit_templates.near(px, span)
            together.setdefault((id(ranks), id(suits)), (ranks, suits, []))[2].append(i)
        looks: list[list[_Look]] = [[] for _ in cards]
        for ranks, suits, members in together.values():
            corners = [(i, corner) for i in members for corner in cards[i]]
            if not corners:
                continue
            rank_scores = ranks.best([rank for _, (rank, _) in corners]).tolist()
            suit_scores = suits.best([suit for _, (_, suit) in corners]).tolist()
            for (i, (rank, suit)), r, s in zip(corners, rank_scores, suit_scores):
                looks[i].append(cls(r, s, suit.redness, rank.faint))
        return looks


def _colour(redness: float, t: Thresholds) -> set[str] | None:
    """The suits the ink's colour allows, where the colour is clear (None: any)."""
    if redness >= t.red:
        return RED_SUITS
    if redness <= t.black:
        return BLACK_SUITS
    return None


def _best_two(scores: list[float], keys: list[str]) -> tuple[float, str, float, str]:
    """The best score and its key, and the runner-up's (of keys that score alike, the later first)."""
    *_, second, first = sorted(range(len(scores)), key=scores.__getitem__)
    return scores[first], keys[first], scores[second], keys[second]


def _clarity(scores: list[float], floor: float) -> float:
    """How clearly a corner's scores name one key: 0 when the best is under the score floor (it
    matches nothing) or ties the runner-up, 1 when the best is perfect (one minus the distance
    ratio that ``_decide`` tests)."""
    *_, second, best = sorted(scores)
    if best < floor:
        return 0.0
    return min(max(1 - (1 - best) / max(1 - second, 1e-6), 0.0), 1.0)


def _weighted(values: list[float], weights: list[float]) -> float:
    return sum(w * v for w, v in zip(weights, values)) / sum(weights)


def _weighted_each(scores: list[list[float]], weights: list[float]) -> list[float]:
    """Each key's score weighted over the corners (``scores``: a list of scores a corner)."""
    return [_weighted(key_scores, weights) for key_scores in zip(*scores)]


class _Decision(NamedTuple):
    code: str | None
    confidence: float
    why: str
    # the cards the index puts forward (its best two ranks with its best two suits the ink's colour
    # allows, but a joker's symbol; none where it names a joker's), the one it names first ...
    candidates: tuple[str, ...]
    # ... and the two of them it leaves open, where only one part (the rank or the suit) is unclear
    # and its best two both pass the floor (else none): the card's picture may tell which; for a card
    # named, the suit of its rank that came close (``_close_suit``): its picture may refuse it
    rivals: tuple[str, ...]


def _decide(looks: list[_Look], deck: Deck, t: Thresholds) -> _Decision:
    """The card from one or both corners: each key's score is averaged over the corners, each corner
    weighed by how clearly it names a rank (a suit): a corner that matches nothing well (glare, blur,
    a smudge) then hardly pulls the clear one's scores down. The best must be clear of the runner-up:
    by the strict ratio when one corner carries the evidence, and the looser the more evenly both do
    (two looks at the same symbols)."""
    rank_w = [_clarity(look.ranks, t.score) + 1e-3 for look in looks]
    suit_w = [_clarity(look.suits, t.score) + 1e-3 for look in looks]
    colour = _colour(_weighted([look.redness for look in looks], suit_w), t)
    ranks = _weighted_each([look.ranks for look in looks], rank_w)
    suits = _weighted_each([look.suits for look in looks], suit_w)
    # a suit the ink's colour rules out still counts against the best it allows: a black blob whose
    # shape is a diamond's is no clearer a club for it (a joker's star read as a club that way)
    ruled_out = -math.inf
    if colour is not None:
        keys = deck.suit_templates.keys
        ruled_out = max((s for k, s in zip(keys, suits) if k not in colour), default=-math.inf)
        suits = [s if k in colour else -math.inf for k, s in zip(keys, suits)]
    faint = any(look.faint for look in looks)
    r_score, rank, r_next, r_other = _best_two(ranks, deck.rank_templates.keys)
    s_score, suit, s_next, s_other = _best_two(suits, deck.suit_templates.keys)
    rank_clear = r_score >= t.score and (1 - r_score) <= _ratio(rank_w, t, faint) * (1 - r_next)
    suit_clear = s_score >= t.score and (1 - s_score) <= _ratio(suit_w, t, faint) * (1 - max(s_next, ruled_out))
    both_suits = (suit, s_other) if math.isfinite(s_next) else (suit,)
    candidates = () if {rank, suit} & JOKER_KEYS else \
        tuple(r + s for r in (rank, r_other) for s in both_suits if not {r, s} & JOKER_KEYS)
    if not rank_clear:
        rivals = (rank + suit, r_other + suit) if r_other + suit in candidates and suit_clear and r_next >= t.score else ()
        return _Decision(None, r_score, f"rank unclear ({rank} {r_score:.2f}, next {r_other} {r_next:.2f})",
                         candidates, rivals)
    if not suit_clear:
        rivals = (rank + suit, rank + s_other) if rank + s_other in candidates and s_next >= t.score else ()
        return _Decision(None, s_score, f"suit unclear ({suit} {s_score:.2f}, next {s_other} {s_next:.2f})",
                         candidates, rivals)
    if (rank == "JK") != (suit == "*"):
        return _Decision(None, 0.0, f"rank {rank} with suit {suit}", (), ())
    code = "Jk" if rank == "JK" else rank + suit
    close = (code, rank + s_other) if rank + s_other in candidates and _close_suit(s_score, s_next, t) else ()
    return _Decision(code, min(r_score, s_score), "read", candidates, close)


def _close_suit(best: float, runner_up: float, t: Thresholds) -> bool:
    """A suit named that beat the runner-up (of its colour, over the floor) by less than two corners
    agreeing on one clear corner would need (``ratio_outweighed``): a card under another, one corner
    in view, is checked against the part of its picture beside it (deck-b taught at the camera's
    resolution named a Qc so a Qs; the part matched Qc 0.87, Qs 0.56). Of 2,876 such cards of the
    real decks, spread, 72 are named this closely."""
    return runner_up >= t.score and (1 - best) > t.ratio_outweighed * (1 - runner_up)


def _ratio(weights: list[float], t: Thresholds, faint: bool) -> float:
    """The runner-up test's ratio for scores weighed over corners: the strict one for one corner
    in view; for two, from the outweighed one (one corner carries the evidence) to the looser one
    (both, of equal weight), by the weights' effective number (1 to 2). With a faint corner among
    them, two are no looser than one: glare washes both corners alike, and they agree on its error."""
    if len(weights) == 1:
        return t.ratio
    # (three or four corners of a card printing four weigh no looser than two)
    corners = min(2.0, sum(weights) ** 2 / sum(w * w for w in weights))
    ratio = t.ratio_outweighed + (t.ratio_agreeing - t.ratio_outweighed) * (corners - 1)
    return min(ratio, t.ratio) if faint else ratio


def read_card(frame: np.ndarray, quad: np.ndarray, deck: Deck,
              t: Thresholds) -> tuple[str | None, float, str | None, float | None]:
    """The card at ``quad`` (frame pixels), from both its index corners (and its picture, where they
    leave two cards open)."""
    return read_cards(frame, [quad], deck, t)[0]


def read_cards(frame: np.ndarray, quads: list[np.ndarray], deck: Deck,
               t: Thresholds) -> list[tuple[str | None, float, str | None, float | None]]:
    """``read_card`` for each card at ``quads``, their corners scored together (``_Look.of_cards``)."""
    box = deck.index.box_mm
    px_per_mm = [quad_px_per_mm(quad) for quad in quads]
    corners = [index_corners(frame, quad, box) for quad in quads]
    found = [[index_glyphs(corner, deck.index, px) for corner in card] for card, px in zip(corners, px_per_mm)]
    looks = _Look.of_cards([_focused(card) for card in found], deck, px_per_mm, t.resolution_span)
    return [_read_glyphs(glyphs, deck, t, px, lambda quad=quad: card_picture(frame, quad, box), looks=card_looks,
                         again=_looked_again(card, deck, px), corners=list(card))
            for glyphs, card, quad, px, card_looks in zip(found, corners, quads, px_per_mm, looks)]


#: A card matching the deck poorly is refused where another card's whole corner is this much likelier
#: than its own (distance ratio, as symbols are tested; see ``_more_like``): a pale rank's corner, mostly
#: its suit, is as like another rank's (0.77), and cards named wrongly from symbols a frame line's stub
#: or a court's frame misled showed their own card's corner likelier at 0.53 and 0.58 (a 6d read 5d, a
#: Jd read Qd; zoo decks 7008 and 6005).
WHOLE_CORNER_RATIO = 0.67
#: A card whose symbols were cut out of ink they touched is refused where another card's whole corner is
#: as like it as its own, give or take this much of the own's distance: a Ks cut off its court's frame
#: named the Kc where its corner was the Ks's nearly as much (0.929 against 0.930; zoo deck 5003, its Js
#: face refused at learning). A margin of a quarter cost 150 of 9,408 zoo cards, a twentieth 40.
PARTED_RATIO = 1.05
#: A card seen at less than the lowest resolution the deck was learned at, over this, is not read.
LOWEST_SPAN = 1.6
#: An index corner whose ink's edges spread further than this (``card_faces.blur_mm``: an out-of-focus
#: camera, a card moving) is not read: symbols blurred that far match one another's templates
#: closely. A drawn design seen through 2 to 2.4 camera pixels of blur at 1.7 to 2.5 px/mm (0.8 to
#: 1.4 mm) had 6 to 18 of 106 views named wrongly, at scores up to 0.98; the accuracy bench's tables,
#: blurred up to 1.2 pixels, measure up to 0.72 mm on the blurrier of a card's corners (99% under 0.68).
MAX_BLUR_MM = 0.7


def _read_index(corners: list[np.ndarray], deck: Deck, t: Thresholds, px_per_mm: float,
                picture: Callable[[], np.ndarray] | None = None) -> tuple[str | None, float, str | None, float | None]:
    """(code, confidence, reason, match) of a card from its index corners in view, seen at
    ``px_per_mm`` (see ``_read_glyphs``)."""
    return _read_glyphs([index_glyphs(c, deck.index, px_per_mm) for c in corners], deck, t, px_per_mm, picture,
                        again=_looked_again(corners, deck, px_per_mm), corners=corners)


def _looked_again(corners: list[np.ndarray], deck: Deck,
                  px_per_mm: float) -> Callable[[], list[tuple[Glyph, Glyph] | None]]:
    """The corners' symbols looked at again, as glare may have left them (``index_glyphs``'s
    ``again``), when ``_read_glyphs`` asks."""
    return lambda: [index_glyphs(corner, deck.index, px_per_mm, again=True) for corner in corners]


def _read_glyphs(found: list[tuple[Glyph, Glyph] | None], deck: Deck, t: Thresholds, px_per_mm: float,
                 picture: Callable[[], np.ndarray] | None = None, part: bool = False,
                 again: Callable[[], list[tuple[Glyph, Glyph] | None]] | None = None,
                 looks: list[_Look] | None = None,
                 corners: list[np.ndarray] | None = None) -> tuple[str | None, float, str | None, float | None]:
    """(code, confidence, reason, match) from the rank and suit found in each of a card's index
    corners in view (None where a corner showed none), seen at ``px_per_mm``. With two, their scores
    are weighed by how clearly each corner matched (``_decide``), unless the corners alone name
    different cards; with one, the strict test. The match is the lower of the best rank's and the
    best suit's score, averaged over the corners. Where the corners leave two cards open and the card
    is seen whole, ``picture`` gives its middle to tell them apart (the reason then says so); where
    only the ``part`` of its middle nearest its index is in view, only a suit. Where the index leaves
    the card unclear, its rank is looked at ``again`` (glare may have washed a stroke out), and the
    strict test for one corner then holds for two; not where a rank runs on out of its corner.
    ``looks`` are the in-focus corners' looks where the caller scored them with other cards'. Given
    the card's index ``corners`` (a read that names it, not one that only weighs a choice), a card the
    deck was not taught is not named (``Deck.not_taught``)."""
    lowest = float(np.exp(min(deck.rank_templates.log_px_per_mm.min(), deck.suit_templates.log_px_per_mm.min())))
    if px_per_mm < lowest / LOWEST_SPAN:  # its symbols are a few pixels: no evidence either way
        return None, 0.0, (f"unreadable: the card is seen at {px_per_mm:.1f} px/mm, below the "
                           f"{lowest:.1f} px/mm the deck was learned down to"), None
    blurred = [g[0].blur for g in found if g is not None and g[0].blur > MAX_BLUR_MM]
    found, looks = _looks(found, deck, t, px_per_mm) if looks is None else (_in_focus(found), looks)
    judged = px_per_mm >= EVIDENCE_MIN_PX_PER_MM
    if not looks and blurred:
        return None, 0.0, (f"unreadable: out of focus (its index's edges spread {min(blurred):.2f} mm, "
                           f"over the {MAX_BLUR_MM} mm a symbol is told at)"), None
    if not looks:
        told = _whole_corner(deck, corners) if corners else None
        if told is not None:  # (a joker, or an untaught card: no evidence of another deck either way)
            return (*told, None)
        # both corners of a card in view, and neither shows a rank and a suit where the taught deck
        # prints them: the card does not look like the taught deck at all (another maker's index
        # lies elsewhere), which many such cards tell (one glare spot does not)
        none = 0.0 if judged and len(found) > 1 else None
        return None, 0.0, "unreadable: no rank and suit found in the index corner" + ("s" if len(found) > 1 else ""), none
    match = _evidence(looks, t) if judged else None
    decision = _decide(looks, deck, t)
    # A thin font's strokes broken at the corner's ink cut are whole at their own (the second look),
    # and are no sign of another deck: a card named poorly is looked at again for its match (a
    # FreeMono 8 matched 0.49 at the first look, 0.90 at the second; 11 of a spread's 48 cards were
    # that poor at the first). Not where a rank runs on out of its corner: the corner holds only part
    # of it, placed off the card's index, and the part's pale ink round it taken in, what was left of
    # a 10 matched a K.
    poor = match is not None and match < deck.poor_match
    if again is not None and (decision.code is None or poor) and not any(g is not None and g[0].runs_out for g in found):
        # only the rank is taken from the second look: the suit stays as first seen
        found_again, looks_again = _looks([(second[0], first[1]) if first is not None and second is not None else first
                                           for first, second in zip(found, again())], deck, t, px_per_mm)
        second_decision = _decide(looks_again, deck, t) if looks_again else None
        if second_decision is not None and second_decision.code is not None and decision.code is None:
            found, looks, decision = found_again, looks_again, second_decision
            match = _evidence(looks, t) if judged else None
        elif second_decision is not None and second_decision.code == decision.code is not None and judged:
            match = max(match, _evidence(looks_again, t))
    # two corners that each alone name a card and disagree refuse it, however the weighing would
    # settle it (under the looser test, a corner alone names a wrong suit now and then)
    alone = {_decide([look], deck, t).code for look in looks} - {None} if len(looks) > 1 else set()
    code, confidence, why, candidates, rivals = decision
    told = None
    # A part of the picture (a card under another in a spread) shows its pips nearest its index, and
    # the next card's beside them: the same for either suit of one rank, not for two ranks (it read
    # a 6 as an 8); it only tells a suit the index leaves open, or refuses one the index named close.
    asked = (code is not None or rivals) if not part else bool(rivals) and rivals[0][0] == rivals[1][0]
    if picture is not None and len(candidates) > 1 and asked:
        # the card's middle: it tells one of two cards the index leaves open, and refuses the card
        # the index names where it plainly shows another the index put forward
        scores, how = compare(picture(), deck.pictures, rivals if part else candidates)
        # (a named card whose taught part in view is blank, an ace's paper, is not scored: no evidence)
        if scores and code in scores and contradicts(scores, code):
            return None, 0.0, f"unreadable: the index reads {code} but {how}", match
        if code is not None and rivals and scores and set(rivals) <= set(scores) and not agrees(scores, *rivals) \
                and (_matched(looks) < POOR_MATCH or _cut_from_touching(found)):
            # a suit named close to another of its colour, by symbols matching the deck poorly or cut
            # out of ink they touched (the cut or what lies beside them may have misled them), stands
            # only where the picture leans to it too: a court's picture printed alike for every suit
            # leaves it open (a spade joined to a court's frame read a club: 0.90, next spade 0.84, the
            # pictures 0.99 and 0.99; a spade standing on the frame, cut off it with a foot of the
            # frame kept, matched a club 0.95 against 0.89)
            return None, 0.0, (f"unreadable: the index reads {code} ({_matched(looks):.2f}), {rivals[1]} close behind, "
                               f"and {how}"), match
        if scores and code in scores and not part and scores[code] < t.own_picture:
            return None, 0.0, (f"unreadable: the index reads {code} but the card's middle does not look like the "
                               f"taught {code} ({scores[code]:.2f}): a card of another deck?"), match
        shown = tell(scores) if scores and code is None else None
        both = bool(rivals) and bool(scores) and set(rivals) <= set(scores)  # neither blank where in view
        if both and shown in rivals:
            code, told = shown, f"told by its picture: {why} at the index; {how}"
        elif both and code is None and rivals[0][0] == rivals[1][0] and agrees(scores, *rivals) \
                and (part or not contradicts(scores, rivals[0])):
            # (two suits of a rank: where the index leans to the wrong one, the picture has not; a
            # whole card's picture that plainly shows another rank refuses it, as it refuses a card
            # its index names, where a part shows the pips nearest the index alike for two ranks)
            code, told = rivals[0], f"told by its picture, as the index leans: {why} at the index; {how}"
        elif code is None:
            why = f"{why} at the index; {how}"
    if len(alone) > 1 or code is not None and alone and code not in alone:
        return None, 0.0, f"unreadable: the {'two ' if len(looks) == 2 else ''}corners read {' and '.join(sorted(alone | {code} - {None}))}", match
    if code is None:
        told = _whole_corner(deck, corners) if corners else None
        if told is not None:
            # a card under another in a spread has its corner placed by the ink the spread took for its
            # index, not by its own edge, and it may lie on the card's picture: a joker told there by a
            # coarse corner where symbols were found keeps their match, and where too few cards tell that
            # the deck is the taught one it is named no more than any card matching the deck poorly (a Jc,
            # its corner on its picture's pip, had a rank and a suit that matched 0.61 and 0.86, and its
            # corner looked like a star joker's, 0.82 against 0.47). A card lying whole has its corner at
            # its own: a joker there matched its symbols 0.18 to 0.76, and a hand of seven is always
            # too few to tell.
            return (*told, match if told[0] is not None and part else None)
        return None, 0.0, f"unreadable: {why}" + ("" if len(looks) == len(found) else " (one corner only)"), match
    untaught = deck.not_taught(code, corners) if corners is not None else None
    if untaught is not None:
        return None, 0.0, f"unreadable: {untaught}", match
    other = _more_like(deck, code, corners, looks, _cut_from_touching(found), t)
    if other is not None:
        return None, 0.0, f"unreadable: {other}", match
    return code, confidence, told, match


def _matched(looks: list[_Look]) -> float:
    """How closely a card's corners match the deck: the lower of the best rank's and the best suit's
    score, averaged over the corners."""
    return sum(min(max(look.ranks), max(look.suits)) for look in looks) / len(looks)


def _evidence(looks: list[_Look], t: Thresholds) -> float:
    """How closely a card matches the deck where it is seen, the evidence of which deck is in play: each
    corner's match weighed as ``_decide`` weighs it, by how clearly it names a rank and a suit. A corner
    the next card of a spread covers matches nothing clearly, and is no sign of another deck (a 7h
    matched 0.98 at its corner in view, 0.24 at the covered one: 0.61 averaged, and eight such cards of
    a spread's 33 held the whole frame as another deck's); a card of another deck matches poorly at both.
    """
    weights = [_clarity(look.ranks, t.score) + _clarity(look.suits, t.score) + 1e-3 for look in looks]
    return _weighted([min(max(look.ranks), max(look.suits)) for look in looks], weights)


def _more_like(deck: Deck, code: str, corners: list[np.ndarray] | None, looks: list[_Look], parted: bool,
               t: Thresholds) -> str | None:
    """Why a card its symbols name, matching under the POOR_MATCH of clear decks (a deck printed thin
    judges whether it is in play at its own ``poor_match``, lower, but its cards that match under
    POOR_MATCH are the ones a cut or a neighbour may have misled), or cut out of ink they touched
    however well they match, is not named: its whole index corner, compared as cut, looks more like
    another card's than like its own. Where its symbols were cut out of ink they touched
    (``parted``), a rival nearly as alike as its own (PARTED_RATIO) refuses it (a spade touching both a J's tail and a
    court's frame, cut from both, matched a club 0.94 against 0.80; its corner was the Js's, 0.98
    against 0.97; a club standing on a court's frame, cut off it with a piece of the frame kept,
    matched a spade 0.95 against 0.88: its corner was the Qc's, 0.96 against 0.93); otherwise a rival only where it is clearly likelier, its
    distance (1 - likeness) at most WHOLE_CORNER_RATIO of the own's (a 10 under another card in a
    spread, read 3 at 0.84: its corner was the 10's, 0.97 against 0.87). A rank printed pale leaves a
    corner that is mostly its suit, nearly as like another rank's as its own (a 2 at 0.87 against a
    7 at 0.90): that is no evidence. Corners are compared in grey: where the ink's colour is clear,
    only cards of its colour are rivals (a 5d cut from ink it touched looked as much like the 5s,
    0.93 against 0.92). None where the card matches well (most cards: the comparison is not made) or
    its own corner holds."""
    score = _matched(looks)
    if corners is None or score >= POOR_MATCH and not parted:
        return None
    colour = _colour(sum(look.redness for look in looks) / len(looks), t)
    among = None if colour is None else {c for c in deck.kept_corners.learned if c[-1] in colour}
    rival = deck.kept_corners.more_like(code, corners, PARTED_RATIO if parted else WHOLE_CORNER_RATIO, among)
    if rival is None:
        return None
    like, likeness, own = rival
    return (f"the index reads {code} ({score:.2f}) but its whole corner looks {'nearly as much' if parted else 'more'} "
            f"like {like}'s ({likeness:.2f} against {own:.2f})")


def _whole_corner(deck: Deck, corners: list[np.ndarray]) -> tuple[str | None, float, str] | None:
    """A card its symbols leave unnamed, told by its whole index corner (:mod:`.whole_corner`): the
    joker where the deck taught it so and the corners are clearly its (code, confidence, how), or the
    untaught card (or refused face, ``Deck.witnesses``) they look most like (unreadable, and why);
    None where neither."""
    kept = deck.kept_corners
    if kept.joker is None and not kept.untaught:
        return None
    joker = kept.joker_named(corners)
    if joker is not None:
        return JOKER, joker[0], f"told by its whole corner: the joker ({joker[0]:.2f}; next {joker[1]} {joker[2]:.2f})"
    if not kept.untaught:
        return None
    scores = kept.scores(corners)
    like = max(scores, key=scores.__getitem__)
    if like not in kept.untaught:
        return None
    if like in deck.untaught:
        return None, 0.0, f"unreadable: not taught: its index corner looks most like {like} ({scores[like]:.2f}): {deck.untaught[like]}"
    return None, 0.0, f"unreadable: its index corner looks most like {like} ({scores[like]:.2f}), {deck.witness_why(like)}"


def _looks(found: list[tuple[Glyph, Glyph] | None], deck: Deck, t: Thresholds,
           px_per_mm: float) -> tuple[list[tuple[Glyph, Glyph] | None], list[_Look]]:
    """The corners' symbols, None where out of focus, and each in-focus corner's scores."""
    return _in_focus(found), _Look.of(_focused(found), deck, px_per_mm, t.resolution_span)


def _in_focus(found: list[tuple[Glyph, Glyph] | None]) -> list[tuple[Glyph, Glyph] | None]:
    """The corners' symbols, None where a corner showed none or is out of focus (MAX_BLUR_MM)."""
    return [None if g is None or g[0].blur > MAX_BLUR_MM else g for g in found]


def _cut_from_touching(found: list[tuple[Glyph, Glyph] | None]) -> bool:
    """Whether a card's symbols in focus were cut out of ink they touched (a rank's foot on its suit,
    a suit on a court's frame): the cut may be off, so what they match is weaker evidence. (The index
    parts a corner's rank and suit together, so both symbols of a corner say the same.)"""
    return any(glyphs[0].parted for glyphs in _focused(found))


def _focused(found: list[tuple[Glyph, Glyph] | None]) -> list[tuple[Glyph, Glyph]]:
    """The symbols of the corners in focus: those that are scored."""
    return [g for g in _in_focus(found) if g is not None]


def _zone_transform(zone: Zone, s: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Layout mm -> rectified zone pixels at ``s`` px/mm, and the zone image size."""
    m = ZONE_MARGIN_MM
    to_zone = np.array([[s, 0, -s * (zone.x - m)], [0, s, -s * (zone.y - m)], [0, 0, 1]], np.float64)
    size = (round((zone.width + 2 * m) * s), round((zone.height + 2 * m) * s))
    return to_zone, size


def zone_image(frame: np.ndarray, zone: Zone, calibration: Calibration, px_per_mm: float = ZONE_PX_PER_MM,
               interpolation: int = cv2.INTER_AREA) -> tuple[np.ndarray, np.ndarray]:
    """The zone seen from straight above (at ZONE_PX_PER_MM what the audit log keeps), and
    the frame-to-zone transform."""
    to_zone, size = _zone_transform(zone, px_per_mm)
    frame_to_zone = to_zone @ np.linalg.inv(calibration.homography)
    return cv2.warpPerspective(frame, frame_to_zone, size, flags=interpolation), frame_to_zone


#: An outline this much narrower and shorter than a card is cut inside its edge: at a dark line printed
#: near the edge (a double border 1.8 mm in, on a 2 px/mm frame), not at the paper's edge.
UNDERSIZED_MM = 2.0


def _on_its_edge(frame: np.ndarray, quad: np.ndarray, quad_mm: np.ndarray) -> np.ndarray:
    """A card's outline in the frame (``quad``; ``quad_mm`` the same in the zone's millimetres), moved onto
    the card's own edge where it was found well inside it (every card cut 1.6 mm inside each side, its
    index off its learned place, matched the deck 0.85-0.92 against its own 0.94, and each table of the
    deck was held as another deck's). An outline of about a card's size is kept as found: moved by a
    fraction of a millimetre, a card of another deck matched the taught one better."""
    sides = [float(np.linalg.norm(quad_mm[i] - quad_mm[(i + 1) % 4])) for i in range(4)]
    short, long = sorted(sides)[1], sorted(sides)[2]
    if short > CARD_W_MM - UNDERSIZED_MM or long > CARD_H_MM - UNDERSIZED_MM:
        return quad
    return snap_to_edge(frame, quad)


def read_zone(frame: np.ndarray, zone: Zone, deck: Deck, calibration: Calibration,
              t: Thresholds = Thresholds()) -> list[CardRead]:
    """The zone's cards as they match the deck, left to right; whether they are of the taught deck
    is for the caller to judge over all the cards it sees (``DeckMatch``)."""
    to_zone, _ = _zone_transform(zone, FIND_PX_PER_MM)
    image, frame_to_zone = zone_image(frame, zone, calibration, FIND_PX_PER_MM, cv2.INTER_NEAREST)
    cards, odd = card_quads(image, FIND_PX_PER_MM)
    zone_to_frame = np.linalg.inv(frame_to_zone)
    zone_to_mm = np.linalg.inv(to_zone)

    def mm(point) -> tuple[float, float]:
        x, y = cv2.perspectiveTransform(np.asarray(point, np.float64).reshape(1, 1, 2), zone_to_mm)[0, 0]
        return float(x), float(y)

    frame_quads = [_on_its_edge(frame, cv2.perspectiveTransform(quad[None].astype(np.float64), zone_to_frame)[0],
                                quad / FIND_PX_PER_MM) for quad in cards]
    reads = [CardRead(*read, mm(quad.mean(axis=0))) for quad, read in zip(cards, read_cards(frame, frame_quads, deck, t))]
    for quad in spread_pieces(odd, FIND_PX_PER_MM):
        seen_px = spread_px_per_mm(quad, zone_to_frame)

        def name(glyphs, px=seen_px) -> str | None:
            return _read_glyphs([glyphs], deck, t, px)[0]

        spread = spread_corners(frame, quad, zone_to_frame, FIND_PX_PER_MM, deck, name)
        if spread is None:
            reads.append(CardRead(None, 0.0, "unreadable: no whole card outline (overlapping, covered or torn)",
                                  None, mm(quad.mean(axis=0))))
            continue
        expected = None if zone.expected_cards is None else zone.expected_cards - len(reads)
        spread = without_picture_places(spread, expected, name)
        spread = with_gaps_filled(frame, with_missed_joker(frame, spread, deck, frame_to_zone), deck, frame_to_zone,
                                  seen_px)
        reads += [CardRead(*read, mm(card.centre)) for card, read in zip(spread, _read_spread(frame, spread, deck, t, seen_px))]
    near = (deck.index.box_mm[2] - deck.index.box_mm[0]) / 2
    return sorted(once_each(reads, near), key=lambda r: r.center_mm[0])  # left to right on the layout


def once_each(reads: list[CardRead], near_mm: float) -> list[CardRead]:
    """The reads with any two of one card made one: a spread's top card may be found by its own
    outline too (a shadow along its edge parts it from the cards under it), and read twice. Two
    cards of a zone lie further apart than ``near_mm`` (half an index's width: a spread shows each
    card's index); of two reads of one card, the one that names it stands, and two that name
    different cards are one card left unreadable. (The spread's read of an 8c stood within a
    millimetre of its outline's, which read no card, and the hand seemed to hold one card more.)

    >>> a, b = CardRead("8c", 0.97, None, 0.97, (1690.9, 640.2)), CardRead(None, 0.0, "unreadable", 0.46, (1690.1, 641.0))
    >>> [r.card for r in once_each([b, a], 5.0)], [r.card for r in once_each([a, b], 5.0)]
    (['8c'], ['8c'])
    >>> once_each([a, CardRead("5c", 0.96, None, 0.96, (1692.0, 640.0))], 5.0)[0].reason
    'unreadable: read twice, as 5c and as 8c'
    >>> len(once_each([a, CardRead("5c", 0.96, None, 0.96, (1669.1, 643.3))], 5.0))
    2
    """
    out: list[CardRead] = []
    for read in reads:
        twin = next((n for n, kept in enumerate(out) if math.dist(kept.center_mm, read.center_mm) < near_mm), None)
        if twin is None:
            out.append(read)
        elif out[twin].card is None or read.card not in (None, out[twin].card):
            named = {out[twin].card, read.card} - {None}
            out[twin] = read if len(named) < 2 else CardRead(
                None, 0.0, f"unreadable: read twice, as {' and as '.join(sorted(named))}", None, read.center_mm)
    return out


def _read_spread(frame: np.ndarray, spread: list[SpreadCard], deck: Deck, t: Thresholds,
                 seen_px: float) -> list[tuple[str | None, float, str | None, float | None]]:
    """(code, confidence, reason, match) of each card of a hand spread with overlap, each from its
    corners in view, the cards' corners scored together."""
    looks = _Look.of_cards([_focused(card.glyphs) for card in spread], deck, [seen_px] * len(spread),
                           t.resolution_span)
    reads: list[tuple[str | None, float, str | None, float | None]] = []
    for card, over, card_looks in zip(spread, [*spread[1:], None], looks):
        if not card.told_apart:
            reads.append((None, 0.0, "unreadable: a deck printing its index in all four corners, spread about as "
                                     "wide as a card's two top indices lie apart: which index is whose cannot be told "
                                     "(spread the hand closer)", None))
            continue
        # the top card (the last, its two corners in view) lies whole: its picture is in view too;
        # a card under another shows the part of its picture up to that card's edge
        if over is None:
            picture = (lambda c=card: card_picture(frame, c.outline, deck.index.box_mm, ordered=True)) \
                if len(card.corners) > 1 else None
        else:
            shown_mm = float(np.linalg.norm(over.outline[0] - card.outline[0])) / seen_px
            picture = (lambda c=card, w=shown_mm: picture_part(frame, c.outline, deck.index.box_mm, w)) \
                if picture_part_width(deck.index.box_mm, shown_mm) else None
        code, confidence, reason, match = _read_glyphs(card.glyphs, deck, t, seen_px, picture, over is not None,
                                                       _looked_again(card.corners, deck, seen_px), card_looks,
                                                       card.corners)
        if code is None and _cut_from_touching(card.glyphs):
            # a card left unread whose symbols were cut out of ink they touched (a rank's foot on
            # its suit, a suit on a court's frame) tells nothing of which deck is in play: the cut
            # made it match poorly, and it names no card (a card named still counts, and is
            # refused under an unsure verdict where it matches poorly)
            match = None
        reads.append((code, confidence, reason, match))
    return _named_once(_joker_placed_off(frame, spread, reads, deck))


def _named_once(reads: list[tuple[str | None, float, str | None, float | None]]
                ) -> list[tuple[str | None, float, str | None, float | None]]:
    """The reads of a spread, none named where it names one card twice: a deck holds each card once,
    so the spread took one card's two indices for two cards' (a deck printing four corners, its top
    card's top-right index taken for the next card's), and every card of it may carry its neighbour's
    name (a 7c read as the 6c beside it, at both its corners alike, 0.98).

    >>> [r[0] for r in _named_once([("Jd", 0.9, None, 0.9), ("6c", 0.9, None, 0.9)])]
    ['Jd', '6c']
    >>> [r[2] for r in _named_once([("Jd", 0.9, None, 0.9), ("6c", 0.9, None, 0.9), ("Jd", 0.9, None, 0.9)])][1]
    'unreadable: the spread names Jd twice: which index is whose is not sure'
    """
    named = Counter(code for code, *_ in reads if code is not None)
    twice = sorted(code for code, n in named.items() if n > 1)
    if not twice:
        return reads
    why = f"unreadable: the spread names {' and '.join(twice)} twice: which index is whose is not sure"
    return [(None, 0.0, why, match) for _, _, _, match in reads]


def _joker_placed_off(frame: np.ndarray, spread: list[SpreadCard],
                      reads: list[tuple[str | None, float, str | None, float | None]],
                      deck: Deck) -> list[tuple[str | None, float, str | None, float | None]]:
    """The ``reads`` of a spread with the one card left unread near whose place the joker's corner
    is found (``spread_gaps.joker_about``: the spread placed it off, by ink that is no index) named
    the joker; as they were where the spread names a joker already, or the joker is found near more
    than one unread card (a deck holds one)."""
    if any(code == JOKER for code, *_ in reads):
        return reads
    found = [(n, joker) for n, (card, read) in enumerate(zip(spread, reads))
             if read[0] is None and card.told_apart and (joker := joker_about(frame, card.outline, deck)) is not None]
    if len(found) != 1:
        return reads
    n, joker = found[0]
    return [*reads[:n], (*joker, None), *reads[n + 1:]]  # (named by its corner: no evidence of the deck either way)


def read_frame(frame: np.ndarray, layout: Layout, deck: Deck, calibration: Calibration,
               zones: list[str] | None = None, t: Thresholds = Thresholds()) -> FrameRead:
    start = time.perf_counter()
    result = FrameRead({})
    for zone in layout.zones:
        if zones is not None and zone.name not in zones or zones is None and zone.name == "teach":
            continue
        reads = read_zone(frame, zone, deck, calibration, t)
        result.zones[zone.name] = reads
        expected = zone.expected_cards
        if reads and expected and len(reads) != expected:
            result.warnings.append(f"{zone.name}: {len(reads)} cards where {expected} are expected")
    match = DeckMatch.of((r.match for reads in result.zones.values() for r in reads), deck.poor_match)
    result.zones = {name: [match.vouch(r) for r in reads] for name, reads in result.zones.items()}
    if match.verdict is Verdict.OTHER:
        result.warnings.append(DECK_MISMATCH)
    if calibration.stale:
        result.warnings.append("markers covered: the last good calibration was used")
    result.elapsed_ms = (time.perf_counter() - start) * 1000
    return result



# --- cards in a photo, without a layout -------------------------------------------------------

#: Outlines closer to square than this in the photo may be a card seen end-on in a steep
#: perspective: the card is read both ways round.
AMBIGUOUS_ASPECT = (0.8, 1.25)


@dataclass(frozen=True)
class PhotoCard:
    card: str | None
    confidence: float
    reason: str | None
    outline: CardOutline

    def to_json(self) -> dict:
        x, y = self.outline.center
        return {"card": self.card, "confidence": round(self.confidence, 3), "reason": self.reason,
                "center": [round(x, 1), round(y, 1)], "outline": [[round(float(a), 1), round(float(b), 1)]
                                                                  for a, b in self.outline.corners]}


@dataclass
class PhotoRead:
    cards: list[PhotoCard]
    elapsed_ms: float = 0.0

    def to_json(self) -> dict:
        return {"elapsed_ms": round(self.elapsed_ms, 1), "cards": [c.to_json() for c in self.cards]}


def _read_outline(photo: np.ndarray, outline: CardOutline, deck: Deck, t: Thresholds) -> tuple[str | None, float, str | None]:
    """One card of a photo from both its index corners, the card taken portrait as the photo
    shows it and, where the outline is near square, also the other way round."""
    box = deck.index.box_mm
    turns = (0, 1) if AMBIGUOUS_ASPECT[0] <= image_aspect(outline.corners) <= AMBIGUOUS_ASPECT[1] else (0,)
    reads = []
    for turn in turns:
        quad = np.roll(outline.corners, turn, axis=0)
        corners = [flatten(photo, np.roll(quad, half, axis=0), box, ordered=True) for half in (0, 2)]
        reads.append(_read_index(corners, deck, t, quad_px_per_mm(outline.corners),
                                 lambda quad=quad: card_picture(photo, quad, box, ordered=True))[:3])
    named = {code for code, _, _ in reads if code is not None}
    if len(named) > 1:
        return None, 0.0, f"unreadable: the card reads {' or '.join(sorted(named))} as it is turned"
    best = max(reads, key=lambda r: (r[0] is not None, r[1]))
    if best[0] is None and outline.cut:
        return None, 0.0, best[2] + " (the card is cut by the photo's edge)"
    return best


#: A photo from any camera, without a layout's calibration, lit and focused as it comes: each
#: corner alone must win as clearly as on the table before the looser test for two was measured,
#: and a card's resolution is only estimated from its outline (perspective varies it across the card).
#: A photo holds too few cards to tell that they are of the taught deck (``DeckMatch`` weighs a
#: table's 49), so each card named vouches for it with its middle: deck-b's photos read with deck-a's
#: deck named a Qs the Qc from two corners (suits 0.91 and 0.89 against 0.86 and 0.84), its middle
#: matching the taught Qc 0.29. Each deck's own cards matched their taught pictures at least 0.81 in
#: its 15 photos and 0.57 on 1,960 cards lying apart in rendered frames (deck-b's Qd, shown from
#: another photo than the taught one); the other deck's courts 0.27 to 0.29, its pip cards (named
#: right, their pips laid out alike) at least 0.83.
PHOTO_THRESHOLDS = Thresholds(ratio=0.5, resolution_span=1.6, own_picture=0.45)


def read_photo(photo: np.ndarray, deck: Deck, t: Thresholds = PHOTO_THRESHOLDS) -> PhotoRead:
    """Every card in a photo (no layout, any background, in perspective), each named from its
    index corners or reported unreadable with the reason."""
    start = time.perf_counter()
    cards = [PhotoCard(*_read_outline(photo, outline, deck, t), outline) for outline in on_edges(photo, find_cards(photo))]
    return PhotoRead(cards, (time.perf_counter() - start) * 1000)
