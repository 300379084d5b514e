"""A SQLite index of the audit log for history queries (the dashboard's search and recall).

The log stays the source of truth: the index can be dropped and rebuilt from it at any time,
and is kept up to date record by record while the appliance runs.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .log import records

SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    round TEXT PRIMARY KEY, house TEXT, banker TEXT, opened_at TEXT, settled_at TEXT,
    status TEXT NOT NULL, reason TEXT, banker_net TEXT, commission TEXT, collection TEXT, seq INTEGER);
CREATE TABLE IF NOT EXISTS seats (
    round TEXT, seat INTEGER, wager TEXT, result TEXT, front TEXT, back TEXT, won TEXT, lost TEXT,
    commission TEXT, collection TEXT, net TEXT, PRIMARY KEY (round, seat));
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, ts TEXT, event TEXT, who TEXT, round TEXT);
CREATE INDEX IF NOT EXISTS events_round ON events (round);
CREATE INDEX IF NOT EXISTS seats_result ON seats (result);
"""


class Index:
    def __init__(self, path: str | Path):
        self.db = sqlite3.connect(str(path))
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def add(self, record: dict) -> None:
        """Index one record (called after it is on disk)."""
        data, event = record["data"], record["event"]
        round_id = data.get("round")
        self.db.execute("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?)",
                        (record["seq"], record["ts"], event, record.get("who"), round_id))
        if event == "RoundOpened":
            self.db.execute("INSERT OR REPLACE INTO rounds (round, house, banker, opened_at, status, seq) "
                            "VALUES (?, ?, ?, ?, 'open', ?)",
                            (round_id, data["house"], str(data["banker"]), record["ts"], record["seq"]))
        elif event == "RoundSettled":
            totals = data["settlement"]["totals"]
            self.db.execute("UPDATE rounds SET status = 'settled', settled_at = ?, banker_net = ?, commission = ?, "
                            "collection = ? WHERE round = ?",
                            (record["ts"], totals["banker_net"], totals["commission"], totals["collection"], round_id))
            for s in data["settlement"]["seats"]:
                self.db.execute("INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                (round_id, s["seat"], s["wager"], s["result"], s["front"], s["back"], s["won"],
                                 s["lost"], s["commission"], s["collection"], s["net"]))
        elif event == "RoundVoided":
            self.db.execute("UPDATE rounds SET status = 'voided', reason = ? WHERE round = ?", (data["reason"], round_id))
        self.db.commit()

    def rebuild(self, folder: str | Path) -> int:
        self.db.executescript("DELETE FROM rounds; DELETE FROM seats; DELETE FROM events;")
        count = 0
        for record in records(folder):
            self.add(record)
            count += 1
        return count

    def recent(self, n: int = 10) -> list[dict]:
        """The last ``n`` rounds, newest first (game recall: the current one and the nine before)."""
        rows = self.db.execute("SELECT round, house, banker, opened_at, settled_at, status, reason, banker_net, "
                               "commission, collection FROM rounds ORDER BY seq DESC LIMIT ?", (n,)).fetchall()
        keys = ("round", "house", "banker", "opened_at", "settled_at", "status", "reason", "banker_net",
                "commission", "collection")
        return [dict(zip(keys, row)) for row in rows]

    def search(self, seat: int | None = None, result: str | None = None, since: str | None = None) -> list[dict]:
        query = ("SELECT s.round, s.seat, s.wager, s.result, s.net, r.settled_at FROM seats s "
                 "JOIN rounds r USING (round) WHERE 1 = 1")
        args: list = []
        if seat is not None:
            query, args = query + " AND s.seat = ?", [*args, seat]
        if result is not None:
            query, args = query + " AND s.result = ?", [*args, result]
        if since is not None:
            query, args = query + " AND r.settled_at >= ?", [*args, since]
        rows = self.db.execute(query + " ORDER BY r.seq", args).fetchall()
        return [dict(zip(("round", "seat", "wager", "result", "net", "settled_at"), row)) for row in rows]

    def events_of(self, round_id: str) -> list[dict]:
        rows = self.db.execute("SELECT seq, ts, event, who FROM events WHERE round = ? ORDER BY seq", (round_id,))
        return [dict(zip(("seq", "ts", "event", "who"), row)) for row in rows.fetchall()]
