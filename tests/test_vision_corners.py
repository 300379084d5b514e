"""A card read from its two index corners (reader.read_card): each corner weighed by how clearly it
matched, so a corner that matches nothing (a rank half washed out by glare, a smudge) does not veto
the clear one, while two corners that each name a card and disagree still refuse it. Faces drawn
by the renderer, laid on a felt at a camera's resolution, read with real OpenCV."""

import cv2
import numpy as np
import pytest

from appliance.game.cards import CARDS
from appliance.vision.card_faces import CANON_PX_PER_MM, CANON_SIZE
from appliance.vision.deck import learn
from appliance.vision.reader import Thresholds, read_card
from appliance.vision.render import DESIGNS, card_face

pytestmark = pytest.mark.slow  # decks learned and tables read: minutes on two cores

SEEN_PX_PER_MM = 2.3  # about what the overhead camera sees
MARGIN_PX = 20
CODES = [str(c) for c in CARDS if not c.is_joker]


@pytest.fixture(scope="module")
def deck(synthetic_learned):
    """The casino design's deck as learned from its faces (once for the run: tests/conftest.py)."""
    return synthetic_learned("casino")


def _glare_on_a_corner(face: np.ndarray, deck, top_left: bool) -> np.ndarray:
    """The face with a glare spot on one index corner: its symbols a little soft and washed out
    towards white, so that corner matches nothing well."""
    face = face.copy()
    target = face if top_left else face[::-1, ::-1]
    x0, y0, x1, y1 = (round(v * CANON_PX_PER_MM) for v in deck.index.box_mm)
    corner = cv2.GaussianBlur(target[y0:y1, x0:x1].astype(np.float32), (0, 0), 2.0)
    h, w = corner.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    spot = 160 * np.exp(-((xs - w / 2) ** 2 + (ys - h / 3) ** 2) / (2 * (w / 2) ** 2))
    target[y0:y1, x0:x1] = np.clip(corner + spot[..., None], 0, 255).astype(np.uint8)
    return face


def _on_felt(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A frame of the face on a felt as the camera sees it, and the card's four corners in it."""
    return _seen_at(face, SEEN_PX_PER_MM, 0.6)


def _seen_at(face: np.ndarray, px_per_mm: float, blur_px: float) -> tuple[np.ndarray, np.ndarray]:
    """The face on a felt seen at ``px_per_mm`` through a lens blurring by ``blur_px``."""
    w, h = (round(v * px_per_mm / CANON_PX_PER_MM) for v in CANON_SIZE)
    seen = cv2.GaussianBlur(cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA), (0, 0), blur_px)
    frame = np.full((h + 2 * MARGIN_PX, w + 2 * MARGIN_PX, 3), (50, 110, 40), np.uint8)
    frame[MARGIN_PX:MARGIN_PX + h, MARGIN_PX:MARGIN_PX + w] = seen
    m = MARGIN_PX
    return frame, np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float64)


def _face(code: str) -> np.ndarray:
    return cv2.resize(card_face(code, DESIGNS["casino"]), CANON_SIZE, interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("top_left", [True, False], ids=["top-left", "bottom-right"])
def test_a_corner_that_matches_nothing_does_not_veto_the_clear_one(deck, top_left):
    named = 0
    for code in CODES:
        frame, quad = _on_felt(_glare_on_a_corner(_face(code), deck, top_left))
        card, _, reason, _ = read_card(frame, quad, deck, Thresholds())
        assert card in (None, code), (code, card)
        named += card == code
    # averaged evenly, the glared corner's low scores sink the clear one's (33 of 52 read); a
    # glared corner that still looks clearly like another card refuses it (a 3 like a 7)
    assert named >= 44, named


@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_glare_over_both_corners_never_names_a_wrong_card(design, tmp_path):
    """Glare over both index corners leaves a piece of each rank (the top of a 3's bowl), which the
    templates, all scaled to one size, would match as a 7 or a 9: a symbol shorter than the rank
    it looks like is refused (casino named 7 wrong of 52 before, classic 4)."""
    for code in [str(c) for c in CARDS]:
        cv2.imwrite(str(tmp_path / f"{code}.png"), card_face(code, DESIGNS[design]))
    deck = learn(tmp_path)
    wrong = []
    for code in CODES:
        face = cv2.resize(card_face(code, DESIGNS[design]), CANON_SIZE, interpolation=cv2.INTER_AREA)
        frame, quad = _on_felt(_glare_on_a_corner(_glare_on_a_corner(face, deck, True), deck, False))
        card, _, reason, _ = read_card(frame, quad, deck, Thresholds())
        if card not in (None, code):
            wrong.append((code, card))
        else:
            assert card == code or reason.startswith("unreadable"), (code, reason)
    assert wrong == [], wrong


def test_two_clear_corners_that_disagree_refuse_the_card(deck):
    for top, bottom in (("As", "Kd"), ("5c", "6c"), ("9h", "9s")):
        face = _face(top)
        face[CANON_SIZE[1] // 2:] = _face(bottom)[CANON_SIZE[1] // 2:]  # the lower half (its corner) another card's
        frame, quad = _on_felt(face)
        card, _, reason, _ = read_card(frame, quad, deck, Thresholds())
        assert card is None and reason.startswith("unreadable: the two corners read"), (top, bottom, card, reason)



def test_a_card_is_compared_only_with_templates_learned_near_its_resolution(deck):
    templates = deck.rank_templates
    learned = np.exp(templates.log_px_per_mm)
    near = templates.near(2.3, 1.3)
    # the rows of 2.0 and 2.6 px/mm (within 1.3 times of 2.3), of every rank, and the same object
    # for the next card seen alike
    assert set(np.round(np.exp(near.log_px_per_mm), 1)) == {2.0, 2.6} and len(near.images) < len(templates.images) / 2
    assert set(near.groups) == set(range(len(templates.keys))) and near.keys == templates.keys
    assert templates.near(2.25, 1.3) is near
    # a card seen finer than any template is compared with the finest there are
    assert set(np.exp(templates.near(40.0, 1.3).log_px_per_mm).round(1)) == {learned.max().round(1)}


@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_a_rank_printed_pale_beside_a_dark_suit_is_cut_at_its_own_level(design, tmp_path):
    """A rank printed much paler than its suit (a thin 8 over a solid spade, faded ink): one cut
    for the whole corner, set between the paper and the suit's dark ink, keeps only pieces of the
    rank, which are refused as of no size the deck prints (0 of 104 read); the rank is cut again
    at its own level."""
    for code in [str(c) for c in CARDS]:
        cv2.imwrite(str(tmp_path / f"{code}.png"), card_face(code, DESIGNS[design]))
    deck = learn(tmp_path)
    x0, y0, x1, y1 = (round(v * CANON_PX_PER_MM) for v in deck.index.reach(deck.index.rank_mm))
    read = 0
    for code in CODES:
        face = cv2.resize(card_face(code, DESIGNS[design]), CANON_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
        for corner in (face, face[::-1, ::-1]):
            corner[y0:y1, x0:x1] = 235 - (235 - corner[y0:y1, x0:x1]) * 0.35
        for px in (2.0, 2.3):
            frame, quad = _seen_at(np.clip(face, 0, 255).astype(np.uint8), px, 0.7)
            card, _, reason, _ = read_card(frame, quad, deck, Thresholds())
            assert card in (None, code), (code, card)
            read += card == code
    # every card on all but one design; framed (its border runs beside the rank, paled with it) 101 of
    # 104: three pale 5s at 2.3 px/mm whose best rank is a 5 at 0.77 against an 8 at 0.55, refused
    assert read >= 0.97 * 2 * len(CODES), read
