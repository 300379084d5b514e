"""Repeated faults recorded once with a count, so a flood cannot flood the log.

A device that sends garbage, a camera tick that fails ten times a second or a script guessing PINs
would otherwise write (and fsync) one record per occurrence: megabytes a day, and a reader thread
so busy writing rejections that a valid line waits behind them. The first occurrence of a fault is
recorded at once, in full; the same fault again within the window is only counted, and when the
window ends one record says how many more there were, with the last one as its example (or what a
``fold`` gathers from them: the ids a PIN guesser tried). Nothing is dropped: every occurrence is in a
count.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

_NUMBERS = re.compile(r"\b(?:\d+(?:\.\d+)?|[0-9A-F]{2})\b")


def fault_kind(text: str) -> str:
    """A fault's text with its numbers masked, so that the same fault with other values is the same kind.

    >>> fault_kind("checksum 00 does not match 6C")
    'checksum # does not match #'
    >>> fault_kind("too many wrong PINs: locked for 42 s more")
    'too many wrong PINs: locked for # s more'
    """
    return _NUMBERS.sub("#", text)


def keep_last(summary: dict, data: dict) -> dict:
    """The default fold: a window's count is recorded with the last of its repeats as the example."""
    return data


@dataclass
class _Window:
    event: str
    who: str
    opened_seq: int | None
    started: float
    count: int = 0  # occurrences after the one recorded in full
    summary: dict = field(default_factory=dict)  # the repeats folded, recorded with the count
    timer: threading.Timer | None = None


class Repeats:
    """``offer(key, event, data, who)``: recorded by ``write(event, data, who)`` the first time in a
    window, counted after that; the count is recorded when the window closes (or at ``flush()``), with
    ``fold(summary, data)`` of the repeats (by default the last of them)."""

    def __init__(self, write: Callable[[str, dict, str], dict | None], window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, fold: Callable[[dict, dict], dict] = keep_last):
        self._write, self.window, self._clock, self._fold = write, window, clock, fold
        self._open: dict[Hashable, _Window] = {}
        self._lock = threading.Lock()

    def offer(self, key: Hashable, event: str, data: dict, who: str) -> bool:
        """True when recorded now (the first of its window), False when counted."""
        with self._lock:
            entry = self._open.get(key)
            if entry is not None:
                entry.count += 1
                entry.summary = self._fold(entry.summary, data)
                return False
            entry = self._open[key] = _Window(event, who, None, self._clock())
        try:
            record = self._write(event, {**data, "count": 1}, who)  # outside the lock: a write may be slow
        except BaseException:
            with self._lock:  # not recorded: a window without its first record (or a timer) would never close
                self._open.pop(key, None)
            raise
        with self._lock:
            entry.opened_seq = record.get("seq") if isinstance(record, dict) else None
            entry.timer = threading.Timer(self.window, self._close, (key,))
            entry.timer.daemon = True
            entry.timer.start()
        return True

    def _close(self, key: Hashable) -> None:
        with self._lock:
            entry = self._open.pop(key, None)
        if entry is None or entry.count == 0:
            return
        try:
            self._write(entry.event, {**entry.summary, "count": entry.count, "repeats_seq": entry.opened_seq,
                                      "within_s": round(self._clock() - entry.started, 3)}, entry.who)
        except Exception:  # noqa: BLE001 - a timer thread has no caller to tell; the journal does
            log.exception("%d repeats of %s could not be recorded", entry.count, entry.event)

    def flush(self) -> None:
        """Record every open window's count now (at shutdown)."""
        with self._lock:
            keys = list(self._open)
            timers = [entry.timer for entry in self._open.values() if entry.timer is not None]
        for timer in timers:
            timer.cancel()
        for key in keys:
            self._close(key)
