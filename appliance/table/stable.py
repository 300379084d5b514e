"""A zone's read is accepted only when it has held over several consecutive frames: a hand
moving over the cards, or a card still sliding, never becomes a result.

Frames agree when they see the same number of cards and no card is named differently by two
of them. In the accepted read a card is named only if every one of those frames named it; a card
some frame could not read stays unreadable, for the dealer to name. So a borderline card that
flickers between named and unreadable does not keep the zone from settling, and a name seen in
some frames only is never taken.

>>> s = StableRead(frames=3)
>>> def cards(*codes): return [SeenCard(c) for c in codes]
>>> [s.offer(cards("As", "Kd")), s.offer(cards("As", "Qd")), s.offer(cards("As", None))]
[None, None, None]
>>> [(r.card, r.reason) for r in s.offer(cards("As", "Qd"))]
[('As', None), (None, 'unreadable in some frames')]
"""

from __future__ import annotations

from .eye import SeenCard

FLICKER = SeenCard(None, reason="unreadable in some frames")


class StableRead:
    def __init__(self, frames: int = 3):
        if frames < 1:
            raise ValueError("a read needs at least one frame")
        self.frames = frames
        self._run: list[list[SeenCard]] = []  # the last frames that agree, oldest first

    def offer(self, reads: list[SeenCard]) -> list[SeenCard] | None:
        """The accepted read, once ``frames`` frames in a row have agreed; else None."""
        last = self._run[-1] if self._run else None
        if last is None or len(last) != len(reads) or any(
                self._named(i) not in (None, r.card) and r.card is not None for i, r in enumerate(reads)):
            self._run = []
        self._run = [*self._run[1 - self.frames:], list(reads)] if self.frames > 1 else [list(reads)]
        if len(self._run) < self.frames:
            return None
        return [reads[i] if all(frame[i].card is not None for frame in self._run) else
                (FLICKER if any(frame[i].card is not None for frame in self._run) else reads[i])
                for i in range(len(reads))]

    def _named(self, i: int) -> str | None:
        return next((frame[i].card for frame in self._run if frame[i].card is not None), None)
