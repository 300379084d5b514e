"""Finding cards in a zone image (cards.card_quads): paper judged against the felt round the zone,
not against a fixed light level. Zone images are made here as the reader sees them (a drawn face
laid on a felt at the finder's 2 px/mm, then lit), with real OpenCV throughout."""

import cv2
import numpy as np
import pytest

from appliance.vision.card_faces import CARD_H_MM, CARD_W_MM, card_quads
from appliance.vision.reader import FIND_PX_PER_MM
from appliance.vision.render import DESIGNS, card_face

PX = FIND_PX_PER_MM
ZONE_MM = (180.0, 120.0)  # a back hand's zone with its margin
GREEN_FELT = (50, 110, 40)
CENTRES_MM = ((50.0, 60.0), (130.0, 62.0))


def _zone(felt, paper_gain: float = 1.0, light=None, seed: int = 0, framed_mm: float | None = None) -> np.ndarray:
    """Two cards (a 7 and a king: pips and a court picture) on a felt, the cards' photos
    ``paper_gain`` as bright as drawn (and framed by a dark 1 mm line ``framed_mm`` in from their
    edge), the whole zone then lit by ``light`` (a gain per pixel)."""
    rng = np.random.default_rng(seed)
    w, h = round(ZONE_MM[0] * PX), round(ZONE_MM[1] * PX)
    image = np.empty((h, w, 3), np.float32)
    image[:] = felt
    for code, (cx, cy), angle in zip(("7h", "Ks"), CENTRES_MM, (8.0, -12.0)):
        face = cv2.resize(card_face(code, DESIGNS["classic"]), (round(CARD_W_MM * PX * 4), round(CARD_H_MM * PX * 4)),
                          interpolation=cv2.INTER_AREA).astype(np.float32) * paper_gain
        if framed_mm is not None:
            inset, line = round(framed_mm * PX * 4), round(PX * 4)
            cv2.rectangle(face, (inset, inset), (face.shape[1] - inset, face.shape[0] - inset), (30, 30, 30), line)
        turn = cv2.getRotationMatrix2D((face.shape[1] / 2, face.shape[0] / 2), angle, 0.25)
        turn[:, 2] += (cx * PX - face.shape[1] / 2, cy * PX - face.shape[0] / 2)
        card = cv2.warpAffine(face, turn, (w, h), flags=cv2.INTER_AREA)
        mask = cv2.warpAffine(np.ones(face.shape[:2], np.float32), turn, (w, h), flags=cv2.INTER_AREA)[..., None]
        image = image * (1 - mask) + card * mask
    if light is not None:
        image *= light(w, h)[..., None]
    image += rng.normal(0, 2.5, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def _found(image: np.ndarray) -> list[tuple[float, float]]:
    cards, odd = card_quads(image, PX)
    assert not odd, "a shape that is no whole card"
    return sorted((float(q[:, 0].mean()) / PX, float(q[:, 1].mean()) / PX) for q in cards)


def _at_the_cards(found) -> bool:
    return len(found) == len(CENTRES_MM) and all(np.hypot(fx - x, fy - y) < 3 for (fx, fy), (x, y) in zip(found, CENTRES_MM))


def test_cards_on_a_green_felt_are_found_where_they_lie():
    assert _at_the_cards(_found(_zone(GREEN_FELT)))


@pytest.mark.parametrize("paper, light", [(0.35, 0.6), (0.25, 0.45)])
def test_dim_paper_is_found_under_dim_light(paper, light):
    # a dim photo of a card under a dim table light: its paper (grey 85, or 60) is far darker
    # than a fixed paper level, yet grey, and brighter than the felt under that light
    image = _zone(tuple(light * c for c in GREEN_FELT), paper_gain=paper)
    assert np.percentile(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 99) < 90
    assert _at_the_cards(_found(image))


def test_on_a_light_grey_cloth_the_cards_are_found_and_the_cloth_is_no_card():
    # a grey cloth as light as dim paper: colour cannot tell them apart, light must, and the
    # cloth is lit unevenly across the zone
    def falling_light(w, h):
        return np.tile(np.linspace(1.0, 0.85, w, dtype=np.float32), (h, 1))

    assert _at_the_cards(_found(_zone((150, 152, 148), light=falling_light)))


def test_a_glare_spot_on_the_felt_beside_a_card_leaves_the_card_whole():
    # glare lights the felt (and the band round the zone) beside the second card, not its paper
    # (as when a photo of the card was taken dim): the felt's glare is no reason to miss it
    def glare(w, h):
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        return 1.0 + 0.5 * np.exp(-((xs - 175 * PX) ** 2 + (ys - 60 * PX) ** 2) / (2 * (25 * PX) ** 2))

    image = _zone(GREEN_FELT, paper_gain=0.6, light=glare)
    assert _at_the_cards(_found(image))


@pytest.mark.parametrize("felt", [GREEN_FELT, (150, 152, 148), (25, 25, 28)], ids=["green", "light-grey", "black"])
def test_an_empty_zone_has_no_cards_even_lit_unevenly(felt):
    w, h = round(ZONE_MM[0] * PX), round(ZONE_MM[1] * PX)
    light = np.tile(np.linspace(1.0, 0.85, w, dtype=np.float32), (h, 1))[..., None]
    image = np.full((h, w, 3), felt, np.float32) * light + np.random.default_rng(1).normal(0, 3, (h, w, 3))
    assert card_quads(np.clip(image, 0, 255).astype(np.uint8), PX) == ([], [])


def test_cards_on_black_cloth_are_found():
    assert _at_the_cards(_found(_zone((25, 25, 28), paper_gain=0.7)))


def test_a_card_framed_close_to_its_edge_is_one_card():
    """A maker may print a dark frame round the face close to its edge: the paper within it lies
    in a hole of the card's paper and is no card of its own, and the thin strip of paper outside
    it outlines the card (it is no line printed on the cloth round the zone)."""
    assert _at_the_cards(_found(_zone(GREEN_FELT, framed_mm=4.0)))
