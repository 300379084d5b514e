"""The table: the current round, the records outside rounds, and the supervisor's powers.

A supervisor's action (a correction, a void, a misdeal, a start value entered by hand when
the device is down, the release of a held table) needs the supervisor's PIN and lands in the
audit log with the reason. No decision can be changed once the next round has started
(Capitol rule 3). The dealer's loop, the dashboard and the devices reach the table from
different threads: every change happens under ``lock``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..audit.log import AuditLog
from ..game.rules import HouseRules
from .listeners import tell
from .round import Events, Phase, RoundStateError, TableRound
from .supervisor import SupervisorGate


class Table:
    def __init__(self, rules: HouseRules, rules_mapping: dict, audit: AuditLog,
                 supervisors: dict[str, str] | Callable[[], dict[str, str]],
                 listeners: list | None = None):
        self.rules, self.rules_mapping, self.audit = rules, rules_mapping, audit
        self.listeners: list = listeners if listeners is not None else []
        self.lock = threading.RLock()
        self.gate = SupervisorGate(supervisors, on_refused=lambda data: self.log(
            Events.SUPERVISOR_REFUSED, data, who="supervisor gate"))
        self.current: TableRound | None = None
        self.held: str | None = None  # why the table waits for a supervisor, if it does

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
            self.current = TableRound(round_id, self.rules, self.rules_mapping, self.audit, self.listeners)
            return self.current

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
            self.log(Events.TABLE_HELD, {"round": self.current.round_id if self.current else None, "reason": reason},
                     who)

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
            self.held = None
            self.log(Events.TABLE_RELEASED, {"round": self.current.round_id if self.current else None,
                                             "action": action}, who)

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

    def misdeal(self, round_id: str, supervisor: str, pin: str, reason: str, address: str = "local") -> None:
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            self._round(round_id).void(f"misdeal: {reason}", who)
            self._acted(who, "misdeal")

    def manual_start(self, round_id: str, supervisor: str, pin: str, value: int, address: str = "local") -> object:
        """The start value entered by a supervisor while the device is down, marked as manual."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            first = self._round(round_id).start_seat("manual", value, who=who)
            self._acted(who, "manual start")
            return first

    def release(self, supervisor: str, pin: str, reason: str, address: str = "local") -> None:
        """The supervisor has dealt with what held the table; the dealer carries on."""
        who = self._supervisor(supervisor, pin, address)
        with self.lock:
            if self.held is None:
                raise RoundStateError("the table is not held")
            self.held = None
            self.log(Events.TABLE_RELEASED, {"round": self.current.round_id if self.current else None,
                                             "action": "release", "reason": reason}, who)
