"""The table: the current round, the records outside rounds, and the supervisor's powers.

A supervisor's action (a correction, a void, a misdeal, a start value entered by hand when
the device is down, the release of a held table, a house dealer's setting let stand, the gaming day
confirmed after the clock stepped forward) needs the supervisor's PIN and lands in the
audit log with the reason. No decision can be changed once the next round has started
(Capitol rule 3). The dealer's loop, the dashboard and the devices reach the table from
different threads: every change happens under ``lock``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..audit.clock import ClockInDoubt
from ..audit.log import AUDIT_ACKNOWLEDGED, AuditLog, RecordingStopped
from ..game.banking import BankOffer, BankRound, bank_offers, bank_refusal
from ..game.rules import HouseRules
from ..game.start_seat import DEALER
from ..records.round_state import MISDEAL, RoundState
from .listeners import tell
from .repeats import Repeats
from .round import Events, Phase, RoundStateError, StartValueRefused, TableRound
from .supervisor import SupervisorGate

log = logging.getLogger(__name__)

#: Settled rounds the table remembers for the bank's rotation (read back from the history index at a
#: restart): far more than any rule looks back; the offer's order starts from the last player-banker among them.
BANK_MEMORY = 100


class Table:
    def __init__(self, rules: HouseRules, rules_mapping: dict, audit: AuditLog,
                 supervisors: dict[str, str] | Callable[[], dict[str, str]],
                 listeners: list | None = None, repeat_window: float = 60.0):
        self.rules, self.rules_mapping, self.audit = rules, rules_mapping, audit
        self.listeners: list = listeners if listeners is not None else []
        self.lock = threading.RLock()
        # A device's fault repeated within the window (garbage on the line, a failing camera tick) is
        # recorded once and then counted; refused logins likewise, per address, by the gate.
        self.repeats = Repeats(self.note, repeat_window)
        self.gate = SupervisorGate(supervisors, record=self.log, window_s=repeat_window)
        self.current: TableRound | None = None
        self._banked: list[BankRound] = []  # the last rounds settled before the current one, oldest first
        self._held: str | None = None
        self._unacknowledged: list[dict] = []  # start-up findings about the log: {"problem", "seq"}
        self.notices: list[str] = []  # standing facts the screens show (a simulation's key beside its data)
        # A step of the clock forward holds the table until the gaming day is confirmed (audit/clock.py): the
        # screens hear of it from a TableHeld record, found at this start or later while running.
        audit.on_clock_doubt.append(self._clock_doubted)
        if audit.clock_doubt is not None:
            self.note(Events.TABLE_HELD, {"round": None, "reason": audit.clock_doubt["reason"]}, "appliance (clock)")

    @property
    def held(self) -> str | None:
        """Why the table waits, if it does: recording stopped comes first (nothing can be settled), then a
        clock in doubt (no round can be booked), then what a supervisor must see."""
        if self.audit.stopped is not None:
            return self.audit.stopped.reason
        return self.audit.clock_doubt["reason"] if self.audit.clock_doubt is not None else self._held

    @held.setter
    def held(self, reason: str | None) -> None:
        self._held = reason

    def note(self, event: str, data: dict, who: str) -> dict | None:
        """A record a device thread makes about itself (its status, a rejected line): while recording
        is stopped it goes to the journal only, and the thread goes on."""
        try:
            return self.log(event, data, who)
        except RecordingStopped as err:
            log.warning("not recorded (%s): %s %s by %s", err, event, data, who)
            return None

    def resume_recording(self) -> dict | None:
        """Record again after recording stopped: the record saying how long, told to the listeners."""
        with self.lock:
            record = self.audit.resume()
            if record is not None:
                tell(self.listeners, record)
            return record

    def log(self, event: str, data: dict, who: str) -> dict:
        """A record outside a round's steps (a device's status, a call for the supervisor), announced
        to the same listeners, each isolated, once it is on disk."""
        record = self.audit.append(event, data, who)
        tell(self.listeners, record)
        return record

    def new_round(self, round_id: str) -> TableRound:
        with self.lock:
            if self.current is not None and self.current.phase not in (Phase.SETTLED, Phase.VOIDED):
                raise RoundStateError(f"round {self.current.round_id} is still open: settle or void it first")
            if self.current is not None and self.current.phase is Phase.SETTLED:
                self._banked = [*self._banked, _bank_round(self.current.state)][-BANK_MEMORY:]
            self.current = TableRound(round_id, self.rules, self.rules_mapping, self.audit, self.listeners)
            return self.current

    def remember_banking(self, settled: list[BankRound]) -> None:
        """The rounds settled before this start (from the history index, oldest first): the rotation
        rules look back across a restart."""
        with self.lock:
            self._banked = list(settled)[-BANK_MEMORY:]

    def _clock_doubted(self, reason: str) -> None:
        self.note(Events.TABLE_HELD, {"round": None, "reason": reason}, "appliance (clock)")

    @property
    def playing(self) -> TableRound:
        """The round in play, for the steps that only a round in play can reach (its phase sees to it)."""
        if self.current is None:
            raise RoundStateError("no round is in play")
        return self.current

    @property
    def bank_history(self) -> list[BankRound]:
        """The last rounds settled, oldest first, as the bank's rotation rules see them."""
        with self.lock:
            current = self.current
            if current is not None and current.phase is Phase.SETTLED:
                return [*self._banked, _bank_round(current.state)]
            return [*self._banked]

    def bank_offers(self) -> tuple[BankOffer, ...]:
        """Every seat in the order the next round's bank is offered, each with the rule that refuses it."""
        return bank_offers(self.bank_history, self.rules.banking, self.rules.start.player_seats)

    def bank_refused(self, banker, who: str) -> str | None:
        """Why ``banker`` may not bank the next round under the house's rotation rules (logged), or None."""
        if banker == DEALER:
            return None
        refusal = bank_refusal(banker, self.bank_history, self.rules.banking)
        if refusal is not None:
            refusal = f"{self.rules.name}: seat {banker} may not bank this round: {refusal}"
            self.log(Events.BANK_REFUSED, {"seat": banker, "reason": refusal}, who)
        return refusal

    def resume(self, round_id: str) -> TableRound:
        """After a power cut: the interrupted round becomes the current one again, and the table is held
        until a supervisor decides (voids it, or corrects and releases)."""
        with self.lock:
            self.current = TableRound.restore(round_id, self.rules, self.rules_mapping, self.audit, self.listeners)
            self.hold(f"round {round_id} was interrupted (power cut or restart): a supervisor must void it "
                      "or release the table", "appliance (recovery)")
            return self.current

    def hold(self, reason: str, who: str) -> None:
        with self.lock:
            self.held = reason
            self.note(Events.TABLE_HELD, {"round": self.current.round_id if self.current else None, "reason": reason},
                      who)

    def hold_for_audit(self, findings: list[dict]) -> None:
        """What start-up found about the log itself (records missing from its end, a failed verification):
        the table opens no round until a supervisor has acknowledged it with the PIN (logged)."""
        if findings:
            with self.lock:
                self._unacknowledged = list(findings)
                also = f" (and: {self._held})" if self._held else ""  # e.g. an interrupted round
                self.hold("; ".join(f["problem"] for f in findings) + ". A supervisor must acknowledge this "
                          f"with the PIN before a round can be opened{also}", "appliance (start-up)")

    def _released(self, who: str, action: str, reason: str | None = None) -> None:
        for finding in self._unacknowledged:
            self.log(AUDIT_ACKNOWLEDGED, {"record": finding.get("seq"), "problem": finding["problem"]}, who)
        self._unacknowledged = []
        self.held = None
        self.log(Events.TABLE_RELEASED, {"round": self.current.round_id if self.current else None, "action": action,
                                         **({"reason": reason} if reason is not None else {})}, who)

    def _round(self, round_id: str) -> TableRound:
        if self.current is None or self.current.round_id != round_id:
            raise RoundStateError(f"round {round_id} can no longer be changed: the next round has started")
        return self.current

    def _supervisor(self, supervisor: str, pin: str, address: str) -> str:
        """Who acts, once the PIN is checked: slow on purpose, so checked before the table's lock is taken.
        ``address`` is where the PIN was typed (the gate counts wrong PINs per address)."""
        return f"supervisor {self.gate.check(supervisor, pin, address)}"

    def _acted(self, who: str, action: str) -> None:
        """A supervisor's action at a held table is also its release: the supervisor has seen it."""
        if self.held is not None:
            self._released(who, action)

    def correct(self, round_id: str, supervisor: str, pin: str, reason: str, seat, *, address: str = "local",
                **cards) -> dict | None:
        """Correct a read; a settled round is settled again. Returns the new settlement, if any."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            table_round = self._round(round_id)
            was_settled = table_round.phase is Phase.SETTLED
            table_round.correct(seat, reason, who, **cards)
            self._acted(who, "correct")
            return table_round.settle(who) if was_settled else None

    def void(self, round_id: str, supervisor: str, pin: str, reason: str, address: str = "local") -> None:
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            self._round(round_id).void(reason, who)
            self._acted(who, "void")

    def declare_misdeal(self, round_id: str, reason: str, who: str) -> None:
        """Void the round as a misdeal, for one of the reasons the house file lists (Capitol rule 29), by
        the dealer or a supervisor: the reason is recorded in the house's words, and the shift counts it."""
        listed = self.rules.misdeal_reason(reason)
        with self.lock:
            self._round(round_id).void(MISDEAL + listed, who)

    def misdeal(self, round_id: str, supervisor: str, pin: str, reason: str, address: str = "local") -> None:
        """A supervisor's misdeal (:meth:`declare_misdeal`), the PIN checked; it releases a held table."""
        self.rules.misdeal_reason(reason)  # an unlisted reason is refused before the PIN is asked
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            self.declare_misdeal(round_id, reason, who)
            self._acted(who, "misdeal")

    def setting_stands(self, round_id: str, supervisor: str, pin: str, reason: str, shown: dict,
                       address: str = "local") -> None:
        """The house dealer's setting, held as not the house way, settled as the cards lie (``set_by:
        dealer``): a supervisor's decision, from the dealer's screen or the supervisor's pages, recorded
        with who and why. ``shown`` (front, back) is the held setting the supervisor decided on."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            self._round(round_id).setting_stands(reason, who, shown)

    def manual_start(self, round_id: str, supervisor: str, pin: str, value: int | None = None,
                     address: str = "local", dice: list[int] | None = None) -> object:
        """The start value entered by a supervisor while the device is down, marked as manual: by the house's
        own method, as the device would give it (three ``dice`` at a dice house, an RNG ``value`` 1-7 at an
        RNG house; config/houses/README.md), so the log holds what was thrown or drawn, not a total."""
        if (value is None) == (dice is None):
            raise StartValueRefused("give either the RNG value or the three dice")
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            count = sum(dice) if dice else value
            if count is None:  # no dice thrown, and no value
                raise StartValueRefused("give either the RNG value or the three dice")
            first = self._round(round_id).start_seat("manual", count, dice=dice, who=who)
            self._acted(who, "manual start")
            return first

    def close_shift(self, supervisor: str, pin: str, address: str = "local") -> dict:
        """The shift's close: the log's head is sealed, for the seal to leave the box."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            return self.audit.seal_head("shift close", who)

    def confirm_clock(self, supervisor: str, pin: str, gaming_day: str, address: str = "local") -> dict:
        """After the clock stepped forward: the supervisor confirms the gaming day the clock now gives (a day
        other than the clock's is refused: the clock is still wrong), and rounds are booked again."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            record = self.audit.confirm_clock(gaming_day, who)
            tell(self.listeners, record)
            if self.held is None:
                self.log(Events.TABLE_RELEASED, {"round": self.current.round_id if self.current else None,
                                                 "action": "clock confirmed"}, who)
            else:  # held for something else too (an interrupted round): the screens show that now
                self.note(Events.TABLE_HELD, {"round": self.current.round_id if self.current else None,
                                              "reason": self.held}, who)
            return record

    def release(self, supervisor: str, pin: str, reason: str, address: str = "local") -> None:
        """The supervisor has dealt with what held the table; the dealer carries on."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            if self.audit.stopped is not None:
                raise RecordingStopped(self.audit.stopped.reason)
            if self.audit.clock_doubt is not None:
                raise ClockInDoubt(f"{self.audit.clock_doubt['reason']} (confirm the gaming day to release)")
            if self.held is None:
                raise RoundStateError("the table is not held")
            self._released(who, "release", reason)


def _bank_round(state: RoundState) -> BankRound:
    """A settled round's banker and the seats that wagered."""
    if state.banker.seat is None:  # a round is opened with its banker, so a settled one has one
        raise RoundStateError(f"round {state.round}: settled with no banker recorded")
    return BankRound.played(state.banker.seat, (b["seat"] for b in state.bets))
