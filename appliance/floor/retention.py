"""``appliance floor prune``: delete what is older than the retention period, keeping every table's
anchored head (so anchoring and shipping go on as before)."""

from __future__ import annotations

from dataclasses import dataclass

from .database import connect


class RetentionError(ValueError):
    """A retention period that would delete what must be kept."""


@dataclass(frozen=True)
class Pruned:
    records: int
    rounds: int
    refused: int
    alerts: int
    logins: int

    def to_json(self) -> dict:
        return {"records": self.records, "rounds": self.rounds, "refused": self.refused, "alerts": self.alerts,
                "logins": self.logins}


def prune(dsn: str, keep_days: int) -> Pruned:
    """Records and rounds of gaming days more than ``keep_days`` before today, refusals received, alerts
    closed and logins made that long ago; open alerts stay whatever their age."""
    if keep_days < 1:
        raise RetentionError(f"--keep-days: {keep_days}; at least 1 (today's gaming day is never pruned)")
    with connect(dsn) as conn:
        def gone(sql: str) -> int:
            return conn.execute(sql, {"days": keep_days}).rowcount

        return Pruned(
            records=gone("DELETE FROM floor_records WHERE gaming_day < current_date - %(days)s::int"),
            rounds=gone("DELETE FROM floor_rounds WHERE gaming_day < current_date - %(days)s::int"),
            refused=gone("DELETE FROM floor_refused WHERE received_at < now() - make_interval(days => %(days)s)"),
            alerts=gone("DELETE FROM floor_alerts WHERE closed_at < now() - make_interval(days => %(days)s)"),
            logins=gone("DELETE FROM floor_logins WHERE at < now() - make_interval(days => %(days)s)"))
