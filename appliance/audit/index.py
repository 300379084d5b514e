"""A SQLite index of the audit log for history queries (the dashboard's search and recall) and for
what start-up needs to know of the past (the last round number of a day).

The log stays the source of truth: the index can be dropped and rebuilt from it at any time,
and is kept up to date record by record while the appliance runs. It remembers the last record
it holds (sequence number and signature), so a start catches up with what was written since,
in batches of one transaction each, instead of reading the whole history again; an index that
does not match the log (another log, a log cut back) is rebuilt.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from ..game.banking import BankRound
from ..game.settlement import Result
from ..game.start_seat import DEALER
from ..records.events import Events
from .log import records_from

SCHEMA_VERSION = 2  # rounds carry their gaming day
SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    round TEXT PRIMARY KEY, house TEXT, banker TEXT, opened_at TEXT, settled_at TEXT,
    status TEXT NOT NULL, reason TEXT, banker_net TEXT, commission TEXT, collection TEXT, seq INTEGER,
    gaming_day TEXT);
CREATE INDEX IF NOT EXISTS rounds_day ON rounds (gaming_day);
CREATE TABLE IF NOT EXISTS seats (
    round TEXT, seat INTEGER, wager TEXT, result TEXT, front TEXT, back TEXT, won TEXT, lost TEXT,
    commission TEXT, collection TEXT, net TEXT, PRIMARY KEY (round, seat));
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, ts TEXT, event TEXT, who TEXT, round TEXT);
CREATE INDEX IF NOT EXISTS events_round ON events (round);
CREATE INDEX IF NOT EXISTS seats_result ON seats (result);
CREATE TABLE IF NOT EXISTS indexed (one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER NOT NULL, hmac TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS faults (seq INTEGER PRIMARY KEY, ts TEXT, device TEXT, message TEXT);
"""

#: The records that say a device went wrong (a device gone offline or faulty, a rejected line, a failed
#: uniformity check), as the shift's chart counts them.
FAULT_EVENTS = (Events.DEVICE_STATUS, Events.DEVICE_REJECTED, Events.DEVICE_HEALTH)

BATCH = 5000  # records per transaction while catching up

#: What a history row's ``result`` can be: a seat's result, or the status of a round with no settled seats.
RESULTS = (*(r.value for r in Result), "open", "voided")


def log_time(when: dt.datetime | None) -> str | None:
    """A time as the log writes it (UTC, to the microsecond), so that times compare as strings in SQL;
    a naive time is the appliance's local time, as the gaming day is.

    >>> log_time(dt.datetime(2026, 11, 29, 6, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5))))
    '2026-11-29T11:00:00.000000+00:00'
    """
    return None if when is None else when.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")


class Index:
    """One connection shared by the round engine's thread (writes) and the dashboard's (reads)."""

    def __init__(self, path: str | Path):
        self.db = sqlite3.connect(str(path), check_same_thread=False)
        self.lock = threading.RLock()
        with self.lock:
            if self.db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                # Only a cache of the log: an index of another layout is dropped and built again.
                for (table,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    self.db.execute(f'DROP TABLE "{table}"')
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def add(self, record: dict) -> None:
        """Index one record (called after it is on disk)."""
        with self.lock, self.db:
            self._add(record)
            self._mark(record)

    def _mark(self, record: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO indexed VALUES (1, ?, ?)", (record["seq"], record["hmac"]))

    def last_indexed(self) -> tuple[int, str | None]:
        """The sequence number and signature of the last record indexed, (0, None) when empty."""
        with self.lock:
            row = self.db.execute("SELECT seq, hmac FROM indexed").fetchone()
        return (row[0], row[1]) if row else (0, None)

    def _add(self, record: dict) -> None:
        data, event = record["data"], record["event"]
        round_id = data.get("round")
        self.db.execute("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?)",
                        (record["seq"], record["ts"], event, record.get("who"), round_id))
        if event == Events.ROUND_OPENED:
            self.db.execute("INSERT OR REPLACE INTO rounds (round, house, banker, opened_at, status, seq, gaming_day) "
                            "VALUES (?, ?, ?, ?, 'open', ?, ?)",
                            (round_id, data["house"], str(data["banker"]), record["ts"], record["seq"],
                             record.get("gaming_day")))
        elif event == Events.ROUND_SETTLED:
            totals = data["settlement"]["totals"]
            self.db.execute("UPDATE rounds SET status = 'settled', settled_at = ?, banker_net = ?, commission = ?, "
                            "collection = ? WHERE round = ?",
                            (record["ts"], totals["banker_net"], totals["commission"], totals["collection"], round_id))
            for s in data["settlement"]["seats"]:
                self.db.execute("INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                (round_id, s["seat"], s["wager"], s["result"], s["front"], s["back"], s["won"],
                                 s["lost"], s["commission"], s["collection"], s["net"]))
        elif event == Events.ROUND_VOIDED:
            self.db.execute("UPDATE rounds SET status = 'voided', reason = ? WHERE round = ?", (data["reason"], round_id))
        elif event in FAULT_EVENTS and (event != Events.DEVICE_STATUS or data.get("status") in ("offline", "fault")):
            self.db.execute("INSERT OR REPLACE INTO faults VALUES (?, ?, ?, ?)",
                            (record["seq"], record["ts"], data.get("device") or data.get("source"),
                             data.get("detail") or data.get("message") or data.get("reason", "")))

    def catch_up(self, folder: str | Path, on_batch: Callable[[int], None] = lambda done: None) -> int:
        """Index what the log holds beyond the last record indexed; returns how many records that was.
        An index whose last record is not in the log as it was indexed is rebuilt from the start.
        ``on_batch(records so far)`` hears of each batch committed (a long first build tells systemd)."""
        logged = any(Path(folder).glob("*.jsonl"))
        with self.lock:
            seq, signature = self.last_indexed()
            new = records_from(folder, seq) if logged else iter(())
            if seq:
                same = next(new, None)
                if same is None or same["seq"] != seq or same["hmac"] != signature:
                    seq, new = 0, records_from(folder, 0)
            if not seq:
                with self.db:  # rows of an index that kept no mark (an older version) or of another log
                    for table in ("rounds", "seats", "events", "faults", "indexed"):
                        self.db.execute(f"DELETE FROM {table}")
            count, batch = 0, []
            for record in new:
                batch.append(record)
                if len(batch) == BATCH:
                    count += self._add_batch(batch)
                    batch = []
                    on_batch(count)
            return count + self._add_batch(batch)

    def _add_batch(self, batch: list[dict]) -> int:
        if batch:
            with self.db:  # one transaction: a crash keeps the index at the end of the last whole batch
                for record in batch:
                    self._add(record)
                self._mark(batch[-1])
        return len(batch)

    def rebuild(self, folder: str | Path) -> int:
        """Drop everything and index the whole log again."""
        with self.lock, self.db:
            self.db.execute("DELETE FROM indexed")
        return self.catch_up(folder)

    def last_number(self, prefix: str) -> int:
        """The highest N of the round ids ``<prefix>-N`` indexed, 0 when there is none."""
        with self.lock:
            rows = self.db.execute("SELECT round FROM rounds WHERE round >= ? AND round < ?",
                                   (f"{prefix}-", f"{prefix}.")).fetchall()  # "." follows "-": the prefix's range
        numbers = [int(r[0][len(prefix) + 1:]) for r in rows if r[0][len(prefix) + 1:].isdigit()]
        return max(numbers, default=0)

    def bank_rounds(self, house: str, limit: int, excluding: tuple[str, ...] = ()) -> list[BankRound]:
        """The last ``limit`` settled rounds of ``house``, oldest first, as the bank's rotation rules see
        them: the banker and the seats that wagered (a Player/Dealer's own seat among them). ``excluding``:
        rounds not settled for good (an interrupted round, reopened by a correction)."""
        with self.lock:
            rows = self.db.execute(
                "SELECT r.round, r.banker, group_concat(s.seat) FROM rounds r LEFT JOIN seats s USING (round) "
                "WHERE r.house = ? AND r.status = 'settled' GROUP BY r.round ORDER BY r.seq DESC LIMIT ?",
                (house, limit + len(excluding))).fetchall()
        history = []
        for round_id, banker, seats in reversed(rows):
            if round_id in excluding:
                continue
            position = DEALER if banker == DEALER else int(banker)
            history.append(BankRound.played(position, (int(s) for s in seats.split(",")) if seats else ()))
        return history[-limit:] if limit else []

    def shift(self, since: dt.datetime | None = None, day: str | None = None) -> dict:
        """Totals of the rounds opened since a time (and, with ``day``, of that gaming day): rounds
        settled and voided, misdeals by reason, commission, collection, fouls, bank."""
        where, args = "rounds.opened_at >= ?", [log_time(since) or ""]
        if day is not None:
            where, args = f"{where} AND rounds.gaming_day = ?", [*args, day]
        with self.lock:
            rounds = self.db.execute("SELECT status, banker_net, commission, collection FROM rounds "
                                     f"WHERE {where}", args).fetchall()
            fouls = self.db.execute("SELECT COUNT(*) FROM seats JOIN rounds USING (round) "
                                    f"WHERE seats.result = 'foul' AND {where}", args).fetchone()[0]
            misdeals = self.db.execute("SELECT substr(reason, 10), COUNT(*) FROM rounds WHERE status = 'voided' "
                                       f"AND reason LIKE 'misdeal: %' AND {where} GROUP BY reason", args).fetchall()
        settled = [r for r in rounds if r[0] == "settled"]
        return {"misdeals": dict(misdeals), "since": log_time(since), "gaming_day": day,
                "rounds_settled": len(settled),
                "rounds_voided": sum(1 for r in rounds if r[0] == "voided"),
                "commission": str(sum((Decimal(r[2]) for r in settled), Decimal("0.00"))),
                "collection": str(sum((Decimal(r[3]) for r in settled), Decimal("0.00"))),
                "banker_net": str(sum((Decimal(r[1]) for r in settled), Decimal("0.00"))),
                "fouls": fouls}

    def shift_hours(self, since: dt.datetime | None = None) -> dict:
        """The shift hour by hour (UTC hours, as the log's times): rounds settled, commission, collection,
        fouls, cards named by a person (unreadable to the camera, or entered by hand) and device faults;
        and the bank's running result after each settled round."""
        start = log_time(since) or ""
        hours: dict[str, dict] = {}

        def hour(ts: str) -> dict:
            return hours.setdefault(ts[:13] + ":00:00+00:00", {"rounds": 0, "commission": Decimal("0.00"),
                                                                 "collection": Decimal("0.00"), "fouls": 0,
                                                                 "named": 0, "faults": 0})
        with self.lock:
            settled = self.db.execute("SELECT round, settled_at, banker_net, commission, collection FROM rounds "
                                      "WHERE status = 'settled' AND opened_at >= ? ORDER BY settled_at",
                                      (start,)).fetchall()
            fouls = self.db.execute("SELECT r.settled_at FROM seats s JOIN rounds r USING (round) "
                                    "WHERE s.result = 'foul' AND r.opened_at >= ?", (start,)).fetchall()
            named = self.db.execute("SELECT ts FROM events WHERE event = ? AND ts >= ?",
                                    (Events.READ_CONFIRMED, start)).fetchall()
            faults = self.db.execute("SELECT ts FROM faults WHERE ts >= ?", (start,)).fetchall()
        bank, running = [], Decimal("0.00")
        for round_id, ts, net, commission, collection in settled:
            h = hour(ts)
            h["rounds"] += 1
            h["commission"] += Decimal(commission)
            h["collection"] += Decimal(collection)
            running += Decimal(net)
            bank.append({"round": round_id, "at": ts, "bank": str(running)})
        for rows, key in ((fouls, "fouls"), (named, "named"), (faults, "faults")):
            for (ts,) in rows:
                hour(ts)[key] += 1
        return {"since": log_time(since), "bank": bank,
                "hours": [{"hour": h, **{k: str(v) if isinstance(v, Decimal) else v for k, v in counts.items()}}
                          for h, counts in sorted(hours.items())]}

    def recent(self, n: int = 10) -> list[dict]:
        """The last ``n`` rounds, newest first (game recall: the current one and the nine before)."""
        with self.lock:
            rows = self.db.execute("SELECT round, house, banker, opened_at, settled_at, status, reason, banker_net, "
                                   "commission, collection, gaming_day FROM rounds ORDER BY seq DESC LIMIT ?",
                                   (n,)).fetchall()
        keys = ("round", "house", "banker", "opened_at", "settled_at", "status", "reason", "banker_net",
                "commission", "collection", "gaming_day")
        return [dict(zip(keys, row)) for row in rows]

    def search(self, round_id: str | None = None, seat: int | None = None, result: str | None = None,
               start: dt.datetime | None = None, end: dt.datetime | None = None, limit: int = 200,
               day: str | None = None) -> list[dict]:
        """History rows, newest round first: one per settled seat, and one (seat null, result its status)
        for a round with no settled seats, so an open or voided round can be found too. The time is
        the settlement's, else the opening's; ``start`` and ``end`` are inclusive; ``day`` is the
        gaming day the round was opened in."""
        query = ("SELECT r.round, r.status, r.opened_at, r.settled_at, s.seat, s.wager, COALESCE(s.result, r.status), "
                 "s.net, r.gaming_day FROM rounds r LEFT JOIN seats s USING (round) WHERE 1 = 1")
        args: list = []
        for clause, value in (("r.round = ?", round_id), ("s.seat = ?", seat), ("r.gaming_day = ?", day),
                              ("COALESCE(s.result, r.status) = ?", result),
                              ("COALESCE(r.settled_at, r.opened_at) >= ?", log_time(start)),
                              ("COALESCE(r.settled_at, r.opened_at) <= ?", log_time(end))):
            if value is not None:
                query, args = f"{query} AND {clause}", [*args, value]
        with self.lock:
            rows = self.db.execute(query + " ORDER BY r.seq DESC, s.seat LIMIT ?", [*args, limit]).fetchall()
        keys = ("round", "status", "opened_at", "settled_at", "seat", "wager", "result", "net", "gaming_day")
        return [dict(zip(keys, row)) for row in rows]

    def events_of(self, round_id: str) -> list[dict]:
        with self.lock:
            rows = self.db.execute("SELECT seq, ts, event, who FROM events WHERE round = ? ORDER BY seq",
                                   (round_id,)).fetchall()
        return [dict(zip(("seq", "ts", "event", "who"), row)) for row in rows]
