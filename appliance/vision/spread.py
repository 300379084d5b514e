"""A hand spread with overlap: the cards' outlines merge into one shape, but each card lies over
the one before it so that every card's top-left index corner stays in view along one long edge
of the shape. The index corners are found there as columns of ink (a rank above a suit).

Every index corner in view is used: along the other long edge lies the top card's second index
(its bottom-right corner, turned round). Each corner found there is given to the card whose
centre it points to, so the top card is read from both its corners. (A hand laid the other way
round, each card under the one before it, shows every card's second index along the other edge
instead: that edge then has the most corners, and the same pairing holds.)"""

from __future__ import annotations

import cv2
import numpy as np

from .cards import CANON_PX_PER_MM, CARD_H_MM, CARD_W_MM, ink_symbols, order_quad
from .index import IndexGeometry, index_glyphs

# The spread's short side is one card's height; its cards may lie a little askew.
HEIGHT_RANGE_MM = (0.9 * CARD_H_MM, 1.2 * CARD_H_MM)
MIN_COLUMN_INK_MM2 = 12.0  # a rank and a suit hold more ink than this; a sliver of a centre pip less


def spread_corners(frame: np.ndarray, quad: np.ndarray, zone_to_frame: np.ndarray, px_per_mm: float,
                   index: IndexGeometry) -> list[tuple[list[np.ndarray], np.ndarray]] | None:
    """Each card's index corners in view (upright, each as the top-left corner of a face) and the
    card's centre in zone pixels, in the spread's order, for the shape ``quad`` (zone pixels); None
    when the shape is not a spread of cards."""
    edges: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(4)]
    indices = [0] * 4
    # Any edge may be the one along the index corners: the hand may be turned round (then the
    # opposite edge shows only the last card's second index), and a spread of two cards is
    # about as long as it is high. The edge with the most index corners (a rank above a suit) wins.
    for turn in range(4):
        corners_zone = np.roll(order_quad(quad), turn, axis=0)
        length = float(np.linalg.norm(corners_zone[1] - corners_zone[0])) / px_per_mm
        height = float(np.linalg.norm(corners_zone[2] - corners_zone[1])) / px_per_mm
        if HEIGHT_RANGE_MM[0] <= height <= HEIGHT_RANGE_MM[1] and length >= CARD_W_MM + 10:
            edges[turn] = _columns(frame, corners_zone, zone_to_frame, length, height, index)
            indices[turn] = sum(index_glyphs(corner, index) is not None for corner, _ in edges[turn])
    best = int(np.argmax(indices))
    if indices[best] <= 1:
        return None
    cards = [([corner], centre) for corner, centre in edges[best]]
    # The far edge's corners, each to the card whose centre it points to: within half the least
    # step between cards (an index's width, or the next card would cover it).
    same_card_mm = (index.box_mm[2] - index.box_mm[0]) / 2
    for corner, centre in edges[(best + 2) % 4]:
        distances = [float(np.linalg.norm(centre - c)) for _, c in cards]
        nearest = int(np.argmin(distances))
        if distances[nearest] <= same_card_mm * px_per_mm:
            cards[nearest][0].append(corner)
    return cards


def _columns(frame, corners_zone, zone_to_frame, length, height, index: IndexGeometry) -> list[tuple[np.ndarray, np.ndarray]]:
    """The index corners along the edge ``corners_zone[0]`` -> ``[1]``: the band of the spread
    where every card's top-left index lies, cut from the frame and split into columns of ink."""
    m = CANON_PX_PER_MM
    rect_mm = np.array([[0, 0], [length, 0], [length, height], [0, height]], np.float32)
    mm_to_zone = cv2.getPerspectiveTransform(rect_mm, corners_zone.astype(np.float32))
    x0, y0, x1, y1 = index.box_mm
    # the middle of an index's ink on a face: a column of ink is cut out around its own middle
    ink_left, ink_right = min(index.rank_mm[0], index.suit_extent_mm[0]), max(index.rank_mm[2], index.suit_extent_mm[2])
    ink_mid = (ink_left + ink_right) / 2
    step = x1 - x0  # cards closer than this would cover each other's index
    strip_to_mm = np.array([[1 / m, 0, 0], [0, 1 / m, y0], [0, 0, 1]])
    strip = cv2.warpPerspective(frame, zone_to_frame @ mm_to_zone @ strip_to_mm, (round(length * m), round((y1 - y0) * m)),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    found = ink_symbols(strip)
    if found is None:
        return []
    grey, _, stats, boxes = found
    columns: list[list[float]] = []  # left, right, ink area
    # What reaches the strip's far edge belongs to the cards' middles (a centre pip), not an index.
    boxes = [b for b in boxes if b[1] < grey.shape[0]]
    for _, _, left, right, label in sorted(boxes, key=lambda b: b[2]):
        area = float(stats[label, cv2.CC_STAT_AREA])
        if columns and left <= columns[-1][1] + m:
            columns[-1][1] = max(columns[-1][1], right)
            columns[-1][2] += area
        else:
            columns.append([left, right, area])
    # Every card lies within the spread, its index within the deck's index box: ink further along
    # than the last card's index is the top card's face (a corner of its printed border, a pip).
    last = length - CARD_W_MM + x1 + 3
    columns = [c for c in columns if c[2] >= MIN_COLUMN_INK_MM2 * m * m and (c[0] + c[1]) / 2 / m <= last]
    # Index corners start at the spread's end (symbols side by side, an index seen from another
    # edge, leave the first ink elsewhere) and lie a card's visible part apart. Real designs print
    # more in that part (pips, a court's picture): further ink is an index only where a rank and a
    # suit lie where the deck prints them, no nearer the index before it than an index's width
    # (the next card would cover it).
    if not columns or not x0 <= (columns[0][0] + columns[0][1]) / 2 / m <= x1 + 3:
        return []
    out, middles = [], []
    for left, right, _ in columns:
        # cut as the index corner of a face is cut: the ink centred where the deck prints it; a
        # column wider than an index is the index joined by what is printed beside it, and the
        # index is its left part
        middle = (left + right) / 2 if right - left <= (ink_right - ink_left + 2) * m else left + (ink_mid - ink_left) * m
        if middles and middle - middles[-1] < step * m:
            continue
        start = round(middle - (ink_mid - x0) * m)
        corner = strip[:, max(0, start):start + round((x1 - x0) * m)]
        if middles and index_glyphs(corner, index) is None:
            continue
        middles.append(middle)
        centre_mm = np.array([[[middle / m - ink_mid + CARD_W_MM / 2, CARD_H_MM / 2]]])
        out.append((corner, cv2.perspectiveTransform(centre_mm, mm_to_zone)[0, 0]))
    return out
