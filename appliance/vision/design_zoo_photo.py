"""A card photographed to teach a deck, as a technician's phone or the table's camera takes it: lying
on cloth, wood or felt, turned any way, seen a little from the side, at 4-10 px/mm, with its shadow,
uneven light, a glare spot, blur, colour fringes, noise and JPEG. Used by the design zoo
(:mod:`.design_zoo`), whose designs give the card's artwork.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

BACKGROUNDS = ("cloth", "wood", "felt")


def photograph(design, code: str, rng: random.Random) -> np.ndarray:
    """The photo (BGR) of one card of ``design`` (anything with ``artwork(code, px_per_mm)``)."""
    px = rng.uniform(4, 10)
    card = design.artwork(code, px_per_mm=px, corners="clear")
    quad = _seen_from_the_side(card.shape[1], card.shape[0], rng)
    size, quad = _framed(quad, rng)
    noise = np.random.default_rng(rng.randrange(2 ** 32))
    photo = background(rng.choice(BACKGROUNDS), size, rng, noise)
    _lay(photo, card, quad, px, rng)
    photo = _light(photo, quad, rng, noise)
    return _camera(photo, rng, noise)


def _seen_from_the_side(w: int, h: int, rng: random.Random) -> np.ndarray:
    """The card's corners (top-left first) turned any way and in mild perspective, centred on 0."""
    k, j = rng.uniform(-0.06, 0.06), rng.uniform(-0.06, 0.06)  # how much nearer one edge is than its opposite
    corners = np.array([(-w / 2 * (1 - k), -h / 2 * (1 - j)), (w / 2 * (1 - k), -h / 2 * (1 + j)),
                        (w / 2 * (1 + k), h / 2 * (1 + j)), (-w / 2 * (1 + k), h / 2 * (1 - j))])
    a = math.radians(rng.uniform(0, 360))
    return corners @ np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])


def _framed(quad: np.ndarray, rng: random.Random) -> tuple[tuple[int, int], np.ndarray]:
    """A 4:3 photo (either way up) the card fills a good part of, and the card placed in it."""
    span = quad.max(axis=0) - quad.min(axis=0)
    room = span * rng.uniform(1.15, 1.7)
    aspect = 4 / 3 if rng.random() < 0.5 else 3 / 4
    w = max(room[0], room[1] * aspect)
    size = (round(w), round(w / aspect))
    spare = np.array(size) - span
    at = -quad.min(axis=0) + [rng.uniform(0.1, 0.9) * spare[0], rng.uniform(0.1, 0.9) * spare[1]]
    return size, (quad + at).astype(np.float32)


def background(kind: str, size: tuple[int, int], rng: random.Random, noise: np.random.Generator) -> np.ndarray:
    """What the card lies on, ``size`` (w, h) px: woven cloth, wood grain or felt."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "cloth":  # threads crossing at a period of a few pixels, at any angle
        base = rng.choice([(200, 215, 225), (120, 80, 50), (90, 90, 95), (60, 50, 120), (170, 170, 165)])
        a, period = rng.uniform(0, math.pi), rng.uniform(2.5, 6)
        u, v = xs * math.cos(a) + ys * math.sin(a), -xs * math.sin(a) + ys * math.cos(a)
        texture = 14 * np.sin(2 * math.pi * u / period) * np.sin(2 * math.pi * v / period)
    elif kind == "wood":  # streaks along the grain and rings waving across it
        base = rng.choice([(40, 80, 140), (60, 110, 170), (30, 55, 95), (90, 140, 190)])
        streaks = cv2.resize(noise.normal(0, 1, (max(2, h // 30), max(2, w // 300))).astype(np.float32), (w, h),
                             interpolation=cv2.INTER_CUBIC)
        period = rng.uniform(15, 45)
        texture = 18 * streaks + 12 * np.sin(2 * math.pi * (ys + 25 * streaks) / period)
        if rng.random() < 0.5:
            texture = cv2.resize(texture.T.copy(), (w, h))
    else:  # felt: a soft mottle
        base = rng.choice([(40, 110, 30), (110, 60, 20), (30, 30, 110), (50, 50, 50), (25, 25, 25)])
        texture = cv2.GaussianBlur(noise.normal(0, 8, (h, w)).astype(np.float32), (0, 0), 1.5)
    texture = texture + noise.normal(0, 3, (h, w)).astype(np.float32)
    return np.clip(np.array(base, np.float32) + texture[:, :, None], 0, 255)


def _lay(photo: np.ndarray, card: np.ndarray, quad: np.ndarray, px: float, rng: random.Random) -> None:
    """The card (BGRA) laid on the photo (float BGR, in place) at ``quad``, over its soft shadow."""
    h, w = photo.shape[:2]
    src = np.array([[0, 0], [card.shape[1], 0], [card.shape[1], card.shape[0]], [0, card.shape[0]]], np.float32)
    warp = cv2.getPerspectiveTransform(src, quad)
    seen = cv2.warpPerspective(card, warp, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    alpha = seen[:, :, 3:] / 255
    offset = np.float32([[1, 0, rng.uniform(-2, 2) * px], [0, 1, rng.uniform(0.5, 2.5) * px]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(alpha[:, :, 0], offset, (w, h)), (0, 0), rng.uniform(0.8, 2.5) * px)
    photo *= 1 - rng.uniform(0.2, 0.5) * shadow[:, :, None]
    photo[:] = photo * (1 - alpha) + seen[:, :, :3] * alpha


def _light(photo: np.ndarray, quad: np.ndarray, rng: random.Random, noise: np.random.Generator) -> np.ndarray:
    """Uneven light across the photo, and (in most photos) a glare spot: a bright soft ellipse near the card."""
    h, w = photo.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a, b = rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25)
    photo = photo * (rng.uniform(0.85, 1.1) + a * (xs / w - 0.5) + b * (ys / h - 0.5))[:, :, None]
    if rng.random() < 0.65:
        lo, hi = quad.min(axis=0), quad.max(axis=0)
        cx, cy = rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])
        width = float(np.linalg.norm(quad[1] - quad[0]))
        ax, ay = width * rng.uniform(0.08, 0.35), width * rng.uniform(0.05, 0.2)
        t = rng.uniform(0, math.pi)
        u, v = (xs - cx) * math.cos(t) + (ys - cy) * math.sin(t), -(xs - cx) * math.sin(t) + (ys - cy) * math.cos(t)
        photo += (rng.uniform(40, 120) * np.exp(-((u / ax) ** 2 + (v / ay) ** 2) / 2))[:, :, None]
    return photo


def _camera(photo: np.ndarray, rng: random.Random, noise: np.random.Generator) -> np.ndarray:
    """The lens and sensor: blur, the blue and red channels a pixel or two off the green (a cheap
    lens's colour fringes), noise, then a JPEG round trip."""
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.3, 1.4))
    d, a = rng.uniform(1, 2), rng.uniform(0, 2 * math.pi)
    h, w = photo.shape[:2]
    for channel, sign in ((0, 1), (2, -1)):
        shift = np.float32([[1, 0, sign * d * math.cos(a)], [0, 1, sign * d * math.sin(a)]])
        photo[:, :, channel] = cv2.warpAffine(photo[:, :, channel], shift, (w, h), borderMode=cv2.BORDER_REPLICATE)
    photo += noise.normal(0, rng.uniform(1, 4), photo.shape).astype(np.float32)
    image = np.clip(photo, 0, 255).astype(np.uint8)
    _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(60, 95)])
    return cv2.imdecode(data, cv2.IMREAD_COLOR)
