"""Deck learning: rank and suit templates from one upright face image per card.

A deck directory holds ``deck.json`` (what was learned and how) and the templates as
PNG images (``ranks/<rank>-<suit>.png``, ``suits/<suit>-<rank>.png``), each card's picture between
its index corners (``pictures/<code>.png``, see :mod:`.face_picture`) and the index it was learned
from (``index/<code>.png``), so a technician can look at them. Casinos change deck designs: teach
the appliance each design in play.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from ..game.cards import CARDS, RANK_CHARS, RANK_PLURALS, SUIT_NAMES, Card, CardError
from .card_faces import (CANON_PX_PER_MM, CANON_SIZE, CARD_H_MM, CARD_W_MM, RANK_SIZE, SUIT_SIZE, Glyph, flatten,
                    ink_symbols, quad_px_per_mm, shifted)
from .deck_match import POOR_MATCH, own_poor_match
from .face_picture import face_picture, picture_shape, shows_something
from .index import (WIDE_SEARCH_MM, IndexGeometry, IndexNotFound, in_four_corners, index_glyphs, index_maps,
                    index_patch, locate_index)
from .photo import find_cards
from .printed_lines import learned_lines
from .whole_corner import JOKER, KeptCorners

FORMAT = 5  # 2: symbols cut by the darkest channel; 3: the index's place learned, templates' resolutions; 4: symbols' heights;
# 5: each card's picture between its index corners
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class DeckError(ValueError):
    """A faces folder or deck directory that cannot be used; the message names the file."""


def rank_key(code: str) -> str:
    return "JK" if code == "Jk" else code[0]


def suit_key(code: str) -> str:
    return "*" if code == "Jk" else code[1]


#: A symbol whose ink is taller or shorter than a template's by more than this factor is not the
#: template's symbol: the templates are scaled to one size, and what glare leaves of a 3 (the top
#: of its bowl) then matches a 7 closely. Ink a soft lens fattens or thins is within it.
HEIGHT_SPAN = 1.35


@dataclass
class Templates:
    """One kind's templates stacked for matching all at once: a row per example, grouped by key."""

    keys: list[str]
    groups: np.ndarray  # each row's key (its index in keys)
    images: np.ndarray  # rows: zero-mean, unit-norm template images
    log_aspects: np.ndarray  # of each row's ink (width / height)
    log_heights: np.ndarray  # of each row's ink, in mm on the card
    log_px_per_mm: np.ndarray  # the resolution each row was learned at
    _near: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, table: dict[str, list[Glyph]]) -> Templates:
        keys = sorted(table)
        if not all(table.values()):  # (scores takes each key's best over its run of rows)
            raise ValueError(f"no templates for {', '.join(k for k in keys if not table[k])}")
        rows = [g for k in keys for g in table[k]]
        groups = np.repeat(np.arange(len(keys)), [len(table[k]) for k in keys])
        return cls(keys, groups, np.stack([g.image for g in rows]),
                   np.log(np.maximum([g.aspect for g in rows], 1e-3)), np.log([g.height_mm for g in rows]),
                   np.log([g.px_per_mm for g in rows]))

    def fits(self, glyph: Glyph) -> bool:
        """The glyph's ink is as tall as some template's, within HEIGHT_SPAN: of a size this deck prints."""
        return bool(np.any(np.abs(np.log(glyph.height_mm) - self.log_heights) <= np.log(HEIGHT_SPAN)))

    def scores(self, glyphs: list[Glyph], px_per_mm: float, span: float) -> np.ndarray:
        """For each glyph (a row), each key's best score (in ``keys`` order; -1 for a key with none)
        over the glyph's one-pixel shifts, among the templates learned at about the card's resolution
        (``near``, then ``best``)."""
        return self.near(px_per_mm, span).best(glyphs)

    def best(self, glyphs: list[Glyph]) -> np.ndarray:
        """For each glyph (a row), each key's best score among these templates (see ``scores``); a
        template of another shape (aspect) or size (height) loses 0.2 for each. The glyphs are scored
        together: one product for all their shifts."""
        shifts = shifted(glyphs)
        scores = (self.images @ shifts.T).reshape(len(self.images), len(glyphs), -1).max(axis=2)
        aspects = np.log(np.maximum([glyph.aspect for glyph in glyphs], 1e-3))
        heights = np.log([glyph.height_mm for glyph in glyphs])
        off_shape = np.abs(aspects[None, :] - self.log_aspects[:, None]) > 0.35
        off_size = np.abs(heights[None, :] - self.log_heights[:, None]) > np.log(HEIGHT_SPAN)
        # (each key has rows among the near ones, together: its best is the max over its run of rows)
        best = np.maximum.reduceat(scores - 0.2 * off_shape - 0.2 * off_size, self.starts, axis=0)
        return np.maximum(best, -1.0).T

    @cached_property
    def starts(self) -> np.ndarray:
        """Where each key's run of rows starts (rows are grouped by key, in key order)."""
        return np.flatnonzero(np.diff(self.groups, prepend=-1))

    def near(self, px_per_mm: float, span: float) -> Templates:
        """The templates learned at a resolution within ``span`` (a factor) of ``px_per_mm``, and of
        a key with none there, its nearest: only those are compared with a card seen at it (a glyph
        is matched against a third of the rows), kept for the next card seen alike. (A template
        learned at 2.6 px/mm that matches one of 2.0 is not kept, see ``_distinct``: a jack seen
        at 2.8 is still compared with a jack.)"""
        distance = np.abs(self.log_px_per_mm - np.log(px_per_mm))
        nearest = np.full(len(self.keys), np.inf)
        np.minimum.at(nearest, self.groups, distance)
        usable = distance <= np.maximum(np.log(span), nearest[self.groups] + 1e-6)
        key = usable.tobytes()
        if key not in self._near:
            self._near[key] = Templates(self.keys, self.groups[usable], np.ascontiguousarray(self.images[usable]),
                                        self.log_aspects[usable], self.log_heights[usable], self.log_px_per_mm[usable])
        return self._near[key]


#: A card's symbols are compared with templates learned within this factor of its resolution, as
#: the reader compares them (``reader.Thresholds.resolution_span``).
OWN_SPAN = 1.3

#: Faces photographed coarser than this teach templates too soft for some designs: deck-b taught
#: from its photos shrunk to 2.2 px/mm (as the overhead camera sees a card lying on the table) held
#: most bench tables of its own cards as another deck's and named 2 of 1,960 spread cards wrongly,
#: where taught from them shrunk to 4 px/mm it read as from the photos as they are.
CLEAR_PHOTO_PX_PER_MM = 3.0


@dataclass
class Deck:
    ranks: dict[str, list[Glyph]]
    suits: dict[str, list[Glyph]]
    index: IndexGeometry
    source: str = ""
    refused: dict[str, str] = field(default_factory=dict)  # face file -> why it was not learned
    corners: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # code -> its located index
    pictures: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # code -> its middle (face_picture)
    photo_px_per_mm: float | None = None  # the resolution its faces' photos showed the cards at (median)
    untaught: dict[str, str] = field(default_factory=dict)  # code -> why the deck cannot name it (see _untaught)
    # code -> the index corner of an untaught card whose face was found, or of a face refused as
    # looking like another card's (read from its rank's and suit's other faces): a card that looks
    # like it is not named as another
    witnesses: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    joker_corner: np.ndarray | None = field(default=None, repr=False)  # a joker taught by its whole corner
    poor_match: float = POOR_MATCH  # a card matching under this matches the deck poorly (``own_poor_match``)

    def __post_init__(self) -> None:
        self.rank_templates = Templates.of(self.ranks)
        self.suit_templates = Templates.of(self.suits)

    @property
    def complete(self) -> bool:
        """Every card given a face can be named (a deck taught without a joker face is complete
        without it: a joker then reads as unreadable)."""
        return not self.untaught

    @cached_property
    def lining(self) -> tuple[Lining, Lining]:
        """How this deck lines its index's symbols up (``index_lining``): the rank and suit together, and the suit."""
        return index_lining(self.corners, self.index)

    @cached_property
    def kept_corners(self) -> KeptCorners:
        """The corners this deck keeps, to compare a card's whole corner with (:mod:`.whole_corner`)."""
        return KeptCorners(self.corners, self.witnesses, self.joker_corner, joker_only="JK" not in self.ranks)

    def not_taught(self, code: str, corners: list[np.ndarray] | None = None) -> str | None:
        """Why a card its symbols name as ``code`` is not named: the deck cannot name that card, or its
        index ``corners`` (as cut at ``index.box_mm``) look at least as much like an untaught card's
        (or a joker's taught by its corner, or a face's refused as looking like another card's: a Js
        whose J touched its spade, refused as the Jd, was read as the Jc from the other faces) as
        like its own (a card of a rank no face taught is named
        as another rank, if at all: its corner tells it). None where the card may be named."""
        if code in self.untaught:
            return f"not taught: {code} ({self.untaught[code]})"
        rival = self.kept_corners.rival(code, corners) if corners else None
        if rival is None:
            return None
        like, score, own = rival
        why = self.witness_why(like) if like in self.witnesses else "the joker"
        refused_only = like in self.witnesses and like not in self.untaught  # (a card the deck names from other faces)
        return (f"{'' if refused_only else 'not taught: '}the index reads {code} but looks more like {like} "
                f"({score:.2f} against {own:.2f}), {why}")

    def witness_why(self, code: str) -> str:
        """Why the deck keeps ``code``'s index corner to compare cards with (``witnesses``)."""
        if code in self.untaught:
            return f"which this deck was not taught ({self.untaught[code]})"
        why = next(why for name, why in self.refused.items() if Path(name).stem == code)
        return f"whose face was refused ({why})"

    def own_match(self, glyphs: tuple[Glyph, Glyph] | None, px_per_mm: float) -> float | None:
        """How closely a card's rank and suit (None: none found) seen at ``px_per_mm`` match this deck:
        the lower of the best rank's and best suit's score, among templates learned within OWN_SPAN of
        its resolution (the reader's ``Thresholds.resolution_span``)."""
        if glyphs is None:
            return None
        rank, suit = glyphs
        return float(min(self.rank_templates.near(px_per_mm, OWN_SPAN).best([rank]).max(),
                         self.suit_templates.near(px_per_mm, OWN_SPAN).best([suit]).max()))

    @property
    def photo_advice(self) -> str | None:
        """What to tell whoever taught the deck where its faces' photos showed the cards too coarse
        to teach it well (None where they did not, or the deck does not know)."""
        if self.photo_px_per_mm is None or self.photo_px_per_mm >= CLEAR_PHOTO_PX_PER_MM:
            return None
        return (f"the photos show the cards at {self.photo_px_per_mm:.1f} px/mm, under the {CLEAR_PHOTO_PX_PER_MM} "
                "px/mm a deck is taught well from: its cards may be taken for another deck's or left unread; "
                "photograph each card closer, filling most of the photo, and teach the deck again")

    def shows_index(self, glyphs: tuple[Glyph, Glyph] | None) -> bool:
        """The rank and suit found where this deck prints its index in a corner (``index_glyphs``)
        are each of a size the deck prints (not a sliver of a pip, or a line of a court's picture)."""
        return glyphs is not None and self.rank_templates.fits(glyphs[0]) and self.suit_templates.fits(glyphs[1])

    def save(self, folder: Path) -> None:
        for kind, table in (("ranks", self.ranks), ("suits", self.suits)):
            (folder / kind).mkdir(parents=True, exist_ok=True)
            for key, glyphs in table.items():
                for n, glyph in enumerate(glyphs):
                    name = f"{'joker' if key in ('JK', '*') else key}-{n}.png"
                    if not cv2.imwrite(str(folder / kind / name), glyph.raw):
                        raise DeckError(f"{folder / kind / name}: cannot write the template")
        (folder / "index").mkdir(parents=True, exist_ok=True)
        for code, corner in self.corners.items():  # what was learned from, for a technician to check
            cv2.imwrite(str(folder / "index" / f"{code}.png"), corner)
        for kind, images in (("pictures", self.pictures), ("untaught", self.witnesses)):
            (folder / kind).mkdir(parents=True, exist_ok=True)
            for code, image in images.items():
                if not cv2.imwrite(str(folder / kind / f"{code}.png"), image):
                    raise DeckError(f"{folder / kind / code}.png: cannot write the image")
        meta = {
            "format": FORMAT, "canonical_size": CANON_SIZE, "index": self.index.to_json(),
            "rank_size": RANK_SIZE, "suit_size": SUIT_SIZE, "refused": self.refused,
            "photo_px_per_mm": self.photo_px_per_mm, "poor_match": self.poor_match,
            "pictures": {code: f"pictures/{code}.png" for code in self.pictures},
            "learned": sorted(self.corners), "untaught": self.untaught,
            "witnesses": {code: f"untaught/{code}.png" for code in self.witnesses},
            "joker_corner": None if self.joker_corner is None else "joker.png",
            "ranks": {k: [{"file": f"ranks/{'joker' if k == 'JK' else k}-{n}.png", "aspect": g.aspect,
                           "height_mm": g.height_mm, "redness": g.redness, "px_per_mm": g.px_per_mm} for n, g in enumerate(v)] for k, v in self.ranks.items()},
            "suits": {k: [{"file": f"suits/{'joker' if k == '*' else k}-{n}.png", "aspect": g.aspect,
                           "height_mm": g.height_mm, "redness": g.redness, "px_per_mm": g.px_per_mm} for n, g in enumerate(v)] for k, v in self.suits.items()},
        }
        if self.joker_corner is not None and not cv2.imwrite(str(folder / "joker.png"), self.joker_corner):
            raise DeckError(f"{folder / 'joker.png'}: cannot write the image")
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
        if not isinstance(meta, dict):
            raise DeckError(f"{meta_path}: not a deck file: no object at its top")
        if meta.get("format") != FORMAT or list(meta.get("rank_size", [])) != list(RANK_SIZE):
            raise DeckError(f"{meta_path}: made by another version of deck learn; learn the deck again")
        try:
            return cls._of(folder, meta_path, meta)
        except DeckError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:  # a file edited or cut short by hand
            raise DeckError(f"{meta_path}: a damaged deck file ({type(err).__name__}: {err}); "
                            "learn the deck again") from None

    @classmethod
    def _of(cls, folder: Path, meta_path: Path, meta: dict) -> Deck:
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
                    glyphs.append(Glyph(raw, float(item["aspect"]), float(item["height_mm"]), float(item["redness"]),
                                          float(item["px_per_mm"])))
                if glyphs:  # (a key edited down to no templates is missing: refused below)
                    table[key] = glyphs
            tables[kind] = table
        untaught = _untaught_of_json(meta.get("untaught", {}))
        # a deck taught without a joker reports a joker as unreadable; a card whose rank or suit has no
        # templates is one the deck was taught without, or the file was edited down
        missing = sorted({rank_key(str(c)) for c in CARDS if not c.is_joker and str(c) not in untaught} - set(tables["ranks"])) + \
            sorted({suit_key(str(c)) for c in CARDS if not c.is_joker and str(c) not in untaught} - set(tables["suits"]))
        if missing:
            raise DeckError(f"{meta_path}: no templates for {', '.join(missing)}")
        geometry = IndexGeometry.of_json(meta["index"])
        photo_px = meta.get("photo_px_per_mm")
        witnesses = _load_images(folder, meta.get("witnesses", {}), "index corner", cv2.IMREAD_COLOR)
        taught = set(witnesses) - set(untaught) - {Path(name).stem for name in meta.get("refused", {})}
        if taught:
            raise DeckError(f"{meta_path}: index corners kept of cards whose faces were learned: {', '.join(sorted(taught))}")
        joker = meta.get("joker_corner")
        joker = None if joker is None else _load_images(folder, {JOKER: joker}, "index corner", cv2.IMREAD_COLOR)[JOKER]
        # the taught cards' corners are compared with a card that looks like an untaught one, the joker,
        # or another taught card (``KeptCorners``)
        corners = _load_images(folder, {c: f"index/{c}.png" for c in meta.get("learned", [])}, "index corner",
                               cv2.IMREAD_COLOR)
        return cls(tables["ranks"], tables["suits"], geometry, str(folder), dict(meta.get("refused", {})), corners,
                   pictures=_load_images(folder, meta["pictures"], "picture", shape=picture_shape(geometry.box_mm)),
                   photo_px_per_mm=None if photo_px is None else float(photo_px), untaught=untaught, witnesses=witnesses,
                   joker_corner=joker, poor_match=float(meta.get("poor_match", POOR_MATCH)))


@dataclass(frozen=True)
class Lining:
    """Where a deck lines up one of its index's parts (the rank and the suit together, or the suit)
    from card to card: its ink's left edge (``share`` 0), its middle (0.5) or its right edge (1),
    ``at_mm`` from the face's left edge. A maker centres a narrow J over its suit and a wide 10 over
    its own, or starts every rank and suit at one left edge: the index's place on a card is told
    from its ink by that line, not by the middle of the widest symbols' ink."""

    share: float
    at_mm: float

    def origin(self, left_mm: float, right_mm: float) -> float:
        """Where the face's left edge lies, for that part's ink seen from ``left_mm`` to ``right_mm``."""
        return left_mm + self.share * (right_mm - left_mm) - self.at_mm


#: Fewer learned corners than this showing both symbols tell no lining: the middle of the index's ink is used.
LINING_MIN_CARDS = 8


def index_lining(corners: dict[str, np.ndarray], index: IndexGeometry) -> tuple[Lining, Lining]:
    """How the learned index ``corners`` (cut at ``index.box_mm``) line their symbols up: for the
    rank and suit together and for the suit alone, the edge or middle of their ink (of left, middle,
    right) whose place varies least from card to card (its median absolute deviation; a court's
    rank joined to its picture, a joker, is an outlier), and its median place. Symbols are the ink
    pieces whose middles lie in the rank's and the suit's learned regions. Where too few corners
    show both (LINING_MIN_CARDS), the middle of the index's learned ink."""
    m = CANON_PX_PER_MM
    left, top = index.box_mm[:2]
    parts: tuple[list, list] = ([], [])
    for corner in corners.values():
        found = ink_symbols(corner)
        if found is None:
            continue
        pieces = [[(left + b[2] / m, left + b[3] / m) for b in found[3]
                   if region[0] <= left + (b[2] + b[3]) / 2 / m <= region[2] and region[1] <= top + (b[0] + b[1]) / 2 / m <= region[3]]
                  for region in (index.rank_mm, index.suit_mm)]
        if all(pieces):
            for kept, symbols in zip(parts, (pieces[0] + pieces[1], pieces[1])):
                kept.append((min(a for a, _ in symbols), max(b for _, b in symbols)))
    defaults = ((index.symbols_mm[0] + index.symbols_mm[2]) / 2, (index.suit_mm[0] + index.suit_mm[2]) / 2)
    if len(parts[0]) < LINING_MIN_CARDS:
        return Lining(0.5, defaults[0]), Lining(0.5, defaults[1])
    linings = []
    for extents in parts:
        ink = np.array(extents)
        places = {share: ink[:, 0] + share * (ink[:, 1] - ink[:, 0]) for share in (0.5, 0.0, 1.0)}
        spread = {share: float(np.median(np.abs(at - np.median(at)))) for share, at in places.items()}
        share = min(spread, key=spread.__getitem__)  # (the middle, where edges are as steady)
        linings.append(Lining(share, float(np.median(places[share]))))
    return linings[0], linings[1]


def _untaught_of_json(data) -> dict[str, str]:
    """A deck file's untaught cards (code -> why), their codes checked."""
    if not isinstance(data, dict) or not all(isinstance(why, str) for why in data.values()):
        raise ValueError("untaught is not a table of card codes and reasons")
    return {str(Card.parse(code)): why for code, why in data.items()}


def _load_images(folder: Path, files: dict[str, str], what: str, flags: int = cv2.IMREAD_GRAYSCALE,
                 shape: tuple[int, int] | None = None) -> dict[str, np.ndarray]:
    """A deck's images of ``what`` (code -> file in ``folder``), each of ``shape`` where given."""
    images = {}
    for code, file in files.items():
        path = folder / file
        image = cv2.imread(str(path), flags) if path.is_file() else None
        if image is None:
            raise DeckError(f"{path}: {what} missing or unreadable")
        if shape is not None and image.shape != shape:
            raise DeckError(f"{path}: a {what} of {image.shape[1]}x{image.shape[0]} px, where this deck's are "
                            f"{shape[1]}x{shape[0]}")
        images[code] = image
    return images


def face_from_photo(image: np.ndarray) -> np.ndarray:
    """The card in a photo of one card, flattened upright: the largest whole card outline the
    finder sees with an edge on two sides (see ``card_in_photo``), or the whole image when it is the
    card itself (a scan, a rendered face)."""
    return card_in_photo(image)[0]


#: A card photographed on a light cloth fills at least this share of the photo (one to teach from is
#: taken near): a scan of a face, light to its edges too, shows no four-sided shape of paper over
#: 0.06 of it (a court's picture, the paper between pips) on seven drawn designs.
LIGHT_CLOTH_CARD_SHARE = 0.15


def card_in_photo(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The card in a photo of one card, flattened upright (see ``face_from_photo``), and the
    resolution the photo shows it at (px/mm across its width)."""
    h, w = image.shape[:2]
    # a whole card first; else one a little cut by the photo's edge (its index is checked later)
    outlines = [o for o in find_cards(image) if cv2.contourArea(o.corners) >= 0.05 * h * w]
    # of those, one with an edge on two sides at least: a photo of a card on a light table may show
    # a shape its shadow and the table's shading bound, larger than the card
    best = max(outlines, key=lambda o: (not o.cut, o.edges >= 2, cv2.contourArea(o.corners)), default=None)
    # An image that is the card itself (light to its edges) may show a printed frame or a pip as
    # an outline; a photo of a card on a light cloth shows a card of a card's share of the photo.
    on_light_cloth = best is not None and LIGHT_CLOTH_CARD_SHARE <= cv2.contourArea(best.corners) / (h * w) <= 0.75
    # An image of a card's own shape, light to its edges, is the card whatever it shows inside: a
    # court's framed picture fills more of it than LIGHT_CLOTH_CARD_SHARE.
    card_shaped = _card_shaped(min(w, h) / max(w, h))
    if 0.64 <= min(w, h) / max(w, h) <= 0.80 and _paper_to_the_edge(image) and (card_shaped or not on_light_cloth):
        image = image if h > w else cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        return cv2.resize(image, CANON_SIZE, interpolation=cv2.INTER_AREA), min(w, h) / CARD_W_MM
    if best is None:
        raise ValueError("no whole card found in the photo")
    return flatten(image, best.corners, ordered=True), quad_px_per_mm(best.corners)


#: The shapes (width / height) of a poker (63 x 88 mm) and a bridge card (57 x 89 mm): an artwork or a
#: scan cropped to the card has one within CROPPED_SHAPE (a crop by hand); a camera's photo is 3:4
#: (0.75) or 9:16 (0.56), 5% and more away.
CARD_SHAPES, CROPPED_SHAPE = (CARD_W_MM / CARD_H_MM, 57 / 89), 0.03


def _card_shaped(aspect: float) -> bool:
    """``aspect`` (the shorter side over the longer) is a card's, as cropped to its edge.

    >>> _card_shaped(1024 / 1430), _card_shaped(3 / 4)
    (True, False)
    """
    return any(abs(aspect / shape - 1) <= CROPPED_SHAPE for shape in CARD_SHAPES)


#: An image cropped to the card's edge (a scan, a maker's artwork) shows whatever lay beyond the
#: card's rounded corners there, white or black: a corner of 3.2 mm radius takes 1.3 mm of each end
#: of a band 0.6 mm deep along a 63 mm edge, 4% of the band; a photo of a card on a cloth shows the
#: cloth along most of it.
CORNERS_SHARE = 0.15


def _paper_to_the_edge(image: np.ndarray) -> bool:
    """The image is the card itself (a scan, a rendered face, a maker's artwork): its outermost
    pixels all round, but for its corners (CORNERS_SHARE), are as light as card stock, where a photo
    shows the table (a printed border inside is no card edge)."""
    darkest = image.min(axis=2)
    band = max(1, min(image.shape[:2]) // 100)
    edge = np.concatenate([darkest[:band].ravel(), darkest[-band:].ravel(), darkest[:, :band].ravel(), darkest[:, -band:].ravel()])
    return float(np.percentile(edge, 100 * CORNERS_SHARE)) >= 0.8 * float(np.percentile(darkest, 90))


def _face_files(folder: Path) -> dict[str, Path]:
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
    missing = [str(c) for c in CARDS if str(c) not in files and str(c) != "Jk"]
    if missing:
        raise DeckError(f"{folder}: no face for {len(missing)} card(s): {', '.join(missing)}")
    return files


def learn(faces: str | Path, pictures: Path | None = None) -> Deck:
    """Templates from a folder holding one photo per card, named by its code (``As.jpg``, and
    ``Jk.png`` for a deck with a joker): the card anywhere in the photo, at any angle. Where the
    design prints its index is learned from the 52 faces first. A face whose card cannot be found,
    whose index cannot be cut, or whose rank or suit looks like another's, is refused (named, with
    why, and its index corner written to ``pictures``); the deck is learned from the rest, and a card
    it cannot name is listed as ``untaught`` (see ``Deck.complete``)."""
    folder = Path(faces)
    files = _face_files(folder)
    # Finding the card in each photo is most of the time: the photos are taken in threads, one a core
    # (OpenCV lets go of the interpreter's lock while it works).
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        found = dict(zip(files, pool.map(_face_or_why, files.values())))
    refused = {files[code].name: why for code, why in found.items() if isinstance(why, str)}
    flat = {code: face for code, (face, _) in _found(found).items()}
    try:
        try:
            geometry = locate_index(maps := index_maps(flat), lambda: index_maps(flat, bold=True))
        except IndexNotFound:  # (an index reaching past the card's middle: see WIDE_SEARCH_MM)
            geometry = locate_index(maps := index_maps(flat, search_mm=WIDE_SEARCH_MM),
                                    lambda: index_maps(flat, bold=True, search_mm=WIDE_SEARCH_MM))
    except IndexNotFound as err:
        where = ""
        if pictures is not None and flat:
            pictures.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(pictures / "index-maps.png"), maps.picture())
            where = f" (what was seen: {pictures / 'index-maps.png'})"
        raise DeckError(f"{folder}: cannot locate the index: {err}{where}") from None
    corners = {code: index_patch(face, geometry) for code, face in flat.items()}
    lines = learned_lines([(rank_key(code), corner) for code, corner in corners.items() if code != JOKER], geometry.box_mm[:2],
                          geometry.reaches)
    geometry = replace(geometry, four_corners=in_four_corners(flat, geometry), lines=lines)
    glyphs: dict[str, list[tuple[Glyph, Glyph]]] = {}
    for code, face in flat.items():
        views = [(px, index_glyphs(index_patch(seen, geometry), geometry, px)) for px, seen in _as_the_camera_sees(face)]
        if views[0][1] is None:
            refused[files[code].name] = "no rank and suit ink in the index region " + _box(geometry.box_mm)
        else:
            glyphs[code] = [None if v is None else (replace(v[0], px_per_mm=px), replace(v[1], px_per_mm=px)) for px, v in views]
    mislabelled = _misfits(glyphs)
    for code, why in mislabelled.items():
        refused[files[code].name] = why
        del glyphs[code]
    joker = _joker_corner(flat, glyphs, corners, geometry, refused, files)
    _drop_stray_views(glyphs)
    if pictures is not None:
        _write_refused(pictures, {Path(name).stem for name in refused}, corners)
    ranks: dict[str, list[Glyph]] = {}
    suits: dict[str, list[Glyph]] = {}
    for code, views in glyphs.items():
        for rank, suit in filter(None, views):
            ranks.setdefault(rank_key(code), []).append(rank)
            suits.setdefault(suit_key(code), []).append(suit)
    if len(ranks) < 2 or len(suits) < 2:
        reasons = "; ".join(f"{name}: {why}" for name, why in sorted(refused.items()))
        raise DeckError(f"{folder}: too few faces learned to tell cards apart ({len(glyphs)} of {len(files)}): {reasons}")
    refusals = {Path(name).stem: why for name, why in refused.items()}
    untaught = _untaught(files, {c: why for c, why in refusals.items() if c not in mislabelled}, ranks, suits,
                         {JOKER} if joker is not None else set())
    deck = Deck({k: _distinct(v) for k, v in ranks.items()}, {k: _distinct(v) for k, v in suits.items()}, geometry,
                str(folder), refused, {c: corners[c] for c in glyphs}, _pictures({c: flat[c] for c in glyphs}, geometry),
                float(np.median([px for _, px in _found(found).values()])), untaught,
                {c: corners[c] for c in {*untaught, *mislabelled} if c in corners}, joker)
    deck.poor_match = own_poor_match({c: corner for c, corner in deck.corners.items() if c != JOKER}, geometry,
                                     deck.own_match)
    return deck


def _joker_corner(flat: dict[str, np.ndarray], glyphs: dict, corners: dict[str, np.ndarray], geometry: IndexGeometry,
                  refused: dict[str, str], files: dict[str, Path]) -> np.ndarray | None:
    """The joker's whole index corner, where its corner, as the camera sees it, is clearly none of
    the other faces' (:mod:`.whole_corner`): it names the joker where the symbols do not (a joker
    printing no rank and suit: the word JOKER, a star, a picture, whose pieces may pass for symbols
    on one view and not on the next), and refuses a card that looks more like the joker than like
    itself. Symbols that look like another card's (the J of JOKER, in the ranks' font, would leave
    every jack unclear) are not learned. Its refusal is dropped where the corner teaches it, or says
    why not. None where it does not."""
    if JOKER not in flat:
        return None
    if JOKER in glyphs and _clashes(glyphs):
        del glyphs[JOKER]
    kept = KeptCorners({c: corners[c] for c in glyphs if c != JOKER}, {}, corners[JOKER])
    for px, view in _as_the_camera_sees(flat[JOKER]):
        if kept.joker_named([index_patch(view, geometry)]) is None:
            if JOKER not in glyphs:
                scores = kept.scores([index_patch(view, geometry)])
                like = max((c for c in scores if c != JOKER), key=scores.__getitem__)
                refused[files[JOKER].name] = (f"its index corner, seen at {px:.1f} px/mm, is not clearly the "
                                              f"joker's ({scores[JOKER]:.2f}; {like} {scores[like]:.2f})")
            return None
    refused.pop(files[JOKER].name, None)
    return corners[JOKER]


def _clashes(glyphs: dict) -> bool:
    """The joker's rank or suit symbol (learned sharp) matches another card's at JOKER_CLASH or
    better: another card's symbol would then match the joker's about as well as its own."""
    joker = glyphs[JOKER][0]
    for part in (0, 1):
        moved = shifted([joker[part]])
        if any(float((moved @ views[0][part].image).max()) >= JOKER_CLASH for code, views in glyphs.items() if code != JOKER):
            return True
    return False


#: A card's symbols match a clear deck's at 0.94 and more (deck_match.POOR_MATCH); the reader names
#: one whose distance (1 - score) is at most 0.7 of the runner-up's: a joker's symbol matching
#: another card's this closely would leave that card unclear.
JOKER_CLASH = 0.9


def _face_of(path: Path) -> tuple[np.ndarray, float]:
    """The card in one photo to teach from, flattened, and the resolution the photo shows it at."""
    try:
        return card_in_photo(_read_face_image(path))
    except ValueError as err:
        raise DeckError(f"{path}: {err}") from None


#: Files that may carry transparency (a maker's artwork); a JPEG never does, and is read turned as
#: its camera says (EXIF), which an image read with its alpha is not.
ALPHA_SUFFIXES = {".png", ".webp", ".tif", ".tiff"}


def _read_face_image(path: Path) -> np.ndarray:
    """A face's file as a colour image: an artwork with transparency cut to its opaque part (the card),
    what is transparent there made paper-coloured."""
    flags = cv2.IMREAD_UNCHANGED if path.suffix.lower() in ALPHA_SUFFIXES else cv2.IMREAD_COLOR
    image = cv2.imread(str(path), flags)
    if image is None:
        raise ValueError("not an image OpenCV can read")
    if image.dtype != np.uint8:  # 16 bits a channel
        image = (image // 257).astype(np.uint8) if image.dtype == np.uint16 else cv2.convertScaleAbs(image)
    if image.ndim == 2:  # (OpenCV reads a grey image with alpha as BGRA)
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return _opaque(image) if image.shape[2] == 4 else image


def _opaque(image: np.ndarray) -> np.ndarray:
    """A BGRA image cut to the box of its opaque pixels (an artwork padded with transparency, or
    cropped to the card with its rounded corners transparent) and laid on the card's paper colour."""
    alpha = image[:, :, 3]
    ys, xs = np.nonzero(alpha >= 128)
    if not len(xs):
        raise ValueError("the image is transparent all over: no card in it")
    card = image[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    opaque = card[:, :, 3] >= 128
    paper = np.percentile(card[:, :, :3][opaque], 90, axis=0)
    weight = card[:, :, 3:].astype(np.float32) / 255
    return np.round(card[:, :, :3] * weight + paper * (1 - weight)).astype(np.uint8)


def _face_or_why(path: Path) -> tuple[np.ndarray, float] | str:
    """``_face_of``, or why the card could not be taken from its photo."""
    try:
        return _face_of(path)
    except DeckError as err:
        return str(err).removeprefix(f"{path}: ")


def _found(found: dict[str, tuple[np.ndarray, float] | str]) -> dict[str, tuple[np.ndarray, float]]:
    """The faces taken from their photos (``_face_or_why``), without those that could not be."""
    return {code: face for code, face in found.items() if not isinstance(face, str)}


def _write_refused(pictures: Path, codes: set[str], corners: dict[str, np.ndarray]) -> None:
    """Each refused face's index corner, where its card was found, for a technician to look at."""
    pictures.mkdir(parents=True, exist_ok=True)
    for old in pictures.glob("refused-*.png"):  # from an earlier learning
        old.unlink()
    for code in sorted(codes & set(corners)):
        cv2.imwrite(str(pictures / f"refused-{code}.png"), corners[code])


def _untaught(files: dict[str, Path], refusals: dict[str, str], ranks: dict, suits: dict,
              by_corner: set[str]) -> dict[str, str]:
    """The cards given a face that the deck cannot name, each with why: its own face was refused
    for want of a card or an index (a face refused as a photo of another card says nothing of how
    its card looks: it is read from its rank's and suit's other faces), or no face of its rank or
    suit was learned; but for a card taught ``by_corner`` (the joker, :mod:`.whole_corner`)."""
    out = {}
    for code in files:
        if code in by_corner:
            continue
        if code in refusals:
            out[code] = f"its face was refused: {refusals[code]}"
        elif rank_key(code) not in ranks:
            out[code] = f"no face of the {_named(0, rank_key(code))} was learned"
        elif suit_key(code) not in suits:
            out[code] = f"no face of the {_named(1, suit_key(code))} was learned"
    return out


def _pictures(faces: dict[str, np.ndarray], geometry: IndexGeometry) -> dict[str, np.ndarray]:
    """Each face's picture between its index corners, where it shows ink to compare (a face whose
    middle glare washed out has none: its card is then never told by its picture)."""
    pictures = {code: face_picture(face, geometry.box_mm) for code, face in faces.items()}
    return {code: picture for code, picture in pictures.items() if shows_something(picture)}


def _box(box) -> str:
    return "({:.1f}, {:.1f})-({:.1f}, {:.1f}) mm".format(*box)


#: A face's symbol must match the other faces of its own rank (suit) at least this much better
#: than any other rank (suit): a photo filed under the wrong name, or a misprint, is not learned.
MISFIT_MARGIN = 0.05


def _misfits(glyphs: dict[str, list[tuple[Glyph, Glyph] | None]]) -> dict[str, str]:
    """The faces whose rank or suit symbol looks more like another rank's or suit's (compared with
    the other faces, each as learned sharp) than like its own, each with why. A suit is compared with the
    suits of the other ranks only, and a rank with the ranks of the other suits: where a rank touches
    the suit printed below it, the four cards of the rank share how the one was cut from the other
    (a J's foot over the suit's point leaves the same stub on the Js's spade as on the Jd's
    diamond, and the spade matched the diamond better than the other spades); a face filed under
    the wrong name still matches the other ranks' symbols of its true suit, and the other suits'
    of its true rank."""
    out = {}
    for part, key in ((0, rank_key), (1, suit_key)):
        sharp = {code: views[0][part] for code, views in glyphs.items()}
        same_cut = suit_key if part == 0 else rank_key  # (the other symbol's key: its cards are cut alike)
        for code, glyph in sharp.items():
            best: dict[str, float] = {}
            moved = shifted([glyph])  # as the reader compares: a pixel off either way
            for other, other_glyph in sharp.items():
                if other != code and same_cut(other) != same_cut(code):
                    k = key(other)
                    best[k] = max(best.get(k, -1.0), float((moved @ other_glyph.image).max()))
            own = best.get(key(code))
            rival = max((k for k in best if k != key(code)), key=best.get, default=None)
            if own is not None and rival is not None and best[rival] > own + MISFIT_MARGIN:
                out.setdefault(code, _misfit_reason(code, part, rival, best[rival], own))
    return out


def _drop_stray_views(glyphs: dict[str, list[tuple[Glyph, Glyph] | None]]) -> None:
    """Each face's views as a camera sees it (all but the first, the face as learned) whose rank
    or suit looks more like another's, seen alike, than like its own are not learned: a club
    blurred into a blob like a spade's, or a symbol whose window moved onto its neighbour's ink
    (see ``index._registered``), would match a card of another suit, or another deck, too well."""
    for view in range(1, max(map(len, glyphs.values()), default=0)):
        seen = {code: [views[view]] for code, views in glyphs.items() if views[view] is not None}
        for code in _misfits(seen):
            glyphs[code][view] = None


def _named(part: int, key: str) -> str:
    """A template key as a technician reads it, in the plural: a rank's (``"K"``: kings) or a suit's
    (``"h"``: hearts); the joker's (``"JK"``, ``"*"``) are the jokers.

    >>> _named(0, "6"), _named(1, "h"), _named(1, "*")
    ('sixes', 'hearts', 'jokers')
    """
    if key in ("JK", "*"):
        return "jokers"
    return RANK_PLURALS[RANK_CHARS.index(key) + 2] if part == 0 else SUIT_NAMES[key]


def _misfit_reason(code: str, part: int, rival: str, rival_score: float, own: float) -> str:
    """Why a face was refused, for a technician: the card it looks like, and the scores.

    >>> _misfit_reason("Jh", 1, "s", 0.97, 0.5)
    'it looks like another card, Js: its suit matches the spades (0.97), not the hearts (0.50); is the photo filed under the right name?'
    """
    what = "rank" if part == 0 else "suit"
    other = _other_card(code, part, rival)
    card = "" if other is None else f", {other}"
    return (f"it looks like another card{card}: its {what} matches the {_named(part, rival)} ({rival_score:.2f}), "
            f"not the {_named(part, rank_key(code) if part == 0 else suit_key(code))} ({own:.2f}); "
            f"is the photo filed under the right name?")


def _other_card(code: str, part: int, rival: str) -> str | None:
    """The card a face looks like whose rank (``part`` 0) or suit (1) matches ``rival``'s (None: a
    joker's symbol, whose rank and suit go together)."""
    other = rival + suit_key(code) if part == 0 else rank_key(code) + rival
    return None if "JK" in other or "*" in other else other


#: A template this close (normalised cross-correlation) to one already kept adds nothing but time:
#: a rank looks the same on every suit of a colour, and a suit on every rank.
SAME_TEMPLATE = 0.99
#: ... learned at a resolution this close (it then serves the cards seen at either).
SAME_RESOLUTION = 1.6


def _distinct(glyphs: list[Glyph]) -> list[Glyph]:
    kept: list[Glyph] = []
    for glyph in glyphs:
        if all(float(glyph.image @ k.image) < SAME_TEMPLATE or abs(glyph.aspect - k.aspect) > 0.05
               or abs(np.log(glyph.height_mm / k.height_mm)) > 0.05
               or abs(np.log(glyph.px_per_mm / k.px_per_mm)) > np.log(SAME_RESOLUTION) for k in kept):
            kept.append(glyph)
    return kept


#: Camera resolutions (px per mm on the felt) each face is also learned at: a 12 MP camera over
#: a 1.8 m table gives about 2.5, and the far side of a tilted camera about 1.9 (a camera set to a
#: smaller frame, 1.2); the templates then match what a flattened card looks like.
CAMERA_PX_PER_MM = (1.2, 1.6, 2.0, 2.6, 3.5)
#: ... and, at the resolutions where a symbol is only a few pixels high, as a slightly soft lens
#: (or a little motion) blurs it by about a pixel: a blurred 5 closes up like an 8 or a 6, and
#: its template must close up alike.
BLURRED_AT_PX_PER_MM = (1.2, 1.6, 2.0, 2.6)
CAMERA_BLUR_PX = 1.0


def _as_the_camera_sees(face: np.ndarray) -> list[tuple[float, np.ndarray]]:
    """The face as learned, and as it looks flattened from a frame at each camera resolution,
    sharp and blurred, each with its resolution (px/mm)."""
    views = [(CANON_PX_PER_MM, face)]
    for px, blur in [(px, 0.0) for px in CAMERA_PX_PER_MM] + [(px, CAMERA_BLUR_PX) for px in BLURRED_AT_PX_PER_MM]:
        small = cv2.resize(face, (round(CANON_SIZE[0] * px / CANON_PX_PER_MM), round(CANON_SIZE[1] * px / CANON_PX_PER_MM)),
                           interpolation=cv2.INTER_AREA)
        if blur:
            small = cv2.GaussianBlur(small, (0, 0), blur)
        views.append((px, cv2.resize(small, CANON_SIZE, interpolation=cv2.INTER_LINEAR)))
    return views
