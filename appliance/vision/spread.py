"""A hand spread with overlap: the cards' outlines merge into one shape, but each card lies over
the one before it so that every card's top-left index corner stays in view along one long edge
of the shape. The index corners are found there as columns of ink (a rank above a suit), and
where a suit lies as far from a rank as the deck prints it; each is cut on its own card (the
spread's outline is a coarse box round cards laid a little askew), its ink told from its own
card's paper (one card may lie dimmer than the next).

Every index corner in view is used: along the other long edge lies the top card's second index
(its bottom-right corner, turned round). Each corner found there is given to the card whose
centre it points to, so the top card is read from both its corners. (A hand laid the other way
round, each card under the one before it, shows every card's second index along the other edge
instead: that edge then has the most corners, and the same pairing holds.)"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from .card_faces import (CANON_PX_PER_MM, CARD_H_MM, CARD_W_MM, LINE_MM, SPECK_MM2, Glyph, darkest_channel, ink_symbols,
                    order_quad)
from .deck import Deck, Lining
from .index import IndexGeometry, index_glyphs

# The spread's short side is one card's height; its cards may lie a little askew.
HEIGHT_RANGE_MM = (0.9 * CARD_H_MM, 1.2 * CARD_H_MM)
SAME_SPREAD_MM = 3.0  # pieces of paper this near each other may be one spread's
MIN_COLUMN_INK_MM2 = 12.0  # a rank and a suit hold more ink than this; a sliver of a centre pip less
FAINT_COLUMN_INK_MM2 = 4.0  # ... except a small index's thin rank (a J): less is an index only where it shows one
# Ink in a strip is deepened to BLACK_INK grey levels below the paper where its deepest within
# INK_WIDTH_MM lies at least CLEAR_INK below it (fainter is the paper's grain, or a shadow).
BLACK_INK, CLEAR_INK, INK_WIDTH_MM = 200.0, 60.0, 3.0
PAPER_PERCENTILE = 80  # of a column of the index strip: its paper (an index's ink covers less)
# A piece of ink is an index's suit by its size (a share of the suit's learned extent), where a
# piece lies as far from it as the deck prints the rank from the suit, within a share of its size.
SUIT_SIZE_SHARE = (0.4, 1.3)
PAIR_TOLERANCE = 0.4
RANK_SLACK_MM = 1.5  # a rank's top lies this near where its card's edge as seen puts it
# A corner placed on its card's edge as seen lies within a millimetre or so: it is cut this much
# below the index box too, so that a suit placed low is not cut off (then unread).
PLACED_SLACK_MM = 1.5
# Each card's own top edge is looked for this far either side of the spread's outline (found in a
# coarse view, round cards laid a little askew), across its visible part less this inset at
# either side, and at least this long.
EDGE_SEARCH_MM, EDGE_INSET_MM, EDGE_MIN_MM = 3.0, 0.6, 5.0
MAX_ASKEW_DEG = 8.0  # an edge turned further against the spread is no edge of a card in its line
EDGE_MIN_STEP = 4.0  # grey levels per pixel: less is no edge between the cloth and the paper
EDGE_SHARE = 0.6
# The edge's columns lie this close to its straight line (a camera pixel's steps, and more): a
# jump further splits it.
EDGE_TOLERANCE_PX = 2.5
# A spread's first card whose corner matches the deck less closely than this is placed again at the
# other places along the spread's end (a card of the taught deck matches it closer: see deck_match).
FIRST_CARD_MATCH = 0.9
UNWEIGHED = 1.0  # a place's likeness not asked (its index is taken as the first one shown), as it weighs
CARD_MM = np.array([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM]], np.float64)
Namer = Callable[[tuple[Glyph, Glyph] | None], str | None]  # the card one corner's symbols clearly name


def spread_pieces(pieces: list[np.ndarray], px_per_mm: float) -> list[np.ndarray]:
    """The shapes that cannot be read as cards (zone pixels), those of one spread joined into one:
    the rim of each card over the one before it can part the paper of a spread into a piece per
    few cards. Pieces lying within SAME_SPREAD_MM of each other whose joined outline is one card
    high are one spread."""
    shapes = [np.asarray(q, np.float32).reshape(-1, 2) for q in pieces]
    joined = True
    while joined:
        joined = False
        for i in range(len(shapes)):
            for j in range(i + 1, len(shapes)):
                both = np.vstack([shapes[i], shapes[j]])
                (_, _), (w, h), _ = cv2.minAreaRect(both)
                if _gap(shapes[i], shapes[j]) <= SAME_SPREAD_MM * px_per_mm \
                        and HEIGHT_RANGE_MM[0] <= min(w, h) / px_per_mm <= HEIGHT_RANGE_MM[1]:
                    shapes[i] = both
                    del shapes[j]
                    joined = True
                    break
            if joined:
                break
    return [cv2.boxPoints(cv2.minAreaRect(shape)) if len(shape) > 4 else shape for shape in shapes]


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two convex shapes are (0 when they touch or overlap)."""
    hull_a, hull_b = cv2.convexHull(a), cv2.convexHull(b)
    inside = [cv2.pointPolygonTest(hull_b, (float(x), float(y)), True) for x, y in a] + \
             [cv2.pointPolygonTest(hull_a, (float(x), float(y)), True) for x, y in b]
    return max(0.0, -max(inside))


@dataclass
class SpreadCard:
    """One card of a spread: its index corners in view (upright, each as the top-left corner of a
    face), the rank and suit found in each (None: none), its centre in zone pixels, and its
    outline in the frame (upright: top-left, top-right, bottom-right, bottom-left) as its corner
    places it; the top card, the one whole card with two corners in view, lies on both."""

    corners: list[np.ndarray]
    glyphs: list[tuple[Glyph, Glyph] | None]
    centre: np.ndarray
    outline: np.ndarray
    # whether its corners are told from its neighbours': not where the deck prints four corners and
    # the cards lie about as far apart as a card's two top indices (see ``spread_corners``)
    told_apart: bool = True


def spread_px_per_mm(quad: np.ndarray, zone_to_frame: np.ndarray) -> float:
    """The resolution the spread ``quad`` (zone pixels) is seen at in the frame: its short side is
    a card's height."""
    frame_quad = cv2.perspectiveTransform(quad[None].astype(np.float64), zone_to_frame)[0]
    sides = np.linalg.norm(frame_quad - np.roll(frame_quad, -1, axis=0), axis=1)
    return float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2 / CARD_H_MM)


def spread_corners(frame: np.ndarray, quad: np.ndarray, zone_to_frame: np.ndarray, px_per_mm: float,
                   deck: Deck, name: Namer | None = None) -> list[SpreadCard] | None:
    """Each card of the spread ``quad`` (zone pixels, ``px_per_mm``) with its index corners in
    view, in the spread's order; None when the shape is not a spread of cards. ``name`` gives the
    card one corner's symbols name alone (None: none clearly): without it, a spread of a deck
    printing four corners that the places of its indices do not tell apart names no card."""
    edges: dict[int, _Edge] = {}
    seen_px = spread_px_per_mm(quad, zone_to_frame)
    # Any edge may be the one along the index corners: the hand may be turned round (then the
    # opposite edge shows only the last card's second index), and a spread of two cards is
    # about as long as it is high. The edge with the most index corners (a rank above a suit) wins.
    sides = {}
    for turn in range(4):
        corners_zone = np.roll(order_quad(quad), turn, axis=0)
        length = float(np.linalg.norm(corners_zone[1] - corners_zone[0])) / px_per_mm
        height = float(np.linalg.norm(corners_zone[2] - corners_zone[1])) / px_per_mm
        if HEIGHT_RANGE_MM[0] <= height <= HEIGHT_RANGE_MM[1] and length >= CARD_W_MM + 10:
            sides[turn] = corners_zone, length, height
    # Each corner placed costs a millisecond, and an edge without indices (pips at the cards' far
    # ends) has a place tried for every column of ink: the edge that looks most like one of indices
    # is walked first, and another only as far as it may still show as many. Where both pairs of
    # opposite edges may be along the indices (a spread of two cards a third of a card apart), the
    # pair whose height is nearer a card's is looked at first; where one of its edges shows two
    # corners that match the deck closely, it runs along the cards' tops, and the other pair along
    # their long sides, where an index is seen turned a quarter and matches no template closely:
    # the other pair is not looked at (about a third of a two-card spread's time).
    pairs = sorted({turn % 2 for turn in sides},
                   key=lambda pair: min(abs(sides[t][2] - CARD_H_MM) for t in (pair, pair + 2) if t in sides))
    most = 0
    for n, pair in enumerate(pairs):
        found = {t: _columns(frame, sides[t][0], zone_to_frame, *sides[t][1:], deck, seen_px)
                 for t in (pair, pair + 2) if t in sides}
        for edge in sorted(found.values(), key=lambda e: -e.paired):
            edge.walk(deck, rival=most)
            most = max(most, edge.shown)
        edges.update(found)
        if n + 1 < len(pairs) and any(edge.clear_indices(deck, seen_px) >= 2 for edge in found.values()):
            break
    # Of two edges with as many, on a deck printing its index in four corners the one whose first two
    # corners lie nearer: it shows the top card's two a card's width apart along one edge, where the
    # other edge shows two cards' a step apart. On a deck printing two, only one edge shows more than
    # the top card's one index: what else the other shows is pips or a picture's pieces taken for
    # indices (a pip cut in two, its top taken for a rank), matching the deck poorly: the edge with
    # more corners matching it closely.
    def weight(turn: int) -> tuple[int, float]:
        edge = edges[turn]
        return edge.shown, (-_first_step(edge.cards) if deck.index.four_corners else edge.clear_indices(deck, seen_px))

    best = max(edges, key=weight, default=None)
    if best is None or edges[best].shown < 1:
        return None
    if edges[best].shown == 1:
        best = _two_showing_one(edges, px_per_mm, deck)
        if best is None:
            return None
    far = edges.get((best + 2) % 4)
    # the top card's second index is the far edge's first; a deck printing four corners shows the
    # other cards' there too
    enough = None if deck.index.four_corners else 1
    if far is not None:
        far.walk(deck, enough=enough)
    told_apart = True
    if deck.index.four_corners and _first_step(edges[best].cards) >= TOP_RIGHT_LIKE * _top_right_step(deck) * px_per_mm:
        # a card's top-right index lies about as far from its top-left as the next card's: along
        # either edge, which index is whose is not told by where it lies (read from the wrong one,
        # each card takes its neighbour's name, at both its corners alike). The top card tells:
        # along the edge of the cards' top-left indices the first two corners are two cards', along
        # the other the top card's own two (its bottom-right and bottom-left, turned round).
        near, other = (_first_two(edges[best].cards, name), _first_two(far.cards, name)) \
            if far is not None and name is not None else ((None, None), (None, None))
        if not (_one_card(other) and _two_cards(near)):
            if _one_card(near) and _two_cards(other):
                best, far = (best + 2) % 4, edges[best]
            else:
                told_apart = False  # no card of the spread is named
    elif deck.index.four_corners and not _first_not_top_right(edges[best].cards, deck, px_per_mm, name):
        told_apart = False
    cards = edges[best].cards
    if far is not None:
        _pair_far_corners(cards, far.cards[:enough], np.roll(order_quad(quad), (best + 2) % 4, axis=0), px_per_mm, deck)
    for card in cards:
        card.told_apart = told_apart
    return cards


def _two_showing_one(edges: dict[int, _Edge], px_per_mm: float, deck: Deck) -> int | None:
    """Of a shape whose edges show one index each at most, the edge along a spread of two cards
    whose first shows no index (a joker printing none, a court whose index is joined to its picture):
    the first card at the spread's end, the second's index a step on, and along the opposite edge
    that card's second index where its card puts it (it is the top card; a lone card's outline
    shows no second card's place). None where there is no such edge, or on a deck printing four
    corners (the top card shows two along the one edge)."""
    if deck.index.four_corners:
        return None
    for turn, edge in edges.items():
        far = edges.get((turn + 2) % 4)
        if edge.shown != 1 or len(edge.cards) != 2 or far is None or deck.shows_index(edge.cards[0].glyphs[0]):
            continue
        far.walk(deck, enough=1)
        if far.cards and deck.shows_index(far.cards[0].glyphs[0]) \
                and _same_card(edge.cards[1], far.cards[0].centre, px_per_mm, deck):
            return turn
    return None


def _same_card(card: SpreadCard, centre: np.ndarray, px_per_mm: float, deck: Deck) -> bool:
    """A corner placing its card's middle at ``centre`` (zone pixels at ``px_per_mm``) is ``card``'s:
    within half an index's width of where the card's own corner puts it (nearer than the next card
    can lie: it would cover the index)."""
    box = deck.index.box_mm
    return float(np.linalg.norm(centre - card.centre)) <= (box[2] - box[0]) / 2 * px_per_mm


def _first_two(cards: list[SpreadCard], name: Namer) -> tuple[str | None, str | None]:
    """The cards the first two corners along an edge each clearly name (None: none)."""
    return (name(cards[0].glyphs[0]), name(cards[1].glyphs[0])) if len(cards) > 1 else (None, None)


def _one_card(names: tuple[str | None, str | None]) -> bool:
    """Two corners both clearly name one card: one card's two corners."""
    return names[0] is not None and names[0] == names[1]


def _two_cards(names: tuple[str | None, str | None]) -> bool:
    """Two corners clearly name two cards."""
    return None not in names and names[0] != names[1]


class _Edge:
    """The cards whose index corners lie along one edge of a spread, found one place at a time
    (``places``: each card found, or None where a place showed no index, and at most how many
    more cards it may find), and walked only as far as asked."""

    def __init__(self, paired: int, places: Iterator[tuple[SpreadCard | None, int]]):
        self.paired = paired  # places along it where a rank and a suit lie as the deck prints them
        self.cards: list[SpreadCard] = []
        self.shown = 0  # of them, those whose corner shows an index
        self._places = places

    def clear_indices(self, deck: Deck, px_per_mm: float) -> int:
        """How many of the cards found so far show an index matching the deck closely (see ``_likeness``)."""
        return sum(_likeness(card.glyphs[0], deck, px_per_mm) >= FIRST_CARD_MATCH for card in self.cards)

    def walk(self, deck: Deck, rival: int = 0, enough: int | None = None) -> None:
        """On along the edge: to its end, to ``enough`` cards, or until it can no longer show as
        many indices as ``rival`` (then it is no edge of index corners, and its cards are not used)."""
        for card, left in self._places:
            if card is not None:
                self.cards.append(card)
                self.shown += deck.shows_index(card.glyphs[0])
            if enough is not None and len(self.cards) >= enough or self.shown + left < rival:
                return


#: On a deck printing four corners, cards of a spread lying at least this share of the distance
#: from a card's top-left index to its top-right apart are not told apart by their corners' places.
TOP_RIGHT_LIKE = 0.75


def _top_right_step(deck: Deck) -> float:
    """How far (mm) a card's top-right index lies from its top-left, on a deck printing both (a
    maker prints it as far from its edge as the top-left's)."""
    symbols = deck.index.symbols_mm
    return CARD_W_MM - symbols[0] - symbols[2]


def _first_not_top_right(cards: list[SpreadCard], deck: Deck, px_per_mm: float, name: Namer | None) -> bool:
    """The first corner along the edge is a card's own, not the top card's top-right index: no
    corner lies a card's top-right step from it (within half an index's width, zone pixels at
    ``px_per_mm``); or the two clearly name two cards; or a corner between them clearly names a card
    (were the first the top card's top-right index, what lies between would be its picture). Else
    the places do not tell: ink in a court's picture lay a step from each, five places evenly
    spaced, and each card took its neighbour's name (a 7c read as the 6c at both its corners, 0.98)."""
    step = _top_right_step(deck) * px_per_mm
    near = (deck.index.box_mm[2] - deck.index.box_mm[0]) / 2 * px_per_mm
    apart = [abs(float(np.linalg.norm(card.centre - cards[0].centre)) - step) for card in cards]
    there = next((n for n in range(1, len(cards)) if apart[n] <= near), None)
    if there is None:
        return True
    if name is None:
        return False
    return _two_cards((name(cards[0].glyphs[0]), name(cards[there].glyphs[0]))) \
        or any(name(card.glyphs[0]) is not None for card in cards[1:there])


def _first_step(cards: list[SpreadCard]) -> float:
    return float(np.linalg.norm(cards[1].centre - cards[0].centre)) if len(cards) > 1 else 0.0


def _pair_far_corners(cards: list[SpreadCard], far: list[SpreadCard], far_zone: np.ndarray, px_per_mm: float,
                      deck: Deck) -> None:
    """Gives each corner along the far edge (``far``, read from the edge ``far_zone[0]`` ->
    ``[1]``, zone pixels at ``px_per_mm``) to the card whose centre it points to: within half the
    least step between cards (an index's width, or the next card would cover it). The first is the
    top card's second index (turned), which also places that card's far end. On a deck printing four
    corners the rest are each card's bottom-left index, turned: the top-right of a card as that edge
    shows it, a card's width less the index's from where a top-left one would put it (a maker
    prints it as far from its edge as the top-left's)."""
    index = deck.index
    same_card_px = (index.box_mm[2] - index.box_mm[0]) / 2 * px_per_mm
    along = (far_zone[1] - far_zone[0]) / max(float(np.linalg.norm(far_zone[1] - far_zone[0])), 1e-6)
    right_of_left = along * _top_right_step(deck) * px_per_mm
    for n, corner in enumerate(far):
        if not all(deck.shows_index(glyphs) for glyphs in corner.glyphs):
            continue  # the first column of ink along that edge may be a pip, or a court's picture
        top_right = index.four_corners and n > 0
        centre = corner.centre - right_of_left if top_right else corner.centre
        distances = [float(np.linalg.norm(centre - card.centre)) for card in cards]
        nearest = int(np.argmin(distances))
        if distances[nearest] <= same_card_px:
            cards[nearest].corners.extend(corner.corners)
            cards[nearest].glyphs.extend(corner.glyphs)
            if not top_right:
                cards[nearest].outline = _on_both_corners(cards[nearest].outline, corner.outline[0])


def _on_both_corners(outline: np.ndarray, bottom_right: np.ndarray) -> np.ndarray:
    """The top card's outline (frame pixels, placed by its top-left corner alone, square to the
    spread) turned and scaled about that corner so that its bottom-right corner lies where its
    second index placed it: a card lies a few degrees askew of its spread, which over its length
    moves its far end by millimetres."""
    top_left = complex(*outline[0])
    turn = (complex(*bottom_right) - top_left) / (complex(*outline[2]) - top_left)
    moved = [top_left + (complex(*point) - top_left) * turn for point in outline]
    return np.array([[z.real, z.imag] for z in moved])


def _cut(frame: np.ndarray, mm_to_frame: np.ndarray, box_mm: tuple[float, float, float, float]) -> np.ndarray:
    """The ``box_mm`` (x0, y0, x1, y1) of a plane mapped into the frame by ``mm_to_frame``, at the
    canonical resolution."""
    m = CANON_PX_PER_MM
    x0, y0, x1, y1 = box_mm
    to_mm = np.array([[1 / m, 0, x0], [0, 1 / m, y0], [0, 0, 1]])
    return cv2.warpPerspective(frame, mm_to_frame @ to_mm, (round((x1 - x0) * m), round((y1 - y0) * m)),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)


def _columns(frame, corners_zone, zone_to_frame, length, height, deck: Deck, seen_px: float) -> _Edge:
    """The cards whose index corners lie along the edge ``corners_zone[0]`` -> ``[1]``: the band of
    the spread where every card's top-left index lies, cut from the frame and split into columns of
    ink, each corner then cut on its own card (see :func:`_card_frame`) and its symbols found as a
    card seen at ``seen_px`` px/mm shows them: found as the edge is walked (see :class:`_Edge`)."""
    index = deck.index
    rect_mm = np.array([[0, 0], [length, 0], [length, height], [0, height]], np.float32)
    mm_to_zone = cv2.getPerspectiveTransform(rect_mm, corners_zone.astype(np.float32))
    mm_to_frame = zone_to_frame @ mm_to_zone
    edge = _edge_rows(_cut(frame, mm_to_frame, (0, -EDGE_SEARCH_MM, length, EDGE_SEARCH_MM)))
    # from above the highest a card's edge may lie: its rank's top is found however it lies
    top = index.box_mm[1] - EDGE_SEARCH_MM
    found = ink_symbols(_own_depth(_without_cloth(_own_paper(_cut(frame, mm_to_frame, (0, top, length, index.box_mm[3]))), edge, top)))
    if found is None:
        return _Edge(0, iter(()))
    boxes, pieces = _index_pieces(*found, top, index)
    strip = _Strip(frame, mm_to_zone, mm_to_frame, edge, top, boxes, deck, seen_px)
    places, paired = _candidate_places(strip, _ink_columns(pieces), length)
    return _Edge(paired, _walk(strip, places))


@dataclass
class _Strip:
    """The band of a spread where every card's top-left index lies, cut from ``frame`` from ``top``
    (mm across the spread from the edge of index corners): its plane (mm along and across the
    spread from that edge) mapped into the zone by ``mm_to_zone`` and into the frame by
    ``mm_to_frame``, its cards' edge as seen (see :func:`_edge_rows`), and its pieces of ink that
    may be an index's symbols (``boxes``, as :func:`ink_symbols` finds them), each corner read as a
    card seen at ``seen_px`` px/mm shows it."""

    frame: np.ndarray
    mm_to_zone: np.ndarray
    mm_to_frame: np.ndarray
    edge: np.ndarray
    top: float
    boxes: list[tuple]
    deck: Deck
    seen_px: float

    @property
    def index(self) -> IndexGeometry:
        return self.deck.index

    @property
    def ink_mid(self) -> float:
        """The middle of an index's ink on a face: a column of ink is cut out around its own middle."""
        return (self.index.symbols_mm[0] + self.index.symbols_mm[2]) / 2

    @property
    def wide(self) -> float:
        """A column of ink wider than this (px) is wider than an index."""
        return (self.index.symbols_mm[2] - self.index.symbols_mm[0] + 2) * CANON_PX_PER_MM

    @cached_property
    def tops(self) -> list[tuple[float, float, float]]:
        """Each piece of ink's top, left and right (mm)."""
        m = CANON_PX_PER_MM
        return [(self.top + b[0] / m, b[2] / m, b[3] / m) for b in self.boxes]


@dataclass
class _Places:
    """The places along a strip where a card's index may lie (mm along it, an index's middle): the
    candidates in order along it, each one card's places in the order they are tried; the places
    taken only where they match the deck closely (``alternatives``); a wide column's left part's
    other places (``others_of``: its right part and its centre); the places of columns holding less
    ink than a rank and a suit (``faint``); whether the first candidate is the spread's first card,
    whatever its index shows (``trusted``); and the ``step``: cards closer than this would cover each
    other's index."""

    candidates: list[list[float]]
    alternatives: set[float]
    others_of: dict[float, list[float]]
    faint: set[float]
    trusted: bool
    step: float


def _index_pieces(grey: np.ndarray, labels: np.ndarray, stats: np.ndarray, boxes: list[tuple], top: float,
                  index: IndexGeometry) -> tuple[list[tuple], list[tuple]]:
    """The strip's symbols short of its far edge (``boxes`` as :func:`ink_symbols` finds them in the
    strip cut from ``top``), and its pieces of ink that may be an index's (left, right, ink area: px)."""
    m = CANON_PX_PER_MM
    # What reaches the strip's far edge belongs to the cards' middles (a centre pip, a court's
    # picture), not an index; but a court's index touching its picture (a suit on the picture's
    # frame, a J's tail) reaches it too, and lies where no other ink tells its place: the part of
    # such ink above the rank's foot (where the spread's outline puts it) stands for a column of its
    # own (its place is tried as any column's is: it is an index only where one shows there).
    # (Such ink may be a picture's frame with the index on it, which as a whole is too hollow to
    # pass for a symbol: ``ink_symbols`` leaves it out of ``boxes``, as it leaves out a printed line.)
    foot = round((index.rank_mm[3] - top) * m)
    boxes = [b for b in boxes if b[1] < grey.shape[0]]
    pieces = [(left, right, float(stats[label, cv2.CC_STAT_AREA])) for _, _, left, right, label in boxes]
    for label in np.unique(labels[-1])[1:].tolist():  # (0 is the paper)
        left, width = int(stats[label, cv2.CC_STAT_LEFT]), int(stats[label, cv2.CC_STAT_WIDTH])
        above = labels[:foot, left:left + width] == label
        across, down = np.flatnonzero(above.any(axis=0)), np.flatnonzero(above.any(axis=1))
        # (not a printed line running down past the foot, nor a speck: no symbol is that thin or small;
        # nor what the strip's start cuts, as ``ink_symbols`` leaves it out)
        if left and across.size and min(across.size, down.size) > LINE_MM[1] * m and np.count_nonzero(above) >= SPECK_MM2 * m * m:
            pieces.append((left + int(across[0]), left + int(across[-1]) + 1, float(np.count_nonzero(above))))
    return boxes, pieces


def _ink_columns(pieces: list[tuple]) -> list[list[float]]:
    """The strip's columns of ink (left, right, ink area: px): its pieces of ink, those overlapping
    or no more than a millimetre apart joined in one."""
    m = CANON_PX_PER_MM
    columns: list[list[float]] = []  # left, right, ink area
    for left, right, area in sorted(pieces):
        if columns and left <= columns[-1][1] + m:
            columns[-1][1] = max(columns[-1][1], right)
            columns[-1][2] += area
        else:
            columns.append([left, right, area])
    return columns


def _candidate_places(strip: _Strip, columns: list[list[float]], length: float) -> tuple[_Places, int]:
    """The places along a strip ``length`` mm long where a card's index may lie (see :class:`_Places`),
    found from its columns of ink; and how many of them hold a rank and a suit lying as the deck
    prints them."""
    x1 = strip.index.box_mm[2]
    step = x1 - strip.index.box_mm[0]  # cards closer than this would cover each other's index
    # Every card lies within the spread, its index within the deck's index box: ink further along
    # than the last card's index is the top card's face (a corner of its printed border, a pip),
    # and pairs there (a pip under a court's frame) stand for no index.
    last = length - CARD_W_MM + x1 + 3
    middle_of, others_of = _column_middles(strip, columns, last)
    faint = {middle for middle, area in middle_of.items() if area < MIN_COLUMN_INK_MM2}
    columned = [middle for middle in middle_of if middle <= last]
    paired, candidates = _paired_places(strip, columned, others_of, step, last)
    # (a place that is also a column's own left part, or where a suit pairs with its rank, is tried as
    # such in its own right: a deck lining its index up at its left edge puts a wide column's centre
    # lined up there, and that place, were it held an alternative, would need to match the deck
    # closely where any other index needs only to show one)
    alternatives = {a for others in others_of.values() for a in others} - set(middle_of) - set(paired)
    ranked = _rank_places(strip, columns, candidates, step, last)
    alternatives |= set(ranked) - set(middle_of) - set(paired)
    candidates, trusted = _from_spread_end(strip, candidates, faint)
    return _Places(candidates, alternatives, others_of, faint, trusted, step), len(paired)


def _column_middles(strip: _Strip, columns: list[list[float]],
                    last: float) -> tuple[dict[float, float], dict[float, list[float]]]:
    """Where each column of ink (but a faint one) puts its index's middle (mm along the strip), with
    its ink area (mm²); and each wide column's left part's other places (short of ``last``)."""
    m = CANON_PX_PER_MM
    ink_left, ink_right, ink_mid = strip.index.symbols_mm[0], strip.index.symbols_mm[2], strip.ink_mid
    # the index is the ink lined up as the deck lines its symbols up (``Deck.lining``: their middle, or
    # their left or right edge); a column wider than an index is the index joined by what is printed
    # beside it (a pip, a court's picture), and the index is its left part (its left edge where the
    # deck's symbols start); or joined by the card under it seen past its edge, and the index is its
    # right part; or one rank printed wider than the rest (a joker's "JK"), lined up as the others are
    column = strip.deck.lining[0]
    starts = column.at_mm if column.share == 0 else ink_left
    ends = column.at_mm if column.share == 1 else ink_right
    middle_of, others_of = {}, {}  # a wide column's left part: its right part and its centre (short of `last`)
    for left, right, area in columns:
        if area < FAINT_COLUMN_INK_MM2 * m * m:
            continue
        lined = column.origin(left / m, right / m) + ink_mid
        if right - left <= strip.wide:
            middle_of[lined] = area / (m * m)
        else:
            middle = left / m - starts + ink_mid
            middle_of[middle] = area / (m * m)
            others_of[middle] = [other for other in (right / m - ends + ink_mid, lined) if other <= last]
    return middle_of, others_of


def _paired_places(strip: _Strip, columned: list[float], others_of: dict[float, list[float]], step: float,
                   last: float) -> tuple[list[float], list[list[float]]]:
    """The places where a suit pairs with its rank (short of ``last``), and the candidates they and
    the columns' middles (``columned``) make, each its places in the order they are tried."""
    # ... but pips beside each index can join a card's index to the next card's in one column: an
    # index is also where a piece of a suit's size lies as far from a piece of ink (its rank) as
    # the deck prints its suit from its rank, and its middle is then told by the suit. A column's
    # middle nearer it than an index's width is the same index's, less closely placed: tried where
    # the pair shows no index (a court's big pip paired with the frame line above it).
    suit_line = strip.deck.lining[1]
    paired = [middle for middle in _paired(strip.boxes, strip.top, strip.index, suit_line, strip.ink_mid, strip.seen_px)
              if middle <= last]
    candidates = sorted([[p, *(c for c in columned if abs(c - p) < step)] for p in paired]
                        + [[c] for c in columned if all(abs(c - p) >= step for p in paired)])
    return paired, [[*tries, *(a for c in tries if c in others_of for a in others_of[c])] for tries in candidates]


def _rank_places(strip: _Strip, columns: list[list[float]], candidates: list[list[float]], step: float,
                 last: float) -> list[float]:
    """The places where a rank's top lies where its card's edge puts it (short of ``last``), each
    added to ``candidates`` (in place, sorted again)."""
    # An index whose rank and suit pair with nothing (the two joined at the camera's blur, or its
    # suit joined to a line running past the strip) inside a column wider than an index (joined to
    # the next index by a printed border's line, a pip, a court's frame) has no place of its own:
    # the column gives its left and right ends only. A piece of ink of a rank's size whose top lies
    # where its card's edge puts a rank's top is tried there too, as an alternative (it must match
    # the deck closely): of each candidate whose first place lies nearer it than a step (that place
    # may be a pip's piece paired with ink above it), or a candidate of its own.
    ranked = [middle for middle in _rank_tops(strip.boxes, columns, strip.edge, strip.top, strip.index,
                                              strip.deck.lining[0], strip.ink_mid, strip.wide) if middle <= last]
    for middle in ranked:
        near = [tries for tries in candidates if abs(tries[0] - middle) < step]
        for tries in near:
            tries.append(middle)
        if not near:
            candidates.append([middle])
    candidates.sort()
    return ranked


def _from_spread_end(strip: _Strip, candidates: list[list[float]],
                     faint: set[float]) -> tuple[list[list[float]], bool]:
    """The candidates, starting at the spread's end; and whether the first is the spread's first card,
    whatever its index shows."""
    x0, _, x1, _ = strip.index.box_mm
    # Index corners start at the spread's end (symbols side by side, an index seen from another
    # edge, leave the first ink elsewhere) and lie a card's visible part apart. Real designs print
    # more in that part (pips, a court's picture): further ink is an index only where a rank and a
    # suit lie where the deck prints them, no nearer the index before it than an index's width
    # (the next card would cover it). Where the strip's one cut shows no ink at the spread's end (an
    # index printed pale, a faded red beside black ones), the first corner is looked at there on
    # its own, and is an index only where it shows one.
    at_end = bool(candidates) and x0 <= candidates[0][0] <= x1 + 3
    if not at_end:
        candidates = [[strip.ink_mid], *candidates]
    trusted = at_end and candidates[0][0] not in faint  # the spread's first card, whatever its index shows
    return candidates, trusted


def _placed(strip: _Strip, middle: float) -> tuple[np.ndarray, np.ndarray, tuple[Glyph, Glyph] | None]:
    """Where the card whose index has its middle at ``middle`` lies, its corner, and the symbols there."""
    index = strip.index
    card_to_mm = _card_frame(strip.edge, strip.tops, middle, strip.ink_mid, index)
    corner = _cut(strip.frame, strip.mm_to_frame @ card_to_mm, (*index.box_mm[:3], index.box_mm[3] + PLACED_SLACK_MM))
    return card_to_mm, corner, index_glyphs(corner, index, strip.seen_px)


def _card(strip: _Strip, card_to_mm: np.ndarray, corner: np.ndarray, glyphs: tuple[Glyph, Glyph] | None) -> SpreadCard:
    """The card placed by ``card_to_mm`` (see :func:`_card_frame`), its corner and the symbols there."""
    centre = cv2.perspectiveTransform(np.array([[[CARD_W_MM / 2, CARD_H_MM / 2]]]), strip.mm_to_zone @ card_to_mm)
    outline = cv2.perspectiveTransform(CARD_MM[None], strip.mm_to_frame @ card_to_mm)[0]
    return SpreadCard([corner], [glyphs], centre[0, 0], outline)


def _most_after(places: _Places, n: int, before: float) -> int:
    """The most cards the places from candidate ``n`` on may still find past the one at
    ``before``: one a candidate, each a step past the one before (the most such places the
    candidates hold is found by taking each as early as it may lie)."""
    count = 0
    for middle in sorted(middle for tries in places.candidates[n:] for middle in tries):
        if middle - before >= places.step:
            count, before = count + 1, middle
    return min(count, len(places.candidates) - n)


def _walk(strip: _Strip, places: _Places) -> Iterator[tuple[SpreadCard | None, int]]:
    """The cards found along the strip, a candidate at a time, each with at most how many more
    cards the candidates after it may find (see :class:`_Edge`)."""
    middles: list[float] = []
    if places.trusted:
        first, middle = _first_card(strip, places)
        middles.append(middle)
        yield first, _most_after(places, 0, middle)
    taken: set[int] = set()  # candidates whose index was taken for an earlier one's (see _against_rivals)
    for n, tries in enumerate(places.candidates):
        before = middles[-1] if middles else -np.inf
        found, best, at = _first_index(strip, places, _own(places, n), before, bool(middles)) if n not in taken \
            else (None, -np.inf, None)
        found, at = _against_rivals(strip, places, n, (found, best, at), before, bool(middles), taken)
        if found is not None:
            middles.append(at)
        if not middles and tries[0] not in places.faint:  # no index at the spread's end
            return
        yield found, _most_after(places, n + 1, middles[-1] if middles else -np.inf)


def _first_card(strip: _Strip, places: _Places) -> tuple[SpreadCard, float]:
    """The spread's first card and its index's middle."""
    deck, seen_px, x0, x1 = strip.deck, strip.seen_px, strip.index.box_mm[0], strip.index.box_mm[2]
    # The spread's first card is taken whatever its corner shows: at the first place along the
    # spread's end, unless its corner matches the deck poorly and another place there shows an
    # index matching it better: on a deck printing its suit beside its rank, any (the rank, a
    # piece of a suit's size, pairs with a printed border's piece beside it as a suit with its
    # rank, and places the corner millimetres off); on any deck, a wide column's centre.
    ends = [middle for tries in places.candidates for middle in tries if x0 <= middle <= x1 + 3]
    middle, place = ends[0], _placed(strip, ends[0])
    others = ends[1:] if strip.index.suit_beside else [end for end in ends[1:] if end in places.alternatives]
    if others and (likeness := _likeness(place[2], deck, seen_px)) < FIRST_CARD_MATCH:
        best = likeness if deck.shows_index(place[2]) else -np.inf
        for other in others:
            other_place = _placed(strip, other)
            other_likeness = _likeness(other_place[2], deck, seen_px)
            if deck.shows_index(other_place[2]) and other_likeness > best \
                    and (other not in places.alternatives or other_likeness >= FIRST_CARD_MATCH):
                middle, place, best = other, other_place, other_likeness
    return _card(strip, *place), middle


def _against_rivals(strip: _Strip, places: _Places, n: int, first: tuple[SpreadCard | None, float, float | None],
                    before: float, after_one: bool, taken: set[int]) -> tuple[SpreadCard | None, float | None]:
    """Candidate ``n``'s card and its index's middle: the ``first`` index found at its places (see
    :func:`_first_index`), or a later candidate's lying nearer than a step that matches the deck
    better (that candidate is then added to ``taken``)."""
    found, best, at = first
    # Two places nearer than a step are not two cards' indices: where the next candidate lies
    # that near and this place matches the deck poorly, the one matching it better is the
    # index (a piece of a pip beside an index, paired with ink above it as a suit with its
    # rank, shows a corner of a pip and half the index). The next candidate's place that
    # shows an index may lie a step or more on (a place tried after its first): that is the
    # next card's index, no rival of this one.
    later = n + 1
    while found is not None and later < len(places.candidates) and places.candidates[later][0] - at < places.step:
        if best == UNWEIGHED:
            best = _likeness(found.glyphs[0], strip.deck, strip.seen_px)
        if best >= FIRST_CARD_MATCH:
            break
        rival, likeness, rival_at = _first_index(strip, places, _own(places, later), before, after_one)
        if rival is not None and likeness == UNWEIGHED:
            likeness = _likeness(rival.glyphs[0], strip.deck, strip.seen_px)
        if rival is not None and likeness > best and rival_at - at < places.step:
            found, best, at = rival, likeness, rival_at
            taken.add(later)
        later += 1
    return found, at


def _own(places: _Places, n: int) -> list[float]:
    """Candidate ``n``'s places that may be its own index: a wide column's right part or centre
    lying a step or more past the next candidate's first place is a later card's index (a column
    joining several indices, its right end the last one's), and taken from this candidate it would
    pass over the cards between."""
    candidates = places.candidates
    bound = candidates[n + 1][0] + places.step if n + 1 < len(candidates) else np.inf
    return [middle for middle in candidates[n] if middle < bound]


def _first_index(strip: _Strip, places: _Places, tries: list[float], before: float,
                 after_one: bool) -> tuple[SpreadCard | None, float, float | None]:
    """The card whose index shows at the first of a candidate's places a step past ``before``, how
    closely it matches the deck (UNWEIGHED where that was not asked), and its middle; ``after_one``
    where a card was found before it (the spread's first place is an index wherever one shows:
    the edge is walked no further without one)."""
    deck, seen_px, alternatives = strip.deck, strip.seen_px, places.alternatives
    found, best, at = None, -np.inf, None
    for middle in tries:
        if middle - before < places.step or found is not None and middle not in alternatives:
            continue
        place = _placed(strip, middle)
        if not deck.shows_index(place[2]):
            continue
        # The first place that shows an index; but where a wide column's left part matches the
        # deck poorly, its right part or its centre is taken where either matches it better,
        # and closely (no other place of the candidate competes with them). Past the first card,
        # symbols cut out of ink they touched (``Glyph.parted``) are an index only where the rank
        # or the suit matches the deck closely: a big pip cut in two shows a rank and a suit of the
        # deck's sizes too, and neither half is a symbol's shape (a heart's: Q 0.48, a suit 0.68),
        # where a court's suit cut off the picture it touches leaves the rank whole (a J 0.97
        # beside a club 0.79), and a rank cut off the suit it touches leaves the suit whole (a 7
        # 0.27 over a heart 0.97: the card's other corner named it).
        if after_one and place[2][0].parted and _either(place[2], deck, seen_px) < FIRST_CARD_MATCH:
            continue
        weighed = middle in places.others_of or middle in alternatives
        likeness = _likeness(place[2], deck, seen_px) if weighed else UNWEIGHED
        if likeness <= best or middle in alternatives and likeness < FIRST_CARD_MATCH:
            continue
        found, best, at = _card(strip, *place), likeness, middle
        if likeness >= FIRST_CARD_MATCH:
            break
    return found, best, at


def _likeness(glyphs: tuple[Glyph, Glyph] | None, deck: Deck, px_per_mm: float) -> float:
    """How closely a corner's rank and suit match some rank and suit of the deck (the lower of the
    two best scores, among the templates learned nearest the card's resolution; 0 for none)."""
    return min(_scores(glyphs, deck, px_per_mm), default=0.0)


def _either(glyphs: tuple[Glyph, Glyph], deck: Deck, px_per_mm: float) -> float:
    """How closely the closer of a corner's rank and suit matches the deck (see ``_likeness``)."""
    return max(_scores(glyphs, deck, px_per_mm))


def _scores(glyphs: tuple[Glyph, Glyph] | None, deck: Deck, px_per_mm: float) -> tuple[float, ...]:
    """The best rank's and the best suit's score of a corner (none for no symbols)."""
    if glyphs is None:
        return ()
    return (float(deck.rank_templates.scores([glyphs[0]], px_per_mm, 1.0).max()),
            float(deck.suit_templates.scores([glyphs[1]], px_per_mm, 1.0).max()))


def _paired(boxes: list[tuple], top: float, index: IndexGeometry, suit_line: Lining, ink_mid: float,
            seen_px: float) -> list[float]:
    """The middles (mm along the strip) of the indices whose suit and rank lie as the deck prints
    them, from the strip's ink pieces (``boxes``: top, bottom, left, right in pixels, the strip
    starting ``top`` mm down the cards, seen at ``seen_px`` px/mm), each placed by its suit as the
    deck lines its suits up (``suit_line``)."""
    m = CANON_PX_PER_MM
    blur_mm = 2 / seen_px  # the camera's blur widens a symbol's ink by about a pixel each side
    rank, suit, extent = index.rank_mm, index.suit_mm, index.suit_extent_mm
    suit_x, suit_y = (suit[0] + suit[2]) / 2, (suit[1] + suit[3]) / 2
    dx, dy = suit_x - (rank[0] + rank[2]) / 2, suit_y - (rank[1] + rank[3]) / 2
    width, height = extent[2] - extent[0], extent[3] - extent[1]
    tolerance = PAIR_TOLERANCE * max(width, height)
    pieces = [((b[2] + b[3]) / 2 / m, top + (b[0] + b[1]) / 2 / m, (b[3] - b[2]) / m, (b[1] - b[0]) / m) for b in boxes]
    middles = []
    for sx, sy, sw, sh in pieces:
        if not (SUIT_SIZE_SHARE[0] * width <= sw <= SUIT_SIZE_SHARE[1] * width + blur_mm
                and SUIT_SIZE_SHARE[0] * height <= sh <= SUIT_SIZE_SHARE[1] * height + blur_mm):
            continue
        if any(abs(sx - rx - dx) <= tolerance and abs(sy - ry - dy) <= tolerance for rx, ry, _, _ in pieces):
            middles.append(suit_line.origin(sx - sw / 2, sx + sw / 2) + ink_mid)
    return middles


def _rank_tops(boxes: list[tuple], columns: list[list[float]], edge: np.ndarray, top: float, index: IndexGeometry,
               column: Lining, ink_mid: float, wide: float) -> list[float]:
    """The middles (mm along the strip) of the indices placed by a piece of ink of a rank's size
    inside a column wider than an index (``wide``, pixels), whose top lies within RANK_SLACK_MM of
    where its card's edge (``edge``: see :func:`_edge_rows`) puts a rank's top; the strip starts
    ``top`` mm down the cards. A rank's size: no wider than the deck's rank region, and at least
    SUIT_SIZE_SHARE's least share of its height (a printed line's piece, a speck, is less)."""
    m = CANON_PX_PER_MM
    rx0, ry0, rx1, ry1 = index.rank_mm
    middles = []
    for b in boxes:
        b_top, bottom, left, right = b[:4]
        if right - left > (rx1 - rx0) * m or bottom - b_top < SUIT_SIZE_SHARE[0] * (ry1 - ry0) * m:
            continue
        if not any(c_right - c_left > wide and c_left <= left and right <= c_right for c_left, c_right, _ in columns):
            continue
        rows = edge[left:right]
        if np.isnan(rows).all():
            continue
        edge_y = float(np.nanmedian(rows)) / m - EDGE_SEARCH_MM
        if abs(top + b_top / m - edge_y - ry0) <= RANK_SLACK_MM:
            middles.append(column.origin(left / m, right / m) + ink_mid)
    return middles


def _own_paper(strip: np.ndarray) -> np.ndarray:
    """The strip's darkest channel, each of its columns scaled to its own paper's shade: the cards of a spread
    are lit alike or not (one tilted from the light, one in a shadow), and ink told from paper by
    one cut over the whole strip loses a dim card's ink, or takes its paper for ink. The strip runs
    across the cards' edges, each of its columns is mostly one card's paper, and most of it paper."""
    grey = darkest_channel(strip)
    height, width = grey.shape
    # the paper's shade per millimetre along the strip (a card's edge is no sharper than that)
    coarse = cv2.resize(grey, (max(1, round(width / CANON_PX_PER_MM)), height), interpolation=cv2.INTER_AREA)
    k = round(PAPER_PERCENTILE / 100 * (height - 1))
    paper = np.partition(np.ascontiguousarray(coarse.T), k, axis=1)[:, k].astype(np.float32)
    paper = np.interp(np.arange(width), (np.arange(len(paper)) + 0.5) * width / len(paper) - 0.5, paper)
    own = np.clip(grey * (255.0 / np.maximum(paper, 1.0))[None, :], 0, 255).astype(np.uint8)
    return own


def _own_depth(grey: np.ndarray) -> np.ndarray:
    """The strip's darkest channel (paper white, cloth gone) with each symbol's ink deepened to a
    black's: a strip is cut into ink and paper at one level, set by its darkest ink, and an index
    printed paler than the next (a faded red beside black) keeps only specks. Each column's ink is
    scaled by the deepest ink within a symbol's width of it, where that ink stands clear of the paper."""
    m = CANON_PX_PER_MM
    deepest = 255.0 - cv2.erode(grey.min(axis=0)[None, :], np.ones((1, round(INK_WIDTH_MM * m)), np.uint8))[0]
    pale = np.flatnonzero((deepest >= CLEAR_INK) & (deepest < BLACK_INK))
    if not pale.size:
        return grey
    own = grey.copy()
    depth = 255.0 - grey[:, pale].astype(np.float32)
    own[:, pale] = (255.0 - np.clip(depth * (BLACK_INK / deepest[pale])[None, :], 0, 255)).astype(np.uint8)
    return own


def _card_frame(edge: np.ndarray, tops: list[tuple[float, float, float]], middle_mm: float, ink_mid: float,
                index: IndexGeometry) -> np.ndarray:
    """Where one card of the spread lies: its own mm (from its top-left corner) -> the spread's mm.
    The spread's outline is a coarse box round cards that lie a little askew: an index cut by it
    can lose a symbol's edge (a club without its stem is a spade), so each corner is placed on its
    own card: along the spread where its index's ink has its middle (``middle_mm``), and down it
    where its rank's ink has its top (of the ink pieces ``tops``) near where its top edge
    (``edge``: see :func:`_edge_rows`) puts it, where the deck prints it. A card's edge as a camera sees it is
    no sharp line (a dark rim, a blur), and the rank is what the deck was taught by. Where no rank's
    top lies near its edge, the corner is placed on the edge; where no edge is seen, on the outline."""
    m = CANON_PX_PER_MM
    x0, y0, x1, y1 = index.box_mm
    # across the card's own visible part: the next card covers it no nearer than an index's width
    first = max(0, round((middle_mm - ink_mid + EDGE_INSET_MM) * m))
    stop = min(len(edge), round((middle_mm - ink_mid + x1 - x0 - EDGE_INSET_MM) * m))
    origin_x = middle_mm - ink_mid
    line = _edge_line(edge[first:stop]) if stop - first >= EDGE_MIN_MM * m else None
    if line is None or abs(line[0]) > np.tan(np.radians(MAX_ASKEW_DEG)):
        return np.array([[1, 0, origin_x], [0, 1, 0], [0, 0, 1]])  # on the outline: no edge of its own seen
    slope, at_first = line
    # Not turned to its edge: over an index's width the slope of an edge is not known closely enough
    # (a rim, a blur, a camera pixel's steps), and a card lies in its spread's line within a few degrees.
    edge_y = (at_first + ((origin_x + ink_mid) * m - first) * slope) / m - EDGE_SEARCH_MM
    rx0, ry0, rx1, _ = index.rank_mm
    # the rank's ink may be joined with what is printed beside it (a court's picture): a piece over
    # the rank's place, and its top where the rank's may be
    rank_tops = [t for t, left, right in tops if left <= origin_x + rx1 and right >= origin_x + rx0
                 and abs(t - edge_y - ry0) <= RANK_SLACK_MM]
    origin_y = min(rank_tops) - ry0 if rank_tops else edge_y
    return np.array([[1, 0, origin_x], [0, 1, origin_y], [0, 0, 1]])


def _without_cloth(strip: np.ndarray, edge: np.ndarray, top: float) -> np.ndarray:
    """The strip's darkest channel (from ``top`` mm) with the cloth above the cards' edge (rows of ``edge``) made
    paper: the cloth is no ink, and an index near a card's edge would join it."""
    m = CANON_PX_PER_MM
    below = np.nan_to_num((edge - EDGE_SEARCH_MM * m) - top * m, nan=-1.0) + 1  # the edge's row in the strip, and a pixel
    out = strip.copy()
    cloth = out[:max(0, math.ceil(below.max()))]  # (the rows any column's cloth reaches: a strip's top few)
    cloth[np.arange(len(cloth))[:, None] < below[None, :]] = 255
    return out


def _edge_rows(band: np.ndarray) -> np.ndarray:
    """In each column of ``band`` (across the spread's outline), the row of the first step from the
    cloth to the paper, to a fraction of a pixel (NaN where there is none): a step as strong as the
    column's strongest within a share (a printed border line's inner side is a weaker step)."""
    grey = cv2.GaussianBlur(darkest_channel(band).astype(np.float32), (0, 0), 1.0)
    step = np.diff(grey, axis=0)  # row r: from row r to r + 1
    strongest = step.max(axis=0)
    first = np.argmax(step >= EDGE_SHARE * strongest, axis=0)
    # up that step to its peak: the first row from there where the step grows no more, at most
    # EDGE_SEARCH_MM on
    grows = np.zeros(step.shape, bool)
    grows[:-1] = step[1:] > step[:-1]
    peaks = ~grows & (np.arange(step.shape[0])[:, None] >= first)
    rows = np.minimum(np.argmax(peaks, axis=0), first + round(EDGE_SEARCH_MM * CANON_PX_PER_MM))
    cols = np.arange(step.shape[1])
    # the peak to a fraction of a pixel
    peak = np.clip(rows, 1, step.shape[0] - 2)
    below, at, above = step[peak - 1, cols], step[peak, cols], step[peak + 1, cols]
    curve = below - 2 * at + above
    shift = np.where(curve < 0, np.clip(0.5 * (below - above) / np.where(curve < 0, curve, -1), -0.5, 0.5), 0)
    return np.where(strongest >= EDGE_MIN_STEP, peak + 0.5 + shift, np.nan)


def _edge_line(edge: np.ndarray) -> tuple[float, float] | None:
    """A card's top edge (its slope, and its row at the first column) from the rows of the first
    steps to the paper across the card's visible part. Above the card's edge may lie the edge of
    the card under it, laid a little askew, never below it: the card's own edge is the lowest
    unbroken run of those steps long enough to be one. None when there is none."""
    cols = np.arange(len(edge))
    found = ~np.isnan(edge)
    rows = np.where(found, edge, 0.0)
    # the edge's runs, split where it jumps
    breaks = (np.flatnonzero(~found[1:] | ~found[:-1] | (np.abs(np.diff(rows)) > EDGE_TOLERANCE_PX)) + 1).tolist()
    runs = [cols[start:stop] for start, stop in zip([0, *breaks], [*breaks, len(edge)])
            if stop - start >= EDGE_MIN_MM * CANON_PX_PER_MM and found[start:stop].all()]
    if not runs:
        return None
    own = runs[0] if len(runs) == 1 else max(runs, key=lambda r: float(np.median(rows[r])))
    slope, at_first = _line(own, rows[own])
    on_line = found & (np.abs(rows - (at_first + slope * cols)) <= EDGE_TOLERANCE_PX)
    return _line(cols[on_line], rows[on_line])


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The least-squares line through the points (slope, and its y at x = 0): ``np.polyfit``'s
    general solver takes ten times as long, and a spread fits some twenty edges."""
    mx, my = float(x.sum() / x.size), float(y.sum() / y.size)  # (as .mean() gives them, at a third of its cost)
    dx = x - mx
    slope = float(dx @ (y - my)) / max(float(dx @ dx), 1e-12)
    return slope, my - slope * mx
