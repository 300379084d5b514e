"""The pit view's JSON (figures per table, dealer and shift; game recall), and the gaming day's report
for accounting reconciled with each table's own export."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import urllib.request
from decimal import Decimal

import pytest

from appliance.audit.log import load_key
from appliance.audit.replay import export_csv
from floor_helpers import (corrected_rounds, enrolled, floor_service, kept_by_an_old_floor, migrated, seen, ship,
                           table_log, users)

fetch = seen  # as a logged-in user of the role that sees it (recall: surveillance; reports: accounting)


@pytest.fixture(scope="module")
def pit(postgres, tmp_path_factory):
    """Two tables that played and shipped: T1 30 rounds, T2 12 rounds."""
    dsn = users(migrated(postgres.create_database("floor_pit")))
    folder = tmp_path_factory.mktemp("pit")
    logs = {}
    with floor_service(dsn) as url:
        for table, rounds, seed in (("T1", 30, 11), ("T2", 12, 12)):
            credentials = enrolled(dsn, table, folder)
            logs[table] = table_log(folder, credentials, rounds, seed)
            ship(logs[table], url, credentials)
        day = dt.date.fromisoformat(sorted(logs["T1"].glob("*.jsonl"))[0].stem)
        yield url, day, logs, folder


def own_export(folder, audit_dir, table: str, day: dt.date) -> list[dict]:
    """The table's own export of the gaming day: its seat rows (the shift seals follow a blank line)."""
    text = export_csv(audit_dir, load_key(folder / f"{table}.key"), day, day).text
    return list(csv.DictReader(io.StringIO(text.split("\n\n")[0])))


def test_the_report_reconciles_with_each_tables_own_export(pit):
    url, day, logs, folder = pit
    report = {row["table"]: row for row in csv.DictReader(io.StringIO(fetch(f"{url}/api/floor/report/{day}.csv").decode()))}
    assert set(report) == {"T1", "T2", "FLOOR"}
    floor_total = Decimal(0)
    for table, audit_dir in logs.items():
        rows = own_export(folder, audit_dir, table, day)
        total = lambda column: sum((Decimal(r[column]) for r in rows), Decimal(0))  # noqa: E731
        bank = sum((Decimal(r["banker_net"]) for r in {r["round"]: r for r in rows}.values()), Decimal(0))
        line = report[table]
        assert int(line["rounds"]) == len({r["round"] for r in rows})
        assert Decimal(line["wagers"]) == total("wager")
        assert Decimal(line["commission"]) == total("commission")
        assert Decimal(line["collection"]) == total("collection")
        assert Decimal(line["banker_result"]) == bank
        assert int(line["fouls"]) == sum(r["result"] == "foul" for r in rows)
        assert line["hold"] == f"{bank / total('wager') * 100:.2f}%"
        floor_total += total("wager")
    assert Decimal(report["FLOOR"]["wagers"]) == floor_total
    assert int(report["FLOOR"]["rounds"]) == int(report["T1"]["rounds"]) + int(report["T2"]["rounds"]) == 42


def test_the_printable_report_shows_the_same_figures(pit):
    url, day, _, _ = pit
    page = fetch(f"{url}/floor/report/{day}").decode()
    rows = list(csv.DictReader(io.StringIO(fetch(f"{url}/api/floor/report/{day}.csv").decode())))
    assert f"gaming day {day}" in page
    for row in rows:
        assert f"<td>{row['table']}</td><td>{row['rounds']}</td><td>{row['wagers']}</td>" in page


def test_figures_per_table_dealer_and_shift_add_up(pit):
    url, day, _, _ = pit
    per = {by: json.loads(fetch(f"{url}/api/floor/stats?day={day}&by={by}")) for by in ("table", "dealer", "shift")}
    assert [r["table"] for r in per["table"]] == ["T1", "T2"]
    for by in ("dealer", "shift"):
        for figure in ("rounds", "fouls", "voids", "misdeals", "corrections"):
            assert sum(r[figure] for r in per[by]) == sum(r[figure] for r in per["table"])
        assert sum(Decimal(r["wagers"]) for r in per[by]) == sum(Decimal(r["wagers"]) for r in per["table"])
    assert {r["shift"] for r in per["shift"]} <= {"day", "swing", "grave"}
    assert json.loads(fetch(f"{url}/api/floor/stats?day={day + dt.timedelta(days=3)}")) == []


def test_a_bad_figures_request_is_a_400(pit):
    url, _, _, _ = pit
    for query, expected in (("by=croupier", "by: expected one of table, dealer, shift"),
                            ("day=yesterday", "day: 'yesterday' is not a date")):
        with pytest.raises(urllib.error.HTTPError) as err:
            fetch(f"{url}/api/floor/stats?{query}")
        assert err.value.code == 400 and expected in json.loads(err.value.read())["error"]


def test_game_recall_gives_the_last_ten_rounds_newest_first(pit):
    url, _, logs, _ = pit
    rounds = json.loads(fetch(f"{url}/api/floor/tables/T2/recall"))
    opened = [json.loads(line)["data"]["round"] for path in sorted(logs["T2"].glob("*.jsonl"))
              for line in path.read_text().splitlines() if json.loads(line)["event"] == "RoundOpened"]
    assert [r["round"] for r in rounds] == opened[::-1][:10]
    settled = [x for x in rounds[0]["records"] if x["event"] == "RoundSettled"]
    assert settled and settled[0]["detail"]["totals"]["banker_net"]
    assert all("rules" not in x["detail"] for r in rounds for x in r["records"])


def test_the_pit_page_is_served(pit):
    url, _, _, _ = pit
    page = fetch(f"{url}/").decode()
    assert "<title>Pit view</title>" in page and "/api/floor/tables" in page


def test_a_foul_or_unreadable_rate_out_of_line_is_an_alert(floor_dsn, tmp_path):
    import psycopg

    users(migrated(floor_dsn))
    with floor_service(floor_dsn) as url:
        for table, seed in (("T1", 1), ("T2", 2), ("T3", 3)):
            credentials = enrolled(floor_dsn, table, tmp_path)
            ship(table_log(tmp_path, credentials, 3, seed), url, credentials)
        assert json.loads(fetch(f"{url}/api/floor/alerts")) == []
        with psycopg.connect(floor_dsn) as conn:  # T1's dealer fouls every hand; T3's camera misses cards
            conn.execute("UPDATE floor_rounds SET fouls = seats WHERE table_id = 'T1'")
            conn.execute("UPDATE floor_rounds SET unreadable = 2 WHERE table_id = 'T3'")
        found = {(a["table"], a["kind"]): a["message"] for a in json.loads(fetch(f"{url}/api/floor/alerts"))}
    assert set(found) == {("T1", "foul-rate"), ("T3", "unreadable-rate")}
    assert "fouled hands in" in found["T1", "foul-rate"] and "(100.0%), the rest of the floor 0.0%" in found["T1", "foul-rate"]


def test_unreadable_cards_where_the_house_dealer_sets_the_bankers_hand_are_counted(postgres, floor_dsn, tmp_path):
    """A card the camera could not read in banker.front or banker.back (the house dealer's setting, laid once
    against the house way, held, and reset) is an unreadable card like one in the banker's or a seat's zone:
    the floor counts every such read the table logged."""
    from dealer_table import Dealer

    from appliance.audit.log import AuditLog, records
    from appliance.config import load_house
    from appliance.devices.protocol import RngResult
    from appliance.floor.enroll import table_key

    users(migrated(floor_dsn))
    credentials = enrolled(floor_dsn, "T4", tmp_path)
    audit_dir = tmp_path / "T4-audit"
    d = Dealer(audit_dir, rules=load_house("greektown"), reads_setting=True,
               audit=AuditLog(audit_dir, table_key(tmp_path / "T4.key", credentials, audit_dir)))
    d.loop.set_bets([{"seat": 1, "wager": "20"}])
    d.loop.press("next")
    d.loop.start_value("rng", RngResult(1, 3))
    d.look({"banker": ["Qs", "Qd", "9h", "8c", "7c", "4h", "2s"]})
    assert d.loop.press("confirm") == ""
    seat = {"seat1.front": ["Kd", "Jh"], "seat1.back": ["Ah", "Kc", "8d", "5c", "3s"]}
    # the pair split (not the house way), its seven cut off the front: held for the reset
    d.look({"banker.front": ["Qs", None], "banker.back": ["Qd", "9h", "8c", "4h", "2s"], **seat})
    d.loop.name_card("banker.front", 1, "7c")
    assert d.loop.press("confirm") == ""
    d.look({"banker.front": ["9h", "8c"], "banker.back": ["Qs", "Qd", "7c", None, None], **seat})  # reset
    d.loop.name_card("banker.back", 3, "4h")
    d.loop.name_card("banker.back", 4, "2s")
    assert d.loop.press("confirm") == ""
    logged = records(audit_dir)
    unread = {r["event"]: sum(x["card"] is None for x in r["data"]["read"]) for r in logged if r["data"].get("read")}
    assert unread == {"BankerCards": 0, "BankerSetHeld": 1, "BankerSet": 2, "SeatCards": 0}
    assert logged[-1]["event"] == "RoundSettled"
    with floor_service(floor_dsn) as url:
        ship(audit_dir, url, credentials)
        day = logged[-1]["gaming_day"]
        figures = json.loads(fetch(f"{url}/api/floor/stats?day={day}"))
        report = {row["table"]: row for row in csv.DictReader(io.StringIO(fetch(f"{url}/api/floor/report/{day}.csv").decode()))}
    assert [(f["table"], f["rounds"], f["unreadable_cards"]) for f in figures] == [("T4", 1, 3)]
    assert report["T4"]["unreadable_cards"] == "3"
    import psycopg

    from appliance.floor.migrate import migrate

    def figures_kept(dsn):  # the rate is taken over the seven cards of each hand and each card read in the set zones
        with psycopg.connect(dsn) as conn:
            return conn.execute("SELECT unreadable, cards FROM floor_rounds WHERE table_id = 'T4'").fetchall()

    assert figures_kept(floor_dsn) == [(3, 2 * 7 + 7 + 7)]
    old = postgres.create_database("floor_before_004")
    kept_by_an_old_floor(old, 3, "T4", audit_dir)  # the round as the floor kept it before migration 004
    with psycopg.connect(old) as conn:
        assert conn.execute("SELECT unreadable FROM floor_rounds").fetchall() == [(0,)]
    assert migrate(old).applied[0] == 4
    assert figures_kept(old) == [(3, 28)]  # counted again from its records


def test_the_floors_figures_are_the_tables_own_fold_a_correction_reopening_a_round_included(floor_dsn, tmp_path):
    """Each round's row the pit and the report count is what the one fold of the table's log makes of the
    round. The floor once counted in SQL the last settlement recorded: a round a supervisor's correction had
    reopened, and the appliance stopped before it was settled again, still counted as settled, bank 25.00."""
    import psycopg

    from appliance.audit.log import records
    from appliance.records.fold import fold_rounds
    from appliance.records.round_figures import round_figures

    credentials, audit_dir = corrected_rounds(floor_dsn, tmp_path)
    logged = records(audit_dir)
    with floor_service(floor_dsn) as url:
        ship(audit_dir, url, credentials)
        day = logged[-1]["gaming_day"]
        figures = json.loads(fetch(f"{url}/api/floor/stats?day={day}"))
    with psycopg.connect(floor_dsn) as conn:
        kept = conn.execute("SELECT round, gaming_day::text, dealer, settled, misdeal, voided, corrections, "
                            "unreadable, wagers, commission, collection, banker_net, house_net, fouls, seats, cards "
                            "FROM floor_rounds ORDER BY round").fetchall()
    folded = fold_rounds(logged)
    assert [row[0] for row in kept] == ["t-1", "t-2"]
    for round_id, *row in kept:
        f = round_figures(folded[round_id])
        assert tuple(row) == (f.gaming_day, f.dealer, f.settled, f.misdeal, f.voided, f.corrections, f.unreadable,
                              f.wagers, f.commission, f.collection, f.banker_net, f.house_net, f.fouls, f.seats,
                              f.cards)
    assert [(r[0], r[3], r[6], r[11]) for r in kept] == [("t-1", True, 1, Decimal("-25.00")),
                                                         ("t-2", False, 1, Decimal("0.00"))]
    assert [(f["table"], f["rounds"], f["banker_result"]) for f in figures] == [("T1", 1, "-25.00")]
