"""The dealer's round loop: a round driven by the dealer's buttons, the start-seat device and the camera.

The same three buttons sit on the table rail (GPIO) and on the touch screen: NEXT opens a round
with the wagers entered and asks the device for the start value, CONFIRM accepts what the camera
read, SUPERVISOR calls the supervisor and holds the table. Between rounds, where players may bank,
CONFIRM offers the bank round the table (:mod:`.bank_walk`): CONFIRM then means the seat asked takes
it, NEXT that it passes, and the ready lamp flashes the seat's number. A zone's read is offered to the dealer
only when it has been the same over several frames; an unreadable card is named by the dealer
(never by the appliance) before CONFIRM is accepted; with the camera down the dealer enters a
whole hand. Inputs come from several threads and are taken one at a time under the table's lock.

Where the layout has the banker's set zones (``banker.front``, ``banker.back``), the house dealer
sets the banker's hand there once its seven cards are read and the house way shown; the camera
reads the setting with the players' hands, and CONFIRM compares it with the house way: another
setting holds the round (recorded, both settings on the screen) until the dealer resets it, or a
supervisor lets it stand (settled as the cards lie, ``set_by: dealer``).

Every step ends up in the round engine (:mod:`.round`), so every decision is an audit record; a
start value that no round was waiting for is logged too.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..devices.gpio import BUTTONS, Flashing
from ..devices.protocol import DiceResult, RngResult
from ..devices.start_source import HealthTracker
from ..game.banking import history_needed, passed_over
from ..game.cards import Card, parse_cards
from ..game.money import MoneyError, fmt, money
from ..game.rules import BankerSetting, BankingMode, OnePile, WrongCount
from ..game.settlement import RoundError, Wager, check_wagers, house_way_difference
from ..game.start_seat import DEALER, Position
from ..records.round_state import HeldSetting, RoundState
from ..vision.deck_match import DECK_MISMATCH
from ..vision.layout import BANKER_SET_ZONES
from .bank_walk import BankWalk, moved_bank
from .eye import Eye
from .recording import SpaceLimits
from .round import Events, HeldForSupervisor, Named, Phase, RoundStateError, StartValueRefused
from .stable import StableRead
from .table import Table

log = logging.getLogger(__name__)

HAND = 7
NOT_CONNECTED = "the start-seat device is not connected: reconnect it, or a supervisor enters the value"


class Step(enum.Enum):
    IDLE = "idle"  # between rounds: NEXT opens one (CONFIRM offers the bank, where players may bank)
    BANK = "bank"  # between rounds, the bank offered seat by seat: CONFIRM the seat takes it, NEXT it passes
    START = "start"  # waiting for the start-seat value
    BANKER = "banker"  # reading the banker's seven cards
    SEATS = "seats"  # reading the players' hands (and the house dealer's setting)
    RESET = "reset"  # the house dealer's setting is not the house way: held for the dealer to reset it
    HELD = "held"  # waiting for a supervisor


class DealerInputError(ValueError):
    """A dealer's input that cannot be taken (a bad wager, a card for a zone not being read)."""


class SupervisorPinNeeded(DealerInputError):
    """A dealer's input that takes a supervisor's id and PIN with it (the screen asks for them)."""


class OverrideNeedsPin(SupervisorPinNeeded):
    """A hand typed over a zone the camera reads steadily: it takes a supervisor's PIN."""


class MisdealNeedsPin(SupervisorPinNeeded):
    """A misdeal once the deal is complete (the banker's hand opened and accepted): the supervisor's."""


@dataclass
class ZoneRead:
    """One zone's stable read and the cards the dealer named in it."""

    stable: StableRead
    reads: list[dict] | None = None  # the accepted (stable) read, left to right
    image: Callable[[], bytes | None] = lambda: None
    picked: dict[int, tuple[str, str]] = field(default_factory=dict)  # position -> (card, who named it)
    entered: bool = False  # typed in by the dealer: the camera does not overwrite it before CONFIRM

    def cards(self) -> list[str | None]:
        return [self.picked[i][0] if i in self.picked else r["card"] for i, r in enumerate(self.reads or [])]

    def laid(self) -> list[str]:
        """The cards of a zone read or named in full (as ``DealerLoop._complete`` requires before any is recorded)."""
        cards = [c for c in self.cards() if c is not None]
        if self.reads is None or len(cards) != len(self.reads):
            raise RoundStateError("a zone's cards are not all read or named")
        return cards

    def to_json(self) -> dict:
        return {"reads": self.reads, "cards": self.cards(), "picked": {str(k): v[0] for k, v in self.picked.items()},
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


class DealerLoop:
    def __init__(self, table: Table, eye: Eye, request_start: Callable[[], bool], round_id: Callable[[], str],
                 start_source: str, health: HealthTracker | None = None, stable_frames: int = 3,
                 lamp: Callable[[str, bool | Flashing], None] = lambda name, on: None,
                 on_prompt: Callable[[dict], None] = lambda prompt: None, space: SpaceLimits = SpaceLimits(),
                 reads_setting: bool = False):
        """``reads_setting``: the layout has the banker's set zones, so the house dealer's setting is read."""
        self.table, self.eye, self.space = table, eye, space
        self.reads_setting = reads_setting
        self._request_start, self._round_id = request_start, round_id
        self.start_source = start_source
        self.health = health
        self.stable_frames = stable_frames
        self._lamp, self._on_prompt = lamp, on_prompt
        self.bets: list[dict] = []
        self.banker: Position = DEALER
        self.banker_wager: Decimal | None = None
        self.zones: dict[str, ZoneRead] = {}
        self.version = 0  # changes whenever a read shown to the dealer changes
        self.looks = 0  # frames the camera has delivered
        self.message = ""  # the last refusal, shown to the dealer until the next input
        self.walk: BankWalk | None = None  # the bank being offered round the table, between rounds
        #: (round, seat) -> who entered the player's request to have the hand set by the house way
        self.requests: dict[tuple[str, int], str] = {}
        # A supervisor's action (a release, a void, a start value) changes what the dealer is asked.
        table.listeners.append(lambda record: self.announce())

    # --- where the round is ---------------------------------------------------------------------

    @property
    def step(self) -> Step:
        if self.table.held is not None:
            return Step.HELD
        if self.walk is not None:  # only between rounds: NEXT passes the bank instead of opening one
            return Step.BANK
        current = self.table.current
        phase = current.phase if current is not None else Phase.SETTLED
        return {Phase.BETS_OPEN: Step.START, Phase.START_SEAT: Step.BANKER, Phase.BANKER: Step.SEATS,
                Phase.SET_HELD: Step.RESET, Phase.SET: Step.SEATS, Phase.PLAYERS: Step.SEATS}.get(phase, Step.IDLE)

    def wanted_zones(self) -> list[str]:
        """The zones the camera should read now."""
        with self.table.lock:
            step = self.step
            if step is Step.BANKER:
                return self._banker_zones()
            if step in (Step.SEATS, Step.RESET):
                return self._set_zones() + [f"seat{s.seat}.{part}" for s in self.table.playing.state.seats.values()
                                            if s.bet is not None and not s.has_cards for part in ("front", "back")]
            return []

    def _set_zones(self) -> list[str]:
        """The banker's set zones while the house dealer's setting is still to be accepted."""
        banker = self.table.playing.state.banker
        return list(BANKER_SET_ZONES) if banker.set_checked and banker.setting is None else []

    def _banker_zones(self) -> list[str]:
        """A player-banker who sets his own hand lays it front and back in his seat's zones (his seat has
        no hand of its own); else the banker's seven cards lie in the banker zone, set by the house way."""
        banker = self.table.playing.state.banker.seat
        if banker != DEALER and self.table.rules.banking.banker_sets is BankerSetting.OWN:
            return [f"seat{banker}.front", f"seat{banker}.back"]
        return ["banker"]

    # --- inputs -------------------------------------------------------------------------------

    def set_bets(self, bets: list[dict], banker: Position = DEALER, banker_wager=None, who: str = "dealer") -> None:
        """The wagers for the next round (the camera does not read chips): ``[{"seat", "wager", "fortune"?,
        "backline"?: [{"wager", "by"?, "fortune"?}]}]``, the backline being the other wagers riding on
        the seat's hand (Capitol's backline, Fortune's other betting circles)."""
        with self.table.lock:
            if self.step not in (Step.IDLE, Step.BANK):
                raise DealerInputError("wagers can be changed only between rounds")
            checked, banker, wager = self._checked_wagers(bets, banker, banker_wager, who)
            if self.walk is not None:  # the banker is chosen on the screen instead
                self.table.log(Events.BANK_OFFER_ENDED, {"passed": self.walk.passed, "banker": banker,
                                                         "reason": "the wagers and the banker were entered"}, who)
                self.walk = None
            self.bets, self.banker, self.banker_wager = checked, banker, wager
            log.info("%s set the wagers: %s", who, checked)
            self.announce()

    def _checked_wagers(self, bets: list[dict], banker: Position, banker_wager, who: str):
        """The wagers checked against the house rules and the banker against the rotation rules (a
        refused banker is logged): the seats' wagers, the banker and the banker's wager, to be kept."""
        if banker != DEALER and type(banker) is not int:
            raise DealerInputError(f"banker: {banker!r:.40} is not \"dealer\" or a seat number")
        checked = [_checked_bet(i, bet) for i, bet in enumerate(bets)]
        wager = None if banker_wager in (None, "") else Decimal(_amount(banker_wager, "banker wager"))
        try:
            check_wagers(self.table.rules, banker, wager, [
                (b["seat"], Decimal(b["wager"]), Decimal(b.get("fortune", 0)) or None,
                 [Wager(Decimal(w["wager"]), w["by"], Decimal(w.get("fortune", 0))) for w in b.get("backline", [])])
                for b in checked])
        except RoundError as err:
            raise DealerInputError(str(err)) from None
        # The settlement gives a wager over the maximum no action on the excess (a disputed round
        # settles); at the table such a wager is not taken at all.
        over = [(b["seat"], w) for b in checked for w in [b, *b.get("backline", [])]
                if Decimal(w["wager"]) > self.table.rules.limits.maximum]
        if over:
            seat, w = over[0]
            raise DealerInputError(f"seat {seat} {'wager' if 'seat' in w else w['by']}: {w['wager']} is over the "
                                   f"table maximum {self.table.rules.limits.maximum}")
        refused = self.table.bank_refused(banker, who)
        if refused:
            raise DealerInputError(refused)
        return checked, banker, wager

    def press(self, button: str, who: str = "dealer", version: int | None = None) -> str:
        """One press of NEXT, CONFIRM or SUPERVISOR, from the rail or the screen; returns why nothing
        happened, or "". The screen sends the ``version`` of the reads it shows: a CONFIRM of reads
        that have changed since is refused."""
        if button not in BUTTONS:
            raise DealerInputError(f"unknown button {button!r}: expected one of {', '.join(BUTTONS)}")
        with self.table.lock:
            self.message = ""
            ask_device = False
            try:
                if button == "confirm" and version is not None and version != self.version:
                    self.message = "the reads changed since the screen showed them: check them and CONFIRM again"
                elif button == "supervisor":
                    self.table.log(Events.SUPERVISOR_CALLED, {"round": self._round_or_none(), "step": self.step.value},
                                   who)
                    if self.table.held is None or self.table.audit.stopped is not None:  # held after a stop too
                        self.table.hold(f"the supervisor was called by {who}", who)
                elif self.step is Step.HELD:
                    self.message = "the table is held: only a supervisor can release it"
                elif button == "next" and self.step is Step.BANK:
                    self._pass_bank(who)
                elif button == "next":
                    ask_device = self._next(who)
                elif self.step is Step.BANK:
                    self._move_bank(self._walk.asking, who, self._walk)
                elif self.step is Step.IDLE and self.table.bank_offers():
                    self._offer_bank(who)
                else:
                    self._confirm(who)
            except HeldForSupervisor as err:
                self.table.hold(str(err), "reader")
            except ValueError as err:
                self.message = str(err)
            self.announce()
        # The device is asked outside the table's lock: a serial write can block (up to its timeout),
        # and the camera, the other buttons and the supervisor must not wait on it.
        if ask_device and not self._request_start():
            with self.table.lock:
                self.message = NOT_CONNECTED
                self.announce()
        return self.message

    # --- the bank offered round the table (between rounds) ---------------------------------------

    def _offer_bank(self, who: str) -> None:
        """CONFIRM between rounds: the bank is offered to the first seat in play that may take it."""
        in_play = {b["seat"] for b in self.bets} | ({self.banker} if isinstance(self.banker, int) else set())
        if not in_play:
            raise RoundStateError("enter the wagers first: the bank is offered to the seats in play")
        walk = BankWalk.begin(self.table.bank_offers(), in_play)
        if walk.asked is None:
            self._bank_unclaimed(walk, who)
            return
        self.table.log(Events.BANK_OFFERED, {"seat": walk.asked, "passed": [],
                                             "not_offered": [o.to_json() for o in walk.not_offered]}, who)
        self.walk = walk

    def _pass_bank(self, who: str) -> None:
        """NEXT while the bank is offered: the seat asked passes, and the next seat is asked."""
        walk = self._walk
        self.table.log(Events.BANK_PASSED, {"seat": walk.asked}, who)
        walk.passed_on()
        if walk.asked is None:
            self.walk = None
            self._bank_unclaimed(walk, who)
        else:
            self.table.log(Events.BANK_OFFERED, {"seat": walk.asked, "passed": walk.passed}, who)

    @property
    def _walk(self) -> BankWalk:
        """The bank being offered, at the bank step (which only an offer under way reaches)."""
        if self.walk is None:
            raise RoundStateError("the bank is not being offered")
        return self.walk

    def _bank_unclaimed(self, walk: BankWalk, who: str) -> None:
        """No seat in play took the bank: the house keeps it where it may bank (Greektown: "the dealer will
        act as banker when all players decline"); else the offer ends and the banker is unchanged."""
        self.walk = None
        try:
            if self.table.rules.banking.mode is BankingMode.PLAYER:
                raise RoundStateError(f"no seat in play took the bank, and {self.table.rules.name} has no house "
                                      "bank (banking.mode)" + "".join(f"; seat {o.seat} may not bank: {o.refusal}"
                                                                      for o in walk.not_offered))
            self._move_bank(DEALER, who, walk)
        except ValueError as err:
            self.table.log(Events.BANK_OFFER_ENDED, {"passed": walk.passed, "banker": self.banker,
                                                     "reason": str(err)}, who)
            raise RoundStateError(f"{err}: offer the bank again (CONFIRM) or choose the banker on the screen") from None

    def _move_bank(self, to: Position, who: str, walk: BankWalk) -> None:
        """The bank goes to ``to`` (the seat asked, or the house when every seat passed), the chips staying on
        their seats (:func:`.bank_walk.moved_bank`); refused with the reason while the wagers do not allow it."""
        bets, wager = moved_bank(self.bets, self.banker, self.banker_wager, to)
        checked, banker, wager = self._checked_wagers(bets, to, wager, who)
        self.table.log(Events.BANK_TAKEN, {"banker": banker, "banker_wager": None if wager is None else fmt(wager),
                                           "passed": list(walk.passed), "bets": checked,
                                           "not_offered": [o.to_json() for o in walk.not_offered]}, who)
        self.bets, self.banker, self.banker_wager, self.walk = checked, banker, wager, None

    # --- the dealer's misdeal ------------------------------------------------------------------

    def misdeal(self, reason: str, who: str = "dealer", round_id: str | None = None, supervisor: str = "",
                pin: str = "", address: str = "local") -> None:
        """The dealer declares a misdeal, for one of the house file's reasons (Capitol rule 29), while the
        round is dealt: voided as a supervisor's misdeal is (:meth:`.Table.declare_misdeal`). The screen
        sends the ``round_id`` it shows: a misdeal of a round that has since ended is refused. Once the deal
        is complete (the banker's hand opened and accepted: the players have set their hands, general rules
        "Once the banker's cards are exposed, players may not touch their cards") a misdeal would void hands
        already seen face up: it takes a supervisor's id and PIN, and is the supervisor's (logged as his)."""
        self.table.rules.misdeal_reason(reason)  # an unlisted reason is refused before the PIN is asked
        with self.table.lock:
            round_id = self._misdeal_round(round_id)
            dealt = self.step in (Step.SEATS, Step.RESET)
        if not dealt:
            with self.table.lock:
                self.table.declare_misdeal(self._misdeal_round(round_id), reason, who)
        elif not supervisor:
            raise MisdealNeedsPin(f"round {round_id}: the deal is complete (the banker's hand is open): a misdeal "
                                  "now needs the supervisor's PIN")
        else:
            self.table.misdeal(round_id, supervisor, pin, reason, address)  # the PIN: slow, outside the lock
        with self.table.lock:
            self.zones = {}
            self.announce()

    def _misdeal_round(self, round_id: str | None) -> str:
        """The round in play, which a misdeal voids: the one the screen showed (``round_id``), if given."""
        step = self.step
        if step is Step.HELD:
            raise DealerInputError("the table is held: the supervisor declares the misdeal")
        if step not in (Step.START, Step.BANKER, Step.SEATS, Step.RESET):
            raise DealerInputError("no round is being dealt: a misdeal voids the round in play")
        current = self.table.playing
        if round_id is not None and round_id != current.round_id:
            raise DealerInputError(f"round {round_id} is no longer in play (round {current.round_id} is): "
                                   "look at the table again")
        return current.round_id

    def start_value(self, source: str, result: RngResult | DiceResult) -> None:
        """A value from the start-seat device (any thread). Used when a round waits for one, else logged; a
        value by a method the house does not use (an RNG at Capitol's dice table) is logged as refused, and
        the round goes on waiting for the house's own."""
        with self.table.lock:
            if self.health is not None:
                self.health.observe(result)
            dice = list(result.dice) if isinstance(result, DiceResult) else None
            value = result.total if isinstance(result, DiceResult) else result.value
            unused = {"device": source, "value": value, "dice": dice, "seq": result.seq, "used": False,
                      "step": self.step.value}
            if self.step is Step.START:
                try:
                    self.table.playing.start_seat(source, value, dice=dice, seq=result.seq)
                    self.zones = {}
                except StartValueRefused as err:
                    self.table.log(Events.DEVICE_VALUE, {**unused, "refused": str(err)}, "device")
                    self.message = str(err)
            else:
                self.table.log(Events.DEVICE_VALUE, unused, "device")
            self.announce()

    def name_card(self, zone: str, position: int, card: str, who: str = "dealer", version: int | None = None) -> None:
        """The dealer names a card the camera could not read. The screen sends the ``version`` of the
        reads it showed: if they changed since, the position may be another card, and it is refused."""
        with self.table.lock:
            read = self.zones.get(zone)
            if read is None or read.reads is None or zone not in self.wanted_zones():
                raise DealerInputError(f"{spoken(zone)}: not being read now")
            if version is not None and version != self.version:
                raise DealerInputError(f"{spoken(zone)}: the read changed since the screen showed it: name the card again")
            if not 0 <= position < len(read.reads):
                raise DealerInputError(f"{spoken(zone)}: no card {position + 1} (it has {len(read.reads)})")
            if read.reads[position]["card"] is not None:
                raise DealerInputError(f"{spoken(zone)}: the camera read {read.reads[position]['card']} as card "
                                       f"{position + 1}; only an unreadable card is named (enter the zone by hand)")
            read.picked[position] = (str(Card.parse(card)), who)
            self.version += 1
            self.announce()

    def enter_hand(self, zone: str, cards: list[str], who: str = "dealer", supervisor: str = "", pin: str = "",
                   address: str = "local") -> None:
        """A whole zone entered by hand (the camera is down or cannot see it): every card is the dealer's.
        Over a zone the camera reads steadily, the typed hand replaces the camera's only with a
        supervisor's PIN, and is logged as an override of the camera (what it read, what was typed)."""
        named = [str(c) for c in parse_cards(cards)]
        with self.table.lock:
            if zone not in self.wanted_zones():
                raise DealerInputError(f"{spoken(zone)}: not being read now")
            camera = self._camera_read(zone)
        overrider = None
        if camera is not None:
            if not supervisor:
                raise OverrideNeedsPin(f"{spoken(zone)}: the camera reads {' '.join(c or '?' for c in camera)} steadily: "
                                       "entering it by hand needs a supervisor's PIN")
            overrider = self.table.gate.check(supervisor, pin, address)  # slow: outside the lock
        with self.table.lock:
            if zone not in self.wanted_zones():
                raise DealerInputError(f"{spoken(zone)}: not being read now")
            if overrider is not None:
                self.table.log(Events.CAMERA_OVERRIDDEN, {"round": self._round_or_none(), "zone": zone,
                                                          "camera": camera, "entered": named, "dealer": who},
                               f"supervisor {overrider}")
            self.zones[zone] = ZoneRead(StableRead(self.stable_frames),
                                        [{"card": None, "reason": f"entered by {who}"} for _ in named],
                                        picked={i: (c, who) for i, c in enumerate(named)}, entered=True)
            self.version += 1
            self.announce()

    def _camera_read(self, zone: str) -> list[str | None] | None:
        """What the camera reads steadily in ``zone``, if it reads at least one card there."""
        read = self.zones.get(zone)
        if read is None or read.entered or read.reads is None or all(r["card"] is None for r in read.reads):
            return None
        return [r["card"] for r in read.reads]

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
            self.looks += 1
            if self.table.held is None and any(DECK_MISMATCH in (r.get("reason") or "")
                                               for reads, _ in looked.values() for r in reads):
                self.table.hold(DECK_MISMATCH, "reader")  # the technician teaches the deck in play
            wanted = set(self.wanted_zones())
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
                if zone.reads is None or [r["card"] for r in steady] != [r["card"] for r in zone.reads]:
                    zone.reads, zone.picked = steady, {}
                    changed = True
                zone.image = image  # the latest frame of the steady read is what the log keeps
            if changed:
                self.version += 1
                self.announce()
        return changed

    # --- what each button does ----------------------------------------------------------------

    def _round_or_none(self) -> str | None:
        return self.table.current.round_id if self.table.current is not None else None

    def _next(self, who: str) -> bool:
        """Opens the round if none is open; True when the device is to be asked for the start value."""
        step = self.step
        if step is Step.IDLE:
            if not self.bets:
                raise RoundStateError("enter the wagers first")
            refused = self.space.refusal(self.table.audit)
            if refused:
                raise RoundStateError(refused)
            # The wagers stay from round to round, and the rotation moves on: the banker entered is
            # checked again for this round (NEXT on the rail alone must not give a third bank in a row).
            if self.table.bank_refused(self.banker, who):  # logged with the house's name
                raise RoundStateError(self._bank_prompt()["refused"])
            history = self.table.bank_history
            passed = passed_over(self.banker, self.table.bank_offers())
            table_round = self.table.new_round(self._round_id())
            table_round.open(self.banker, self.bets, self.banker_wager, who=who,
                             previous_rounds=history_needed(history, self.table.rules.banking)
                             if self.banker != DEALER else None, bank_passed=passed)
            self.zones = {}
            return True
        if step is Step.START:
            return True
        raise RoundStateError("NEXT does nothing now: the hands are being read (CONFIRM accepts them)")

    def _confirm(self, who: str) -> None:
        step = self.step
        if step is Step.BANKER:
            zones = self._banker_zones()
            if zones == ["banker"]:
                zone = self._complete("banker", HAND)
                self.table.playing.banker_cards(zone.laid(), read=zone.reads, images=self._images(zone), who=who,
                                     set_checked=self.reads_setting, named=_named(("banker", zone)))
            else:
                front, back = self._hand(zones[0], zones[1], "The banker")
                self.table.playing.banker_cards(front.laid() + back.laid(), read=_reads(front, back),
                                     images=self._images(front) + self._images(back), who=who,
                                     front=front.laid(), back=back.laid(), named=_named(*zip(zones, (front, back))))
            self.zones = {}
        elif step in (Step.SEATS, Step.RESET):
            setting = self._hand(*BANKER_SET_ZONES, "The banker's setting") if self._set_zones() else None
            if setting is not None and self.table.playing.setting_difference(setting[0].laid(), setting[1].laid()):
                self._accept_setting(setting, who)  # held (recorded): the dealer resets
                return
            seats = _waiting(self.table.playing.state)
            counted = self.table.rules.wrong_count is not WrongCount.FOUL  # else a wrong count is the player's foul
            ready = {seat: self._hand(f"seat{seat}.front", f"seat{seat}.back", f"Seat {seat}", counted)
                     for seat in seats}
            counts = {seat: LaidCount.of(front.cards(), back.cards()) for seat, (front, back) in ready.items()}
            ways = {seat: way for seat, count in counts.items()
                    if (way := self._house_way_for(seat, count)) is not None}
            for seat, count in counts.items():  # refused before any seat is recorded
                if seat not in ways:
                    self.table.playing.miscount(seat, count.total)
                elif count.wrong:
                    raise RoundStateError(f"Seat {seat}: {count.total} cards seen: the house way sets {HAND}: "
                                          "name or enter the hand")
            # every seat checked together before any is recorded: a card seen twice holds the whole table
            self.table.playing.hold_if_seen({f"seat {seat}": front.laid() + back.laid()
                                  for seat, (front, back) in ready.items()})
            if setting is not None:
                self._accept_setting(setting, who)
            for seat, (front, back) in ready.items():
                self.table.playing.seat_cards(seat, front.laid(), back.laid(), read=_reads(front, back),
                                   images=self._images(front) + self._images(back), who=who,
                                   named=_named((f"seat{seat}.front", front), (f"seat{seat}.back", back)),
                                   house_way=ways.get(seat))
            self.table.playing.settle()
            self.zones = {}
        else:
            raise RoundStateError("CONFIRM does nothing now: there is no read to accept")

    def _house_way_for(self, seat: int, count: LaidCount) -> dict | None:
        """Why the house way sets the seat's hand, or None: the player asked for it (entered by the dealer), or
        laid the seven cards in one pile (all in one of the seat's two zones, none in the other) where the
        house says so (``player_hands.one_pile``; Capitol: "it will be set as houseway")."""
        asked = self.requests.get((self.table.playing.round_id, seat))
        if asked is not None:
            return {"why": "request", "requested_by": asked}
        if self.table.rules.one_pile is OnePile.HOUSE_WAY and count.one_pile:
            return {"why": "one pile"}
        return None

    def ask_house_way(self, seat: int, who: str = "dealer") -> None:
        """A player asks to have the hand set by the house way (Capitol: "may request their hands to be set
        as houseway"): entered by the dealer on the seat while the players' hands are read, before CONFIRM.
        CONFIRM then records the seat's seven cards, however laid, set by the house way, with who entered it."""
        with self.table.lock:
            rules = self.table.rules
            if not rules.house_way_on_request:
                raise DealerInputError(f"{rules.name} does not set a player's hand by the house way on request "
                                       "(player_hands.house_way_on_request)")
            if self.step is not Step.SEATS or type(seat) is not int or seat not in _waiting(self.table.playing.state):
                raise DealerInputError(f"seat {seat!r:.10}: no hand of that seat is being read now")
            self.requests[(self.table.playing.round_id, seat)] = who
            log.info("%s: seat %s asked for the house way (entered by %s)", self.table.playing.round_id, seat, who)
            self.version += 1
            self.announce()

    def _accept_setting(self, setting: tuple[ZoneRead, ZoneRead], who: str) -> None:
        """The house dealer's setting as read, recorded: accepted, or held for a reset."""
        front, back = setting
        self.table.playing.banker_set(front.laid(), back.laid(), read=_reads(front, back),
                                      images=self._images(front) + self._images(back), who=who,
                                      named=_named(*zip(BANKER_SET_ZONES, setting)))

    def let_setting_stand(self, supervisor: str, pin: str, reason: str, address: str = "local") -> None:
        """A supervisor lets the house dealer's held setting stand: it is settled as the cards lie. The
        cards must still lie as they were held (what the screen showed the supervisor)."""
        with self.table.lock:
            if self.step is not Step.RESET:
                raise DealerInputError("no setting of the banker's hand is held")
            round_id, setting = self.table.playing.round_id, self.table.playing.state.banker.held
            if setting is None:
                raise DealerInputError("no setting of the banker's hand is held")
            held = {"front": setting.front, "back": setting.back}
            now = [zone.cards() if (zone := self.zones.get(name)) and zone.reads is not None else None
                   for name in BANKER_SET_ZONES]
            if now != [held["front"], held["back"]]:
                raise DealerInputError("the banker's cards have moved since the hold (or the camera no longer sees "
                                       "them): CONFIRM the setting as it lies now, then let it stand")
        # the PIN: slow, outside the lock (the table checks again that this setting is still the one held)
        self.table.setting_stands(round_id, supervisor, pin, reason, held, address)

    def _hand(self, front_zone: str, back_zone: str, whose: str, counted: bool = True) -> tuple[ZoneRead, ZoneRead]:
        """A hand's two zones, each steady and fully named, seven cards in all unless not ``counted`` (a
        front of other than two cards is the player's foul, settled as such)."""
        front, back = self._complete(front_zone), self._complete(back_zone)
        count = LaidCount.of(front.cards(), back.cards())
        if counted and count.wrong:
            raise RoundStateError(f"{whose}: {count.total} cards seen, {HAND} expected: name or enter the hand")
        return front, back

    def _complete(self, name: str, count: int | None = None) -> ZoneRead:
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

    def _images(self, zone: ZoneRead) -> list[str]:
        png = zone.image()
        return [self.table.audit.store_image(png)] if png else []

    # --- what the dealer sees -----------------------------------------------------------------

    def prompt(self) -> dict:
        with self.table.lock:
            step = self.step
            zones = {name: z.to_json() for name, z in self.zones.items() if z.reads is not None}
            wanted = self.wanted_zones()
            bank = self._bank_prompt()
            setting = self._setting_prompt(zones) if step in (Step.SEATS, Step.RESET) else None
            asked = sorted(seat for (round_id, seat) in self.requests if round_id == self._round_or_none())
            say = self.message or _say(step, self.table, self.bets, zones, wanted,
                                       bank["refused"] and f"seat {self.banker} may not bank this round",
                                       self.walk, setting, asked)
            return {"step": step.value, "say": say, "bank": bank, "setting": setting, "house_way_asked": asked,
                    "house_way_seats": self._house_way_seats(),
                    "misdeal_reasons": list(self.table.rules.misdeal_reasons),
                    "held": self.table.held, "round": self._round_or_none(), "start_source": self.start_source,
                    "player_seats": self.table.rules.start.player_seats,
                    "bets": self.bets, "banker": self.banker,
                    "wager_kinds": {"backline": self.table.rules.limits.backline,
                                    "fortune": self.table.rules.fortune is not None},
                    "banker_wager": None if self.banker_wager is None else str(self.banker_wager),
                    "wanted": wanted, "zones": zones, "version": self.version,
                    "recording": self.space.status(self.table.audit), "notices": self.table.notices}

    def _house_way_seats(self) -> list[int]:
        """The seats whose player may ask now to have the hand set by the house way (:meth:`ask_house_way`):
        the seats being read, where the house sets a hand so on request."""
        if not self.table.rules.house_way_on_request or self.step is not Step.SEATS:
            return []
        return sorted(_waiting(self.table.playing.state))

    def _setting_prompt(self, zones: dict) -> dict | None:
        """The house dealer's setting beside the house way's, while it is to be accepted: each hand's cards
        and value in words, and whether the setting read (when whole) is the house way's."""
        if not self._set_zones():
            return None
        current, ev = self.table.playing, self.table.rules.evaluator()
        way = current.house_way_setting()
        read = [zones.get(name, {}).get("cards") for name in BANKER_SET_ZONES]
        laid, same = None, None
        if all(read) and None not in read[0] + read[1] and len(read[0]) + len(read[1]) == HAND:
            cards = parse_cards(read[0] + read[1], unique=False)
            mine = sorted(cards) == sorted(parse_cards(current.state.banker.cards or ()))  # none read: not his
            # a card named twice (the dealer part way through naming the unread cards again after a reset)
            # is not a hand to value yet
            laid = _valued(read[0], read[1], ev) if len(set(cards)) == HAND else \
                {"front": read[0], "back": read[1], "front_value": "-", "back_value": "-", "foul": None}
            seat = current.state.banker.seat
            same = mine and seat is not None and house_way_difference(
                seat, parse_cards(read[0]), parse_cards(read[1]), self.table.rules) is None
            laid["banker_cards"] = mine
        held = current.state.banker.held
        return {"house_way": {**_valued(way["front"], way["back"], ev), "rule": way["rule"]}, "laid": laid,
                "same": same, "held": _held_valued(held, ev)}

    def _bank_prompt(self) -> dict:
        """The next round's bank as the screen offers it: every seat in the order the bank is offered,
        with the rule that refuses it; whether the house dealer may bank; why the banker entered may not."""
        offers = self.table.bank_offers()
        refused = None
        if self.banker != DEALER:
            refused = next((o.refusal for o in offers if o.seat == self.banker), None)
            refused = refused and f"seat {self.banker} may not bank this round: {refused}"
        return {"offers": [o.to_json() for o in offers], "refused": refused,
                "house": self.table.rules.banking.mode is not BankingMode.PLAYER,
                "walk": self.walk.to_json() if self.walk is not None else None}

    def announce(self) -> None:
        """Tell the lamps and the screen where the round stands (under the lock, so that an older
        prompt never overtakes a newer one)."""
        with self.table.lock:
            step = self.step
            self._lamp("attention", self.table.held is not None or step is Step.RESET)
            # while the bank is offered, the ready lamp flashes the number of the seat asked
            self._lamp("ready", Flashing(self._walk.asking) if step is Step.BANK else step in (Step.IDLE, Step.START))
            self._on_prompt(self.prompt())


BACKLINE_LIMIT = 8  # wagers riding on one seat's hand: more than its betting circles
BY_LIMIT = 40  # characters naming who placed a backline wager


def _waiting(state: RoundState) -> list[int]:
    """The seats with a wager whose hand is not recorded yet, in the order of the wagers."""
    return [s.seat for s in state.seats.values() if s.bet is not None and not s.has_cards]


def _named(*zones: tuple[str, ZoneRead]) -> list[Named]:
    """The cards the dealer named in ``zones`` (name, read), for the round to record with the hand."""
    return [(name, position, card, who)
            for name, zone in zones for position, (card, who) in sorted(zone.picked.items())]


def _checked_bet(i: int, bet) -> dict:
    """One seat's wagers as the screen sends them, each amount checked; a backline wager's ``by`` is
    who placed it (the dealer may leave it out: "backline 1", "backline 2", ...)."""
    if not isinstance(bet, dict):
        raise DealerInputError(f"seats[{i}]: expected {{seat, wager}}, got {bet!r:.40}")
    seat = bet.get("seat")
    if type(seat) is not int:  # a JSON true is not seat 1
        raise DealerInputError(f"seats[{i}].seat: {seat!r} is not a seat number")
    others = bet.get("backline") or []
    if not isinstance(others, list) or len(others) > BACKLINE_LIMIT:
        raise DealerInputError(f"seat {seat} backline: expected a list of at most {BACKLINE_LIMIT} {{wager, by}}")
    backline = []
    for k, other in enumerate(others, 1):
        by = (other.get("by") or f"backline {k}") if isinstance(other, dict) else None
        if not isinstance(by, str) or not by.strip() or len(by) > BY_LIMIT or by.strip() == "seat":
            raise DealerInputError(f"seat {seat} backline {k}: expected {{wager, by}} (by: who wagered, at most "
                                   f"{BY_LIMIT} characters), got {other!r:.40}")
        backline.append({"wager": _amount(other.get("wager"), f"seat {seat} {by}"), "by": by.strip(),
                         **({"fortune": _amount(other["fortune"], f"seat {seat} {by} fortune")}
                            if other.get("fortune") else {})})
    return {"seat": seat, "wager": _amount(bet.get("wager"), f"seat {seat} wager"),
            **({"fortune": _amount(bet["fortune"], f"seat {seat} fortune")} if bet.get("fortune") else {}),
            **({"backline": backline} if backline else {})}


def _amount(value, what: str) -> str:
    """A wager as the screen sends it, read by the one money parser (:func:`~appliance.game.money.money`):
    more than nothing, kept as it was typed ("25", "12.50")."""
    try:
        amount = money(value, what)
    except MoneyError as err:
        raise DealerInputError(str(err)) from None
    if amount <= 0:
        raise DealerInputError(f"{what}: {value!r} is not a positive amount")
    return value if isinstance(value, str) else fmt(amount)


def _reads(front: ZoneRead, back: ZoneRead) -> list[dict]:
    """A hand's reads, front then back, as recorded."""
    return [*(front.reads or []), *(back.reads or [])]


def _held_valued(held: HeldSetting | None, ev) -> dict | None:
    """The held setting as the screen shows it, where one is held (with both hands recorded)."""
    if held is None or held.front is None or held.back is None:
        return None
    return _valued(held.front, held.back, ev)


def _valued(front: list[str], back: list[str], ev) -> dict:
    """A setting as the screen shows it: the cards, each hand's value in words, and whether it fouls."""
    fv, bv = ev.two(parse_cards(front)), ev.five(parse_cards(back))
    return {"front": front, "back": back, "front_value": ev.name(fv), "back_value": ev.name(bv), "foul": ev.fouls(fv, bv)}


def spoken(zone: str) -> str:
    """A zone as the dealer says it: ``seat3.front`` is "Seat 3, front", ``banker`` is "Banker"."""
    seat, _, part = zone.partition(".")
    name = f"Seat {seat[4:]}" if seat.startswith("seat") and seat[4:].isdigit() else seat.capitalize()
    return f"{name}, {part}" if part else name


def _say(step: Step, table: Table, bets: list[dict], zones: dict, wanted: list[str], bank_refused: str | None,
         walk: BankWalk | None, setting: dict | None, asked: Sequence[int] = ()) -> str:
    if step is Step.HELD:
        return f"Held: {table.held}"
    if step is Step.BANK and walk is not None:  # the bank step is the walk under way
        return f"Bank to seat {walk.asked}? CONFIRM takes it, NEXT passes"
    if step is Step.RESET and setting is not None and not setting["same"]:  # a held setting is shown
        return "Held: not the house way. Reset the banker's hand as shown, then CONFIRM"
    if setting is not None and setting["laid"] is not None and not setting["laid"]["banker_cards"]:
        return "The banker's set hand is not the seven cards read: set the banker's own cards"
    if setting is not None and setting["same"] is False:
        return "Not the house way: set the banker's hand as shown"
    if step is Step.IDLE:
        offered = " (CONFIRM offers the bank)" if table.bank_offers() else ""
        if bets and bank_refused:
            return f"Choose the banker: {bank_refused}{offered}"
        return f"Press NEXT to open the round{offered}" if bets else "Enter the wagers, then press NEXT"
    if step is Step.START:
        return "Waiting for the start-seat value (NEXT asks the device again)"
    unreadable = [f"{spoken(name)} card {i + 1}" for name, z in zones.items() for i in z["unreadable"]]
    if unreadable:
        return "Name the unreadable card(s): " + ", ".join(unreadable)
    steady = all(zone in zones for zone in wanted)
    if step is Step.BANKER:
        return "Press CONFIRM to accept the banker's hand" if steady else "Lay the banker's seven cards face up"
    if not steady:
        return "Set the banker's hand as shown; lay the players' hands"
    # A hand of other than seven cards is refused by CONFIRM: say so, rather than call it a foul.
    seats = sorted({name.split(".")[0] for name in wanted if name.startswith("seat")}, key=lambda s: int(s[4:]))
    counts = {s: LaidCount.of(zones[f"{s}.front"]["cards"], zones[f"{s}.back"]["cards"]) for s in seats}
    short = [f"{spoken(s)}: {n.total} cards seen" for s, n in counts.items()
             if n.wrong and (int(s[4:]) in asked or table.rules.wrong_count is not WrongCount.FOUL)]
    if short:
        return "Name or enter the hands: " + "; ".join(short) + f" ({HAND} expected)"
    # a hand set by the house way (asked for, or laid in one pile where the house sets it so): said before
    pile = table.rules.one_pile is OnePile.HOUSE_WAY
    ways = {s: "asked for the house way" if int(s[4:]) in asked else "in one pile: set by the house way"
            for s in seats if int(s[4:]) in asked or (pile and counts[s].one_pile)}
    # where the house's document makes a wrong count a foul, CONFIRM settles it as one: said before
    fouls = [f"{spoken(s)} has {counts[s].total} cards, not {HAND}" if counts[s].wrong else
             f"{spoken(s)} has {counts[s].front} cards in front" for s in seats
             if s not in ways and (counts[s].wrong or counts[s].front != 2)]
    return ("Press CONFIRM to settle" + "".join(f" ({spoken(s)} {why})" for s, why in ways.items())
            + (f" ({'; '.join(fouls)}: a foul)" if fouls else ""))
