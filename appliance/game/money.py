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
import re
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


#: An amount as text: whole dollars and a fraction, no sign, exponent or spaces; at most 12 digits of
#: dollars, so that no amount comes near the decimal context's precision ("1e30" would make quantize fail).
AMOUNT_TEXT = re.compile(r"[0-9]{1,12}(\.[0-9]+)?")
TOO_MUCH = Decimal(10) ** 12


def money(value: object, where: str = "amount") -> Decimal:
    """An amount of money, the one parser for every input (house files, ``appliance settle``, the dealer's
    screen): a decimal string, a whole number of dollars, or a ``Decimal``; floats are refused.

    >>> money("12.50"), money(25), money("25.000")
    (Decimal('12.50'), Decimal('25.00'), Decimal('25.00'))
    >>> money(0.1)
    Traceback (most recent call last):
    ...
    appliance.game.money.MoneyError: amount: 0.1 is a float; give money as a string such as "25.00"
    >>> money("1e30")
    Traceback (most recent call last):
    ...
    appliance.game.money.MoneyError: amount: '1e30' is not an amount of money (a decimal string such as "25" or "12.50")
    """
    if isinstance(value, float):
        raise MoneyError(f'{where}: {value!r} is a float; give money as a string such as "25.00"')
    if isinstance(value, str) and AMOUNT_TEXT.fullmatch(value):
        amount = Decimal(value)
    elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value < TOO_MUCH:
        amount = Decimal(value)
    elif isinstance(value, Decimal) and value.is_finite() and 0 <= value < TOO_MUCH:
        amount = value
    else:
        raise MoneyError(f'{where}: {value!r:.40} is not an amount of money (a decimal string such as "25" or "12.50")')
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
