"""The query parameters of the supervisor's reads; a parameter that cannot be used is a 400 naming it."""

from __future__ import annotations

import datetime as dt
import re

from flask import request

from ..game.cards import Card, parse_cards

HISTORY_LIMIT = 1000  # rows in one history answer at most: a search, not a dump (the export is the dump)


class ParameterError(ValueError):
    """A query parameter that cannot be used; the message names it (a 400)."""


def time_param(name: str) -> dt.datetime | None:
    text = request.args.get(name, "").strip()
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise ParameterError(f"{name}: {text!r} is not a time (YYYY-MM-DDTHH:MM, optionally with an offset)") from None


def date_param(name: str) -> dt.date:
    text = request.args.get(name, "").strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ParameterError(f"{name}: give a date as YYYY-MM-DD, got {text!r}")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ParameterError(f"{name}: {text!r} is not a date") from None


def day_param(name: str) -> str | None:
    """A gaming day (YYYY-MM-DD) if one is asked for: reports and searches go by the house's gaming day."""
    return date_param(name).isoformat() if request.args.get(name, "").strip() else None


def int_param(name: str, low: int, high: int, default: int | None = None) -> int | None:
    text = request.args.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise ParameterError(f"{name}: give a whole number from {low} to {high}, got {text!r}")
    return int(text)


def cards_param(name: str, count: int) -> tuple[Card, ...]:
    """Exactly ``count`` cards, as :func:`~appliance.game.cards.parse_cards` reads them."""
    try:
        cards = parse_cards(request.args.get(name, ""))
    except ValueError as err:
        raise ParameterError(str(err)) from None
    if len(cards) != count:
        raise ParameterError(f"give {count} cards, got {len(cards)}")
    return cards
