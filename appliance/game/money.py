"""Exact money: ``Decimal`` amounts in dollars and cents, never floats.

>>> money("25")
Decimal('25.00')
>>> round_to(Decimal("1.30"), Decimal("0.25"), Rounding.DOWN)
Decimal('1.25')
>>> round_to(Decimal("1.30"), Decimal("0.25"), Rounding.UP)
Decimal('1.50')
"""

from __future__ import annotations

import decimal
import enum
from decimal import Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


class MoneyError(ValueError):
    """An amount that is not a non-negative number of cents."""


class Rounding(enum.Enum):
    DOWN = "down"
    UP = "up"
    HALF_UP = "half-up"


_DECIMAL_ROUNDING = {
    Rounding.DOWN: decimal.ROUND_DOWN,
    Rounding.UP: decimal.ROUND_UP,
    Rounding.HALF_UP: decimal.ROUND_HALF_UP,
}


def money(value: object, where: str = "amount") -> Decimal:
    """An amount of money from a string, int or Decimal; floats are refused.

    >>> money(0.1)
    Traceback (most recent call last):
    ...
    appliance.game.money.MoneyError: amount: 0.1 is a float; give money as a string such as "25.00"
    """
    if isinstance(value, bool) or isinstance(value, float):
        raise MoneyError(f'{where}: {value!r} is a float; give money as a string such as "25.00"')
    try:
        amount = Decimal(str(value).strip()) if not isinstance(value, Decimal) else value
    except decimal.InvalidOperation:
        raise MoneyError(f"{where}: {value!r} is not an amount of money") from None
    if not amount.is_finite() or amount < 0:
        raise MoneyError(f"{where}: {value!r} is not a non-negative amount of money")
    if amount != amount.quantize(CENT):
        raise MoneyError(f"{where}: {value!r} has fractions of a cent")
    return amount.quantize(CENT)


def round_to(amount: Decimal, increment: Decimal, rounding: Rounding) -> Decimal:
    """``amount`` rounded to a multiple of ``increment`` in the given direction."""
    units = (amount / increment).quantize(Decimal(1), rounding=_DECIMAL_ROUNDING[rounding])
    return (units * increment).quantize(CENT)


def fmt(amount: Decimal) -> str:
    """Text form for JSON: ``'12.50'``, ``'-3.00'``."""
    return str(amount.quantize(CENT))
