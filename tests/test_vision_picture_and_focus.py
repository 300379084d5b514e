"""A card's second look (its picture between the index corners) and the focus it is read at: a
blurred index names no card, and the picture never names one the index did not put forward."""

import cv2
import numpy as np
import pytest

from appliance.game.cards import CARDS
from appliance.vision.card_faces import CANON_PX_PER_MM, CANON_SIZE, blur_mm, index_corners
from appliance.vision.deck import Deck, DeckError, learn
from appliance.vision.face_picture import compare, contradicts, picture_shape, tell
from appliance.vision.reader import MAX_BLUR_MM, Thresholds, read_card
from appliance.vision.render import DESIGNS, card_face


@pytest.fixture(scope="module")
def classic(synthetic_deck):
    """The classic design's faces and its deck, learned (once for the run, tests/conftest.py), saved and loaded."""
    faces = {str(c): card_face(str(c), DESIGNS["classic"]) for c in CARDS}
    return faces, Deck.load(synthetic_deck("classic"))


def seen(face, px_per_mm, sigma):
    """The face lying flat on felt, seen at ``px_per_mm`` through a lens that blurs by ``sigma`` pixels,
    and its outline."""
    w, h = (round(v * px_per_mm / CANON_PX_PER_MM) for v in CANON_SIZE)
    card = cv2.resize(cv2.resize(face, CANON_SIZE, interpolation=cv2.INTER_AREA), (w, h), interpolation=cv2.INTER_AREA)
    frame = np.full((h + 40, w + 40, 3), (50, 110, 40), np.uint8)
    frame[20:20 + h, 20:20 + w] = cv2.GaussianBlur(card, (0, 0), sigma) if sigma else card
    return frame, np.array([[20, 20], [20 + w, 20], [20 + w, 20 + h], [20, 20 + h]], np.float64)


def test_the_blur_of_an_index_corner_is_measured_in_mm(classic):
    faces, deck = classic
    for px, sigma in ((2.2, 0.7), (2.2, 1.6), (3.0, 1.2), (1.9, 2.0)):
        frame, quad = seen(faces["Kd"], px, sigma)
        measured = [blur_mm(corner) for corner in index_corners(frame, quad, deck.index.box_mm)]
        # the lens's blur and the camera's pixels (a box of one pixel: 0.29 px) together
        expected = np.hypot(sigma, 0.29) / px
        assert all(abs(m - expected) <= 0.1 + 0.15 * expected for m in measured), (px, sigma, measured, expected)


@pytest.mark.slow
def test_an_index_out_of_focus_names_no_card(classic):
    """Blurred past MAX_BLUR_MM, symbols match one another's templates closely (a blurred club is a
    spade): such a card is refused, saying why. At 3 px/mm and 2 px of blur (0.67 mm) this design
    named 24 of its 53 cards wrongly; now the card's picture refuses those it contradicts."""
    faces, deck = classic
    named = wrong = out_of_focus = 0
    for code, face in faces.items():
        for px, sigma in ((3.0, 2.0), (2.2, 2.4), (1.9, 2.4)):
            card, _, reason, _ = read_card(*seen(face, px, sigma), deck, Thresholds())
            named += card is not None
            wrong += card not in (None, code)
            out_of_focus += card is None and "out of focus" in reason
    print(f"{named} named, {out_of_focus} refused as out of focus, of {3 * len(faces)}")
    assert wrong == 0 and out_of_focus >= len(faces)
    card, _, reason, _ = read_card(*seen(faces["7c"], 2.2, 2.4), deck, Thresholds())
    assert card is None and reason.startswith("unreadable: out of focus") and f"over the {MAX_BLUR_MM} mm" in reason


def test_a_sharp_card_is_read_without_its_picture(classic):
    faces, deck = classic
    for code in ("As", "7c", "Td", "Qh", "Jk"):
        assert read_card(*seen(faces[code], 2.2, 0.7), deck, Thresholds())[:3:2] == (code, None)


def test_the_picture_names_only_a_card_clearly_above_every_other():
    assert tell({"Ac": 0.93, "As": 0.29, "7c": 0.0, "7s": 0.01}) == "Ac"
    assert tell({"Ac": 0.93, "As": 0.88}) is None  # closer, but not by much
    assert tell({"Ac": 0.99, "As": 0.93}) is None  # far closer, but by less than the lead
    assert tell({"Ac": 0.78, "As": 0.10}) is None  # under the floor: it matches nothing well
    assert tell({"8c": 0.99, "6c": 0.99, "8s": 0.60}) is None  # one pip for every card of a suit: no rank
    assert tell({"Ac": 0.97}) is None  # nothing else weighed (the As blank where the card is in view)


def test_the_picture_refuses_a_card_it_plainly_contradicts():
    assert contradicts({"2s": 0.90, "2c": 0.99, "3s": 0.90, "3c": 0.99}, "2s")
    assert not contradicts({"2s": 0.93, "2c": 0.92}, "2s")
    assert not contradicts({"Ks": 0.63, "Kc": 0.79}, "Ks")  # under the floor


def test_a_picture_that_shows_nothing_or_is_missing_decides_nothing(classic):
    _, deck = classic
    blank = np.full(picture_shape(deck.index.box_mm), 230, np.uint8)
    assert compare(blank, deck.pictures, ("Ac", "As")) == (None, "the card's picture shows no ink to compare")
    pictures = {code: p for code, p in deck.pictures.items() if code != "As"}
    assert compare(deck.pictures["Ac"], pictures, ("Ac", "As")) == (None, "no taught picture of As")


@pytest.mark.slow
def test_a_face_whose_middle_is_washed_out_keeps_no_picture(tmp_path):
    for c in CARDS:
        face = card_face(str(c), DESIGNS["modern"])
        if str(c) == "9h":  # glare over the whole middle
            h, w = face.shape[:2]
            face[h // 4:3 * h // 4, w // 4:3 * w // 4] = 255
        cv2.imwrite(str(tmp_path / f"{c}.png"), face)
    deck = learn(tmp_path)
    assert "9h" not in deck.pictures and "9d" in deck.pictures


def test_a_picture_of_another_size_is_refused_by_name(classic, tmp_path):
    _, deck = classic
    deck.save(tmp_path)
    cv2.imwrite(str(tmp_path / "pictures" / "Qs.png"), np.zeros((10, 10), np.uint8))
    height, width = picture_shape(deck.index.box_mm)
    with pytest.raises(DeckError, match=rf"pictures/Qs.png: a picture of 10x10 px, where this deck's are {width}x{height}"):
        Deck.load(tmp_path)
