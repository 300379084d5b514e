"""The dealer's round loop: a round driven by the dealer's buttons, the start-seat device and the camera.

The same three buttons sit on the table rail (GPIO) and on the touch screen: NEXT opens a round
with the wagers entered and asks the device for the start value, CONFIRM accepts what the camera
read, SUPERVISOR calls the supervisor and holds the table. A zone's read is offered to the dealer
only when it has been the same over several frames; an unreadable card is named by the dealer
(never by the appliance) before CONFIRM is accepted; with the camera down the dealer enters a
whole hand. Inputs come from several threads and are taken one at a time under the table's lock.

Every step ends up in the round engine (:mod:`.round`), so every decision is an audit record; a
start value that no round was waiting for is logged too.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from ..devices.protocol import DiceResult, RngResult
from ..devices.start_source import HealthTracker
from ..game.cards import Card, parse_cards
from ..game.settlement import RoundError, check_wagers
from ..game.start_seat import DEALER, Position
from .eye import Eye
from .round import Events, HeldForSupervisor, Phase, RoundStateError
from .stable import StableRead
from .table import Table

log = logging.getLogger(__name__)

BUTTONS = ("next", "confirm", "supervisor")
HAND = 7


class Step(enum.Enum):
    IDLE = "idle"  # between rounds: NEXT opens one
    START = "start"  # waiting for the start-seat value
    BANKER = "banker"  # reading the banker's seven cards
    SEATS = "seats"  # reading the players' hands
    HELD = "held"  # waiting for a supervisor


class DealerInputError(ValueError):
    """A dealer's input that cannot be taken (a bad wager, a card for a zone not being read)."""


@dataclass
class ZoneRead:
    """One zone's stable read and the cards the dealer named in it."""

    stable: StableRead
    reads: list[dict] | None = None  # the accepted (stable) read, left to right
    image: Callable[[], bytes | None] = lambda: None
    picked: dict[int, tuple[str, str]] = field(default_factory=dict)  # position -> (card, who named it)

    def cards(self) -> list[str | None]:
        return [self.picked[i][0] if i in self.picked else r["card"] for i, r in enumerate(self.reads or [])]

    def to_json(self) -> dict:
        return {"reads": self.reads, "cards": self.cards(), "picked": {str(k): v[0] for k, v in self.picked.items()},
                "unreadable": [i for i, c in enumerate(self.cards()) if c is None]}


class DealerLoop:
    def __init__(self, table: Table, eye: Eye, request_start: Callable[[], None], round_id: Callable[[], str],
                 start_source: str, health: HealthTracker | None = None, stable_frames: int = 3,
                 lamp: Callable[[str, bool], None] = lambda name, on: None,
                 on_prompt: Callable[[dict], None] = lambda prompt: None):
        self.table, self.eye = table, eye
        self._request_start, self._round_id = request_start, round_id
        self.start_source = start_source
        self.health = health
        self.stable_frames = stable_frames
        self._lamp, self._on_prompt = lamp, on_prompt
        self.bets: list[dict] = []
        self.banker: Position = DEALER
        self.banker_wager: Decimal | None = None
        self.zones: dict[str, ZoneRead] = {}
        self.message = ""  # the last refusal, shown to the dealer until the next input
        # A supervisor's action (a release, a void, a start value) changes what the dealer is asked.
        table.listeners.append(lambda record: self.announce())

    # --- where the round is ---------------------------------------------------------------------

    @property
    def step(self) -> Step:
        if self.table.held is not None:
            return Step.HELD
        current = self.table.current
        phase = current.phase if current is not None else Phase.SETTLED
        return {Phase.BETS_OPEN: Step.START, Phase.START_SEAT: Step.BANKER, Phase.BANKER: Step.SEATS,
                Phase.PLAYERS: Step.SEATS}.get(phase, Step.IDLE)

    def wanted_zones(self) -> list[str]:
        """The zones the camera should read now."""
        with self.table.lock:
            step, current = self.step, self.table.current
            if step is Step.BANKER:
                return ["banker"]
            if step is Step.SEATS:
                done = current.state.get("seat_cards", {})
                return [f"seat{b['seat']}.{part}" for b in current.state["bets"] if b["seat"] not in done
                        for part in ("front", "back")]
            return []

    # --- inputs -------------------------------------------------------------------------------

    def set_bets(self, bets: list[dict], banker: Position = DEALER, banker_wager=None, who: str = "dealer") -> None:
        """The wagers for the next round (the camera does not read chips): ``[{"seat", "wager", "fortune"?}]``."""
        with self.table.lock:
            if self.step is not Step.IDLE:
                raise DealerInputError("wagers can be changed only between rounds")
            checked = []
            for i, bet in enumerate(bets):
                seat = bet.get("seat")
                if not isinstance(seat, int):
                    raise DealerInputError(f"seats[{i}].seat: {seat!r} is not a seat number")
                checked.append({"seat": seat, "wager": _amount(bet.get("wager"), f"seat {seat} wager"),
                                **({"fortune": _amount(bet["fortune"], f"seat {seat} fortune")}
                                   if bet.get("fortune") else {})})
            wager = None if banker_wager in (None, "") else Decimal(_amount(banker_wager, "banker wager"))
            try:
                check_wagers(self.table.rules, banker, wager, [(b["seat"], Decimal(b["wager"]),
                                                                Decimal(b.get("fortune", 0)) or None) for b in checked])
            except RoundError as err:
                raise DealerInputError(str(err)) from None
            self.bets, self.banker, self.banker_wager = checked, banker, wager
            log.info("%s set the wagers: %s", who, checked)
            self.announce()

    def press(self, button: str, who: str = "dealer") -> None:
        """One press of NEXT, CONFIRM or SUPERVISOR, from the rail or the screen."""
        if button not in BUTTONS:
            raise DealerInputError(f"unknown button {button!r}: expected one of {', '.join(BUTTONS)}")
        with self.table.lock:
            self.message = ""
            try:
                if button == "supervisor":
                    self.table.log(Events.SUPERVISOR_CALLED, {"round": self._round_or_none(), "step": self.step.value},
                                   who)
                    if self.table.held is None:
                        self.table.hold(f"the supervisor was called by {who}", who)
                elif self.step is Step.HELD:
                    self.message = "the table is held: only a supervisor can release it"
                elif button == "next":
                    self._next(who)
                else:
                    self._confirm(who)
            except HeldForSupervisor as err:
                self.table.hold(str(err), "reader")
            except RoundStateError as err:
                self.message = str(err)
            self.announce()

    def start_value(self, source: str, result: RngResult | DiceResult) -> None:
        """A value from the start-seat device (any thread). Used when a round waits for one, else logged."""
        with self.table.lock:
            if self.health is not None:
                self.health.observe(result)
            dice = list(result.dice) if isinstance(result, DiceResult) else None
            value = result.total if dice else result.value
            if self.step is Step.START:
                self.table.current.start_seat(source, value, dice=dice, seq=result.seq)
                self.zones = {}
            else:
                self.table.log(Events.DEVICE_VALUE, {"device": source, "value": value, "dice": dice,
                                                     "seq": result.seq, "used": False, "step": self.step.value},
                               "device")
            self.announce()

    def name_card(self, zone: str, position: int, card: str, who: str = "dealer") -> None:
        """The dealer names a card the camera could not read (or corrects one before CONFIRM)."""
        with self.table.lock:
            read = self.zones.get(zone)
            if read is None or read.reads is None or zone not in self.wanted_zones():
                raise DealerInputError(f"{zone}: not being read now")
            if not 0 <= position < len(read.reads):
                raise DealerInputError(f"{zone}: no card at position {position} (it has {len(read.reads)})")
            read.picked[position] = (str(Card.parse(card)), who)
            self.announce()

    def enter_hand(self, zone: str, cards: list[str], who: str = "dealer") -> None:
        """A whole zone entered by hand (the camera is down or cannot see it): every card is the dealer's."""
        with self.table.lock:
            if zone not in self.wanted_zones():
                raise DealerInputError(f"{zone}: not being read now")
            named = [str(c) for c in parse_cards(cards, unique=False)]
            self.zones[zone] = ZoneRead(StableRead(self.stable_frames),
                                        [{"card": None, "reason": f"entered by {who}"} for _ in named],
                                        picked={i: (c, who) for i, c in enumerate(named)})
            self.announce()

    def tick(self) -> bool:
        """Look at the layout once; True when a zone's read became stable (new) in this look."""
        zones = self.wanted_zones()
        if not zones:
            return False
        looked = self.eye.look(zones)  # slow (the reader): outside the lock
        if looked is None:
            return False
        changed = False
        with self.table.lock:
            wanted = set(self.wanted_zones())
            for name, (reads, image) in looked.items():
                if name not in wanted:
                    continue  # the dealer confirmed while the camera was looking
                zone = self.zones.setdefault(name, ZoneRead(StableRead(self.stable_frames)))
                steady = zone.stable.offer(reads)
                if steady is None or zone.reads is not None and not _camera_read(zone):
                    continue
                if zone.reads is None or [r["card"] for r in steady] != [r["card"] for r in zone.reads]:
                    zone.reads, zone.picked = steady, {}
                    changed = True
                zone.image = image  # the latest frame of the steady read is what the log keeps
            if changed:
                self.announce()
        return changed

    # --- what each button does ----------------------------------------------------------------

    def _round_or_none(self) -> str | None:
        return self.table.current.round_id if self.table.current is not None else None

    def _next(self, who: str) -> None:
        step = self.step
        if step is Step.IDLE:
            if not self.bets:
                raise RoundStateError("enter the wagers first")
            table_round = self.table.new_round(self._round_id())
            table_round.open(self.banker, self.bets, self.banker_wager, who=who)
            self.zones = {}
            self._request_start()
        elif step is Step.START:
            self._request_start()
        else:
            raise RoundStateError("NEXT does nothing now: the hands are being read (CONFIRM accepts them)")

    def _confirm(self, who: str) -> None:
        step, current = self.step, self.table.current
        if step is Step.BANKER:
            zone = self._complete("banker", HAND)
            self._confirm_picks("banker", zone)
            current.banker_cards(zone.cards(), read=zone.reads, images=self._images(zone), who=who)
            self.zones = {}
        elif step is Step.SEATS:
            seats = [b["seat"] for b in current.state["bets"] if b["seat"] not in current.state["seat_cards"]]
            ready = {seat: (self._complete(f"seat{seat}.front"), self._complete(f"seat{seat}.back"))
                     for seat in seats}
            for seat, (front, back) in ready.items():
                if len(front.cards()) + len(back.cards()) != HAND:
                    raise RoundStateError(f"seat {seat}: {len(front.cards()) + len(back.cards())} cards seen, "
                                          f"{HAND} expected: name or enter the hand")
            for seat, (front, back) in ready.items():
                self._confirm_picks(f"seat{seat}.front", front)
                self._confirm_picks(f"seat{seat}.back", back)
                current.seat_cards(seat, front.cards(), back.cards(), read=[*front.reads, *back.reads],
                                   images=self._images(front) + self._images(back), who=who)
            current.settle()
            self.zones = {}
        else:
            raise RoundStateError("CONFIRM does nothing now: there is no read to accept")

    def _complete(self, name: str, count: int | None = None) -> ZoneRead:
        zone = self.zones.get(name)
        if zone is None or zone.reads is None:
            raise RoundStateError(f"{name}: no steady read yet")
        cards = zone.cards()
        if count is not None and len(cards) != count:
            raise RoundStateError(f"{name}: {len(cards)} cards seen, {count} expected")
        if None in cards:
            raise RoundStateError(f"{name}: name the unreadable card(s) at position(s) "
                                  f"{[i for i, c in enumerate(cards) if c is None]} first")
        return zone

    def _confirm_picks(self, name: str, zone: ZoneRead) -> None:
        for position, (card, who) in sorted(zone.picked.items()):
            self.table.current.confirm_read(name, position, card, who)

    def _images(self, zone: ZoneRead) -> list[str]:
        png = zone.image()
        return [self.table.audit.store_image(png)] if png else []

    # --- what the dealer sees -----------------------------------------------------------------

    def prompt(self) -> dict:
        with self.table.lock:
            step = self.step
            zones = {name: z.to_json() for name, z in self.zones.items() if z.reads is not None}
            return {"step": step.value, "say": self.message or _say(step, self.table, self.bets, zones),
                    "held": self.table.held, "round": self._round_or_none(), "start_source": self.start_source,
                    "player_seats": self.table.rules.start.player_seats,
                    "bets": self.bets, "banker": self.banker,
                    "banker_wager": None if self.banker_wager is None else str(self.banker_wager),
                    "wanted": self.wanted_zones(), "zones": zones}

    def announce(self) -> None:
        """Tell the lamps and the screen where the round stands."""
        self._lamp("attention", self.table.held is not None)
        self._lamp("ready", self.step in (Step.IDLE, Step.START))
        self._on_prompt(self.prompt())


def _camera_read(zone: ZoneRead) -> bool:
    """A zone entered by hand keeps the dealer's cards until CONFIRM; the camera does not overwrite it."""
    return not (zone.reads and all(r.get("reason", "").startswith("entered by") for r in zone.reads))


def _amount(value, what: str) -> str:
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise DealerInputError(f"{what}: {value!r} is not an amount") from None
    if not amount.is_finite() or amount <= 0 or amount != amount.quantize(Decimal("0.01")):
        raise DealerInputError(f"{what}: {value!r} is not a positive amount in cents")
    return str(amount)


def _say(step: Step, table: Table, bets: list[dict], zones: dict) -> str:
    if step is Step.HELD:
        return f"Held: {table.held}"
    if step is Step.IDLE:
        return "Press NEXT to open the round" if bets else "Enter the wagers, then press NEXT"
    if step is Step.START:
        return "Waiting for the start-seat value (NEXT asks the device again)"
    unreadable = [f"{name} card {i + 1}" for name, z in zones.items() for i in z["unreadable"]]
    if unreadable:
        return "Name the unreadable card(s): " + ", ".join(unreadable)
    if step is Step.BANKER:
        return ("Press CONFIRM to accept the banker's hand" if "banker" in zones
                else "Turn the banker's seven cards face up in the banker zone")
    current = table.current.state
    return ("Set the banker's hand, lay the players' hands, then press CONFIRM to settle"
            if current.get("banker_cards") else "Lay the players' hands")
