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

The loop takes each input under the lock and hands it on: where the round stands (:mod:`.dealer_step`),
the next round's wagers and the bank offered from the rail (:mod:`.next_wagers`), the camera's reads and
the cards the dealer names (:mod:`.zone_reads`), what CONFIRM records (:mod:`.confirmation`) and what
the dealer is shown (:mod:`.dealer_prompt`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..devices.gpio import BUTTONS, Flashing
from ..devices.protocol import DiceResult, RngResult
from ..devices.start_source import HealthTracker
from ..game.cards import parse_cards
from ..game.start_seat import DEALER, Position
from ..vision.deck_match import DECK_MISMATCH
from ..vision.layout import BANKER_SET_ZONES
from .confirmation import Confirmation
from .dealer_errors import DealerInputError, MisdealNeedsPin, OverrideNeedsPin
from .dealer_prompt import DealerPrompt
from .dealer_step import Step, round_in_play, round_to_void, step_of, waiting, zones_read
from .eye import Eye
from .next_wagers import NextWagers
from .recording import SpaceLimits
from .round import Events, HeldForSupervisor, RoundStateError, StartValueRefused
from .table import Table
from .zone_reads import ZoneReads, spoken

log = logging.getLogger(__name__)

NOT_CONNECTED = "the start-seat device is not connected: reconnect it, or a supervisor enters the value"


class DealerLoop:
    def __init__(self, table: Table, eye: Eye, request_start: Callable[[], bool], round_id: Callable[[], str],
                 start_source: str, health: HealthTracker | None = None, stable_frames: int = 3,
                 lamp: Callable[[str, bool | Flashing], None] = lambda name, on: None,
                 on_prompt: Callable[[dict], None] = lambda prompt: None, space: SpaceLimits = SpaceLimits(),
                 reads_setting: bool = False):
        """``reads_setting``: the layout has the banker's set zones, so the house dealer's setting is read."""
        self.table, self.eye, self.space = table, eye, space
        self._request_start, self._round_id = request_start, round_id
        self.health = health
        self._lamp, self._on_prompt = lamp, on_prompt
        self.wagers = NextWagers(table)
        self.reads = ZoneReads(stable_frames)
        self.version = 0  # changes whenever a read shown to the dealer changes
        self.looks = 0  # frames the camera has delivered
        self.message = ""  # the last refusal, shown to the dealer until the next input
        #: (round, seat) -> who entered the player's request to have the hand set by the house way
        self.requests: dict[tuple[str, int], str] = {}
        self.confirmation = Confirmation(table, self.reads, self.requests, reads_setting)
        self.screen = DealerPrompt(table, self.wagers, self.reads, self.requests, start_source, space)
        # A supervisor's action (a release, a void, a start value) changes what the dealer is asked.
        table.listeners.append(lambda record: self.announce())

    @property
    def step(self) -> Step:
        return step_of(self.table, self.wagers.walk)

    def wanted_zones(self) -> list[str]:
        """The zones the camera should read now."""
        with self.table.lock:
            return zones_read(self.table, self.step)

    # --- the dealer's inputs ------------------------------------------------------------------

    def set_bets(self, bets: list, banker: Position = DEALER, banker_wager=None, who: str = "dealer") -> None:
        """The wagers for the next round (the camera does not read chips): ``[{"seat", "wager", "fortune"?,
        "backline"?: [{"wager", "by"?, "fortune"?}]}]``, the backline being the other wagers riding on
        the seat's hand (Capitol's backline, Fortune's other betting circles)."""
        with self.table.lock:
            if self.step not in (Step.IDLE, Step.BANK):
                raise DealerInputError("wagers can be changed only between rounds")
            self.wagers.enter(bets, banker, banker_wager, who)
            log.info("%s set the wagers: %s", who, [b.to_json() for b in self.wagers.bets])
            self.announce()

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
                ask_device = self._pressed(button, who, version)
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

    def _pressed(self, button: str, who: str, version: int | None) -> bool:
        """What a press does at this step; True when the device is to be asked for the start value."""
        if button == "confirm" and version is not None and version != self.version:
            self.message = "the reads changed since the screen showed them: check them and CONFIRM again"
        elif button == "supervisor":
            self.table.log(Events.SUPERVISOR_CALLED, {"round": round_in_play(self.table), "step": self.step.value},
                           who)
            if self.table.held is None or self.table.audit.stopped is not None:  # held after a stop too
                self.table.hold(f"the supervisor was called by {who}", who)
        elif self.step is Step.HELD:
            self.message = "the table is held: only a supervisor can release it"
        elif button == "next" and self.step is Step.BANK:
            self.wagers.pass_bank(who)
        elif button == "next":
            return self._next(who)
        elif self.step is Step.BANK:
            self.wagers.take_bank(who)
        elif self.step is Step.IDLE and self.table.bank_offers():
            self.wagers.offer_bank(who)
        else:
            self.confirmation.confirm(self.step, who)
        return False

    def _next(self, who: str) -> bool:
        """Opens the round if none is open; True when the device is to be asked for the start value."""
        step = self.step
        if step is Step.IDLE:
            self.wagers.open_round(self._round_id, self.space, who)
            self.reads.clear()
            return True
        if step is Step.START:
            return True
        raise RoundStateError("NEXT does nothing now: the hands are being read (CONFIRM accepts them)")

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
            round_id = round_to_void(self.table, self.step, round_id)
            dealt = self.step in (Step.SEATS, Step.RESET)
        if not dealt:
            with self.table.lock:
                self.table.declare_misdeal(round_to_void(self.table, self.step, round_id), reason, who)
        elif not supervisor:
            raise MisdealNeedsPin(f"round {round_id}: the deal is complete (the banker's hand is open): a misdeal "
                                  "now needs the supervisor's PIN")
        else:
            self.table.misdeal(round_id, supervisor, pin, reason, address)  # the PIN: slow, outside the lock
        with self.table.lock:
            self.reads.clear()
            self.announce()

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
                    self.reads.clear()
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
            self.reads.name_card(zone, position, card, who, self.wanted_zones(),
                                 stale=version is not None and version != self.version)
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
            camera = self.reads.camera_read(zone)
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
                self.table.log(Events.CAMERA_OVERRIDDEN, {"round": round_in_play(self.table), "zone": zone,
                                                          "camera": camera, "entered": named, "dealer": who},
                               f"supervisor {overrider}")
            self.reads.enter(zone, named, who)
            self.version += 1
            self.announce()

    def tick(self) -> bool:
        """Look at the layout once; True when a zone's read became stable (new) in this look."""
        zones = self.wanted_zones()
        if not zones:
            return False
        looked = self.eye.look(zones)  # slow (the reader): outside the lock
        if looked is None:
            return False
        with self.table.lock:
            self.looks += 1
            if self.table.held is None and any(DECK_MISMATCH in (r.reason or "")
                                               for reads, _ in looked.values() for r in reads):
                self.table.hold(DECK_MISMATCH, "reader")  # the technician teaches the deck in play
            changed = self.reads.take(looked, set(self.wanted_zones()))
            if changed:
                self.version += 1
                self.announce()
        return changed

    def ask_house_way(self, seat: int, who: str = "dealer") -> None:
        """A player asks to have the hand set by the house way (Capitol: "may request their hands to be set
        as houseway"): entered by the dealer on the seat while the players' hands are read, before CONFIRM.
        CONFIRM then records the seat's seven cards, however laid, set by the house way, with who entered it."""
        with self.table.lock:
            rules = self.table.rules
            if not rules.house_way_on_request:
                raise DealerInputError(f"{rules.name} does not set a player's hand by the house way on request "
                                       "(player_hands.house_way_on_request)")
            if self.step is not Step.SEATS or type(seat) is not int or seat not in waiting(self.table.playing.state):
                raise DealerInputError(f"seat {seat!r:.10}: no hand of that seat is being read now")
            self.requests[(self.table.playing.round_id, seat)] = who
            log.info("%s: seat %s asked for the house way (entered by %s)", self.table.playing.round_id, seat, who)
            self.version += 1
            self.announce()

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
            if self.reads.lying(BANKER_SET_ZONES) != [held["front"], held["back"]]:
                raise DealerInputError("the banker's cards have moved since the hold (or the camera no longer sees "
                                       "them): CONFIRM the setting as it lies now, then let it stand")
        # the PIN: slow, outside the lock (the table checks again that this setting is still the one held)
        self.table.setting_stands(round_id, supervisor, pin, reason, held, address)

    # --- what the dealer sees -----------------------------------------------------------------

    def prompt(self) -> dict:
        with self.table.lock:
            return self.screen.prompt(self.step, self.wanted_zones(), self.message, self.version)

    def announce(self) -> None:
        """Tell the lamps and the screen where the round stands (under the lock, so that an older
        prompt never overtakes a newer one)."""
        with self.table.lock:
            step = self.step
            self._lamp("attention", self.table.held is not None or step is Step.RESET)
            # while the bank is offered, the ready lamp flashes the number of the seat asked
            self._lamp("ready", Flashing(self.wagers.walking.asking) if step is Step.BANK
                       else step in (Step.IDLE, Step.START))
            self._on_prompt(self.prompt())
