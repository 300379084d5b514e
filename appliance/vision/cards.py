"""One card's face: finding cards in a zone image, flattening them, and cutting the index corner
into its rank and suit symbols. Shared by deck learning and reading, so both see a card alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CARD_W_MM, CARD_H_MM = 63.0, 88.0
CANON_PX_PER_MM = 5.0
CANON_SIZE = (round(CARD_W_MM * CANON_PX_PER_MM), round(CARD_H_MM * CANON_PX_PER_MM))  # 315 x 440
# The index corner: generous enough for common designs, clear of the centre pips.
CORNER_MM = (1.2, 1.2, 15.5, 32.0)  # x0, y0, x1, y1
# Template sizes (w, h) in pixels: small enough that a card seen at 2.5 px/mm and a face learned
# at full resolution look alike.
RANK_SIZE = (24, 32)
SUIT_SIZE = (24, 24)


@dataclass(frozen=True)
class Glyph:
    """A symbol cut from the index corner: its ink at the template size, aspect ratio and colour."""

    raw: np.ndarray  # uint8 ink intensity at the template size (what a deck stores)
    aspect: float  # width / height of its ink
    redness: float  # mean (R - max(G, B)) over its ink, in grey levels

    @property
    def image(self) -> np.ndarray:
        """Zero mean, unit norm: the dot product of two is their normalised cross-correlation."""
        return _unit(self.raw.astype(np.float32)[None])[0]

    def shifted(self) -> np.ndarray:
        """The image moved by up to a pixel each way (nine rows, each zero mean and unit norm): a
        symbol cut from a blurred frame may sit a pixel off where its template does."""
        padded = cv2.copyMakeBorder(self.raw, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0).astype(np.float32)
        return _unit(np.lib.stride_tricks.sliding_window_view(padded, self.raw.shape).reshape(9, -1))


def _unit(images: np.ndarray) -> np.ndarray:
    """Each image flattened to a row, zero mean and unit norm."""
    rows = images.reshape(len(images), -1)
    rows = rows - rows.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 1e-6, norms, 1.0)


def order_quad(points: np.ndarray) -> np.ndarray:
    """Four corners, clockwise on screen, starting at the start of a short side: the card is portrait."""
    pts = np.asarray(points, np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y points down)
    if np.linalg.norm(pts[1] - pts[0]) > np.linalg.norm(pts[2] - pts[1]):
        pts = np.roll(pts, -1, axis=0)  # make pts[0] -> pts[1] a short side
    return pts


def flatten(image: np.ndarray, quad: np.ndarray, region_mm: tuple[float, float, float, float] | None = None,
            ordered: bool = False) -> np.ndarray:
    """The card inside ``quad`` as an upright canonical face (one of two 180-degree turns), or only
    the ``region_mm`` (x0, y0, x1, y1 on the card) of it: warping just a corner is much cheaper."""
    w, h = CANON_SIZE
    x0, y0, x1, y1 = (0.0, 0.0, CARD_W_MM, CARD_H_MM) if region_mm is None else region_mm
    m = CANON_PX_PER_MM
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - [x0 * m, y0 * m]
    src = np.asarray(quad, np.float32) if ordered else order_quad(quad)
    size = (round((x1 - x0) * m), round((y1 - y0) * m))
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst.astype(np.float32)), size,
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def index_corners(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both index corners of the card in ``quad``, each upright as the top-left corner of a face."""
    q = order_quad(quad)
    return flatten(image, q, CORNER_MM, ordered=True), flatten(image, np.roll(q, 2, axis=0), CORNER_MM, ordered=True)


def corner_of(face: np.ndarray) -> np.ndarray:
    """The top-left index corner of a canonical face."""
    x0, y0, x1, y1 = (round(v * CANON_PX_PER_MM) for v in CORNER_MM)
    return face[y0:y1, x0:x1]


def _resize(patch: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The ink scaled to fit the template box keeping its shape, centred, slightly blurred, 0..255."""
    w, h = size
    ph, pw = patch.shape[:2]
    scale = min((w - 2) / pw, (h - 2) / ph)
    nw, nh = max(1, round(pw * scale)), max(1, round(ph * scale))
    canvas = np.zeros((h, w), np.float32)
    x0, y0 = (w - nw) // 2, (h - nh) // 2
    canvas[y0:y0 + nh, x0:x0 + nw] = cv2.resize(patch, (nw, nh), interpolation=cv2.INTER_AREA)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.8)
    peak = float(canvas.max()) or 1.0
    return np.clip(canvas * (255.0 / peak), 0, 255).astype(np.uint8)


def ink_symbols(corner: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple]] | None:
    """The grey image, the ink's connected components (labels, stats) and the boxes (top, bottom,
    left, right, label) of those that may be index symbols: not specks, not printed border lines,
    not cut by the top or left edge. None when the patch is washed out or blank."""
    m = CANON_PX_PER_MM
    # Ink of any colour is dark in at least one channel, so the darkest channel shows red and
    # black ink alike against the paper and a grey printed border (which the grey of red ink
    # would be no darker than).
    blue, green, red = cv2.split(corner)
    grey = cv2.min(cv2.min(blue, green), red)
    if float(grey.max()) - float(grey.min()) < 40:
        return None  # washed out (glare) or blank
    # Ink is darker than the paper; Otsu finds the split even under uneven light.
    _, ink = cv2.threshold(cv2.GaussianBlur(grey, (3, 3), 0), 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    x, y, bw, bh, area = stats[1:].T
    long_side, short_side = np.maximum(bw, bh), np.minimum(bw, bh)
    speck = area < 0.6 * m * m
    # a printed border line, or a piece of one
    line = (long_side >= 3 * m) & ((short_side <= 0.6 * m) | (area < 0.15 * bw * bh))
    cut = (x == 0) | (y == 0)  # by the patch's edge: not a symbol of the index
    boxes = [(int(y[i]), int(y[i] + bh[i]), int(x[i]), int(x[i] + bw[i]), int(i) + 1)
             for i in np.flatnonzero(~(speck | line | cut))]
    return grey, labels, stats, boxes


def index_glyphs(corner: np.ndarray) -> tuple[Glyph, Glyph] | None:
    """The rank and suit symbols of an index corner, or None when they cannot be told apart."""
    m = CANON_PX_PER_MM
    found = ink_symbols(corner)
    if found is None:
        return None
    grey, labels, stats, boxes = found
    if not boxes:
        return None
    # Group the symbols into rows: the rank on top (a "10" is two pieces side by side), the suit below.
    boxes.sort()
    rows: list[list[tuple]] = []
    for box in boxes:
        if rows and box[0] < max(b[1] for b in rows[-1]) - 0.5 * m:
            rows[-1].append(box)
        else:
            rows.append([box])
    # Slivers of a border or of the card's edge are small beside the symbols: keep the rows with ink.
    areas = [sum(int(stats[b[4], cv2.CC_STAT_AREA]) for b in row) for row in rows]
    rows = [row for row, area in zip(rows, areas) if area >= 0.25 * max(areas)]
    # ... and within a row, beside the symbol: the pieces of a symbol ("10") are of a size.
    rows = [[b for b in row if stats[b[4], cv2.CC_STAT_AREA] >= 0.15 * max(stats[c[4], cv2.CC_STAT_AREA] for c in row)]
            for row in rows]
    if len(rows) < 2:
        return None
    glyphs = []
    for row, size in ((rows[0], RANK_SIZE), (rows[1], SUIT_SIZE)):
        top, bottom = min(b[0] for b in row), max(b[1] for b in row)
        left, right = min(b[2] for b in row), max(b[3] for b in row)
        window = labels[top:bottom, left:right]
        mask = window == row[0][4]
        for box in row[1:]:
            mask |= window == box[4]
        patch = np.where(mask, 255 - grey[top:bottom, left:right].astype(np.float32), 0)
        colour = corner[top:bottom, left:right].astype(np.float32)
        red = colour[..., 2] - np.maximum(colour[..., 0], colour[..., 1])
        redness = float(red[mask].mean()) if mask.any() else 0.0
        glyphs.append(Glyph(_resize(patch, size), (right - left) / max(1, bottom - top), redness))
    return glyphs[0], glyphs[1]


def card_quads(zone_image: np.ndarray, px_per_mm: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Card outlines in a rectified zone image: (whole cards, card-like shapes that cannot be read)."""
    hsv = cv2.cvtColor(zone_image, cv2.COLOR_BGR2HSV)
    paper = ((hsv[..., 1] < 50) & (hsv[..., 2] > 90)).astype(np.uint8) * 255
    k = max(3, round(1.2 * px_per_mm)) | 1
    paper = cv2.morphologyEx(paper, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    card_area = CARD_W_MM * CARD_H_MM * px_per_mm ** 2
    cards, odd = [], []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < 0.25 * card_area:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
        aspect = min(rw, rh) / max(rw, rh)
        quad = cv2.boxPoints(((cx, cy), (rw, rh), angle))
        if 0.8 * card_area <= area <= 1.25 * card_area and 0.62 <= aspect <= 0.82 and area >= 0.9 * rw * rh:
            cards.append(quad)
        else:
            odd.append(quad)
    return cards, odd
