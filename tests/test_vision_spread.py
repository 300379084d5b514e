"""Hands spread with overlap: every index corner in view is found and given to its card."""

import random

import cv2
import numpy as np
import pytest

from appliance.config import shipped_config_dir
from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.cards import card_quads
from appliance.vision.deck import learn
from appliance.vision.index import index_glyphs
from appliance.vision.layout import load_layout
from appliance.vision.reader import FIND_PX_PER_MM, zone_image
from appliance.vision.render import DESIGNS, Scene, card_face, render_table
from appliance.vision.spread import spread_corners

LAYOUT = load_layout(shipped_config_dir() / "layout.toml")
HANDS = {"banker": ["As", "Kd", "Td", "9c", "8h", "5s", "Jk"], "seat2.front": ["Qs", "Th"],
         "seat4.back": ["2c", "3d", "4h", "6s", "7c"]}


@pytest.fixture(scope="module")
def casino_index(tmp_path_factory):
    """Where the casino design prints its index, as its deck learns it."""
    folder = tmp_path_factory.mktemp("casino")
    for c in CARDS:
        cv2.imwrite(str(folder / f"{c}.png"), card_face(str(c), DESIGNS["casino"]))
    return learn(folder).index


@pytest.mark.parametrize("seed", [5, 6])
def test_each_card_of_a_spread_has_its_corner_and_the_top_card_both(seed, casino_index):
    """Hands laid left to right or turned round (``rotation="any"``): the card on top (last laid,
    fully in view) is the one card with two index corners, at the spread's far end."""
    rng = random.Random(seed)
    scene = Scene(tilt_deg=rng.uniform(0, 20), tilt_dir_deg=rng.uniform(0, 360), spread=True, rotation="any")
    rendered = render_table(LAYOUT, HANDS, DESIGNS["casino"], scene, seed=seed)
    calibration = calibrate(rendered.image, LAYOUT)
    for name, cards in HANDS.items():
        zone = LAYOUT.zone(name)
        image, frame_to_zone = zone_image(rendered.image, zone, calibration, FIND_PX_PER_MM, cv2.INTER_NEAREST)
        whole, odd = card_quads(image, FIND_PX_PER_MM)
        assert whole == [] and len(odd) == 1, name
        spread = spread_corners(rendered.image, odd[0], np.linalg.inv(frame_to_zone), FIND_PX_PER_MM, casino_index)
        assert [len(corners) for corners, _ in spread] == [1] * (len(cards) - 1) + [2], name
        assert all(index_glyphs(corner, casino_index) is not None for corners, _ in spread for corner in corners)
