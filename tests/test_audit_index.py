from decimal import Decimal
import pytest

from appliance.game.settlement import SeatWagers
from appliance.audit.history_index import Index, IndexEdited, index_key, open_checked
from appliance.audit.log import AuditLog, records
from appliance.config import load_house
from appliance.table.round import TableRound, void_interrupted
from appliance.table.simulation import play_rounds

KEY = b"i" * 64


def test_index_rebuilds_from_the_log_and_serves_recall_and_search(tmp_path):
    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 15, seed=3)
    index = Index(tmp_path / "index.sqlite")
    assert index.rebuild(tmp_path / "log") == len(records(tmp_path / "log"))
    recent = index.recent()
    assert len(recent) == 10 and recent[0]["round"] == "3-15" and recent[-1]["round"] == "3-6"
    assert all(r["status"] == "settled" for r in recent)
    wins = index.search(result="win")
    assert wins and all(w["result"] == "win" for w in wins)
    assert [e["event"] for e in index.events_of("3-2")][:2] == ["RoundOpened", "StartSeat"]
    # The index is only a cache: dropped and rebuilt, it says the same.
    before = index.recent(15)
    index.close()
    (tmp_path / "index.sqlite").unlink()
    again = Index(tmp_path / "index.sqlite")
    again.rebuild(tmp_path / "log")
    assert again.recent(15) == before


def test_index_follows_the_live_log(tmp_path):
    index = Index(tmp_path / "index.sqlite")
    audit = AuditLog(tmp_path / "log", KEY)
    rules = load_house("general")
    table = TableRound("live-1", rules, {"house": {}}, audit, [index.add])
    table.open("dealer", [SeatWagers(1, Decimal("20"))])
    assert index.recent(1)[0]["status"] == "open"
    void_interrupted(audit)
    index.rebuild(tmp_path / "log")
    assert index.recent(1)[0]["status"] == "voided" and "interrupted" in index.recent(1)[0]["reason"]


def test_search_by_round_time_and_status_newest_first(tmp_path):
    import datetime as dt

    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 6, seed=4)
    TableRound("4-99", load_house("general"), {"house": {}}, audit).open("dealer", [SeatWagers(1, Decimal("20"))])
    void_interrupted(audit)
    index = Index(tmp_path / "index.sqlite")
    index.rebuild(tmp_path / "log")
    rows = index.search()
    assert rows[0] == {"round": "4-99", "status": "voided", "opened_at": rows[0]["opened_at"], "settled_at": None,
                       "seat": None, "wager": None, "result": "voided", "net": None,
                       "gaming_day": records(tmp_path / "log")[-1]["gaming_day"]}
    assert [r["round"] for r in rows[1:]] == sorted((r["round"] for r in rows[1:]), reverse=True)
    assert index.search(result="voided") == rows[:1] and index.search(seat=1, result="voided") == []
    third = index.search(round_id="4-3")
    settlement = next(r["data"]["settlement"] for r in records(tmp_path / "log")
                      if r["event"] == "RoundSettled" and r["data"]["round"] == "4-3")
    assert [(r["seat"], r["result"], r["net"]) for r in third] == sorted(
        (s["seat"], s["result"], s["net"]) for s in settlement["seats"])
    # A time range takes each round by its settlement time, both ends included, given in any offset.
    at = dt.datetime.fromisoformat(third[0]["settled_at"])
    east = dt.timezone(dt.timedelta(hours=3))
    assert {r["round"] for r in index.search(start=at.astimezone(east), end=at.astimezone(east))} == {"4-3"}
    assert {r["round"] for r in index.search(end=at)} == {"4-1", "4-2", "4-3"}
    assert len(index.search(limit=2)) == 2


def days_of_log(folder, days=3, per_day=40):
    """A log over several gaming days (a clock that moves a day at a time), each with one round opened."""
    import datetime as dt

    now = [dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)]
    audit = AuditLog(folder, KEY, clock=lambda: now[0])
    for day in range(days):
        TableRound(f"d{day}-1", load_house("general"), {"house": {}}, audit).open("dealer", [SeatWagers(1, Decimal("20"))])
        for n in range(per_day):
            audit.append("DeviceStatus", {"device": "rng", "status": "online", "detail": f"{day}.{n}"})
        if day < days - 1:
            audit.append("RoundVoided", {"round": f"d{day}-1", "reason": "test"})
        now[0] += dt.timedelta(days=1)
    return audit


def spoil_all_but_the_first_line(path):
    """The file's records after its first become junk: whatever reads them fails, whatever does not, passes."""
    first = path.read_bytes().split(b"\n", 1)[0]
    path.write_bytes(first + b"\n" + b"not a record\n" * 5)


def test_a_start_catches_up_with_what_is_new_and_reads_no_older_day(tmp_path):
    from appliance.audit.log import day_files
    from appliance.table.round import interrupted

    audit = days_of_log(tmp_path / "log")
    index = Index(tmp_path / "index.sqlite")
    assert index.catch_up(tmp_path / "log") == len(records(tmp_path / "log")) == audit.seq
    index.close()
    before = audit.seq
    for _ in range(7):  # on a new gaming day: the log seals the day before first
        audit.append("DeviceStatus", {"device": "camera", "status": "online", "detail": ""})
    spoil_all_but_the_first_line(day_files(tmp_path / "log")[0])  # history a restart must not read
    again = Index(tmp_path / "index.sqlite")
    assert again.last_indexed()[0] == before
    assert again.catch_up(tmp_path / "log") == audit.seq - before == 8 and again.catch_up(tmp_path / "log") == 0
    assert again.last_indexed()[0] == audit.seq
    assert again.last_number("d2") == 1 and again.last_number("d") == 0
    assert interrupted(tmp_path / "log") == ["d2-1"]  # from the log's tail


def test_an_index_of_another_log_is_rebuilt(tmp_path):
    days_of_log(tmp_path / "one", days=2)
    other = days_of_log(tmp_path / "two", days=1, per_day=5)
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "one")
    assert index.catch_up(tmp_path / "two") == other.seq
    assert [r["round"] for r in index.recent()] == ["d0-1"] and index.last_indexed()[0] == other.seq


def test_round_ids_go_on_from_the_index(tmp_path):
    from appliance.table.round import RoundIds

    audit = days_of_log(tmp_path / "log", days=2)  # its clock goes on from the log's last record
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "log")
    TableRound("d1-9", load_house("general"), {"house": {}}, audit, [index.add]).open(
        "dealer", [SeatWagers(1, Decimal("20"))])
    ids = RoundIds(index.last_number, lambda: "d1")
    assert [ids(), ids()] == ["d1-10", "d1-11"]
    assert RoundIds(index.last_number, lambda: "d7", digits=4)() == "d7-0001"


def test_a_long_catch_up_reports_each_committed_batch(tmp_path, monkeypatch):
    import appliance.audit.history_index as index_module

    audit = days_of_log(tmp_path / "log", days=2, per_day=20)
    monkeypatch.setattr(index_module, "BATCH", 10)
    index = Index(tmp_path / "index.sqlite")
    done = []
    assert index.catch_up(tmp_path / "log", on_batch=done.append) == audit.seq
    assert done == list(range(10, audit.seq + 1, 10)) and index.last_indexed()[0] == audit.seq


def test_the_shift_hour_by_hour_adds_up_to_the_shift_totals(tmp_path):
    from decimal import Decimal

    audit = AuditLog(tmp_path / "log", KEY)
    index = Index(tmp_path / "index.sqlite")
    play_rounds(load_house("general"), audit, 12, seed=5, render=False, listeners=[index.add])
    audit.append("DeviceStatus", {"device": "rng", "status": "offline", "detail": "no heartbeat for 3 s"}, "device")
    audit.append("DeviceStatus", {"device": "rng", "status": "online", "detail": ""}, "device")  # not a fault
    audit.append("DeviceRejected", {"device": "rng", "reason": "bad checksum"}, "device")
    index.catch_up(tmp_path / "log")
    hours, totals = index.shift_hours(), index.shift()
    assert sum(h["rounds"] for h in hours["hours"]) == totals["rounds_settled"] == 12
    assert sum(Decimal(h["commission"]) for h in hours["hours"]) == Decimal(totals["commission"])
    assert sum(Decimal(h["collection"]) for h in hours["hours"]) == Decimal(totals["collection"])
    assert sum(h["fouls"] for h in hours["hours"]) == totals["fouls"]
    assert sum(h["faults"] for h in hours["hours"]) == 2
    named = sum(1 for r in records(tmp_path / "log") if r["event"] == "ReadConfirmed")
    assert sum(h["named"] for h in hours["hours"]) == named
    assert len(hours["bank"]) == 12 and hours["bank"][-1]["bank"] == totals["banker_net"]
    assert all(h["hour"].endswith(":00:00+00:00") for h in hours["hours"])


def test_history_and_shift_go_by_the_gaming_day_not_the_utc_date(tmp_path):
    """In a UTC-8 room a round at 02:00 UTC on the 2nd is on the gaming day of the 1st (18:00 local)."""
    import datetime as dt

    from appliance.audit.gaming_day import GamingDay

    times = iter([dt.datetime(2026, 12, 2, 2, 0, tzinfo=dt.UTC) + dt.timedelta(seconds=n) for n in range(500)])
    audit = AuditLog(tmp_path / "log", KEY, day=GamingDay("America/Los_Angeles", dt.time(6)), clock=lambda: next(times))
    index = Index(tmp_path / "index.sqlite")
    table = TableRound("day-1", load_house("general"), {"house": {}}, audit, [index.add])
    table.open("dealer", [SeatWagers(1, Decimal("20"))])
    assert [r["round"] for r in index.search(day="2026-12-01")] == ["day-1"]
    assert index.search(day="2026-12-02") == []
    assert index.search(round_id="day-1")[0]["gaming_day"] == "2026-12-01"
    assert index.shift(day="2026-12-01")["rounds_voided"] == 0 and index.shift(day="2026-12-02")["gaming_day"] == "2026-12-02"


def test_an_index_of_an_older_layout_is_built_again(tmp_path):
    import sqlite3

    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 2, seed=4)
    old = sqlite3.connect(tmp_path / "index.sqlite")
    old.executescript("CREATE TABLE rounds (round TEXT PRIMARY KEY, house TEXT);"
                      "CREATE TABLE indexed (one INTEGER PRIMARY KEY, seq INTEGER, hmac TEXT);")
    old.commit()
    old.close()
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "log")
    assert [r["round"] for r in index.recent(2)] == ["4-2", "4-1"] and index.recent(1)[0]["gaming_day"]


def test_the_banking_history_of_the_last_settled_rounds_of_the_house(tmp_path):
    """What the bank's rotation looks back at after a restart: each settled round's banker and the seats
    that wagered (the Player/Dealer's own seat among them), oldest first; not an open or voided round, not
    a round of another house, not a round named as not settled for good."""
    from decimal import Decimal

    from appliance.audit.replay import rounds_in
    from appliance.game.banking import BankRound

    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("capitol"), audit, 6, seed=4)
    play_rounds(load_house("general"), audit, 2, seed=5)
    index = Index(tmp_path / "index.sqlite")
    index.rebuild(tmp_path / "log")
    folded = rounds_in(tmp_path / "log")
    capitol = [BankRound.played(state.banker.seat, (b["seat"] for b in state.bets))
               for state in folded.values() if state.house == "capitol"]
    assert index.bank_rounds("capitol", 100) == capitol and len(capitol) == 6
    assert index.bank_rounds("capitol", 2) == capitol[-2:]
    assert index.bank_rounds("capitol", 2, excluding=("4-6",)) == capitol[-3:-1]
    assert all(r.banker == "dealer" for r in index.bank_rounds("general", 100))
    TableRound("open-1", load_house("capitol"), {"house": {}}, audit, [index.add]).open(
        2, [SeatWagers(1, Decimal("20"))], Decimal("100"))  # opened, never settled
    void_interrupted(audit)
    index.catch_up(tmp_path / "log")
    assert index.recent(1)[0]["status"] == "voided" and index.bank_rounds("capitol", 100) == capitol


@pytest.mark.slow
def test_an_rng_health_warning_reaches_the_shift_fault_chart(tmp_path):
    """The index counted "DeviceHealth", an event that is never written: the start-seat device's
    failed uniformity check (DeviceHealthWarning) never reached the supervisor's fault chart."""
    from pathlib import Path

    from appliance.config import load_devices, read_toml
    from appliance.devices.protocol import RngResult
    from appliance.station import Station
    from appliance.table.table import Table

    rules = load_house("general")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {})
    index = Index(tmp_path / "index.sqlite")
    table.listeners.append(index.add)
    station = Station(table, load_devices(), simulate=True, pace=3600, rounds=0, index=index)  # never started
    window = load_devices().health_window
    for seq in range(window):  # a device stuck on 7, its values fed as the serial line's reader feeds them
        station.loop.start_value("start-seat", RngResult(seq, 7 if seq % 3 else 1 + seq % 7))
    warnings = [r for r in records(tmp_path / "log") if r["event"] == "DeviceHealthWarning"]
    assert len(warnings) == 1
    hours = index.shift_hours()["hours"]  # what the supervisor's "Device faults per hour" chart plots
    assert sum(h["faults"] for h in hours) == 1
    index.close()
    index = Index(tmp_path / "index.sqlite")  # and the same from the log alone
    index.rebuild(tmp_path / "log")
    assert sum(h["faults"] for h in index.shift_hours()["hours"]) == 1


def _settled_index(tmp_path, rounds=40):
    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, rounds, seed=5)
    index = Index(tmp_path / "index.sqlite", index_key(KEY))
    index.catch_up(tmp_path / "log")
    totals = index.shift()
    index.close()
    return totals


@pytest.mark.slow
def test_an_edited_row_is_not_shown_the_index_is_rebuilt_from_the_log_and_says_so(tmp_path):
    """The old index showed whatever its file said: a commission edited with sqlite3 reached the shift page."""
    import sqlite3

    totals = _settled_index(tmp_path)
    db = sqlite3.connect(tmp_path / "index.sqlite")
    db.execute("UPDATE rounds SET commission = '999.00' WHERE round = '5-3'")
    db.commit()
    db.close()
    notes = []
    index = Index(tmp_path / "index.sqlite", index_key(KEY), tmp_path / "log", notes.append)
    assert index.shift() == totals
    assert len(notes) == 1 and "rounds row (round 5-3) does not match its signature" in notes[0]
    assert notes[0].endswith("It was rebuilt from the audit log")
    assert index.shift() == totals and len(notes) == 1  # rebuilt once: the rows match again


@pytest.mark.slow
def test_an_edited_row_is_refused_by_an_index_that_does_not_know_the_log(tmp_path):
    import sqlite3

    import pytest

    _settled_index(tmp_path)
    db = sqlite3.connect(tmp_path / "index.sqlite")
    db.execute("UPDATE seats SET net = '5000.00' WHERE round = '5-2' AND seat = 1")
    db.commit()
    db.close()
    index = Index(tmp_path / "index.sqlite", index_key(KEY))
    with pytest.raises(IndexEdited, match=r"seats row \(round 5-2, seat 1\)"):
        index.search(round_id="5-2")
    with pytest.raises(IndexEdited):
        index.shift()


@pytest.mark.slow
def test_a_deleted_round_is_not_shown_the_index_is_rebuilt_from_the_log_and_says_so(tmp_path):
    """A settled round deleted from the index with sqlite3 (its row, its seats, its events: nothing left to
    fail a signature) was gone from the shift's totals without a word."""
    import sqlite3

    totals = _settled_index(tmp_path)
    db = sqlite3.connect(tmp_path / "index.sqlite")
    for table in ("rounds", "seats", "events"):
        db.execute(f"DELETE FROM {table} WHERE round = '5-3'")
    db.commit()
    db.close()
    notes = []
    index = Index(tmp_path / "index.sqlite", index_key(KEY), tmp_path / "log", notes.append)
    assert index.shift() == totals
    assert len(notes) == 1 and notes[0].startswith("the history index holds 39 rounds rows where 40 were written "
                                                   "(1 deleted)")
    assert notes[0].endswith("It was rebuilt from the audit log")
    assert "5-3" in [r["round"] for r in index.search(round_id="5-3")] and len(notes) == 1


def test_a_deleted_event_row_or_a_row_put_back_as_it_was_is_set_aside_at_start_up(tmp_path):
    """At a start every table is counted and its signatures added up: an events row deleted, or a settled
    round's row put back as it was while open (a signed row, but not the one written last)."""
    import sqlite3

    totals = _settled_index(tmp_path, rounds=3)
    db = sqlite3.connect(tmp_path / "index.sqlite")
    db.execute("DELETE FROM events WHERE seq = 5")
    db.commit()
    db.close()
    index, why = open_checked(tmp_path / "index.sqlite", index_key(KEY), tmp_path / "log")
    assert why.startswith("The history index was changed outside the appliance (the history index holds")
    assert "events rows" in why and "(1 deleted)" in why and why.endswith("kept as index.sqlite.damaged-0")
    index.catch_up(tmp_path / "log")
    assert index.shift() == totals
    index.close()



def _damage(path, at, size):
    data = bytearray(path.read_bytes())
    data[at:at + size] = bytes(range(256)) * (size // 256) + b"\xa5" * (size % 256)
    path.write_bytes(bytes(data))


@pytest.mark.slow
def test_a_damaged_header_or_damaged_pages_are_set_aside_and_the_index_rebuilt(tmp_path):
    """The old start gave a traceback for a damaged header and exit 2 for damaged pages, at every start."""
    totals = _settled_index(tmp_path)
    assert (tmp_path / "index.sqlite").stat().st_size > 5 * 4096
    for n, (at, size, said) in enumerate(((0, 16, "file is not a database"),
                                          (2 * 4096, 4096, "database disk image is malformed"))):
        damaged = (tmp_path / "index.sqlite").read_bytes()
        _damage(tmp_path / "index.sqlite", at, size)
        kept = (tmp_path / "index.sqlite").read_bytes()
        index, why = open_checked(tmp_path / "index.sqlite", index_key(KEY), tmp_path / "log")
        assert why.startswith(f"The history index is damaged ({said}") and "\n" not in why
        assert why.endswith(f"the old file is kept as index.sqlite.damaged-{n}")
        assert (tmp_path / f"index.sqlite.damaged-{n}").read_bytes() == kept  # the evidence, as it was found
        index.catch_up(tmp_path / "log")
        assert index.shift() == totals
        index.close()
        assert damaged != kept


def test_a_sound_index_is_kept_as_it_is(tmp_path):
    _settled_index(tmp_path)
    index, why = open_checked(tmp_path / "index.sqlite", index_key(KEY), tmp_path / "log")
    assert why is None and index.catch_up(tmp_path / "log") == 0
