"""A symbol's ink parted from what it touches: from what blur joined it to (``index._parted``),
every piece of the symbol's ink judged by where it lies and none dropped unseen; from the other
symbol, a court picture's frame, a border line's stub (``index.index_glyphs``)."""

import cv2
import numpy as np
import pytest

from appliance.vision.card_faces import CANON_PX_PER_MM, RANK_SIZE, SUIT_SIZE, Glyph
from appliance.vision.deck import _misfits
from appliance.vision.design_zoo import SuitShapes, fill, text_mask
from appliance.vision.index import IndexGeometry, _parted, index_glyphs, index_patch


def test_a_pale_piece_with_no_dark_core_is_kept_where_it_lies_in_the_symbols_region():
    """Two dark blots joined by a pale bridge part along it; a pale stroke beside them, broken off
    and with no dark core of its own (a club's stem seen soft), is no part the watershed floods:
    it was lost from the parted ink though it lies in the symbol's region. It is kept, and a pale
    piece outside the region is not."""
    grey = np.full((40, 80), 230, np.uint8)
    cv2.circle(grey, (15, 20), 8, 30, -1)  # the symbol, in the region
    cv2.circle(grey, (50, 20), 8, 30, -1)  # a pip joined to it, outside
    cv2.line(grey, (23, 20), (42, 20), 150, 3)  # the pale bridge blur made between them
    cv2.line(grey, (5, 33), (25, 33), 150, 2)  # a pale stroke broken off the symbol, in the region
    cv2.line(grey, (45, 33), (60, 33), 150, 2)  # a pale speck by the pip, outside
    _, labels = cv2.connectedComponents((grey < 200).astype(np.uint8), connectivity=8)
    pieces = [int(i) for i in np.unique(labels) if i]
    parts, _, kept = _parted(grey, labels, pieces, (0, 0, 32, 40))
    ink = np.isin(parts, kept)
    assert ink[20, 15] and ink[33, 15], "the symbol and its pale stroke"
    assert not ink[20, 50] and not ink[33, 52], "the pip and the speck by it"


# --- index corners drawn here: the rank in an OpenCV font (on every machine), the suit as the design
# zoo draws it, at DRAWN_PX_PER_MM and brought down to the canonical face's resolution as a card is

DRAWN_PX_PER_MM = 20
PAPER, INK = 245, (30, 30, 30)


def _face(rank: str, suit: str, rank_at: tuple[float, float], suit_at: tuple[float, float], rank_mm: float = 8.0,
          suit_mm: float = 6.0, stroke_mm: float | None = None, border_at: tuple[float, float] | None = None,
          border_line_mm: float = 0.25, frame_at: tuple[float, float] | None = None) -> np.ndarray:
    """The top-left 40 mm of a face (mm from its edges): the rank's top-left at ``rank_at`` (its
    strokes thinned to ``stroke_mm``), the suit centred at ``suit_at``; a border line whose corner
    is at ``border_at``, broken 0.8 mm round the index as printers do; a court picture's frame (a
    0.5 mm line) whose corner is at ``frame_at``."""
    m = DRAWN_PX_PER_MM
    index = np.full((40 * m, 40 * m, 3), PAPER, np.uint8)
    mask, _ = text_mask("hershey:2", rank, rank_mm * m)
    if stroke_mm is not None:  # a lighter face than OpenCV's: each stroke's sides eroded
        thin = round((rank_mm / 9 - stroke_mm) * m / 2)
        mask = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * thin + 1,) * 2))
    x, y = round(rank_at[0] * m), round(rank_at[1] * m)
    alpha = mask.astype(np.float32)[:, :, None] / 255
    patch = index[y:y + mask.shape[0], x:x + mask.shape[1]]
    patch[:] = (patch * (1 - alpha) + np.array(INK) * alpha).astype(np.uint8)
    fill(index, SuitShapes().polygons(suit), suit_at[0] * m, suit_at[1] * m, suit_mm * m, INK)
    face = np.full_like(index, PAPER)
    if border_at is not None:
        cv2.rectangle(face, tuple(round(v * m) for v in border_at), (41 * m, 41 * m), INK, round(border_line_mm * m))
        ys, xs = np.nonzero(index.min(axis=2) < PAPER)
        e = round(0.8 * m)
        face[max(0, ys.min() - e):ys.max() + e, max(0, xs.min() - e):xs.max() + e] = PAPER
    if frame_at is not None:
        cv2.rectangle(face, tuple(round(v * m) for v in frame_at), (41 * m, 41 * m), INK, round(0.5 * m))
    face = np.minimum(face, index)
    k = CANON_PX_PER_MM / m
    return cv2.resize(face, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)


def _glyphs(face: np.ndarray, geometry: IndexGeometry):
    return index_glyphs(index_patch(face, geometry), geometry, CANON_PX_PER_MM)


def test_the_stub_a_border_line_leaves_beside_a_rank_is_no_part_of_it():
    """A border line broken round the index leaves a stub between the card's corner and a narrow
    rank printed well inside its index (a 7 where the deck's 10 is wide), as long as a stroke of the
    rank, a little thicker than the line where it turns the corner: taken with the 7, the 7 matched
    the queens better than the sevens and the face was refused. A line's stub is no piece of a symbol."""
    geometry = IndexGeometry((3.0, 1.0, 10.0, 6.5), (5.0, 7.5, 9.0, 11.5), (4.5, 7.5, 9.5, 12.0))
    drawn = {"rank_at": (6.0, 1.2), "suit_at": (7.2, 9.6), "rank_mm": 5.0, "suit_mm": 4.0, "stroke_mm": 0.35}
    clean = {rank: _glyphs(_face(rank, "d", **drawn), geometry)[0] for rank in "7Q"}
    for corner in ((2.0, 1.2), (2.0, 1.0), (2.2, 1.4)):
        seven = _glyphs(_face("7", "d", border_at=corner, border_line_mm=0.5, **drawn), geometry)[0]
        assert float(seven.image @ clean["7"].image) > 0.95 > float(seven.image @ clean["Q"].image), corner


@pytest.mark.parametrize("line_mm", [0.9, 1.2])
def test_a_border_line_seen_as_thick_as_a_stroke_is_no_part_of_the_rank_beside_it(line_mm):
    """A card at 2 px/mm under a tilted camera, its corner cut a few mm off where the deck prints
    it (a spread): the border line runs down the rank's region beside a 5, and seen coarse and
    blurred it is as thick as a stroke, so it is not found as a line. Cut with the 5 it ran 15 mm
    down a 9 mm rank, which matched no rank (0.41); with three other such cards the whole table was
    held as another deck's. A piece taller or wider than the region every rank prints in is no
    piece of the rank beside it."""
    geometry = IndexGeometry((3.0, 1.0, 11.5, 9.5), (5.0, 10.0, 10.5, 15.0), (2.5, 0.5, 12.0, 15.5))
    drawn = {"rank_at": (5.6, 1.4), "suit_at": (8.0, 12.5), "rank_mm": 7.5, "suit_mm": 4.5}
    clean = {rank: _glyphs(_face(rank, "h", **drawn), geometry)[0] for rank in "5689"}
    five = _glyphs(_face("5", "h", border_at=(3.8, 0.6), border_line_mm=line_mm, **drawn), geometry)[0]
    alike = {rank: float(five.image @ template.image) for rank, template in clean.items()}
    assert alike["5"] > 0.95 and all(alike["5"] > v + 0.05 for r, v in alike.items() if r != "5"), alike


def test_a_suit_standing_on_a_court_pictures_frame_is_cut_off_it():
    """A court's picture printed up to the index: the club's foot stands on the frame's top line,
    the frame's corner under it. The frame's lines are cut off the symbols, but its corner stays
    joined to the club, which so runs out of the corner: the face was refused ("no rank and suit
    ink"). The frame is cut off the suit where a line across runs out beyond it."""
    geometry = IndexGeometry((6.0, 0.5, 13.5, 9.5), (6.5, 10.5, 13.5, 16.5), (6.0, 10.5, 14.0, 17.5))
    clean = {suit: _glyphs(_face("Q", suit, (6.0, 0.7), (10.0, 13.5)), geometry)[1] for suit in "cdhs"}
    for frame in ((7.0, 16.7), (7.5, 16.6)):
        glyphs = _glyphs(_face("Q", "c", (6.0, 0.7), (10.0, 13.5), frame_at=frame), geometry)
        assert glyphs is not None, frame
        alike = {suit: float(glyphs[1].image @ template.image) for suit, template in clean.items()}
        assert alike["c"] > 0.95 and all(alike["c"] > v + 0.1 for s, v in alike.items() if s != "c"), (frame, alike)


@pytest.mark.parametrize("rank, suit, suit_at", [("J", "d", (9.0, 11.1)), ("Q", "d", (10.0, 11.4)), ("J", "h", (9.0, 11.1))])
def test_a_rank_reaching_into_the_suit_below_it_is_parted_from_it_at_the_neck(rank, suit, suit_at):
    """A J's foot or a Q's tail reaches below the top of the suit printed under it (a diamond's
    point into the J's curve, a heart's lobe onto it): no straight line across parts them. Cut along
    the row that crosses the least ink, the diamond lost its point (a heart's shape, at the size a
    template is compared: refused as the Jh), or the symbols were refused. Parted at the neck between
    them, the suit is its own shape."""
    geometry = IndexGeometry((5.0, 0.5, 13.0, 9.5), (6.0, 10.0, 13.0, 17.0), (5.5, 10.0, 13.5, 17.5))
    clean = {s: _glyphs(_face(rank, s, (6.0, 0.7), (9.5, 13.8)), geometry)[1] for s in "cdhs"}
    glyphs = _glyphs(_face(rank, suit, (6.0, 0.7), suit_at), geometry)
    assert glyphs is not None and glyphs[1].parted
    alike = {s: float(glyphs[1].image @ template.image) for s, template in clean.items()}
    assert alike[suit] > 0.95 and all(alike[suit] > v + 0.1 for s, v in alike.items() if s != suit), alike


def test_a_cut_the_four_cards_of_a_rank_share_does_not_make_one_look_like_another():
    """Where a J's foot touches the point of the suit printed under it, the four jacks are cut alike:
    the spade and the diamond each keep a stub of the foot, and the Js's spade matched the Jd's
    diamond (0.85) better than the other spades (0.77): refused as the Jd. A suit is compared with
    the other ranks' suits (a rank with the other suits' ranks); a face filed under the wrong name
    still is refused."""

    def suit(code: str, stub: bool) -> Glyph:
        image = np.zeros((96, 96), np.uint8)
        fill(image, SuitShapes().polygons(code), 48, 56 if stub else 48, 76 if stub else 88, 255)
        if stub:  # the J's foot left on the suit's point
            cv2.rectangle(image, (36, 0), (60, 16), 255, -1)
        return Glyph(cv2.resize(image, SUIT_SIZE, interpolation=cv2.INTER_AREA), 1.0, 6.0, 0.0)

    def rank(code: str) -> Glyph:
        image = np.zeros((128, 96), np.uint8)
        cv2.putText(image, code, (8, 116), cv2.FONT_HERSHEY_DUPLEX, 4.5, 255, 14)
        return Glyph(cv2.resize(image, RANK_SIZE, interpolation=cv2.INTER_AREA), 0.7, 9.0, 0.0)

    faces = {r + s: [(rank(r), suit(s, r == "J" and s in "sd"))] for r in "569J" for s in "cdhs"}
    assert _misfits(faces) == {}
    faces["5h"] = [(rank("5"), suit("s", False))]  # a 5s filed as the 5h
    assert set(_misfits(faces)) == {"5h"}
