"""Real card images for the synthetic table: each card as it lies in a real photograph (the photo
and the card's outline in it, found by the photo finder), for the renderer to lay into a layout
and show to its tilted camera, so the full path (calibration, zones, outlines, index corners) is
measured on real print, real blur and real light.

A card's image is, where there is one, another photo of it than the one the deck was taught from
(a labelled photo of several cards on a table). Otherwise it is the teaching photo itself, found
and flattened afresh: the photo turned and scaled before the finder looks for the card, so the
outline, the flattening and the resampling differ from the taught ones (the frame then adds its
own tilt, light, blur, noise and JPEG). Which cards are which is reported (``sources``).

Each photo was taken under its own light and white balance (one face pink, the next blue), where
the cards on a table are all under the table's light: each card's image is balanced so its paper
is one grey (a card in shadow as bright as one in the light), and the frame then lights the table
as a whole.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .card_edge import on_edges
from .card_faces import CANON_PX_PER_MM, CARD_H_MM, CARD_W_MM, flatten, order_quad, quad_px_per_mm
from .deck import IMAGE_SUFFIXES, Deck
from .index import index_glyphs, index_patch
from .photo import find_cards
from .render import CardImage

OTHER_PHOTO, SAME_PHOTO = "other photo", "same photo"
CARD_MM = np.float32([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM]])
# A card's image must be finer than a camera over the table sees it (about 2-3 px/mm): a card
# seen smaller in its photo would be blurred twice over. Nor may it be coarser in any direction
# across the card than the table's camera ever sees a card (120 px across its width): a card
# foreshortened in a steep view is fine along one side and coarse across it.
MIN_SOURCE_PX_PER_MM = 3.0
MIN_SOURCE_ACROSS_PX_PER_MM = 120 / CARD_W_MM
SAME_PHOTO_VIEWS = 2  # fresh findings of each teaching photo


@dataclass
class PhotoDeck:
    """A real deck's card images, by card code: what the renderer lays on the table."""

    name: str
    images: dict[str, list[CardImage]]
    skipped: dict[str, str]  # card -> why it has no image (the deck did not learn it, the finder missed it)
    index_right_mm: float  # how far in from a card's left edge its index reaches (the deck's index box)

    def card_image(self, code: str, rng: random.Random) -> CardImage:
        return rng.choice(self.images[code])

    @property
    def codes(self) -> list[str]:
        return sorted(self.images)

    def sources(self) -> dict[str, int]:
        """How many cards are shown from another photo than the taught one, and how many from it."""
        return dict(Counter(views[0].source for views in self.images.values()))


def _whole_card(image: np.ndarray, corners: np.ndarray, deck: Deck) -> bool:
    """The outline is one whole card taken the right way round (portrait): flattened, it has the
    same paper along all four edges (an outline that runs over the table or another card has not),
    and a rank and a suit where the deck prints its index, in one of its two index corners."""
    face = flatten(image, corners, ordered=True)
    return _paper_all_round(face) and \
        any(index_glyphs(index_patch(f, deck.index), deck.index) is not None for f in (face, face[::-1, ::-1]))


EDGE_BAND_MM = (0.8, 2.0)  # inside each edge of a flattened card, clear of the rounded corners
# Paper: hardly more coloured than the card's paper at large, and not much darker (light falls
# off across a card in a photo). An outline that runs over wood, cloth or another card's picture
# along one side has less than this share of paper in that side's band (a good outline in a
# blurred, steep view still has about half).
PAPER_SATURATION = 35
PAPER_DARKER = 0.6
PAPER_SHARE = 0.4


def _paper_all_round(face: np.ndarray) -> bool:
    h, w = face.shape[:2]
    a, b = (round(v * CANON_PX_PER_MM) for v in EDGE_BAND_MM)
    clear_x, clear_y = round(0.15 * w), round(0.15 * h)
    hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV)
    bands = [hsv[a:b, clear_x:w - clear_x], hsv[h - b:h - a, clear_x:w - clear_x],
             hsv[clear_y:h - clear_y, a:b], hsv[clear_y:h - clear_y, w - b:w - a]]
    pixels = [band.reshape(-1, 3).astype(np.float32) for band in bands]
    saturation, value = np.median(np.concatenate(pixels)[:, 1:], axis=0)
    return all(float(((p[:, 1] <= saturation + PAPER_SATURATION) & (p[:, 2] >= PAPER_DARKER * value)).mean()) >= PAPER_SHARE
               for p in pixels)


PAPER_RING = (0.03, 0.10)  # the band just inside a card's outline (shares of the way to its centre): paper


def _paper_colour(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card's paper (B, G, R): the lighter half of the band just inside its outline, where no
    ink is."""
    centre = corners.mean(axis=0)
    ring = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(ring, [np.round(centre + (corners - centre) * (1 - PAPER_RING[0])).astype(np.int32)], 255)
    cv2.fillPoly(ring, [np.round(centre + (corners - centre) * (1 - PAPER_RING[1])).astype(np.int32)], 0)
    band = image[ring > 0].astype(np.float32)
    lightness = band.sum(axis=1)
    return np.median(band[lightness >= np.median(lightness)], axis=0)


#: Each card image's paper is set to this grey: a card photographed in shadow (deck-a scene-7, under
#: a laptop's screen) would otherwise be drawn darker than paper on a table whose light is the frame's.
PAPER_GREY = 200.0


def balanced(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The photo with its colour balance and brightness set so that the card's paper is one grey."""
    gains = PAPER_GREY / np.maximum(_paper_colour(image, corners), 1.0)
    return np.clip(image.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def coarsest_px_per_mm(quad: np.ndarray) -> float:
    """The resolution a card outline was seen at in its coarsest direction, anywhere on the card:
    the least stretch of the card's plane into the photo, over its four corners (a card seen
    steeply is foreshortened across the view, whatever its sides' lengths)."""
    h = cv2.getPerspectiveTransform(CARD_MM, order_quad(quad).astype(np.float32)).astype(np.float64)
    least = np.inf
    for x, y in CARD_MM:
        w = h[2, 0] * x + h[2, 1] * y + h[2, 2]
        u, v = (h[0, 0] * x + h[0, 1] * y + h[0, 2]) / w, (h[1, 0] * x + h[1, 1] * y + h[1, 2]) / w
        jacobian = np.array([[h[0, 0] - u * h[2, 0], h[0, 1] - u * h[2, 1]],
                             [h[1, 0] - v * h[2, 0], h[1, 1] - v * h[2, 1]]]) / w
        least = min(least, float(np.linalg.svd(jacobian, compute_uv=False)[-1]))
    return least


def _card(image: np.ndarray, corners: np.ndarray, source: str) -> CardImage:
    card = CardImage.cropped(image, corners, source)
    return CardImage(balanced(card.image, card.corners), card.corners, source, True)


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
        outlines = on_edges(photo, find_cards(photo))
        for label in labelled:
            around = [o for o in outlines if _inside(o.corners, label["center"])]
            outline = min(around, key=lambda o: cv2.contourArea(o.corners), default=None)
            if outline is None or outline.cut:
                unused["no whole outline"] += 1
            elif quad_px_per_mm(outline.corners) < MIN_SOURCE_PX_PER_MM:
                unused[f"seen under {MIN_SOURCE_PX_PER_MM:g} px/mm"] += 1
            elif coarsest_px_per_mm(outline.corners) < MIN_SOURCE_ACROSS_PX_PER_MM:
                unused[f"seen under {MIN_SOURCE_ACROSS_PX_PER_MM:.1f} px/mm across its foreshortening"] += 1
            elif not _whole_card(photo, outline.corners, deck):
                unused["not one whole card, or no index where the deck prints it"] += 1
            else:
                images.setdefault(label["card"], []).append(_card(photo, outline.corners, OTHER_PHOTO))
    return images, unused


def refound_images(photo: np.ndarray, deck: Deck, rng: random.Random, views: int = SAME_PHOTO_VIEWS) -> list[CardImage]:
    """The one card of a teaching photo, found afresh in ``views`` copies of the photo each turned
    by a random angle and scaled down: a different outline and flattening than the taught one."""
    out = []
    h, w = photo.shape[:2]
    for _ in range(max(4 * views, 6)):  # a turn that puts the card against the edge: another
        if len(out) == views:
            break
        angle, scale = rng.uniform(0, 360), rng.uniform(0.5, 0.8)
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
        side = round(scale * (w + h))  # holds the turned photo whatever the angle
        turn[:, 2] += (side / 2 - w / 2, side / 2 - h / 2)
        turned = cv2.warpAffine(photo, turn, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        # a card the photo's own edge cuts is no whole card, whatever the turned copy's border shows
        edge = cv2.transform(np.float32([[0, 0], [w, 0], [w, h], [0, h]])[None], turn)[0].reshape(-1, 1, 2)
        whole = [o for o in on_edges(turned, find_cards(turned)) if cv2.contourArea(o.corners) >= 0.02 * side * side
                 and all(cv2.pointPolygonTest(edge, tuple(map(float, c)), True) >= 3 for c in o.corners)]
        if not whole:
            continue
        outline = max(whole, key=lambda o: cv2.contourArea(o.corners))
        if _whole_card(turned, outline.corners, deck):
            out.append(_card(turned, outline.corners, SAME_PHOTO))
    return out


def load_photo_deck(real_cards: Path, name: str, deck: Deck, seed: int = 0, views: int = SAME_PHOTO_VIEWS) -> PhotoDeck:
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
        if code in refused or path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        if code in other:
            images[code] = other[code]
            continue
        found = refound_images(cv2.imread(str(path), cv2.IMREAD_COLOR), deck, rng, views)
        if found:
            images[code] = found
        else:
            skipped[code] = "the finder did not find the card again in its turned photo"
    return PhotoDeck(name, images, skipped, deck.index.box_mm[2])

