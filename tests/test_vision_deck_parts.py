"""A deck learned in parts: every face that can be learned is, the refused ones are named with why,
the deck is written and usable, marked incomplete, and the reader never names a card it was not
taught. Real OpenCV on faces from the renderer; the command line as a subprocess."""

import json
import random
import re
import shutil
import subprocess
import sys
from dataclasses import replace

import cv2
import numpy as np
import pytest

from appliance.config import shipped_config_dir
from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.deck import Deck, DeckError, learn
from appliance.vision.index import index_patch
from appliance.vision.layout import load_layout
from appliance.vision.reader import read_frame
from appliance.vision.render import DESIGNS, Scene, card_face, deal_table, render_table

LAYOUT = load_layout(shipped_config_dir() / "layout.toml")
QUEENS = ["Qc", "Qd", "Qh", "Qs"]


def write_parts(folder):
    """The classic design's faces, but the photos of the Kc and of the queens show no card."""
    folder.mkdir()
    for c in map(str, CARDS):
        cv2.imwrite(str(folder / f"{c}.png"), card_face(c, DESIGNS["classic"]))
    for c in ["Kc", *QUEENS]:
        cv2.imwrite(str(folder / f"{c}.png"), np.full((400, 400, 3), 90, np.uint8))
    return folder


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parts")
    faces = write_parts(folder / "faces")
    learn(faces).save(folder / "deck")
    return folder


def test_every_face_that_can_be_learned_is_and_each_refused_one_is_named(parts):
    deck = Deck.load(parts / "deck")
    assert not deck.complete
    assert deck.refused == {f"{c}.png": "no whole card found in the photo" for c in ["Kc", *QUEENS]}
    assert deck.untaught == {c: "its face was refused: no whole card found in the photo" for c in ["Kc", *QUEENS]}
    assert "Q" not in deck.ranks and "K" in deck.ranks  # the Kc's rank and suit are taught by other faces
    assert deck.witnesses == {}  # (no card in those photos: no corner of theirs to compare a card with)


def test_the_reader_names_no_untaught_card(parts):
    deck = Deck.load(parts / "deck")
    cards = [c for c in map(str, CARDS) if c not in QUEENS and c != "Jk"]
    hands = deal_table(random.Random(3), range(1, 6), cards)
    assert "Kc" in sum(hands.values(), [])
    rendered = render_table(LAYOUT, hands, DESIGNS["classic"], Scene(), seed=3)
    zones = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT)).zones
    reads = {card: read for zone, truth in rendered.truth.items() for card, read in zip(truth, zones[zone])}
    assert reads["Kc"].card is None
    assert reads["Kc"].reason == "unreadable: not taught: Kc (its face was refused: no whole card found in the photo)"
    named = [(card, read.card) for card, read in reads.items() if read.card is not None]
    assert all(card == read for card, read in named) and len(named) >= 38


def test_a_card_that_looks_like_an_untaught_one_is_not_named_as_another(parts, tmp_path):
    """The queens' faces found but refused (printed unlike the rest of the deck): their corners are
    kept, and a card whose corner looks more like one of them than like its own is not named."""
    deck = Deck.load(parts / "deck")
    queens = {q: index_patch(card_face(q, DESIGNS["beside"]), deck.index) for q in QUEENS}
    deck = replace(deck, witnesses=queens, corners={c: index_patch(card_face(c, DESIGNS["classic"]), deck.index)
                                                     for c in map(str, CARDS) if c[0] != "Q"})
    queen = index_patch(card_face("Qs", DESIGNS["beside"]), deck.index)
    king = index_patch(card_face("Ks", DESIGNS["classic"]), deck.index)
    assert re.match(r"not taught: the index reads Ks but looks more like Q[cdhs] \(", deck.not_taught("Ks", [queen]))
    assert deck.not_taught("Ks", [king]) is None
    deck.save(tmp_path / "deck")  # the corners kept and read back
    again = Deck.load(tmp_path / "deck")
    assert set(again.witnesses) == set(QUEENS) and again.not_taught("Ks", [queen]) and not again.not_taught("Ks", [king])


def test_a_deck_file_that_drops_its_untaught_cards_is_refused(parts, tmp_path):
    shutil.copytree(parts / "deck", tmp_path / "deck")
    meta = json.loads((tmp_path / "deck" / "deck.json").read_text())
    del meta["untaught"]  # the queens then could only be read as another rank
    (tmp_path / "deck" / "deck.json").write_text(json.dumps(meta))
    with pytest.raises(DeckError, match=r"deck.json: no templates for Q$"):
        Deck.load(tmp_path / "deck")


@pytest.mark.slow
def test_deck_learn_writes_an_incomplete_deck_and_exits_3(parts, tmp_path):
    done = subprocess.run([sys.executable, "-m", "appliance", "deck", "learn", "--faces", str(parts / "faces"),
                           "--out", str(tmp_path / "deck")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 3
    assert done.stderr.count("\n") == 1 and "incomplete: 5 card(s) not taught (Kc, Qc, Qd, Qh, Qs)" in done.stderr
    out = json.loads(done.stdout)
    assert out["complete"] is False and set(out["untaught"]) == {"Kc", *QUEENS}
    assert not Deck.load(tmp_path / "deck").complete
