"""A deck the reader was not built beside, from the design zoo: learned whole from its maker's
artwork, its joker (a picture, no rank and suit) taught by its whole corner, and a table of its
cards read with none named wrongly. Real OpenCV on the zoo's drawn faces."""

import random

import cv2
import pytest

from appliance.config import shipped_config_dir
from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.deck import learn
from appliance.vision.design_zoo import ZooDesign
from appliance.vision.layout import load_layout
from appliance.vision.reader import read_frame
from appliance.vision.render import Scene, deal_table, render_table

pytestmark = pytest.mark.slow
LAYOUT = load_layout(shipped_config_dir() / "layout.toml")
SEED = 1000  # a design whose joker shows a jester in its corner, framed courts, a rounded border


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    design = ZooDesign.random(SEED)
    faces = tmp_path_factory.mktemp("zoo")
    for code in map(str, CARDS):
        cv2.imwrite(str(faces / f"{code}.png"), design.artwork(code))
    return design, learn(faces)


def test_a_zoo_deck_is_learned_whole_its_joker_by_its_corner(zoo):
    design, deck = zoo
    assert design.joker_style == "picture"
    assert deck.complete and deck.refused == {}
    assert deck.joker_corner is not None  # (its picture's pieces may pass for symbols too)


def test_a_table_of_the_zoo_deck_is_read_and_its_joker_named(zoo):
    design, deck = zoo
    cards = ["Jk"] + [c for c in map(str, CARDS) if c != "Jk"]
    hands = deal_table(random.Random(5), cards=cards[:49])
    rendered = render_table(LAYOUT, hands, design, Scene(), seed=5)
    zones = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT)).zones
    reads = [(card, read) for zone, truth in rendered.truth.items() for card, read in zip(truth, zones[zone])]
    assert all(len(zones[zone]) == len(truth) for zone, truth in rendered.truth.items())
    assert [(card, read.card) for card, read in reads if read.card not in (None, card)] == []  # none wrong
    assert sum(read.card == card for card, read in reads) >= 47
    joker = next(read for card, read in reads if card == "Jk")
    assert joker.card == "Jk" and joker.reason.startswith("told by its whole corner: the joker")
