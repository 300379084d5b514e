"""One card's face: finding cards in a zone image, flattening them, and cutting the index corner
into its rank and suit symbols. Shared by deck learning and reading, so both see a card alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

CARD_W_MM, CARD_H_MM = 63.0, 88.0
CANON_PX_PER_MM = 5.0
CANON_SIZE = (round(CARD_W_MM * CANON_PX_PER_MM), round(CARD_H_MM * CANON_PX_PER_MM))  # 315 x 440
# Template sizes (w, h) in pixels: small enough that a card seen at 2.5 px/mm and a face learned
# at full resolution look alike.
RANK_SIZE = (24, 32)
SUIT_SIZE = (24, 24)
LINE_MM = (4.0, 0.8)  # a printed frame line: a straight run this long, thinner than this
SPECK_MM2 = 0.6  # ink in a corner covering less than this is a speck (dust, noise), not a symbol


@dataclass(frozen=True)
class Glyph:
    """A symbol cut from the index corner: its ink at the template size, aspect ratio and colour."""

    raw: np.ndarray  # uint8 ink intensity at the template size (what a deck stores)
    aspect: float  # width / height of its ink
    height_mm: float  # of its ink on the card: a piece of a symbol (the rest washed out) is shorter
    redness: float  # mean (R - max(G, B)) over its ink, in grey levels
    px_per_mm: float = CANON_PX_PER_MM  # the resolution the card was seen at (a template's, for matching alike)
    faint: bool = False  # lost at the corner's ink cut and found again at its own: weaker evidence
    runs_out: bool = False  # its ink runs on out of the corner's right or bottom side: part of it is out of view
    parted: bool = False  # cut out of ink it touched (the other symbol, a picture, a pip): the cut may be off
    cut_from: np.ndarray | None = field(default=None, repr=False, compare=False)  # its corner's suit, as seen (darkest channel)

    @cached_property
    def blur(self) -> float:
        """How far the ink's edges spread in the corner it was cut from, in mm (``blur_mm``; 0 for a
        template). Measured when asked: a spread tries many corners and reads few."""
        return 0.0 if self.cut_from is None else blur_mm(self.cut_from)

    @property
    def image(self) -> np.ndarray:
        """Zero mean, unit norm: the dot product of two is their normalised cross-correlation."""
        return unit_rows(self.raw.astype(np.float32)[None])[0]


def shifted(glyphs: list[Glyph]) -> np.ndarray:
    """Each glyph's image moved by up to a pixel each way (nine rows a glyph, each zero mean and
    unit norm): a symbol cut from a blurred frame may sit a pixel off where its template does. The
    glyphs (of one size: a card's ranks, or its suits) are shifted together, in a few calls for all."""
    raws = np.stack([glyph.raw for glyph in glyphs])
    count, h, w = raws.shape
    padded = np.zeros((count, h + 2, w + 2), np.float32)
    padded[:, 1:-1, 1:-1] = raws
    moved = np.lib.stride_tricks.sliding_window_view(padded, (h, w), axis=(1, 2))  # count x 3 x 3 x h x w
    return unit_rows(moved.reshape(count * 9, h, w))


def unit_rows(images: np.ndarray) -> np.ndarray:
    """Each image flattened to a row of its own, zero mean and unit norm, in float32 (worked in
    place on that copy: a card's picture shifts make a row each, and temporaries of their size
    cost more than the arithmetic)."""
    rows = images.reshape(len(images), -1).astype(np.float32)
    rows -= rows.mean(axis=1, keepdims=True)
    rows /= np.maximum(np.sqrt(np.einsum("ij,ij->i", rows, rows)), 1e-6)[:, None]
    return rows


def quad_px_per_mm(quad: np.ndarray) -> float:
    """The resolution a card outline was seen at: its mean side lengths against the card's."""
    q = order_quad(quad)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(((sides[0] + sides[2]) / CARD_W_MM + (sides[1] + sides[3]) / CARD_H_MM) / 4)


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
            ordered: bool = False, px_per_mm: float = CANON_PX_PER_MM) -> np.ndarray:
    """The card inside ``quad`` as an upright canonical face (one of two 180-degree turns), or only
    the ``region_mm`` (x0, y0, x1, y1 on the card) of it: warping just a corner is much cheaper."""
    x0, y0, x1, y1 = (0.0, 0.0, CARD_W_MM, CARD_H_MM) if region_mm is None else region_mm
    m = px_per_mm
    dst = np.array([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM]], np.float32) * m - [x0 * m, y0 * m]
    src = np.asarray(quad, np.float32) if ordered else order_quad(quad)
    size = (round((x1 - x0) * m), round((y1 - y0) * m))
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst.astype(np.float32)), size,
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def index_corners(image: np.ndarray, quad: np.ndarray, box_mm: tuple[float, float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Both index corners (``box_mm`` on an upright face) of the card in ``quad``, each upright
    as the top-left corner of a face."""
    q = order_quad(quad)
    return flatten(image, q, box_mm, ordered=True), flatten(image, np.roll(q, 2, axis=0), box_mm, ordered=True)


def _resize(patch: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The ink scaled to fit the template box keeping its shape, centred, slightly blurred, 0..255."""
    w, h = size
    ph, pw = patch.shape[:2]
    scale = min((w - 2) / pw, (h - 2) / ph)
    nw, nh = max(1, round(pw * scale)), max(1, round(ph * scale))
    x0, y0 = (w - nw) // 2, (h - nh) // 2
    small = cv2.resize(patch, (nw, nh), interpolation=cv2.INTER_AREA)
    canvas = cv2.copyMakeBorder(small, y0, h - nh - y0, x0, w - nw - x0, cv2.BORDER_CONSTANT, value=0)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.8)
    peak = cv2.minMaxLoc(canvas)[1] or 1.0
    return (canvas * (255.0 / peak)).astype(np.uint8)  # (ink is never negative: nothing to clip)


def darkest_channel(image: np.ndarray) -> np.ndarray:
    """Each pixel's darkest channel (an image of one channel is its own). Ink of any colour is dark
    in at least one channel, so it shows red and black ink alike against the paper and a grey
    printed border (which the grey of red ink would be no darker than); paper is bright in all."""
    if image.ndim == 2:
        return image
    blue, green, red = cv2.split(image)
    return cv2.min(cv2.min(blue, green), red)


def blur_mm(corner: np.ndarray) -> float:
    """How far the ink's edges in an index corner (at CANON_PX_PER_MM) spread, in mm: the Gaussian
    blur that would leave a step from its paper to its darkest ink no steeper than its steepest edge
    (lens, focus, motion and the camera's own pixels together). A solid suit's edge is such a step;
    the steepest edges are taken as a high percentile of the slopes, above the sensor's noise."""
    grey = darkest_channel(corner)
    ink, paper = quantiles(grey, 0.02, PAPER_QUANTILE)
    grey = grey.astype(np.float32)
    slope = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)).ravel()
    at = int(0.995 * (slope.size - 1))  # its 99.5th percentile: a partition, not a sort
    steepest = float(np.partition(slope, at)[at]) / 8  # the 3x3 Sobel weighs a one-pixel step 8 times
    return float((paper - ink) / max(steepest * np.sqrt(2 * np.pi), 1e-6)) / CANON_PX_PER_MM


def dark_ink(corner: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The corner's darkest channel and the ink in it (255); None when washed out or blank."""
    grey = darkest_channel(corner)
    darkest, brightest = cv2.minMaxLoc(grey)[:2]
    if brightest - darkest < 40:
        return None  # washed out (glare) or blank
    # Ink is darker than the paper; Otsu finds the split even under uneven light.
    _, ink = cv2.threshold(cv2.GaussianBlur(grey, (3, 3), 0), 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    return grey, ink


def frame_lines(ink: np.ndarray) -> np.ndarray:
    """Printed frame lines in an ink mask: long straight runs thinner than a symbol's stroke, so a
    line that touches a symbol does not join it."""
    runs = line_runs(ink)
    return runs[0] | runs[1]


def line_runs(ink: np.ndarray, long_mm: float = LINE_MM[0], thick_mm: float = LINE_MM[1],
              edge_cut: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``frame_lines``, the runs down the mask and the runs across it apart (vertical, horizontal),
    each at least ``long_mm`` long and thinner than ``thick_mm``; where ``edge_cut``, a run the mask's
    edge cuts along its length measured as thick as it shows (a line at a corner's edge, half of it
    beyond, is no thicker for that), not as running on beyond."""
    m = CANON_PX_PER_MM
    long, thick = round(long_mm * m), round(thick_mm * m)
    found = []
    # kernels are (rows, columns): a vertical run, and the stroke's width across it
    for run, across in (((long, 1), (1, thick)), ((1, long), (thick, 1))):
        kernel = np.ones(run, np.uint8)
        runs = cv2.erode(ink, kernel)  # an opening's first half: what is left is a long run's
        if not cv2.countNonZero(runs):
            found.append(runs)  # (most corners have no long run across: the rest of the opening is not needed)
            continue
        runs = cv2.dilate(runs, kernel)
        thin = (cv2.erode(ink, np.ones(across, np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) if edge_cut
                else cv2.erode(ink, np.ones(across, np.uint8)))
        wide = cv2.dilate(thin, np.ones((across[0] + 2, across[1] + 2), np.uint8))
        found.append(runs & ~wide)
    return found[0], found[1]


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` of a mask (8-connected): count, labels, stats, centroids.
    Labelled in 16 bits where every possible piece has a label of its own (the mask is under 2^18
    pixels): OpenCV measures the pieces of 32-bit labels at half the speed, and the reader labels
    some thirty corners and strips a zone."""
    height, width = mask.shape
    most = ((height + 1) // 2) * ((width + 1) // 2)  # 8-connected pieces lie at least a pixel apart
    return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U if most < 2 ** 16 else cv2.CV_32S)


def line_pieces(stats: np.ndarray) -> np.ndarray:
    """Which of the ink pieces (rows of ``components``' stats) are a printed line, or a piece of one:
    long, and thin or hollow."""
    m = CANON_PX_PER_MM
    width, height, area = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_AREA]
    return (np.maximum(width, height) >= 3 * m) & ((np.minimum(width, height) <= 0.6 * m) | (area < 0.15 * width * height))


def ink_symbols(corner: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple]] | None:
    """Of a patch (colour, or its darkest channel): the grey image, the ink's connected components
    (labels, stats) and the boxes (top, bottom, left, right, label) of those that may be index
    symbols: not specks, not printed border lines, not cut by the top or left edge. None when the
    patch is washed out or blank."""
    m = CANON_PX_PER_MM
    found = dark_ink(corner)
    if found is None:
        return None
    grey, ink = found
    # a printed frame line (a court picture's) that blur joins to a rank would take the rank for a line
    _, labels, stats, _ = components(ink & ~frame_lines(ink))
    x, y, bw, bh, area = stats[1:].T
    speck = area < SPECK_MM2 * m * m
    line = line_pieces(stats[1:])
    cut = (x == 0) | (y == 0)  # by the patch's edge: not a symbol of the index
    boxes = [(int(y[i]), int(y[i] + bh[i]), int(x[i]), int(x[i] + bw[i]), int(i) + 1)
             for i in np.flatnonzero(~(speck | line | cut))]
    return grey, labels, stats, boxes


def quantiles(values: np.ndarray, *qs: float) -> list[float]:
    """The ``qs`` quantiles (0..1) of ``values``, interpolated as ``np.percentile`` gives them, found
    by one partial sort in a fifth of its time (the reader takes several of every corner)."""
    flat = values.ravel()
    at = [(int(k), min(int(k) + 1, flat.size - 1), k - int(k)) for k in (q * (flat.size - 1) for q in qs)]
    part = np.partition(flat, sorted({i for lo, hi, _ in at for i in (lo, hi)}))
    return [_between(float(part[lo]), float(part[hi]), share) for lo, hi, share in at]


def _between(low: float, high: float, share: float) -> float:
    """``share`` of the way from ``low`` to ``high``, rounded as numpy's percentile rounds it (from
    the nearer end)."""
    step = high - low
    return low + step * share if share < 0.5 else high - step * (1 - share)


PAPER_QUANTILE = 0.9  # of an index corner's grey levels: its paper (ink covers less of it)


def paper_shade(grey: np.ndarray) -> float:
    """The paper's shade in an index corner: the PAPER_QUANTILE of its grey levels."""
    return quantiles(grey, PAPER_QUANTILE)[0]


def glyph_of(corner: np.ndarray, grey: np.ndarray, labels: np.ndarray, stats: np.ndarray, pieces: list[int],
             size: tuple[int, int], window: tuple[int, int, int, int], paper: float, glared: bool = False) -> Glyph | None:
    """The symbol made of the ink components ``pieces`` (labels of ``labels``) within ``window``
    (x0, y0, x1, y1 pixels), at template ``size``, its ink measured from the corner's ``paper``
    shade (``paper_shade`` of its ``grey``). A ``glared`` symbol keeps all the ink of its box, each
    stroke against the darkest near it (see ``_glared``)."""
    x0, y0, x1, y1 = window
    chosen = np.zeros(len(stats), bool)
    chosen[pieces] = True
    full = chosen[labels[y0:y1, x0:x1]]
    x, y, w, h = cv2.boundingRect(full.view(np.uint8))
    if not w:
        return None
    mask = full[y:y + h, x:x + w]
    top, bottom, left, right = y0 + y, y0 + y + h, x0 + x, x0 + x + w
    # ink measured from the paper's own shade: under dim light the paper is far from white, and
    # the halo a soft lens leaves round a symbol would otherwise fatten it (a club into a spade)
    patch = np.maximum(paper - grey[top:bottom, left:right].astype(np.float32), 0)
    patch = _glared(patch) if glared else patch * mask
    return Glyph(_resize(patch, size), (right - left) / max(1, bottom - top), (bottom - top) / CANON_PX_PER_MM,
                 _redness(corner[top:bottom, left:right], mask))


def _redness(patch: np.ndarray, mask: np.ndarray) -> float:
    """How much redder than its other channels the ink (``mask``) of a colour ``patch`` is, on average."""
    red = patch[..., 2].astype(np.int16) - np.maximum(patch[..., 0], patch[..., 1])
    ink = red[mask]
    return float(np.float32(ink.sum()) / np.float32(ink.size))


def _glared(ink: np.ndarray) -> np.ndarray:
    """A symbol's ink (0 paper .. its darkest) where glare washed some strokes pale: each pixel
    over the darkest ink within a third of the symbol's height round it, so a pale stroke (the top
    of a glared 8, lost at any one cut) counts as much as a dark one, and the paper stays paper."""
    k = max(3, ink.shape[0] // 3) | 1
    near = cv2.GaussianBlur(cv2.dilate(ink, np.ones((k, k), np.uint8)), (0, 0), k / 3)
    return ink / np.maximum(near, 0.2 * float(ink.max()) + 1.0)


#: The felt's own light is measured in this band along the zone image's edge (the felt round the
#: zone, outside its printed line), where a card seldom lies.
FELT_BAND_MM = 3.0
#: Paper is near-neutral (a green or red felt is not): its saturation (0..255) is under this.
PAPER_SATURATION = 50
#: ... and brighter than the felt by this many grey levels (over the felt's noise).
PAPER_STEP = 10.0


def paper_mask(zone_image: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Where the zone image shows card paper (255): near-neutral and brighter than the felt round
    the zone, judged against the felt's own light rather than a fixed level (under dim light, or
    in a dim photo of a card, paper is darker than a fixed level; a light grey cloth is brighter).
    Colour tells paper from a coloured felt, so there the paper need only be brighter than the
    felt at its darkest (light falls off across a zone, and a glare spot lights the felt beside a
    card it does not light); on a near-neutral cloth only light does, and the paper must be
    brighter than the cloth at its brightest."""
    hsv = cv2.cvtColor(zone_image, cv2.COLOR_BGR2HSV)
    b = max(1, round(FELT_BAND_MM * px_per_mm))
    strips = [(slice(None, b), slice(None)), (slice(-b, None), slice(None)),
              (slice(b, -b), slice(None, b)), (slice(b, -b), slice(-b, None))]
    # the felt's light as a person sees it (a green felt's brightest channel is far brighter)
    felt_grey = np.concatenate([cv2.cvtColor(zone_image[s], cv2.COLOR_BGR2GRAY).ravel() for s in strips])
    neutral = np.concatenate([hsv[s][..., 1].ravel() for s in strips]) < PAPER_SATURATION
    darkest, brightest = quantiles(felt_grey, 0.1, 0.9)
    felt = brightest if neutral.mean() >= 0.5 else darkest
    # paper's brightest channel (its light: paper is near-neutral) over the felt's
    return cv2.inRange(hsv, (0, 0, min(255, int(felt + PAPER_STEP) + 1)), (180, PAPER_SATURATION - 1, 255))


#: Paper covering less than this share of its outline's hull is a line printed on the cloth round
#: the zone (a card's paper, even round a court's picture, covers about half its outline or more) ...
LINE_PAPER_SHARE = 0.2
#: ... and a card lying across that line is cut from it where its paper is about this wide (a printed
#: line is narrower; a card's paper round a court's picture may be too, but its hull is the card).
CARD_PAPER_MM = 6.0


def _children(tree: np.ndarray, i: int) -> list[int]:
    """The contours directly inside contour ``i`` (``cv2.RETR_TREE``'s hierarchy): an outer
    boundary's holes, or the outer boundaries of the paper lying in a hole."""
    children, child = [], tree[i][2]
    while child >= 0:
        children.append(child)
        child = tree[child][0]
    return children


def _paper_shapes(paper: np.ndarray, px_per_mm: float) -> list[np.ndarray]:
    """The outer boundaries of the paper. A line printed in white or a light grey on the cloth
    round a zone is as bright and neutral as paper, and closes round the cards within it: such a
    line is left out, a card lying across it cut from it where its paper is wide, and the paper
    lying within it looked at in turn (the paper within a card's own ink, a court's frame, is not)."""
    contours, hierarchy = cv2.findContours(paper, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    tree = hierarchy[0] if hierarchy is not None else []
    card_area = CARD_W_MM * CARD_H_MM * px_per_mm ** 2
    k = round(CARD_PAPER_MM * px_per_mm) | 1
    wide_paper = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    shapes = []
    todo = [i for i in range(len(contours)) if tree[i][3] < 0]
    while todo:
        i = todo.pop(0)
        holes = _children(tree, i)
        hole_areas = [cv2.contourArea(contours[h]) for h in holes]
        hull_area = cv2.contourArea(cv2.convexHull(contours[i]))
        # a line round a zone (or a piece of one) covers little of its hull, unlike a card's paper
        # round a court's picture, which outlines the card; and it closes round more than a card,
        # where a card's holes (its pips, a court's picture) are smaller
        thin = cv2.contourArea(contours[i]) - sum(hole_areas) < LINE_PAPER_SHARE * hull_area \
            and not _card_like(hull_area, cv2.minAreaRect(contours[i]), card_area)
        if not thin and max(hole_areas, default=0.0) < card_area:
            shapes.append(contours[i])
            continue
        own = np.zeros(paper.shape, np.uint8)
        cv2.drawContours(own, contours, i, 255, cv2.FILLED)
        for h in holes:  # what lies in them is other paper
            cv2.drawContours(own, contours, h, 0, cv2.FILLED)
        shapes += cv2.findContours(cv2.morphologyEx(own & paper, cv2.MORPH_OPEN, wide_paper),
                                   cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
        todo += [inner for h in holes for inner in _children(tree, h)]
    return shapes


def card_quads(zone_image: np.ndarray, px_per_mm: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Card outlines in a rectified zone image (the zone with a margin of felt round it): (whole
    cards, card-like shapes that cannot be read)."""
    paper = paper_mask(zone_image, px_per_mm)
    k = max(3, round(1.2 * px_per_mm)) | 1
    paper = cv2.morphologyEx(paper, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    card_area = CARD_W_MM * CARD_H_MM * px_per_mm ** 2
    cards, odd = [], []
    for contour in _pieces_joined(_paper_shapes(paper, px_per_mm), card_area):
        area = cv2.contourArea(cv2.convexHull(contour))
        if area < 0.25 * card_area:
            continue
        rect = cv2.minAreaRect(contour)
        (cards if _card_like(area, rect, card_area) else odd).append(cv2.boxPoints(rect))
    return cards, odd


#: A piece of paper smaller than this share of a card is no piece of a card's paper cut by its picture.
PIECE_SHARE = 0.05


def _pieces_joined(shapes: list[np.ndarray], card_area: float) -> list[np.ndarray]:
    """The paper ``shapes``, two pieces that are not a card each made one where together their hull
    is a card's (``_card_like``): a court's picture printed from the card's top edge to its bottom
    cuts its paper in two, a strip holding the index and a strip beside it, and neither alone was
    taken for a card (its indices were never read). Two cards' pieces lie further apart than a card."""
    def like(contour: np.ndarray) -> bool:
        return _card_like(cv2.contourArea(cv2.convexHull(contour)), cv2.minAreaRect(contour), card_area)

    pieces = [c for c in shapes if not like(c) and cv2.contourArea(cv2.convexHull(c)) >= PIECE_SHARE * card_area]
    joined, used = [], set()
    for a in range(len(pieces)):
        for b in range(a + 1, len(pieces)):
            if a not in used and b not in used and like(both := np.vstack([pieces[a], pieces[b]])):
                joined.append(both)
                used |= {a, b}
    return [c for c in shapes if not any(c is pieces[n] for n in used)] + joined


def _card_like(area: float, rect, card_area: float) -> bool:
    """Paper whose hull has ``area`` and whose least box is ``rect`` (``cv2.minAreaRect``) is one
    card's: a card's area and shape, its hull filling its box. (A court's picture can reach almost
    to a real card's edge, where blur breaks the paper between them: the paper is then a frame open
    at one side, and the card is its hull.)"""
    (_, _), (rw, rh), _ = rect
    aspect = min(rw, rh) / max(rw, rh, 1e-6)
    return 0.8 * card_area <= area <= 1.25 * card_area and 0.62 <= aspect <= 0.82 and area >= 0.9 * rw * rh
