"""Cards in an arbitrary photograph: no layout, no calibration, any background (black cloth, wood,
green felt, a laptop), any angle and perspective.

Card stock is the brightest, least coloured thing in most photos, but not everywhere: glare on a
varnished table can be as bright, and a card in shadow darker than a lit background. So the card
outlines are looked for in several binary views of the photo (the darkest channel cut at many
levels, the same cut against the local brightness, and each eroded a little so that cards touching
at a corner come apart); every view's outlines that are four straight sides enclosing a solid shape
of a card's proportions are candidates, and where candidates overlap the one that follows its
outline most closely wins. A candidate must step in brightness across one of its sides at least (a
light table lit unevenly, cut at one level, leaves straight-sided shapes with no edge), and a shape
with an edge on one side at most gives way to one an edge bounds. A white card on a light table,
whose edge a faint cut finds broken, is looked for last, beside the cards found. The sides are
fitted to the outline's straight parts (not its rounded corners), so each corner is where the
card's sides meet.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .card_faces import darkest_channel

FIND_LONG_SIDE_PX = 1000  # the photo is searched at this size; corners are then scaled back
# A card's sides seen in perspective: the short sides at least this share of the long ones, and
# no corner sharper than this (a camera looking along the table at 20 degrees still passes).
MIN_SIDE_SHARE = 0.15
MIN_CORNER_DEG = 25.0
MIN_OPPOSITE_SHARE = 0.4
# The band just inside a card's outline (as shares of the way to its centre) is card stock:
# saturation at most this (of 255), brightness at least this share of the photo's brightest.
PAPER_RING = (0.03, 0.08)
PAPER_MAX_SATURATION = 130  # paper under coloured light (a pink cast) still passes; red ink is far above
PAPER_MIN_VALUE_SHARE = 0.4
MIN_CARD_SHARE = 0.003  # of the photo's area: smaller shapes are not cards anyone can read
LEVELS = 14  # cuts of the darkest channel, between its 40th and 98th percentiles
MAX_FIT = 0.02  # median distance of the outline from its four sides, as a share of the side
MIN_SOLID = 0.9  # the outline's area over its four sides' at least this
CLOSE_FIT, MIN_SOLID_CLOSE_FIT = 0.01, 0.8  # ... or this, where it follows the sides this closely
# A shape of touching cards is cut at its neck: between the two deepest dents of its outline, each
# at least NECK_DEPTH of the shape's size (the root of its area) deep and the cut no longer than
# they are deep together, each piece at least NECK_PIECE of the shape; a piece is cut again at most
# MAX_SPLITS times in all. A piece so cut is a card only where it follows four straight sides
# within SPLIT_FIT (a card's edge; glare or a patch of table cut to four sides is ragged).
NECK_DEPTH, NECK_PIECE, MAX_SPLITS, SPLIT_FIT = 0.05, 0.2, 2, 0.004
ERODE_PX = (0, 4, 8)  # cards touching each other come apart when the paper is eroded this much
# Grey levels across a side that is a card's edge: the sharpest side of the real cards' outlines in
# the shared photos stepped 4 at the least (a card on a card); a shape cut from a light table's
# shading, 0 to 1.
MIN_EDGE_STEP = 3.0
# A card found by the faint edge (see find_cards) stands for an outline found inside it of at most
# this share of its area (a court's picture), not for one of about its own size.
DETAIL_SHARE = 0.8


@dataclass(frozen=True)
class CardOutline:
    """One card's outline in photo pixels: corners clockwise on screen from the start of a short
    side (the card portrait), its centre, and whether the photo's edge cuts it."""

    corners: np.ndarray  # 4 x 2 float32
    fit: float  # how closely the outline follows the four sides (smaller is closer)
    cut: bool
    edges: int = 0  # of its sides, those seen as a step in brightness (the card's edge against the table)

    @property
    def center(self) -> tuple[float, float]:
        x, y = _intersect(_line(self.corners[0], self.corners[2]), _line(self.corners[1], self.corners[3]))
        return float(x), float(y)


def find_cards(photo: np.ndarray) -> list[CardOutline]:
    """Every card outline in the photo, left to right then top to bottom."""
    scale = FIND_LONG_SIDE_PX / max(photo.shape[:2])
    small = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else photo
    scale = min(scale, 1.0)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    brightest = float(np.percentile(hsv[..., 2], 99))
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    kept = _kept(_candidates(_paper_masks(small, grey), hsv, grey, brightest))
    # A white card on a light table steps only a few grey levels at its edge, which a faint cut finds
    # broken here and there (a wider line closes the gaps): looked for there, beside the cards found
    # or round a detail of one taken for it (a court's picture).
    for outline in _kept(_candidates(_edge_masks(grey, ((15, 45),), 2, 2, hulls=True), hsv, grey, brightest)):
        kept = _taken(kept, outline, DETAIL_SHARE)
    out = [replace(k, corners=order_corners(k.corners / scale)) for k in kept]
    return sorted(out, key=lambda c: (round(c.center[1] / (0.1 * max(photo.shape[:2]))), c.center[0]))


def _candidates(masks, hsv: np.ndarray, grey: np.ndarray, brightest: float) -> list[tuple[CardOutline, bool]]:
    """The card outlines of the binary views ``masks`` with card stock just inside, each with its
    edges counted and whether it was cut from a larger shape."""
    candidates = []
    for mask, grow in masks:
        for outline, split in _quads(mask, grow, grey.shape):
            measured, stepped = _edge_sides(grey, outline.corners, max(0, 2 * round(grow)))
            # a light table lit unevenly, cut at one level, leaves a shape of four straight sides
            # (the photo's edges and a line across it) with no edge at all
            if _paper_inside(hsv, outline.corners, brightest) and (stepped or not measured):
                candidates.append((replace(outline, edges=stepped), split))
    return candidates


def _kept(candidates: list[tuple[CardOutline, bool]]) -> list[CardOutline]:
    """The candidates that are cards of their own: where candidates overlap, the one that follows
    its outline most closely, a card's outline before a detail inside it."""
    kept: list[CardOutline] = []
    # a shape cut from touching cards only where no view shows that card by itself (even cut by
    # the photo's edge: the piece may be of it and the card beside it)
    # ... and a shape with an edge on one side at most (bounded by a light table's shading and a
    # card's shadow: straighter than any card) after one a card's edge bounds
    for outline, _ in sorted(candidates, key=lambda c: (c[1], c[0].cut, c[0].edges < 2, c[0].fit)):
        kept = _taken(kept, outline)
    return kept


def _taken(kept: list[CardOutline], outline: CardOutline, detail_share: float | None = None) -> list[CardOutline]:
    """``kept`` with ``outline`` added where it overlaps none of them, or in place of those it overlaps
    where each is a detail of it (under ``detail_share`` of its area, where given), unless it has an
    edge on one side at most and some of them on two or more: a shape the light bounds round a card,
    not a card round a detail of it."""
    overlapping = [k for k in kept if _overlap(outline.corners, k.corners)]
    if not overlapping:
        return kept + [outline]
    if outline.edges < 2 and any(k.edges >= 2 for k in overlapping):
        return kept
    area = cv2.contourArea(outline.corners)
    if all(_detail_of(outline.corners, k.corners)
           and (detail_share is None or cv2.contourArea(k.corners) < detail_share * area) for k in overlapping):
        return [k for k in kept if all(k is not o for o in overlapping)] + [outline]
    return kept


def _paper_masks(image: np.ndarray, grey: np.ndarray):
    """Binary views in which card stock is white, each with how far it was eroded (``grey``: the
    image's grey, blurred, for its edges)."""
    # Paper is bright in every channel; wood, felt and skin are dark in at least one.
    white = cv2.GaussianBlur(darkest_channel(image), (5, 5), 0)
    # Against the local brightness (a window about a card across): a card in shadow beside a lit
    # background, or glare on the table beside the cards.
    window = (max(image.shape[:2]) // 6) | 1
    local = cv2.blur(white, (window, window)).astype(np.int16)
    levels = np.unique(np.percentile(white, np.linspace(40, 98, LEVELS)).astype(int))
    masks = [(white > t) for t in levels]
    masks += [(white.astype(np.int16) - local > d) for d in (10, 25, 40)]
    for mask in masks:
        mask = cv2.morphologyEx(mask.astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        for r in ERODE_PX:
            yield (cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) if r else mask), r
    # The card's edge as a closed line, filled: a card no brighter than what lies around it
    # (glare on a varnished table, a lit laptop) still has an edge all round.
    yield from _edge_masks(grey, ((30, 90), (60, 180)), 1, -1)


def _edge_masks(grey: np.ndarray, cuts: tuple[tuple[int, int], ...], width: int, grow: int, hulls: bool = False):
    """The card's edge as a closed line (Canny at each of ``cuts``, drawn ``width`` px wide), filled
    (its outline then about ``width`` px outside the edge: moved in by ``grow``); what the edges
    enclose (a card whose edge meets other edges); and with ``hulls``, the closed lines' convex hulls
    filled. ``grey``: the photo's grey, blurred."""
    for low, high in cuts:
        edges = cv2.dilate(cv2.Canny(grey, low, high), np.ones((2 * width + 1,) * 2, np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        yield cv2.drawContours(np.zeros_like(edges), contours, -1, 255, cv2.FILLED), grow
        yield 255 - edges, width + 1
        if hulls:  # a card's edge broken where it steps least still runs round most of the card
            yield cv2.drawContours(np.zeros_like(edges), [cv2.convexHull(c) for c in contours], -1, 255, cv2.FILLED), grow


def _quads(mask: np.ndarray, grow: float, shape: tuple[int, int]) -> list[tuple[CardOutline, bool]]:
    """The shapes in ``mask`` that are a card: four straight sides, solid, a card's proportions;
    a shape that is not, split at its necks where cards touch (see ``_split_at_neck``). Each with
    whether it was cut from a larger shape."""
    h, w = shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    todo = [(c, 0) for c in contours]
    while todo:
        contour, splits = todo.pop()
        area = cv2.contourArea(contour)
        if not MIN_CARD_SHARE * h * w <= area <= 0.8 * h * w:  # the photo's own frame is no card
            continue
        card = _card_of(contour, area, grow, shape)
        if card is not None and (not splits or card.fit <= SPLIT_FIT):
            out.append((card, splits > 0))
        elif card is None and splits < MAX_SPLITS and area >= 2 * MIN_CARD_SHARE * h * w:  # two cards at least
            todo += [(piece, splits + 1) for piece in _split_at_neck(contour)]
    return out


def _card_of(contour: np.ndarray, area: float, grow: float, shape: tuple[int, int]) -> CardOutline | None:
    """The card the shape outlines, or None when it is not one."""
    h, w = shape
    quad = _four_corners(contour)
    if quad is None:
        return None
    sides = _fit_sides(quad, contour)
    if sides is None:
        return None
    quad_area = cv2.contourArea(_corners_of(sides))
    fit = _fit(sides, contour)
    # Solid: the index or a pip printed near the edge may bite into the paper's outline (glare
    # beside the card leaves only a local cut that parts them), which an outline that follows
    # four straight sides this closely may show.
    solid = MIN_SOLID_CLOSE_FIT if fit <= CLOSE_FIT else MIN_SOLID
    if fit > MAX_FIT or quad_area <= 0 or not solid <= area / quad_area <= 1.02:
        return None
    corners = _corners_of([(p - n * grow, n) for p, n in sides])  # undo the erosion
    if not cv2.isContourConvex(corners.astype(np.int32)) or not _plausible(corners):
        return None
    cut = bool((corners.min(axis=0) < 2).any() or corners[:, 0].max() > w - 3 or corners[:, 1].max() > h - 3)
    return CardOutline(corners.astype(np.float32), fit, cut)


def _split_at_neck(contour: np.ndarray) -> list[np.ndarray]:
    """The shape cut in two along its neck: between the two deepest dents of its outline, where
    two cards touch corner to corner or side to side. Nothing when it has no such neck (dents
    shallow against the shape's size, a cut longer than they are deep, or a corner nicked off)."""
    hull = cv2.convexHull(contour, returnPoints=False)
    try:
        defects = cv2.convexityDefects(contour, hull)
    except cv2.error:  # a self-touching outline
        return []
    if defects is None or len(defects) < 2:
        return []
    size = float(np.sqrt(cv2.contourArea(contour)))
    defects = defects.reshape(-1, 4)  # start, end, farthest point, depth (x256)
    deepest = defects[np.argsort(defects[:, 3])[::-1][:2]]
    depths = deepest[:, 3] / 256.0
    a, b = (contour[i, 0] for i in deepest[:, 2])
    if depths.min() < NECK_DEPTH * size or np.linalg.norm(a - b) > depths.sum():
        return []
    x, y, w, h = cv2.boundingRect(contour)
    shape = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(shape, [contour - (x - 1, y - 1)], -1, 255, cv2.FILLED)
    cv2.line(shape, tuple(int(v) for v in a - (x - 1, y - 1)), tuple(int(v) for v in b - (x - 1, y - 1)), 0, 2)
    pieces, _ = cv2.findContours(shape, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    areas = [cv2.contourArea(piece) for piece in pieces]
    if len(pieces) < 2 or sorted(areas)[-2] < NECK_PIECE * sum(areas):  # a corner nicked off: no neck
        return []
    return [piece + (x - 1, y - 1) for piece in pieces]


def _plausible(corners: np.ndarray) -> bool:
    """A card seen in perspective: no corner near flat or near a spike, no side a sliver of the
    others (a shape cut by another card or by the photo, or a wedge of table)."""
    sides = corners - np.roll(corners, 1, axis=0)
    lengths = np.linalg.norm(sides, axis=1)
    if lengths.min() < MIN_SIDE_SHARE * lengths.max():
        return False
    # opposite sides: in perspective the far one is shorter, but not this much unless the card
    # is almost at the lens (a sliver of one card cut off by another's shadow or glare is)
    if min(lengths[0], lengths[2]) < MIN_OPPOSITE_SHARE * max(lengths[0], lengths[2]) \
            or min(lengths[1], lengths[3]) < MIN_OPPOSITE_SHARE * max(lengths[1], lengths[3]):
        return False
    cosines = [float(-sides[i] @ sides[(i + 1) % 4]) / (lengths[i] * lengths[(i + 1) % 4]) for i in range(4)]
    return max(abs(c) for c in cosines) <= np.cos(np.radians(MIN_CORNER_DEG))


def _paper_inside(hsv: np.ndarray, corners: np.ndarray, brightest: float) -> bool:
    """Just inside the outline, all round, is card stock: light and hardly coloured. A diamond
    pip, a court picture, a laptop's corner or a patch of wood has four sides too."""
    x, y, w, h = cv2.boundingRect(corners.astype(np.int32))
    x, y = max(x, 0), max(y, 0)
    patch = hsv[y:y + h, x:x + w]
    centre = corners.mean(axis=0)
    ring = np.zeros(patch.shape[:2], np.uint8)
    outer = (centre + (corners - centre) * (1 - PAPER_RING[0]) - (x, y)).astype(np.int32)
    inner = (centre + (corners - centre) * (1 - PAPER_RING[1]) - (x, y)).astype(np.int32)
    cv2.fillPoly(ring, [outer], 255)
    cv2.fillPoly(ring, [inner], 0)
    if not ring.any():
        return False
    saturation, value = np.median(patch[..., 1][ring > 0]), np.median(patch[..., 2][ring > 0])
    return bool(saturation <= PAPER_MAX_SATURATION and value >= PAPER_MIN_VALUE_SHARE * brightest)


def _edge_sides(grey: np.ndarray, corners: np.ndarray, slack: int) -> tuple[int, int]:
    """Of the outline's sides (those not along the photo's edge), how many were measured and how
    many are a step in brightness (MIN_EDGE_STEP) within ``slack`` px outside it: a card's edge against
    what lies beyond it (an outline from paper eroded to part touching cards lies inside the edge)."""
    h, w = grey.shape
    centre = corners.mean(axis=0)
    measured = stepped = 0
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        if any(max(a[k], b[k]) < 3 or min(a[k], b[k]) > limit - 4 for k, limit in ((0, w), (1, h))):
            continue  # along the photo's edge
        length = float(np.linalg.norm(b - a))
        inward = np.array([a[1] - b[1], b[0] - a[0]]) / max(length, 1e-9)
        inward = inward if float((centre - a) @ inward) > 0 else -inward
        reach = max(3.0, 0.01 * length)
        steps = []
        for out in range(0, slack + 1, 2):
            points = a + (b - a) * np.linspace(0.15, 0.85, 40)[:, None] - inward * out
            inside, outside = (np.round(points + inward * d).astype(int) for d in (reach, -reach))
            seen = (np.minimum(inside, outside).min(axis=1) >= 0) & (np.maximum(inside, outside)[:, 0] < w) \
                & (np.maximum(inside, outside)[:, 1] < h)
            if seen.sum() >= 10:
                across = grey[inside[seen, 1], inside[seen, 0]].astype(np.int16) - grey[outside[seen, 1], outside[seen, 0]]
                steps.append(float(np.median(np.abs(across))))
        if steps:
            measured += 1
            stepped += max(steps) >= MIN_EDGE_STEP
    return measured, stepped


def _four_corners(contour: np.ndarray) -> np.ndarray | None:
    """Four corners of the shape's convex hull, when it has four."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for epsilon in (0.02, 0.03, 0.045, 0.06):
        approx = cv2.approxPolyDP(hull, epsilon * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
        if len(approx) < 4:
            return None
    return None


def _fit_sides(quad: np.ndarray, contour: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Each side as (a point on it, its outward unit normal), fitted to the outline's points along
    the middle of that side (the rounded corners left out)."""
    points = contour.reshape(-1, 2).astype(np.float32)
    centre = quad.mean(axis=0)
    sides = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / length
        normal = np.array([-along[1], along[0]], np.float32)
        rel = points - a
        t, d = rel @ along, np.abs(rel @ normal)
        near = (t > 0.15 * length) & (t < 0.85 * length) & (d < max(3.0, 0.03 * length))
        if near.sum() < 8:
            return None
        vx, vy, x0, y0 = cv2.fitLine(points[near], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        normal = np.array([-vy, vx], np.float32)
        point = np.array([x0, y0], np.float32)
        if float((point - centre) @ normal) < 0:
            normal = -normal
        sides.append((point, normal))
    return sides


def _fit(sides, contour: np.ndarray) -> float:
    """Median distance of the outline's points from the nearest side, as a share of the mean side."""
    points = contour.reshape(-1, 2).astype(np.float32)
    distances = np.min(np.abs(np.stack([(points - p) @ n for p, n in sides])), axis=0)
    corners = _corners_of(sides)
    mean_side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
    return float(np.median(distances)) / max(mean_side, 1.0)


def _line(a, b) -> tuple[np.ndarray, np.ndarray]:
    """The line through a and b as (a point, a unit normal)."""
    d = np.asarray(b, np.float64) - np.asarray(a, np.float64)
    return np.asarray(a, np.float64), np.array([-d[1], d[0]]) / max(np.linalg.norm(d), 1e-9)


def _intersect(l1, l2) -> np.ndarray:
    (p, n), (q, m) = l1, l2
    a = np.array([n, m], np.float64)
    if abs(np.linalg.det(a)) < 1e-9:
        return (np.asarray(p, np.float64) + np.asarray(q, np.float64)) / 2
    return np.linalg.solve(a, [float(np.dot(n, p)), float(np.dot(m, q))])


def _corners_of(sides) -> np.ndarray:
    """Where consecutive sides meet: corner i is between side i-1 and side i."""
    return np.array([_intersect(sides[i - 1], sides[i]) for i in range(4)], np.float32)


def _detail_of(outer: np.ndarray, inner: np.ndarray) -> bool:
    """``inner`` lies inside ``outer`` and is a part of one card (a printed frame, a picture, a
    patch of paper between pips) rather than one of two cards side by side that make a shape of a
    card's proportions (each then half of it)."""
    inside = all(cv2.pointPolygonTest(outer.reshape(-1, 1, 2), tuple(map(float, p)), False) >= 0 for p in inner)
    share = cv2.contourArea(inner) / max(cv2.contourArea(outer), 1e-9)
    return inside and not 0.4 <= share <= 0.55


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Either outline's centre lies inside the other: two views of one card."""
    def inside(quad: np.ndarray, point: np.ndarray) -> bool:
        return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), tuple(map(float, point)), False) >= 0

    return inside(a, b.mean(axis=0)) or inside(b, a.mean(axis=0))


def image_aspect(corners: np.ndarray) -> float:
    """The mean length of sides 0-1 and 2-3 over that of sides 1-2 and 3-0."""
    c = np.asarray(corners, np.float64)
    lengths = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
    return float((lengths[0] + lengths[2]) / max(lengths[1] + lengths[3], 1e-9))


def order_corners(corners: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting at the start of the shorter pair of sides (the card portrait
    as the photo shows it; a steep perspective can swap the pairs, which is why the reader looks
    at the card both ways), the top-most such start first."""
    pts = np.asarray(corners, np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    pts = pts[np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))]  # clockwise (y down)
    if image_aspect(pts) > 1.0:
        pts = np.roll(pts, -1, axis=0)
    # of the two portrait orders (a half turn apart), the one whose first corner is higher
    if pts[2, 1] + pts[3, 1] < pts[0, 1] + pts[1, 1]:
        pts = np.roll(pts, 2, axis=0)
    return pts
