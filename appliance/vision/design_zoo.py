"""A zoo of deck designs drawn from a seed, to measure deck learning and reading on decks the reader
was never built beside: fonts found on the machine, an index 4-12 mm tall printed 0.5-8 mm from the
edges, the suit below or beside the rank, borders, courts whose picture reaches the index, two or
four indices, four styles of joker; each card as printed artwork and as a camera's photo to teach from.

A design is drawn from ``random.Random(seed)`` and the fonts under /usr/share/fonts (the same seed
gives the same design on a machine with the same fonts; without any, OpenCV's Hershey fonts):

>>> design = ZooDesign.random(7)
>>> design == ZooDesign.random(7), design.face("Qh").shape, design.artwork("Qh").shape[2]
(True, (528, 378, 3), 4)
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..game.cards import Card
from .card_faces import CARD_H_MM, CARD_W_MM
from .design_zoo_photo import photograph
from .render import FACE_PX_PER_MM, CardImage

FONT_DIR = Path("/usr/share/fonts")
HERSHEY = ("hershey:0", "hershey:2", "hershey:3", "hershey:4")  # simplex, duplex, complex, triplex
ARTWORK_PX_PER_MM = 12.0  # print artwork's 300 dpi
JOKER_STYLES = ("vertical", "across", "star", "picture")
BORDERS = ("none", "line", "double", "rounded")
CORNERS = ("clear", "white", "black")  # an artwork's corners outside the card's rounding
GLYPH_CAP_PX = 200  # text is drawn once at this cap height, then scaled down


#: The font packages .ci/run installs (fonts-dejavu-core, fonts-liberation2, fonts-freefont-ttf,
#: fonts-urw-base35): only their faces are drawn, so a seed draws the same design wherever they are
#: installed, whatever other packages brought (Chromium brings fonts-liberation).
ZOO_FONT_DIRS = ("truetype/dejavu", "truetype/liberation2", "truetype/freefont", "opentype/urw-base35")


@functools.cache
def system_fonts() -> tuple[str, ...]:
    """The upright text faces of ZOO_FONT_DIRS that Pillow can draw (none without Pillow): symbol,
    math, script and slanted faces are left out, since no deck prints its index in them."""
    try:
        import PIL.ImageFont  # noqa: F401
    except ImportError:
        return ()
    skip = ("italic", "oblique", "symbol", "math", "d050000l", "z003", "extralight")
    return tuple(sorted(str(p) for folder in ZOO_FONT_DIRS for p in (FONT_DIR / folder).rglob("*")
                        if p.suffix.lower() in (".ttf", ".otf") and not any(s in p.name.lower() for s in skip)))


# --- text ------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def _glyphs(font: str, text: str) -> tuple[np.ndarray, float]:
    """``text``'s ink as a mask cropped to it, drawn at a cap height of GLYPH_CAP_PX, and how far
    its ink's top lies below the cap's top (px)."""
    if font.startswith("hershey:"):
        mask, cap_top = _hershey(int(font.split(":")[1]), text)
    else:
        mask, cap_top = _truetype(font, text)
    ys, xs = np.nonzero(mask > 40)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1], float(ys.min() - cap_top)


def _truetype(font: str, text: str) -> tuple[np.ndarray, float]:
    from PIL import Image, ImageDraw, ImageFont

    face = ImageFont.truetype(font, 64)
    cap = -face.getbbox("H", anchor="ls")[1]
    face = ImageFont.truetype(font, round(64 * GLYPH_CAP_PX / cap))
    cap = -face.getbbox("H", anchor="ls")[1]
    left, top, right, bottom = face.getbbox(text, anchor="ls")
    image = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(image).text((4 - left, 4 - top), text, font=face, fill=255, anchor="ls")
    return np.asarray(image), 4 - top - cap  # the baseline lies at row 4 - top


def _hershey(font: int, text: str) -> tuple[np.ndarray, float]:
    scale = GLYPH_CAP_PX / 22  # a Hershey capital is about 22 units tall at scale 1
    thickness = round(GLYPH_CAP_PX / 9)
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    mask = np.zeros((h * 2 + 4 * thickness, w + 4 * thickness), np.uint8)
    baseline = h + 2 * thickness
    cv2.putText(mask, text, (2 * thickness, baseline), font, scale, 255, thickness, cv2.LINE_AA)
    cap = np.zeros_like(mask)
    cv2.putText(cap, "H", (2 * thickness, baseline), font, scale, 255, thickness, cv2.LINE_AA)
    return mask, float(np.nonzero(cap.max(axis=1) > 40)[0][0])


def text_mask(font: str, text: str, cap_px: float) -> tuple[np.ndarray, float]:
    """``text``'s ink at a cap height of ``cap_px``, and where its top lies below the cap's top."""
    mask, below = _glyphs(font, text)
    k = cap_px / GLYPH_CAP_PX
    size = (max(1, round(mask.shape[1] * k)), max(1, round(mask.shape[0] * k)))
    return cv2.resize(mask, size, interpolation=cv2.INTER_AREA), below * k


def text_width(font: str, text: str, cap: float) -> float:
    """How wide ``text`` prints at cap height ``cap`` (in cap's unit)."""
    mask, _ = _glyphs(font, text)
    return mask.shape[1] / GLYPH_CAP_PX * cap


# --- shapes ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class SuitShapes:
    """A design's suit symbols' proportions (each symbol one unit tall)."""

    heart_w: float = 0.95
    diamond_w: float = 0.72
    diamond_bow: float = -0.04  # a diamond's sides bowed out (+) or in (-)
    spade_w: float = 0.9
    club_lobe: float = 0.27  # a club's leaf radius
    stem_w: float = 0.38

    @classmethod
    def random(cls, rng: random.Random) -> SuitShapes:
        return cls(rng.uniform(0.85, 1.08), rng.uniform(0.6, 0.82), rng.uniform(-0.08, 0.04), rng.uniform(0.8, 1.0),
                   rng.uniform(0.24, 0.3), rng.uniform(0.28, 0.48))

    def width(self, suit: str) -> float:
        return {"h": self.heart_w, "d": self.diamond_w, "s": self.spade_w, "c": 4.3 * self.club_lobe, "*": 1.0}[suit]

    def polygons(self, suit: str) -> list[np.ndarray]:
        """The symbol as filled polygons, centred on (0, 0), y down, one unit tall."""
        if suit == "h":
            return [_heart(self.heart_w)]
        if suit == "d":
            return [_diamond(self.diamond_w, self.diamond_bow)]
        if suit == "s":
            body = _heart(self.spade_w) * [1, -0.8] + [0, -0.1]  # a heart upside down, on a stem
            return [body, _stem(self.stem_w, 0.05)]
        if suit == "c":
            return self._club()
        return [star(0.5)]

    def _club(self) -> list[np.ndarray]:
        r = self.club_lobe
        top, side_y = -0.5 + r, -0.5 + 2.6 * r
        leaves = [_circle(0, top, r), _circle(-1.1 * r, side_y, r), _circle(1.1 * r, side_y, r), _circle(0, side_y - 0.3 * r, 0.7 * r)]
        return leaves + [_stem(self.stem_w, side_y - 0.2)]


def _circle(cx: float, cy: float, r: float, n: int = 40) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def _heart(width: float) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, 80, endpoint=False)
    x, y = 16 * np.sin(t) ** 3, -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.column_stack([x, y])
    pts = (pts - (pts.min(axis=0) + pts.max(axis=0)) / 2) / (y.max() - y.min())
    return pts * [width / (x.max() - x.min()) * (y.max() - y.min()), 1]


def _diamond(width: float, bow: float) -> np.ndarray:
    tips = np.array([(0, -0.5), (width / 2, 0), (0, 0.5), (-width / 2, 0)])
    pts = []
    for a, b in zip(tips, np.roll(tips, -1, axis=0)):
        normal = np.array([b[1] - a[1], a[0] - b[0]])  # outwards, the tips going clockwise
        control = (a + b) / 2 - bow * 2 * normal / np.linalg.norm(normal)
        s = np.linspace(0, 1, 12, endpoint=False)[:, None]
        pts.append((1 - s) ** 2 * a + 2 * s * (1 - s) * control + s ** 2 * b)
    return np.concatenate(pts)


def _stem(width: float, top: float) -> np.ndarray:
    """A stem from ``top`` down to the symbol's foot, its sides curving out to the foot."""
    s = np.linspace(0, 1, 10)
    half = 0.03 + (width / 2 - 0.03) * s ** 2
    y = top + (0.5 - top) * s
    return np.concatenate([np.column_stack([half, y]), np.column_stack([-half[::-1], y[::-1]])])


def star(radius: float, points: int = 5, inner: float = 0.42) -> np.ndarray:
    a = -math.pi / 2 + np.arange(2 * points) * math.pi / points
    r = np.where(np.arange(2 * points) % 2 == 0, radius, inner * radius)
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def fill(img: np.ndarray, polygons: list[np.ndarray], cx: float, cy: float, size: float, colour, turned: bool = False) -> None:
    """Polygons (unit coordinates) drawn ``size`` px tall centred at (cx, cy), turned a half turn if asked."""
    k = -size if turned else size
    for pts in polygons:
        cv2.fillPoly(img, [np.round((pts * k + [cx, cy]) * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


# --- the design ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ZooDesign:
    """A deck design drawn from a seed; lengths in mm, colours BGR."""

    seed: int
    font: str  # a font file, or "hershey:N" (an OpenCV font)
    rank_mm: float  # the rank's cap height
    suit_mm: float
    gap_mm: float  # between the rank and the suit
    index_mm: tuple[float, float]  # the index's ink from the card's left and top edges
    suit_beside: bool
    align_left: bool  # the rank and the suit left-aligned in the index, not centred
    ten: str  # "10" or "T"
    four_index: bool
    border: str  # one of BORDERS
    border_mm: float  # its inset from the card's edge
    border_colour: tuple[int, int, int]
    court_gap_mm: float  # between a court's picture and the index (0: touching)
    court_beside: bool  # a court's picture beside the index where there is room, else below it
    court_colours: tuple[tuple[int, int, int], ...]
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    paper: tuple[int, int, int]
    joker_style: str  # one of JOKER_STYLES
    joker_colour: bool
    shapes: SuitShapes
    corner_radius_mm: float
    corners: str  # one of CORNERS: what an artwork shows outside the rounded corners

    @classmethod
    def random(cls, seed: int) -> ZooDesign:
        rng = random.Random(seed)
        fonts = system_fonts() or HERSHEY
        while True:  # an index too big for the card (four corners' too wide for its top) is drawn again
            design = cls._draw(seed, rng, fonts)
            x1, y1 = design.index_box_mm[2:]
            if (x1 <= (CARD_W_MM / 2 - 1.5 if design.four_index else 36)) and y1 <= 36:
                return design

    @classmethod
    def _draw(cls, seed: int, rng: random.Random, fonts: tuple[str, ...]) -> ZooDesign:
        rank = rng.uniform(4, 12)
        return cls(
            seed=seed, font=rng.choice(fonts), rank_mm=rank, suit_mm=rank * rng.uniform(0.55, 0.95),
            gap_mm=rank * rng.uniform(0.08, 0.3), index_mm=(rng.uniform(0.5, 8), rng.uniform(0.5, 8)),
            suit_beside=rng.random() < 0.35, align_left=rng.random() < 0.25, ten=rng.choice(["10", "10", "T"]),
            four_index=rng.random() < 0.35, border=rng.choice(BORDERS), border_mm=rng.uniform(1.0, 5.0),
            border_colour=rng.choice([(150, 150, 150), (40, 40, 40), (140, 60, 20), (40, 40, 170)]),
            court_gap_mm=rng.choice([0.0, rng.uniform(0.2, 2.0)]), court_beside=rng.random() < 0.6,
            court_colours=tuple(_ink(rng) for _ in range(3)),
            red=(rng.randint(15, 70), rng.randint(10, 50), rng.randint(150, 225)), black=_black(rng), paper=_paper(rng),
            joker_style=rng.choice(JOKER_STYLES), joker_colour=rng.random() < 0.5, shapes=SuitShapes.random(rng),
            corner_radius_mm=rng.uniform(2.5, 4.0), corners=rng.choice(CORNERS))

    # -- where things go (mm)

    @functools.cached_property
    def widest_rank_mm(self) -> float:
        return max(text_width(self.font, r, self.rank_mm) for r in ["A", "2", "4", "8", "J", "Q", "K", self.ten])

    @property
    def suit_width_mm(self) -> float:
        return self.suit_mm * max(self.shapes.width(s) for s in "hdcs")

    @functools.cached_property
    def index_box_mm(self) -> tuple[float, float, float, float]:
        """The top-left index's box on the card (x0, y0, x1, y1): its rank and suit lie within."""
        x0, y0 = self.index_mm
        if self.suit_beside:
            w, h = self.widest_rank_mm + self.gap_mm + self.suit_width_mm, max(self.rank_mm, self.suit_mm)
        else:
            w, h = max(self.widest_rank_mm, self.suit_width_mm), self.rank_mm + self.gap_mm + self.suit_mm
        return x0, y0, x0 + w, y0 + h

    @property
    def index_right_mm(self) -> float:
        """How far in from the card's left edge its index reaches (render_table spreads hands by it)."""
        return self.index_box_mm[2]

    def picture_box_mm(self) -> tuple[float, float, float, float]:
        """A court's or joker's picture: beside the index (between the two top indices) where there is
        room and the design puts it there, else below the index; point-symmetric on the card."""
        x0, y0, x1, y1 = self.index_box_mm
        g = self.court_gap_mm
        if self.court_beside and CARD_W_MM - 2 * (x1 + g) >= 24:
            return x1 + g, y0, CARD_W_MM - x1 - g, CARD_H_MM - y0
        left = max(min(x0, 6.0), 2.0)
        return left, y1 + g, CARD_W_MM - left, CARD_H_MM - y1 - g

    def pip_box_mm(self) -> tuple[float, float, float, float]:
        """Where a numbered card's pips lie: between the index columns, or between the index rows
        where the index is too wide to leave a column."""
        x0, y0, x1, y1 = self.index_box_mm
        if CARD_W_MM - 2 * (x1 + 3.5) >= 22:
            return x1 + 3.5, max(y0, 5.0), CARD_W_MM - x1 - 3.5, CARD_H_MM - max(y0, 5.0)
        return 6.0, y1 + 2.5, CARD_W_MM - 6, CARD_H_MM - y1 - 2.5

    # -- images

    def face(self, code: str, px_per_mm: float = FACE_PX_PER_MM) -> np.ndarray:
        """The card's upright face (BGR), the card's whole rectangle, paper to its edges."""
        return _face(self, str(Card.parse(code)), px_per_mm).copy()

    def artwork(self, code: str, px_per_mm: float = ARTWORK_PX_PER_MM, corners: str | None = None) -> np.ndarray:
        """The card as a maker's artwork file (BGRA), cropped to the card's edge: outside its rounded
        corners transparent (``clear``), or filled ``white`` or ``black``."""
        face = _face(self, str(Card.parse(code)), px_per_mm)
        inside = rounded_card_mask(face.shape[1], face.shape[0], self.corner_radius_mm * px_per_mm)
        corners = corners or self.corners
        outside = {"clear": (0, 0, 0, 0), "white": (255, 255, 255, 255), "black": (0, 0, 0, 255)}[corners]
        card = np.dstack([face, np.full(face.shape[:2], 255, np.uint8)])
        edge = inside < 255  # elsewhere the blend below is the card itself: only these pixels are blended
        a = inside[edge].astype(np.float32)[:, None] / 255
        card[edge] = np.round(card[edge].astype(np.float32) * a + np.array(outside, np.float32) * (1 - a)).astype(np.uint8)
        return card

    def photo(self, code: str, rng: random.Random) -> np.ndarray:
        """The card as a camera photographs it to teach the deck (BGR): see :func:`photograph`."""
        return photograph(self, code, rng)

    def card_image(self, code: str, rng: random.Random) -> CardImage:
        return CardImage.drawn(_face(self, str(Card.parse(code)), FACE_PX_PER_MM))


def _ink(rng: random.Random) -> tuple[int, int, int]:
    return rng.choice([(40, 40, 190), (170, 90, 30), (30, 170, 220), (40, 120, 40), (120, 40, 110), (30, 30, 30)])


def _black(rng: random.Random) -> tuple[int, int, int]:
    v = rng.randint(5, 50)
    return (min(v + rng.randint(0, 30), 255), v, v)  # a black, some a little navy


def _paper(rng: random.Random) -> tuple[int, int, int]:
    v = rng.randint(226, 252)
    cream = rng.randint(0, 12)
    return (v - cream, min(255, v - cream // 3), min(255, v + 3))


def rounded_card_mask(w: int, h: int, r: float) -> np.ndarray:
    """255 inside a card of w x h px with corners rounded to radius ``r`` px (anti-aliased)."""
    mask = np.zeros((h, w), np.uint8)
    x0, y0, x1, y1 = r, r, w - r, h - r
    pts = [_circle(cx, cy, r, 64) for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    for p in pts:
        cv2.fillPoly(mask, [np.round((p - 0.5) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    cv2.rectangle(mask, (round(r), 0), (w - 1 - round(r), h - 1), 255, -1)
    cv2.rectangle(mask, (0, round(r)), (w - 1, h - 1 - round(r)), 255, -1)
    return mask




# --- faces -----------------------------------------------------------------------------------

PIPS = {  # a numbered card's pips: (column 0-1, row 0-1) in its pip box
    2: [(.5, 0), (.5, 1)], 3: [(.5, 0), (.5, .5), (.5, 1)], 4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (.5, .5), (0, 1), (1, 1)], 6: [(c, r) for c in (0, 1) for r in (0, .5, 1)],
    7: [(c, r) for c in (0, 1) for r in (0, .5, 1)] + [(.5, .25)],
    8: [(c, r) for c in (0, 1) for r in (0, .5, 1)] + [(.5, .25), (.5, .75)],
    9: [(c, r) for c in (0, 1) for r in (0, 1 / 3, 2 / 3, 1)] + [(.5, .5)],
    10: [(c, r) for c in (0, 1) for r in (0, 1 / 3, 2 / 3, 1)] + [(.5, 1 / 6), (.5, 5 / 6)],
}
SKIN, GOLD = (150, 190, 235), (40, 180, 225)


@functools.lru_cache(maxsize=128)
def _face(design: ZooDesign, code: str, px_per_mm: float) -> np.ndarray:
    m = px_per_mm
    img = np.empty((round(CARD_H_MM * m), round(CARD_W_MM * m), 3), np.uint8)
    img[:] = design.paper
    corner = np.empty_like(img)
    corner[:] = design.paper
    _corner(corner, design, code, m)
    copies = _corner_copies(corner, design)
    _border(img, design, m)
    e = round(0.8 * m)
    for _, ink in copies:  # a border line is broken round each index, as printers do
        ys, xs = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
        img[max(ys[0] - e, 0):ys[-1] + e + 1, max(xs[0] - e, 0):xs[-1] + e + 1] = design.paper
    if code == "Jk":
        _joker_picture(img, design, m)
    elif code[0] in "JQK":
        _court(img, design, code, m)
    else:
        _pips(img, design, code, m)
    for layer, ink in copies:
        np.copyto(img, layer, where=ink[:, :, None])
    img.flags.writeable = False  # shared by every caller of the cache
    return img


def _corner_copies(corner: np.ndarray, design: ZooDesign) -> list[tuple[np.ndarray, np.ndarray]]:
    """The top-left corner's print, and where the design prints it again: the bottom-right corner
    turned a half turn, and with four indices the top-right corner upright (as far from its edge).
    Each copy with its ink (where it is not paper), moved as the copy is: the ink is found once, as
    finding it on a whole face is most of the time a face takes to draw."""
    paper = np.array(design.paper, np.uint8)
    copies = [(corner, cv2.inRange(corner, paper, paper) == 0)]
    if design.four_index:
        ink = np.flatnonzero(copies[0][1].any(axis=0))
        shift = corner.shape[1] - 1 - ink[0] - ink[-1]
        copies.append(tuple(np.roll(a, shift, axis=1) for a in copies[0]))
    return copies + [(c[::-1, ::-1], ink[::-1, ::-1]) for c, ink in copies]


def _stamp(img: np.ndarray, mask: np.ndarray, x: float, y: float, colour) -> None:
    """A mask's ink laid on ``img`` in ``colour``, its top-left at (x, y) px."""
    x, y = round(x), round(y)
    h, w = mask.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, img.shape[1]), min(y + h, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x].astype(np.float32)[:, :, None] / 255
    region = img[y0:y1, x0:x1]
    region[:] = np.round(region * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _text(img, design: ZooDesign, text: str, x: float, top: float, cap: float, colour, m: float,
          centred: bool = False) -> None:
    """Text of cap height ``cap`` mm, its cap's top at ``top`` mm, from ``x`` mm (or centred on it)."""
    mask, below = text_mask(design.font, text, cap * m)
    left = x * m - (mask.shape[1] / 2 if centred else 0)
    _stamp(img, mask, left, top * m + below, colour)


def _corner(img: np.ndarray, design: ZooDesign, code: str, m: float) -> None:
    """The top-left corner's print: the rank and suit, or the joker's mark."""
    if code == "Jk":
        _joker_corner(img, design, m)
        return
    colour = design.red if code[1] in "hd" else design.black
    rank = design.ten if code[0] == "T" else code[0]
    x0, y0, x1, y1 = design.index_box_mm
    r, s, suit_w = design.rank_mm, design.suit_mm, design.suit_mm * design.shapes.width(code[1])
    if design.suit_beside:
        h = y1 - y0
        rank_x = x0 if design.align_left else x0 + design.widest_rank_mm / 2
        _text(img, design, rank, rank_x, y0 + (h - r) / 2, r, colour, m, centred=not design.align_left)
        suit_x, suit_y = x0 + design.widest_rank_mm + design.gap_mm + suit_w / 2, y0 + h / 2
    else:
        rank_x = x0 if design.align_left else (x0 + x1) / 2
        _text(img, design, rank, rank_x, y0, r, colour, m, centred=not design.align_left)
        suit_x = x0 + suit_w / 2 if design.align_left else (x0 + x1) / 2
        suit_y = y0 + r + design.gap_mm + s / 2
    fill(img, design.shapes.polygons(code[1]), suit_x * m, suit_y * m, s * m, colour)


def _joker_corner(img: np.ndarray, design: ZooDesign, m: float) -> None:
    x0, y0, x1, y1 = design.index_box_mm
    colour = design.red if design.joker_colour else design.black
    if design.joker_style == "vertical":  # J-O-K-E-R stacked down the corner
        cap = min(max(0.45 * design.rank_mm, 2.4), 4.2)
        for i, letter in enumerate("JOKER"):
            _text(img, design, letter, x0 + cap * 0.45, y0 + i * 1.3 * cap, cap, colour, m, centred=True)
    elif design.joker_style == "across":
        cap = min(0.7 * design.rank_mm, (CARD_W_MM / 2 - 2 - x0) / text_width(design.font, "JOKER", 1.0))
        _text(img, design, "JOKER", x0, y0, cap, colour, m)
    elif design.joker_style == "star":
        size = y1 - y0
        fill(img, [star(0.5)], (x0 + size / 2) * m, (y0 + size / 2) * m, size * m, colour)
        if design.joker_colour:
            fill(img, [star(0.5)], (x0 + size / 2) * m, (y0 + size / 2) * m, 0.45 * size * m, GOLD)
    else:
        size = min(y1 - y0, 1.6 * design.rank_mm)
        _jester(img, design, (x0 + size / 2) * m, y0 * m, size * m)


def _border(img: np.ndarray, design: ZooDesign, m: float) -> None:
    if design.border == "none":
        return
    h, w = img.shape[:2]
    t = max(1, round(0.25 * m))
    insets = [design.border_mm] + ([design.border_mm + 0.8] if design.border == "double" else [])
    for inset in insets:
        b = round(inset * m)
        if design.border != "rounded":
            cv2.rectangle(img, (b, b), (w - 1 - b, h - 1 - b), design.border_colour, t, cv2.LINE_AA)
            continue
        r = round(3.0 * m)
        for (cx, cy), angle in (((b + r, b + r), 180), ((w - 1 - b - r, b + r), 270),
                                ((w - 1 - b - r, h - 1 - b - r), 0), ((b + r, h - 1 - b - r), 90)):
            cv2.ellipse(img, (cx, cy), (r, r), angle, 0, 90, design.border_colour, t, cv2.LINE_AA)
        for p, q in (((b + r, b), (w - 1 - b - r, b)), ((b + r, h - 1 - b), (w - 1 - b - r, h - 1 - b)),
                     ((b, b + r), (b, h - 1 - b - r)), ((w - 1 - b, b + r), (w - 1 - b, h - 1 - b - r))):
            cv2.line(img, p, q, design.border_colour, t, cv2.LINE_AA)


def _pips(img: np.ndarray, design: ZooDesign, code: str, m: float) -> None:
    colour = design.red if code[1] in "hd" else design.black
    polygons = design.shapes.polygons(code[1])
    bx0, by0, bx1, by1 = design.pip_box_mm()
    bw, bh = bx1 - bx0, by1 - by0
    if code[0] == "A":
        size = min(bw * 0.75, bh * 0.45, 32.0)
        fill(img, polygons, CARD_W_MM / 2 * m, CARD_H_MM / 2 * m, size * m, colour)
        return
    size = min(bh / 4.6, bw / 2.8, 14.0)
    pip_w = size * design.shapes.width(code[1])
    for col, row in PIPS[10 if code[0] == "T" else int(code[0])]:
        x = bx0 + pip_w / 2 + col * (bw - pip_w)
        y = by0 + size / 2 + row * (bh - size)
        fill(img, polygons, x * m, y * m, size * m, colour, turned=row > 0.5)


def _court(img: np.ndarray, design: ZooDesign, code: str, m: float) -> None:
    """A court's picture: a coloured framed rectangle, a figure in its top half and the same turned
    a half turn in its bottom half, the suit in its corners."""
    x0, y0, x1, y1 = (round(v * m) for v in design.picture_box_mm())
    tint = tuple(round(0.75 * p + 0.25 * c) for p, c in zip(design.paper, design.court_colours[0]))
    cv2.rectangle(img, (x0, y0), (x1, y1), tint, -1)
    hw, hh = x1 - x0, (y1 - y0) // 2
    half = img[y0:y0 + hh, x0:x1]
    _figure(half, design, code[0], m)
    colour = design.red if code[1] in "hd" else design.black
    size = min(hw, hh) * 0.16
    fill(half, design.shapes.polygons(code[1]), size * 0.9, size * 0.9, size, colour)
    img[y1 - hh:y1, x0:x1] = half[::-1, ::-1]
    _frame(img, design, (x0, y0, x1, y1), m)


def _frame(img: np.ndarray, design: ZooDesign, box: tuple[int, int, int, int], m: float) -> None:
    x0, y0, x1, y1 = box
    cv2.rectangle(img, (x0, y0), (x1, y1), design.black, max(1, round(0.3 * m)), cv2.LINE_AA)
    e = round(0.8 * m)
    cv2.rectangle(img, (x0 + e, y0 + e), (x1 - e, y1 - e), design.court_colours[2], max(1, round(0.2 * m)), cv2.LINE_AA)


def _figure(half: np.ndarray, design: ZooDesign, rank: str, m: float) -> None:
    """A court's figure in the top half of its picture: a robe, a head, a crown or a hat."""
    h, w = half.shape[:2]
    s = min(w, 1.3 * h)
    cx, head_y, r = w * 0.55, h * 0.42, 0.12 * s
    robe = np.array([(cx - 0.2 * s, head_y + r), (cx + 0.2 * s, head_y + r), (cx + 0.45 * s, h), (cx - 0.45 * s, h)])
    cv2.fillPoly(half, [np.round(robe * 16).astype(np.int32)], design.court_colours[1], cv2.LINE_AA, shift=4)
    cv2.line(half, (round(cx), round(head_y + r)), (round(cx), h), design.court_colours[2], max(1, round(0.12 * s)), cv2.LINE_AA)
    cv2.circle(half, (round(cx), round(head_y)), round(r), SKIN, -1, cv2.LINE_AA)
    cv2.circle(half, (round(cx), round(head_y)), round(r), design.black, max(1, round(0.15 * m)), cv2.LINE_AA)
    top = head_y - r
    if rank == "K":  # a crown of points
        crown = np.array([(cx - r, top), (cx - r, top - r), (cx - r / 2, top - r / 2), (cx, top - 1.2 * r),
                          (cx + r / 2, top - r / 2), (cx + r, top - r), (cx + r, top)])
    elif rank == "Q":  # a rounded crown
        crown = np.array([(cx - 0.9 * r, top + 0.2 * r)] + [(cx + 0.9 * r * math.cos(a), top - 0.8 * r * math.sin(a))
                                                             for a in np.linspace(math.pi, 0, 9)] + [(cx + 0.9 * r, top + 0.2 * r)])
    else:  # a jack's flat hat and feather
        crown = np.array([(cx - 1.4 * r, top + 0.2 * r), (cx + 1.1 * r, top - 0.3 * r), (cx + 0.9 * r, top - 0.7 * r),
                          (cx - 1.2 * r, top - 0.4 * r)])
        cv2.line(half, (round(cx + r), round(top - 0.6 * r)), (round(cx + 2 * r), round(top - 1.6 * r)),
                 design.court_colours[0], max(1, round(0.06 * s)), cv2.LINE_AA)
    cv2.fillPoly(half, [np.round(crown * 16).astype(np.int32)], GOLD if rank != "J" else design.court_colours[2], cv2.LINE_AA, shift=4)
    # what the figure holds: a sword, a flower or a staff, across the robe
    cv2.line(half, (round(cx - 0.4 * s), round(h * 0.95)), (round(cx - 0.25 * s), round(head_y - 0.5 * r)),
             design.black, max(1, round(0.04 * s)), cv2.LINE_AA)


def _joker_picture(img: np.ndarray, design: ZooDesign, m: float) -> None:
    """The joker's middle: a jester in a frame, coloured or in the ink alone, the word below it."""
    x0, y0, x1, y1 = (round(v * m) for v in design.picture_box_mm())
    if design.joker_colour:
        tint = tuple(round(0.8 * p + 0.2 * c) for p, c in zip(design.paper, design.court_colours[1]))
        cv2.rectangle(img, (x0, y0), (x1, y1), tint, -1)
    size = min(x1 - x0, (y1 - y0) * 0.6) * 0.7
    _jester(img, design, (x0 + x1) / 2, y0 + (y1 - y0) * 0.12, size)
    cap = min((x1 - x0) * 0.7 / m / text_width(design.font, "JOKER", 1.0), 8.0)
    _text(img, design, "JOKER", (x0 + x1) / 2 / m, (y0 + (y1 - y0) * 0.12 + size * 1.15) / m, cap,
          design.red if design.joker_colour else design.black, m, centred=True)
    _frame(img, design, (x0, y0, x1, y1), m)


def _jester(img: np.ndarray, design: ZooDesign, cx: float, top: float, size: float) -> None:
    """A jester's head ``size`` px tall, its cap's top at ``top``: a three-pointed cap with bells."""
    colours = design.court_colours if design.joker_colour else (design.black, design.red, design.black)
    face_y, r = top + 0.68 * size, 0.22 * size
    for k, dx in enumerate((-0.45, 0.0, 0.45)):  # the cap's three points, each with a bell
        tip = (cx + dx * size, top + (0.08 if dx else 0.0) * size)
        cap = np.array([(cx - 0.8 * r, face_y - 0.6 * r), tip, (cx + 0.8 * r, face_y - 0.6 * r)])
        cv2.fillPoly(img, [np.round(cap * 16).astype(np.int32)], colours[k % 2], cv2.LINE_AA, shift=4)
        bell = GOLD if design.joker_colour else design.black
        cv2.circle(img, (round(tip[0]), round(tip[1])), max(1, round(0.06 * size)), bell, -1, cv2.LINE_AA)
    cv2.circle(img, (round(cx), round(face_y)), round(r), SKIN if design.joker_colour else design.paper, -1, cv2.LINE_AA)
    cv2.circle(img, (round(cx), round(face_y)), round(r), design.black, max(1, round(0.03 * size)), cv2.LINE_AA)
    collar = np.array([(cx - 1.6 * r, face_y + 0.9 * r), (cx, face_y + 1.5 * r), (cx + 1.6 * r, face_y + 0.9 * r),
                       (cx, face_y + 0.7 * r)])
    cv2.fillPoly(img, [np.round(collar * 16).astype(np.int32)], colours[1], cv2.LINE_AA, shift=4)
