"""Shipping a table's log to the floor: stored once, in order, verified; forged, wrong-key, out-of-chain
and rolled-back records refused, kept aside and alerted on. Real PostgreSQL, real floor service."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
import json
import os
import tempfile
import threading
import urllib.error
import urllib.request

import psycopg
import pytest
from psycopg import pq

from appliance.audit.log import AuditLog, canonical, line_hash, sign
from appliance.config import load_house
from appliance.floor.database import Database
from appliance.floor.enroll import Credentials, table_key
from appliance.floor.floor_serving import serve_floor
from appliance.floor.shipper import FloorRefused, Shipper
from appliance.table.simulation import play_rounds
from floor_helpers import (enrolled, floor_lines, floor_service, kept_by_an_old_floor, log_lines, migrated, seen,
                           seen_json, ship, table_log, users)

get = seen_json  # the pit's JSON, as a logged-in user of the role that sees it


def refused_rows(dsn: str, table: str) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT seq, kind, line FROM floor_refused WHERE table_id = %s ORDER BY id",
                            (table,)).fetchall()


@pytest.fixture
def floor(floor_dsn):
    users(migrated(floor_dsn))
    with floor_service(floor_dsn) as url:
        yield floor_dsn, url


def test_a_log_is_stored_once_in_order_and_the_pit_sees_it(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=4)
    shipped = ship(audit_dir, url, credentials, batch=7)  # several batches
    lines = log_lines(audit_dir)
    assert shipped.to_json() == {"head_seq": len(lines), "sent": len(lines), "pending": 0}
    assert floor_lines(dsn, "T1") == lines
    again = ship(audit_dir, url, credentials)  # a restarted shipper sends nothing twice
    assert again.sent == 0 and floor_lines(dsn, "T1") == lines
    [table] = get(f"{url}/api/floor/tables")
    assert {k: table[k] for k in ("table", "records", "head_seq", "status")} == {
        "table": "T1", "records": len(lines), "head_seq": len(lines), "status": "online"}
    assert table["phase"] == "settled" and table["last_settlement"]["round"]
    assert get(f"{url}/api/floor/alerts") == []


def test_two_shippers_of_one_table_at_once_store_each_record_once(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=6)
    shippers = [Shipper(audit_dir, url, credentials, batch=5) for _ in range(3)]
    threads = [threading.Thread(target=s.ship_pending) for s in shippers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for shipper in shippers:
        shipper.client.close()
    assert floor_lines(dsn, "T1") == log_lines(audit_dir)


def test_an_unknown_table_or_a_wrong_token_is_refused(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    for stranger in (Credentials("T9", credentials.token, credentials.audit_key),
                     Credentials("T1", "not-the-token", credentials.audit_key)):
        with pytest.raises(FloorRefused, match="not enrolled here, or its token is wrong"):
            ship(audit_dir, url, stranger)
    assert floor_lines(dsn, "T1") == []


def test_a_table_whose_records_were_all_refused_is_not_shown_online(floor, tmp_path):
    """Only a table whose records the floor takes is online: one whose every record was refused (signed
    with a key the floor does not hold) shows as refused, one whose token was wrong as never seen."""
    dsn, url = floor
    t1, t2 = enrolled(dsn, "T1", tmp_path), enrolled(dsn, "T2", tmp_path)
    forged = tmp_path / "forged-audit"
    play_rounds(load_house("general"), AuditLog(forged, b"0" * 64), 1)  # not T1's key
    with pytest.raises(FloorRefused, match="signature does not verify"):
        ship(forged, url, t1)
    t2_log = table_log(tmp_path, t2, rounds=1)
    with pytest.raises(FloorRefused, match="token is wrong"):
        ship(t2_log, url, Credentials("T2", "not-the-token", t2.audit_key))

    def statuses():
        return {t["table"]: t["status"] for t in get(f"{url}/api/floor/tables")}

    assert statuses() == {"T1": "refused", "T2": "offline"}
    ship(table_log(tmp_path, t1, rounds=1), url, t1)  # then the tables' own logs: taken, online
    ship(t2_log, url, t2)
    assert statuses() == {"T1": "online", "T2": "online"}


def _rewrite(audit_dir, number: int, change) -> None:
    """Change record ``number`` (1-based, across the log) in place, keeping its old signature."""
    [path] = sorted(audit_dir.glob("*.jsonl"))
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = canonical(record)
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_a_forged_record_is_refused_kept_aside_and_alerted(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=3)
    good = log_lines(audit_dir)
    forged_at = next(i for i, line in enumerate(good, 1) if json.loads(line)["event"] == "RoundOpened" and i > 5)
    _rewrite(audit_dir, forged_at, lambda r: r["data"]["bets"][0].update(wager="5000.00"))
    with pytest.raises(FloorRefused, match=f"refused record {forged_at}"):
        ship(audit_dir, url, credentials)
    assert floor_lines(dsn, "T1") == good[: forged_at - 1]  # nothing after it stored either
    [(seq, kind, line)] = refused_rows(dsn, "T1")
    assert (seq, kind) == (forged_at, "forged") and "5000.00" in line
    [alert] = get(f"{url}/api/floor/alerts")
    assert alert["table"] == "T1" and alert["kind"] == "forged" and f"record {forged_at}" in alert["message"]
    with pytest.raises(FloorRefused):  # a retry is refused again, but kept and alerted once
        ship(audit_dir, url, credentials)
    assert len(refused_rows(dsn, "T1")) == 1 and len(get(f"{url}/api/floor/alerts")) == 1


def test_a_record_under_another_tables_key_is_refused_naming_that_table(floor, tmp_path):
    dsn, url = floor
    t1, t2 = enrolled(dsn, "T1", tmp_path), enrolled(dsn, "T2", tmp_path)
    t2_log = table_log(tmp_path, t2, rounds=1)
    with pytest.raises(FloorRefused, match="signed with table T2's key"):
        ship(t2_log, url, t1)  # T1's credentials, T2's log
    assert floor_lines(dsn, "T1") == [] and [r[1] for r in refused_rows(dsn, "T1")] == ["wrong-key"]
    assert [(a["table"], a["kind"]) for a in get(f"{url}/api/floor/alerts")] == [("T1", "wrong-key")]


def test_a_record_missing_from_the_middle_breaks_the_chain(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    [path] = sorted(audit_dir.glob("*.jsonl"))
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5] + lines[6:]))  # record 6 deleted: record 7 follows record 5
    with pytest.raises(FloorRefused, match="record 6 is missing"):
        ship(audit_dir, url, credentials)
    assert len(floor_lines(dsn, "T1")) == 5 and get(f"{url}/api/floor/tables")[0]["head_seq"] == 5
    assert [(seq, kind) for seq, kind, _ in refused_rows(dsn, "T1")] == [(7, "chain-broken")]
    assert [a["kind"] for a in get(f"{url}/api/floor/alerts")] == ["chain-broken"]


def test_a_signed_record_that_does_not_follow_the_chain_is_refused(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    # Someone holding the key rewrites record 4 and signs it again: it verifies alone, not in the chain.
    _rewrite(audit_dir, 4, lambda r: (r.update(prev="f" * 64), r.update(hmac=sign(credentials.audit_key, r))))
    with pytest.raises(FloorRefused, match="does not follow record 3"):
        ship(audit_dir, url, credentials)
    assert len(floor_lines(dsn, "T1")) == 3 and [r[1] for r in refused_rows(dsn, "T1")] == ["chain-broken"]


def test_a_rolled_back_log_is_refused_kept_aside_and_alerted(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T12", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=3)
    ship(audit_dir, url, credentials)
    shipped = floor_lines(dsn, "T12")
    # The SD card is put back as it was after record 12 (an older copy: it verifies on its own) and play goes on.
    [path] = sorted(audit_dir.glob("*.jsonl"))
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:12]))
    (audit_dir / "HEAD.json").unlink()
    key = (tmp_path / "T12.key").read_bytes().strip()
    play_rounds(load_house("general"), AuditLog(audit_dir, key), 1, seed=99)
    with pytest.raises(FloorRefused, match="rolled back or replaced at sequence 13"):
        ship(audit_dir, url, credentials)
    assert floor_lines(dsn, "T12") == shipped  # the anchored records stay as they were
    kinds = {a["kind"]: a["message"] for a in get(f"{url}/api/floor/alerts")}
    assert "table T12's log was rolled back or replaced at sequence 13" in kinds["rolled-back"]
    assert [(seq, kind) for seq, kind, _ in refused_rows(dsn, "T12")] == [(13, "rolled-back")]


def test_a_shorter_log_alone_is_alerted_as_rolled_back(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T3", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    ship(audit_dir, url, credentials)
    [path] = sorted(audit_dir.glob("*.jsonl"))
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:8]))
    with pytest.raises(FloorRefused, match="rolled back"):
        ship(audit_dir, url, credentials)
    [alert] = get(f"{url}/api/floor/alerts")
    assert alert["kind"] == "rolled-back" and "at sequence 9: it ends at 8" in alert["message"]


def test_bad_requests_get_a_400_naming_what_was_wrong(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    for body, expected in ((b"[]", "JSON object with a list of records"),
                           (json.dumps({"records": [{"line": 5}]}).encode(), "records[0]"),
                           (json.dumps({"records": [{"line": "{}", "gaming_day": "May"}]}).encode(),
                            "records[0].gaming_day")):
        request = urllib.request.Request(f"{url}/api/floor/ingest", data=body, method="POST", headers={
            "X-Floor-Table": "T1", "Authorization": f"Bearer {credentials.token}", "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=10)
        assert err.value.code == 400 and expected in json.loads(err.value.read())["error"]


def test_zone_images_follow_the_records_by_hash(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = tmp_path / "audit"
    audit = AuditLog(audit_dir, table_key(tmp_path / "t1.key", credentials, audit_dir))
    good, bad = b"\x89PNG banker zone", b"\x89PNG seat 1 zone"
    digests = [audit.store_image(good), audit.store_image(bad)]
    audit.append("BankerCards", {"round": "r1", "images": digests})
    bad_path = audit_dir / "images" / digests[1][:2] / f"{digests[1]}.png"
    bad_path.write_bytes(b"changed on the SD card")  # the table cannot prove this one: it is not sent
    ship(audit_dir, url, credentials)
    with psycopg.connect(dsn) as conn:
        held = conn.execute("SELECT sha256, png FROM floor_images").fetchall()
        wanted = [r[0] for r in conn.execute("SELECT sha256 FROM floor_images_wanted")]
    assert [(d, bytes(png)) for d, png in held] == [(digests[0], good)] and wanted == [digests[1]]
    bad_path.write_bytes(bad)  # put right: the next pass sends it
    ship(audit_dir, url, credentials)
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM floor_images").fetchone()[0] == 2
        assert conn.execute("SELECT count(*) FROM floor_images_wanted").fetchone()[0] == 0


def test_a_signed_record_the_database_could_not_hold_is_refused_not_a_500(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = tmp_path / "audit"
    audit = AuditLog(audit_dir, table_key(tmp_path / "t1.key", credentials, audit_dir),
                     clock=lambda: dt.datetime(2026, 12, 1, 12, 0))  # a time without a zone
    audit.append("DeviceStatus", {"device": "rng", "status": "online"})
    with pytest.raises(FloorRefused, match="not an audit record in canonical form"):
        ship(audit_dir, url, credentials)
    assert [r[1] for r in refused_rows(dsn, "T1")] == ["not-a-record"]


def test_shift_seals_are_stored_with_the_records_and_checked_against_the_chain(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    key = (tmp_path / "T1.key").read_bytes().strip()
    log = AuditLog(audit_dir, key)
    log.seal_head("swing shift closed", "supervisor 1042")
    ship(audit_dir, url, credentials)
    stored = [json.loads(line) for line in floor_lines(dsn, "T1")]
    assert stored[-1]["event"] == "ShiftSealed" and stored[-1]["data"]["seal"]["seq"] == stored[-2]["seq"]
    # A seal signed with the key but naming another head (only the key's holder can make one) is refused.
    log.append("DeviceStatus", {"device": "rng", "status": "online"})
    bogus = {"seal": 1, "seq": 2, "hash": "a" * 64, "ts": "2026-12-01T10:00:00+00:00", "gaming_day": "2026-12-01",
             "reason": "forged"}
    bogus["hmac"] = sign(key, bogus)
    log.append("ShiftSealed", {"seal": bogus}, "supervisor 1042")
    with pytest.raises(FloorRefused, match="does not seal record"):
        ship(audit_dir, url, credentials)
    assert [r[1] for r in refused_rows(dsn, "T1")] == ["seal-mismatch"]


def _lose_the_end(audit_dir, records: int) -> None:
    """A power cut that lost the last records of the log (HEAD.json still names the last one)."""
    [path] = sorted(audit_dir.glob("*.jsonl"))
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-records]))


@pytest.mark.parametrize("shipped_first", [True, False])
def test_records_lost_from_a_tables_log_are_a_gap_the_floor_accepts_and_alerts(floor, tmp_path, shipped_first):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    before = log_lines(audit_dir)
    if shipped_first:
        ship(audit_dir, url, credentials)
    _lose_the_end(audit_dir, 3)
    log = AuditLog(audit_dir, (tmp_path / "T1.key").read_bytes().strip())  # start-up: finds the gap, records it
    log.append("DeviceStatus", {"device": "rng", "status": "online"})
    ship(audit_dir, url, credentials)
    held = floor_lines(dsn, "T1")
    assert [json.loads(line)["event"] for line in held[-2:]] == ["AuditGap", "DeviceStatus"]
    lost = f"lost records {len(before) - 2} to {len(before)}"
    kept = before if shipped_first else before[:-3]  # what the floor had, it keeps
    assert held[: len(kept)] == kept and len(held) == len(kept) + 2
    [alert] = [a for a in get(f"{url}/api/floor/alerts") if a["kind"] == "log-gap"]
    assert lost in alert["message"] and f"the floor holds {3 if shipped_first else 0} of them" in alert["message"]


def post_batch(url: str, credentials: Credentials, records: list[dict]) -> dict:
    """A batch as anyone holding the table's token may send it, the fields beside each line chosen freely."""
    request = urllib.request.Request(f"{url}/api/floor/ingest", data=json.dumps({"records": records}).encode(),
                                     method="POST", headers={"X-Floor-Table": credentials.table, "Content-Type":
                                                             "application/json",
                                                             "Authorization": f"Bearer {credentials.token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_day_a_record_is_booked_to_is_its_signed_one_not_the_day_sent_beside_it(floor, tmp_path):
    """The old floor booked each record to the unsigned gaming_day sent beside it: a token moved takings."""
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=3)
    lines = log_lines(audit_dir)
    signed_day = json.loads(lines[-1])["gaming_day"]
    answer = post_batch(url, credentials, [{"line": line, "gaming_day": "2020-01-01"} for line in lines])
    assert answer["accepted"] == len(lines) and answer["refused"] is None
    with psycopg.connect(dsn) as conn:
        days = {str(d) for (d,) in conn.execute("SELECT DISTINCT gaming_day FROM floor_records")}
        rounds = {str(d) for (d,) in conn.execute("SELECT DISTINCT gaming_day FROM floor_rounds")}
    assert days == rounds == {json.loads(line)["gaming_day"] for line in lines} == {signed_day}
    assert get(f"{url}/api/floor/alerts")[0]["kind"] == "day-differs"  # someone sent another day: the pit is told
    report = seen(f"{url}/api/floor/report/{signed_day}.csv").decode()
    moved = seen(f"{url}/api/floor/report/2020-01-01.csv").decode()
    assert report.splitlines()[1].startswith("T1,3,") and len(moved.splitlines()) == 2  # only the floor's row


def test_a_record_without_a_signed_gaming_day_is_refused(floor, tmp_path):
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    key = table_key(tmp_path / "T1.key", credentials, tmp_path / "audit")
    record = {"seq": 1, "ts": "2026-12-01T10:00:00.000000+00:00", "event": "DeviceStatus", "who": "appliance",
              "data": {"device": "rng"}, "prev": "0" * 64}
    record["hmac"] = sign(key, record)
    answer = post_batch(url, credentials, [{"line": canonical(record).decode(), "gaming_day": "2026-12-01"}])
    assert answer["accepted"] == 0 and answer["refused"]["kind"] == "not-a-record"
    assert "gaming day" in answer["refused"]["problem"]


def test_a_settlement_the_floor_cannot_count_is_stored_and_alerted_not_a_500(floor, tmp_path):
    """A signed log is taken as it stands: a settlement recorded with amounts that are no amounts, a seat that
    is no seat, a record naming a list as its round. Each record is stored; what cannot be counted counts
    nothing and is alerted on with where it is; the floor never answers 500 (the shipper would send the
    same batch for ever, and the table's log would stop reaching the floor)."""
    dsn, url = floor
    credentials = enrolled(dsn, "T1", tmp_path)
    key = table_key(tmp_path / "T1.key", credentials, tmp_path / "audit")
    prev, lines = "0" * 64, []
    for seq, (event, data) in enumerate([
            ("RoundOpened", {"round": "r1", "bets": None, "banker": "dealer"}),
            ("RoundSettled", {"round": "r1", "settlement": {
                "seats": [1, {"seat": 2, "wager": 0.1, "result": "foul"}, {"seat": 3, "wager": "25.00"}],
                "totals": {"commission": "sNaN", "banker_net": "-5.00", "house_net": True}}}),
            ("TableFlagged", {"round": [], "flags": ["odd"]}),
            ("RoundOpened", {"round": "r2", "bets": [{"seat": 1, "wager": "10.00"}], "banker": "dealer"}),
            ("RoundSettled", {"round": "r2", "settlement": ["not", "a", "settlement"]})], 1):
        record = {"seq": seq, "ts": f"2026-12-01T10:00:0{seq}.000000+00:00", "event": event, "who": "dealer",
                  "gaming_day": "2026-12-01", "data": data, "prev": prev}
        record["hmac"] = sign(key, record)
        lines.append(canonical(record).decode())
        prev = line_hash(canonical(record))
    answer = post_batch(url, credentials, [{"line": line} for line in lines])
    assert answer["accepted"] == len(lines) and answer["refused"] is None
    with psycopg.connect(dsn) as conn:
        kept = conn.execute("SELECT round, settled, wagers, commission, banker_net, house_net, fouls, seats "
                            "FROM floor_rounds ORDER BY round").fetchall()
    assert kept == [("r1", True, Decimal("25.00"), Decimal("0.00"), Decimal("-5.00"), Decimal("0.00"), 1, 2),
                    ("r2", True, Decimal("0.00"), Decimal("0.00"), Decimal("0.00"), Decimal("0.00"), 0, 0)]
    [alert] = [a for a in get(f"{url}/api/floor/alerts") if a["kind"] == "figures"]
    for named in ("round r1: a seat: 1 is not a dict", "round r1: seat 2 wager: 0.1 is a float",
                  "round r1: commission: 'sNaN' is not an amount", "round r1: house_net: True is not an amount"):
        assert named in alert["message"]


def test_days_booked_before_by_the_day_sent_are_booked_again_by_the_signed_day(postgres, tmp_path):
    from appliance.floor.migrate import migrate

    dsn = postgres.create_database("floor_booked_by_day_sent")
    credentials = enrolled(migrated(postgres.create_database("floor_enrolling")), "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=2)
    kept_by_an_old_floor(dsn, 4, "T1", audit_dir, day="2020-01-01")  # as the old floor booked a batch sent so
    signed_day = json.loads(log_lines(audit_dir)[-1])["gaming_day"]
    assert migrate(dsn).applied[0] == 5
    with psycopg.connect(dsn) as conn:
        days = {str(d) for (d,) in conn.execute("SELECT gaming_day FROM floor_records UNION "
                                                "SELECT gaming_day FROM floor_rounds")}
        rounds = conn.execute("SELECT count(*) FROM floor_rounds").fetchone()[0]
    assert days == {signed_day} and rounds == 2


class CountedDatabase(Database):
    """The floor's database, each thread's connection traced by libpq: the round trips it made are the
    times it sent and then read (a traced message from the client followed by one from the server)."""

    def __init__(self, dsn: str):
        super().__init__(dsn)
        self.traces: dict[int, tuple] = {}

    def conn(self) -> psycopg.Connection:
        conn = super().conn()
        if id(conn) not in self.traces:
            trace = tempfile.TemporaryFile("w+")  # noqa: SIM115  (kept open in self.traces until the test reads it)
            conn.pgconn.trace(os.dup(trace.fileno()))  # libpq closes its copy when untraced
            conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
            self.traces[id(conn)] = (conn, trace)
        return conn

    def round_trips(self) -> int:
        trips = 0
        for conn, trace in self.traces.values():
            if not conn.closed:
                conn.pgconn.untrace()  # flushed
            with trace:
                trace.seek(0)
                directions = [line.split("\t", 1)[0] for line in trace.read().splitlines()]
            trips += sum(1 for sent, read in zip(directions, directions[1:]) if (sent, read) == ("F", "B"))
        self.traces.clear()
        return trips


def test_a_batch_costs_the_database_two_round_trips_however_many_records(floor_dsn, tmp_path):
    """The token checked and the table's head read and locked, then the batch stored and committed: a round
    trip each, where there were 12 (one per statement) and one more per record sent again, whatever the
    batch holds: new records, records sent again, a refused one. Every check is still made: the records
    are stored once, in order, a changed one refused."""
    dsn = users(migrated(floor_dsn))
    credentials = enrolled(dsn, "T1", tmp_path)
    lines = log_lines(table_log(tmp_path, credentials, rounds=3))
    db = CountedDatabase(dsn)
    service = serve_floor(db, threads=2)
    try:
        post_batch(service.url, credentials, [])  # the door learns the token, the threads connect
        db.round_trips()
        batches = [lines[:5], lines[5:20], lines[20:], lines[10:25]]  # the last sent again: all held
        assert len(lines) > 25
        for batch in batches:
            answer = post_batch(service.url, credentials, [{"line": line} for line in batch])
            assert answer["refused"] is None
        trips = db.round_trips()
        assert floor_lines(dsn, "T1") == lines
        forged = json.loads(lines[5])
        forged["who"] = "someone else"
        assert post_batch(service.url, credentials, [{"line": canonical(forged).decode()}])["refused"]["kind"] == \
            "rolled-back"
        refused_trips = db.round_trips()
    finally:
        service.stop()
    assert trips <= 2 * len(batches) and refused_trips <= 2, (trips, len(batches), refused_trips)


def test_a_batch_the_database_cannot_hold_stores_none_of_it_and_the_next_one_goes_in(floor_dsn, tmp_path):
    """Sent together, a batch's statements still commit all or nothing: one that fails rolls back those sent
    before it, and the thread's connection takes the next batch (one thread: the same connection)."""
    dsn = users(migrated(floor_dsn))
    credentials = enrolled(dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=1)
    good = log_lines(audit_dir)
    AuditLog(audit_dir, table_key(tmp_path / "T1.key", credentials, audit_dir)).append(
        "DeviceStatus", {"device": "rng", "status": "online", "round": "a\x00b"})  # text PostgreSQL cannot hold
    service = serve_floor(Database(dsn), threads=1)
    try:
        with pytest.raises(urllib.error.HTTPError, match="500"):
            post_batch(service.url, credentials, [{"line": line} for line in log_lines(audit_dir)])
        assert floor_lines(dsn, "T1") == []
        answer = post_batch(service.url, credentials, [{"line": line} for line in good])
        assert answer["accepted"] == len(good) and floor_lines(dsn, "T1") == good
    finally:
        service.stop()


def test_the_app_itself_refuses_a_wrong_token_at_ingest_and_sets_nothing(floor_dsn, tmp_path):
    """Behind the door (which asks once and keeps a right token a while), the app checks the token again: in
    the ingest's first statement now. A wrong one is a 401 that reads, locks and sets nothing; its body,
    taken or not, is never answered on (a stranger is not told what a batch lacks)."""
    from appliance.floor.server import create_floor_app

    dsn = users(migrated(floor_dsn))
    credentials = enrolled(dsn, "T1", tmp_path)
    lines = log_lines(table_log(tmp_path, credentials, rounds=1))
    db = Database(dsn)
    client = create_floor_app(db).test_client()
    try:
        for table, token in (("T1", "not-the-token"), ("T9", credentials.token)):
            headers = {"X-Floor-Table": table, "Authorization": f"Bearer {token}", "Host": "127.0.0.1"}
            for body in ({"records": [{"line": line} for line in lines], "recording": False}, {"records": "no"}):
                answer = client.post("/api/floor/ingest", json=body, headers=headers)
                assert answer.status_code == 401 and "not enrolled here, or its token is wrong" in answer.json["error"]
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SELECT last_seen, recording FROM floor_tables").fetchall() == [(None, None)]
            assert conn.execute("SELECT count(*) FROM floor_alerts").fetchone()[0] == 0
        assert floor_lines(dsn, "T1") == []
        headers = {"X-Floor-Table": "T1", "Authorization": f"Bearer {credentials.token}", "Host": "127.0.0.1"}
        answer = client.post("/api/floor/ingest", json={"records": [{"line": line} for line in lines]}, headers=headers)
        assert answer.status_code == 200 and answer.json["accepted"] == len(lines)
    finally:
        db.close()
