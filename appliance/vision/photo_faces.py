"""Real card images for the synthetic table: each card as it lies in a real photograph (the photo
and the card's outline in it, found by the photo finder), for the renderer to lay into a layout
and show to its tilted camera, so the full path (calibration, zones, outlines, index corners) is
measured on real print, real blur and real light.

A card's image is, where there is one, another photo of it than the one the deck was taught from
(a labelled photo of several cards on a table). Otherwise it is the teaching photo itself, found
and flattened afresh: the photo turned and scaled before the finder looks for the card, so the
outline, the flattening and the resampling differ from the taught ones (the frame then adds its
own tilt, light, blur, noise and JPEG). Which cards are which is reported (``sources``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .cards import flatten, quad_px_per_mm
from .deck import Deck
from .index import index_glyphs, index_patch
from .photo import find_cards
from .render import CardImage

OTHER_PHOTO, SAME_PHOTO = "other photo", "same photo"
# A card's image must be finer than a camera over the table sees it (about 2-3 px/mm): a card
# seen smaller in its photo would be blurred twice over.
MIN_SOURCE_PX_PER_MM = 3.0
SAME_PHOTO_VIEWS = 2  # fresh findings of each teaching photo


@dataclass
class PhotoDeck:
    """A real deck's card images, by card code: what the renderer lays on the table."""

    name: str
    images: dict[str, list[CardImage]]
    skipped: dict[str, str]  # card -> why it has no image (the deck did not learn it, the finder missed it)

    def card_image(self, code: str, rng: random.Random) -> CardImage:
        return rng.choice(self.images[code])

    @property
    def codes(self) -> list[str]:
        return sorted(self.images)

    def sources(self) -> dict[str, int]:
        """How many cards are shown from another photo than the taught one, and how many from it."""
        return dict(Counter(views[0].source for views in self.images.values()))


def _index_in_place(image: np.ndarray, corners: np.ndarray, deck: Deck) -> bool:
    """The flattened card shows a rank and a suit where the deck prints its index, in one of its
    two index corners: the outline is a whole card, taken the right way round (portrait)."""
    face = flatten(image, corners, ordered=True)
    return any(index_glyphs(index_patch(f, deck.index), deck.index) is not None for f in (face, face[::-1, ::-1]))


def _inside(corners: np.ndarray, point) -> bool:
    return cv2.pointPolygonTest(corners.reshape(-1, 1, 2), tuple(map(float, point)), False) >= 0


def scene_images(scenes: dict[Path, list[dict]], deck: Deck) -> tuple[dict[str, list[CardImage]], Counter]:
    """Each labelled card of the scene photos (``{photo: [{"card", "center"}]}``) the finder
    outlines whole, fine enough, with its index in place; and why the others are not used."""
    images: dict[str, list[CardImage]] = {}
    unused: Counter = Counter()
    for path, labelled in sorted(scenes.items()):
        photo = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if photo is None:
            raise ValueError(f"{path}: missing, or not an image OpenCV can read")
        outlines = find_cards(photo)
        for label in labelled:
            around = [o for o in outlines if _inside(o.corners, label["center"])]
            outline = min(around, key=lambda o: cv2.contourArea(o.corners), default=None)
            if outline is None or outline.cut:
                unused["no whole outline"] += 1
            elif quad_px_per_mm(outline.corners) < MIN_SOURCE_PX_PER_MM:
                unused[f"seen under {MIN_SOURCE_PX_PER_MM:g} px/mm"] += 1
            elif not _index_in_place(photo, outline.corners, deck):
                unused["no index where the deck prints it"] += 1
            else:
                images.setdefault(label["card"], []).append(CardImage.cropped(photo, outline.corners, OTHER_PHOTO))
    return images, unused


def refound_images(photo: np.ndarray, deck: Deck, rng: random.Random, views: int = SAME_PHOTO_VIEWS) -> list[CardImage]:
    """The one card of a teaching photo, found afresh in ``views`` copies of the photo each turned
    by a random angle and scaled down: a different outline and flattening than the taught one."""
    out = []
    h, w = photo.shape[:2]
    for _ in range(4 * views):
        if len(out) == views:
            break
        angle, scale = rng.uniform(0, 360), rng.uniform(0.5, 0.8)
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
        side = round(scale * (w + h))  # holds the turned photo whatever the angle
        turn[:, 2] += (side / 2 - w / 2, side / 2 - h / 2)
        turned = cv2.warpAffine(photo, turn, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
        whole = [o for o in find_cards(turned) if not o.cut and cv2.contourArea(o.corners) >= 0.02 * side * side]
        if not whole:
            continue
        outline = max(whole, key=lambda o: cv2.contourArea(o.corners))
        if _index_in_place(turned, outline.corners, deck):
            out.append(CardImage.cropped(turned, outline.corners, SAME_PHOTO))
    return out


def load_photo_deck(real_cards: Path, name: str, deck: Deck, seed: int = 0) -> PhotoDeck:
    """The card images of the real deck ``real_cards/name`` (its ``faces/`` and the scenes that
    ``real_cards/labels.json`` labels), for the cards ``deck`` (learned from those faces) can read."""
    labels = json.loads((real_cards / "labels.json").read_text())
    scenes = {real_cards / key: entry["cards"] for key, entry in labels.items() if key.startswith(f"{name}/")}
    refused = {Path(face).stem: why for face, why in deck.refused.items()}
    other, _ = scene_images(scenes, deck)
    rng = random.Random(seed)
    images: dict[str, list[CardImage]] = {}
    skipped = {code: f"the deck did not learn it: {why}" for code, why in refused.items()}
    for path in sorted((real_cards / name / "faces").iterdir()):
        code = path.stem
        if code in refused or path.suffix.lower() not in {".jpg", ".jpeg", ".png"}:
            continue
        if code in other:
            images[code] = other[code]
            continue
        found = refound_images(cv2.imread(str(path), cv2.IMREAD_COLOR), deck, rng)
        if found:
            images[code] = found
        else:
            skipped[code] = "the finder did not find the card again in its turned photo"
    return PhotoDeck(name, images, skipped)

