"""The wagers as the dealer's screen enters them, read once at the edge into typed values (each amount by
the one money parser), and checked before a round may open with them: the house's limits, and the banker
against the rotation rules."""

from __future__ import annotations

from decimal import Decimal

from ..game.money import ZERO, MoneyError, fmt, money
from ..game.settlement import RoundError, SeatWagers, Wager, check_wagers
from ..game.start_seat import DEALER, Position
from .dealer_errors import DealerInputError
from .table import Table

BACKLINE_LIMIT = 8  # wagers riding on one seat's hand: more than its betting circles
BY_LIMIT = 40  # characters naming who placed a backline wager


def entered_wagers(bets: list, banker, banker_wager) -> tuple[list[SeatWagers], Position, Decimal | None]:
    """The seats' wagers, the banker and the banker's wager as the screen sends them, read (a
    :class:`DealerInputError` names what was wrong and where)."""
    if banker != DEALER and type(banker) is not int:
        raise DealerInputError(f"banker: {banker!r:.40} is not \"dealer\" or a seat number")
    wager = None if banker_wager in (None, "") else _amount(banker_wager, "banker wager")
    return [_entered_bet(i, bet) for i, bet in enumerate(bets)], banker, wager


def checked_wagers(table: Table, bets: list[SeatWagers], banker: Position, banker_wager: Decimal | None,
                   who: str) -> None:
    """The wagers checked against the house rules and the banker against the rotation rules (a
    refused banker is logged)."""
    try:
        check_wagers(table.rules, banker, banker_wager, bets)
    except RoundError as err:
        raise DealerInputError(str(err)) from None
    # The settlement gives a wager over the maximum no action on the excess (a disputed round
    # settles); at the table such a wager is not taken at all.
    maximum = table.rules.limits.maximum
    over = [(b.seat, what, amount) for b in bets
            for what, amount in [("wager", b.wager), *((w.by, w.amount) for w in b.backline)] if amount > maximum]
    if over:
        seat, what, amount = over[0]
        raise DealerInputError(f"seat {seat} {what}: {fmt(amount)} is over the table maximum {maximum}")
    refused = table.bank_refused(banker, who)
    if refused:
        raise DealerInputError(refused)


def as_entered(bet: SeatWagers) -> dict:
    """A seat's wagers in the screen's form, as its wagers dialog and the rail's summary show them again.

    >>> as_entered(SeatWagers(2, Decimal("25.00"), Decimal("5.00"), (Wager(Decimal("12.50"), "Ann"),)))
    {'seat': 2, 'wager': '25', 'fortune': '5', 'backline': [{'wager': '12.50', 'by': 'Ann'}]}
    """
    backline = [{"wager": amount_as_entered(w.amount), "by": w.by, **({"fortune": amount_as_entered(w.fortune)} if w.fortune else {})}
                for w in bet.backline]
    return {"seat": bet.seat, "wager": amount_as_entered(bet.wager), **({"fortune": amount_as_entered(bet.fortune)} if bet.fortune else {}),
            **({"backline": backline} if backline else {})}


def amount_as_entered(amount: Decimal) -> str:
    """An amount as the dealer types it: whole dollars without cents (a wager is mostly chips), else the cents."""
    return str(int(amount)) if amount == amount.to_integral_value() else fmt(amount)


def _entered_bet(i: int, bet) -> SeatWagers:
    """One seat's wagers as the screen sends them, each amount read; a backline wager's ``by`` is who
    placed it (the dealer may leave it out: "backline 1", "backline 2", ...)."""
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
        backline.append(Wager(_amount(other.get("wager"), f"seat {seat} {by}"), by.strip(),
                              _amount(other["fortune"], f"seat {seat} {by} fortune") if other.get("fortune") else ZERO))
    return SeatWagers(seat, _amount(bet.get("wager"), f"seat {seat} wager"),
                      _amount(bet["fortune"], f"seat {seat} fortune") if bet.get("fortune") else ZERO, tuple(backline))


def _amount(value, what: str) -> Decimal:
    """A wager as the screen sends it, read by the one money parser (:func:`~appliance.game.money.money`):
    more than nothing."""
    try:
        amount = money(value, what)
    except MoneyError as err:
        raise DealerInputError(str(err)) from None
    if amount <= 0:
        raise DealerInputError(f"{what}: {value!r} is not a positive amount")
    return amount
