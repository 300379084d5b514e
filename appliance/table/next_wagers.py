"""The next round's wagers and banker, as entered on the dealer's screen or as the bank is offered round
the table from the rail (:mod:`.bank_walk`): CONFIRM the seat asked takes it, NEXT it passes.

Every change is checked as the screen's wagers are (:func:`.wager_checks.checked_wagers`), and every
step of the offer is an audit record.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from ..game.banking import history_needed, passed_over
from ..game.money import fmt
from ..game.rules import BankingMode
from ..game.settlement import SeatWagers
from ..game.start_seat import DEALER, Position
from .bank_walk import BankWalk, moved_bank
from .recording import SpaceLimits
from .round import Events, RoundStateError
from .table import Table
from .wager_checks import checked_wagers, entered_wagers


class NextWagers:
    def __init__(self, table: Table):
        self.table = table
        self.bets: list[SeatWagers] = []
        self.banker: Position = DEALER
        self.banker_wager: Decimal | None = None
        self.walk: BankWalk | None = None  # the bank being offered round the table, between rounds

    def enter(self, bets: list, banker, banker_wager, who: str) -> None:
        """The wagers and the banker entered on the screen (as it sends them), which ends any offer of the bank."""
        entered, banker, wager = entered_wagers(bets, banker, banker_wager)
        checked_wagers(self.table, entered, banker, wager, who)
        if self.walk is not None:  # the banker is chosen on the screen instead
            self.table.log(Events.BANK_OFFER_ENDED, {"passed": self.walk.passed, "banker": banker,
                                                     "reason": "the wagers and the banker were entered"}, who)
            self.walk = None
        self.bets, self.banker, self.banker_wager = entered, banker, wager

    def open_round(self, round_id: Callable[[], str], space: SpaceLimits, who: str) -> None:
        """NEXT between rounds: a round opens with these wagers, while the log has room for it."""
        if not self.bets:
            raise RoundStateError("enter the wagers first")
        refused = space.refusal(self.table.audit)
        if refused:
            raise RoundStateError(refused)
        # The wagers stay from round to round, and the rotation moves on: the banker entered is
        # checked again for this round (NEXT on the rail alone must not give a third bank in a row).
        if self.table.bank_refused(self.banker, who):  # logged with the house's name
            raise RoundStateError(self.bank_prompt()["refused"])
        history = self.table.bank_history
        passed = passed_over(self.banker, self.table.bank_offers())
        table_round = self.table.new_round(round_id())
        table_round.open(self.banker, self.bets, self.banker_wager, who=who,
                         previous_rounds=history_needed(history, self.table.rules.banking)
                         if self.banker != DEALER else None, bank_passed=passed)

    def offer_bank(self, who: str) -> None:
        """CONFIRM between rounds: the bank is offered to the first seat in play that may take it."""
        in_play = {b.seat for b in self.bets} | ({self.banker} if isinstance(self.banker, int) else set())
        if not in_play:
            raise RoundStateError("enter the wagers first: the bank is offered to the seats in play")
        walk = BankWalk.begin(self.table.bank_offers(), in_play)
        if walk.asked is None:
            self._bank_unclaimed(walk, who)
            return
        self.table.log(Events.BANK_OFFERED, {"seat": walk.asked, "passed": [],
                                             "not_offered": [o.to_json() for o in walk.not_offered]}, who)
        self.walk = walk

    def pass_bank(self, who: str) -> None:
        """NEXT while the bank is offered: the seat asked passes, and the next seat is asked."""
        walk = self.walking
        self.table.log(Events.BANK_PASSED, {"seat": walk.asked}, who)
        walk.passed_on()
        if walk.asked is None:
            self.walk = None
            self._bank_unclaimed(walk, who)
        else:
            self.table.log(Events.BANK_OFFERED, {"seat": walk.asked, "passed": walk.passed}, who)

    def take_bank(self, who: str) -> None:
        """CONFIRM while the bank is offered: the seat asked takes it."""
        self._move_bank(self.walking.asking, who, self.walking)

    @property
    def walking(self) -> BankWalk:
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
        checked_wagers(self.table, bets, to, wager, who)
        self.table.log(Events.BANK_TAKEN, {"banker": to, "banker_wager": None if wager is None else fmt(wager),
                                           "passed": list(walk.passed), "bets": [b.to_json() for b in bets],
                                           "not_offered": [o.to_json() for o in walk.not_offered]}, who)
        self.bets, self.banker, self.banker_wager, self.walk = bets, to, wager, None

    def bank_prompt(self) -> dict:
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
