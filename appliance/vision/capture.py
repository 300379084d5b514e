"""Teaching a deck on site: faces cut from camera frames of one card at a time in the teach zone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..game.cards import Card
from .calibrate import calibrate
from .cards import card_quads, flatten
from .layout import Layout
from .reader import ZONE_PX_PER_MM, zone_image


class CaptureError(ValueError):
    """A teach frame that does not show exactly one card in the teach zone."""


def face_in_teach_zone(frame: np.ndarray, layout: Layout) -> np.ndarray:
    """The one card lying in the teach zone, flattened upright."""
    image, frame_to_zone = zone_image(frame, layout.zone("teach"), calibrate(frame, layout))
    cards, odd = card_quads(image, ZONE_PX_PER_MM)
    if len(cards) != 1 or odd:
        raise CaptureError(f"{len(cards) + len(odd)} card shapes in the teach zone; lay exactly one card there")
    quad = cv2.perspectiveTransform(cards[0][None].astype(np.float64), np.linalg.inv(frame_to_zone))[0]
    return flatten(frame, quad)


def save_face(face: np.ndarray, code: str, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{Card.parse(code)}.png"
    if not cv2.imwrite(str(path), face):
        raise OSError(f"{path}: cannot write the face")
    return path
