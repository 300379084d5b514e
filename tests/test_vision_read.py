"""Deck learning and reading, on real OpenCV images from the renderer."""

import json
import random
import shutil
import subprocess
from dataclasses import replace

import cv2
import pytest

from appliance.config import shipped_config_dir
from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.capture import face_in_teach_zone
from appliance.vision.deck import Deck, DeckError, Templates, learn
from appliance.vision.layout import load_layout
from appliance.vision.reader import read_frame
from appliance.vision.render import DESIGNS, Scene, card_face, deal_table, render_table

pytestmark = pytest.mark.slow  # decks learned and tables read: minutes on two cores

LAYOUT = load_layout(shipped_config_dir() / "layout.toml")


def write_faces(folder, design):
    folder.mkdir(exist_ok=True)
    for c in CARDS:
        cv2.imwrite(str(folder / f"{c}.png"), card_face(str(c), DESIGNS[design]))
    return folder


@pytest.fixture(scope="module")
def casino_deck(synthetic_deck):
    """The casino design's deck learned from its faces, saved, and loaded here: learned once for the
    run (tests/conftest.py), as test_vision_spread and test_deck_mismatch learn the same faces."""
    return Deck.load(synthetic_deck("casino"))


def test_learned_deck_round_trips(casino_deck):
    assert set(casino_deck.ranks) == set("23456789TJQKA") | {"JK"}
    assert set(casino_deck.suits) == set("cdhs") | {"*"}
    assert all(len(v) >= 4 for v in casino_deck.ranks.values())
    assert set(casino_deck.pictures) == {str(c) for c in CARDS}  # each card's middle, for the reader's second look
    assert all(p.shape == casino_deck.pictures["As"].shape for p in casino_deck.pictures.values())


@pytest.mark.parametrize("damage", ["pictures", "ranks", "index", "top", "four_corners"])
def test_a_damaged_deck_file_is_refused_by_name(casino_deck, tmp_path, damage):
    casino_deck.save(tmp_path)
    meta = json.loads((tmp_path / "deck.json").read_text())
    if damage == "top":
        meta = [meta]
    elif damage == "ranks":
        del next(iter(meta["ranks"].values()))[0]["aspect"]
    elif damage == "four_corners":
        meta["index"]["four_corners"] = "no"  # a hand edit: any string would read as true
    else:
        del meta[damage]
    (tmp_path / "deck.json").write_text(json.dumps(meta))
    with pytest.raises(DeckError, match=r"deck.json: (a damaged deck file|not a deck file)"):
        Deck.load(tmp_path)


def test_a_deck_file_edited_down_to_no_templates_of_a_rank_is_refused_by_name(casino_deck, tmp_path):
    casino_deck.save(tmp_path)
    meta = json.loads((tmp_path / "deck.json").read_text())
    meta["ranks"]["7"] = []  # the 7s could then only be read as another rank
    (tmp_path / "deck.json").write_text(json.dumps(meta))
    with pytest.raises(DeckError, match=r"deck.json: no templates for 7$"):
        Deck.load(tmp_path)


def test_templates_refuse_a_key_with_none(casino_deck):
    """Each key's best score is taken over its run of rows: a key with no rows would shift every key
    after it onto the next one's scores."""
    with pytest.raises(ValueError, match=r"^no templates for 7$"):
        Templates.of({**casino_deck.ranks, "7": []})


def test_a_deck_missing_a_picture_is_refused_by_name(casino_deck, tmp_path):
    casino_deck.save(tmp_path)
    (tmp_path / "pictures" / "7d.png").unlink()
    with pytest.raises(DeckError, match=r"pictures/7d.png: picture missing or unreadable"):
        Deck.load(tmp_path)


def test_learning_refuses_missing_and_bad_faces(tmp_path):
    faces = write_faces(tmp_path / "faces", "classic")
    (faces / "Qh.png").unlink()
    (faces / "Jk.png").unlink()  # a deck without a joker may be taught: its joker reads as unreadable
    (faces / "2c.png").unlink()
    with pytest.raises(DeckError, match=r"no face for 2 card\(s\): 2c, Qh$"):
        learn(faces)
    cv2.imwrite(str(faces / "2c.png"), card_face("2c", DESIGNS["classic"]))
    (faces / "Qh.png").write_bytes(b"not a png")  # one face refused: the deck is learned without it
    deck = learn(faces)
    assert deck.refused == {"Qh.png": "not an image OpenCV can read"}
    assert deck.untaught == {"Qh": "its face was refused: not an image OpenCV can read"} and not deck.complete
    (faces / "Qh.png").unlink()
    cv2.imwrite(str(faces / "Zz.png"), card_face("Qh", DESIGNS["classic"]))
    with pytest.raises(DeckError, match="Zz.png: the file name is not a card code"):
        learn(faces)
    with pytest.raises(DeckError, match="no deck here"):
        Deck.load(tmp_path)


def test_a_clean_table_is_read_exactly(casino_deck):
    rendered = render_table(LAYOUT, deal_table(random.Random(7)), DESIGNS["casino"], Scene(), seed=7)
    result = read_frame(rendered.image, LAYOUT, casino_deck, calibrate(rendered.image, LAYOUT))
    assert {z: [r.card for r in reads] for z, reads in result.zones.items() if reads} == rendered.truth
    assert result.warnings == []


def read_degraded(deck, seed, spread=False, **cloth):
    """Cards read right of a degraded table (tilted, any rotation; the cloth and the zones' printed
    outlines coloured as ``cloth`` says); every card found, none misread."""
    rng = random.Random(seed)
    scene = replace(Scene.random(rng, LAYOUT, rotation="any", spread=spread), **cloth)
    rendered = render_table(LAYOUT, deal_table(rng), DESIGNS["casino"], scene, seed=seed)
    result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
    correct = 0
    for zone, truth in rendered.truth.items():
        reads = result.zones[zone]
        assert len(reads) == len(truth), zone  # every card found
        for read, card in zip(reads, truth):
            assert read.card in (None, card), (zone, card, read)  # never a confident misread
            if read.card is None:
                assert read.reason.startswith("unreadable")
            correct += read.card == card
    return correct


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_degraded_table_never_gets_a_wrong_card(casino_deck, seed):
    assert read_degraded(casino_deck, seed) >= 48


def test_hands_spread_with_overlap_are_read_by_their_index_corners(casino_deck):
    hands = {"banker": ["As", "Kd", "Td", "9c", "8h", "5s", "Jk"], "seat2.front": ["Qs", "Th"],
             "seat4.back": ["2c", "3d", "4h", "6s", "7c"]}
    rendered = render_table(LAYOUT, hands, DESIGNS["casino"], Scene(tilt_deg=12, tilt_dir_deg=30, spread=True), seed=5)
    result = read_frame(rendered.image, LAYOUT, casino_deck, calibrate(rendered.image, LAYOUT))
    assert {z: [r.card for r in reads] for z, reads in result.zones.items() if reads} == hands
    assert read_degraded(casino_deck, 21, spread=True) >= 45


@pytest.mark.parametrize("cloth,lines,seed,spread", [
    ((50, 110, 40), (235, 235, 235), 901, False),  # a green felt, each zone outlined in white
    ((120, 60, 20), (235, 235, 235), 900, True),  # a blue felt, white outlines, the hands spread
    ((105, 105, 105), (190, 190, 190), 902, False),  # a grey cloth, light grey outlines
    ((105, 105, 105), (190, 190, 190), 904, False),  # ... and cards lying across them
], ids=["green-white", "blue-white-spread", "grey", "grey-across"])
def test_cards_within_a_zone_outline_printed_as_light_as_paper_are_found(casino_deck, cloth, lines, seed, spread):
    """A line printed round each zone in white or a light grey is as bright and neutral as paper:
    closed round the cards within it, it hid them. It is left out, and a card lying across it is
    cut from it."""
    assert read_degraded(casino_deck, seed, spread, cloth=cloth, lines=lines) >= 47


def test_a_foreign_deck_is_not_read_as_cards(casino_deck):
    """Cards of a design the appliance never learned: unreadable or right, never wrong."""
    rendered = render_table(LAYOUT, deal_table(random.Random(3)), DESIGNS["modern"], Scene(tilt_deg=10), seed=3)
    result = read_frame(rendered.image, LAYOUT, casino_deck, calibrate(rendered.image, LAYOUT))
    for zone, truth in rendered.truth.items():
        for read, card in zip(result.zones[zone], truth):
            assert read.card in (None, card)


def test_too_many_cards_in_a_zone_is_a_warning(casino_deck):
    hands = {"seat2.front": ["As", "Kd", "2c"], "seat2.back": ["3h", "4h", "5h", "6h"]}
    rendered = render_table(LAYOUT, hands, DESIGNS["casino"], Scene(), seed=2)
    result = read_frame(rendered.image, LAYOUT, casino_deck, calibrate(rendered.image, LAYOUT))
    assert "seat2.front: 3 cards where 2 are expected" in result.warnings
    assert "seat2.back: 4 cards where 5 are expected" in result.warnings


def test_capture_a_face_from_the_teach_zone_then_learn_it(tmp_path):
    rendered = render_table(LAYOUT, {"teach": ["Qh"]}, DESIGNS["classic"], Scene(tilt_deg=12, tilt_dir_deg=70), seed=4)
    face = face_in_teach_zone(rendered.image, LAYOUT)
    assert face.shape == (440, 315, 3)
    red = (face[..., 2].astype(int) - face[..., 0] > 80).sum()
    assert red > 2000  # the queen of hearts' red ink


def test_cli_read_and_errors(tmp_path, casino_deck):
    appliance = shutil.which("appliance")
    faces = write_faces(tmp_path / "faces", "casino")
    out = subprocess.run([appliance, "deck", "learn", "--faces", str(faces), "--out", str(tmp_path / "deck")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["notes"] == []  # a joker taught, the faces photographed fine enough
    rendered = render_table(LAYOUT, {"seat4.front": ["Ah", "Jk"]}, DESIGNS["casino"], Scene(), seed=1)
    frame = tmp_path / "f1.png"
    cv2.imwrite(str(frame), rendered.image)
    (tmp_path / "corrupt.png").write_bytes(b"\x89PNG broken")
    out = subprocess.run([appliance, "vision", "read", "--deck", str(tmp_path / "deck"), str(frame),
                          str(tmp_path / "corrupt.png"), str(tmp_path / "missing.png")], capture_output=True, text=True)
    assert out.returncode == 1
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows[0]["zones"] == {"seat4.front": [{"card": "Ah", "confidence": rows[0]["zones"]["seat4.front"][0]["confidence"]},
                                                {"card": "Jk", "confidence": rows[0]["zones"]["seat4.front"][1]["confidence"]}]}
    assert rows[1]["error"].endswith("corrupt.png: missing, or not an image OpenCV can read")
    assert rows[2]["error"].endswith("missing.png: missing, or not an image OpenCV can read")
    assert "Traceback" not in out.stderr
    bad_layout = tmp_path / "layout.toml"
    bad_layout.write_text((shipped_config_dir() / "layout.toml").read_text().replace("[layout]", "[layout]\nzoom = 2"))
    out = subprocess.run([appliance, "vision", "read", "--layout", str(bad_layout), "--deck", str(tmp_path / "deck"),
                          str(frame)], capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.strip().endswith("layout.toml: layout.zoom: unknown key")
    assert len(out.stderr.strip().splitlines()) == 1
