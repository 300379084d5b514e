"""Where a deck design prints its index, learned from its faces, and the index's rank and suit
symbols cut from a card with it.

Makers print the index near the edge or well inside it, small or jumbo, the suit below or beside
the rank, framed by a border or not. What every design shares: in the top-left corner, one small
region's ink is the same on all thirteen cards of a suit and differs between suits (the index
suit), and the region next to it is the same on the four cards of a rank and differs between ranks
(the index rank). Pips and court pictures change with both. The faces are compared pixel by
pixel (ink at 2 px/mm, slightly blurred, so a face flattened a little off still lines up) to find
those two regions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import cv2
import numpy as np

from .printed_lines import PrintedLine, lines_cut
from .card_faces import (CANON_PX_PER_MM, CARD_H_MM, CARD_W_MM, LINE_MM, PAPER_QUANTILE, RANK_SIZE, SUIT_SIZE, Glyph, blur_mm, components,
                    dark_ink, darkest_channel, glyph_of, line_pieces, paper_shade, quantiles)

RANKS, SUITS = "23456789TJQKA", "cdhs"
MAP_PX_PER_MM = 2.0
# The index lies in the top-left quarter of the face on nearly every design; where none is found there,
# it is looked for across the WIDE search too: a 12 mm rank with its suit beside it reaches 32 mm in from
# the edge of a 63 mm card, past the middle. (A deck printing four corners keeps its top two indices
# apart, each short of the middle.) The wide search is a whole number of map pixels wide, so that its
# map lies on the same millimetres as the quarter's.
SEARCH_MM = (CARD_W_MM / 2, CARD_H_MM / 2)
WIDE_SEARCH_MM = (38.0, CARD_H_MM / 2)
# A pixel belongs to the index suit when some suit inks it on (nearly) all its cards and its ink
# hardly changes between the ranks of a suit; to the index rank alike across the suits of a rank.
INKED = 0.5
STEADY = 0.03  # variance of ink (0..1) within a suit (or rank) at most this
MIN_SYMBOL_MM2 = 3.0
# A region this many times smaller than another within PIECE_GAP_MM of it is a piece of that symbol
# the map split off (a lobe, or its edge where the faces lie a little off one another), not a
# symbol: deck-b's faces photographed smaller or tilted showed a 3 mm2 piece of the suit nearer the
# corner than the suit's 9 to 24 mm2, and it was taken for the suit.
PIECE_OF, PIECE_GAP_MM = 2.0, 1.0
MAX_RANK_WIDTH = 2.0  # times the suit symbol's larger side
GROWN_INK = 0.12  # see _grown
DIFFERS = 0.02  # variance between the suits' (ranks') mean ink somewhere in a region of the index
# Every rank prints its rank in the index: a region some rank leaves blank is no index rank. A pip
# beside the suit is steady on the cards of a rank too (in the same place in every suit), and lay
# as near the suit as deck-a's rank (1.5 mm) or nearer (2.0 mm against 1.5, its faces photographed
# sideways): the index ranks of two real decks and seven drawn designs ink at least 0.15 (0..1, a 7
# the least), those pips at most 0.02 (an ace, a 2 or a 3 prints none there).
EVERY_RANK_INK = 0.08
MARGIN_MM = 0.5  # around the symbols' reach when a corner is cut from a card
# Cards of one design are cut from the sheet a little off one another (and a photo's outline lies
# a little off the card's edge): the index may sit a little off its learned place. A symbol whose
# ink runs out of its window there is taken whole, its window moved by up to this much (within the
# corner as cut: a larger corner would reach under the next card of a spread hand).
REGISTER_MM = 1.5
BROKEN_GAP_MM = 0.4  # see _broken_off
# Cards seen at least this fine, and with edges no more blurred than this, have their symbols cut each
# at its own ink level (see _symbol_ink); coarser or blurrier, a symbol cut nearer the paper closes up
# (a 5 like an 8): at 3 px/mm and 0.65 mm of blur, a drawn design named 24 cards wrong of 106.
OWN_CUT_PX_PER_MM = 3.0
OWN_CUT_BLUR_MM = 0.5
REACH_MM, REACH_SHARE = 1.0, 0.15  # see IndexGeometry.reach
SYMBOL_SIZE_MM = (1.5, 25.0)  # each learned region's width and height
# The rank's region lies at most this many of the suit's sizes from the suit's (the nearest such is
# the rank): a suit printed beside the rank leaves room for the widest rank, a "10", and a deck that
# prints its ten as "T" leaves that room empty (on random such designs 4 to 5 mm, over a 4.5 mm suit).
RANK_GAP = 1.2


class IndexNotFound(ValueError):
    """The faces do not show where the index is; the message says what was seen."""


@dataclass(frozen=True)
class IndexGeometry:
    """Where the index is, in mm on an upright face from its top-left corner: the rank's and the
    suit's regions (x0, y0, x1, y1)."""

    rank_mm: tuple[float, float, float, float]  # where the rank's ink is steady: its pieces' centres lie here
    suit_mm: tuple[float, float, float, float]
    suit_extent_mm: tuple[float, float, float, float]  # the whole suit symbol, with its stem
    # printed in all four corners (the top-right's upright, as far from its edge as the top-left's),
    # not only in the top-left and, turned, the bottom-right
    four_corners: bool = False
    # its printed frame lines near the index (:mod:`.printed_lines`); None for a deck learned before
    # they were, which takes every long thin run for a line
    lines: tuple[PrintedLine, ...] | None = None

    def extent(self, region: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """How far the symbol of ``region`` (the rank's or the suit's) may reach: ink beyond is cut."""
        if region == self.suit_mm:
            reach = self.reach(self.suit_mm)
            return (min(reach[0], self.suit_extent_mm[0]), min(reach[1], self.suit_extent_mm[1]),
                    max(reach[2], self.suit_extent_mm[2]), max(reach[3], self.suit_extent_mm[3]))
        return self.reach(region)

    @staticmethod
    def reach(region: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """How far a symbol's ink may reach beyond its learned region, which holds only the ink
        steady on every card of the suit (rank): its edges vary, and a printed frame line that
        touches the symbol is cut off beyond this."""
        x0, y0, x1, y1 = region
        dx, dy = max(REACH_MM, REACH_SHARE * (x1 - x0)), max(REACH_MM, REACH_SHARE * (y1 - y0))
        return max(0.0, x0 - dx), max(0.0, y0 - dy), x1 + dx, y1 + dy

    @property
    def suit_beside(self) -> bool:
        """The suit is printed beside the rank (its middle right of the rank's region), not below it."""
        return (self.suit_mm[0] + self.suit_mm[2]) / 2 > self.rank_mm[2]

    @cached_property
    def reaches(self) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
        """How far the rank's and the suit's ink may reach (``extent``)."""
        return self.extent(self.rank_mm), self.extent(self.suit_mm)

    @cached_property
    def symbols_mm(self) -> tuple[float, float, float, float]:
        """Where the rank's and the suit's ink lie together."""
        rank, suit = self.rank_mm, self.suit_extent_mm
        return min(rank[0], suit[0]), min(rank[1], suit[1]), max(rank[2], suit[2]), max(rank[3], suit[3])

    @cached_property  # asked for by every corner cut and symbol window
    def box_mm(self) -> tuple[float, float, float, float]:
        """The whole index with a margin: what is cut from a card."""
        r, s = self.extent(self.rank_mm), self.extent(self.suit_mm)
        return (max(0.0, min(r[0], s[0]) - MARGIN_MM), max(0.0, min(r[1], s[1]) - MARGIN_MM),
                max(r[2], s[2]) + MARGIN_MM, max(r[3], s[3]) + MARGIN_MM)

    def to_json(self) -> dict:
        return {"rank_mm": [round(v, 2) for v in self.rank_mm], "suit_mm": [round(v, 2) for v in self.suit_mm],
                "suit_extent_mm": [round(v, 2) for v in self.suit_extent_mm], "four_corners": self.four_corners,
                **({} if self.lines is None else {"lines": [line.to_json() for line in self.lines]})}

    @classmethod
    def of_json(cls, data: dict) -> IndexGeometry:
        # a deck learned before the corners were counted has them counted as two
        four_corners = data.get("four_corners", False)
        if not isinstance(four_corners, bool):
            raise ValueError(f"four_corners is {four_corners!r}, not true or false")
        lines = data.get("lines")
        if lines is not None and not isinstance(lines, list):
            raise ValueError(f"lines is {lines!r}, not a list")
        return cls(*(tuple(float(v) for v in data[k]) for k in ("rank_mm", "suit_mm", "suit_extent_mm")),
                   four_corners=four_corners, lines=None if lines is None else tuple(PrintedLine.of_json(v) for v in lines))


def _ink_map(face: np.ndarray, bold: bool = False, search_mm: tuple[float, float] = SEARCH_MM) -> np.ndarray:
    """Ink (0 paper .. 1 ink) of the face's top-left ``search_mm`` at MAP_PX_PER_MM, in the darkest
    channel (red and black ink alike), scaled between the paper and the darkest ink of that face;
    ``bold``, each stroke first widened by a map pixel (see ``index_maps``)."""
    m = CANON_PX_PER_MM
    quarter = face[:round(search_mm[1] * m), :round(search_mm[0] * m)].min(axis=2).astype(np.float32)
    if bold:
        width = round(m / MAP_PX_PER_MM) + 1
        quarter = cv2.erode(quarter, np.ones((width, width), np.uint8))
    size = (round(search_mm[0] * MAP_PX_PER_MM), round(search_mm[1] * MAP_PX_PER_MM))
    grey = cv2.resize(quarter, size, interpolation=cv2.INTER_AREA)
    paper, dark = np.percentile(grey, 90), np.percentile(grey, 1)
    ink = np.clip((paper - grey) / max(paper - dark, 30.0) * 1.5 - 0.25, 0, 1)
    return cv2.GaussianBlur(ink, (0, 0), 0.5 * MAP_PX_PER_MM)


@dataclass(frozen=True)
class IndexMaps:
    """Per pixel of the top-left quarter: where the ink is a suit's, and where a rank's."""

    suit: np.ndarray  # bool
    rank: np.ndarray  # bool
    between_suits: np.ndarray  # variance of the suits' mean ink: where the suits differ
    between_ranks: np.ndarray
    suit_ink: np.ndarray  # the most any suit inks each pixel on average: a suit symbol's whole extent
    rank_means: np.ndarray  # each rank's ink over its suits (rank, y, x)

    def picture(self) -> np.ndarray:
        """What was seen, for a technician: suit pixels blue, rank pixels red, 4x."""
        image = np.full(self.suit.shape + (3,), 255, np.uint8)
        image[self.suit] = (200, 60, 0)
        image[self.rank] = (0, 0, 200)
        return cv2.resize(image, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)


def index_maps(faces: dict[str, np.ndarray], bold: bool = False, search_mm: tuple[float, float] = SEARCH_MM) -> IndexMaps:
    """The suit and rank maps of the top-left ``search_mm`` from upright faces of the 52 cards (keys
    such as "As"). A card whose face is missing (not found in its photo) counts for neither its rank
    nor its suit; a rank (suit) with no face at all is left out. ``bold``, each stroke is widened by a
    map pixel first: a rank printed thin and small (a 4 mm narrow sans A, strokes 0.3 mm) is averaged
    away at the map's resolution, and its suit is found with no rank beside it."""
    have = np.array([[r + s in faces for s in SUITS] for r in RANKS])
    if not have.any():
        raise IndexNotFound("no face of the 52 cards to learn from")
    first = _ink_map(faces[next(r + s for r in RANKS for s in SUITS if r + s in faces)], bold, search_mm)
    ink = np.zeros((len(RANKS), len(SUITS)) + first.shape, np.float32)  # rank, suit, y, x
    for i, r in enumerate(RANKS):
        for j, s in enumerate(SUITS):
            if have[i, j]:
                ink[i, j] = _ink_map(faces[r + s], bold, search_mm)
    suit_means, suit_vars = _moments(ink, have, axis=0)
    rank_means, rank_vars = _moments(ink, have, axis=1)
    suit = (suit_vars.mean(axis=0) < STEADY) & (suit_means.max(axis=0) > INKED)
    rank = (rank_vars.mean(axis=0) < STEADY) & (rank_means.max(axis=0) > INKED) & ~suit
    return IndexMaps(suit, rank & ~_court_picture(rank_means, have), suit_means.var(axis=0), rank_means.var(axis=0),
                     suit_means.max(axis=0), rank_means)


COURTS = "JQK"


def _court_picture(rank_means: np.ndarray, have: np.ndarray) -> np.ndarray:
    """Where the court cards' picture lies (of ``rank_means``, the ranks with faces, ``have``): ink
    every court rank prints and no other rank does. A picture printed up to the index puts its
    frame in the same place on the J, the Q and the K: steady on the cards of each rank and
    different between ranks, as the rank's own ink is, it joined the index rank's region to pips and
    pictures below it (a 9 mm rank's region grew 23 mm tall, and the numbered cards' ranks took in
    the top of the pip below them). No rank's own ink is the same on the three courts and absent
    from the other ten: their letters differ, and the numbered ranks print in the same place."""
    kept = [r for r, row in zip(RANKS, have) if row.any()]
    courts = [i for i, r in enumerate(kept) if r in COURTS]
    others = [i for i, r in enumerate(kept) if r not in COURTS]
    if len(courts) < 2 or not others:
        return np.zeros(rank_means.shape[1:], bool)
    return (rank_means[courts].min(axis=0) > INKED) & (rank_means[others].max(axis=0) < INKED)


def _moments(ink: np.ndarray, have: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Each suit's (``axis`` 0: over its ranks) or rank's (``axis`` 1: over its suits) mean ink and
    its variance per pixel, of the faces there are (``have``); groups with none are left out."""
    weights = have.astype(np.float32)[:, :, None, None]
    count = np.maximum(weights.sum(axis=axis), 1.0)
    mean = (ink * weights).sum(axis=axis) / count
    variance = (np.square(ink - np.expand_dims(mean, axis)) * weights).sum(axis=axis) / count
    kept = have.any(axis=axis)
    return mean[kept], variance[kept]


def _regions(mask: np.ndarray, differs: np.ndarray) -> list[tuple[float, float, float, float, float]]:
    """(x0, y0, x1, y1 in mm, area in mm2) of the mask's pieces big enough to be a symbol, whose
    ink differs between the suits (or ranks) somewhere: ink common to
    every card (a stroke all the ranks share, a printed border) tells nothing."""
    count, labels, stats, _ = components(mask.astype(np.uint8))
    p = MAP_PX_PER_MM
    out = []
    height, width = mask.shape
    for x, y, w, h, area in stats[1:]:
        # what the search area cuts (a centre pip, a court picture) is not the index
        if area >= MIN_SYMBOL_MM2 * p * p and x + w < width and y + h < height \
                and differs[y:y + h, x:x + w].max() > DIFFERS:
            out.append((x / p, y / p, (x + w) / p, (y + h) / p, area / (p * p)))
    return out


def _gap(a, b) -> float:
    """Distance between two boxes (0 when they touch or overlap)."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return float(np.hypot(dx, dy))


def locate_index(maps: IndexMaps, bolder: Callable[[], IndexMaps] | None = None) -> IndexGeometry:
    """The index's rank and suit regions: the suit region nearest the corner (among those of a
    symbol's size: a centre pip printed on every card of a suit is farther), and the rank region
    next to it, above or beside it; where ``maps`` show none, it is looked for in the ``bolder``
    maps (``index_maps(..., bold=True)``: a rank printed thin and small)."""
    suits = [r for r in _regions(maps.suit, maps.between_suits) if all(SYMBOL_SIZE_MM[0] <= v <= SYMBOL_SIZE_MM[1]
                                                    for v in (r[2] - r[0], r[3] - r[1]))]
    suits = [r for r in suits if not any(o[4] >= PIECE_OF * r[4] and _gap(o, r) <= PIECE_GAP_MM for o in suits)]
    if not suits:
        raise IndexNotFound("no region whose ink is the same on every card of a suit: no index suit found")
    suit = min(suits, key=lambda r: np.hypot((r[0] + r[2]) / 2, (r[1] + r[3]) / 2))
    pieces, ranks = _ranks_beside(maps, suit)
    if not ranks and bolder is not None:
        pieces, ranks = _ranks_beside(bolder(), suit)
    if not ranks:
        raise IndexNotFound(f"no rank region next to the index suit at {_mm(suit)} (inked by every rank)")
    rank = min(ranks, key=lambda r: _gap(r, suit))
    size = max(suit[2] - suit[0], suit[3] - suit[1])
    # A rank printed in pieces that do not overlap between ranks (the two digits of a "10", the
    # farther of them from a suit printed beside it); a corner pip beside the index is steady on the
    # cards of a rank too, but makes the index far wider than its suit.
    for other in sorted(pieces, key=lambda r: _gap(r, rank)):
        merged = (min(rank[0], other[0]), min(rank[1], other[1]), max(rank[2], other[2]), max(rank[3], other[3]), 0.0)
        if other is not rank and _gap(other, rank) <= 1.5 and merged[2] - merged[0] <= MAX_RANK_WIDTH * size:
            rank = merged
    rank = tuple(float(v) for v in rank[:4])
    suit = tuple(float(v) for v in suit[:4])
    return IndexGeometry(rank, suit, _grown(suit, maps.suit_ink, rank))


def _ranks_beside(maps: IndexMaps, suit) -> tuple[list, list]:
    """Of the rank ``maps``' regions of a symbol's size above the ``suit``'s foot, all of them, and
    those next to the suit that every rank inks."""
    size = max(suit[2] - suit[0], suit[3] - suit[1])
    pieces = [r for r in _regions(maps.rank, maps.between_ranks) if r[1] < suit[3]
              and all(SYMBOL_SIZE_MM[0] <= v <= SYMBOL_SIZE_MM[1] for v in (r[2] - r[0], r[3] - r[1]))]
    return pieces, [r for r in pieces if _gap(r, suit) <= RANK_GAP * size and _least_rank_ink(maps, r) >= EVERY_RANK_INK]


def _least_rank_ink(maps: IndexMaps, region) -> float:
    """The least ink any rank's cards put in ``region`` (mm) on average."""
    p = MAP_PX_PER_MM
    box = maps.rank_means[:, int(region[1] * p):int(np.ceil(region[3] * p)), int(region[0] * p):int(np.ceil(region[2] * p))]
    return float(box.mean(axis=(1, 2)).min())


def _grown(core, mean_ink: np.ndarray, rank) -> tuple[float, float, float, float]:
    """The suit's region grown from its steady core to the whole symbol: the pixels connected to
    the core that a suit inks on a good share of its cards (a thin stem, edges that shift a little
    from card to card), within a quarter of the core's width beside it and half its height above and
    below (not into a neighbouring pip), and not
    into the rank's region (every rank shares the rank's place too)."""
    p = MAP_PX_PER_MM
    x0, y0, x1, y1 = core[:4]
    dx, dy = 0.25 * (x1 - x0), 0.5 * (y1 - y0)  # a stem hangs below; beside a suit lie pips and frames
    h, w = mean_ink.shape
    bx0, by0 = max(0, int((x0 - dx) * p)), max(0, int((y0 - dy) * p))
    bx1, by1 = min(w, int(np.ceil((x1 + dx) * p))), min(h, int(np.ceil((y1 + dy) * p)))
    ink = mean_ink > GROWN_INK
    ink[int(rank[1] * p):int(np.ceil(rank[3] * p)), int(rank[0] * p):int(np.ceil(rank[2] * p))] = False
    window = ink[by0:by1, bx0:bx1].astype(np.uint8)
    window[int(y0 * p) - by0:int(np.ceil(y1 * p)) - by0, int(x0 * p) - bx0:int(np.ceil(x1 * p)) - bx0] |= 1
    _, labels = cv2.connectedComponents(window, connectivity=8)
    core_labels = np.unique(labels[int((y0 + y1) / 2 * p) - by0, int(x0 * p) - bx0:int(np.ceil(x1 * p)) - bx0])
    ys, xs = np.nonzero(np.isin(labels, core_labels[core_labels > 0]))
    if not len(xs):
        return (float(x0), float(y0), float(x1), float(y1))
    return (float(bx0 + xs.min()) / p, float(by0 + ys.min()) / p, float(bx0 + xs.max() + 1) / p, float(by0 + ys.max() + 1) / p)


def _mm(box) -> str:
    return "({:.1f}, {:.1f})-({:.1f}, {:.1f}) mm".format(*box[:4])


#: A deck prints its index in four corners when, on this share of its faces, the top-right corner
#: shows the top-left's rank and its suit each at least this alike: at the same height (within
#: REGISTER_MM), anywhere in the right half (one maker centres each index on its own ink, another on
#: the index's box). Each symbol is looked for on its own, by its steady ink (``rank_mm``,
#: ``suit_mm``): the index's whole region takes in the edge of what is printed beside it (a 9's
#: diamond pip, beside the top-left index to its right, beside the top-right to its left), and a
#: design printing four indices close to its pips matched 0.5 to 0.8 there on half its red cards.
FOUR_CORNERS_SHARE, FOUR_CORNERS_LIKENESS = 0.8, 0.8


def in_four_corners(faces: dict[str, np.ndarray], geometry: IndexGeometry) -> bool:
    """Whether the upright faces print the index in their top-right corner too (see FOUR_CORNERS_SHARE)."""
    m, r = CANON_PX_PER_MM, REGISTER_MM
    alike = 0
    for face in faces.values():
        grey = darkest_channel(face).astype(np.float32)
        likeness = []
        for x0, y0, x1, y1 in (geometry.rank_mm, geometry.suit_mm):  # where each symbol's ink is steady
            symbol = grey[round(y0 * m):round(y1 * m), round(x0 * m):round(x1 * m)]
            top_right = grey[max(0, round((y0 - r) * m)):round((y1 + r) * m), round(CARD_W_MM / 2 * m):]
            likeness.append(float(cv2.matchTemplate(top_right, symbol, cv2.TM_CCOEFF_NORMED).max())
                            if symbol.std() > 0 and top_right.std() > 0 else 0.0)
        alike += min(likeness) >= FOUR_CORNERS_LIKENESS
    return alike >= FOUR_CORNERS_SHARE * len(faces)


def index_patch(face: np.ndarray, geometry: IndexGeometry) -> np.ndarray:
    """The index corner (with its margin) of an upright canonical face."""
    x0, y0, x1, y1 = (round(v * CANON_PX_PER_MM) for v in geometry.box_mm)
    return face[y0:y1, x0:x1]


def _symbol_pieces(grey: np.ndarray, geometry: IndexGeometry, own_cut: bool):
    """The corner's darkest channel (``grey``) and, for the rank and the suit, its ink components
    (labels, stats) and those whose centre lies in its learned region, the ink cut for each symbol
    at its own level or (``own_cut`` false) at the corner's; None when washed out."""
    m = CANON_PX_PER_MM
    found = dark_ink(grey)
    if found is None:
        return None
    grey, ink = found
    if not own_cut:
        lines = lines_cut(ink, geometry.box_mm[:2], geometry.lines, geometry.reaches)
        shared = components(ink & ~lines)[1:], lines
    parts = []
    regions = [_region_px(region, geometry) for region in (geometry.rank_mm, geometry.suit_mm)]
    for (x0, y0, x1, y1), other in zip(regions, regions[::-1]):
        if own_cut:
            own = _symbol_ink(grey, ink, (max(0, round(x0)), max(0, round(y0)), round(x1), round(y1)))
            lines = lines_cut(own, geometry.box_mm[:2], geometry.lines, geometry.reaches)
            labels, stats, centroids = components(own & ~lines)[1:]
        else:
            (labels, stats, centroids), lines = shared
        x, y = centroids[:, 0], centroids[:, 1]
        inside = (x0 <= x[1:]) & (x[1:] <= x1) & (y0 <= y[1:]) & (y[1:] <= y1)
        others = inside & _nearer_other(centroids[1:], (x0, y0, x1, y1), other)
        if (stats[1:, cv2.CC_STAT_AREA][inside & ~others] >= 0.6 * m * m).any():
            inside &= ~others  # (a symbol's only piece stays: a Q's tail joined to the suit is parted below)
        here = (np.flatnonzero(~line_pieces(stats[1:]) & inside) + 1).tolist()
        here = [i for i in here if i not in _line_remnants(labels, stats, lines, here)]
        pieces = [i for i in here if stats[i, cv2.CC_STAT_AREA] >= 0.6 * m * m]
        if pieces:
            # the symbol is the piece with the most ink where the deck prints it: a double border
            # line seen blurred is a band too thick for a line, and the frame it draws round the
            # index holds more ink than a 9 in it, but most of that ink lies outside the rank's region
            main = pieces[0] if len(pieces) == 1 else _most_held(labels, stats, pieces, (x0, y0, x1, y1))
            here = [i for i in here if i == main or _within(stats[i], x1 - x0, y1 - y0)]
            broken = _broken_off(labels, stats, main, here)
            pieces = [i for i in here if i in broken or i in pieces
                      and stats[i, cv2.CC_STAT_AREA] >= 0.15 * stats[main, cv2.CC_STAT_AREA]]  # not specks beside a symbol
        parts.append((labels, stats, pieces))
    return grey, parts


def _nearer_other(centroids: np.ndarray, region, other) -> np.ndarray:
    """Which pieces (their centroids) lie in the ``other`` region too, nearer its middle than this one's,
    each measured in the region's own size: a deck whose Q's tail reaches down past the top of its suit
    has overlapping regions, and a spade seen at 2 px/mm, its middle in both, was cut as part of every
    rank above it too (a 6 with a spade under it matched no rank, 0.40, and the table was held as
    another deck's). Such a piece is left to the other symbol where this one has a piece of its own."""
    def off(box):  # how far from the box's middle, in halves of its width and height, the farther
        (x0, y0, x1, y1), x, y = box, centroids[:, 0], centroids[:, 1]
        return np.maximum(np.abs(x - (x0 + x1) / 2) / max((x1 - x0) / 2, 1e-6),
                          np.abs(y - (y0 + y1) / 2) / max((y1 - y0) / 2, 1e-6))
    return off(other) < np.minimum(off(region), 1.0)


def _most_held(labels: np.ndarray, stats: np.ndarray, pieces: list[int], region_px) -> int:
    """Of the ``pieces``, the one with the most ink in the region (x0, y0, x1, y1 pixels), the
    larger of two that hold as much."""
    x0, y0, x1, y1 = (max(0, round(v)) for v in region_px)
    held = np.bincount(labels[y0:y1, x0:x1].ravel(), minlength=len(stats))
    return max(pieces, key=lambda i: (held[i], stats[i, cv2.CC_STAT_AREA]))


def _within(piece: np.ndarray, width: float, height: float) -> bool:
    """Whether a piece of ink (a row of ``components``' stats) beside a symbol's largest could be a
    piece of the same symbol: no taller and no wider than the region the deck prints every such
    symbol in (``width`` by ``height`` px). A border line seen coarse and blurred (a card at 2 px/mm
    under a tilted camera) is as thick as a stroke where it turns the corner, so neither
    ``frame_lines`` nor ``line_pieces`` took it for a line; cut with the rank beside it, it ran 15 mm
    down a 9 mm 5, which matched no rank (0.41), and with other such cards held the whole table as
    another deck's. (The largest piece is the symbol's own, whatever its size: a rank joined to what
    it touches is parted from it later.)"""
    return piece[cv2.CC_STAT_WIDTH] <= width and piece[cv2.CC_STAT_HEIGHT] <= height


def _line_remnants(labels: np.ndarray, stats: np.ndarray, lines: np.ndarray, pieces: list[int]) -> set[int]:
    """The ``pieces`` (of ``labels``) that are what is left of a printed frame line (``lines``, as
    ``card_faces.frame_lines`` finds them) where it was too short a run to be found as one: touching the
    line, and no thicker than a line (LINE_MM). A border line broken round the index leaves a stub
    between the border's corner and a narrow rank printed well inside the index (a 7 where the
    deck's 10 is wide), as long as a stroke of the rank, and a little thicker than the line where it
    turns the corner: taken with it, a 7 matched the queens better than the sevens. A symbol's
    stroke that touches a line is thicker (a line is thinner than a symbol's stroke, as
    ``frame_lines`` has it)."""
    if not pieces or not lines.any():
        return set()
    near = np.unique(labels[cv2.dilate(lines, np.ones((3, 3), np.uint8)) > 0])
    thick = round(LINE_MM[1] * CANON_PX_PER_MM)
    kernel = np.ones((thick, thick), np.uint8)
    out = set()
    for piece in set(near.tolist()) & set(pieces):
        x, y, w, h = stats[piece, :4].tolist()
        own = (labels[y:y + h, x:x + w] == piece).astype(np.uint8)
        if not cv2.countNonZero(cv2.erode(own, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)):
            out.add(piece)
    return out


def _joined(parts, geometry: IndexGeometry) -> bool:
    """One symbol's ink (``parts``, as ``_symbol_pieces`` gives them) reaches over the middle of the
    other's region, where that one has none of its own: the rank and the suit touch (not a symbol
    washed out by glare, whose neighbour keeps to its own region)."""
    (_, rank_stats, rank), (_, suit_stats, suit) = parts
    if bool(rank) == bool(suit):
        return False
    stats, pieces, empty = (rank_stats, rank, geometry.suit_mm) if rank else (suit_stats, suit, geometry.rank_mm)
    box, region = _ink_box(stats, pieces), _region_px(empty, geometry)
    axis = 0 if geometry.suit_beside else 1
    middle = (region[axis] + region[axis + 2]) / 2
    return box[axis] <= middle <= box[axis + 2]


def _parted_at_necks(grey: np.ndarray, parts, geometry: IndexGeometry):
    """The rank and the suit (``parts``, as ``_symbol_pieces`` gives them, where one symbol's ink
    holds both) parted at a neck between them, narrowest first, each as ``_symbol_pieces`` gives
    them: the ink thinned (its distance to the paper, in steps of NECK_STEP_PX) until it falls apart
    into a core whose middle lies in the rank's region and one in the suit's, then flooded back from
    those cores (a watershed of the ink's distance to the paper). A tail touching the symbol below
    it (a J's hook over a diamond's point, a Q's tail in a heart's cleft) reaches below that
    symbol's top, so no straight line parts them. The flood gives what hangs from the neck (a hook,
    a tail) to either side; the suit is what of its side is symmetric (``_symmetric_part``), the
    rest the rank's where it touches the rank."""
    labels, stats, pieces = parts[0] if parts[0][2] else parts[1]
    x, y, x1, y1 = _ink_box(stats, pieces)
    x, y = max(0, x - 1), max(0, y - 1)  # (the work is done in the ink's box)
    lut = np.zeros(len(stats), bool)
    lut[pieces] = True
    joined = lut[labels[y:y1 + 1, x:x1 + 1]]
    distance = cv2.distanceTransform(joined.view(np.uint8), cv2.DIST_L2, 3)
    boxes = [tuple(v - o for v, o in zip(_region_px(r, geometry), (x, y, x, y))) for r in (geometry.rank_mm, geometry.suit_mm)]
    for level in np.arange(NECK_STEP_PX, float(distance.max()), NECK_STEP_PX):
        count, cores, core_stats, centres = components((distance > level).view(np.uint8))
        owner = [_owner(boxes, cx, cy) for cx, cy in centres[1:]]
        if 0 not in owner or 1 not in owner:
            continue
        owner = np.array([-1] + [k if k >= 0 else _owner(boxes, cx, cy, nearest=True) for k, (cx, cy) in zip(owner, centres[1:])])
        flooded = owner[_flooded_down(cores.astype(np.int32), distance, level)]  # (0 the rank's, 1 the suit's)
        suit_cores = np.flatnonzero(owner == 1).tolist()
        cx0, _, cx1, _ = _ink_box(core_stats, suit_cores)
        side = flooded == 1
        suit = _symmetric_part(side, (cx0 + cx1 - 1) / 2, owner[cores] == 1)
        if suit is None:
            continue
        # what of the suit's side is not the suit is the rank's where it touches the rank's side (a
        # hook, a tail), else neither's (the end of a tail run through the suit, a sliver of rim)
        rank = joined & ~side
        count, rest = cv2.connectedComponents((side & ~suit).view(np.uint8), connectivity=8)
        touching = np.zeros(count, bool)
        touching[rest[cv2.dilate(rank.view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)]] = True
        touching[0] = False
        rank |= touching[rest]
        if not rank.any() or [_owner(boxes, *_middle(part), nearest=True) for part in (rank, suit)] != [0, 1]:
            continue  # (a thin core of the rank's met first, the rest of both flooded as the suit's)
        split = labels.copy()
        window = split[y:y1 + 1, x:x1 + 1]
        window[rank], window[suit] = len(stats), len(stats) + 1
        split_stats = np.vstack([stats] + [(bx + x, by + y, bw, bh, int(np.count_nonzero(m)))
                                           for m in (rank, suit) for bx, by, bw, bh in [cv2.boundingRect(m.view(np.uint8))]])
        yield [(split, split_stats.astype(stats.dtype), [len(stats)]), (split, split_stats.astype(stats.dtype), [len(stats) + 1])]


#: The steps (pixels of distance to the paper) in which joined ink is thinned to find the neck
#: between the rank and the suit, and flooded back: half a pixel, about the precision of the
#: distance itself (measured with a 3x3 mask); finer steps only repeat the same cores.
NECK_STEP_PX = 0.5


def _flooded_down(cores: np.ndarray, distance: np.ndarray, level: float) -> np.ndarray:
    """The ``cores`` (labels) grown through the ink (``distance`` to the paper above 0), from
    ``level`` down in steps of NECK_STEP_PX, each pixel to the core that reaches it first through
    ink at least as far from the paper (a watershed of the ink's distance to the paper)."""
    parts = cores.copy()
    for step in np.arange(level, 0.0, -NECK_STEP_PX)[1:].tolist() + [1e-6]:
        _grown_into(parts, distance >= step)
    return parts


def _symmetric_part(side: np.ndarray, axis: float, cores: np.ndarray) -> np.ndarray | None:
    """Of the ink the flood gave the suit's side (``side``, a mask), the suit: the ink its mirror
    image about the column ``axis`` holds too (within a pixel: a face flattened a little off), in
    one piece, the piece with the suit's ``cores`` (a mask) in it. The four suits are each
    symmetric so, upright on every design; a hook or a tail the flood gave the suit is not, and a
    piece of the rank beyond it is not joined to it. None where no such piece is left."""
    columns = np.arange(side.shape[1])
    back = np.round(2 * axis - columns).astype(int)  # the column each column mirrors
    valid = (back >= 0) & (back < side.shape[1])
    mirrored = np.zeros_like(side)
    mirrored[:, valid] = side[:, back[valid]]
    kernel = np.ones((3, 3), np.uint8)
    held = side & cv2.dilate(mirrored.view(np.uint8), kernel).view(bool)
    # (opened: a stroke of the rank along the axis is its own mirror image, but thin)
    held = cv2.morphologyEx(held.view(np.uint8), cv2.MORPH_OPEN, kernel)
    _, pieces, piece_stats, _ = cv2.connectedComponentsWithStats(held, connectivity=8)
    with_cores = np.unique(pieces[cores & (held > 0)])
    with_cores = with_cores[with_cores > 0]
    if not len(with_cores):
        return None
    main = max(with_cores.tolist(), key=lambda i: piece_stats[i, cv2.CC_STAT_AREA])
    return side & cv2.dilate((pieces == main).view(np.uint8), kernel).view(bool)  # with its rim


def _middle(mask: np.ndarray) -> tuple[float, float]:
    """The middle (x, y) of a mask's pixels."""
    ys, xs = np.nonzero(mask)
    return float(xs.mean()), float(ys.mean())


def _owner(boxes, x: float, y: float, nearest: bool = False) -> int:
    """Which of the regions' ``boxes`` (the rank's, the suit's) a point lies in: where in both (or,
    ``nearest``, in neither), the one whose middle is nearer; -1 where in neither."""
    inside = [k for k, (x0, y0, x1, y1) in enumerate(boxes) if nearest or x0 <= x <= x1 and y0 <= y <= y1]
    if not inside:
        return -1
    return min(inside, key=lambda k: np.hypot(x - (boxes[k][0] + boxes[k][2]) / 2, y - (boxes[k][1] + boxes[k][3]) / 2))


def _cut_apart(grey: np.ndarray, geometry: IndexGeometry) -> np.ndarray:
    """The corner (its darkest channel) with the rank and the suit cut apart where they touch: the
    line across both regions, between their middles, that crosses the least ink, painted the paper's
    shade (a row where the suit is printed below the rank, a column where beside it)."""
    rank, suit = (_region_px(r, geometry) for r in (geometry.rank_mm, geometry.suit_mm))
    beside = geometry.suit_beside
    across = 0 if beside else 1  # (x0, y0, x1, y1): where the line may lie, between the middles ...
    along = 1 - across  # ... and how far it runs
    low = max(0, round((rank[across] + rank[across + 2]) / 2))
    high = min(grey.shape[1 - across], round((suit[across] + suit[across + 2]) / 2))
    start = max(0, round(min(rank[along], suit[along])))
    stop = min(grey.shape[1 - along], round(max(rank[along + 2], suit[along + 2])))
    if high <= low or stop <= start:
        return grey
    paper = paper_shade(grey)
    band = grey[start:stop, low:high].T if beside else grey[low:high, start:stop]
    line = low + int(np.argmin(np.clip(paper - band.astype(np.float32), 0, None).sum(axis=1)))
    cut = grey.copy()
    width = slice(max(0, line - 1), line + 2)  # three pixels: the ink is cut after a 3x3 blur
    if beside:
        cut[start:stop, width] = paper
    else:
        cut[width, start:stop] = paper
    return cut


def _region_px(region: tuple[float, float, float, float], geometry: IndexGeometry) -> tuple[float, float, float, float]:
    """A learned region (with half a millimetre round it) in pixels of the corner cut at ``geometry.box_mm``."""
    m = CANON_PX_PER_MM
    ox, oy = geometry.box_mm[:2]
    return (region[0] - ox - 0.5) * m, (region[1] - oy - 0.5) * m, (region[2] - ox + 0.5) * m, (region[3] - oy + 0.5) * m


def _parted(grey: np.ndarray, labels: np.ndarray, pieces: list[int], region_px: tuple[float, float, float, float]):
    """The symbol's ink (``pieces`` of ``labels``) parted from what blur has joined it to (a court's
    picture printed close to the index, seen coarse): the joined ink split along its palest line
    between darker cores (a watershed from the ink cut halfway to its darkest), and the parts that
    lie mostly in the symbol's region kept, as (labels, stats, pieces). None when nothing parts."""
    joined = np.isin(labels, pieces)
    darkest, palest = quantiles(grey[joined], 0.02, 1.0)
    core_cut = (darkest + palest) / 2
    count, cores = cv2.connectedComponents((joined & (grey <= core_cut)).astype(np.uint8), connectivity=8)
    if count <= 2:
        return None
    # a piece with no dark core (a pale stroke broken off) is a part of its own, kept or not as the
    # others are: the flood from the cores never reaches it
    for piece in pieces:
        own = labels == piece
        if not cores[own].any():
            cores[own], count = count, count + 1
    parts = _flooded(grey, cores.astype(np.int32), joined, core_cut, palest)
    stats = np.zeros((count, 5), np.int32)
    x0, y0, x1, y1 = (round(v) for v in region_px)
    kept = []
    for part in range(1, count):
        ys, xs = np.nonzero(parts == part)
        if not len(xs):
            continue
        stats[part] = (xs.min(), ys.min(), xs.max() + 1 - xs.min(), ys.max() + 1 - ys.min(), len(xs))
        if np.count_nonzero((xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)) >= len(xs) / 2:
            kept.append(part)
    return (parts, stats, kept) if kept else None


def _off_the_picture(suit, geometry: IndexGeometry):
    """The suit's ink (labels, stats, pieces) cut off a court's picture it runs into (its frame, seen
    coarse, as dark as the suit where they touch, so no paler line parts them): beyond the suit's
    middle, towards the side it runs out of, the first line across (a row below a suit printed under
    the rank, a column beside one printed beside it) whose ink reaches further out than a suit may be
    moved (REGISTER_MM past its window) is the picture's edge, and that line and all beyond it are
    dropped. The pieces left that lie mostly in the suit's region are kept, as ``_parted`` keeps
    them; None where no such line is found, or nothing is left."""
    labels, stats, pieces = suit
    joined = np.isin(labels, pieces)
    x0, y0, x1, y1 = _window(geometry.suit_mm, geometry)
    reach = round(REGISTER_MM * CANON_PX_PER_MM)
    along = joined.T if geometry.suit_beside else joined  # lines across the way the suit runs out
    low, high = (y0, y1) if geometry.suit_beside else (x0, x1)
    start = ((x0 + x1) if geometry.suit_beside else (y0 + y1)) // 2
    outside = along[:, :max(0, low - reach)].any(axis=1) | along[:, high + reach:].any(axis=1)
    edge = next((i for i in range(max(0, start), along.shape[0]) if outside[i]), None)
    if edge is None:
        return None
    kept_ink = joined.copy()
    if geometry.suit_beside:
        kept_ink[:, edge:] = False
    else:
        kept_ink[edge:] = False
    count, cut, cut_stats, _ = components(kept_ink.astype(np.uint8))
    rx0, ry0, rx1, ry1 = _region_px(geometry.suit_mm, geometry)
    kept = []
    for part in range(1, count):
        ys, xs = np.nonzero(cut == part)
        if np.count_nonzero((xs >= rx0) & (xs < rx1) & (ys >= ry0) & (ys < ry1)) >= len(xs) / 2:
            kept.append(part)
    return (cut, cut_stats, kept) if kept else None


def _off_the_frame(grey: np.ndarray, geometry: IndexGeometry) -> np.ndarray | None:
    """The corner (its darkest channel) with a court picture's frame painted the paper's shade where
    the suit's ink runs into it: the ink joined to what lies in the suit's region, its printed lines
    with it (``card_faces.frame_lines`` cuts them off the symbols, but the pieces of the frame they leave,
    its corner, the stub of a line too short to be found as one, stay joined to the suit), from the
    first line across beyond the suit's middle where that ink runs unbroken from inside the suit's
    window to beyond where the suit may be moved (REGISTER_MM past the window): the frame's edge. The
    picture is looked for first the way the suit runs (a row below a suit printed under the rank, a
    column beside one printed beside it), then across it: a deck printing the suit beside the rank
    may print its picture under both (a K and its diamond stood on the picture's top edge, 0 mm
    below them). A line a symbol touches from beside (a border running down the card) never runs
    across the window so. None where there is no such line."""
    found = dark_ink(grey)
    if found is None:
        return None
    _, ink = found
    labels = components(ink)[1]
    rx0, ry0, rx1, ry1 = (max(0, round(v)) for v in _region_px(geometry.suit_mm, geometry))
    touched = np.unique(labels[ry0:ry1, rx0:rx1])
    joined = np.isin(labels, touched[touched > 0])
    for beside in (geometry.suit_beside, not geometry.suit_beside):
        drop = _frame_beyond(joined, geometry, beside)
        if drop is not None:
            framed = grey.copy()
            framed[drop] = paper_shade(grey)
            return framed
    return None


def _frame_beyond(joined: np.ndarray, geometry: IndexGeometry, beside: bool) -> np.ndarray | None:
    """Of the ink ``joined`` to the suit, the picture's frame beyond the suit's middle (and its
    blurred edge) as ``_off_the_frame`` finds it, looking along columns (``beside``) or rows."""
    x0, y0, x1, y1 = _window(geometry.suit_mm, geometry)
    reach = round(REGISTER_MM * CANON_PX_PER_MM)
    along = joined.T if beside else joined  # lines across the way the suit runs towards the picture
    low, high = (max(0, y0), y1) if beside else (max(0, x0), x1)
    start = max(0, ((x0 + x1) if beside else (y0 + y1)) // 2)
    width = along.shape[1]
    out = along[:, :max(1, low - reach)].any(axis=1) | along[:, min(high + reach, width - 1):].any(axis=1)
    edge = next((i for i in range(start, along.shape[0]) if out[i] and _runs_across(along[i], low, high, reach)), None)
    if edge is None:
        return None
    drop = np.zeros_like(along)
    drop[edge:] = along[edge:]
    return cv2.dilate((drop.T if beside else drop).view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)


def _runs_across(line: np.ndarray, low: int, high: int, reach: int) -> bool:
    """Some unbroken run of ink on ``line`` (bool) lies partly within ``low``..``high`` and reaches
    more than ``reach`` beyond either end, or out of the corner there (a corner cut narrow)."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], line.view(np.int8), [0]))))
    for first, stop in zip(edges[::2], edges[1::2]):
        if first < high and stop > low and (first < max(low - reach, 1) or stop > min(high + reach, len(line) - 1)):
            return True
    return False


PART_LEVELS = 8  # the steps in which parted ink is flooded from its cores


def _flooded(grey: np.ndarray, cores: np.ndarray, ink: np.ndarray, low: float, high: float) -> np.ndarray:
    """The ``cores`` (labels) grown through ``ink``, paler level by level from ``low`` to ``high``,
    each pixel to the core that reaches it first (a watershed of the ink alone, not of the paper)."""
    parts = cores.copy()
    for level in np.linspace(low, high, PART_LEVELS + 1)[1:]:
        _grown_into(parts, ink & (grey <= level))
    return parts


def _grown_into(parts: np.ndarray, allowed: np.ndarray) -> None:
    """``parts`` (labels, 0 unclaimed) grown in place through the ``allowed`` pixels a pixel at a
    time until none is left to claim, each pixel to the part beside it (the larger label where two
    meet: a step of a watershed)."""
    kernel = np.ones((3, 3), np.uint8)
    while True:
        grown = cv2.dilate(parts.astype(np.float32), kernel).astype(np.int32)
        fill = (parts == 0) & allowed & (grown > 0)
        if not fill.any():
            return
        parts[fill] = grown[fill]


def _broken_off(labels: np.ndarray, stats: np.ndarray, main: int, pieces: list[int]) -> set[int]:
    """The pieces (of ``pieces``) that nearly touch the symbol's main piece: broken off it where a
    thin stroke prints or is seen paler (a club's stem, a spade's foot), part of the symbol however
    small; a speck or a pip's edge beside it lies farther off."""
    gap = max(1, round(BROKEN_GAP_MM * CANON_PX_PER_MM))
    x, y, w, h = stats[main, :4].tolist()  # (CC_STAT order: left, top, width, height)
    x0, y0, x1, y1 = max(0, x - gap), max(0, y - gap), x + w + gap, y + h + gap
    around, near, broken = labels[y0:y1, x0:x1], None, {main}
    for piece in pieces:
        px, py, pw, ph = stats[piece, :4].tolist()
        if piece == main or px >= x1 or py >= y1 or px + pw <= x0 or py + ph <= y0:
            continue  # (a piece whose box lies beyond the gap round the main piece's box is not near it)
        if near is None:
            near = cv2.dilate((around == main).astype(np.uint8), np.ones((2 * gap + 1,) * 2, np.uint8)).view(bool)
        if np.any(near & (around == piece)):
            broken.add(piece)
    return broken


def _symbol_ink(grey: np.ndarray, ink: np.ndarray, region_px: tuple[int, int, int, int]) -> np.ndarray:
    """The ink of the symbol in ``region_px`` cut at its own level: a thin stroke that the lens
    blurs (a club's stem, the loops of an 8) is paler than a solid pip, and the corner's one cut
    between the paper and its darkest ink loses it. The symbol's cut is Otsu's over its own region,
    never stricter than the corner's and never nearer the paper than halfway from that."""
    smooth = cv2.GaussianBlur(grey, (3, 3), 0)
    x0, y0, x1, y1 = region_px
    corner_cut = float(smooth[ink > 0].max()) if ink.any() else 0.0
    own, _ = cv2.threshold(smooth[y0:y1, x0:x1], 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    paper = paper_shade(grey)
    if paper <= corner_cut:
        return ink
    cut = min(max(float(own), corner_cut), (corner_cut + paper) / 2)
    return np.where(smooth <= cut, 255, 0).astype(np.uint8)


def index_glyphs(corner: np.ndarray, geometry: IndexGeometry, px_per_mm: float | None = None,
                 again: bool = False) -> tuple[Glyph, Glyph] | None:
    """The rank and suit symbols in an index corner cut at ``geometry.box_mm`` (of a card seen at
    ``px_per_mm``, where known): the ink whose pieces lie in the learned rank and suit regions, cut
    to those regions (a printed frame line touching a symbol is not part of it), the regions moved
    together where that takes both symbols whole (see ``_registered``). None when either has no ink.
    Looked at ``again`` (the second look at an index glare may have washed), the symbols are cut as
    faint ones, and the rank keeps its pale strokes too (see ``card_faces.glyph_of``)."""
    corner, grey = _on_card(corner, geometry)
    own_cut = px_per_mm is not None and px_per_mm >= OWN_CUT_PX_PER_MM and blur_mm(_suit_window(grey, geometry)) <= OWN_CUT_BLUR_MM
    glyphs = _glyphs(corner, grey, grey, geometry, own_cut, again)
    if glyphs is None and (framed := _off_the_frame(grey, geometry)) is not None:
        # the index's ink runs into a court picture's frame (printed up to the index, seen dark as
        # the suit where they touch, and a line the frame's own lines cut off round the symbols
        # leave joined): the frame is painted out, and the symbols looked for again
        glyphs = _glyphs(corner, framed, grey, geometry, own_cut, again)
        if glyphs is not None:
            glyphs = (replace(glyphs[0], parted=True), replace(glyphs[1], parted=True))
    return glyphs


def _glyphs(corner: np.ndarray, grey: np.ndarray, seen: np.ndarray, geometry: IndexGeometry, own_cut: bool,
            again: bool) -> tuple[Glyph, Glyph] | None:
    """``index_glyphs`` of a corner (on the card) and its darkest channel ``grey``, the symbols cut at
    each one's own ink level where ``own_cut``; ``seen`` is the corner's darkest channel as seen,
    where the suit's blur is measured."""
    found = None if again else _symbol_pieces(grey, geometry, own_cut)
    faint = again or found is not None and not own_cut and _partly(found[1], geometry)
    if faint:
        # a pale symbol beside a dark one (a thin 8 over a solid spade) keeps only its darkest
        # strokes at the corner's cut: it is cut at its own level, and marked faint (glare that
        # washed a 2 out leaves a 2 whose thin bar is gone: a 7)
        found = _symbol_pieces(grey, geometry, True)
    if found is None:
        return None
    grey, parts = found
    parted = False  # (a cut's painted line is no edge of the ink: the blur is measured in ``seen``)
    if any(not pieces for _, _, pieces in parts):
        if not _joined(parts, geometry):
            return None
        # the rank and the suit touch (a Q's tail on the suit below it): one piece, its middle in one
        # region only; parted, each lies in its own. Seen sharp and fine enough (``own_cut``) each
        # symbol keeps its own shape up to where they touch, and they are parted at the narrowest neck
        # between them that leaves both whole: a tail reaching past the other symbol's edge (a J's
        # hook beside a diamond's point) leaves no line across between them. Seen coarse or soft,
        # blur has joined them along a front, which no neck tells, and they are cut along the line
        # across that crosses the least ink.
        neck = next((split for split in _parted_at_necks(grey, parts, geometry) if not _partly(split, geometry)),
                    None) if own_cut else None
        if neck is not None:
            parts = neck
        else:
            found = _symbol_pieces(_cut_apart(grey, geometry), geometry, own_cut or faint)
            if found is None or any(not pieces for _, _, pieces in found[1]):
                return None
            grey, parts = found
        parted = True
    if _runs_out(corner, _ink_box(parts[1][1], parts[1][2]), geometry):
        # the suit runs out of the corner's far side (below it, or beside it where the suit is printed
        # beside the rank): joined to a picture beside it, or the corner is cut short or placed off
        # the card, and what is left of a spade (its point) matches a club as well as anything, of
        # a heart (its left lobe) a diamond
        apart = _parted(grey, parts[1][0], parts[1][2], _region_px(geometry.suit_mm, geometry))
        if apart is None or _runs_out(corner, _ink_box(apart[1], apart[2]), geometry):
            apart = _off_the_picture(parts[1], geometry)
        if apart is None or _runs_out(corner, _ink_box(apart[1], apart[2]), geometry):
            return None
        parts[1], parted = apart, True
    windows = [_window(region, geometry) for region in (geometry.rank_mm, geometry.suit_mm)]
    if _at_far_side(corner.shape[:2], _ink_box(parts[1][1], parts[1][2])):
        # the suit's ink runs on out of the corner beside or below it: blur joined it to a pip printed
        # close by, whose edge the corner takes in (on a deck whose learned suit reaches near that pip,
        # a spade with a sliver of it matched a club)
        suit = _suit_parted(grey, parts[1], corner.shape[:2], geometry)
        parted, parts[1] = parted or suit is not parts[1], suit
    if _overflows(_ink_box(parts[0][1], parts[0][2]), windows[0]):
        # a pip printed close beside the rank, joined to it by blur: cut at the window, what is left
        # of the pip reshapes the rank (a 6 with a piece of its heart matched an 8 better)
        rank = _rank_parted(grey, parts[0], windows[0], geometry)
        parted, parts[0] = parted or rank is not parts[0], rank
    dx, dy = _registered(windows, [_ink_box(stats, pieces) for _, stats, pieces in parts], round(REGISTER_MM * CANON_PX_PER_MM))
    glyphs = []
    # looked at again, the rank keeps its pale strokes; a suit keeps to its own ink: its outline is
    # what tells a club from a spade, and taking in the pale ink round it blurs that (a club named a
    # spade on a drawn design). At the first look a rank found faint keeps to its own ink too: what
    # lies round it in its box may be another symbol's (a drawn design printing its suit beside a
    # pale rank read 88 of its 104 cards so, against 101)
    paper = paper_shade(grey)
    for (labels, stats, pieces), window, size, glared in zip(parts, windows, (RANK_SIZE, SUIT_SIZE), (again, False)):
        x0, y0, x1, y1 = window
        glyph = glyph_of(corner, grey, labels, stats, pieces, size, (max(0, x0 + dx), max(0, y0 + dy), x1 + dx, y1 + dy),
                         paper, glared)
        if glyph is None:
            return None
        glyphs.append(glyph)
    suit = _suit_window(seen, geometry, dx, dy)
    runs_out = _at_far_side(corner.shape[:2], _ink_box(parts[0][1], parts[0][2]))
    return (replace(glyphs[0], faint=faint, cut_from=suit, runs_out=runs_out, parted=parted),
            replace(glyphs[1], faint=faint, cut_from=suit, parted=parted))


#: A card's outline found in a coarse view lies within about half a millimetre of its edge: a corner
#: cut from the very edge (an index printed near it) may take in up to this much of the cloth beyond.
OFF_CARD_MM = 1.2


def _on_card(corner: np.ndarray, geometry: IndexGeometry) -> tuple[np.ndarray, np.ndarray]:
    """The corner with the cloth beyond the card's top and left edges (rows and columns from the
    corner's edge whose middle shade is not yet near its paper's: the cloth, and the card's edge
    blurred into it), where the outline took some in, painted the paper's colour: green or black
    cloth is darker than a pale red rank, and would set the ink's cut above it, and the edge's blur
    joins an index printed near it (an index 1 mm from the edge lost its rank, or grew a stalk).
    A corner cut further in than OFF_CARD_MM from both edges is all card. With the corner, its
    darkest channel (``card_faces.darkest_channel``), which the reader takes from it next."""
    box = geometry.box_mm
    grey = darkest_channel(corner)
    if box[0] >= OFF_CARD_MM and box[1] >= OFF_CARD_MM:
        return corner, grey
    sample = grey[::2, ::2]  # the paper's and the ink's shades are known closely enough from a quarter
    ink, paper = quantiles(sample, 0.02, PAPER_QUANTILE)
    near_paper = paper - 0.15 * (paper - ink)
    limit = round(OFF_CARD_MM * CANON_PX_PER_MM)
    top = int(np.argmin(np.append(_median(grey[:limit], axis=1) < near_paper, False))) if box[1] < OFF_CARD_MM else 0
    left = int(np.argmin(np.append(_median(grey[:, :limit], axis=0) < near_paper, False))) if box[0] < OFF_CARD_MM else 0
    if not top and not left:
        return corner, grey
    on_card = corner.copy()
    colour = [paper_shade(corner[::2, ::2, c]) for c in range(corner.shape[2])] if corner.ndim == 3 else paper
    on_card[:top] = colour
    on_card[:, :left] = colour
    return on_card, darkest_channel(on_card)


def _median(values: np.ndarray, axis: int) -> np.ndarray:
    """``np.median`` along ``axis``, from one partial sort (``np.median``'s general machinery costs
    more than the sort on a corner's few rows)."""
    n = values.shape[axis]
    middle = np.partition(values, sorted({(n - 1) // 2, n // 2}), axis=axis)
    return (np.take(middle, (n - 1) // 2, axis=axis).astype(np.float64) + np.take(middle, n // 2, axis=axis)) / 2


def _runs_out(corner: np.ndarray, box: tuple[int, int, int, int], geometry: IndexGeometry) -> bool:
    """The suit's ink in ``box`` (x0, y0, x1, y1 pixels) reaches the corner's far side from the rank:
    its bottom edge, or its right edge where the suit is printed beside the rank (a wide club
    printed below a rank may fill the corner's width)."""
    return box[2] >= corner.shape[1] if geometry.suit_beside else box[3] >= corner.shape[0]


def _rank_parted(grey: np.ndarray, rank, window: tuple[int, int, int, int], geometry: IndexGeometry):
    """The rank's ink (labels, stats, pieces) with its pieces that reach out of ``window`` parted
    from what blur joined them to, the others kept as they are (a pale stroke broken off a 2, its
    bar, has no dark core to part from: parted with the rest it would be lost, and the 2 a 7); as it
    was where parting leaves ink the window does not hold, or shorter than PART_OF_SYMBOL of the
    rank's region."""
    labels, stats, pieces = rank
    out = [i for i in pieces if _overflows(_ink_box(stats, [i]), window)]
    parted = _parted(grey, labels, out, _region_px(geometry.rank_mm, geometry))
    if parted is None:
        return rank
    merged = _with_others(parted, rank, out)
    box = _ink_box(merged[1], merged[2])
    if _overflows(box, window) or box[3] - box[1] < PART_OF_SYMBOL * (geometry.rank_mm[3] - geometry.rank_mm[1]) * CANON_PX_PER_MM:
        return rank
    return merged


def _with_others(parted, symbol, out: list[int]):
    """The ``parted`` ink of a ``symbol``'s pieces ``out`` (as ``_parted`` gives it) with the
    symbol's other pieces as they were: (labels, stats, pieces)."""
    kept_labels, kept_stats, kept = parted
    labels, stats, pieces = symbol
    merged = kept_labels.copy()
    extra = []
    for n, i in enumerate(p for p in pieces if p not in out):
        merged[labels == i] = len(kept_stats) + n
        extra.append(stats[i])
    merged_stats = np.vstack([kept_stats, *extra]) if extra else kept_stats
    return merged, merged_stats, kept + list(range(len(kept_stats), len(kept_stats) + len(extra)))


def _at_far_side(shape: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
    """The ink in ``box`` (x0, y0, x1, y1 pixels) reaches the right or bottom side of a corner of
    ``shape`` (its height and width)."""
    return box[2] >= shape[1] or box[3] >= shape[0]


def _suit_parted(grey: np.ndarray, suit, shape: tuple[int, int], geometry: IndexGeometry):
    """The suit's ink (labels, stats, pieces) with its pieces that reach the corner's right or bottom
    side (``shape``: its height and width) parted from what blur joined them to, the others kept as
    they are, where each part parted off (lying mostly outside the suit's region) is cut by that
    side along at least half its height or width, as the edge of a pip beside the index is; as it
    was otherwise (a club's lobe may touch the side, at a point)."""
    labels, stats, pieces = suit
    out = [i for i in pieces if _at_far_side(shape, _ink_box(stats, [i]))]
    parted = _parted(grey, labels, out, _region_px(geometry.suit_mm, geometry))
    if parted is None:
        return suit
    parts, part_stats, kept = parted
    height, width = shape
    for i in range(1, len(part_stats)):
        if i in kept:
            continue
        part = parts == i
        beside = np.count_nonzero(part[:, width - 1]) >= part_stats[i, cv2.CC_STAT_HEIGHT] / 2
        below = np.count_nonzero(part[height - 1]) >= part_stats[i, cv2.CC_STAT_WIDTH] / 2
        if not (beside or below):
            return suit
    return _with_others(parted, suit, out)


def _overflows(ink: tuple[int, int, int, int], window: tuple[int, int, int, int]) -> bool:
    """The ink's box (x0, y0, x1, y1 pixels) reaches out of the window on some side."""
    return ink[0] < window[0] or ink[1] < window[1] or ink[2] > window[2] or ink[3] > window[3]


def _window(region: tuple[float, float, float, float], geometry: IndexGeometry) -> tuple[int, int, int, int]:
    """How far the symbol of ``region`` (the rank's or the suit's) may reach, in pixels of the corner
    cut at ``geometry.box_mm``."""
    x0, y0, x1, y1 = geometry.extent(region)
    ox, oy = geometry.box_mm[:2]
    m = CANON_PX_PER_MM
    return round((x0 - ox) * m), round((y0 - oy) * m), round((x1 - ox) * m), round((y1 - oy) * m)


def _suit_window(corner: np.ndarray, geometry: IndexGeometry, dx: int = 0, dy: int = 0) -> np.ndarray:
    """The part of the corner the suit may reach (moved by ``dx``, ``dy`` pixels, as ``_registered``
    moves it): its solid ink's edges are the corner's steepest, in a third of its pixels."""
    x0, y0, x1, y1 = _window(geometry.suit_mm, geometry)
    return corner[max(0, y0 + dy):y1 + dy, max(0, x0 + dx):x1 + dx]


#: A symbol whose ink is less than this share of its learned region's height is only part of it.
PART_OF_SYMBOL = 0.6


def _partly(parts, geometry: IndexGeometry) -> bool:
    """The rank's or the suit's ink (``parts``, as ``_symbol_pieces`` gives them) is missing, or
    shorter than PART_OF_SYMBOL of the height of the region it was learned in."""
    for (_, stats, pieces), region in zip(parts, (geometry.rank_mm, geometry.suit_mm)):
        if not pieces:
            return True
        _, top, _, bottom = _ink_box(stats, pieces)
        if bottom - top < PART_OF_SYMBOL * (region[3] - region[1]) * CANON_PX_PER_MM:
            return True
    return False


def _ink_box(stats: np.ndarray, pieces: list[int]) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) round the ink components ``pieces``."""
    # (a loop: a symbol has a piece or two, and numpy's min and max over them take five times as long)
    x0 = y0 = 1 << 30
    x1 = y1 = -1
    for piece in pieces:
        x, y, w, h = stats[piece, :4].tolist()  # (CC_STAT order: left, top, width, height)
        x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x + w), max(y1, y + h)
    return x0, y0, x1, y1


def _registered(windows, inks, most: int) -> tuple[int, int]:
    """How far (dx, dy pixels, at most ``most`` each way) to move the symbols' windows together so
    each holds its symbol's ink whole: the least move that does, else none. A symbol joined to
    something that no move within ``most`` holds (a pip, a frame) is cut where it was learned."""
    shift = []
    for axis in (0, 1):
        low, high = -most, most
        for window, ink in zip(windows, inks):
            low = max(low, ink[axis + 2] - window[axis + 2])  # the window's far edge past the ink's
            high = min(high, ink[axis] - window[axis])  # ... and its near edge before it
        shift.append(0 if low > high else int(min(max(0, low), high)))
    return shift[0], shift[1]
