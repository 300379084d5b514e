from appliance.audit.index import Index
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
    table.open("dealer", [{"seat": 1, "wager": "20"}])
    assert index.recent(1)[0]["status"] == "open"
    void_interrupted(audit)
    index.rebuild(tmp_path / "log")
    assert index.recent(1)[0]["status"] == "voided" and "interrupted" in index.recent(1)[0]["reason"]


def test_search_by_round_time_and_status_newest_first(tmp_path):
    import datetime as dt

    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 6, seed=4)
    TableRound("4-99", load_house("general"), {"house": {}}, audit).open("dealer", [{"seat": 1, "wager": "20"}])
    void_interrupted(audit)
    index = Index(tmp_path / "index.sqlite")
    index.rebuild(tmp_path / "log")
    rows = index.search()
    assert rows[0] == {"round": "4-99", "status": "voided", "opened_at": rows[0]["opened_at"], "settled_at": None,
                       "seat": None, "wager": None, "result": "voided", "net": None}
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

    now = [dt.datetime(2026, 3, 1, 12, tzinfo=dt.timezone.utc)]
    audit = AuditLog(folder, KEY, clock=lambda: now[0])
    for day in range(days):
        TableRound(f"d{day}-1", load_house("general"), {"house": {}}, audit).open("dealer", [{"seat": 1, "wager": "20"}])
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

    days_of_log(tmp_path / "log", days=2)
    index = Index(tmp_path / "index.sqlite")
    index.catch_up(tmp_path / "log")
    TableRound("d1-9", load_house("general"), {"house": {}}, AuditLog(tmp_path / "log", KEY), [index.add]).open(
        "dealer", [{"seat": 1, "wager": "20"}])
    ids = RoundIds(index.last_number, lambda: "d1")
    assert [ids(), ids()] == ["d1-10", "d1-11"]
    assert RoundIds(index.last_number, lambda: "d7", digits=4)() == "d7-0001"
