"""The bank offered seat by seat from the rail, between rounds, as a dealer asks round the table.

The order is :func:`~appliance.game.banking.bank_offers`' (from seat 1 in a new game, else from the last
Player/Dealer while the rules let him keep it, then clockwise). Only the seats in play are asked: a seat
with a wager entered, or the banker's. A seat in play that the rotation rules refuse is not asked, and
the rule is named. The seats that may bank are asked in turn: each takes the bank or passes it on; when
all have passed, the house keeps it where it may bank.

>>> from appliance.game.banking import BankOffer
>>> offers = (BankOffer(4, "banked twice"), BankOffer(5, None), BankOffer(6, None), BankOffer(1, None))
>>> walk = BankWalk.begin(offers, in_play={1, 4, 5})
>>> walk.asked, [o.seat for o in walk.not_offered]
(5, [4])
>>> walk.passed_on().asked, walk.passed
(1, [5])
>>> walk.passed_on().asked is None
True
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..game.banking import BankOffer
from ..game.settlement import SeatWagers
from ..game.start_seat import DEALER, Position


class BankMoveError(ValueError):
    """The bank cannot move with the wagers as entered (they are changed on the screen)."""


@dataclass
class BankWalk:
    """Whose turn it is to take or pass the bank, and who has passed it."""

    seats: tuple[int, ...]  # the seats in play that may bank, in the order the bank is offered
    not_offered: tuple[BankOffer, ...]  # the seats in play the rotation rules refuse, each with its rule
    passed: list[int] = field(default_factory=list)

    @classmethod
    def begin(cls, offers: Sequence[BankOffer], in_play: Collection[int]) -> BankWalk:
        seated = [o for o in offers if o.seat in in_play]
        return cls(tuple(o.seat for o in seated if o.refusal is None), tuple(o for o in seated if o.refusal))

    @property
    def asked(self) -> int | None:
        """The seat the bank is offered to now; None once every seat has passed."""
        return self.seats[len(self.passed)] if len(self.passed) < len(self.seats) else None

    @property
    def asking(self) -> int:
        """The seat asked now, while the walk goes on (a walk every seat passed ends at once)."""
        if self.asked is None:
            raise ValueError("every seat in play has passed the bank")
        return self.asked

    def passed_on(self) -> BankWalk:
        """The seat asked passes: the next seat is asked."""
        self.passed.append(self.asking)
        return self

    def to_json(self) -> dict:
        return {"asked": self.asked, "passed": list(self.passed), "not_offered": [o.to_json() for o in self.not_offered]}


def moved_bank(bets: list[SeatWagers], banker: Position, banker_wager: Decimal | None,
               to: Position) -> tuple[list[SeatWagers], Decimal | None]:
    """The wagers once the bank moves from ``banker`` to ``to``: the chips stay on their seat. The seat
    that takes the bank banks its wager (his seat has no hand of its own), and a Player/Dealer who
    gives it up wagers his bank on his seat. Returns the seats' wagers and the banker's wager.

    >>> moved_bank([SeatWagers(2, Decimal("25")), SeatWagers(5, Decimal("40"))], 3, Decimal("100"), 5)
    ([SeatWagers(seat=2, wager=Decimal('25'), fortune=Decimal('0.00'), backline=()), \
SeatWagers(seat=3, wager=Decimal('100'), fortune=Decimal('0.00'), backline=())], Decimal('40'))
    """
    if to == banker:
        return bets, banker_wager
    taken = next((b for b in bets if b.seat == to), None)
    if to != DEALER and (taken is None or taken.fortune or taken.backline):
        raise BankMoveError(f"seat {to} takes the bank with the wager on its seat alone (its bonus and backline "
                         "wagers have no hand to ride on): change the wagers on the screen")
    kept = [b for b in bets if b.seat != to]
    if isinstance(banker, int) and banker_wager is not None:  # a Player/Dealer's seat
        kept.append(SeatWagers(banker, banker_wager))
    return sorted(kept, key=lambda b: b.seat), None if taken is None else taken.wager