"""Teaching a deck on site: photos of one card at a time in the teach zone, cut from camera frames.

What is kept of a frame is a photo of the card on the felt around it, at the camera's full
resolution, for ``deck learn`` to find and flatten as it does any photo of a card: a face
flattened here instead would carry a rim of felt, and learning takes a face whose edges show
felt for a photo, not for the card itself.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..game.cards import Card
from .calibrate import Calibration, calibrate
from .card_faces import card_quads, flatten
from .layout import Layout
from .reader import ZONE_PX_PER_MM, zone_image

#: the felt kept round the card in a teach photo, as a share of the card's larger side in the frame
PHOTO_MARGIN = 0.25


class CaptureError(ValueError):
    """A teach frame that does not show exactly one card in the teach zone."""


def card_in_teach_zone(frame: np.ndarray, layout: Layout, calibration: Calibration | None = None) -> np.ndarray:
    """The four corners (frame px) of the one card lying in the teach zone."""
    calibration = calibration or calibrate(frame, layout)
    image, frame_to_zone = zone_image(frame, layout.zone("teach"), calibration)
    cards, odd = card_quads(image, ZONE_PX_PER_MM)
    if len(cards) != 1 or odd:
        raise CaptureError(f"{len(cards) + len(odd)} card shapes in the teach zone; lay exactly one card there")
    return cv2.perspectiveTransform(cards[0][None].astype(np.float64), np.linalg.inv(frame_to_zone))[0]


def photo_in_teach_zone(frame: np.ndarray, layout: Layout, calibration: Calibration | None = None) -> np.ndarray:
    """A photo of the one card in the teach zone: the frame cut round it with a margin of felt."""
    quad = card_in_teach_zone(frame, layout, calibration)
    margin = PHOTO_MARGIN * float(np.ptp(quad, axis=0).max())
    height, width = frame.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0) - margin), 0).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0) + margin).astype(int)
    return frame[y0:min(y1, height), x0:min(x1, width)].copy()


def face_in_teach_zone(frame: np.ndarray, layout: Layout) -> np.ndarray:
    """The one card lying in the teach zone, flattened upright."""
    return flatten(frame, card_in_teach_zone(frame, layout))


def save_face(face: np.ndarray, code: str, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{Card.parse(code)}.png"
    if not cv2.imwrite(str(path), face):
        raise OSError(f"{path}: cannot write the face")
    return path
