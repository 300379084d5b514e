"""Deck learning: rank and suit templates from one upright face image per card.

A deck directory holds ``deck.json`` (what was learned and how) and the templates as
PNG images (``ranks/<rank>-<suit>.png``, ``suits/<suit>-<rank>.png``), so a technician can
look at them. Casinos change deck designs: teach the appliance each design in play.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..game.cards import CARDS, Card, CardError
from .cards import (
    CANON_PX_PER_MM, CANON_SIZE, CORNER_MM, RANK_SIZE, SUIT_SIZE, Glyph, card_quads, corner_of, flatten, index_glyphs,
)

FORMAT = 2  # 2: symbols cut by the darkest channel
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class DeckError(ValueError):
    """A faces folder or deck directory that cannot be used; the message names the file."""


def rank_key(code: str) -> str:
    return "JK" if code == "Jk" else code[0]


def suit_key(code: str) -> str:
    return "*" if code == "Jk" else code[1]


@dataclass
class Templates:
    """One kind's templates stacked for matching all at once: a row per example, grouped by key."""

    keys: list[str]
    starts: np.ndarray  # where each key's rows begin
    images: np.ndarray  # rows: zero-mean, unit-norm template images
    log_aspects: np.ndarray  # of each row's ink (width / height)

    @classmethod
    def of(cls, table: dict[str, list[Glyph]]) -> Templates:
        keys = sorted(table)
        rows = [g for k in keys for g in table[k]]
        starts = np.cumsum([0] + [len(table[k]) for k in keys[:-1]])
        return cls(keys, starts, np.stack([g.image for g in rows]),
                   np.log(np.maximum([g.aspect for g in rows], 1e-3)))


@dataclass
class Deck:
    ranks: dict[str, list[Glyph]]
    suits: dict[str, list[Glyph]]
    source: str = ""

    def __post_init__(self) -> None:
        self.rank_templates = Templates.of(self.ranks)
        self.suit_templates = Templates.of(self.suits)

    def save(self, folder: Path) -> None:
        for kind, table in (("ranks", self.ranks), ("suits", self.suits)):
            (folder / kind).mkdir(parents=True, exist_ok=True)
            for key, glyphs in table.items():
                for n, glyph in enumerate(glyphs):
                    name = f"{'joker' if key in ('JK', '*') else key}-{n}.png"
                    if not cv2.imwrite(str(folder / kind / name), glyph.raw):
                        raise DeckError(f"{folder / kind / name}: cannot write the template")
        meta = {
            "format": FORMAT, "canonical_size": CANON_SIZE, "corner_mm": CORNER_MM,
            "rank_size": RANK_SIZE, "suit_size": SUIT_SIZE,
            "ranks": {k: [{"file": f"ranks/{'joker' if k == 'JK' else k}-{n}.png", "aspect": g.aspect,
                           "redness": g.redness} for n, g in enumerate(v)] for k, v in self.ranks.items()},
            "suits": {k: [{"file": f"suits/{'joker' if k == '*' else k}-{n}.png", "aspect": g.aspect,
                           "redness": g.redness} for n, g in enumerate(v)] for k, v in self.suits.items()},
        }
        (folder / "deck.json").write_text(json.dumps(meta, indent=1))

    @classmethod
    def load(cls, folder: str | Path) -> Deck:
        folder = Path(folder)
        meta_path = folder / "deck.json"
        try:
            meta = json.loads(meta_path.read_text())
        except FileNotFoundError:
            raise DeckError(f"{meta_path}: no deck here; build one with appliance deck learn") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise DeckError(f"{meta_path}: not a deck file: {err}") from None
        if meta.get("format") != FORMAT or list(meta.get("rank_size", [])) != list(RANK_SIZE):
            raise DeckError(f"{meta_path}: made by another version of deck learn; learn the deck again")
        tables = {}
        for kind in ("ranks", "suits"):
            table = {}
            for key, items in meta[kind].items():
                glyphs = []
                for item in items:
                    path = folder / item["file"]
                    raw = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE) if path.is_file() else None
                    if raw is None:
                        raise DeckError(f"{path}: template missing or unreadable")
                    glyphs.append(Glyph(raw, float(item["aspect"]), float(item["redness"])))
                table[key] = glyphs
            tables[kind] = table
        missing = sorted({rank_key(str(c)) for c in CARDS} - set(tables["ranks"])) + \
            sorted({suit_key(str(c)) for c in CARDS} - set(tables["suits"]))
        if missing:
            raise DeckError(f"{meta_path}: no templates for {', '.join(missing)}")
        return cls(tables["ranks"], tables["suits"], str(folder))


def _face_from_image(image: np.ndarray) -> np.ndarray:
    """The card in a face image: the whole image if the card fills it, else the largest card outline."""
    h, w = image.shape[:2]
    if 0.64 <= w / h <= 0.80:
        return cv2.resize(image, CANON_SIZE, interpolation=cv2.INTER_AREA)
    px_per_mm = max(w, h) / 200.0
    cards, odd = card_quads(image, px_per_mm)
    outlines = cards or odd
    if not outlines:
        raise ValueError("no card found in the image")
    return flatten(image, max(outlines, key=cv2.contourArea))


def learn(faces: str | Path) -> Deck:
    """Templates from a folder holding one face per card, named by its code (``As.png``, ``Jk.png``)."""
    folder = Path(faces)
    if not folder.is_dir():
        raise DeckError(f"{folder}: no such folder of card faces")
    files: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        try:
            code = str(Card.parse(path.stem))
        except CardError:
            raise DeckError(f"{path}: the file name is not a card code such as As.png or Jk.png") from None
        if code in files:
            raise DeckError(f"{path}: card {code} already has a face ({files[code].name})")
        files[code] = path
    missing = [str(c) for c in CARDS if str(c) not in files]
    if missing:
        raise DeckError(f"{folder}: no face for {len(missing)} card(s): {', '.join(missing)}")
    ranks: dict[str, list[Glyph]] = {}
    suits: dict[str, list[Glyph]] = {}
    for code, path in files.items():
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise DeckError(f"{path}: not an image OpenCV can read")
        try:
            face = _face_from_image(image)
        except ValueError as err:
            raise DeckError(f"{path}: {err}") from None
        for seen in _as_the_camera_sees(face):
            glyphs = index_glyphs(corner_of(seen))
            if glyphs is None:
                raise DeckError(f"{path}: cannot find a rank above a suit in the top-left index corner")
            ranks.setdefault(rank_key(code), []).append(glyphs[0])
            suits.setdefault(suit_key(code), []).append(glyphs[1])
    return Deck({k: _distinct(v) for k, v in ranks.items()}, {k: _distinct(v) for k, v in suits.items()}, str(folder))


#: A template this close (normalised cross-correlation) to one already kept adds nothing but time:
#: a rank looks the same on every suit of a colour, and a suit on every rank.
SAME_TEMPLATE = 0.99


def _distinct(glyphs: list[Glyph]) -> list[Glyph]:
    kept: list[Glyph] = []
    for glyph in glyphs:
        if all(float(glyph.image @ k.image) < SAME_TEMPLATE or abs(glyph.aspect - k.aspect) > 0.05 for k in kept):
            kept.append(glyph)
    return kept


#: Camera resolutions (px per mm on the felt) each face is also learned at: a 12 MP camera over
#: a 1.8 m table gives about 2.5, and the far side of a tilted camera about 1.9; the templates
#: then match what a flattened card looks like.
CAMERA_PX_PER_MM = (1.6, 2.0, 2.6, 3.5)
#: ... and, at the resolutions where a symbol is only a few pixels high, as a slightly soft lens
#: (or a little motion) blurs it by about a pixel: a blurred 5 closes up like an 8 or a 6, and
#: its template must close up alike.
BLURRED_AT_PX_PER_MM = (1.6, 2.0, 2.6)
CAMERA_BLUR_PX = 1.0


def _as_the_camera_sees(face: np.ndarray) -> list[np.ndarray]:
    """The face as learned, and as it looks flattened from a frame at each camera resolution,
    sharp and blurred."""
    views = [face]
    for px, blur in [(px, 0.0) for px in CAMERA_PX_PER_MM] + [(px, CAMERA_BLUR_PX) for px in BLURRED_AT_PX_PER_MM]:
        small = cv2.resize(face, (round(CANON_SIZE[0] * px / CANON_PX_PER_MM), round(CANON_SIZE[1] * px / CANON_PX_PER_MM)),
                           interpolation=cv2.INTER_AREA)
        if blur:
            small = cv2.GaussianBlur(small, (0, 0), blur)
        views.append(cv2.resize(small, CANON_SIZE, interpolation=cv2.INTER_LINEAR))
    return views
