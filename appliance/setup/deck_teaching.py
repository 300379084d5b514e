"""Teaching a deck on the setup screen, one card at a time from the camera.

Each card laid in the teach zone is kept as a photo in a faces folder, exactly what ``appliance deck
capture`` writes and ``appliance deck learn`` reads; the deck is learned by that same ``learn``.
Where the design prints its index is learned from the whole deck, so a card's rank and suit
templates are cut as soon as an index place is known: the one this teaching learned, or until then
the one of the deck the reader uses (a deck of the same design, taught before). Under this
teaching's own index place, a card whose templates do not come out clean is refused at once; under
the other deck's, it waits for the learning of the whole deck, which refuses what it cannot use.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..game.cards import Card
from ..vision.capture import save_face
from ..vision.deck import Deck, DeckError, face_from_photo, learn
from ..vision.index import IndexGeometry, index_glyphs, index_patch

#: the order the cards are asked for: as a new deck comes out of its box, then the joker
ORDER = [f"{r}{s}" for s in "shdc" for r in "AKQJT98765432"] + ["Jk"]
IMAGES = ("face", "rank", "suit", "refused")


def card_name(code: str) -> str:
    """The card as a person says it.

    >>> card_name("Th"), card_name("Jk")
    ('ten of hearts', 'joker')
    """
    return Card.parse(code).name


@dataclass
class TaughtCard:
    status: str  # "captured" (not checked yet), "checked", "learned" or "refused"
    say: str  # what is right or wrong with it, for the technician
    images: dict[str, bytes]  # PNGs: the face as captured, its rank and suit templates, what was refused

    def to_json(self, code: str) -> dict:
        return {"card": code, "name": card_name(code), "status": self.status, "say": self.say,
                "images": sorted(self.images)}


class DeckTeaching:
    """The faces taught so far (``folder/faces``), what each came out as, and the deck learned from them."""

    def __init__(self, folder: Path, geometry_in_use: Callable[[], IndexGeometry | None]):
        self.faces, self.pictures, self.deck_dir = folder / "faces", folder / "pictures", folder / "deck"
        self._geometry_in_use = geometry_in_use
        self.cards: dict[str, TaughtCard] = {}
        self.learned: Deck | None = None
        self.problem = ""  # why the whole deck could not be learned
        self._lock = threading.Lock()
        self._learning: threading.Thread | None = None  # the whole deck takes seconds: never in a request
        for path in sorted(self.faces.glob("*.png")) if self.faces.is_dir() else []:
            code = str(Card.parse(path.stem))  # written by save_face: named by the card's code
            self.cards[code] = TaughtCard("captured", "captured earlier; checked when the deck is learned",
                                          {"face": path.read_bytes()})

    def next_card(self) -> str | None:
        """The first card in the box's order not yet taught, or refused."""
        return next((c for c in ORDER if c not in self.cards or self.cards[c].status == "refused"), None)

    def to_json(self) -> dict:
        with self._lock:
            missing = [c for c in ORDER[:-1] if c not in self.cards]
            return {"order": [{"card": c, "name": card_name(c)} for c in ORDER],
                    "cards": [self.cards[c].to_json(c) for c in ORDER if c in self.cards], "next": self.next_card(),
                    "missing": len(missing), "learned": self.learned is not None, "problem": self.problem,
                    "advice": self.learned.photo_advice if self.learned is not None else None,
                    "learning": self.learning,
                    "refused": sorted(c for c, t in self.cards.items() if t.status == "refused")}

    @property
    def learning(self) -> bool:
        return self._learning is not None and self._learning.is_alive()

    def image(self, code: str, kind: str) -> bytes | None:
        with self._lock:
            taught = self.cards.get(code)
            return None if taught is None else taught.images.get(kind)

    def capture(self, code: str, photo: np.ndarray) -> TaughtCard:
        """Keep the photo of ``code`` (replacing an earlier one) unless its templates do not come out
        clean under this teaching's index place; learn the deck once all 53 are in."""
        with self._lock:
            if self.learning:
                raise DeckError("the deck is being learned from the cards captured: wait for it, then capture again")
            try:
                face = face_from_photo(photo)
            except ValueError as err:
                return self._refuse(code, f"No whole card in the teach zone ({err}): lay the {card_name(code)} "
                                          "flat inside the teach zone, not touching its edge.", {})
            images = {"face": _png(face)}
            geometry, own = (self.learned.index, True) if self.learned is not None else (self._geometry_in_use(), False)
            if geometry is not None:
                glyphs = index_glyphs(index_patch(face, geometry), geometry)
                if glyphs is None and own:
                    return self._refuse(code, f"Its rank and suit did not come out clean in the corner where this "
                                              "deck prints them: blurred, glare, a finger, or the card turned. "
                                              f"Lay the {card_name(code)} flat and upright and capture it again.",
                                        {**images, "refused": _png(index_patch(face, geometry))})
                if glyphs is not None:
                    images.update(rank=_ink(glyphs[0]), suit=_ink(glyphs[1]))
            save_face(photo, code, self.faces)
            say = ("rank and suit cut cleanly" if "rank" in images else "kept; checked when the whole deck is "
                   "learned (this design prints its index elsewhere than the deck in use)" if geometry is not None
                   else "kept; its rank and suit are cut once the whole deck is in (where a deck prints them is "
                   "learned from all 52)")
            self.cards[code] = TaughtCard("checked" if "rank" in images else "captured", say, images)
            if not self._without_face(ORDER):  # every house deals the joker; Learn again does without
                self._start_learning()
            return self.cards[code]

    def learn_again(self) -> None:
        with self._lock:
            missing = self._without_face(ORDER[:-1])
            if missing:
                raise DeckError(f"{len(missing)} card(s) not captured yet, the first: the {card_name(missing[0])}")
            if not self.learning:
                self._start_learning()

    def _without_face(self, codes: list[str]) -> list[str]:
        """The cards of ``codes`` with no photo kept (a card refused at its first capture has none)."""
        return [c for c in codes if not (self.faces / f"{c}.png").is_file()]

    def _start_learning(self) -> None:
        self.learned, self.problem = None, ""
        self._learning = threading.Thread(target=self._learn, name="deck-learning", daemon=True)
        self._learning.start()

    def use(self) -> Deck:
        """The learned deck written to ``deck_dir`` (what was there before replaced whole) and read back."""
        with self._lock:
            if self.learned is None:
                raise DeckError("the deck is still being learned: wait for it" if self.learning else
                                "no deck learned yet: teach every card first")
            staging = self.deck_dir.with_name(self.deck_dir.name + ".new")
            shutil.rmtree(staging, ignore_errors=True)
            self.learned.save(staging)
            shutil.rmtree(self.deck_dir, ignore_errors=True)
            staging.rename(self.deck_dir)
            return Deck.load(self.deck_dir)

    def _refuse(self, code: str, say: str, images: dict[str, bytes]) -> TaughtCard:
        self.cards[code] = TaughtCard("refused", say, images)
        return self.cards[code]

    def _learn(self) -> None:
        """The deck learned from the faces folder as ``deck learn`` learns it, then each card's verdict
        (no capture meanwhile: the faces do not change under it)."""
        try:
            deck = learn(self.faces, self.pictures)
            verdicts = {code: self._verdict(code, deck) for code in ORDER if not self._without_face([code])}
        except (DeckError, OSError, ValueError) as err:
            with self._lock:
                self.problem = (f"The deck could not be learned: {err}. Check that every photo is of this one "
                                "deck, each card upright, and capture the cards named again.")
            return
        with self._lock:
            self.cards.update(verdicts)
            self.learned = deck

    def _verdict(self, code: str, deck: Deck) -> TaughtCard:
        path = self.faces / f"{code}.png"
        photo = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if photo is None:  # learn read it a moment ago: a photo spoiled since is the whole deck's problem
            raise OSError(f"{path}: not an image OpenCV can read")
        why = deck.refused.get(f"{code}.png")
        try:
            face = face_from_photo(photo)  # as learn saw it
        except ValueError:  # refused by learn as a photo without a card: the photo itself is shown
            face = photo
        if why is None:
            glyphs = index_glyphs(index_patch(face, deck.index), deck.index)
            if glyphs is not None:
                return TaughtCard("learned", "learned: its rank and suit are templates of the deck",
                                  {"face": _png(face), "rank": _ink(glyphs[0]), "suit": _ink(glyphs[1])})
            why = "no rank and suit ink in the index corner"
        picture = self.pictures / f"refused-{code}.png"
        return TaughtCard("refused", f"Refused when the deck was learned: {why}. Check that this is the "
                                     f"{card_name(code)}, lay it flat and capture it again.",
                          {"face": _png(face), **({"refused": picture.read_bytes()} if picture.is_file() else {})})


def _ink(glyph) -> bytes:
    """A template as a technician looks at it: dark ink on white (a deck stores ink as light)."""
    return _png(255 - glyph.raw)


def _png(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise OSError("cannot encode an image as PNG")
    return data.tobytes()
