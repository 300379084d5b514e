"""A duplicated card and a wrong card count, fed through the renderer and the reader, are flagged."""

import random

import pytest

from appliance.config import shipped_config_dir
from appliance.table.integrity import check_table
from appliance.vision.calibrate import calibrate
from appliance.vision.deck import Deck
from appliance.vision.layout import load_layout
from appliance.vision.reader import read_frame
from appliance.vision.render import DESIGNS, Scene, deal_table, render_table


@pytest.mark.slow
def test_a_duplicated_card_and_a_wrong_count_on_a_rendered_table(synthetic_deck):
    deck = Deck.load(synthetic_deck("classic"))  # learned once for the run (tests/conftest.py)
    layout = load_layout(shipped_config_dir() / "layout.toml")
    hands = deal_table(random.Random(5))
    foreign = hands["banker"][0]
    hands["seat3.back"][2] = foreign  # a second copy of the banker's first card: a foreign card
    hands["seat5.front"].append(hands["seat6.back"].pop())  # three cards in a front, four in a back
    rendered = render_table(layout, hands, DESIGNS["classic"], Scene(tilt_deg=8, tilt_dir_deg=200), seed=5)
    result = read_frame(rendered.image, layout, deck, calibrate(rendered.image, layout))
    reads = {zone: [r.card for r in cards] for zone, cards in result.zones.items() if cards}
    messages = [f.message for f in check_table(reads)]
    assert f"card {foreign} seen twice: banker and seat3.back" in messages
    assert "seat5.front: 3 cards where 2 belong" in messages
    assert "seat6.back: 4 cards where 5 belong" in messages


def test_a_proper_table_raises_no_flag():
    assert check_table(deal_table(random.Random(1))) == []
