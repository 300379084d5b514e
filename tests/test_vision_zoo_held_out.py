"""Zoo decks the reader was measured on once, unseen (seeds 5000-5009 and 4002), and the failures
found there: a thin font's strokes held as another deck's, a double border taken for a rank, a court's
index standing on its picture under a suit printed beside the rank, and a spread of a deck printing
four corners that gave each card its neighbour's name, a corner the next card covers. Real OpenCV on the zoo's drawn faces."""

import cv2
import numpy as np
import pytest
from test_vision_zoo_learning import LAYOUT, bench_frame, learned_from_artwork, named_wrongly

from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.card_faces import CANON_SIZE, CARD_H_MM, CARD_W_MM
from appliance.vision.deck_match import DECK_MISMATCH, DeckMatch
from appliance.vision.index import index_patch
from appliance.vision.reader import CardRead, Thresholds, read_card, read_frame, read_zone

pytestmark = pytest.mark.slow
THIN = 4002  # FreeMono: strokes a pixel wide at the camera's resolution
FOUR_CORNERS = 5002  # an index in all four corners, courts whose picture lies between the top two
DOUBLE_BORDER = 5009  # a double border round an italic serif index, seen as one band too thick for a line
ON_THE_PICTURE = 5000  # suit beside the rank, four corners, a court's picture printed under both
THIN_AND_SMALL = 5008  # a 4.1 mm narrow sans rank, 0.6 mm from the card's top edge
PICTURES_BETWEEN = 5007  # courts framed beside the index: columns of ink halfway between two indices
PICTURE_TOP_TO_BOTTOM = 5001  # courts whose picture runs from the card's top edge to its bottom
SUIT_IN_BOTH = 6007  # a serif rank whose Q reaches past the top of the suit below it
PAST_THE_MIDDLE = 6002  # a 10 mm bold sans rank, its suit beside it: the index 26 mm wide
BORDER_NEAR_THE_EDGE = 6007  # a dark double border 1.8 mm inside the card's edge
LOOKALIKES = 4008  # its Jh and Js faces refused as looking like the Jd


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """``learned(seed)``: a zoo design and its deck learned from its artwork, once for the module."""
    decks = {}

    def design_and_deck(seed: int):
        if seed not in decks:
            decks[seed] = learned_from_artwork(seed, tmp_path_factory.mktemp(f"zoo{seed}"))
        return decks[seed]
    return design_and_deck


def read_frame_of(seed: int, k: int, learned):
    design, deck = learned(seed)
    rendered = bench_frame(design, k)
    return deck, rendered, read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))


def cards_read(result, rendered) -> int:
    return sum(r.card == c for zone, truth in rendered.truth.items() for r, c in zip(result.zones[zone], truth)
               if len(result.zones[zone]) == len(truth))


def test_a_thin_fonts_cards_named_at_the_second_look_are_no_sign_of_another_deck(learned):
    """A FreeMono 8 broke at the corner's ink cut (0.49) and was whole at its own (0.90): 11 of the
    spread's 48 cards matched that poorly at the first look, and the frame was held as another deck's,
    none of its cards named. A card's match is now its best look's where both name it."""
    _, rendered, result = read_frame_of(THIN, 2, learned)
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 44


def test_a_double_border_round_the_index_is_not_taken_for_the_rank(learned):
    """Blurred, the border's two lines are one band too thick for a line; the frame it draws round the
    index was the largest piece of ink in the rank's region, so the rank was cut with it (13.8 mm tall
    for an 8.6 mm 9), matched poorly, and the table was held as another deck's. The rank is now the
    piece holding the most ink where the deck prints it."""
    _, rendered, result = read_frame_of(DOUBLE_BORDER, 0, learned)
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 44


def test_a_court_whose_index_stands_on_its_picture_is_no_sign_of_another_deck(learned):
    """A K and its diamond beside it stand on the top edge of the picture below both: the suit's frame
    was looked for only beside it, so no rank and suit were found, and twelve courts of 48 cards held
    the table as another deck's. The frame is looked for below the suit too."""
    _, rendered, result = read_frame_of(ON_THE_PICTURE, 0, learned)
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 30


def test_a_four_corner_spread_whose_places_do_not_tell_its_indices_apart_names_no_card(learned):
    """The top card's top-right index lay a card's top-right step from its top-left, with ink of its
    picture a step between: five places evenly spaced, and each card took its neighbour's name at both
    its corners (a 7c read as the 6c, 0.98; a Jh as the Jd). Where a corner lies a top-right step from
    the first, the places are told apart by the corners' names or not at all."""
    design, deck = learned(FOUR_CORNERS)
    rendered = bench_frame(design, 2)
    reads = read_zone(rendered.image, LAYOUT.zone("seat5.back"), deck, calibrate(rendered.image, LAYOUT))
    truth = rendered.truth["seat5.back"]
    assert [read.card for read in reads if read.card is not None and read.card not in truth] == []
    assert all(read.card in (None, card) for read, card in zip(reads, truth)), [r.card for r in reads]


def test_a_rank_printed_thin_and_small_is_found_in_bolder_maps(learned):
    """A 4 mm narrow sans rank's 0.3 mm strokes average away at the index maps' 2 px/mm: the suit was
    found with no rank region beside it, and the whole deck was refused ("cannot locate the index").
    Where the maps show no rank, it is looked for with each stroke widened by a map pixel: the deck
    is learned (in part: its T's and J's touch their suits), and its untaught cards are not named."""
    design, deck = learned(THIN_AND_SMALL)
    assert deck.index.rank_mm[1] < 1.0 < deck.index.rank_mm[3] < deck.index.suit_mm[3]  # the rank at the top edge
    assert len(CARDS) - len(deck.refused) >= 45
    rendered = bench_frame(design, 0)
    result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
    assert named_wrongly(result.zones, rendered.truth) == []


def test_a_spread_places_no_card_in_the_pictures_between_its_cards(learned):
    """A hand of five turned round, its courts' pictures framed beside their indices: the spread placed
    a card at every column of ink, nine places, four of them in the pictures and unread. The hand
    seemed to hold nine cards, and the unread places' poor matches held the table as another deck's.
    Where the places it names clearly are the zone's five, evenly spread, the others are dropped."""
    _, rendered, result = read_frame_of(PICTURES_BETWEEN, 3, learned)
    assert DECK_MISMATCH not in result.warnings
    assert [read.card for read in result.zones["seat1.back"]] == rendered.truth["seat1.back"]
    assert named_wrongly(result.zones, rendered.truth) == []


def test_a_court_whose_picture_cuts_its_paper_in_two_is_found_whole(learned):
    """A court's picture printed from the card's top edge to its bottom cuts its paper in two: a strip
    holding the index and a strip beside it, neither a card's shape, so the court was two unread
    shapes (a hand of five seemed to hold six or seven). Two pieces whose hull together is a card's are
    one card, read as any."""
    _, rendered, result = read_frame_of(PICTURE_TOP_TO_BOTTOM, 0, learned)
    assert [read.card for read in result.zones["seat2.front"]] == rendered.truth["seat2.front"] == ["Kh", "Ks"]
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 46


def test_a_corner_the_next_card_covers_is_no_sign_of_another_deck(learned):
    """In a spread of a deck printing four corners, a card's corner in view matched 0.98 and the corner
    the next card covers 0.24: averaged, 0.61. Eight such cards of the frame's 33 held the table as
    another deck's, and none of its cards was named. A card's match now weighs each corner by how
    clearly it names a rank and a suit, as the reading does."""
    _, rendered, result = read_frame_of(ON_THE_PICTURE, 2, learned)
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    # of the zones where as many cards as dealt were found (12 when every long thin run was cut as a
    # frame line; with the deck's own lines, one more card is refused)
    assert cards_read(result, rendered) >= 11


def test_a_suit_whose_middle_lies_in_the_ranks_region_too_is_not_cut_as_part_of_the_rank(learned):
    """A serif Q's tail reaches down past the top of the suit below it, so the deck's rank and suit regions
    overlap; at 2 px/mm a spade's middle lay in both, and the spade was cut as part of every rank above it
    too: a 6 with a spade under it, 11.8 mm tall for a 6.9 mm rank, matched no rank (0.40). A piece of ink
    in both regions is the symbol's whose region's middle it is nearer."""
    design, deck = learned(SUIT_IN_BOTH)
    rendered = bench_frame(design, 0)
    reads = read_zone(rendered.image, LAYOUT.zone("banker"), deck, calibrate(rendered.image, LAYOUT))
    truth = rendered.truth["banker"]
    assert [read.card for read in reads if read.card is not None and read.card not in truth] == []
    assert sum(read.card == card for read, card in zip(reads, truth)) >= 5, [r.card for r in reads]


def test_an_index_reaching_past_the_cards_middle_is_found(learned):
    """A 10 mm rank with its suit beside it reaches 32.5 mm in from the edge of a 63 mm card: the index
    was looked for in the face's top-left quarter only, its suit was cut by the search's edge, and the
    whole deck was refused ("no index suit found"). Where the quarter shows no index, it is looked for
    across a wider search."""
    design, deck = learned(PAST_THE_MIDDLE)
    assert design.index_box_mm[2] > 31.5 and deck.refused == {} and deck.index.suit_mm[2] > 31.5
    rendered = bench_frame(design, 0)
    result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 40


def test_a_card_is_cut_at_its_paper_edge_not_at_a_border_printed_near_it(learned):
    """A dark double border printed 1.8 mm inside the card's edge, seen at 2 px/mm on the felt, was taken
    for the card's outline: every card was cut 1.6 mm inside its edge on each side, its index lay off its
    learned place, every card matched 0.85-0.92 against the deck's own 0.94, and each table was held as
    another deck's (none of 196 cards named). Each side is now moved onto the card's own edge in the
    frame, as in photos."""
    _, rendered, result = read_frame_of(BORDER_NEAR_THE_EDGE, 0, learned)
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 30


def test_a_face_refused_as_looking_like_a_card_keeps_that_card_from_being_named_for_it(learned):
    """Deck 4008's Jh and Js faces are refused as the Jd's lookalikes: cut where the court's picture
    reaches them, their suits match the diamonds. A face refused so was no rival of the card it looked
    like (deck-b's photo named Jh shows the Js), so a Jh whose symbols read as the Jd's was named Jd:
    the zoo found it with a finer cut of the index. The refused face is now the Jd's rival: a corner
    that looks more like it than like the Jd's own is not named Jd, and the Jd's own still is."""
    design, deck = learned(LOOKALIKES)
    assert {face: why.split(":")[0] for face, why in deck.refused.items()} == {
        "Jh.png": "it looks like another card, Jd", "Js.png": "it looks like another card, Jd"}

    def corner(code: str) -> np.ndarray:
        art = design.artwork(code).astype(np.float32)
        on_white = art[..., :3] * (art[..., 3:] / 255) + 255 * (1 - art[..., 3:] / 255)
        return index_patch(cv2.resize(on_white.astype(np.uint8), CANON_SIZE, interpolation=cv2.INTER_AREA), deck.index)

    assert deck.kept_corners.rival("Jd", [corner("Jh")])[0] == "Jh"
    assert deck.kept_corners.rival("Jd", [corner("Jd")]) is None


UNEVEN = 6008  # FreeSerif 11.4 mm, its suit beside: it matches itself less closely than a clear deck (0.85)
STAR_JOKER = 6000  # a narrow sans index, a star joker, courts printing a pip 2 mm from the index


def test_a_table_of_a_thin_deck_matching_it_unevenly_is_not_held_as_another_decks(learned):
    """Under a strong light gradient and JPEG at 61, 13 of one table's 48 cards matched deck 6008 under
    its poor match. At the rate of a clear deck (4% of cards) the table was held as another deck's, and
    none of its 49 cards was named. A deck printed thin is less even from table to table (the zoo's
    worst tables, 23% to 27% poor, were all of such decks; another design's, 48% and up): the table is
    now unsure, its cards matching well are named and those matching poorly are not."""
    _, rendered, result = read_frame_of(UNEVEN, 1, learned)
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 34


def test_a_corner_on_a_courts_picture_is_not_named_the_joker_where_the_table_is_unsure(learned):
    """A spread of deck 6000 (thin: 8 of its 32 cards in view matched poorly, an unsure table, no longer
    another deck's) placed a Jc's corner on its picture's pip. Its rank and suit matched 0.61 and 0.86,
    and the coarse corner looked like the star joker's (0.82 against 0.47): it was named the joker. A
    joker told by its corner where symbols were found, on a card under another, keeps their match, and
    an unsure table names no card matching poorly."""
    design, deck = learned(STAR_JOKER)
    rendered = bench_frame(design, 2)
    result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
    assert DECK_MISMATCH not in result.warnings
    assert named_wrongly(result.zones, rendered.truth) == []
    assert cards_read(result, rendered) >= 18


@pytest.mark.parametrize("px_per_mm", [2.0, 2.5])
def test_a_joker_lying_whole_is_named_by_its_corner_where_the_table_is_unsure(learned, px_per_mm):
    """Deck 6000's star joker seen whole on the felt: its star matches the deck's symbols poorly, and
    its corner names it. A banker's hand of seven is always too few cards to tell the deck (unsure):
    the joker is named there all the same, as its corner lies at the card's own (a card under another
    in a spread, its corner placed by ink, is vetted: the test above)."""
    design, deck = learned(STAR_JOKER)
    art = design.artwork("Jk").astype(np.float32)
    felt = np.array([50.0, 110.0, 40.0])
    face = (art[..., :3] * art[..., 3:] / 255 + felt * (1 - art[..., 3:] / 255)).astype(np.uint8)
    seen = cv2.GaussianBlur(cv2.resize(face, (round(CARD_W_MM * px_per_mm), round(CARD_H_MM * px_per_mm)),
                                       interpolation=cv2.INTER_AREA), (0, 0), 0.6)
    h, w = seen.shape[:2]
    code, confidence, how, match = read_card(seen, np.float32([[0, 0], [w, 0], [w, h], [0, h]]), deck, Thresholds())
    assert code == "Jk", how
    banker = DeckMatch.of([match] + [0.99] * 6, deck.poor_match)
    assert banker.vouch(CardRead(code, confidence, how, match, (0.0, 0.0))).card == "Jk"
