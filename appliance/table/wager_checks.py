"""The wagers as the dealer's screen enters them, checked before a round may open with them: each amount
read by the one money parser, the house's limits, and the banker against the rotation rules."""

from __future__ import annotations

from decimal import Decimal

from ..game.money import MoneyError, fmt, money
from ..game.settlement import RoundError, Wager, check_wagers
from ..game.start_seat import DEALER, Position
from .dealer_errors import DealerInputError
from .table import Table

BACKLINE_LIMIT = 8  # wagers riding on one seat's hand: more than its betting circles
BY_LIMIT = 40  # characters naming who placed a backline wager


def checked_wagers(table: Table, bets: list[dict], banker: Position, banker_wager,
                   who: str) -> tuple[list[dict], Position, Decimal | None]:
    """The wagers checked against the house rules and the banker against the rotation rules (a
    refused banker is logged): the seats' wagers, the banker and the banker's wager, to be kept."""
    if banker != DEALER and type(banker) is not int:
        raise DealerInputError(f"banker: {banker!r:.40} is not \"dealer\" or a seat number")
    checked = [_checked_bet(i, bet) for i, bet in enumerate(bets)]
    wager = None if banker_wager in (None, "") else Decimal(_amount(banker_wager, "banker wager"))
    try:
        check_wagers(table.rules, banker, wager, [
            (b["seat"], Decimal(b["wager"]), Decimal(b.get("fortune", 0)) or None,
             [Wager(Decimal(w["wager"]), w["by"], Decimal(w.get("fortune", 0))) for w in b.get("backline", [])])
            for b in checked])
    except RoundError as err:
        raise DealerInputError(str(err)) from None
    # The settlement gives a wager over the maximum no action on the excess (a disputed round
    # settles); at the table such a wager is not taken at all.
    over = [(b["seat"], w) for b in checked for w in [b, *b.get("backline", [])]
            if Decimal(w["wager"]) > table.rules.limits.maximum]
    if over:
        seat, w = over[0]
        raise DealerInputError(f"seat {seat} {'wager' if 'seat' in w else w['by']}: {w['wager']} is over the "
                               f"table maximum {table.rules.limits.maximum}")
    refused = table.bank_refused(banker, who)
    if refused:
        raise DealerInputError(refused)
    return checked, banker, wager


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
