"""What the layout shows must add up: the same card seen twice, or a zone with the wrong number of
cards, is flagged as a possible misdeal or foreign card and held for the supervisor.

>>> [f.message for f in check_table({"banker": ["As", "Kd"], "seat1.front": ["As", "2c", "3c"]})]
['card As seen twice: banker and seat1.front', 'banker: 2 cards where 7 belong', 'seat1.front: 3 cards where 2 belong']
"""

from __future__ import annotations

from dataclasses import dataclass

EXPECTED = {"banker": 7, "front": 2, "back": 5}


@dataclass(frozen=True)
class Flag:
    kind: str  # "duplicate-card" or "card-count"
    message: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "message": self.message}


def expected_cards(zone: str) -> int | None:
    return EXPECTED.get(zone) or EXPECTED.get(zone.rsplit(".", 1)[-1])


def check_table(zones: dict[str, list[str | None]]) -> list[Flag]:
    """Flags for cards (codes, None for unreadable) read zone by zone."""
    flags = []
    seen: dict[str, str] = {}
    for zone, cards in zones.items():
        for card in cards:
            if card is None:
                continue
            if card in seen:
                flags.append(Flag("duplicate-card", f"card {card} seen twice: {seen[card]} and {zone}"))
            else:
                seen[card] = zone
    for zone, cards in zones.items():
        expected = expected_cards(zone)
        if cards and expected is not None and len(cards) != expected:
            flags.append(Flag("card-count", f"{zone}: {len(cards)} cards where {expected} belong"))
    total = sum(len(cards) for cards in zones.values())
    if total > 49:
        flags.append(Flag("card-count", f"{total} cards on the layout: seven hands of seven are 49"))
    return flags
