"""The gaming day: the casino's accounting day, from a start hour to the next, in the house's time zone.

Every house file states it (``timezone`` and ``gaming_day_start``); day files, reports and the
export use it, never the host's time zone or the UTC date.

>>> day = GamingDay.from_house({"timezone": "America/Los_Angeles", "gaming_day_start": "06:00"}, "house.toml")
>>> day.of(dt.datetime(2026, 11, 29, 13, 59, tzinfo=dt.timezone.utc))  # 05:59 in Los Angeles
'2026-11-28'
>>> day.of(dt.datetime(2026, 11, 29, 14, 0, tzinfo=dt.timezone.utc))   # 06:00
'2026-11-29'
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


class GamingDayError(ValueError):
    """A house file's time zone or gaming-day start that cannot be used."""


@dataclass(frozen=True)
class GamingDay:
    zone: str = "UTC"
    starts: dt.time = dt.time(6, 0)

    @classmethod
    def from_house(cls, mapping: dict, source: str) -> GamingDay:
        zone = mapping.get("timezone", "UTC")
        start = mapping.get("gaming_day_start", "06:00")
        try:
            ZoneInfo(str(zone))
        except (ZoneInfoNotFoundError, ValueError):
            raise GamingDayError(f"{source}: timezone: {zone!r} is not a time zone (e.g. America/Los_Angeles)") from None
        try:
            starts = dt.time.fromisoformat(str(start))
        except ValueError:
            raise GamingDayError(f"{source}: gaming_day_start: {start!r} is not a time of day (e.g. 06:00)") from None
        return cls(str(zone), starts)

    def of(self, when: dt.datetime) -> str:
        """The date (ISO) of the gaming day ``when`` falls in."""
        local = when.astimezone(ZoneInfo(self.zone))
        day = local.date() if local.time() >= self.starts else local.date() - dt.timedelta(days=1)
        return day.isoformat()
