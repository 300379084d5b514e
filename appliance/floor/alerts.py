"""The floor's alerts: one open alert of a kind per table, closed when what raised it is over."""

from __future__ import annotations


def raise_alert(conn, table: str, kind: str, message: str) -> None:
    """Open an alert, unless one of that kind is open for the table already (a retrying table does not flood)."""
    conn.execute("INSERT INTO floor_alerts (table_id, kind, message) VALUES (%s, %s, %s) "
                 "ON CONFLICT (table_id, kind) WHERE closed_at IS NULL DO NOTHING", (table, kind, message))


def close_alert(conn, table: str, kind: str) -> None:
    conn.execute("UPDATE floor_alerts SET closed_at = now() WHERE table_id = %s AND kind = %s AND closed_at IS NULL",
                 (table, kind))
