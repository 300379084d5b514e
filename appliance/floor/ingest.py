"""Taking in a table's records: each verified against the chain the floor already anchors, stored
once, in order; anything else refused, kept aside and alerted on, never stored as good.

A batch is one transaction holding the table's row lock, so two shippers of one table, or a
floor killed half-way, leave the anchored head where the last commit put it: a record is
acknowledged only once it is committed, and a record sent again is acknowledged, not stored
again (idempotent by table and sequence).

A batch is two round trips to the database, whatever it holds: one reads (the table's token checked,
its head and key, taking its lock, and the hashes the floor holds of the batch's sequence numbers),
the records are checked here, and one writes (the records, their rounds, alerts, the new head) and
commits. It was 12, one per statement and one more per record sent again, and on busy cores each
waited its turn for the database's backend.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

import psycopg
from psycopg.types.json import Jsonb

from ..audit.log import AUDIT_GAP, GENESIS, SHIFT_SEALED, canonical, line_hash, signed_by
from ..records.fold import fold_rounds, round_of
from ..records.round_figures import COLUMNS, round_figures
from .alerts import close_alert, raise_alert
from .database import sent_together
from .enroll import WrongToken
from .pit_events import Observed, observe


@dataclass(frozen=True)
class Refusal:
    seq: int | None
    kind: str  # not-a-record, forged, wrong-key, chain-broken, rolled-back
    problem: str

    def to_json(self) -> dict:
        return {"seq": self.seq, "kind": self.kind, "problem": self.problem}


@dataclass(frozen=True)
class Incoming:
    line: bytes
    # The day the shipper sent beside the line: unsigned, so never booked to (anyone holding the table's
    # token could move takings between days with it); compared with the signed day only, to alert.
    sent_day: str | None = None


@dataclass
class IngestResult:
    head_seq: int
    head_hash: str
    accepted: int = 0
    refused: Refusal | None = None
    images_wanted: list[str] = field(default_factory=list)
    table_head: str | None = None  # "shorter" or "differs" when the table's own log is not what the floor holds

    def to_json(self) -> dict:
        return {"head_seq": self.head_seq, "head_hash": self.head_hash, "accepted": self.accepted,
                "refused": self.refused.to_json() if self.refused else None, "images_wanted": self.images_wanted,
                "table_head": self.table_head}


@dataclass
class _Head:
    seq: int
    hash: str


# A round's row of figures, as the one fold counts it (records.round_figures), kept as its records arrive so
# that the pit and the day's report read one row per round instead of every record of the day.
KEEP_ROUND = (f"INSERT INTO floor_rounds (table_id, round, {', '.join(COLUMNS)}) "
              f"VALUES ({', '.join(['%s'] * (len(COLUMNS) + 2))}) ON CONFLICT (table_id, round) DO UPDATE SET "
              + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS))


def parse(line: bytes) -> dict | None:
    """The record a line holds, if it is one in the log's canonical form."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or not {"seq", "prev", "hmac", "event", "ts", "who", "data"} <= set(record):
        return None
    if not isinstance(record["seq"], int) or not isinstance(record["data"], dict) or canonical(record) != line:
        return None
    if not all(isinstance(record[k], str) for k in ("event", "who", "prev", "hmac", "ts")):
        return None
    try:  # the time it was written, with its zone, as the log writes it (the database stores it as such)
        if dt.datetime.fromisoformat(record["ts"]).tzinfo is None:
            return None
    except ValueError:
        return None
    return record


def signed_day(record: dict) -> str | None:
    """The gaming day the record was signed with (``YYYY-MM-DD``, the house's day as the table computed it
    from the record's time): the only day the floor books it to.

    >>> signed_day({"gaming_day": "2026-11-28"}), signed_day({"gaming_day": "20261128"}), signed_day({})
    ('2026-11-28', None, None)
    """
    day = record.get("gaming_day")
    try:
        return day if isinstance(day, str) and dt.date.fromisoformat(day).isoformat() == day else None
    except ValueError:
        return None


def _refuse(conn, table: str, line: bytes, refusal: Refusal) -> Refusal:
    conn.execute("INSERT INTO floor_refused (table_id, seq, line, line_sha256, kind, problem) "
                 "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, line_sha256) DO NOTHING",
                 (table, refusal.seq, line.decode("utf-8", "replace"), line_hash(line), refusal.kind, refusal.problem))
    raise_alert(conn, table, refusal.kind, refusal.problem)
    return refusal


def _other_key_owner(conn, table: str, record: dict) -> str | None:
    """Which other enrolled table's key signed this record, if any (a table shipping another's log)."""
    for other, key in conn.execute("SELECT table_id, audit_key FROM floor_keys WHERE table_id <> %s", (table,)):
        if signed_by(bytes(key), record):
            return other
    return None


def check_table_head(conn, table: str, head: _Head, says: dict | None, stored: dict[int, str]) -> str | None:
    """Compare the head the table reports for its own log with what the floor anchored: "shorter" (the same
    records, fewer of them: alerted here) or "differs" (other records: the shipper then sends its log
    again so that the first different record is refused, kept aside and alerted on with its sequence).
    ``stored`` holds the hashes the floor holds of the sequence numbers asked about."""
    seq, digest = _says(says)
    if seq is None or seq > head.seq or seq == 0:
        return None
    held = head.hash if seq == head.seq else stored.get(seq)
    if held is None:
        return None  # pruned (retention): nothing left to compare with
    if held != digest:
        return "differs"
    if seq < head.seq:
        raise_alert(conn, table, "rolled-back", f"table {table}'s log was rolled back or replaced at sequence "
                                                f"{seq + 1}: it ends at {seq}, the floor holds {head.seq}")
        return "shorter"
    return None


def _says(says: dict | None) -> tuple[int | None, str | None]:
    """The sequence number and hash of the head the table reports for its own log, if it reports one."""
    seq, digest = (says or {}).get("seq"), (says or {}).get("hash")
    return (seq, digest) if isinstance(seq, int) and isinstance(digest, str) else (None, None)


def _asked_about(records: list[dict | None], says: dict | None) -> list[int]:
    """The sequence numbers whose hash as the floor holds it the batch may need: each record's (one sent
    again is compared with the copy held), the record before the records a gap says were lost, and the
    head the table reports. Asked for all at once, with the table's head; only those up to it are held."""
    seqs = {r["seq"] for r in records if r is not None}
    seqs |= {r["data"]["from_seq"] - 1 for r in records
             if r is not None and r["event"] == AUDIT_GAP and isinstance(r["data"].get("from_seq"), int)}
    seqs.add(_says(says)[0])
    return sorted(s for s in seqs if isinstance(s, int) and 0 < s < 1 << 63)


# The table's row, locked for the batch (an UPDATE waits for another shipper's batch of the table, then reads
# the head that one committed), and what was asked of it set. A statement of its own after it reads the
# hashes: a statement sees what was committed before it began, and this one begins once the lock is held.
# Only with the table's token: a request with another reads and sets nothing, and waits for no lock.
LOCK_TABLE = ("UPDATE floor_tables t SET last_seen = now(), recording = %s, table_says = coalesce(%s, t.table_says) "
              "FROM floor_keys k WHERE t.table_id = %s AND t.token_sha256 = %s AND k.table_id = t.table_id "
              "RETURNING t.head_seq, t.head_hash, k.audit_key, t.held, t.phase, t.current_round, t.last_settlement, "
              "t.devices")
HELD_HASHES = ("SELECT r.seq, r.hash FROM floor_records r JOIN floor_tables t USING (table_id) "
               "WHERE r.table_id = %s AND t.token_sha256 = %s AND r.seq = ANY(%s) AND r.seq <= t.head_seq")
# The records the floor holds of the rounds the batch's records are steps of: their figures are folded again.
HELD_ROUNDS = ("SELECT r.line, r.gaming_day FROM floor_records r JOIN floor_tables t USING (table_id) "
               "WHERE r.table_id = %s AND t.token_sha256 = %s AND r.round = ANY(%s) AND r.seq <= t.head_seq "
               "ORDER BY r.seq")


def ingest(conn: psycopg.Connection, table: str, batch: list[Incoming], says: dict | None = None, *,
           token_sha256: str, recording: bool | None = None) -> IngestResult:
    """Store what verifies, in order, up to the first record that does not, for the table whose token's
    digest is ``token_sha256`` (else :class:`WrongToken`, nothing done); note whether the table's log is
    ``recording`` (None: the shipper does not know)."""
    records = [parse(incoming.line) for incoming in batch]
    with sent_together(conn):
        locked = conn.execute(LOCK_TABLE, (recording, _says(says)[0], table, token_sha256))
        held = conn.execute(HELD_HASHES, (table, token_sha256, _asked_about(records, says)))
        kept = conn.execute(HELD_ROUNDS, (table, token_sha256, _rounds_of(records)))
        row = locked.fetchone()
        stored = dict(held.fetchall())
        # (a line from before the table signed its gaming day is booked to the day the floor gave it)
        earlier = [{"gaming_day": day.isoformat(), **json.loads(line)} for line, day in kept.fetchall()]
        if row is None:
            raise WrongToken(table)
        head, key = _Head(row[0], row[1]), bytes(row[2])
        state = Observed(held=row[3], phase=row[4], current_round=row[5], last_settlement=row[6], devices=row[7])
        if recording is False:
            raise_alert(conn, table, "recording-stopped", f"table {table}'s log has stopped recording: "
                                                          "no round can be settled there")
        elif recording:
            close_alert(conn, table, "recording-stopped")
        result = IngestResult(head.seq, head.hash, table_head=check_table_head(conn, table, head, says, stored))
        rows, taken, images = [], [], []
        for incoming, record in zip(batch, records):
            if record is None:
                result.refused = _refuse(conn, table, incoming.line, Refusal(
                    head.seq + 1, "not-a-record", f"table {table}: the record after sequence {head.seq} "
                    "is not an audit record in canonical form"))
                break
            seq, day = record["seq"], signed_day(record)
            if day is None:  # every log that verifies signs its records' day: a line without one is no record
                result.refused = _refuse(conn, table, incoming.line, Refusal(
                    seq, "not-a-record", f"table {table}: record {seq} carries no signed gaming day (YYYY-MM-DD): "
                                         "the floor books a record only to the day it was signed with"))
                break
            if seq <= head.seq:
                if stored.get(seq, line_hash(incoming.line)) != line_hash(incoming.line):
                    result.refused = _refuse(conn, table, incoming.line, Refusal(
                        seq, "rolled-back", f"table {table}'s log was rolled back or replaced at sequence {seq}"))
                    break
                continue  # sent again after a lost acknowledgement: already stored
            gap = _gap(head, record, stored)
            if seq > head.seq + 1 and gap is None:  # shippers send from the head they were told: a hole in the log
                result.refused = _refuse(conn, table, incoming.line, Refusal(
                    seq, "chain-broken", f"table {table}: record {seq} comes after record {head.seq}: "
                                         f"record {head.seq + 1} is missing from the log"))
                break
            refusal = _verify(conn, table, key, record, head, gap is not None)
            if refusal:
                result.refused = _refuse(conn, table, incoming.line, refusal)
                break
            if incoming.sent_day is not None and incoming.sent_day != day:
                raise_alert(conn, table, "day-differs", f"table {table}: record {seq} was sent as of gaming day "
                            f"{incoming.sent_day} but is signed as of {day}: booked to {day}")
            rows.append((table, seq, record["ts"], day, record["event"], record["who"],
                         record["data"].get("round"), line_hash(incoming.line), incoming.line.decode("utf-8")))
            taken.append(record)
            images += [d for d in record["data"].get("images", []) if isinstance(d, str)]
            if gap:
                raise_alert(conn, table, "log-gap", f"table {table}'s log lost records {gap[0]} to {gap[1]} (found "
                            f"at its start-up); the floor holds {max(0, min(head.seq, gap[1]) - gap[0] + 1)} of them")
            head = _Head(seq, line_hash(incoming.line))
            stored[seq] = head.hash  # the same record twice in one batch is one copy; another one is a rollback
            observe(state, record, table, conn)
        if rows:
            _store(conn, table, rows, images, head, state, _figures(conn, table, earlier, taken))
        if result.refused:  # refused from now (or since before) until a record of it is taken
            conn.execute("UPDATE floor_tables SET refused_since = coalesce(refused_since, now()) WHERE table_id = %s",
                         (table,))
        wanted = conn.execute("SELECT sha256 FROM floor_images_wanted WHERE table_id = %s ORDER BY sha256 LIMIT 20",
                              (table,))
    result.head_seq, result.head_hash, result.accepted = head.seq, head.hash, len(rows)
    result.images_wanted = [r[0] for r in wanted.fetchall()]
    return result


def _rounds_of(records: list[dict | None]) -> list[str]:
    """The rounds the records are steps of."""
    return sorted({r for r in map(round_of, filter(None, records)) if isinstance(r, str)})


def _round_in(record: dict, rounds: set[str]) -> bool:
    round_id = round_of(record)
    return isinstance(round_id, str) and round_id in rounds  # (a signed record may name a list as its round)


def _figures(conn, table: str, earlier: list[dict], taken: list[dict]) -> list[tuple]:
    """The rows of figures of the rounds the records taken are steps of, each folded from all its records; a
    round that was never opened, settled or voided (a flag of a round whose opening was pruned) has none. What
    of a settlement could not be counted is alerted on."""
    touched = set(_rounds_of(taken))
    rows = []
    for round_id, state in fold_rounds(r for r in [*earlier, *taken] if _round_in(r, touched)).items():
        if state.opened is None and state.settled is None and state.void is None:
            continue
        figures = round_figures(state)
        if figures.problems:
            raise_alert(conn, table, "figures", f"table {table}: {'; '.join(figures.problems)}: the floor's "
                                                "figures leave it out")
        rows.append((table, round_id, *figures.row()))
    return rows


def _store(conn, table: str, rows: list[tuple], images: list[str], head: _Head, state: Observed,
           figures: list[tuple]) -> None:
    """The verified records, the images they cite that the floor lacks, their rounds' figures, the new head."""
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO floor_records (table_id, seq, ts, gaming_day, event, who, round, hash, line) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", rows)
        cur.executemany(KEEP_ROUND, figures)
    if images:
        conn.execute("INSERT INTO floor_images_wanted (table_id, sha256) SELECT %s, d FROM unnest(%s::text[]) d "
                     "WHERE NOT EXISTS (SELECT 1 FROM floor_images i WHERE i.sha256 = d) ON CONFLICT DO NOTHING",
                     (table, images))
    conn.execute("UPDATE floor_tables SET head_seq = %s, head_hash = %s, records = records + %s, held = %s, "
                 "phase = %s, current_round = %s, last_settlement = %s, devices = %s, refused_since = NULL "
                 "WHERE table_id = %s",
                 (head.seq, head.hash, len(rows), state.held, state.phase, state.current_round,
                  Jsonb(state.last_settlement), Jsonb(state.devices), table))


def _gap(head: _Head, record: dict, stored: dict[int, str]) -> tuple[int, int] | None:
    """The records an ``AuditGap`` record says its log lost (found at the table's start-up), if it follows the
    record before them: the floor may hold some or all of them already, which it keeps."""
    data = record["data"]
    first, last = data.get("from_seq"), data.get("to_seq")
    if record["event"] != AUDIT_GAP or not isinstance(first, int) or not isinstance(last, int):
        return None
    if record["seq"] != last + 1 or not 1 <= first <= head.seq + 1 <= last + 1:
        return None
    if first - 1 == head.seq:
        before = head.hash
    elif first == 1:
        before = GENESIS
    else:
        before = stored.get(first - 1)
    return (first, last) if record["prev"] == before else None


def _verify(conn, table: str, key: bytes, record: dict, head: _Head, after_gap: bool) -> Refusal | None:
    seq = record["seq"]
    if not signed_by(key, record):
        other = _other_key_owner(conn, table, record)
        if other:
            return Refusal(seq, "wrong-key", f"table {table}: record {seq} is signed with table {other}'s key")
        return Refusal(seq, "forged", f"table {table}: record {seq}'s signature does not verify "
                                      "(edited, or signed with a key the floor does not hold)")
    if record["prev"] != head.hash and not after_gap:
        return Refusal(seq, "chain-broken", f"table {table}: record {seq} does not follow record {head.seq} "
                                            "(the chain is broken: a record missing, moved or changed)")
    if record["event"] == SHIFT_SEALED:
        seal = record["data"].get("seal")
        if not (isinstance(seal, dict) and seal.get("seq") == head.seq and seal.get("hash") == head.hash
                and isinstance(seal.get("hmac"), str) and signed_by(key, seal)):
            return Refusal(seq, "seal-mismatch", f"table {table}: the shift seal in record {seq} does not seal "
                                                 f"record {head.seq} as the floor holds it")
    return None
