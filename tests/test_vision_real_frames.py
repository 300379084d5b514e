"""The full path on real pixels: real photographed cards of the two real decks (../shared/real-cards)
laid into rendered frames of the layout, seen by the tilted camera, calibrated and read zone by zone
with the deck learned from the faces. A few frames here; bench/vision_accuracy.py gives the figures."""

import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from appliance.config import shipped_config_dir
from appliance.vision.calibrate import calibrate
from appliance.vision.index import index_glyphs, index_patch
from appliance.vision.layout import load_layout
from appliance.vision.photo_faces import (
    MIN_SOURCE_ACROSS_PX_PER_MM, OTHER_PHOTO, SAME_PHOTO, coarsest_px_per_mm, load_photo_deck)
from appliance.vision.card_faces import card_quads, flatten, quad_px_per_mm
from appliance.vision.face_picture import PART_EDGE_MM, compare, picture_part, picture_region, shows_something, tell
from appliance.vision.reader import FIND_PX_PER_MM, read_frame, read_zone, zone_image
from appliance.vision.render import Scene, deal_table, render_table
from appliance.vision.spread import spread_corners, spread_pieces, spread_px_per_mm

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "real-cards"
LAYOUT = load_layout(shipped_config_dir() / "layout.toml")


@pytest.fixture(scope="module", params=["deck-a", "deck-b"])
def real_deck(request, real_decks):
    """A real deck learned from its face photos, and its card images for the frames."""
    deck = real_decks[request.param][0]
    return deck, load_photo_deck(REAL, request.param, deck, views=1)


def test_cards_come_from_other_photos_where_there_are_any_and_never_one_the_deck_did_not_learn(real_deck):
    deck, photos = real_deck
    refused = {Path(face).stem for face in deck.refused}
    assert not refused & set(photos.codes) and refused <= set(photos.skipped)
    sources = photos.sources()
    assert sources[OTHER_PHOTO] >= 10 and sources[OTHER_PHOTO] + sources[SAME_PHOTO] == len(photos.codes) >= 49
    assert len(photos.codes) + len(photos.skipped) == 52
    for code in photos.codes:
        for image in photos.images[code]:
            # each card image is a whole card, portrait, its index where the deck prints it
            face = flatten(image.image, image.corners, ordered=True)
            assert any(index_glyphs(index_patch(f, deck.index), deck.index) is not None for f in (face, face[::-1, ::-1])), code
            # never a card foreshortened coarser than the table's camera sees one (deck-b's Ac in its
            # steep photo: 4.8 px/mm by its sides, 1.6 across the view)
            assert coarsest_px_per_mm(image.corners) >= MIN_SOURCE_ACROSS_PX_PER_MM, code


def test_a_card_seen_steeply_is_as_coarse_as_its_foreshortened_direction():
    square_on = np.float32([[10, 10], [325, 10], [325, 450], [10, 450]])  # 5 px/mm, upright
    assert coarsest_px_per_mm(square_on) == pytest.approx(5.0, abs=0.01)
    # a card seen steeply from its side: 5 px/mm along its length, its width foreshortened to 110 px
    steep = np.float32([[0, 0], [110, 20], [110, 420], [0, 440]])
    assert quad_px_per_mm(steep) >= 3.0 and coarsest_px_per_mm(steep) < 1.9


def test_deck_b_learns_around_its_mislabelled_face_and_deals_without_it(real_deck):
    deck, photos = real_deck
    if photos.name != "deck-b":
        pytest.skip("deck-b's Jh photo shows the jack of spades")
    assert "Jh" not in photos.codes and "did not learn" in photos.skipped["Jh"]
    hands = deal_table(random.Random(3), cards=photos.codes)
    assert sum(len(h) for h in hands.values()) == 49 and "Jh" not in {c for h in hands.values() for c in h}


@pytest.mark.parametrize("spread", [False, True], ids=["apart", "spread"])
def test_rendered_real_cards_are_read_and_none_named_wrongly(real_deck, spread):
    deck, photos = real_deck
    counts = {"cards": 0, "read": 0, "wrong": 0, "missed": 0, "extra": 0, OTHER_PHOTO: 0}
    for seed in (41, 42):
        rng = random.Random(seed)
        scene = Scene.random(rng, LAYOUT, rotation="any", spread=spread)
        rendered = render_table(LAYOUT, deal_table(rng, cards=photos.codes), photos, scene, seed=seed)
        result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
        for zone, truth in rendered.truth.items():
            got = result.zones[zone]
            counts["cards"] += len(truth)
            counts[OTHER_PHOTO] += rendered.sources[zone].count(OTHER_PHOTO)
            counts["missed"] += max(0, len(truth) - len(got))
            counts["extra"] += max(0, len(got) - len(truth))
            # a card named that the zone does not hold is wrong, however the reads pair with the cards
            counts["wrong"] += sum(r.card is not None and r.card not in truth for r in got)
            if len(got) == len(truth):
                for read, card in zip(got, truth):
                    counts["read"] += read.card == card
                    counts["wrong"] += read.card is not None and read.card in truth and read.card != card
    print(photos.name, "spread" if spread else "apart", counts)
    assert counts["wrong"] == 0 and counts[OTHER_PHOTO] > 0, counts
    # the goals (99.9% read; cards apart all found) are measured by the bench on many frames; here
    # what two frames show today: apart, every card found and nearly all read; spread, most read
    # (98 and 85 of 98: deck-b's misses are its out-of-focus Ac, suits unclear at one corner, and
    # zones where a card under another is not found)
    if spread:
        assert counts["read"] >= 0.85 * counts["cards"], counts
    else:
        assert counts["read"] >= 0.95 * counts["cards"] and counts["missed"] == counts["extra"] == 0, counts


def test_a_card_under_another_is_read_from_every_photo_of_it_also_where_glare_washed_its_index(real_deck):
    """A card under another in a spread shows one index corner. Each photo of deck-a's eight of
    spades in turn is laid there (in one, glare washed the top of its 8 so pale that no one cut
    between ink and paper keeps it: read as an 8 with a gap, it was left unclear against a 6)."""
    deck, photos = real_deck
    if photos.name != "deck-a":
        pytest.skip("the glared photo is deck-a's eight of spades")
    rng = random.Random(701)
    scene = Scene.random(rng, LAYOUT, rotation="any", spread=True)
    hands = deal_table(rng, cards=photos.codes)
    zone = next(z for z, cards in hands.items() if "8s" in cards[:-1])  # under another card
    reads = []
    for image in photos.images["8s"]:
        one = replace(photos, images=photos.images | {"8s": [image]})
        rendered = render_table(LAYOUT, hands, one, scene, seed=701)
        got = read_zone(rendered.image, LAYOUT.zone(zone), deck, calibrate(rendered.image, LAYOUT))
        assert not {r.card for r in got} - set(hands[zone]) - {None}
        reads.append(next((r.card or r.reason for r, card in zip(got, hands[zone]) if card == "8s"), "not found"))
    assert len(reads) >= 3 and reads == ["8s"] * len(reads), reads


def test_the_part_of_a_real_cards_picture_beside_its_index_never_tells_the_wrong_suit(real_deck):
    """A card under another in a spread shows its picture up to that card's edge: its pips nearest
    the index. Each real card (from another photo than the taught one where there is one), 8 to 16
    mm of its picture in view, against its twin of the other suit of its colour: never the twin; and
    the ranks printing pips beside the index (4 to 10) mostly told."""
    deck, photos = real_deck
    twin = {"s": "c", "c": "s", "h": "d", "d": "h"}
    box = deck.index.box_mm
    told = wrong = asked = 0
    for code in photos.codes:
        other = code[0] + twin[code[1]]
        if other not in deck.pictures or code not in deck.pictures:
            continue
        image = photos.images[code][0]
        for width_mm in (8, 12, 16):
            part = picture_part(image.image, image.corners, box, picture_region(box)[0] + PART_EDGE_MM + width_mm)
            scores, _ = compare(part, deck.pictures, (code, other))
            shown = tell(scores) if scores else None
            wrong += shown == other
            if code[0] in "45678910T":
                asked += 1
                told += shown == code
    print(photos.name, f"told {told} of {asked} pip cards' suits from a part of the picture, {wrong} wrong")
    assert wrong == 0 and told >= 0.5 * asked


def test_a_part_of_a_picture_blank_on_a_taught_card_tells_no_suit(real_deck):
    """deck-b's ace of spades under an 8c (table 43) shows 9 mm of its picture beside its index: the
    edge of its big spade, and the 8c's shadow. Its ace of clubs prints nothing there, and that blank
    paper's shading matched the part 0.97, the As's own picture 0.83: the picture would have named
    the Ac wherever the index left the suit open. A taught part without ink is not weighed."""
    deck, photos = real_deck
    if photos.name != "deck-b":
        pytest.skip("the part is deck-b's ace of spades")
    rng = random.Random(43)
    scene = Scene.random(rng, LAYOUT, rotation="any", spread=True)
    rendered = render_table(LAYOUT, deal_table(rng, cards=photos.codes), photos, scene, seed=43)
    image, frame_to_zone = zone_image(rendered.image, LAYOUT.zone("seat1.front"), calibrate(rendered.image, LAYOUT),
                                      FIND_PX_PER_MM, cv2.INTER_NEAREST)
    quad = spread_pieces(card_quads(image, FIND_PX_PER_MM)[1], FIND_PX_PER_MM)[0]
    zone_to_frame = np.linalg.inv(frame_to_zone)
    under, over = spread_corners(rendered.image, quad, zone_to_frame, FIND_PX_PER_MM, deck)
    shown_mm = float(np.linalg.norm(over.outline[0] - under.outline[0])) / spread_px_per_mm(quad, zone_to_frame)
    assert rendered.truth["seat1.front"] == ["As", "8c"]
    part = picture_part(rendered.image, under.outline, deck.index.box_mm, shown_mm)
    assert part.shape[1] and shows_something(part)
    scores, how = compare(part, deck.pictures, ("As", "Ac", "Ks"))
    assert set(scores) == {"As", "Ks"} and how.endswith("; the part in view is blank on the taught Ac"), how


def test_on_a_deck_printing_two_corners_only_the_top_card_of_a_spread_has_a_second(real_deck):
    """Along a spread's far edge lies the top card's second index; the rest of that edge is the
    cards' far ends (pips, a court's picture), and a pip there of an index's size is no corner of
    the card it happens to lie near (in one zone of 65 the card under another was given one)."""
    deck, photos = real_deck
    assert not deck.index.four_corners
    seen = 0
    for seed in (45, 49):  # frames where either deck's far edge had a pip near a card under another
        rng = random.Random(seed)
        scene = Scene.random(rng, LAYOUT, rotation="any", spread=True)
        rendered = render_table(LAYOUT, deal_table(rng, cards=photos.codes), photos, scene, seed=seed)
        calibration = calibrate(rendered.image, LAYOUT)
        for name in rendered.truth:
            image, frame_to_zone = zone_image(rendered.image, LAYOUT.zone(name), calibration, FIND_PX_PER_MM,
                                              cv2.INTER_NEAREST)
            _, odd = card_quads(image, FIND_PX_PER_MM)
            for quad in spread_pieces(odd, FIND_PX_PER_MM):
                spread = spread_corners(rendered.image, quad, np.linalg.inv(frame_to_zone), FIND_PX_PER_MM, deck)
                if spread is not None:
                    seen += len(spread)
                    assert [len(card.corners) for card in spread[:-1]] == [1] * (len(spread) - 1), (seed, name)
    assert seen >= 0.9 * 2 * 49
