"""A card's whole index corner compared with the corners a deck keeps.

Symbols (rank and suit templates) name the cards. A deck also keeps the index corner of each face
it learned, of each card it could not learn (its face refused: an untaught card) and of a joker that
prints no rank and suit (the word JOKER, a star, a picture): whole corners refuse a card that looks
more like an untaught one than like the card its symbols name, and name the joker, the one face that
is none of the 52, where its corner is clearly the joker's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from .card_faces import CANON_PX_PER_MM, darkest_channel
from .index import REGISTER_MM

#: Corners are compared coarse and blurred: a card in a frame is seen at 2 to 3 px/mm, and
#: flattened up to REGISTER_MM off its learned place.
LIKENESS_PX_PER_MM = 2.0
JOKER = "Jk"
#: A joker is named by its corner at a likeness of at least JOKER_FLOOR, and clear of every other
#: corner kept: its distance (1 - likeness) at most JOKER_RATIO of the runner-up's. Stricter than a
#: symbol's test (0.7 on a table): a whole corner is compared coarse, and with more of the card.
JOKER_FLOOR, JOKER_RATIO = 0.75, 0.5


def coarse(corner: np.ndarray) -> np.ndarray:
    """An index corner (cut at a deck's ``index.box_mm``, at CANON_PX_PER_MM) as corners are
    compared: its darkest channel at LIKENESS_PX_PER_MM, slightly blurred."""
    scale = LIKENESS_PX_PER_MM / CANON_PX_PER_MM
    small = cv2.resize(darkest_channel(corner), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small.astype(np.float32), (0, 0), 0.7)


def likeness(seen: np.ndarray, kept: np.ndarray) -> float:
    """How alike two coarse corners (``coarse``) are: normalised cross-correlation at the best
    shift within REGISTER_MM (0 where either is blank)."""
    if seen.std() == 0 or kept.std() == 0:
        return 0.0
    pad = round(REGISTER_MM * LIKENESS_PX_PER_MM)
    padded = cv2.copyMakeBorder(seen, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    return float(cv2.matchTemplate(padded, kept, cv2.TM_CCOEFF_NORMED).max())


@dataclass
class KeptCorners:
    """The corners a deck keeps (code -> corner as cut from its face), compared coarse."""

    learned: dict[str, np.ndarray]
    untaught: dict[str, np.ndarray]
    joker: np.ndarray | None = None  # a joker taught by its whole corner
    # ... and by nothing else: a card named by its symbols is then checked against it (a joker taught
    # by symbols too is told from the cards by them, and its corner only names it where they do not)
    joker_only: bool = True
    _coarse: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        kept = {**self.learned, **self.untaught, **({JOKER: self.joker} if self.joker is not None else {})}
        self._coarse = {code: coarse(corner) for code, corner in kept.items()}

    def scores(self, corners: list[np.ndarray], codes=None) -> dict[str, float]:
        """Each kept corner's (of ``codes``, or all) likeness to the best of the card's ``corners`` in view."""
        seen = [coarse(c) for c in corners]
        return {code: max(likeness(s, kept) for s in seen) for code, kept in self._coarse.items()
                if codes is None or code in codes}

    def rival(self, code: str, corners: list[np.ndarray]) -> tuple[str, float, float] | None:
        """Where the card its symbols name as ``code`` looks at least as much like an untaught card
        or a joker taught by its corner as like its own: (that card, its likeness, the own likeness).
        The own corner is ``code``'s, or where its face was not learned another of its rank's. A face
        refused as looking like ``code`` is its rival too: its symbols read as ``code``'s, so only its
        whole corner can tell the two apart. (Where the photo was of ``code`` itself, filed under
        another name, as deck-b's photo named Jh shows the Js, a ``code`` seen may be left unread: a
        zoo deck's real Jh, refused as the Jd, was named Jd.)"""
        others = (set(self.untaught) | ({JOKER} if self.joker is not None and self.joker_only else set())) - {code}
        if not others:  # (most decks, for every card: nothing to compare)
            return None
        own = next((c for c in (code, *sorted(self.learned)) if c in self.learned and _same_rank(c, code)), None)
        if own is None:
            return None
        scores = self.scores(corners, others | {own})
        like = max(others, key=scores.__getitem__)
        return (like, scores[like], scores[own]) if scores[like] >= scores[own] else None

    def more_like(self, code: str, corners: list[np.ndarray], ratio: float,
                  among: set[str] | None = None) -> tuple[str, float, float] | None:
        """Where the card its symbols name as ``code`` looks more like another learned card's corner
        (of ``among``, where given) than like its own, that one's distance (1 - likeness) at most
        ``ratio`` of its own's (1: as alike or more): (that card, its likeness, the own likeness);
        None where not, or where the deck keeps no corner of ``code``."""
        if code not in self.learned:
            return None
        scores = self.scores(corners, set(self.learned) if among is None else (set(among) & set(self.learned)) | {code})
        like = max((c for c in scores if c != code), key=scores.__getitem__, default=None)
        if like is None or 1 - scores[like] > ratio * (1 - scores[code]):
            return None
        return like, scores[like], scores[code]

    def joker_named(self, corners: list[np.ndarray]) -> tuple[float, str, float] | None:
        """(likeness, runner-up, its likeness) where the card's corners are clearly the joker's
        (JOKER_FLOOR, JOKER_RATIO); None otherwise, or where the deck keeps no joker's corner."""
        seen = [coarse(c) for c in corners]
        return self._clearly_joker(lambda kept: max(likeness(s, kept) for s in seen))

    def joker_within(self, region: np.ndarray) -> tuple[float, str, float] | None:
        """``joker_named`` for a card whose corner's place is known only roughly: ``region`` (at
        CANON_PX_PER_MM) is cut round where it should lie, larger than a corner, and each kept
        corner is compared at its best place in it."""
        seen = coarse(region)
        if seen.std() == 0:
            return None
        return self._clearly_joker(
            lambda kept: float(cv2.matchTemplate(seen, kept, cv2.TM_CCOEFF_NORMED).max()) if kept.std() > 0 else 0.0)

    def _clearly_joker(self, like: Callable[[np.ndarray], float]) -> tuple[float, str, float] | None:
        """(likeness, runner-up, its likeness) where a corner is clearly the joker's, ``like`` giving a
        kept corner's likeness to it: the joker's at least JOKER_FLOOR, and its distance at most
        JOKER_RATIO of every other kept corner's; None otherwise, or where no joker's corner is kept."""
        if self.joker is None:
            return None
        joker = like(self._coarse[JOKER])
        if joker < JOKER_FLOOR:  # (most corners: the others need not be compared)
            return None
        scores = {code: like(kept) for code, kept in self._coarse.items() if code != JOKER}
        runner_up = max(scores, key=scores.__getitem__)
        if 1 - joker <= JOKER_RATIO * (1 - scores[runner_up]):
            return joker, runner_up, scores[runner_up]
        return None


def _same_rank(a: str, b: str) -> bool:
    """Two card codes of one rank (the joker's is its own: "Jk" is no jack)."""
    return (a == JOKER) == (b == JOKER) and a[0] == b[0]
