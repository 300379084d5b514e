"""What a JSON request body may hold: one object, fields of the exact JSON type each route expects,
and strings short enough to log. A field that is wrong raises :class:`BodyError` naming it (a 400).

JSON has one number type and Python counts ``True`` as 1: a seat, a position or a start value is
taken only from a JSON integer, never from a boolean, a float or a string.

>>> seat({"seat": True}, "seat")
Traceback (most recent call last):
...
appliance.web.request_body.BodyError: seat: True is not a whole number
>>> text({"reason": "x" * 600}, "reason")
Traceback (most recent call last):
...
appliance.web.request_body.BodyError: reason: 600 characters, at most 500
"""

from __future__ import annotations

from flask import request

BODY_LIMIT = 64 * 1024  # bytes of a request body, on every route (413 beyond)
TEXT_LIMIT = 500  # characters of a free text that is logged (a reason)
ID_LIMIT = 64  # characters of an id (a supervisor, a zone, a button, a device name)
CARDS_LIMIT = 7  # cards in one hand


class BodyError(ValueError):
    """A request body, or one of its fields, that cannot be used; the message names the field."""


def json_object() -> dict:
    """The request's body as a JSON object, or :class:`BodyError`."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise BodyError("the body must be a JSON object (Content-Type: application/json)")
    return body


def text(body: dict, name: str, limit: int = TEXT_LIMIT, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise BodyError(f"{name}: expected a string, got {_kind(value)}")
    if len(value) > limit:
        raise BodyError(f"{name}: {len(value)} characters, at most {limit}")
    return value


def whole(body: dict, name: str, required: bool = True) -> int | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if type(value) is not int:
        raise BodyError(f"{name}: {value!r:.40} is not a whole number")
    return value


def seat(body: dict, name: str) -> int | str:
    """A seat number, or "banker"/"dealer" where the route names them."""
    value = body.get(name)
    if value in ("banker", "dealer"):
        return value
    return whole(body, name)


def dice(body: dict, name: str, required: bool = True) -> list[int] | None:
    """Three dice as whole numbers (their range is the round's to check, with the house's method)."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, list) or len(value) != 3 or any(type(d) is not int for d in value):
        raise BodyError(f"{name}: expected three dice as whole numbers (e.g. [2, 5, 6]), got {value!r:.40}")
    return value


def cards(body: dict, name: str, required: bool = True) -> list[str] | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, list) or len(value) > CARDS_LIMIT or not all(isinstance(c, str) and len(c) <= 4
                                                                           for c in value):
        raise BodyError(f"{name}: expected a list of at most {CARDS_LIMIT} card codes (e.g. [\"As\", \"Kd\"])")
    return value


def _kind(value) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object",
            type(None): "nothing"}.get(type(value), type(value).__name__)
