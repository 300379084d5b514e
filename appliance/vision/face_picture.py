"""A card's picture between its index corners (its pips, an ace's one big pip, a court's figure),
kept by the deck to tell apart two cards that the index alone leaves open.

A blurred or distant index can show a club much like a spade, or a heart like a diamond, while the
middle of the card still differs plainly: its pips are two or three times the index's suit, and
an ace of clubs has one small club where the ace of spades may have a large ornate spade. So when
the index names a card but for one part (its suit, or its rank) whose two best candidates are both
likely, the middle of a card seen whole is compared with the taught pictures of those two cards,
and decides only when it matches one well and far more closely than the other. It never names a
card the index did not put forward.
"""

from __future__ import annotations

import cv2
import numpy as np

from .cards import CARD_H_MM, CARD_W_MM, darkest_channel, flatten

PICTURE_PX_PER_MM = 1.0  # pips are 8-20 mm: a coarse picture shows them, and blur hardly changes it
SHIFT_MM = 3  # how far a card's outline may place its middle off: compared at each 1 mm shift
MARGIN_MM = 4.0  # above and below the picture, inside the card's edge (its corners are round)
NARROWEST_MM = 16.0  # a jumbo index leaves at least this much of the middle
# The picture decides only when its best candidate matches at least this well and the other is
# clearly worse: on 1,960 cards of two real decks, taught from one photo and shown from another, no
# card's own picture was matched less well than its same-rank other-suit twin's, and the closest
# (a 2 of spades with its two small pips, against the 2 of clubs) had a distance ratio of 0.92.
FLOOR = 0.8
RATIO = 0.5


def picture_region(box_mm: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """The middle of a card (x0, y0, x1, y1 in mm on an upright face) between its index corners:
    the index box ``box_mm`` in the top left and, turned, in the bottom right, is left out."""
    side = min(box_mm[2], (CARD_W_MM - NARROWEST_MM) / 2)
    return side, MARGIN_MM, CARD_W_MM - side, CARD_H_MM - MARGIN_MM


def card_picture(image: np.ndarray, quad: np.ndarray, box_mm: tuple[float, float, float, float],
                 ordered: bool = False) -> np.ndarray:
    """The middle of the card at ``quad`` in ``image``, upright (one of its two turns), at
    PICTURE_PX_PER_MM in its darkest channel (red ink and black alike)."""
    x0, y0, x1, y1 = region = picture_region(box_mm)
    # warped at twice the picture's resolution, then each 2x2 averaged: no pip edge aliases away
    patch = darkest_channel(flatten(image, quad, region, ordered, 2 * PICTURE_PX_PER_MM))
    size = (round((x1 - x0) * PICTURE_PX_PER_MM), round((y1 - y0) * PICTURE_PX_PER_MM))
    return cv2.resize(patch, size, interpolation=cv2.INTER_AREA)


def face_picture(face: np.ndarray, box_mm: tuple[float, float, float, float]) -> np.ndarray:
    """The picture of an upright face image (a flattened photo, ``CANON_SIZE``), as ``card_picture``
    takes it from a card on the table (the face first shrunk to the warp's resolution, each pixel
    averaged over those it covers)."""
    size = (round(CARD_W_MM * 2 * PICTURE_PX_PER_MM), round(CARD_H_MM * 2 * PICTURE_PX_PER_MM))
    small = cv2.resize(face, size, interpolation=cv2.INTER_AREA)
    w, h = size
    return card_picture(small, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), box_mm, ordered=True)


def likeness(seen: np.ndarray, picture: np.ndarray) -> float:
    """How closely a card's middle matches a taught picture: normalised cross-correlation at the
    best shift of up to SHIFT_MM each way, the card either way up."""
    s = round(SHIFT_MM * PICTURE_PX_PER_MM)
    inner = picture[s:-s, s:-s]
    return max(float(cv2.matchTemplate(view, inner, cv2.TM_CCOEFF_NORMED).max()) for view in (seen, seen[::-1, ::-1]))


def tell(seen: np.ndarray, pictures: dict[str, np.ndarray], rivals: tuple[str, str]) -> tuple[str | None, str]:
    """Which of two ``rivals`` (card codes) the card's middle ``seen`` shows, or None; and how it
    compared, in words for the log."""
    if not all(code in pictures for code in rivals):
        return None, "no taught picture of " + " or ".join(c for c in rivals if c not in pictures)
    scores = sorted(((likeness(seen, pictures[code]), code) for code in rivals), reverse=True)
    (best, code), (second, other) = scores
    how = f"the card's picture matches {code} {best:.2f}, {other} {second:.2f}"
    if best < FLOOR or (1 - best) > RATIO * (1 - second):
        return None, how
    return code, how
