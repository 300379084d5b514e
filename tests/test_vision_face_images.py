"""Any image of a face teaches the deck: a maker's artwork cropped to the card's edge, its rounded
corners transparent, white or black, or padded with transparency, as well as a photo. Real OpenCV
on faces from the renderer, written as files as a technician would be given them."""

import cv2
import numpy as np
import pytest

from appliance.game.cards import CARDS
from appliance.vision.card_faces import CANON_SIZE
from appliance.vision.deck import _face_of, learn
from appliance.vision.render import CORNER_RADIUS_MM, DESIGNS, FACE_PX_PER_MM, card_face


def rounded(face: np.ndarray) -> np.ndarray:
    """Where the card is, on an image cropped to its edge: all but its rounded corners (0..255)."""
    h, w = face.shape[:2]
    r = round(CORNER_RADIUS_MM * FACE_PX_PER_MM)
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (x, y), r, 255, -1, cv2.LINE_AA)
    return mask


def artwork(code: str, corners: str, design: str = "framed") -> np.ndarray:
    """The face as a maker's file: transparent corners (their colour black, as most files leave it),
    white or black ones, or transparent corners and a transparent margin round the card."""
    face = card_face(code, DESIGNS[design])
    mask = rounded(face)
    if corners in ("transparent", "padded"):
        image = np.dstack([np.where(mask[:, :, None] > 0, face, 0), mask])
        return cv2.copyMakeBorder(image, 40, 40, 60, 60, cv2.BORDER_CONSTANT, value=0) if corners == "padded" else image
    weight = mask[:, :, None] / 255.0
    return np.round(face * weight + (255 if corners == "white" else 0) * (1 - weight)).astype(np.uint8)


@pytest.mark.parametrize("corners", ["transparent", "white", "black", "padded"])
def test_an_artwork_cropped_to_the_card_is_the_card(tmp_path, corners):
    path = tmp_path / "Kd.png"
    cv2.imwrite(str(path), artwork("Kd", corners))
    face, px_per_mm = _face_of(path)
    expected = cv2.resize(card_face("Kd", DESIGNS["framed"]), CANON_SIZE, interpolation=cv2.INTER_AREA)
    # the face as drawn, but for its corners (where the paper's colour, white or black lies)
    inside = cv2.resize(rounded(expected), CANON_SIZE) == 255
    assert face.shape == expected.shape and px_per_mm == pytest.approx(FACE_PX_PER_MM, rel=0.02)
    assert np.abs(face.astype(int) - expected)[inside].mean() < 2


@pytest.mark.slow
def test_a_deck_of_artwork_with_transparent_corners_is_learned_whole(tmp_path):
    for c in map(str, CARDS):
        cv2.imwrite(str(tmp_path / f"{c}.png"), artwork(c, "transparent"))
    deck = learn(tmp_path)
    assert deck.complete and deck.refused == {} and len(deck.corners) == 53


def test_an_image_transparent_all_over_is_refused_by_name(tmp_path):
    cv2.imwrite(str(tmp_path / "Kd.png"), np.zeros((300, 200, 4), np.uint8))
    with pytest.raises(ValueError, match="Kd.png: the image is transparent all over: no card in it"):
        _face_of(tmp_path / "Kd.png")
