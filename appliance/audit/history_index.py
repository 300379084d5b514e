"""A SQLite index of the audit log for history queries (the dashboard's search and recall) and for
what start-up needs to know of the past (the last round number of a day).

The log stays the source of truth: the index can be dropped and rebuilt from it at any time,
and is kept up to date record by record while the appliance runs. It remembers the last record
it holds (sequence number and signature), so a start catches up with what was written since,
in batches of one transaction each, instead of reading the whole history again; an index that
does not match the log (another log, a log cut back) is rebuilt.

The index file is not signed, and anyone with the disk could edit it: so every row carries an HMAC of
its own columns under a key derived from the audit key (``sig``, made by SQLite through
:func:`row_sig` from what it stored), and what is shown (the shift's totals, the history) is read only
from rows that still match it. A row deleted leaves no signature to fail: so each table's tally (how many
rows it was given, and the XOR of their signatures) is kept signed beside it, written in the same
transaction as the rows. What is shown is read only from tables holding as many rows as their tally says,
and a start checks the XOR too (a row swapped for an older copy of itself). An edited, deleted or added
row raises :class:`IndexEdited`; an index given the log's folder then rebuilds itself from the log and
says so (``on_rebuilt``) instead of showing the figures.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import hmac
import json
import re
import sqlite3
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from ..game.banking import BankRound
from ..game.settlement import Result
from ..game.start_seat import DEALER
from ..records.events import Events
from ..records.fold import Rounds, round_of
from ..records.round_state import MISDEAL, RoundState
from .dispute import round_records
from .log import records_from

SCHEMA_VERSION = 4  # each row signed, each table's tally signed
SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    round TEXT PRIMARY KEY, house TEXT, banker TEXT, opened_at TEXT, settled_at TEXT,
    status TEXT NOT NULL, reason TEXT, banker_net TEXT, commission TEXT, collection TEXT, seq INTEGER,
    gaming_day TEXT, sig TEXT);
CREATE INDEX IF NOT EXISTS rounds_day ON rounds (gaming_day);
CREATE TABLE IF NOT EXISTS seats (
    round TEXT, seat INTEGER, wager TEXT, result TEXT, front TEXT, back TEXT, won TEXT, lost TEXT,
    commission TEXT, collection TEXT, net TEXT, sig TEXT, PRIMARY KEY (round, seat));
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, ts TEXT, event TEXT, who TEXT, round TEXT, sig TEXT);
CREATE INDEX IF NOT EXISTS events_round ON events (round);
CREATE INDEX IF NOT EXISTS seats_result ON seats (result);
CREATE TABLE IF NOT EXISTS indexed (one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER NOT NULL, hmac TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS faults (seq INTEGER PRIMARY KEY, ts TEXT, device TEXT, message TEXT, sig TEXT);
CREATE TABLE IF NOT EXISTS tally (name TEXT PRIMARY KEY, rows INTEGER NOT NULL, digest TEXT NOT NULL, sig TEXT);
"""

#: The tables an index holds (and has held: no layout had others), so that a file named as an index that holds
#: any other is known to be another program's database, and is never dropped as an index of another layout.
TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))

#: The signed columns of each table (all but ``sig``) and the columns that name one row.
COLUMNS = {
    "rounds": ("round", "house", "banker", "opened_at", "settled_at", "status", "reason", "banker_net",
               "commission", "collection", "seq", "gaming_day"),
    "seats": ("round", "seat", "wager", "result", "front", "back", "won", "lost", "commission", "collection", "net"),
    "events": ("seq", "ts", "event", "who", "round"),
    "faults": ("seq", "ts", "device", "message"),
}
ROW_KEY = {"rounds": ("round",), "seats": ("round", "seat"), "events": ("seq",), "faults": ("seq",)}


class IndexEdited(sqlite3.DatabaseError):
    """A row of the history index no longer matches its signature: the file was changed outside the appliance."""


def index_key(audit_key: bytes) -> bytes:
    """The rows' key: derived from the audit key, so the index never holds the key that signs the log."""
    return hmac.new(audit_key, b"paigow history index rows", hashlib.sha256).digest()


def row_sig(key: bytes, table: str, *values) -> str:
    """A row's signature: its table and its columns' values as SQLite holds them.

    >>> row_sig(b"k", "events", 1, "t", "RoundOpened", None, "r-1") == row_sig(b"k", "events", 1, "t", "RoundOpened", None, "r-1")
    True
    >>> row_sig(b"k", "seats", "r-1", 2, "20.00") == row_sig(b"k", "seats", "r-1", 2, "200.00")
    False
    """
    return hmac.new(key, json.dumps([table, *values]).encode(), hashlib.sha256).hexdigest()

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
    return None if when is None else when.astimezone(dt.UTC).isoformat(timespec="microseconds")


def shown(read: Callable) -> Callable:
    """A reader of what the screens show: an edited row rebuilds the index from the log (when the index
    knows the log's folder), says why (``on_rebuilt``), and the rebuilt index answers instead."""

    @functools.wraps(read)
    def checked(self: Index, *args, **kwargs):
        try:
            return read(self, *args, **kwargs)
        except IndexEdited as err:
            if self.folder is None:
                raise
            self.rebuild(self.folder)
            self.on_rebuilt(f"{err}. It was rebuilt from the audit log")
            return read(self, *args, **kwargs)
    return checked


class Index:
    """One connection shared by the round engine's thread (writes) and the dashboard's (reads).

    ``key`` signs the rows (:func:`index_key` of the audit key; a tool's index of its own needs none).
    ``folder``, the log's: an edited row found while reading rebuilds the index from it, and
    ``on_rebuilt(why)`` is told, before the rebuilt index answers."""

    def __init__(self, path: str | Path, key: bytes = b"", folder: str | Path | None = None,
                 on_rebuilt: Callable[[str], None] = lambda why: None):
        self.db = sqlite3.connect(str(path), check_same_thread=False)
        self.key, self.folder, self.on_rebuilt = key, folder, on_rebuilt
        # The round the records have reached, by the one fold: its row is what the fold says of it.
        self._rounds, self._log = Rounds(), None if folder is None else Path(folder)
        self.db.create_function("row_sig", -1, lambda table, *values: row_sig(self.key, table, *values),
                                deterministic=True)
        self.lock = threading.RLock()
        self._delta: dict[str, tuple[int, int]] = {}  # table -> rows added, XOR of signatures: this transaction's
        with self.lock:
            if self.db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                # Only a cache of the log: an index of another layout is dropped and built again.
                for (table,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    self.db.execute(f'DROP TABLE "{table}"')
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.executescript(SCHEMA)

    def _signed(self, table: str, **row_key) -> str | None:
        """The row's signature as stored now; None when there is no such row (or it is not signed yet)."""
        where = " AND ".join(f"{name} = ?" for name in row_key)
        row = self.db.execute(f"SELECT sig FROM {table} WHERE {where}", tuple(row_key.values())).fetchone()
        return row[0] if row else None

    def _sign(self, table: str, before: str | None, **row_key) -> None:
        """Sign a row from what SQLite stored (so a value's type is as a later read sees it), and count it
        in its table's tally: ``before`` is the signature of the row it replaces or changes (None: a new row)."""
        columns = ", ".join(COLUMNS[table])
        where = " AND ".join(f"{name} = ?" for name in row_key)
        self.db.execute(f"UPDATE {table} SET sig = row_sig('{table}', {columns}) WHERE {where}", tuple(row_key.values()))
        after = self._signed(table, **row_key)
        if after is not None:  # else no such row (a settlement of a round this index never saw open)
            rows, digest = self._delta.get(table, (0, 0))
            self._delta[table] = (rows + (before is None), digest ^ int(after, 16) ^ (int(before, 16) if before else 0))

    def _unsign(self, table: str, **row_key) -> None:
        """A row about to be deleted, taken out of its table's tally."""
        sig = self._signed(table, **row_key)
        if sig is not None:
            rows, digest = self._delta.get(table, (0, 0))
            self._delta[table] = (rows - 1, digest ^ int(sig, 16))

    def _tally(self, table: str) -> tuple[int, int]:
        """How many rows ``table`` was given and the XOR of their signatures, as signed when they were written."""
        row = self.db.execute("SELECT rows, digest, sig FROM tally WHERE name = ?", (table,)).fetchone()
        if row is None:
            return 0, 0
        if not hmac.compare_digest(str(row[2]), row_sig(self.key, "tally", table, row[0], row[1])):
            raise IndexEdited(f"the history index's count of {table} rows does not match its signature: "
                              "the file was changed outside the appliance")
        return row[0], int(row[1], 16)

    def _write_tally(self) -> None:
        """This transaction's rows added to the tallies (in the same transaction)."""
        for table, (rows, digest) in self._delta.items():
            had, was = self._tally(table)
            rows, digest = had + rows, f"{was ^ digest:064x}"
            self.db.execute("INSERT OR REPLACE INTO tally VALUES (?, ?, ?, ?)",
                            (table, rows, digest, row_sig(self.key, "tally", table, rows, digest)))
        self._delta = {}

    def _check_count(self, *tables: str) -> None:
        """Raise :class:`IndexEdited` when a table holds more or fewer rows than it was given (a row deleted
        leaves no signature behind to fail)."""
        for table in tables:
            given = self._tally(table)[0]
            held = self.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            if held != given:
                what = f"{given - held} deleted" if held < given else f"{held - given} added"
                raise IndexEdited(f"the history index holds {held} {table} rows where {given} were written "
                                  f"({what}): the file was changed outside the appliance")

    def _check_digest(self, table: str) -> None:
        """The XOR of every row's signature against the tally: a row swapped for another signed copy of itself."""
        digest = 0
        for (sig,) in self.db.execute(f"SELECT sig FROM {table}"):
            digest ^= int(sig, 16)
        if digest != self._tally(table)[1]:
            raise IndexEdited(f"the history index's {table} rows are not the ones written (a row was replaced "
                              "by an older copy): the file was changed outside the appliance")

    def _check(self, table: str, where: str = "1 = 1", args: tuple | list = ()) -> None:
        """Raise :class:`IndexEdited` naming the first row ``where`` selects that does not match its signature."""
        columns = ", ".join(COLUMNS[table])
        row = self.db.execute(f"SELECT {', '.join(ROW_KEY[table])} FROM {table} WHERE ({where}) "
                              f"AND sig IS NOT row_sig('{table}', {columns}) LIMIT 1", args).fetchone()
        if row is not None:
            named = ", ".join(f"{k} {v}" for k, v in zip(ROW_KEY[table], row))
            raise IndexEdited(f"the history index's {table} row ({named}) does not match its signature: "
                              "the file was changed outside the appliance")

    def check(self) -> None:
        """Every row against its signature, and SQLite's own check of the file's pages (at start-up):
        :class:`IndexEdited`, or SQLite's ``DatabaseError`` for a damaged file."""
        with self.lock:
            problems = [row[0] for row in self.db.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                found = " ".join(problems[0].replace("*** in database main ***", "").split())  # one line, for the screens
                raise sqlite3.DatabaseError(f"database disk image is malformed: {found}")
            for table in COLUMNS:
                self._check(table)
                self._check_count(table)
                self._check_digest(table)

    def _check_rounds(self, rounds: list[str]) -> None:
        self._check_count("rounds", "seats")
        for start in range(0, len(rounds), 500):  # under SQLite's limit on parameters
            part = rounds[start:start + 500]
            marks = ", ".join("?" * len(part))
            self._check("rounds", f"round IN ({marks})", part)
            self._check("seats", f"round IN ({marks})", part)

    def close(self) -> None:
        self.db.close()

    def add(self, record: dict) -> None:
        """Index one record (called after it is on disk)."""
        with self.lock, self._forgets(), self.db:
            self._delta = {}  # what a failed transaction counted was rolled back with it
            self._add(record)
            self._mark(record)

    @contextlib.contextmanager
    def _forgets(self):
        """A transaction that fails leaves the round's row as it was, and the fold of its records is
        forgotten with it: the next of the round's records folds it again from the log."""
        try:
            yield
        except BaseException:
            self._rounds.current = None
            raise

    def _mark(self, record: dict) -> None:
        self._write_tally()
        self.db.execute("INSERT OR REPLACE INTO indexed VALUES (1, ?, ?)", (record["seq"], record["hmac"]))

    def last_indexed(self) -> tuple[int, str | None]:
        """The sequence number and signature of the last record indexed, (0, None) when empty."""
        with self.lock:
            row = self.db.execute("SELECT seq, hmac FROM indexed").fetchone()
        return (row[0], row[1]) if row else (0, None)

    def _add(self, record: dict) -> None:
        data, event = record["data"], record["event"]
        round_id = data.get("round")
        before = self._signed("events", seq=record["seq"])
        self.db.execute("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, NULL)",
                        (record["seq"], record["ts"], event, record.get("who"), round_id))
        self._sign("events", before, seq=record["seq"])
        if round_of(record) is not None:
            self._round(record)
        elif event in FAULT_EVENTS and (event != Events.DEVICE_STATUS or data.get("status") in ("offline", "fault")):
            before = self._signed("faults", seq=record["seq"])
            self.db.execute("INSERT OR REPLACE INTO faults VALUES (?, ?, ?, ?, NULL)",
                            (record["seq"], record["ts"], data.get("device") or data.get("source"),
                             data.get("detail") or data.get("message") or data.get("reason", "")))
            self._sign("faults", before, seq=record["seq"])

    def _round(self, record: dict) -> None:
        """Fold one of a round's records, and write the round's row where the fold says it changed: opened,
        settled, voided, or reopened by a correction (its settled seats then leave until it is settled again)."""
        round_id = round_of(record)
        if self._rounds.current is None or self._rounds.current.round != round_id:
            self._rounds.current = self._folded(round_id, record["seq"])
        opened, status = self._rounds.current.opened, self._rounds.current.status
        state = self._rounds.fold(record)
        if state.opened is opened and state.status == status:
            return
        before = self._signed("rounds", round=round_id)
        if state.opened is not opened:
            self.db.execute("INSERT OR REPLACE INTO rounds (round, house, banker, opened_at, status, seq, gaming_day) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (round_id, state.house, str(state.banker.seat), state.opened.at, state.status,
                             state.opened.seq, state.opened.gaming_day))
        elif state.status == "settled":
            totals = state.settlement["totals"]
            self.db.execute("UPDATE rounds SET status = 'settled', settled_at = ?, banker_net = ?, commission = ?, "
                            "collection = ? WHERE round = ?",
                            (state.settled.at, totals["banker_net"], totals["commission"], totals["collection"],
                             round_id))
            for s in state.settlement["seats"]:
                replaced = self._signed("seats", round=round_id, seat=s["seat"])
                self.db.execute("INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                                (round_id, s["seat"], s["wager"], s["result"], s["front"], s["back"], s["won"],
                                 s["lost"], s["commission"], s["collection"], s["net"]))
                self._sign("seats", replaced, round=round_id, seat=s["seat"])
        elif state.status == "voided":
            self.db.execute("UPDATE rounds SET status = 'voided', reason = ? WHERE round = ?",
                            (state.void.reason, round_id))
        elif status == "settled":  # reopened by a correction: not settled until it is settled again
            self.db.execute("UPDATE rounds SET status = ?, settled_at = NULL, banker_net = NULL, commission = NULL, "
                            "collection = NULL WHERE round = ?", (state.status, round_id))
            for (seat,) in self.db.execute("SELECT seat FROM seats WHERE round = ?", (round_id,)).fetchall():
                self._unsign("seats", round=round_id, seat=seat)
                self.db.execute("DELETE FROM seats WHERE round = ? AND seat = ?", (round_id, seat))
        else:
            return
        self._sign("rounds", before, round=round_id)

    def _folded(self, round_id: str, before: int) -> RoundState:
        """The round's state from its records before ``before``, read from the log (where the index knows
        it): an index that catches up, or starts, in the middle of a round folds what came before."""
        state = RoundState(round_id)
        times = [ts for (ts,) in self.db.execute("SELECT ts FROM events WHERE round = ? AND seq < ?",
                                                  (round_id, before))]
        if times and self._log is not None:
            for record in round_records(self._log, round_id, times):
                if record["seq"] < before:
                    state.fold(record)
        return state

    def catch_up(self, folder: str | Path, on_batch: Callable[[int], None] = lambda done: None) -> int:
        """Index what the log holds beyond the last record indexed; returns how many records that was.
        An index whose last record is not in the log as it was indexed is rebuilt from the start.
        ``on_batch(records so far)`` hears of each batch committed (a long first build tells systemd)."""
        logged = any(Path(folder).glob("*.jsonl"))
        with self.lock:
            self._rounds.current, self._log = None, Path(folder)
            seq, signature = self.last_indexed()
            new = records_from(folder, seq) if logged else iter(())
            if seq:
                same = next(new, None)
                if same is None or same["seq"] != seq or same["hmac"] != signature:
                    seq, new = 0, records_from(folder, 0)
            if not seq:
                with self.db:  # rows of an index that kept no mark (an older version) or of another log
                    for table in ("rounds", "seats", "events", "faults", "indexed", "tally"):
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
            # one transaction: a crash keeps the index at the end of the last whole batch
            with self._forgets(), self.db:
                self._delta = {}
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

    @shown
    def bank_rounds(self, house: str, limit: int, excluding: tuple[str, ...] = ()) -> list[BankRound]:
        """The last ``limit`` settled rounds of ``house``, oldest first, as the bank's rotation rules see
        them: the banker and the seats that wagered (a Player/Dealer's own seat among them). ``excluding``:
        rounds not settled for good (an interrupted round, reopened by a correction)."""
        with self.lock:
            rows = self.db.execute(
                "SELECT r.round, r.banker, group_concat(s.seat) FROM rounds r LEFT JOIN seats s USING (round) "
                "WHERE r.house = ? AND r.status = 'settled' GROUP BY r.round ORDER BY r.seq DESC LIMIT ?",
                (house, limit + len(excluding))).fetchall()
            self._check_rounds([row[0] for row in rows])
        history = []
        for round_id, banker, seats in reversed(rows):
            if round_id in excluding:
                continue
            position = DEALER if banker == DEALER else int(banker)
            history.append(BankRound.played(position, (int(s) for s in seats.split(",")) if seats else ()))
        return history[-limit:] if limit else []

    @shown
    def shift(self, since: dt.datetime | None = None, day: str | None = None) -> dict:
        """Totals of the rounds opened since a time (and, with ``day``, of that gaming day): rounds
        settled and voided, misdeals by reason, commission, collection, fouls, bank."""
        where, args = "rounds.opened_at >= ?", [log_time(since) or ""]
        if day is not None:
            where, args = f"{where} AND rounds.gaming_day = ?", [*args, day]
        with self.lock:
            self._check_count("rounds", "seats")
            self._check("rounds", where, args)
            self._check("seats", f"round IN (SELECT round FROM rounds WHERE {where})", args)
            rounds = self.db.execute("SELECT status, banker_net, commission, collection FROM rounds "
                                     f"WHERE {where}", args).fetchall()
            fouls = self.db.execute("SELECT COUNT(*) FROM seats JOIN rounds USING (round) "
                                    f"WHERE seats.result = 'foul' AND {where}", args).fetchone()[0]
            misdeals = self.db.execute("SELECT substr(reason, ?), COUNT(*) FROM rounds WHERE status = 'voided' "
                                       f"AND reason LIKE ? AND {where} GROUP BY reason",
                                       [len(MISDEAL) + 1, MISDEAL + "%", *args]).fetchall()
        settled = [r for r in rounds if r[0] == "settled"]
        return {"misdeals": dict(misdeals), "since": log_time(since), "gaming_day": day,
                "rounds_settled": len(settled),
                "rounds_voided": sum(1 for r in rounds if r[0] == "voided"),
                "commission": str(sum((Decimal(r[2]) for r in settled), Decimal("0.00"))),
                "collection": str(sum((Decimal(r[3]) for r in settled), Decimal("0.00"))),
                "banker_net": str(sum((Decimal(r[1]) for r in settled), Decimal("0.00"))),
                "fouls": fouls}

    @shown
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
            self._check_count(*COLUMNS)
            self._check("rounds", "opened_at >= ?", (start,))
            self._check("seats", "round IN (SELECT round FROM rounds WHERE opened_at >= ?)", (start,))
            self._check("events", "event = ? AND ts >= ?", (Events.READ_CONFIRMED, start))
            self._check("faults", "ts >= ?", (start,))
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

    @shown
    def recent(self, n: int = 10) -> list[dict]:
        """The last ``n`` rounds, newest first (game recall: the current one and the nine before)."""
        with self.lock:
            rows = self.db.execute("SELECT round, house, banker, opened_at, settled_at, status, reason, banker_net, "
                                   "commission, collection, gaming_day FROM rounds ORDER BY seq DESC LIMIT ?",
                                   (n,)).fetchall()
            self._check_rounds([row[0] for row in rows])
        keys = ("round", "house", "banker", "opened_at", "settled_at", "status", "reason", "banker_net",
                "commission", "collection", "gaming_day")
        return [dict(zip(keys, row)) for row in rows]

    @shown
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
            self._check_rounds(sorted({row[0] for row in rows}))
        keys = ("round", "status", "opened_at", "settled_at", "seat", "wager", "result", "net", "gaming_day")
        return [dict(zip(keys, row)) for row in rows]

    @shown
    def events_of(self, round_id: str) -> list[dict]:
        with self.lock:
            self._check_count("events")
            self._check("events", "round = ?", (round_id,))
            rows = self.db.execute("SELECT seq, ts, event, who FROM events WHERE round = ? ORDER BY seq",
                                   (round_id,)).fetchall()
        return [dict(zip(("seq", "ts", "event", "who"), row)) for row in rows]


def open_checked(path: Path, key: bytes, folder: Path,
                 on_rebuilt: Callable[[str], None] = lambda why: None) -> tuple[Index, str | None]:
    """The index at ``path`` checked whole at start-up (SQLite's check of its pages, every row against its
    signature): one that is damaged or edited is moved aside as evidence (``<name>.damaged-<n>``) and a
    new one made in its place, which catching up builds from the log. Returns the index and, when the old
    one was set aside, why, in plain words. SQLite's own refusals to write (a full disk) are not damage:
    they are raised as they are."""
    try:
        index = Index(path, key, folder, on_rebuilt)
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as err:  # "file is not a database": the header is damaged
        return _set_aside(path, err, key, folder, on_rebuilt)
    try:
        index.check()
    except sqlite3.OperationalError:
        index.close()
        raise
    except sqlite3.DatabaseError as err:  # damaged pages, or an edited row
        index.close()
        return _set_aside(path, err, key, folder, on_rebuilt)
    return index, None


def _set_aside(path: Path, err: sqlite3.DatabaseError, key: bytes, folder: Path,
               on_rebuilt: Callable[[str], None]) -> tuple[Index, str]:
    n = len(list(path.parent.glob(f"{path.name}.damaged-*")))
    aside = path.with_name(f"{path.name}.damaged-{n}")
    path.rename(aside)
    for extra in ("-journal", "-wal", "-shm"):  # SQLite's files beside it belong to the damaged one
        sibling = path.with_name(path.name + extra)
        if sibling.exists():
            sibling.rename(aside.with_name(aside.name + extra))
    what = "was changed outside the appliance" if isinstance(err, IndexEdited) else "is damaged"
    reason = (f"The history index {what} ({err}): it is rebuilt from the audit log, and the old file "
              f"is kept as {aside.name}")
    return Index(path, key, folder, on_rebuilt), reason
