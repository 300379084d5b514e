"""A card outline moved onto the card's own edge.

The finder's outlines come from binary views of a coarse copy of the photo: where the light falls
off across a card, or its paper meets a light background, the view's cut may run a few millimetres
inside the card, and the flattened card is then enlarged and its index lies off its learned place.
Each side is looked for afresh in the full-resolution photo: along the side's middle, at each
point, where the paper (light in every channel) steps down to the background most steeply, within
a few millimetres either way; where most points agree on one straight line, that is the side.

Cards read in a photo and card images cut from photos use it; teaching photos do not yet: moved
onto their edges, deck-b's faces put their index up to 1.5 mm apart from face to face (the cards
are cut off-centre, which the finder's looser outlines happened to hide), and the index's place,
learned where the faces' ink agrees pixel by pixel, then falls apart. Registering the faces
against each other before locating the index would let teaching use it too.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .card_faces import darkest_channel, quad_px_per_mm
from .photo import CardOutline, order_corners

SNAP_MM = 5.0  # a side is looked for this far inside and outside the outline
SAMPLES = 48  # points along each side's middle (its rounded corners left out)
MIDDLE = (0.15, 0.85)
STEP_MM = 0.4  # the paper and the background are compared this far either side of an edge
BEYOND = 6  # ... and this many times as far outside (past any printed line)
MIN_STEP = 25.0  # grey levels: a fainter step is no card's edge (a card on light cloth stays as found)
AGREE_MM = 0.5  # points this close to their median offset lie on the side
MIN_AGREE = 0.6  # ... and at least this share of the points must


def on_edges(photo: np.ndarray, outlines: list[CardOutline]) -> list[CardOutline]:
    """The finder's outlines (``photo.find_cards``) each moved onto its card's edge in ``photo``."""
    return [replace(o, corners=order_corners(snap_to_edge(photo, o.corners))) for o in outlines]


def snap_to_edge(photo: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """``corners`` (4 x 2, in order round the card) with each side moved to the card's edge where
    the photo shows one clearly near it; a side that shows none stays."""
    corners = np.asarray(corners, np.float32)
    px = quad_px_per_mm(corners)
    # only the card and what lies round it is looked at
    pad = round((SNAP_MM + (BEYOND + 1) * STEP_MM) * px) + 2
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int) - pad, 0)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad + 1
    patch = photo[y0:y1, x0:x1]
    paper = cv2.GaussianBlur(darkest_channel(patch), (0, 0), max(0.5, 0.15 * px)).astype(np.float32)
    local = (corners - (x0, y0)).astype(np.float32)
    centre = local.mean(axis=0)
    sides = [_side(paper, local[i], local[(i + 1) % 4], centre, px) for i in range(4)]
    return np.array([_meet(sides[i - 1], sides[i]) for i in range(4)], np.float32) + np.float32([x0, y0])


def _side(paper: np.ndarray, a: np.ndarray, b: np.ndarray, centre: np.ndarray, px: float):
    """The side from ``a`` to ``b`` as (a point on it, its direction): moved onto the edge, or as it was."""
    along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
    normal = np.array([-along[1], along[0]], np.float32)
    if float((a - centre) @ normal) < 0:
        normal = -normal  # outward
    reach, gap = SNAP_MM * px, max(1.0, STEP_MM * px)
    offsets = np.arange(-reach, reach + 0.5, 0.5, dtype=np.float32)
    t = np.linspace(*MIDDLE, SAMPLES, dtype=np.float32)
    base = a[None] + t[:, None] * (b - a)[None]  # SAMPLES x 2

    def sample(shift: np.ndarray) -> np.ndarray:
        points = base[:, None, :] + shift[None, :, None] * normal[None, None, :]
        return cv2.remap(paper, points[..., 0], points[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    # paper inside, and darker all the way out to BEYOND steps: the inner edge of a printed line
    # or frame has paper again just beyond it
    outside = np.max([sample(offsets + k * gap) for k in range(1, BEYOND + 1)], axis=0)
    step = sample(offsets - gap) - outside
    best = step.argmax(axis=1)
    strong = step[np.arange(SAMPLES), best] >= MIN_STEP
    if strong.mean() < MIN_AGREE:
        return a, along
    found = offsets[best]
    agree = strong & (np.abs(found - np.median(found[strong])) <= max(1.0, AGREE_MM * px))
    if agree.mean() < MIN_AGREE:
        return a, along
    points = base[agree] + found[agree, None] * normal[None]
    vx, vy, x0, y0 = cv2.fitLine(points, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)


def _meet(first, second) -> np.ndarray:
    """Where two sides (point, direction) cross."""
    (p, u), (q, v) = first, second
    matrix = np.array([[u[0], -v[0]], [u[1], -v[1]]], np.float64)
    if abs(np.linalg.det(matrix)) < 1e-9:
        return (p + q) / 2
    s, _ = np.linalg.solve(matrix, (q - p).astype(np.float64))
    return (p + s * u).astype(np.float32)
