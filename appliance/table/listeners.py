"""Telling the listeners of a record, as OctoPrint's event manager does: the record is on disk
before anyone hears of it, then each listener runs in turn, isolated.

A listener that fails (a dashboard bug, a full index disk) is named in the journal and skipped:
it never undoes the recorded action, and never keeps the listeners after it from hearing of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)

Listener = Callable[[dict], None]


def listener_name(listener: Listener) -> str:
    """What the journal calls a listener: its qualified name, or its class's for a callable object.

    >>> listener_name(listener_name)
    'listener_name'
    """
    return getattr(listener, "__qualname__", None) or type(listener).__qualname__


def tell(listeners: Iterable[Listener], record: dict) -> None:
    """Hand ``record`` (already on disk) to each listener in order; an exception is logged with the
    listener's name and the record's event and sequence number, and the next listener goes on."""
    for listener in list(listeners):  # a listener may add another: it hears the next record
        try:
            listener(record)
        except Exception:  # noqa: BLE001 - whatever a listener does wrong, the action stands
            log.exception("listener %s failed on %s (seq %s)", listener_name(listener), record.get("event"),
                          record.get("seq"))
