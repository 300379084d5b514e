"""A design's printed frame lines, learned from where they lie on many ranks' faces, and cut off a
corner's symbols only there: a narrow font's stems are not lines. Real OpenCV on drawn ink."""

import cv2
import numpy as np
import pytest
from test_vision_zoo_learning import LAYOUT, bench_frame, learned_from_artwork, named_wrongly

from appliance.vision.calibrate import calibrate
from appliance.vision.card_faces import CANON_PX_PER_MM
from appliance.vision.index import IndexGeometry
from appliance.vision.printed_lines import Band, PrintedLine, bands, learned_lines, lines_cut
from appliance.vision.reader import read_frame

M = CANON_PX_PER_MM
RANKS = "23456789TJQKA"
SYMBOLS = ((3.0, 1.0, 9.0, 10.0), (3.0, 10.0, 9.0, 16.0))  # the rank's and the suit's reach, mm


def corner(lines_at: tuple[float, ...] = (), stems_at: tuple[float, ...] = (), across_at: tuple[float, ...] = (),
           dy: float = 0.0) -> np.ndarray:
    """A corner 14 x 20 mm (white paper, black ink): vertical lines ``lines_at`` mm from its left edge
    the whole corner down, 0.4 mm thick; stems (a narrow rank's strokes) 0.5 mm thick from 2 to 9 mm
    down; horizontal lines ``across_at`` mm from the top; all moved ``dy`` mm down."""
    image = np.full((round(20 * M), round(14 * M), 3), 245, np.uint8)
    for x in lines_at:
        cv2.rectangle(image, (round(x * M), 0), (round((x + 0.4) * M) - 1, image.shape[0]), (20, 20, 20), -1)
    for x in stems_at:
        cv2.rectangle(image, (round(x * M), round((2 + dy) * M)), (round((x + 0.5) * M) - 1, round((9 + dy) * M)),
                      (20, 20, 20), -1)
    for y in across_at:
        cv2.rectangle(image, (0, round((y + dy) * M)), (image.shape[1], round((y + dy + 0.4) * M) - 1), (20, 20, 20), -1)
    # a solid suit, so that the corner holds ink besides the lines (as every index corner does)
    cv2.circle(image, (round(6 * M), round((13 + dy) * M)), round(2 * M), (20, 20, 20), -1)
    return image


def ink(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return np.where(grey < 128, 255, 0).astype(np.uint8)


def test_a_line_printed_on_every_rank_is_learned_where_it_lies():
    faces = [(rank, corner(lines_at=(1.0,))) for rank in RANKS]
    lines = learned_lines(faces, (0.0, 0.0), SYMBOLS)
    assert len(lines) == 1
    assert lines[0].down and abs(lines[0].at - 1.2) <= 0.2
    assert lines[0].start == 0.0 and lines[0].end == 20.0 and lines[0].ranks == 13 and lines[0].border


def test_a_narrow_fonts_stems_lined_up_on_three_ranks_are_not_lines():
    """A J's, a 4's and a K's stems at one place inside the rank's reach are strokes, not a frame
    line (zoo deck 6000: its J's were refused as having no rank ink)."""
    faces = [(rank, corner(lines_at=(1.0,), stems_at=(5.0,) if rank in "J4K" else ())) for rank in RANKS]
    lines = learned_lines(faces, (0.0, 0.0), SYMBOLS)
    assert [round(line.at) for line in lines] == [1]


def test_a_run_on_two_ranks_only_is_no_line():
    faces = [(rank, corner(lines_at=(12.0,) if rank in "JQ" else ())) for rank in RANKS]
    assert learned_lines(faces, (0.0, 0.0), SYMBOLS) == ()


def test_a_court_frame_on_the_three_courts_is_a_line():
    faces = [(rank, corner(lines_at=(12.0,) if rank in "JQK" else ())) for rank in RANKS]
    lines = learned_lines(faces, (0.0, 0.0), SYMBOLS)
    assert [(round(line.at), line.ranks, line.border) for line in lines] == [(12, 3, False)]


def test_a_stroke_where_a_courts_frame_lies_is_kept_on_a_number_card_the_frame_cut_on_a_court():
    """Zoo deck 7004 frames its courts with two lines 0.7 mm apart, blurred into one bar; its 10's 0,
    in a bold font, lies where they do, as thick as the bar, and was cut as the frame."""
    lines = (PrintedLine(True, 13.6, 3.5, 14.0, 3), PrintedLine(True, 14.3, 4.3, 14.0, 3))
    assert bands(lines) == [Band(True, 13.6, 14.3, 3.5, 14.0, False)]
    symbols = ((6.0, 2.0, 14.5, 9.5), (7.5, 8.0, 13.0, 13.5))
    image = np.zeros((round(20 * M), round(16 * M)), np.uint8)
    image[round(4 * M):round(9 * M), round(13.1 * M):round(14.1 * M)] = 255  # a 0's side, 1 mm thick
    assert not lines_cut(image, (0.0, 0.0), lines, symbols).any()
    image[round(4 * M):round(14 * M), round(13.1 * M):round(14.1 * M)] = 255  # the court's frame, past the symbols
    assert lines_cut(image, (0.0, 0.0), lines, symbols).any()


def test_the_square_where_two_cut_bands_cross_is_cut_with_them():
    """A court's frame bar meeting the border across: the square where they meet is as thick as the
    bar both ways, and a J beside it took it in (7004's Jd was refused, its rank like the aces')."""
    lines = (PrintedLine(True, 13.6, 3.5, 14.0, 3), PrintedLine(True, 14.3, 3.5, 14.0, 3),
             PrintedLine(False, 3.9, 5.5, 16.0, 9))
    image = np.zeros((round(20 * M), round(16 * M)), np.uint8)
    image[round(3.7 * M):round(4.1 * M), round(5.5 * M):] = 255  # the border across
    image[round(3.7 * M):round(14 * M), round(13.3 * M):round(14.6 * M)] = 255  # the frame's bar down
    image[round(5 * M):round(9 * M), round(7 * M):round(8 * M)] = 255  # a stroke clear of both
    cut = lines_cut(image, (0.0, 0.0), lines)
    assert not np.count_nonzero(image[:, round(12 * M):] & ~cut[:, round(12 * M):])
    assert not cut[round(5 * M):round(9 * M), round(7 * M):round(8 * M)].any()


def test_a_double_borders_outer_line_seen_whole_on_few_faces_joins_its_inner_line_in_one_band():
    """Zoo deck 7008's outer border line, broken round the index, is a long run on three ranks'
    faces, its inner one on all thirteen: together they are the border's band."""
    lines = (PrintedLine(False, 1.7, 14.4, 16.6, 3), PrintedLine(False, 2.6, 11.4, 16.6, 13))
    assert bands(lines) == [Band(False, 1.7, 2.6, 11.4, 16.6, True)]


def test_only_the_run_nearest_a_learned_line_is_cut_not_a_stroke_beside_it():
    """A corner seen 0.9 mm off its learned place: the border's run lies 0.9 mm from its line, a stem
    1.75 mm from it, both near enough to be the line. The border is cut; the stem is the symbol's."""
    lines = (PrintedLine(True, 1.6, 0.0, 20.0, 13),)
    seen = ink(corner(lines_at=(2.3,), stems_at=(3.1,)))
    cut = lines_cut(seen, (0.0, 0.0), lines)
    border, stem = (slice(round(2.3 * M), round(2.7 * M)), slice(round(3.1 * M), round(3.6 * M)))
    assert cut[:, border].any() and not cut[:, stem].any()
    # the stem alone, no border seen: it lies 2.15 mm off, beyond NEAR_LINE_MM, and is kept
    assert not lines_cut(ink(corner(stems_at=(3.5,))), (0.0, 0.0), lines).any()


def test_a_stem_no_learned_line_lies_near_is_kept_where_every_run_was_once_cut():
    seen = ink(corner(stems_at=(5.0,)))
    assert not lines_cut(seen, (0.0, 0.0), ()).any()
    assert lines_cut(seen, (0.0, 0.0), None).any()  # a deck learned before lines were: as before


def test_a_double_line_blurred_into_one_band_is_cut_as_the_band():
    """Two lines 0.9 mm apart, blurred into a bar 1.6 mm thick and 3 mm long beside a rank (zoo
    deck 7008: with its 6, the bar matched the 5, whose top bar is a line)."""
    lines = (PrintedLine(False, 1.7, 11.0, 14.0, 13), PrintedLine(False, 2.6, 11.0, 14.0, 13))
    assert [(b.low, b.high) for b in bands(lines)] == [(1.7, 2.6)]
    image = np.full((round(20 * M), round(14 * M)), 0, np.uint8)
    image[round(1.5 * M):round(3.1 * M), round(11 * M):round(14 * M)] = 255  # the bar, 3 mm long
    image[round(2 * M):round(10 * M), round(4 * M):round(9.5 * M)] = 255  # a solid rank beside it
    cut = lines_cut(image, (0.0, 0.0), lines)
    left = image[:, round(11 * M):] & ~cut[:, round(11 * M):]
    assert np.count_nonzero(left) <= 0.1 * np.count_nonzero(image[:, round(11 * M):])  # a sliver at most
    assert not cut[:, :round(10 * M)].any()


def test_a_stroke_running_on_past_a_lines_end_is_not_cut():
    """A 5's top bar level with a border's stub, 7 mm long and 2 mm of it along the stub's place."""
    lines = (PrintedLine(False, 2.0, 11.0, 14.0, 13),)
    image = np.zeros((round(20 * M), round(14 * M)), np.uint8)
    image[round(1.8 * M):round(2.3 * M), round(2 * M):round(9 * M)] = 255
    assert not lines_cut(image, (0.0, 0.0), lines).any()


@pytest.mark.parametrize("lines", [None, (), (PrintedLine(True, 1.25, 0.0, 20.0, 13), PrintedLine(False, 3.5, 2.0, 9.0, 3))])
def test_the_learned_lines_round_trip_through_the_decks_json(lines):
    geometry = IndexGeometry((3.0, 1.0, 9.0, 10.0), (3.0, 10.0, 9.0, 16.0), (3.0, 10.0, 9.0, 16.0), lines=lines)
    assert IndexGeometry.of_json(geometry.to_json()) == geometry


@pytest.mark.parametrize("bad", [{"lines": "down"}, {"lines": [["sideways", 1, 2, 3]]}, {"lines": [["down", 1, 2]]}])
def test_a_deck_file_with_malformed_lines_is_refused_by_name(bad):
    data = IndexGeometry((3.0, 1.0, 9.0, 10.0), (3.0, 10.0, 9.0, 16.0), (3.0, 10.0, 9.0, 16.0)).to_json() | bad
    with pytest.raises(ValueError, match="line"):
        IndexGeometry.of_json(data)


NARROW_JACKS = 6000  # NimbusSansNarrow: a J's stem 0.5 mm thick and 4 mm long, a frame line's shape
BANDED = 7008  # a 10 mm sans rank between a double border's lines, broken round the index into stubs
PALE_JACKS = 6005  # FreeMono: thin pale J's over a court's frame of two lines, at the corner's edge


@pytest.mark.slow
def test_a_narrow_fonts_jacks_are_learned_not_cut_as_frame_lines(tmp_path):
    """Zoo deck 6000 had its four J's refused ("no rank and suit ink"): every J's stem was cut as a
    frame line."""
    _, deck = learned_from_artwork(NARROW_JACKS, tmp_path)
    assert deck.refused == {} and deck.complete


@pytest.mark.slow
def test_a_double_borders_stub_beside_a_rank_is_not_taken_into_it(tmp_path):
    """Zoo deck 7008's 6d was named 5d on a taught table (frame 1, seat 6's front hand, at 0.79):
    the stub of its double border, blurred into one bar, was taken into the 6's hook, and the 5's
    top bar is such a bar."""
    design, deck = learned_from_artwork(BANDED, tmp_path)
    assert any(band.high > band.low for band in bands(deck.index.lines))  # learned as a double line
    rendered = bench_frame(design, 1)
    result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
    assert named_wrongly(result.zones, rendered.truth) == []
    assert "6d" in [read.card for read in result.zones["seat6.front"]]


def test_a_band_the_corners_edge_cuts_along_its_length_is_cut():
    """Zoo deck 6005: a court's frame band lay along the corner's bottom edge, part of it beyond. Its
    erosion took the outside for ink, measured it too thick for a line, and a thin J above it, seen
    with it at its own ink level, matched the Q."""
    lines = (PrintedLine(False, 13.75, 3.0, 19.5, 3), PrintedLine(False, 14.45, 3.0, 19.5, 3))
    image = np.zeros((round(10 * M), round(19 * M)), np.uint8)  # cut from 4.5 mm to 14.5 mm down
    image[round(8.6 * M):, :] = 255  # the band, 1.4 mm of it in view up to the edge
    image[round(2 * M):round(8 * M), round(5 * M):round(5.6 * M)] = 255  # a thin J's stem above it
    cut = lines_cut(image, (0.0, 4.5), lines, ((1.0, 5.0, 13.4, 14.0), (12.0, 6.0, 19.0, 13.0)))
    assert cut[round(9 * M):, :].all()
    assert not cut[:round(8 * M), :].any()


@pytest.mark.slow
def test_a_thin_jack_over_its_courts_frame_is_not_named_a_queen(tmp_path):
    """Zoo deck 6005, its J's taught once their stems were no longer cut as lines: on frame 1 a Jd,
    seen at its own ink level with a piece of its frame's band, read Qd at 0.83. Its whole corner
    was the Jd's (0.94 against 0.89), and a card matching as poorly is refused for a corner that much
    likelier another's (WHOLE_CORNER_RATIO)."""
    design, deck = learned_from_artwork(PALE_JACKS, tmp_path)
    assert deck.refused == {}
    rendered = bench_frame(design, 1)
    result = read_frame(rendered.image, LAYOUT, deck, calibrate(rendered.image, LAYOUT))
    assert named_wrongly(result.zones, rendered.truth) == []
