"""Camera calibration from the layout's ArUco markers: the frame-to-layout homography.

Each marker seen gives four corner correspondences (layout mm <-> image px); the
homography is fitted to all of them and its reprojection error reported. Too few
markers or too large an error is refused. :class:`Calibrator` keeps the last good
fit while markers are briefly covered by hands or chips.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .layout import Layout


class CalibrationError(ValueError):
    """The frame cannot be calibrated; the message says what was seen."""


@dataclass(frozen=True)
class Calibration:
    homography: np.ndarray  # layout mm -> image px
    markers: tuple[int, ...]  # ids seen and used
    error_px: float  # RMS reprojection error of the marker corners
    stale: bool = False  # the last good fit, reused while markers are covered

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(1, -1, 2), self.homography)[0]

    def to_json(self) -> dict:
        return {"markers": list(self.markers), "error_px": round(self.error_px, 3), "stale": self.stale}


def _detector(layout: Layout) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(layout.aruco_dictionary(), params)


def calibrate(frame: np.ndarray, layout: Layout, min_markers: int = 4, max_error_px: float = 4.0) -> Calibration:
    return fit_markers(detect_markers(frame, layout), layout, min_markers, max_error_px)


def detect_markers(frame: np.ndarray, layout: Layout) -> list[tuple[int, np.ndarray]]:
    """(id, its four corners in frame px) of each of the layout's markers seen in the frame."""
    return _detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame, layout)


def _detect(gray: np.ndarray, layout: Layout, offset: tuple[int, int] = (0, 0)) -> list[tuple[int, np.ndarray]]:
    """(id, its four corners in frame px) of each of the layout's markers found in ``gray``."""
    corners, ids, _ = _detector(layout).detectMarkers(gray)
    known = {m.id for m in layout.markers}
    return [] if ids is None else [(int(i), c.reshape(4, 2) + offset) for i, c in zip(ids.ravel(), corners)
                                   if int(i) in known]


def fit_markers(seen: list[tuple[int, np.ndarray]], layout: Layout, min_markers: int, max_error_px: float) -> Calibration:
    by_id = {m.id: m for m in layout.markers}
    seen = sorted(dict(seen).items())
    if len(seen) < min_markers:
        raise CalibrationError(
            f"{len(seen)} of the layout's {len(layout.markers)} markers seen "
            f"({', '.join(str(i) for i, _ in seen) or 'none'}); at least {min_markers} are needed")
    src = np.array([p for i, _ in seen for p in by_id[i].corners], np.float64)
    dst = np.array([p for _, c in seen for p in c], np.float64)
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None:
        raise CalibrationError("the markers seen do not determine a homography")
    projected = cv2.perspectiveTransform(src[None], homography)[0]
    error = float(np.sqrt(np.mean(np.sum((projected - dst) ** 2, axis=1))))
    if error > max_error_px:
        raise CalibrationError(f"reprojection error {error:.2f} px is above {max_error_px} px: "
                               "a marker has moved or is not where config/layout.toml says")
    return Calibration(homography, tuple(i for i, _ in seen), error)


def _near_last(frame: np.ndarray, layout: Layout, last: Calibration) -> list[tuple[int, np.ndarray]]:
    """The markers looked for only around where the last fit put them: the camera does not move, and
    a few small crops cost a fraction of a search of the whole frame."""
    found = []
    height, width = frame.shape[:2]
    for marker in layout.markers:
        corners = last.to_image(np.asarray(marker.corners, np.float64))
        side = float(np.max(np.ptp(corners, axis=0)))
        x0, y0 = np.floor(corners.min(axis=0) - side).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0) + side).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
        if x1 - x0 < side or y1 - y0 < side:
            continue  # off the frame
        crop = frame[y0:y1, x0:x1]
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
        found += [(i, c) for i, c in _detect(gray, layout, (x0, y0)) if i == marker.id]
    return found


class Calibrator:
    """Calibrates each frame; while markers are covered, re-uses the last good fit for a while."""

    def __init__(self, layout: Layout, min_markers: int = 4, max_error_px: float = 4.0, keep_frames: int = 150):
        self.layout = layout
        self.min_markers = min_markers
        self.max_error_px = max_error_px
        self.keep_frames = keep_frames
        self.last: Calibration | None = None
        self._stale_for = 0

    def update(self, frame: np.ndarray) -> Calibration:
        try:
            try:
                if self.last is None or self._stale_for:
                    raise CalibrationError("no recent fit to search near")
                self.last = fit_markers(_near_last(frame, self.layout, self.last), self.layout, self.min_markers,
                                 self.max_error_px)
            except CalibrationError:
                self.last = calibrate(frame, self.layout, self.min_markers, self.max_error_px)
            self._stale_for = 0
            return self.last
        except CalibrationError:
            if self.last is None or self._stale_for >= self.keep_frames:
                raise
            self._stale_for += 1
            return Calibration(self.last.homography, self.last.markers, self.last.error_px, stale=True)
