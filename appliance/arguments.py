"""The command line's argument types: numbers within their range and paths checked before use.

Each refuses with a message naming the value (argparse adds the argument's name), so a bad argument
stops a command before it starts anything, on one line.

>>> whole_number(1, 7)("3")
3
>>> whole_number(1, 7)("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: expected a whole number from 1 to 7, got '0'
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path


class UsageError(ValueError):
    """A command line that cannot be carried out."""


def whole_number(low: int, high: int | None = None):
    """A whole number from ``low`` to ``high`` (no upper bound when None)."""
    wanted = f"a whole number from {low} to {high}" if high is not None else f"a whole number of at least {low}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value
    return parse


def _number(text: str, wanted: str, ok) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
    return value


def positive(text: str) -> float:
    """A number above 0 (seconds between steps, an interval).

    >>> positive("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number above 0, got '0'
    """
    return _number(text, "a number above 0", lambda v: v > 0)


def positive_at_most(high: float):
    """A number above 0 and at most ``high`` (seconds a thread waits: past a bound a wait overflows).

    >>> positive_at_most(60)("1e308")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number above 0 and at most 60, got '1e308'
    """
    return lambda text: _number(text, f"a number above 0 and at most {high}", lambda v: 0 < v <= high)


def not_negative(text: str) -> float:
    """A number of at least 0 (a timeout where 0 means none, a free-space floor)."""
    return _number(text, "a number of at least 0", lambda v: v >= 0)


def not_negative_at_most(high: float):
    """A number from 0 to ``high``."""
    return lambda text: _number(text, f"a number from 0 to {high}", lambda v: 0 <= v <= high)


def share(text: str) -> float:
    """A share, 0 to 1.

    >>> share("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'nan' is not a share between 0 and 1
    """
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share between 0 and 1")
    return value


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    return whole_number(0, 65535)(text)


def new_path(text: str) -> str:
    """A file or folder a command writes: its folder must be there (a mistyped path is refused, not made)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    parent = Path(text).absolute().parent
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no folder {parent}")
    return text


def new_folder(text: str) -> str:
    """A folder a command writes into: made if missing (its own folder must be there); a file of that name is
    refused."""
    new_path(text)
    if Path(text).exists() and not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a folder")
    return text


def new_link(text: str) -> str:
    """A symbolic link a command makes (and removes when it stops): a link there is replaced, anything else
    is refused, never removed."""
    new_path(text)
    if os.path.lexists(text) and not os.path.islink(text):
        what = "a folder" if os.path.isdir(text) else "a file"
        raise argparse.ArgumentTypeError(f"{text}: {what} is there; only a link is replaced")
    return text


def existing_folder(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no such folder")
    return text


def existing_path(text: str) -> str:
    """A file or folder a command reads."""
    if not Path(text).exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file or folder")
    return text


def dns_name_or_address(text: str) -> str:
    """A name a certificate can carry: an IP address, or a DNS name (labels of letters, digits and '-' between
    dots; an internationalised name in its xn-- form).

    >>> dns_name_or_address("table-7.casino.lan"), dns_name_or_address("10.0.0.7")
    ('table-7.casino.lan', '10.0.0.7')
    >>> dns_name_or_address("t\u00e4ble")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 't\xe4ble': a DNS name (letters, digits and '-' between dots; ...) or an IP address
    """
    import ipaddress
    import re

    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    label = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"
    if len(text) <= 253 and re.fullmatch(rf"{label}(\.{label})*\.?", text):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: a DNS name (letters, digits and '-' between dots; an "
                                     "internationalised name in its xn-- form) or an IP address")
