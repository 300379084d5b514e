"""The cards a spread passed by: the joker, found by its whole index corner, and any card in the
room an evenly spread hand leaves for it.

A spread's cards are found and placed by their indices (a rank above a suit, ``spread``). A joker
prints none: its word, star or picture stands where no rank does, so the spread either places it
by other ink (a few millimetres off) or passes it by; and an index cut out of ink it touched, or
matching the deck poorly, is no index the spread trusts past its first card. A hand a card short is
no hand. A deck that taught its joker by its whole corner (``whole_corner.KeptCorners``) finds it
near where the spread placed a card it could not name, and in the gap an evenly spread hand leaves
between two cards where the spread passed one by; any other card passed by between two is put in
its gap and read there as at any place.
"""

from __future__ import annotations

import cv2
import numpy as np

from .card_faces import CARD_H_MM, CARD_W_MM, flatten
from .deck import Deck
from .index import index_glyphs
from .spread import CARD_MM, Namer, SpreadCard
from .whole_corner import JOKER

#: How far from where a spread places a card its corner may lie, as a share of the index box's
#: width, where the card shows no rank and suit to place it by: the spread puts it by the ink it
#: finds in an index's box, and a joker's word or picture may start anywhere in it (seen 6.5 mm off
#: in a box 14.6 mm wide). Less than a box's width: a neighbour's corner lies at least that far.
JOKER_SEARCH_SHARE = 0.6
#: A gap between two cards of a spread this many times its step (the median) holds a card passed by;
#: a card put in room left for one lies within this share of a step of its middle.
GAP_STEPS, MAX_STEP_SHARE = 1.6, 0.3


def joker_about(frame: np.ndarray, outline: np.ndarray, deck: Deck,
                reach_mm: float | None = None) -> tuple[str, float, str] | None:
    """The joker of a spread, its corner found near where its ``outline`` (frame pixels, upright)
    places it, within ``reach_mm`` (at most JOKER_SEARCH_SHARE of the index's width) of it
    (``KeptCorners.joker_within``): (code, confidence, how); None where it is not clearly there."""
    if deck.kept_corners.joker is None:
        return None
    x0, y0, x1, y1 = deck.index.box_mm
    r = min(JOKER_SEARCH_SHARE * (x1 - x0), reach_mm or np.inf)
    joker = deck.kept_corners.joker_within(flatten(frame, outline, (x0 - r, y0 - r, x1 + r, y1 + r), ordered=True))
    if joker is None:
        return None
    return JOKER, joker[0], (f"told by its whole corner, found near where the spread places it: the joker "
                             f"({joker[0]:.2f}; next {joker[1]} {joker[2]:.2f})")


def with_missed_joker(frame: np.ndarray, cards: list[SpreadCard], deck: Deck,
                      frame_to_zone: np.ndarray) -> list[SpreadCard]:
    """The spread's ``cards`` with the joker the spread passed by put in its place. A hand is
    spread evenly: a card passed by between two leaves a gap of two steps, and a top card passed by
    leaves the last card placed with no second corner (the top card's far index, turned round, is
    the one the spread gives a second corner); the kept joker's corner is looked for in the middle
    of each such gap and a step past such a last card (as ``joker_about`` looks near a card's), and
    where it is clearly seen at one place, a card is put there. Not before the first card, nor past
    a top card found: there lie the cloth and the top card's pips, which no kept corner is like, and
    a joker drawn as one large symbol (a star) looked more like a spade's pip than any (0.80 against
    0.52). Not where fewer than three cards are placed: the spread's step is not known."""
    if deck.kept_corners.joker is None or len(cards) < 3:
        return cards
    to_frame, placed, step = _spread_steps(cards)
    room = [(a + b) / 2 for a, b in zip(placed, placed[1:]) if b - a >= GAP_STEPS * step]
    if len(cards[-1].corners) < 2:  # (the spread's order: the top card last)
        room.append(placed[-1] + step)
    seen = [x for x in room if joker_about(frame, _outline_at(to_frame, x), deck, MAX_STEP_SHARE * step) is not None]
    if len(seen) != 1:
        return cards
    joker = _card_at(frame, to_frame, seen[0], deck, frame_to_zone, None, cards[0].told_apart)
    return sorted([*cards, joker], key=lambda card: _along(to_frame, card.outline[0]))


def without_picture_places(cards: list[SpreadCard], expected: int | None, name: Namer) -> list[SpreadCard]:
    """The spread's ``cards`` without the places it took in the pictures between them, where the
    cards its corners clearly ``name`` are the hand the zone holds (``expected``) and lie evenly
    spread: a court's picture printed beside its index shows columns of ink halfway between two
    cards' indices, and the spread placed a card at each (nine places for a hand of five, four of
    them unread), so the hand seemed to hold nine, and the unread places' poor matches held the
    table as another deck's. A hand with a card the spread could not name keeps every place (every
    other card of it unread is as evenly placed)."""
    if expected is None or len(cards) <= expected:
        return cards
    named = [card for card in cards if any(name(glyphs) is not None for glyphs in card.glyphs if glyphs is not None)]
    if len(named) != expected or len(named) < 3:
        return cards
    _, placed, step = _spread_steps(named)
    steps = np.diff(placed)
    return named if abs(steps - step).max() <= MAX_STEP_SHARE * step else cards


def with_gaps_filled(frame: np.ndarray, cards: list[SpreadCard], deck: Deck, frame_to_zone: np.ndarray,
                     seen_px: float) -> list[SpreadCard]:
    """The spread's ``cards`` with a card put in each room an evenly spread hand leaves for one
    between two (a gap of two steps, or more for more cards): a card the spread passed by, its index
    not taken for one (cut out of ink it touched, or matching the deck poorly, it is no index the
    spread may trust past its first card). Its corner is cut where the gap places it and its
    symbols found there as at any place: the reader names it only where they name it clearly, and
    otherwise reports an unreadable card where the hand would seem a card short (the rest of it read:
    a hand missing a card was left unread whole)."""
    if len(cards) < 3:
        return cards
    to_frame, placed, step = _spread_steps(cards)
    room = [a + (b - a) * k / n for a, b in zip(placed, placed[1:]) if b - a >= GAP_STEPS * step
            for n in [max(2, round((b - a) / step))] for k in range(1, n)]
    added = [_card_at(frame, to_frame, x, deck, frame_to_zone, seen_px, cards[0].told_apart) for x in room]
    return sorted([*cards, *added], key=lambda card: _along(to_frame, card.outline[0])) if added else cards


def _spread_steps(cards: list[SpreadCard]) -> tuple[np.ndarray, list[float], float]:
    """The first card's mm -> frame transform, where along its top edge each card lies (mm, in
    order), and the spread's step (the median between neighbours)."""
    to_frame = cv2.getPerspectiveTransform(CARD_MM.astype(np.float32), cards[0].outline.astype(np.float32))
    placed = sorted(_along(to_frame, card.outline[0]) for card in cards)
    return to_frame, placed, float(np.median(np.diff(placed)))


def _outline_at(to_frame: np.ndarray, x: float) -> np.ndarray:
    """The outline (frame pixels, upright) of a card lying ``x`` mm along the first card's top edge."""
    return cv2.perspectiveTransform((CARD_MM + [x, 0])[None], to_frame.astype(np.float64))[0]


def _card_at(frame: np.ndarray, to_frame: np.ndarray, x: float, deck: Deck, frame_to_zone: np.ndarray,
             seen_px: float | None, told_apart: bool) -> SpreadCard:
    """A card put ``x`` mm along the first card's top edge, its corner cut there and its symbols
    found in it as a card seen at ``seen_px`` shows them (None: none looked for, a joker's)."""
    outline = _outline_at(to_frame, x)
    corner = flatten(frame, outline, deck.index.box_mm, ordered=True)
    glyphs = None if seen_px is None else index_glyphs(corner, deck.index, seen_px)
    to_zone = frame_to_zone @ cv2.getPerspectiveTransform(CARD_MM.astype(np.float32), outline.astype(np.float32))
    centre = cv2.perspectiveTransform(np.array([[[CARD_W_MM / 2, CARD_H_MM / 2]]]), to_zone)[0, 0]
    return SpreadCard([corner], [glyphs], centre, outline, told_apart)


def _along(card_to_frame: np.ndarray, point: np.ndarray) -> float:
    """How far along the first card's top edge (mm) a frame point lies."""
    return float(cv2.perspectiveTransform(np.asarray(point, np.float64).reshape(1, 1, 2),
                                          np.linalg.inv(card_to_frame.astype(np.float64)))[0, 0, 0])
