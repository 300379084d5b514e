"""Strict reading of nested mappings (parsed TOML or JSON) with errors that name file and key.

>>> t = Section({"a": 1, "b": "x"}, "demo.toml")
>>> t.integer("a", 0, 5)
1
>>> t.done()
Traceback (most recent call last):
...
appliance.game.schema.SchemaError: demo.toml: b: unknown key
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, Literal, TypeVar, overload

from .money import MoneyError, money

E = TypeVar("E", bound=enum.Enum)
_MISSING = object()


class SchemaError(ValueError):
    """A configuration or input value is missing, unknown or of the wrong type."""


class Section:
    """One mapping being read; every key must be read or it is reported as unknown."""

    def __init__(self, data: Any, source: str, path: str = "", error: type[ValueError] = SchemaError):
        self.error_class = error
        if not isinstance(data, Mapping):
            raise error(f"{source}: {path or 'top level'}: expected a table, got {type(data).__name__}")
        self.data = data
        self.source = source
        self.path = path
        self._read: set[str] = set()

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str) -> ValueError:
        return self.error_class(f"{self.source}: {self.where(key)}: {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        self._read.add(key)
        if key not in self.data:
            if default is _MISSING:
                raise self.error(key, "missing value")
            return default
        return self.data[key]

    def _typed(self, key: str, kinds: tuple[type, ...], label: str, default: Any) -> Any:
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise self.error(key, f"expected {label}, got {value!r}")
        return value

    def string(self, key: str, default: Any = _MISSING) -> str:
        return self._typed(key, (str,), "text", default)

    def boolean(self, key: str, default: Any = _MISSING) -> bool:
        return self._typed(key, (bool,), "true or false", default)

    def integer(self, key: str, lo: int, hi: int, default: Any = _MISSING) -> int:
        value = self._typed(key, (int,), "a whole number", default)
        if not lo <= value <= hi:
            raise self.error(key, f"expected a whole number from {lo} to {hi}, got {value!r}")
        return value

    def number(self, key: str, lo: float, hi: float, default: Any = _MISSING) -> float:
        """A measurement (seconds, a level): int or float, never money."""
        value = self._typed(key, (int, float), "a number", default)
        if not lo <= value <= hi:
            raise self.error(key, f"expected a number from {lo} to {hi}, got {value!r}")
        return float(value)

    def choice(self, key: str, kind: type[E], default: Any = _MISSING) -> E:
        value = self.raw(key, default)
        if isinstance(value, kind):
            return value
        try:
            return kind(value)
        except ValueError:
            options = ", ".join(repr(member.value) for member in kind)
            raise self.error(key, f"expected one of {options}, got {value!r}") from None

    def one_of(self, key: str, options: Iterable[str]) -> str:
        """A name from a fixed set that is not an enum (a backend, a source)."""
        value = self.string(key)
        if value not in options:
            raise self.error(key, f"expected one of {', '.join(options)}, got {value!r}")
        return value

    def amount(self, key: str, default: Any = _MISSING) -> Decimal:
        value = self._typed(key, (str, int), 'an amount as text such as "5.00"', default)
        if value is default:
            return value
        try:
            return money(value, self.where(key))
        except MoneyError as err:
            raise self.error_class(f"{self.source}: {err}") from None

    def decimal(self, key: str, default: Any = _MISSING) -> Decimal:
        value = self._typed(key, (str, int), 'a number as text such as "5"', default)
        if value is default:
            return value
        try:
            number = Decimal(str(value))
        except ArithmeticError:
            raise self.error(key, f"expected a number, got {value!r}") from None
        if not number.is_finite() or number < 0:
            raise self.error(key, f"expected a non-negative number, got {value!r}")
        return number

    # Overloads, so a required table reads as a Section and only an optional one can be None.
    @overload
    def table(self, key: str, optional: Literal[False] = False) -> Section: ...
    @overload
    def table(self, key: str, optional: bool) -> Section | None: ...

    def table(self, key: str, optional: bool = False) -> Section | None:
        value = self.raw(key, None if optional else _MISSING)
        if value is None and optional:
            return None
        return Section(value, self.source, self.where(key), self.error_class)

    def tables(self, key: str, default: Any = _MISSING) -> list[Section]:
        value = self.raw(key, default)
        if not isinstance(value, list):
            raise self.error(key, f"expected a list of tables, got {value!r}")
        return [Section(item, self.source, f"{self.where(key)}[{i}]", self.error_class) for i, item in enumerate(value)]

    def items(self) -> list[tuple[str, Any]]:
        """Every key of a free-form table (its keys are data, not schema)."""
        self._read.update(self.data)
        return list(self.data.items())

    def done(self) -> None:
        """Refuse keys that were never read: a typo must not pass silently."""
        for key in self.data:
            if key not in self._read:
                raise self.error(key, "unknown key")
