"""The setup's camera check: one frame with the layout's markers drawn where they were found (and
where the calibration puts those not found), the teach zone, and what is wrong in a technician's
words: markers covered or missing, a marker moved (the reprojection error), no picture at all."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.calibrate import CalibrationError, detect_markers, fit_markers
from ..vision.layout import Layout

VIEW_WIDTH = 1280  # px of the picture sent to the page: enough to see a marker, small enough to send each second
FOUND, MISSING, ZONE = (60, 200, 60), (40, 40, 230), (0, 210, 255)  # BGR


@dataclass(frozen=True)
class CameraCheck:
    found: list[int]  # marker ids seen
    missing: list[int]
    error_px: float | None  # RMS reprojection error of the fit, None when there is none
    ok: bool
    say: list[str]  # what is right or wrong, in order
    image: bytes  # JPEG of the annotated frame

    def to_json(self) -> dict:
        return {"found": self.found, "missing": self.missing, "ok": self.ok, "say": self.say,
                "error_px": None if self.error_px is None else round(self.error_px, 2),
                "image": "data:image/jpeg;base64," + base64.b64encode(self.image).decode()}


def check_frame(frame: np.ndarray, layout: Layout, min_markers: int = 4, max_error_px: float = 4.0) -> CameraCheck:
    """The frame calibrated as the reader calibrates it, drawn and explained."""
    seen = detect_markers(frame, layout)
    found = sorted({i for i, _ in seen})
    missing = [m.id for m in layout.markers if m.id not in found]
    say, homography, error = [], None, None
    if missing:
        say.append(f"Marker{'s' if len(missing) > 1 else ''} {_ids(missing)} not found: covered, outside the "
                   "picture, badly lit, or not printed at true size (appliance vision markers).")
    try:
        calibration = fit_markers(seen, layout, min_markers, max_error_px=float("inf"))
        homography, error = calibration.homography, calibration.error_px
    except CalibrationError as err:
        say.append(f"The table cannot be measured: {err}. Uncover the markers or turn the camera until they "
                   "are all in the picture.")
    ok = error is not None and error <= max_error_px  # the fit gives its homography and error together
    if error is not None and error > max_error_px:
        say.append(f"The markers disagree by {error:.1f} px (at most {max_error_px:g} px): one has moved, or is not "
                   "where config/layout.toml puts it. Put it back at its place.")
    elif ok:
        say.insert(0, f"{len(found)} of {len(layout.markers)} markers found; they agree within {error:.2f} px "
                      f"(at most {max_error_px:g}): the table is measured.")
    return CameraCheck(found, missing, error, ok, say, _drawn(frame, layout, seen, missing, homography))


def _ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in ids)


def _drawn(frame: np.ndarray, layout: Layout, seen, missing: list[int], homography) -> bytes:
    scale = min(1.0, VIEW_WIDTH / frame.shape[1])
    view = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    thick = max(2, round(3 * view.shape[1] / VIEW_WIDTH))

    def outline(points, colour, label=None):
        pts = np.round(np.asarray(points, np.float64) * scale).astype(np.int32)
        cv2.polylines(view, [pts], True, colour, thick, cv2.LINE_AA)
        if label:
            x, y = pts.min(axis=0)
            cv2.putText(view, label, (int(x), max(14, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA)

    for marker_id, corners in seen:
        outline(corners, FOUND, f"{marker_id}")
    if homography is not None:
        def to_image(points_mm):
            return cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(1, -1, 2), homography)[0]

        for marker in layout.markers:
            if marker.id in missing:
                outline(to_image(marker.corners), MISSING, f"{marker.id} missing")
        teach = layout.zone("teach")
        outline(to_image([(teach.x, teach.y), (teach.x + teach.width, teach.y),
                          (teach.x + teach.width, teach.y + teach.height), (teach.x, teach.y + teach.height)]),
                ZONE, "teach")
    ok, jpeg = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise OSError("cannot encode the camera's picture")
    return jpeg.tobytes()
