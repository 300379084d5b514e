"""A zone's read is accepted only when it has held over several consecutive frames: a hand
moving over the cards, or a card still sliding, never becomes a result.

Frames agree when they see the same number of cards and no card is named differently; a card
that one frame could not read and another named counts as named (the reader never names a card
it is unsure of, so a name is never outvoted by a blank). The accepted read is that merge.

>>> s = StableRead(frames=3)
>>> def cards(*codes): return [{"card": c} for c in codes]
>>> [s.offer(cards("As", "Kd")), s.offer(cards("As", None)), s.offer(cards("As", "Qd")), s.offer(cards("As", None))]
[None, None, None, None]
>>> s.offer(cards(None, "Qd"))
[{'card': 'As'}, {'card': 'Qd'}]
"""

from __future__ import annotations


class StableRead:
    def __init__(self, frames: int = 3):
        if frames < 1:
            raise ValueError("a read needs at least one frame")
        self.frames = frames
        self._merged: list[dict] | None = None
        self._count = 0

    def offer(self, reads: list[dict]) -> list[dict] | None:
        """The merged read, once ``frames`` frames in a row have agreed; else None."""
        merged = self._merged
        if merged is not None and len(merged) == len(reads) and all(
                a["card"] is None or b["card"] is None or a["card"] == b["card"] for a, b in zip(merged, reads)):
            self._merged = [a if a["card"] is not None else b for a, b in zip(merged, reads)]
            self._count += 1
        else:
            self._merged, self._count = list(reads), 1
        return list(self._merged) if self._count >= self.frames else None
