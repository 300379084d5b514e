"""A zone's read is accepted only when it is the same over several consecutive frames: a hand
moving over the cards, or a card still sliding, never becomes a result.

>>> s = StableRead(frames=3)
>>> [s.offer(["As", "Kd"]), s.offer(["As", None]), s.offer(["As", "Kd"]), s.offer(["As", "Kd"]), s.offer(["As", "Kd"])]
[None, None, None, None, ['As', 'Kd']]
"""

from __future__ import annotations


class StableRead:
    def __init__(self, frames: int = 3):
        if frames < 1:
            raise ValueError("a read needs at least one frame")
        self.frames = frames
        self._last: list | None = None
        self._count = 0

    def offer(self, cards: list[str | None]) -> list[str | None] | None:
        """The read, once the same cards have been seen in ``frames`` frames in a row; else None."""
        if cards == self._last:
            self._count += 1
        else:
            self._last, self._count = list(cards), 1
        return list(cards) if self._count >= self.frames else None
