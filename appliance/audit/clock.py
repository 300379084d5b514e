"""The wall clock watched against the box's own timer: a clock that jumps forward is found before a round
is booked to the day it jumped to.

Every record is booked to the gaming day its time falls in, and the wall clock can be stepped by anyone
who can set it (an NTP server gone wrong, an RTC, a person): 400 days forward, and the takings of a shift
are reported in another year. Two checks find it:

- while running, the wall clock's advance since the last record is compared with the box's timer (which
  counts the time since boot, suspended or not, and which nothing can set): more than ``ahead`` beyond it is
  a step;
- at a start, the timer does not reach back past the boot: a clock more than ``start_ahead`` past the log's
  last record is a step too (longer than a table stands dark; a table out of service that long asks once).

A step back is recorded by the log as it always was (the chain runs by seq, whatever the clock did). A step
forward is recorded, and the log then writes no round's step until a supervisor has confirmed, with the
PIN, the gaming day the clock now gives (:meth:`AuditLog.confirm_clock`); the table is held meanwhile with
the reason in plain words.

>>> t = [100.0]
>>> watch = ClockWatch(timer=lambda: t[0])
>>> start = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.timezone.utc)
>>> watch.written(start)
>>> t[0] += 60
>>> watch.check(start + dt.timedelta(seconds=61)) is None   # a minute on the timer, a minute on the clock
True
>>> watch.check(start + dt.timedelta(days=400, minutes=1)).reason()[:60]
'The clock jumped forward 400 days (from 2026-01-05 12:01 UTC'
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass

STEP_AHEAD = dt.timedelta(minutes=5)  # NTP slews by less; a step beyond what the timer counted is recorded
START_AHEAD = dt.timedelta(days=7)  # a start this long after the log's last record asks for the date


class ClockInDoubt(ValueError):
    """A round's step refused while a clock step waits for a supervisor to confirm the gaming day."""


def boot_seconds() -> float:
    """Seconds since boot, counting time suspended (Linux's CLOCK_BOOTTIME): the box's own timer."""
    return time.clock_gettime(getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC))


def _shown(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _span(delta: dt.timedelta) -> str:
    """A step's size in words.

    >>> _span(dt.timedelta(days=400, hours=3)), _span(dt.timedelta(hours=5, minutes=2)), _span(dt.timedelta(minutes=9))
    ('400 days', '5 hours', '9 minutes')
    """
    if delta >= dt.timedelta(days=2):
        return f"{delta.days} days"
    if delta >= dt.timedelta(hours=2):
        return f"{int(delta.total_seconds() // 3600)} hours"
    return f"{int(delta.total_seconds() // 60)} minutes"


@dataclass(frozen=True)
class ClockStep:
    """The clock read ``reads`` where about ``expected`` was due (found while running), or where the log's
    last record was ``expected`` (found at a start)."""

    expected: dt.datetime
    reads: dt.datetime
    at_start: bool

    def data(self) -> dict:
        """The ClockStepped record's data."""
        return {"direction": "forward", "from": self.expected.isoformat(timespec="microseconds"),
                "to": self.reads.isoformat(timespec="microseconds"),
                "seconds": round((self.reads - self.expected).total_seconds(), 6),
                "found": "at start-up, against the log's last record" if self.at_start
                else "while running, against the appliance's own timer"}

    def reason(self) -> str:
        """Why the table is held, as the dealer and the supervisor read it."""
        span = _span(self.reads - self.expected)
        if self.at_start:
            what = (f"The clock reads {_shown(self.reads)}, {span} after the log's last record "
                    f"({_shown(self.expected)})")
        else:
            what = (f"The clock jumped forward {span} (from {_shown(self.expected)} to {_shown(self.reads)}), "
                    "more than the appliance's own timer counted")
        return (f"{what}: if the clock is wrong, rounds would be booked to the wrong gaming day. A supervisor must "
                "confirm today's gaming day with the PIN (or have the clock set right) before a round can be played")


class ClockWatch:
    """The wall time and the timer at the last record written; ``timer`` is the box's own (a test's clock
    that jumps on purpose brings its own, or none: then the clock is its own timer and nothing is found)."""

    def __init__(self, timer: Callable[[], float] | None = boot_seconds, ahead: dt.timedelta = STEP_AHEAD,
                 start_ahead: dt.timedelta = START_AHEAD):
        self._timer, self.ahead, self.start_ahead = timer, ahead, start_ahead
        self._mark: tuple[dt.datetime, float] | None = None

    def at_start(self, last: dt.datetime | None, now: dt.datetime) -> ClockStep | None:
        """A start's clock far past the log's last record."""
        return ClockStep(last, now, True) if last is not None and now - last > self.start_ahead else None

    def check(self, now: dt.datetime) -> ClockStep | None:
        """The clock against the timer since the last record written."""
        if self._mark is None or self._timer is None:
            return None
        expected = self._mark[0] + dt.timedelta(seconds=self._timer() - self._mark[1])
        return ClockStep(expected, now, False) if now - expected > self.ahead else None

    def written(self, now: dt.datetime) -> None:
        if self._timer is not None:
            self._mark = (now, self._timer())
