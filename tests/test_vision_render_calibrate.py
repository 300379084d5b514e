"""The synthetic table and the calibration, on real OpenCV images."""

import random

import cv2
import numpy as np
import pytest

from appliance.config import shipped_config_dir
from appliance.vision.calibrate import CalibrationError, Calibrator, calibrate
from appliance.vision.layout import load_layout
from appliance.vision.markers import marker_pages
from appliance.vision.render import (
    DESIGNS, MIN_CARD_WIDTH, Scene, card_face, card_width_px, deal_table, narrowest_card_px, render_table,
)

LAYOUT = load_layout(shipped_config_dir() / "layout.toml")
SIZE = (2304, 1296)  # half the 12 MP frame keeps the tests quick


def zone_corners_mm():
    return np.array([[z.x, z.y] for z in LAYOUT.zones] + [[z.x + z.width, z.y + z.height] for z in LAYOUT.zones], float)


def test_a_dealt_table_and_its_truth():
    hands = deal_table(random.Random(1))
    cards = [c for codes in hands.values() for c in codes]
    assert len(cards) == 49 and len(set(cards)) == 49
    r = render_table(LAYOUT, hands, DESIGNS["classic"], Scene(size=SIZE), seed=1)
    assert r.image.shape == (SIZE[1], SIZE[0], 3)
    assert r.truth == hands
    # each card lies inside its zone, seen through the camera
    for name, quads in r.quads.items():
        zone = LAYOUT.zone(name)
        inverse = np.linalg.inv(r.homography)
        for quad in quads:
            mm = cv2.perspectiveTransform(quad[None].astype(float), inverse)[0]
            assert (mm[:, 0] >= zone.x - 0.5).all() and (mm[:, 0] <= zone.x + zone.width + 0.5).all()
            assert (mm[:, 1] >= zone.y - 0.5).all() and (mm[:, 1] <= zone.y + zone.height + 0.5).all()
        xs = [q.mean(axis=0) for q in quads]
        assert len(xs) == len(r.truth[name])


@pytest.mark.slow
def test_a_tilted_camera_still_sees_every_card_120_px_wide_in_a_12_mp_frame():
    scenes = [Scene.random(random.Random(seed), LAYOUT) for seed in range(40)]
    assert max(s.tilt_deg for s in scenes) > 25  # steep tilts are drawn, where the card stays wide enough
    assert min(narrowest_card_px(LAYOUT, s) for s in scenes) >= 120
    assert narrowest_card_px(LAYOUT, Scene(tilt_deg=30, tilt_dir_deg=90)) < 120  # what is drawn again
    small = Scene.random(random.Random(3), LAYOUT, size=SIZE, rotation="any")
    r = render_table(LAYOUT, deal_table(random.Random(3)), DESIGNS["classic"], small, seed=3)
    assert min(card_width_px(q) for quads in r.quads.values() for q in quads) >= MIN_CARD_WIDTH * SIZE[0]


def test_same_seed_same_frame():
    hands = deal_table(random.Random(2))
    scene = Scene.random(random.Random(2), LAYOUT, size=(1152, 648))
    a = render_table(LAYOUT, hands, DESIGNS["modern"], scene, seed=9).image
    b = render_table(LAYOUT, hands, DESIGNS["modern"], scene, seed=9).image
    assert np.array_equal(a, b)


def test_designs_differ_and_faces_are_upright_cards():
    face = card_face("Qh", DESIGNS["classic"])
    assert face.shape == (528, 378, 3)
    assert not np.array_equal(card_face("Qh", DESIGNS["classic"]), card_face("Qh", DESIGNS["modern"]))
    red = face[..., 2].astype(int) - face[..., 0].astype(int)
    assert (red > 100).sum() > 1000  # a heart is red
    assert (card_face("Qs", DESIGNS["classic"])[..., 2].astype(int) - 100 > card_face("Qs", DESIGNS["classic"])[..., 0]).sum() == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.slow
def test_calibration_recovers_the_camera_within_a_pixel(seed):
    scene = Scene.random(random.Random(seed), LAYOUT, size=SIZE)
    r = render_table(LAYOUT, deal_table(random.Random(seed)), DESIGNS["classic"], scene, seed=seed)
    c = calibrate(r.image, LAYOUT)
    assert c.markers == (0, 1, 2, 3, 4) and c.error_px < 1.0
    truth = cv2.perspectiveTransform(zone_corners_mm()[None], r.homography)[0]
    assert np.abs(c.to_image(zone_corners_mm()) - truth).max() < 1.5


def _cover_markers(image, r, ids):
    covered = image.copy()
    for marker in LAYOUT.markers:
        if marker.id in ids:
            corners = np.array(marker.corners) + [[-8, -8], [8, -8], [8, 8], [-8, 8]]
            quad = cv2.perspectiveTransform(corners[None].astype(float), r.homography)[0]
            cv2.fillConvexPoly(covered, quad.astype(np.int32), (60, 90, 140))  # a hand over the marker
    return covered


def test_too_few_markers_is_refused_and_the_last_good_fit_is_kept():
    r = render_table(LAYOUT, {}, DESIGNS["classic"], Scene(size=SIZE, tilt_deg=12, tilt_dir_deg=40), seed=3)
    hidden = _cover_markers(r.image, r, {0, 1})
    with pytest.raises(CalibrationError, match="3 of the layout's 5 markers seen"):
        calibrate(hidden, LAYOUT)
    assert calibrate(_cover_markers(r.image, r, {4}), LAYOUT).markers == (0, 1, 2, 3)
    calibrator = Calibrator(LAYOUT, keep_frames=2)
    with pytest.raises(CalibrationError):
        calibrator.update(hidden)  # nothing to fall back on yet
    good = calibrator.update(r.image)
    assert not good.stale
    kept = calibrator.update(hidden)
    assert kept.stale and np.array_equal(kept.homography, good.homography)
    calibrator.update(hidden)
    with pytest.raises(CalibrationError):
        calibrator.update(hidden)  # covered for too long


def test_a_moved_marker_is_refused():
    r = render_table(LAYOUT, {}, DESIGNS["classic"], Scene(size=SIZE), seed=4)
    moved = r.image.copy()
    marker = LAYOUT.markers[4]
    quad = cv2.perspectiveTransform(np.array(marker.corners)[None].astype(float), r.homography)[0]
    x0, y0 = quad.min(axis=0).astype(int) - 6
    x1, y1 = quad.max(axis=0).astype(int) + 6
    patch = moved[y0:y1, x0:x1].copy()
    moved[y0:y1, x0:x1] = (50, 110, 40)
    moved[y0 + 60:y1 + 60, x0 + 90:x1 + 90] = patch  # the plaque was knocked 35 mm aside
    with pytest.raises(CalibrationError, match="reprojection error"):
        calibrate(moved, LAYOUT)


def test_marker_sheet_is_true_scale():
    page = marker_pages(LAYOUT, dpi=300)[0]
    assert page.shape == (3508, 2480)  # A4 at 300 dpi
    detector = cv2.aruco.ArucoDetector(LAYOUT.aruco_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(page)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3, 4]
    side_px = np.linalg.norm(corners[0][0][0] - corners[0][0][1])
    assert side_px / (300 / 25.4) == pytest.approx(50, abs=0.5)  # 50 mm


def test_a_running_calibrator_looks_near_the_last_fit_and_follows_a_moved_camera():
    first = render_table(LAYOUT, {}, DESIGNS["classic"], Scene.random(random.Random(5), LAYOUT, size=SIZE), seed=5)
    calibrator = Calibrator(LAYOUT)
    full = calibrator.update(first.image)
    near = calibrator.update(first.image)  # found in small crops around where the markers were
    assert near.markers == full.markers and np.allclose(near.homography, full.homography, atol=1e-6)
    # the camera is knocked: the markers are not near the last fit any more, and the whole frame is searched
    moved = render_table(LAYOUT, {}, DESIGNS["classic"], Scene.random(random.Random(6), LAYOUT, size=SIZE), seed=6)
    again = calibrator.update(moved.image)
    assert not again.stale and np.allclose(again.homography, calibrate(moved.image, LAYOUT).homography)
