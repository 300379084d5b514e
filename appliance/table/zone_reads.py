"""The zones the camera reads for the dealer: each zone's read is offered to the dealer only when it has
been the same over several frames (:mod:`.stable`); an unreadable card is named by the dealer (never by
the appliance) before CONFIRM takes the zone, and with the camera down the dealer enters a whole hand."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..game.cards import Card
from .dealer_errors import DealerInputError
from .eye import Look, SeenCard
from .round import Named, RoundStateError
from .stable import StableRead

HAND = 7


@dataclass
class ZoneRead:
    """One zone's stable read and the cards the dealer named in it."""

    stable: StableRead
    reads: list[SeenCard] | None = None  # the accepted (stable) read, left to right
    image: Callable[[], bytes | None] = lambda: None
    picked: dict[int, tuple[str, str]] = field(default_factory=dict)  # position -> (card, who named it)
    entered: bool = False  # typed in by the dealer: the camera does not overwrite it before CONFIRM

    def cards(self) -> list[str | None]:
        return [self.picked[i][0] if i in self.picked else r.card for i, r in enumerate(self.reads or [])]

    def laid(self) -> list[str]:
        """The cards of a zone read or named in full (as :meth:`ZoneReads.complete` requires before any is recorded)."""
        cards = [c for c in self.cards() if c is not None]
        if self.reads is None or len(cards) != len(self.reads):
            raise RoundStateError("a zone's cards are not all read or named")
        return cards

    def to_json(self) -> dict:
        return {"reads": [r.to_json() for r in self.reads or []], "cards": self.cards(),
                "picked": {str(k): v[0] for k, v in self.picked.items()},
                "unreadable": [i for i, c in enumerate(self.cards()) if c is None]}


@dataclass(frozen=True)
class LaidCount:
    """How many cards a seat laid in its front and back zones: the one count that the wrong-count foul
    (``fouls.wrong_count``) and the one-pile house way (``player_hands.one_pile``) are judged on.

    >>> LaidCount.of(["Kd", "Jh"], ["Ah", "Kc", "8d", "5c", "3s"])
    LaidCount(front=2, back=5)
    >>> [LaidCount(0, 7).one_pile, LaidCount(7, 0).one_pile, LaidCount(0, 6).one_pile, LaidCount(3, 3).wrong]
    [True, True, False, True]
    """

    front: int
    back: int

    @classmethod
    def of(cls, front: list, back: list) -> LaidCount:
        return cls(len(front), len(back))

    @property
    def total(self) -> int:
        return self.front + self.back

    @property
    def wrong(self) -> bool:
        """Other than seven cards in all."""
        return self.total != HAND

    @property
    def one_pile(self) -> bool:
        """The seven cards all in one of the two zones, none in the other."""
        return sorted((self.front, self.back)) == [0, HAND]


class ZoneReads:
    """The zones being read at this step, by name: what the camera reads steadily, and what the dealer named or entered."""

    def __init__(self, stable_frames: int):
        self.stable_frames = stable_frames
        self.zones: dict[str, ZoneRead] = {}

    def clear(self) -> None:
        self.zones = {}

    def take(self, looked: Look, wanted: set[str]) -> bool:
        """One look of the camera, offered to each zone still ``wanted``; True when a read shown changed."""
        changed = False
        for name, (reads, image) in looked.items():
            if name not in wanted:
                continue  # the dealer confirmed while the camera was looking
            zone = self.zones.setdefault(name, ZoneRead(StableRead(self.stable_frames)))
            if zone.entered:
                continue
            steady = zone.stable.offer(reads)
            if steady is None:
                # The layout moved (a card swapped, a hand over the cards): what was shown no longer
                # holds, and CONFIRM waits until the camera is steady again.
                if zone.reads is not None:
                    zone.reads, zone.picked = None, {}
                    changed = True
                continue
            if zone.reads is None or [r.card for r in steady] != [r.card for r in zone.reads]:
                zone.reads, zone.picked = steady, {}
                changed = True
            zone.image = image  # the latest frame of the steady read is what the log keeps
        return changed

    def name_card(self, zone: str, position: int, card: str, who: str, wanted: list[str], stale: bool) -> None:
        """The dealer names a card the camera could not read, in a zone ``wanted`` now; refused when the
        reads the screen showed are ``stale`` (the position may be another card since)."""
        read = self.zones.get(zone)
        if read is None or read.reads is None or zone not in wanted:
            raise DealerInputError(f"{spoken(zone)}: not being read now")
        if stale:
            raise DealerInputError(f"{spoken(zone)}: the read changed since the screen showed it: name the card again")
        if not 0 <= position < len(read.reads):
            raise DealerInputError(f"{spoken(zone)}: no card {position + 1} (it has {len(read.reads)})")
        if (seen := read.reads[position].card) is not None:
            raise DealerInputError(f"{spoken(zone)}: the camera read {seen} as card "
                                   f"{position + 1}; only an unreadable card is named (enter the zone by hand)")
        read.picked[position] = (str(Card.parse(card)), who)

    def enter(self, zone: str, named: list[str], who: str) -> None:
        """A whole zone typed in by the dealer: every card is the dealer's, and the camera leaves it be."""
        self.zones[zone] = ZoneRead(StableRead(self.stable_frames),
                                    [SeenCard(None, reason=f"entered by {who}") for _ in named],
                                    picked={i: (c, who) for i, c in enumerate(named)}, entered=True)

    def camera_read(self, zone: str) -> list[str | None] | None:
        """What the camera reads steadily in ``zone``, if it reads at least one card there."""
        read = self.zones.get(zone)
        if read is None or read.entered or read.reads is None or all(r.card is None for r in read.reads):
            return None
        return [r.card for r in read.reads]

    def complete(self, name: str, count: int | None = None) -> ZoneRead:
        """A zone read steadily, every card read or named (and ``count`` of them, if given)."""
        zone = self.zones.get(name)
        if zone is None or zone.reads is None:
            raise RoundStateError(f"{spoken(name)}: no steady read yet (lay the cards flat, or enter them by hand)")
        cards = zone.cards()
        if count is not None and len(cards) != count:
            raise RoundStateError(f"{spoken(name)}: {len(cards)} cards seen, {count} expected")
        if None in cards:
            raise RoundStateError(f"{spoken(name)}: name the unreadable card(s) first: "
                                  + ", ".join(f"card {i + 1}" for i, c in enumerate(cards) if c is None))
        return zone

    def hand(self, front_zone: str, back_zone: str, whose: str, counted: bool = True) -> tuple[ZoneRead, ZoneRead]:
        """A hand's two zones, each steady and fully named, seven cards in all unless not ``counted`` (a
        front of other than two cards is the player's foul, settled as such)."""
        front, back = self.complete(front_zone), self.complete(back_zone)
        count = LaidCount.of(front.cards(), back.cards())
        if counted and count.wrong:
            raise RoundStateError(f"{whose}: {count.total} cards seen, {HAND} expected: name or enter the hand")
        return front, back

    def lying(self, names: Sequence[str]) -> list[list[str | None] | None]:
        """The cards in each of ``names`` as read (and named) now; None for a zone without a steady read."""
        return [zone.cards() if (zone := self.zones.get(name)) and zone.reads is not None else None for name in names]

    def shown(self) -> dict[str, dict]:
        """The zones read steadily, as the screen shows them."""
        return {name: z.to_json() for name, z in self.zones.items() if z.reads is not None}


def named(*zones: tuple[str, ZoneRead]) -> list[Named]:
    """The cards the dealer named in ``zones`` (name, read), for the round to record with the hand."""
    return [(name, position, card, who)
            for name, zone in zones for position, (card, who) in sorted(zone.picked.items())]


def reads_of(front: ZoneRead, back: ZoneRead) -> list[SeenCard]:
    """A hand's reads, front then back, as recorded."""
    return [*(front.reads or []), *(back.reads or [])]


def spoken(zone: str) -> str:
    """A zone as the dealer says it: ``seat3.front`` is "Seat 3, front", ``banker`` is "Banker"."""
    seat, _, part = zone.partition(".")
    name = f"Seat {seat[4:]}" if seat.startswith("seat") and seat[4:].isdigit() else seat.capitalize()
    return f"{name}, {part}" if part else name
