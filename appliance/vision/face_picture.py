"""A card's picture between its index corners (its pips, an ace's one big pip, a court's figure),
kept by the deck to tell apart the cards its index leaves open, and to check the one it names.

A blurred or distant index can show a club much like a spade, or a heart like a diamond, while the
middle of the card still differs plainly: its pips are two or three times the index's suit, and
an ace of clubs has one small club where the ace of spades may have a large ornate spade. The index
puts forward a few cards (its best two ranks with its best two suits); the middle of a card seen
whole is compared with the taught pictures of all of them, and tells one only when that one matches
well and far more closely than every other. It never names a card the index did not put forward,
and names one only where the index left just that choice open (see ``reader._decide``). A card under
another in a spread shows only the part of its middle beside its index, up to the next card's edge:
its nearest pips, which tell its suit (two ranks may print them alike).
"""

from __future__ import annotations

import cv2
import numpy as np

from .card_faces import CARD_H_MM, CARD_W_MM, darkest_channel, flatten, unit_rows

PICTURE_PX_PER_MM = 1.0  # pips are 8-20 mm: a coarse picture shows them, and blur hardly changes it
SHIFT_MM = 3  # how far a card's outline may place its middle off: compared at each 1 mm shift
MARGIN_MM = 4.0  # above and below the picture, inside the card's edge (its corners are round)
NARROWEST_MM = 16.0  # a jumbo index leaves at least this much of the middle
# A picture (taught or seen) whose grey levels spread less than this shows nothing to compare (glare
# washed it out, or the design prints nothing there): a flat image correlates with anything.
MIN_CONTRAST = 12.0
# The picture tells a card only when it matches at least FLOOR, at least LEAD more than any other
# candidate, and at a distance (1 - score) at most RATIO of the next one's; it refuses the card the
# index names when another candidate's matches at least FLOOR at most RATIO of its distance. On 1,960 cards of each
# real deck, taught from one photo and shown from another, no card's own picture matched less well
# than its same-rank twin of the other suit; the closest (a 2 of spades, two small pips, against the
# 2 of clubs: 0.93 against 0.92) is refused. A drawn design whose cards of a suit all print one big
# pip shows a suit, never a rank: its candidates of one suit tie, and it tells none.
FLOOR = 0.8
LEAD = 0.1
RATIO = 0.5
# Where the index puts one of two suits it leaves open first, the picture leaning the same way by
# this much tells it: the two looks agree. Over the spread-hand bench frames read with each real
# deck taught from its photos and from nine altered sets of them (25,480 cards), where the index
# put the wrong suit first the picture never led it (0.00 at most), and where the right one, the
# picture led it by 0.02 or more.
AGREEING_LEAD = 0.04


def picture_region(box_mm: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """The middle of a card (x0, y0, x1, y1 in mm on an upright face) between its index corners:
    the index box ``box_mm`` in the top left and, turned, in the bottom right, is left out."""
    side = min(box_mm[2], (CARD_W_MM - NARROWEST_MM) / 2)
    return side, MARGIN_MM, CARD_W_MM - side, CARD_H_MM - MARGIN_MM


def picture_shape(box_mm: tuple[float, float, float, float]) -> tuple[int, int]:
    """(height, width) in pixels of the picture of a deck whose index box is ``box_mm``."""
    x0, y0, x1, y1 = picture_region(box_mm)
    return round((y1 - y0) * PICTURE_PX_PER_MM), round((x1 - x0) * PICTURE_PX_PER_MM)


def card_picture(image: np.ndarray, quad: np.ndarray, box_mm: tuple[float, float, float, float],
                 ordered: bool = False) -> np.ndarray:
    """The middle of the card at ``quad`` in ``image``, upright (one of its two turns), at
    PICTURE_PX_PER_MM in its darkest channel (red ink and black alike)."""
    # warped at twice the picture's resolution, then each 2x2 averaged: no pip edge aliases away
    patch = darkest_channel(flatten(image, quad, picture_region(box_mm), ordered, 2 * PICTURE_PX_PER_MM))
    height, width = picture_shape(box_mm)
    return cv2.resize(patch, (width, height), interpolation=cv2.INTER_AREA)


#: The part of a card's middle in view beside its index (a card under the next in a spread) is
#: compared where at least this much of it shows: a pip's width.
NARROWEST_PART_MM = 8.0
#: ... less this, nearest the next card: its edge (a rim, a shadow) is no part of this card's picture.
PART_EDGE_MM = 1.0


def picture_part_width(box_mm: tuple[float, float, float, float], shown_mm: float) -> int:
    """The width in pixels of the part of a card's picture in view when the card shows ``shown_mm``
    from its left edge (0: too little to compare)."""
    width = round((shown_mm - PART_EDGE_MM - picture_region(box_mm)[0]) * PICTURE_PX_PER_MM)
    return min(width, picture_shape(box_mm)[1]) if width >= NARROWEST_PART_MM * PICTURE_PX_PER_MM else 0


def picture_part(image: np.ndarray, quad: np.ndarray, box_mm: tuple[float, float, float, float],
                 shown_mm: float) -> np.ndarray:
    """The part of the middle of the card at ``quad`` (upright, ordered) in view when it shows
    ``shown_mm`` from its left edge (see ``picture_part_width``)."""
    return card_picture(image, quad, box_mm, ordered=True)[:, :picture_part_width(box_mm, shown_mm)]


def shows_something(picture: np.ndarray) -> bool:
    """The picture has ink to compare (see MIN_CONTRAST)."""
    return float(picture.std()) >= MIN_CONTRAST


def face_picture(face: np.ndarray, box_mm: tuple[float, float, float, float]) -> np.ndarray:
    """The picture of an upright face image (a flattened photo, ``CANON_SIZE``), as ``card_picture``
    takes it from a card on the table (the face first shrunk to the warp's resolution, each pixel
    averaged over those it covers)."""
    size = (round(CARD_W_MM * 2 * PICTURE_PX_PER_MM), round(CARD_H_MM * 2 * PICTURE_PX_PER_MM))
    small = cv2.resize(face, size, interpolation=cv2.INTER_AREA)
    w, h = size
    return card_picture(small, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), box_mm, ordered=True)


def _compared(picture: np.ndarray, width: int) -> list[np.ndarray]:
    """What of a taught picture is matched with a card's middle ``width`` pixels wide: the picture
    less the shift at its sides, up to that width, the card either way up."""
    s = round(SHIFT_MM * PICTURE_PX_PER_MM)
    return [taught[s:taught.shape[0] - s, s:width - s] for taught in (picture, picture[::-1, ::-1])]


def likeness(seen: np.ndarray, picture: np.ndarray) -> float:
    """How closely a card's middle matches a taught picture: normalised cross-correlation at the
    best shift of up to SHIFT_MM each way, the card either way up. A ``seen`` narrower than the
    picture is the part of the middle nearest the card's index (the rest covered, as in a spread):
    it is matched with that part of the picture, or of the picture turned round."""
    return likenesses(seen, [picture])[0]


def likenesses(seen: np.ndarray, pictures: list[np.ndarray]) -> list[float]:
    """``likeness`` of the card's middle to each of ``pictures``, all at once: every shift of the
    middle is one row, every taught picture either way up one column, and one product scores them
    all (as ``cv2.matchTemplate``'s TM_CCOEFF_NORMED would, a call for each pair, in a fifth of the
    time). The taught columns have zero mean, so a shift's own mean drops out of the product, and
    its spread comes from the middle's running sums: the shifts are never made zero-mean rows."""
    taught = [t for picture in pictures for t in _compared(picture, seen.shape[1])]
    height, width = taught[0].shape
    shifts = np.lib.stride_tricks.sliding_window_view(seen, (height, width)).reshape(-1, height * width)
    sums, squares = cv2.integral2(seen, sdepth=cv2.CV_64F)
    deviations = _windowed(squares, height, width) - _windowed(sums, height, width) ** 2 / shifts.shape[1]
    # (grey levels are whole numbers: a shift not all one level deviates by at least 1 - 1/n squared)
    spread = np.where(deviations >= 0.5, np.sqrt(np.maximum(deviations, 0.5)), np.inf).astype(np.float32)
    scores = (shifts.astype(np.float32) @ unit_rows(np.stack(taught)).T) / spread[:, None]
    return [float(v) for v in scores.max(axis=0).reshape(len(pictures), 2).max(axis=1)]


def _windowed(integral: np.ndarray, height: int, width: int) -> np.ndarray:
    """The sum over every ``height`` x ``width`` window of an image, from its integral image, in
    the order of ``sliding_window_view``'s windows."""
    return (integral[height:, width:] - integral[:-height, width:] - integral[height:, :-width]
            + integral[:-height, :-width]).ravel()


def compare(seen: np.ndarray, pictures: dict[str, np.ndarray],
            candidates: tuple[str, ...]) -> tuple[dict[str, float] | None, str]:
    """How closely the card's middle ``seen`` matches each candidate's taught picture (None where one
    has none, or the middle shows no ink; a candidate whose taught part is blank is not scored), and
    that in words for the log."""
    missing = [code for code in candidates if code not in pictures]
    if missing:
        return None, "no taught picture of " + ", ".join(missing)
    if not shows_something(seen):
        return None, "the card's picture shows no ink to compare"
    # The part of a taught picture matched with a part in view may be blank (the paper beside an
    # ace's index): its shading alone then correlates with whatever the part shows (the next card's
    # shadow, another card's ink), and deck-b's As under an 8c matched its Ac's blank paper there
    # 0.97, its own picture 0.83. A taught part with no ink is no picture of its card: not scored.
    blank = [code for code in candidates if seen.shape[1] < pictures[code].shape[1]
             and not all(map(shows_something, _compared(pictures[code], seen.shape[1])))]
    scored = [code for code in candidates if code not in blank]
    scores = dict(zip(scored, likenesses(seen, [pictures[code] for code in scored]))) if scored else {}
    words = []
    if scores:
        words.append("the card's picture matches " + ", ".join(f"{c} {v:.2f}" for c, v in sorted(scores.items(), key=lambda i: -i[1])))
    if blank:
        words.append("the part in view is blank on the taught " + ", ".join(blank))
    return scores, "; ".join(words)


def _closer(score: float, other: float) -> bool:
    """A match at ``score`` is well made and much closer than one at ``other``."""
    return score >= FLOOR and (1 - score) <= RATIO * (1 - other)


def tell(scores: dict[str, float]) -> str | None:
    """The one candidate the picture shows: much closer than every other, and by at least LEAD; None
    if none is, or fewer than two were weighed (the others blank where the card is in view)."""
    if len(scores) < 2:
        return None
    best = max(scores, key=scores.get)
    return best if all(_closer(scores[best], v) and scores[best] - v >= LEAD for c, v in scores.items() if c != best) \
        else None


def agrees(scores: dict[str, float], first: str, second: str) -> bool:
    """The picture leans to ``first`` of the two cards the index leaves open, as the index does: it
    matches well, and at least AGREEING_LEAD more than ``second``."""
    return scores[first] >= FLOOR and scores[first] - scores[second] >= AGREEING_LEAD


def contradicts(scores: dict[str, float], code: str) -> bool:
    """Some other candidate's picture is much closer than that of ``code``, the card the index names
    (a drawn design whose cards of a suit print one pip still shows the other suit). Refusing costs
    a card's read, naming it wrongly a payout: no lead is asked for here."""
    return any(_closer(v, scores[code]) for c, v in scores.items() if c != code)
