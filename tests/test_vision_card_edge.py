"""A card outline moved onto the card's edge, cards touching split at their neck, and an index
sitting a little off its learned place taken whole: drawn cards, real OpenCV."""

import cv2
import numpy as np

from appliance.vision.card_edge import snap_to_edge
from appliance.vision.card_faces import CARD_H_MM, CARD_W_MM
from appliance.vision.index import _registered
from appliance.vision.photo import find_cards

PX = 4.0  # px per mm of the drawn photos


def card_corners(x, y, angle_deg):
    """A card's corners (clockwise from top-left) at (x, y) turned by ``angle_deg``."""
    box = cv2.boxPoints(((x, y), (CARD_W_MM * PX, CARD_H_MM * PX), angle_deg))
    return np.float32(box)


def photo_of(*cards, background=(40, 60, 90)):
    image = np.zeros((900, 1200, 3), np.uint8)
    image[:] = background
    for corners in cards:
        cv2.fillPoly(image, [np.round(corners).astype(np.int32)], (235, 235, 230), lineType=cv2.LINE_AA)
    # a frame line printed on the first card 1.5 mm inside its edge: not its edge
    centre = cards[0].mean(axis=0)
    inner = centre + (cards[0] - centre) * (1 - 2 * 1.5 * PX / (CARD_W_MM * PX))
    cv2.polylines(image, [np.round(inner).astype(np.int32)], True, (60, 60, 60), 2, cv2.LINE_AA)
    return cv2.GaussianBlur(image, (0, 0), 1.2)


def shrunk(corners, mm):
    """The outline ``mm`` inside the card all round."""
    centre = corners.mean(axis=0)
    out = []
    for i in range(4):
        direction = corners[i] - centre
        out.append(corners[i] - direction / np.linalg.norm(direction) * mm * PX * np.sqrt(2))
    return np.float32(out)


def test_an_outline_inside_the_card_is_moved_onto_its_edge_not_onto_a_printed_line():
    card = card_corners(600, 450, 25)
    photo = photo_of(card)
    for inside_mm in (0.0, 2.0, 3.5):
        snapped = snap_to_edge(photo, shrunk(card, inside_mm))
        assert np.abs(snapped - card).max() <= 0.5 * PX, (inside_mm, snapped - card)


def test_an_outline_on_a_card_without_a_clear_edge_stays():
    card = card_corners(600, 450, 10)
    photo = photo_of(card, background=(225, 225, 220))  # light cloth: no edge to move to
    outline = shrunk(card, 2.0)
    assert np.allclose(snap_to_edge(photo, outline), outline, atol=0.5)


def test_cards_touching_corner_to_corner_are_found_as_two():
    first = card_corners(400, 300, 12)
    # the second card's top-left corner laid a little over the first's bottom-right one
    second = card_corners(0, 0, -8)
    second += first[np.argmax(first.sum(axis=1))] - second[np.argmin(second.sum(axis=1))] - (6, 4)
    photo = photo_of(first, second)
    found = find_cards(photo)
    assert len(found) == 2, [o.corners for o in found]
    for truth in (first, second):
        best = min(found, key=lambda o: np.abs(o.corners.mean(axis=0) - truth.mean(axis=0)).max())
        assert np.abs(best.corners.mean(axis=0) - truth.mean(axis=0)).max() < 3 * PX


def test_the_index_windows_move_together_only_as_far_as_takes_both_symbols_whole():
    windows = [(10, 10, 60, 80), (15, 70, 65, 120)]  # the rank's and the suit's (x0, y0, x1, y1)
    assert _registered(windows, [(20, 20, 50, 70), (20, 85, 55, 115)], 8) == (0, 0)  # whole where learned
    assert _registered(windows, [(20, 25, 50, 76), (20, 90, 55, 125)], 8) == (0, 5)  # the index 5 px lower
    assert _registered(windows, [(20, 25, 50, 76), (20, 90, 55, 140)], 8) == (0, 0)  # joined to a pip: cut as learned
    assert _registered(windows, [(5, 20, 50, 70), (20, 85, 55, 115)], 8) == (-5, 0)
