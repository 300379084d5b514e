"""The synthetic table: card faces drawn by the project (or real cards cut from photographs,
:mod:`.photo_faces`), laid in the layout's zones, seen by a tilted camera, with uneven light,
glare, noise, blur and JPEG. Tests, benchmarks and the simulation's camera use it with fixed seeds.

>>> from appliance.config import shipped_config_dir
>>> from appliance.vision.layout import load_layout
>>> layout = load_layout(shipped_config_dir() / "layout.toml")
>>> r = render_table(layout, {"seat1.front": ["As", "Jk"]}, DESIGNS["classic"], Scene(size=(1152, 648)), seed=1)
>>> r.image.shape, r.truth["seat1.front"]
((648, 1152, 3), ['As', 'Jk'])
"""

from __future__ import annotations

import math
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ..game.cards import CARDS, Card
from .layout import Layout

CARD_W, CARD_H = 63.0, 88.0  # poker size, mm
FACE_PX_PER_MM = 6.0
RED, BLACK = "hd", "cs"
# The installation the issue guarantees: every card at least 120 px wide in a 4608 px wide frame
# (a 12 MP camera over the table), whatever the tilt; as a share of the frame's width.
MIN_CARD_WIDTH = 120 / 4608
CAMERA_DISTANCE_MM = 3000.0  # from the camera to the layout's centre, along its axis


@dataclass(frozen=True)
class Design:
    """A deck design: how its faces are drawn. The reader learns a design from its faces."""

    name: str
    font: int
    stroke_mm: float  # the index's stroke width
    red: tuple[int, int, int]  # BGR
    black: tuple[int, int, int]
    paper: tuple[int, int, int]
    rank_height_mm: float  # height of the corner rank
    ten: str  # how the ten is printed: "10" or "T"
    border: bool
    # Where and how the index is printed: makers differ (near the edge or well inside it, small or
    # jumbo, the suit below the rank or beside it, in two corners or all four, a border round it).
    index_mm: tuple[float, float] = (2.8, 3.0)  # the index's box, from the face's top-left corner (its ink 1.5 mm in)
    index_width_mm: float = 11.0  # ... its width, the rank and a suit below it centred in it
    suit_height_mm: float = 6.5
    suit_beside: bool = False
    four_index: bool = False
    border_mm: float = 2.5  # the printed border's inset from the card's edge

    def card_image(self, code: str, rng: random.Random) -> CardImage:
        return CardImage.drawn(card_face(code, self))

    @property
    def widest_rank_mm(self) -> float:
        (w, h), _ = cv2.getTextSize("10", self.font, 1.0, 1)
        return w / h * self.rank_height_mm

    @property
    def index_right_mm(self) -> float:
        """How far in from the card's left edge its index reaches: a dealer spreading a hand shows that much."""
        if self.suit_beside:
            return self.index_mm[0] + self.widest_rank_mm + 2.0 + self.suit_height_mm
        return self.index_mm[0] + self.index_width_mm


@dataclass(frozen=True)
class CardImage:
    """One card in an image, and where its upright face's top-left, top-right, bottom-right and
    bottom-left corners lie there (a face may be a half turn round: both corners carry the index)."""

    image: np.ndarray  # BGR
    corners: np.ndarray  # 4 x 2 float32, in image pixels
    source: str  # "drawn", or which photo of the card (:mod:`.photo_faces`)
    photo: bool  # a photographed card: rounded corners, and a photo much finer than the frame

    @classmethod
    def drawn(cls, face: np.ndarray) -> CardImage:
        h, w = face.shape[:2]
        return cls(face, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), "drawn", False)

    @classmethod
    def cropped(cls, image: np.ndarray, corners: np.ndarray, source: str) -> CardImage:
        """The card cut out of a larger photo (with a margin), so a deck of them stays small."""
        x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int) - 6, 0)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 6
        return cls(np.ascontiguousarray(image[y0:y1, x0:x1]), (corners - [x0, y0]).astype(np.float32), source, True)


DESIGNS = {
    "classic": Design("classic", cv2.FONT_HERSHEY_DUPLEX, 1.0, (40, 30, 200), (30, 30, 30), (245, 245, 240), 7.5, "10", True),
    "modern": Design("modern", cv2.FONT_HERSHEY_SIMPLEX, 1.1, (60, 20, 220), (10, 10, 10), (250, 250, 250), 8.0, "10", False),
    "casino": Design("casino", cv2.FONT_HERSHEY_TRIPLEX, 0.9, (30, 40, 180), (40, 20, 20), (235, 240, 245), 7.0, "10", True),
    # other makers' index layouts, none of which the reader was built beside
    "edge": Design("edge", cv2.FONT_HERSHEY_SIMPLEX, 0.9, (50, 30, 210), (25, 25, 25), (245, 248, 248), 6.0, "10", False,
                   index_mm=(0.6, -1.4), suit_height_mm=5.0),
    "jumbo": Design("jumbo", cv2.FONT_HERSHEY_DUPLEX, 1.4, (30, 30, 190), (20, 20, 20), (240, 240, 240), 12.5, "10", False,
                    index_mm=(1.5, 1.8), index_width_mm=19.0, suit_height_mm=8.0, four_index=True),
    "beside": Design("beside", cv2.FONT_HERSHEY_TRIPLEX, 0.8, (40, 40, 200), (30, 30, 30), (238, 242, 242), 6.0, "10", True,
                     index_mm=(4.0, 5.0), suit_height_mm=5.0, suit_beside=True, border_mm=3.0),
    "framed": Design("framed", cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 170), (35, 35, 35), (242, 240, 236), 7.0, "T", True,
                     index_mm=(1.8, 2.0), border_mm=1.6),
}


# --- card faces ----------------------------------------------------------------------------

def _suit_shape(img: np.ndarray, suit: str, cx: float, cy: float, size: float, color) -> None:
    """A suit symbol of the given height centred at (cx, cy), drawn with filled shapes."""
    s = size / 2
    if suit == "d":
        pts = np.array([(cx, cy - s), (cx + 0.72 * s, cy), (cx, cy + s), (cx - 0.72 * s, cy)])
        cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)
        return
    if suit in "hs":
        flip = 1 if suit == "h" else -1  # a spade is an upside-down heart with a stem
        r = 0.5 * s
        for dx in (-r, r):
            cv2.circle(img, (round((cx + dx) * 16), round((cy - flip * 0.35 * s) * 16)), round(r * 1.02 * 16),
                       color, -1, cv2.LINE_AA, shift=4)
        pts = np.array([(cx - 2 * r, cy - flip * 0.25 * s), (cx + 2 * r, cy - flip * 0.25 * s), (cx, cy + flip * s)])
        cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)
        if suit == "s":
            _stem(img, cx, cy + 0.3 * s, s, color)
        return
    if suit == "c":
        r = 0.42 * s
        for dx, dy in ((0, -0.5 * s), (-0.5 * s, 0.15 * s), (0.5 * s, 0.15 * s)):
            cv2.circle(img, (round((cx + dx) * 16), round((cy + dy) * 16)), round(r * 16), color, -1, cv2.LINE_AA, shift=4)
        _stem(img, cx, cy + 0.25 * s, s, color)
        return
    # the joker's star
    pts = []
    for k in range(10):
        radius = s if k % 2 == 0 else 0.42 * s
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    cv2.fillPoly(img, [np.round(np.array(pts) * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)


def _stem(img, cx, top, s, color) -> None:
    pts = np.array([(cx, top - 0.1 * s), (cx + 0.35 * s, top + 0.7 * s), (cx - 0.35 * s, top + 0.7 * s)])
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)


def _text(img, text: str, cx: float, top: float, height: float, design: Design, color, px_per_mm: float,
          origin: tuple[int, int] = (0, 0)) -> None:
    """Text of the given cap height, centred on cx, its top at ``top`` (from the whole pixel ``origin``),
    strokes of the design's width."""
    (w, h), _ = cv2.getTextSize(text, design.font, 1.0, 1)
    scale = height / h
    thickness = max(1, round(design.stroke_mm * px_per_mm))
    (w, h), _ = cv2.getTextSize(text, design.font, scale, thickness)
    cv2.putText(img, text, (origin[0] + round(cx - w / 2), origin[1] + round(top + h)), design.font, scale, color,
                thickness, cv2.LINE_AA)


def _index(img: np.ndarray, rank: str, suit: str, design: Design, color, m: float) -> None:
    """The index (rank and suit) drawn in the face's top-left corner, its box at the design's place."""
    rank_h, suit_h = design.rank_height_mm, design.suit_height_mm
    if design.suit_beside:  # the suit beside the widest rank, level with the rank's middle
        widest = design.widest_rank_mm
        rank_x, suit_x, suit_y = 0.5 + widest / 2, widest + 1.5 + suit_h / 2, 1.0 + rank_h / 2
    else:
        rank_x = suit_x = design.index_width_mm / 2
        suit_y = 1.0 + rank_h + 5.0 * suit_h / 6.5
    x0, y0 = (round(v * m) for v in design.index_mm)  # whole pixels (it may lie above the face's edge)
    _text(img, rank, rank_x * m, 1.0 * m, rank_h * m, design, color, m, (x0, y0))
    _suit_shape(img, suit, x0 + suit_x * m, y0 + suit_y * m, suit_h * m, color)


def _print(img: np.ndarray, layer: np.ndarray, paper) -> None:
    """What ``layer`` (a face's size) prints, its pixels not of the paper, onto ``img``: a border
    line beside the index stays."""
    printed = np.any(layer != np.array(paper, np.uint8), axis=2)
    img[printed] = layer[printed]


def card_face(code: str, design: Design, px_per_mm: float = FACE_PX_PER_MM) -> np.ndarray:
    """The upright face of one card, as a camera would see it lying flat."""
    c = Card.parse(code)
    w, h = round(CARD_W * px_per_mm), round(CARD_H * px_per_mm)
    img = np.full((h, w, 3), design.paper, np.uint8)
    m = px_per_mm
    if design.border:
        b = round(design.border_mm * m)
        cv2.rectangle(img, (b, b), (w - b, h - b), (150, 150, 150), max(1, round(0.3 * m)), cv2.LINE_AA)
    if c.is_joker:
        color, rank, suit = design.black, "JK", "*"
    else:
        color = design.red if c.suit in RED else design.black
        rank = str(c)[0] if str(c)[0] != "T" else design.ten
        suit = c.suit
    index = np.full_like(img, design.paper)
    _index(index, rank, suit, design, color, m)
    if design.four_index:  # the top-right corner's index as far from its edge as the top-left's
        ink = np.flatnonzero(np.any(index != np.array(design.paper, np.uint8), axis=(0, 2)))
        _print(index, np.roll(index, w - 1 - ink[0] - ink[-1], axis=1), design.paper)
    _print(img, index, design.paper)
    _print(img, index[::-1, ::-1], design.paper)
    if c.is_joker:
        _text(img, "JOKER", w / 2, h / 2 - 4 * m, 8 * m, design, design.black, m)
        _suit_shape(img, "*", w / 2, h / 2 + 14 * m, 18 * m, design.red)
    else:
        _suit_shape(img, suit, w / 2, h / 2, 26 * m, color)
    return img


# --- the scene ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Scene:
    """How the camera sees the table, and the degradations of its picture."""

    size: tuple[int, int] = (4608, 2592)  # width, height in pixels
    tilt_deg: float = 0.0  # camera axis off vertical
    tilt_dir_deg: float = 0.0  # direction of the tilt in the table plane
    roll_deg: float = 0.0  # camera rotation about its axis
    light: float = 0.0  # 0: even light; 1: strong gradient
    glare: float = 0.0  # 0: none; 1: a strong glare spot
    noise: float = 0.0  # sensor noise sigma in grey levels
    blur: float = 0.0  # Gaussian blur sigma in pixels
    jpeg: int = 0  # JPEG quality (0: no compression)
    rotation: str = "slight"  # cards: "slight" (within 20 degrees) or "any"
    spread: bool = False  # each hand spread left to right with overlap, every index corner left visible
    cloth: tuple[int, int, int] = (50, 110, 40)  # the cloth's colour (BGR): each frame's a little off it
    lines: tuple[int, int, int] = (90, 160, 90)  # the zones' printed outlines (a layout may print them white)

    @classmethod
    def random(cls, rng: random.Random, layout: Layout, size: tuple[int, int] = (4608, 2592),
               degrade: bool = True, rotation: str = "slight", spread: bool = False) -> Scene:
        """A camera tilted up to 30 degrees that still sees every card at least MIN_CARD_WIDTH wide
        (the installation the appliance is sold for): a tilt that would not is drawn again."""
        if not degrade:
            return cls(size=size, rotation=rotation, spread=spread)
        while True:
            tilt, direction, roll = rng.uniform(0, 30), rng.uniform(0, 360), rng.uniform(-5, 5)
            camera = cls(size=size, tilt_deg=tilt, tilt_dir_deg=direction, roll_deg=roll)
            if narrowest_card_px(layout, camera) >= MIN_CARD_WIDTH * size[0]:
                break
        return cls(size=size, tilt_deg=tilt, tilt_dir_deg=direction, roll_deg=roll, light=rng.uniform(0, 1),
                   glare=rng.uniform(0, 1), noise=rng.uniform(1, 6), blur=rng.uniform(0, 1.2),
                   jpeg=rng.randint(60, 95), rotation=rotation, spread=spread)


@dataclass
class Rendered:
    image: np.ndarray
    truth: dict[str, list[str]]  # zone -> cards, left to right on the layout
    homography: np.ndarray  # layout mm -> image pixels
    quads: dict[str, list[np.ndarray]] = field(default_factory=dict)  # zone -> each card's corners in pixels
    sources: dict[str, list[str]] = field(default_factory=dict)  # zone -> each card's image's source


def camera_homography(layout: Layout, scene: Scene) -> np.ndarray:
    """Layout mm -> image pixels for a pinhole camera above the layout's centre, tilted as the scene says."""
    w, h = scene.size
    tilt, direction, roll = (math.radians(a) for a in (scene.tilt_deg, scene.tilt_dir_deg, scene.roll_deg))
    # Layout x to the right and y towards the players make z point down into the table, so a
    # camera above the centre looking straight down has the identity rotation; it is
    # then tilted about an axis in the table plane and rolled about its own axis.
    axis = np.array([math.cos(direction), math.sin(direction), 0.0])
    r_tilt, _ = cv2.Rodrigues(axis * tilt)
    r_roll, _ = cv2.Rodrigues(np.array([0.0, 0.0, roll]))
    rotation = r_roll @ r_tilt.T
    centre = np.array([layout.width / 2, layout.height / 2, 0.0])
    position = centre + r_tilt @ np.array([0.0, 0.0, -CAMERA_DISTANCE_MM])
    t = -rotation @ position
    h_plane = np.column_stack([rotation[:, 0], rotation[:, 1], rotation @ np.zeros(3) + t])
    corners = np.array([[0, 0], [layout.width, 0], [layout.width, layout.height], [0, layout.height]], np.float64)
    projected = cv2.perspectiveTransform(corners[None], h_plane)[0]
    # Fit the projected layout into the frame with a 3% margin (choosing the focal length).
    lo, hi = projected.min(axis=0), projected.max(axis=0)
    scale = min(w * 0.94 / (hi[0] - lo[0]), h * 0.94 / (hi[1] - lo[1]))
    offset = np.array([w, h]) / 2 - scale * (lo + hi) / 2
    fit = np.array([[scale, 0, offset[0]], [0, scale, offset[1]], [0, 0, 1]])
    homography = fit @ h_plane
    return homography / homography[2, 2]


def card_width_px(quad: np.ndarray) -> float:
    """How wide a card looks in the frame: the mean length of its two short (63 mm) edges."""
    return float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2


def _card_quad(homography: np.ndarray, x: float, y: float, angle: float) -> np.ndarray:
    """The frame corners of a card centred at (x, y) mm turned by ``angle`` degrees: top-left first."""
    a = math.radians(angle)
    corners = np.array([[-CARD_W / 2, -CARD_H / 2], [CARD_W / 2, -CARD_H / 2],
                        [CARD_W / 2, CARD_H / 2], [-CARD_W / 2, CARD_H / 2]])
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return cv2.perspectiveTransform((corners @ rot.T + [x, y])[None], homography)[0]


def narrowest_card_px(layout: Layout, scene: Scene) -> float:
    """The narrowest a card can look anywhere in the layout's zones (at a zone's corners, turned
    up to 20 degrees either way), seen by the scene's camera."""
    homography = camera_homography(layout, scene)
    return min(card_width_px(_card_quad(homography, x, y, angle))
               for zone in layout.zones
               for x in (zone.x + CARD_W / 2, zone.x + zone.width - CARD_W / 2)
               for y in (zone.y + CARD_H / 2, zone.y + zone.height - CARD_H / 2)
               for angle in (-20, 0, 20))


def _placements(zone, count: int, scene: Scene, rng: random.Random,
                index_right_mm: float) -> list[tuple[float, float, float]]:
    """(x, y, angle) in mm and degrees for ``count`` cards in a zone, left to right (a spread showing
    each card up to ``index_right_mm``, its index's far side)."""
    if scene.spread and count > 1:
        return _spread(zone, count, scene, rng, index_right_mm)
    slot = zone.width / count
    out = []
    for i in range(count):
        for _ in range(200):
            if scene.rotation == "any" and count == 1:
                angle = rng.uniform(0, 360)
            else:
                angle = rng.uniform(-20, 20) + (rng.choice([0, 180]) if scene.rotation == "any" else 0)
            a = math.radians(angle)
            bw = abs(CARD_W * math.cos(a)) + abs(CARD_H * math.sin(a))
            bh = abs(CARD_W * math.sin(a)) + abs(CARD_H * math.cos(a))
            if bw <= slot - 2 and bh <= zone.height - 2:
                break
        else:
            angle, bw, bh = 0.0, CARD_W, CARD_H
        x = zone.x + slot * i + slot / 2 + rng.uniform(-1, 1) * max(0.0, (slot - bw) / 2 - 1)
        y = zone.y + zone.height / 2 + rng.uniform(-1, 1) * max(0.0, (zone.height - bh) / 2 - 1)
        out.append((x, y, angle))
    return out


#: A dealer spreads a hand so that each card's index stays in view: 19-24 mm from one card to the
#: next shows an index reaching this far in from the card's edge, and a card a step further each
#: millimetre further in (a jumbo index, a suit beside the rank).
SPREAD_SHOWS_MM = 15.5


def _spread(zone, count: int, scene: Scene, rng: random.Random, index_right_mm: float) -> list[tuple[float, float, float]]:
    """A hand spread in a line: each card 19-24 mm on from the one before (see SPREAD_SHOWS_MM) and
    laid over it, so the index corner in each card's top-left stays in view."""
    step = rng.uniform(19, 24) + max(0.0, index_right_mm - SPREAD_SHOWS_MM)
    length = CARD_W + (count - 1) * step
    for _ in range(200):
        angle = rng.uniform(-15, 15)
        a = math.radians(angle)
        bw = length * abs(math.cos(a)) + CARD_H * abs(math.sin(a))
        bh = length * abs(math.sin(a)) + CARD_H * abs(math.cos(a))
        if bw <= zone.width - 4 and bh <= zone.height - 4:
            break
    else:
        angle, bw, bh = 0.0, length, CARD_H
    a = math.radians(angle)
    x = zone.x + zone.width / 2 + rng.uniform(-1, 1) * max(0.0, (zone.width - bw) / 2 - 2)
    y = zone.y + zone.height / 2 + rng.uniform(-1, 1) * max(0.0, (zone.height - bh) / 2 - 2)
    flip = 180 if scene.rotation == "any" and rng.random() < 0.5 else 0
    out = []
    for i in range(count):
        along = (i - (count - 1) / 2) * step
        out.append((x + along * math.cos(a), y + along * math.sin(a), angle + flip + rng.uniform(-1.5, 1.5)))
    return out


def _background(layout: Layout, homography: np.ndarray, scene: Scene, rng: random.Random) -> np.ndarray:
    px = 2.0  # felt and markers drawn at 2 px/mm, then seen through the camera
    canvas = np.empty((round(layout.height * px), round(layout.width * px), 3), np.uint8)
    canvas[:] = np.clip([c + rng.randint(-off, off) for c, off in zip(scene.cloth, (8, 10, 8))], 0, 255)
    for zone in layout.zones:
        cv2.rectangle(canvas, (round(zone.x * px), round(zone.y * px)),
                      (round((zone.x + zone.width) * px), round((zone.y + zone.height) * px)), scene.lines, 2)
    dictionary = layout.aruco_dictionary()
    for marker in layout.markers:
        side = round(marker.size * px)
        border = round(marker.size * px * 0.2)  # a white quiet zone around each printed marker
        x0, y0 = round((marker.center[0]) * px - side / 2), round(marker.center[1] * px - side / 2)
        cv2.rectangle(canvas, (x0 - border, y0 - border), (x0 + side + border, y0 + side + border), (255, 255, 255), -1)
        image = cv2.aruco.generateImageMarker(dictionary, marker.id, side)
        canvas[y0:y0 + side, x0:x0 + side] = image[:, :, None]
    to_canvas = np.diag([1 / px, 1 / px, 1.0])
    return cv2.warpPerspective(canvas, homography @ to_canvas, scene.size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(35, 35, 35))


CORNER_RADIUS_MM = 3.2  # a poker card's rounded corner (1/8 inch)
# A photographed card's outline is fitted where the card's edge blurs into what it lay on (black
# cloth, wood): that rim is the photo's background, not card, and is left out.
PHOTO_RIM_MM = 0.5
MASK_PX_PER_MM = 4.0


def _card_mask(card: CardImage) -> tuple[np.ndarray, np.ndarray]:
    """What of the card's image is card, and where that mask's corners lie: a drawn face is card
    to its edges; a photographed card's rounded corners leave the photo's background out."""
    if not card.photo:
        return np.full(card.image.shape[:2], 255, np.uint8), card.corners
    m, r, e = MASK_PX_PER_MM, CORNER_RADIUS_MM * MASK_PX_PER_MM, round(PHOTO_RIM_MM * MASK_PX_PER_MM)
    w, h = round(CARD_W * m), round(CARD_H * m)
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (round(e + r), e), (w - 1 - round(e + r), h - 1 - e), 255, -1)
    cv2.rectangle(mask, (e, round(e + r)), (w - 1 - e, h - 1 - round(e + r)), 255, -1)
    for cx, cy in ((e + r, e + r), (w - 1 - e - r, e + r), (w - 1 - e - r, h - 1 - e - r), (e + r, h - 1 - e - r)):
        cv2.circle(mask, (round(cx), round(cy)), round(r), 255, -1, cv2.LINE_AA)
    return mask, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def _paste_card(frame: np.ndarray, card: CardImage, quad: np.ndarray) -> None:
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    image, corners = card.image, card.corners
    shrink = card_width_px(quad) / card_width_px(corners)
    if card.photo and shrink < 0.5:
        # a sensor's pixel averages the light over its area: the photo is averaged down to twice
        # the frame's resolution first, where a warp alone would sample it (and alias its print)
        image = cv2.resize(image, None, fx=2 * shrink, fy=2 * shrink, interpolation=cv2.INTER_AREA)
        corners = corners * (2 * shrink)
    target = (quad - [x0, y0]).astype(np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    patch = cv2.warpPerspective(image, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    mask_image, mask_corners = _card_mask(card)
    mask = cv2.warpPerspective(mask_image, cv2.getPerspectiveTransform(mask_corners, target), (x1 - x0, y1 - y0),
                               flags=cv2.INTER_AREA)
    alpha = (mask.astype(np.float32) / 255)[:, :, None]
    region = frame[y0:y1, x0:x1]
    region[:] = (patch * alpha + region * (1 - alpha)).astype(np.uint8)


def _degrade(image: np.ndarray, scene: Scene, rng: random.Random) -> np.ndarray:
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    if scene.light:
        ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        a, b = rng.uniform(-1, 1), rng.uniform(-1, 1)
        gain = 1.0 - scene.light * 0.35 * (1 + a * (xs / w - 0.5) * 2 + b * (ys / h - 0.5) * 2) / 2
        out *= cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)[:, :, None]
    if scene.glare:
        cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        radius = rng.uniform(0.04, 0.10) * w
        ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        spot = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * radius ** 2)) * 110 * scene.glare
        out += cv2.resize(spot, (w, h), interpolation=cv2.INTER_LINEAR)[:, :, None]
    if scene.blur:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur)
    if scene.noise:
        noise = np.empty_like(out)
        cv2.randn(noise, 0, scene.noise)
        out += noise
    image = np.clip(out, 0, 255, out=out).astype(np.uint8)  # in place: a 12 MP float frame is not copied again
    if scene.jpeg:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return image


def render_table(layout: Layout, hands: dict[str, list[str]], design, scene: Scene,
                 seed: int = 0) -> Rendered:
    """Cards (codes) in zones, as the camera would see them; the truth lists each zone left to right.
    ``design`` gives each card's image (``card_image(code, rng)``): a drawn :class:`Design`, or a
    real deck's photographed cards (:class:`.photo_faces.PhotoDeck`)."""
    rng = random.Random(seed)
    cv2.setRNGSeed(seed)
    homography = camera_homography(layout, scene)
    frame = _background(layout, homography, scene, rng)
    truth, quads, sources = {}, {}, {}
    for name, codes in hands.items():
        zone = layout.zone(name)
        placed = _placements(zone, len(codes), scene, rng, design.index_right_mm)
        truth[name] = [str(Card.parse(code)) for code in codes]
        quads[name] = [_card_quad(homography, x, y, angle) for x, y, angle in placed]
        # In a spread each card lies over the one before it in its own left-to-right order, which is
        # right to left on the table when the hand is turned round.
        order = list(range(len(codes)))
        if placed and math.cos(math.radians(placed[0][2])) < 0:
            order.reverse()
        images = {}
        for i in order:
            images[i] = design.card_image(codes[i], rng)
            _paste_card(frame, images[i], quads[name][i])
        sources[name] = [images[i].source for i in range(len(codes))]
    return Rendered(_degrade(frame, scene, rng), truth, homography, quads, sources)


def deal_table(rng: random.Random, seats: range = range(1, 7), cards: list[str] | None = None) -> dict[str, list[str]]:
    """Seven hands of seven from a shuffled deck (the 53 cards, or ``cards``: a real deck's,
    without a joker and without what the deck could not learn): the banker's seven and each seat's 2 + 5."""
    deck = [str(c) for c in CARDS] if cards is None else list(cards)
    if len(deck) < 7 * (len(seats) + 1):
        raise ValueError(f"{len(deck)} cards cannot deal {len(seats) + 1} hands of seven")
    rng.shuffle(deck)
    hands = {"banker": deck[:7]}
    for i, seat in enumerate(seats):
        cards = deck[7 * (i + 1): 7 * (i + 2)]
        hands[f"seat{seat}.front"], hands[f"seat{seat}.back"] = cards[:2], cards[2:]
    return hands


class SyntheticCamera:
    """The simulation's camera, behind the same seam as the real ones (``read``/``close``):
    each frame renders the cards currently on the simulated table, with fresh sensor noise."""

    def __init__(self, layout: Layout, design: str = "classic", seed: int = 0,
                 size: tuple[int, int] = (4608, 2592), degrade: bool = True):
        self.layout = layout
        self.design = DESIGNS[design]
        self.name = f"synthetic:{design}"
        self._rng = random.Random(seed)
        self.scene = Scene.random(self._rng, layout, size=size, degrade=degrade)  # the camera does not move
        self.hands: dict[str, list[str]] = {}
        self.frames = 0

    def show(self, hands: dict[str, list[str]]) -> None:
        """What lies on the table from now on (zone -> card codes)."""
        self.hands = {zone: list(codes) for zone, codes in hands.items()}

    def read(self) -> np.ndarray:
        self.frames += 1
        return render_table(self.layout, self.hands, self.design, self.scene, seed=self._rng.randrange(2**31)).image

    def close(self) -> None:
        pass


def learned_deck(design: str = "classic"):
    """The deck a design draws, learned from its faces as a technician teaches a deck (``deck learn``):
    the simulated camera's deck."""
    from .deck import learn

    with tempfile.TemporaryDirectory() as faces:
        for c in CARDS:
            cv2.imwrite(str(Path(faces) / f"{c}.png"), card_face(str(c), DESIGNS[design]))
        return learn(faces)
