"""The table: the current round, and the supervisor's powers over it.

A supervisor's action (a correction, a void, a misdeal, a start value entered by hand when
the device is down) needs the supervisor's PIN and lands in the audit log with the reason.
No decision can be changed once the next round has started (Capitol rule 3).
"""

from __future__ import annotations

from ..audit.log import AuditLog
from ..game.rules import HouseRules
from .round import Events, Phase, RoundStateError, TableRound
from .supervisor import SupervisorGate


class Table:
    def __init__(self, rules: HouseRules, rules_mapping: dict, audit: AuditLog, supervisors: dict[str, str]):
        self.rules, self.rules_mapping, self.audit = rules, rules_mapping, audit
        self.gate = SupervisorGate(supervisors, on_failure=lambda who, why: audit.append(
            Events.SUPERVISOR_REFUSED, {"supervisor": who, "reason": why}, who=f"supervisor {who}"))
        self.current: TableRound | None = None
        self.listeners: list = []

    def new_round(self, round_id: str) -> TableRound:
        if self.current is not None and self.current.phase not in (Phase.SETTLED, Phase.VOIDED):
            raise RoundStateError(f"round {self.current.round_id} is still open: settle or void it first")
        self.current = TableRound(round_id, self.rules, self.rules_mapping, self.audit, self.listeners)
        return self.current

    def _round(self, round_id: str) -> TableRound:
        if self.current is None or self.current.round_id != round_id:
            raise RoundStateError(f"round {round_id} can no longer be changed: the next round has started")
        return self.current

    def correct(self, round_id: str, supervisor: str, pin: str, reason: str, seat, **cards) -> dict | None:
        """Correct a read; a settled round is settled again. Returns the new settlement, if any."""
        who = f"supervisor {self.gate.check(supervisor, pin)}"
        table_round = self._round(round_id)
        was_settled = table_round.phase is Phase.SETTLED
        table_round.correct(seat, reason, who, **cards)
        return table_round.settle(who) if was_settled else None

    def void(self, round_id: str, supervisor: str, pin: str, reason: str) -> None:
        self._round(round_id).void(reason, f"supervisor {self.gate.check(supervisor, pin)}")

    def misdeal(self, round_id: str, supervisor: str, pin: str, reason: str) -> None:
        self._round(round_id).void(f"misdeal: {reason}", f"supervisor {self.gate.check(supervisor, pin)}")

    def manual_start(self, round_id: str, supervisor: str, pin: str, value: int) -> object:
        """The start value entered by a supervisor while the device is down, marked as manual."""
        who = f"supervisor {self.gate.check(supervisor, pin)}"
        return self._round(round_id).start_seat("manual", value, who=who)
