"""A round as its records tell it: one typed state, and the one fold of a record into it.

The round engine (:mod:`appliance.table.round`), the live view, the dispute view, the history index, the
pit and the audit tools all fold a round's records with :meth:`RoundState.fold` and render what they
show from the state it leaves: none of them reads a round event by itself. The phases and the steps
between them are the table below (:data:`TRANSITIONS`), read top to bottom.

The values stay as the records hold them (card codes, amounts in the settlement's input form, the
settlement as recorded): the fold reads the log, it does not check it. The round engine checks every
step against :data:`TRANSITIONS` before it records it; the fold takes a log as it stands, records
missing from a dispute's view or a pit that joined mid-round included (:func:`next_phase`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..game.start_seat import Position
from .events import Events


class Phase(enum.Enum):
    NEW = "new"  # not opened yet
    BETS_OPEN = "bets_open"
    START_SEAT = "start_seat"
    BANKER = "banker"
    SET_HELD = "set_held"  # the house dealer's setting is not the house way: held for the dealer to reset
    SET = "set"  # the house dealer's setting read and accepted; the seats next
    PLAYERS = "players"
    SETTLED = "settled"
    VOIDED = "voided"


#: phase -> (event that leaves it, next phase). Any open round may be voided; a settled or voided one not.
TRANSITIONS: dict[Phase, dict[str, Phase]] = {
    Phase.NEW: {Events.ROUND_OPENED: Phase.BETS_OPEN},
    Phase.BETS_OPEN: {Events.START_SEAT: Phase.START_SEAT, Events.ROUND_VOIDED: Phase.VOIDED},
    Phase.START_SEAT: {Events.BANKER_CARDS: Phase.BANKER, Events.ROUND_VOIDED: Phase.VOIDED},
    # A misread of the banker's hand found while the seats are checked is corrected before any seat is recorded.
    # Where the layout reads the house dealer's setting, it is accepted before the seats (or held for a reset).
    Phase.BANKER: {Events.SEAT_CARDS: Phase.PLAYERS, Events.READ_CORRECTED: Phase.BANKER,
                   Events.BANKER_SET: Phase.SET, Events.BANKER_SET_HELD: Phase.SET_HELD,
                   Events.ROUND_VOIDED: Phase.VOIDED},
    Phase.SET_HELD: {Events.BANKER_SET: Phase.SET, Events.BANKER_SET_HELD: Phase.SET_HELD,
                     Events.ROUND_VOIDED: Phase.VOIDED},
    Phase.SET: {Events.SEAT_CARDS: Phase.PLAYERS, Events.READ_CORRECTED: Phase.SET, Events.ROUND_VOIDED: Phase.VOIDED},
    Phase.PLAYERS: {Events.SEAT_CARDS: Phase.PLAYERS, Events.ROUND_SETTLED: Phase.SETTLED,
                    Events.READ_CORRECTED: Phase.PLAYERS, Events.ROUND_VOIDED: Phase.VOIDED},
    # A supervisor's correction reopens a settled round (until the next round starts) to settle again.
    Phase.SETTLED: {Events.READ_CORRECTED: Phase.PLAYERS},
    Phase.VOIDED: {},
}

#: A round's records that never move it: a card a person named, a flag, a zone entered by hand.
ASIDES = frozenset({Events.READ_CONFIRMED, Events.TABLE_FLAGGED, Events.CAMERA_OVERRIDDEN})

#: Where a step leads when the log shows it from a phase that does not allow it: records missing from a
#: dispute's view (its own problems say so), a pit that joined a table mid-round. The log is read as it is.
ARRIVES: dict[str, Phase] = {
    Events.ROUND_OPENED: Phase.BETS_OPEN, Events.START_SEAT: Phase.START_SEAT, Events.BANKER_CARDS: Phase.BANKER,
    Events.BANKER_SET_HELD: Phase.SET_HELD, Events.BANKER_SET: Phase.SET, Events.SEAT_CARDS: Phase.PLAYERS,
    Events.ROUND_SETTLED: Phase.SETTLED, Events.ROUND_VOIDED: Phase.VOIDED}


def next_phase(phase: Phase, event: str) -> Phase:
    """The phase a round's record leaves it in: the step :data:`TRANSITIONS` allows; else, for a step taken
    out of order in the log, where the step leads (:data:`ARRIVES`); nothing moves a voided round.

    >>> next_phase(Phase.SETTLED, Events.READ_CORRECTED)
    <Phase.PLAYERS: 'players'>
    >>> next_phase(Phase.BANKER, Events.READ_CONFIRMED), next_phase(Phase.START_SEAT, Events.ROUND_SETTLED)
    (<Phase.BANKER: 'banker'>, <Phase.SETTLED: 'settled'>)
    """
    if phase is Phase.VOIDED:
        return phase
    return TRANSITIONS[phase].get(event) or ARRIVES.get(event, phase)


@dataclass(frozen=True)
class Stamp:
    """Which record took a step, when, by whom, and the gaming day it is booked to."""

    seq: int | None = None
    at: str | None = None
    who: str | None = None
    gaming_day: str | None = None

    @classmethod
    def of(cls, record: dict) -> Stamp:
        return cls(record.get("seq"), record.get("ts"), record.get("who"), record.get("gaming_day"))

    def to_json(self) -> dict:
        """``{"seq", "at", "who"}``, as the dispute view shows who did what.

        >>> Stamp(7, "2026-11-29T11:00:00.000000+00:00", "dealer").to_json()["who"]
        'dealer'
        """
        return {"seq": self.seq, "at": self.at, "who": self.who}


@dataclass(frozen=True)
class StartValue:
    """The start-seat value: three ``dice`` (``value`` their total), or an RNG ``value``."""

    source: str | None
    value: int | None
    dice: list[int] | None
    first_hand: Position | None  # who gets the first hand
    stamp: Stamp

    @property
    def count(self) -> int | None:
        """What the start seat is counted with (None: a record that carries neither dice nor a value).

        >>> StartValue("rng", 4, None, 4, Stamp()).count, StartValue("dice", 11, [3, 4, 4], 4, Stamp()).count
        (4, 11)
        """
        return sum(self.dice) if self.dice else self.value


@dataclass(frozen=True)
class Setting:
    """A banker's front and back, and who set them: ``own`` (a Player/Dealer), ``house-way`` (the house
    dealer's setting as read, the house way's), ``dealer`` (the house dealer's, let stand by a supervisor)."""

    front: list[str] | None  # None only where a record lacks them: the fold takes any record
    back: list[str] | None
    set_by: str | None


@dataclass(frozen=True)
class BankerRead:
    """The banker's seven as read (the BankerCards record) and the setting recorded with them: the
    house way's (with its rule), or the Player/Dealer's own."""

    cards: list[str] | None
    front: list[str] | None
    back: list[str] | None
    rule: str | None
    set_by: str | None
    read: list | None  # each card's read: its confidence, or why a person named it
    images: list[str]
    stamp: Stamp


@dataclass(frozen=True)
class HeldSetting:
    """A setting of the house dealer's that is not the house way's (a BankerSetHeld record)."""

    front: list[str] | None
    back: list[str] | None
    house_way: dict | None
    differs: str | None
    read: list | None
    images: list[str]
    stamp: Stamp

    def shown(self) -> dict:
        return {"front": self.front, "back": self.back, "house_way": self.house_way, "differs": self.differs}


@dataclass(frozen=True)
class AcceptedSetting:
    """The house dealer's setting accepted (a BankerSet record): the house way's as read, or let stand by a
    supervisor, with why."""

    front: list[str] | None
    back: list[str] | None
    set_by: str | None
    reason: str | None
    read: list | None
    images: list[str]
    stamp: Stamp


@dataclass
class BankerState:
    seat: Position | None = None
    wager: str | None = None
    cards: list[str] | None = None  # his seven as they stand: as read, or as a supervisor corrected them
    read: BankerRead | None = None
    set_checked: bool = False  # the house dealer then sets the hand where the camera reads it
    setting: Setting | None = None  # settled as laid; None: the settlement sets the seven by the house way
    held: HeldSetting | None = None  # the house dealer's setting held now, for a reset
    holds: list[HeldSetting] = field(default_factory=list)
    accepted: AcceptedSetting | None = None
    images: list[str] = field(default_factory=list)  # of the hand and of each setting read, in log order

    @property
    def shown(self) -> tuple[list[str] | None, list[str] | None]:
        """The front and back as the screens show them: the setting settled as laid, else the one recorded
        with the seven (the house way's)."""
        if self.setting is not None:
            return self.setting.front, self.setting.back
        return (self.read.front, self.read.back) if self.read else (None, None)


@dataclass(frozen=True)
class SeatRead:
    """A seat's hand as read (the SeatCards record)."""

    front: list[str] | None
    back: list[str] | None
    read: list | None
    images: list[str]
    stamp: Stamp


@dataclass
class SeatState:
    seat: int
    bet: dict | None = None  # as recorded at the opening, in the settlement's input form
    front: list[str] | None = None  # the hand as it stands: as read, or as a supervisor corrected it
    back: list[str] | None = None
    read: SeatRead | None = None
    house_way: bool = False  # laid in one pile, or asked for: settled as set by the house way
    count: int | None = None  # a hand of other than seven cards, a foul where the house says so...
    count_foul: str | None = None  # ... in the house's words

    @property
    def has_cards(self) -> bool:
        return self.front is not None

    @property
    def laid_cards(self) -> list[str]:
        """The hand, front then back; none before it is read."""
        return [*(self.front or []), *(self.back or [])]


@dataclass(frozen=True)
class Correction:
    """A supervisor's correction of a read (a ReadCorrected record)."""

    seat: Position | None  # a seat, or "banker"
    reason: str | None
    cards: list[str] | None
    front: list[str] | None
    back: list[str] | None
    set_by: str | None
    stamp: Stamp

    def to_json(self) -> dict:
        """The correction as recorded (what it does not say left out)."""
        said = {"seat": self.seat, "cards": self.cards, "front": self.front, "back": self.back,
                "set_by": self.set_by, "reason": self.reason}
        return {k: v for k, v in said.items() if v is not None}


@dataclass(frozen=True)
class Confirmation:
    """A card a person named where the camera could not read it (a ReadConfirmed record)."""

    zone: str | None
    position: int | None
    card: str | None
    stamp: Stamp


@dataclass(frozen=True)
class Flag:
    """What did not add up (a TableFlagged record): a card seen twice, a setting of other cards."""

    flags: list[str]
    where: str | None
    stamp: Stamp


#: A misdeal is recorded as a void whose reason is this, then the reason the house file lists;
#: other voids are counted apart.
MISDEAL = "misdeal: "


@dataclass(frozen=True)
class Void:
    reason: str | None
    stamp: Stamp

    @property
    def misdeal(self) -> bool:
        """The round was voided as a misdeal (see MISDEAL), not for another reason.

        >>> Void("misdeal: a card exposed", None).misdeal, Void("power cut", None).misdeal
        (True, False)
        """
        return isinstance(self.reason, str) and self.reason.startswith(MISDEAL)


@dataclass
class RoundState:
    """One round as its records tell it, folded record by record (:meth:`fold`).

    >>> state = RoundState("r-1")
    >>> for n, (event, data) in enumerate([
    ...         (Events.ROUND_OPENED, {"house": "general", "banker": "dealer", "bets": [{"seat": 2, "wager": "20.00"}]}),
    ...         (Events.START_SEAT, {"source": "rng", "value": 3, "dice": None, "first_hand": 3}),
    ...         (Events.ROUND_VOIDED, {"reason": "misdeal: a card exposed"})], 1):
    ...     state = state.fold({"seq": n, "event": event, "data": {"round": "r-1", **data}})
    >>> state.phase, state.status, state.void.reason, state.start.count
    (<Phase.VOIDED: 'voided'>, 'voided', 'misdeal: a card exposed', 3)
    """

    round: str
    phase: Phase = Phase.NEW
    first: Stamp | None = None  # the round's first record folded (its opening, unless the log lacks it)
    house: str | None = None
    rules: dict | None = None  # the house file's content, recorded so a replay settles by the rules in force
    rules_sha256: str | None = None
    opened: Stamp | None = None
    previous_rounds: list | None = None  # what the bank's rotation rules looked back at
    banker: BankerState = field(default_factory=BankerState)
    seats: dict[int, SeatState] = field(default_factory=dict)  # in the order of the bets
    start: StartValue | None = None
    confirmations: list[Confirmation] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    overridden: list[str | None] = field(default_factory=list)  # zones the camera read, entered by hand (with a PIN)
    settlement: dict | None = None  # the settlement that stands: None while open, and once a correction reopens it
    settled: Stamp | None = None
    void: Void | None = None

    @property
    def status(self) -> str:
        """``open``, ``settled`` or ``voided``: what the history and the dispute view call the round."""
        return {Phase.SETTLED: "settled", Phase.VOIDED: "voided"}.get(self.phase, "open")

    @property
    def closed(self) -> bool:
        """Settled or voided: a round still open when the appliance stopped was interrupted."""
        return self.phase in (Phase.SETTLED, Phase.VOIDED)

    @property
    def bets(self) -> list[dict]:
        """The wagers as recorded at the opening, in their order."""
        return [s.bet for s in self.seats.values() if s.bet is not None]

    def seat(self, seat: int) -> SeatState:
        if seat not in self.seats:  # a hand of a seat the opening did not list (its record missing)
            self.seats[seat] = SeatState(seat)
        return self.seats[seat]

    def fold(self, record: dict) -> RoundState:
        """The state with one more of the round's records folded in (this state, changed); a record that
        is not one of a round's steps changes nothing."""
        event = record["event"]
        step = _STEPS.get(event)
        if step is None:
            return self
        stamp = Stamp.of(record)
        self.first = self.first or stamp
        step(self, record["data"], stamp)
        self.phase = next_phase(self.phase, event)
        return self

    # --- one function a step, each reading its record's data --------------------------------------

    def _opened(self, data: dict, stamp: Stamp) -> None:
        self.house, self.rules, self.rules_sha256 = data.get("house"), data.get("rules"), data.get("rules_sha256")
        self.opened, self.previous_rounds = stamp, data.get("previous_rounds")
        self.banker.seat, self.banker.wager = data.get("banker"), data.get("banker_wager")
        self.seats = {b["seat"]: SeatState(b["seat"], b) for b in data.get("bets") or []
                      if isinstance(b, dict) and isinstance(b.get("seat"), int)}

    def _start(self, data: dict, stamp: Stamp) -> None:
        self.start = StartValue(data.get("source"), data.get("value"), data.get("dice"), data.get("first_hand"), stamp)

    def _banker_cards(self, data: dict, stamp: Stamp) -> None:
        b = self.banker
        b.read = BankerRead(data.get("cards"), data.get("front"), data.get("back"), data.get("rule"),
                            data.get("set_by"), data.get("read"), data.get("images", []), stamp)
        b.cards, b.set_checked = data.get("cards"), bool(data.get("set_checked"))
        # A player-banker who set his own hand: his front and back are settled as laid.
        b.setting = Setting(data.get("front"), data.get("back"), "own") if data.get("set_by") == "own" else None
        b.images = [*b.images, *data.get("images", [])]

    def _set_held(self, data: dict, stamp: Stamp) -> None:
        b = self.banker
        b.held = HeldSetting(data.get("front"), data.get("back"), data.get("house_way"), data.get("differs"),
                             data.get("read"), data.get("images", []), stamp)
        b.holds = [*b.holds, b.held]
        b.images = [*b.images, *data.get("images", [])]

    def _set(self, data: dict, stamp: Stamp) -> None:
        b = self.banker
        b.accepted = AcceptedSetting(data.get("front"), data.get("back"), data.get("set_by"), data.get("reason"),
                                     data.get("read"), data.get("images", []), stamp)
        b.setting, b.held = Setting(data.get("front"), data.get("back"), data.get("set_by")), None
        b.images = [*b.images, *data.get("images", [])]

    def _seat_cards(self, data: dict, stamp: Stamp) -> None:
        if data.get("seat") is None:
            return  # a record that names no seat has no hand to fold (its phase is still taken)
        seat = self.seat(data["seat"])
        seat.read = SeatRead(data.get("front"), data.get("back"), data.get("read"), data.get("images", []), stamp)
        seat.front, seat.back = data.get("front"), data.get("back")
        seat.house_way = seat.house_way or data.get("set_by") == "house-way"
        seat.count = data.get("count")
        seat.count_foul = data.get("foul") if seat.count is not None else None

    def _corrected(self, data: dict, stamp: Stamp) -> None:
        self.corrections = [*self.corrections, Correction(
            data.get("seat"), data.get("reason"), data.get("cards"), data.get("front"), data.get("back"),
            data.get("set_by"), stamp)]
        if data.get("seat") == "banker":
            self.banker.cards = data.get("cards")
            # a setting already recorded (the player-banker's own, the house dealer's as read), corrected
            # card for card: settled as it was laid
            self.banker.setting = Setting(data["front"], data["back"], data["set_by"]) if data.get("set_by") else None
        elif data.get("seat") is not None:  # a record that names no hand corrects none
            seat = self.seat(data["seat"])
            seat.front, seat.back = data.get("front"), data.get("back")
            seat.count = seat.count_foul = None  # corrected to the hand as it lies
        # corrected after settling: open again until settled again (a power cut may come between)
        self.settlement = self.settled = None

    def _confirmed(self, data: dict, stamp: Stamp) -> None:
        self.confirmations = [*self.confirmations,
                              Confirmation(data.get("zone"), data.get("position"), data.get("card"), stamp)]

    def _flagged(self, data: dict, stamp: Stamp) -> None:
        self.flags = [*self.flags, Flag(data.get("flags", []), data.get("where"), stamp)]

    def _overridden(self, data: dict, stamp: Stamp) -> None:
        self.overridden = [*self.overridden, data.get("zone")]

    def _settled(self, data: dict, stamp: Stamp) -> None:
        self.settlement, self.settled = data.get("settlement"), stamp

    def _voided(self, data: dict, stamp: Stamp) -> None:
        self.void = Void(data.get("reason"), stamp)


#: Every round event, and the step of the fold that reads it.
_STEPS = {Events.ROUND_OPENED: RoundState._opened, Events.START_SEAT: RoundState._start,
          Events.BANKER_CARDS: RoundState._banker_cards, Events.BANKER_SET_HELD: RoundState._set_held,
          Events.BANKER_SET: RoundState._set, Events.SEAT_CARDS: RoundState._seat_cards,
          Events.READ_CORRECTED: RoundState._corrected, Events.READ_CONFIRMED: RoundState._confirmed,
          Events.TABLE_FLAGGED: RoundState._flagged, Events.CAMERA_OVERRIDDEN: RoundState._overridden,
          Events.ROUND_SETTLED: RoundState._settled, Events.ROUND_VOIDED: RoundState._voided}
