"""The round engine, the simulated table, replay, export, and the crash test."""

import json
import os
import random
from decimal import Decimal
from pathlib import Path
import shutil
import signal
import subprocess
import time

import pytest

from appliance.game.settlement import SeatWagers
from appliance.audit.log import AuditLog, load_key, records, verify
from appliance.audit.replay import export_csv, replay, rounds_in
from appliance.audit.writer_lock import LOCK_FILE
from appliance.config import load_house, read_toml
from appliance.table.round import Events, Phase, RoundStateError, TableRound
from appliance.table.simulation import play_rounds

KEY = b"t" * 64
APPLIANCE = shutil.which("appliance")


def new_round(tmp_path, listeners=()):
    rules = load_house("general")
    audit = AuditLog(tmp_path / "log", KEY)
    table = TableRound("r1", rules, read_toml(Path(rules.source)), audit, list(listeners))
    return table, audit


def test_a_round_step_by_step(tmp_path):
    seen = []
    table, audit = new_round(tmp_path, [lambda record: seen.append(record)])
    table.open("dealer", [SeatWagers(2, Decimal("25")), SeatWagers(5, Decimal("40"))])
    assert table.start_seat("rng", 3) == 5  # counted counter-clockwise here: 1 the dealer, 2 seat 6, 3 seat 5
    setting = table.banker_cards(["As", "Kd", "9c", "9s", "5h", "5d", "2c"])
    assert setting["rule"].startswith("Two pair") and setting["front"] == ["As", "Kd"]
    table.seat_cards(2, ["Qh", "Jh"], ["Ts", "Th", "Tc", "4d", "4c"])
    with pytest.raises(RoundStateError, match="no cards yet for seat"):
        table.settle()
    table.seat_cards(5, ["3h", "2d"], ["7c", "7s", "4h", "6d", "Jc"])
    settlement = table.settle()
    assert [s["result"] for s in settlement["seats"]] and settlement["totals"]["banker_net"]
    assert [r["event"] for r in records(tmp_path / "log")] == [
        Events.ROUND_OPENED, Events.START_SEAT, Events.BANKER_CARDS, Events.SEAT_CARDS, Events.SEAT_CARDS,
        Events.ROUND_SETTLED]
    assert [r["event"] for r in seen] == [r["event"] for r in records(tmp_path / "log")]


def test_inputs_out_of_order_are_refused_and_nothing_is_written(tmp_path):
    table, audit = new_round(tmp_path)
    table.open("dealer", [SeatWagers(2, Decimal("25"))])
    with pytest.raises(RoundStateError, match="BankerCards is not allowed while bets_open"):
        table.banker_cards(["As", "Kd", "9c", "9s", "5h", "5d", "2c"])
    with pytest.raises(RoundStateError, match="seat 4 has no wager"):
        table.seat_cards(4, ["As", "Kd"], ["9c", "9s", "5h", "5d", "2c"])
    assert len(records(tmp_path / "log")) == 1
    table.void("misdeal: two cards exposed", who="supervisor 1042")
    with pytest.raises(RoundStateError, match="cannot be voided once voided"):
        table.void("again", who="supervisor 1042")


def test_the_record_is_on_disk_before_anyone_sees_it(tmp_path):
    on_disk = []
    table, audit = new_round(tmp_path, [lambda record: on_disk.append(
        any(r["seq"] == record["seq"] for r in records(tmp_path / "log")))])
    table.open("dealer", [SeatWagers(1, Decimal("10"))])
    table.start_seat("rng", 5)
    assert on_disk == [True, True]


@pytest.mark.slow
def test_two_hundred_rounds_verify_and_replay_with_no_difference(tmp_path):
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "200", "--audit", str(tmp_path / "log")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["rounds"] == 200
    key = ["--key-file", str(tmp_path / "log.key")]
    assert subprocess.run([APPLIANCE, "audit", "verify", str(tmp_path / "log"), *key]).returncode == 0
    result = subprocess.run([APPLIANCE, "audit", "replay", str(tmp_path / "log"), *key], capture_output=True, text=True)
    assert result.returncode == 0 and json.loads(result.stdout) == {
        "rounds": 200, "settled": 200, "voided": 0, "open": 0, "differences": []}


@pytest.mark.parametrize("house", ["capitol", "fortune", "greektown", "safari"])
@pytest.mark.slow
def test_every_house_replays(tmp_path, house):
    audit = AuditLog(tmp_path / "log", KEY)
    rules = load_house(house)
    play_rounds(rules, audit, 30, seed=4)
    assert replay(tmp_path / "log", KEY)["differences"] == []
    # Every Player/Dealer was one the house's rotation rules allowed (Capitol and Fortune: no more than two
    # consecutive hands; Capitol rule 23: a spot with a wager on the prior hand).
    from appliance.game.banking import BankRound, bank_refusal
    history, opened = [], None
    for r in records(tmp_path / "log"):
        if r["event"] == Events.ROUND_OPENED:
            banker, seats = r["data"]["banker"], {b["seat"] for b in r["data"]["bets"]}
            assert banker == "dealer" or bank_refusal(banker, history, rules.banking) is None, (r.get("round"), history)
            opened = BankRound(banker, frozenset(seats | ({banker} if banker != "dealer" else set())))
        elif r["event"] == Events.ROUND_SETTLED:
            history.append(opened)
            if history[1:] and opened.banker != "dealer":  # checked in the settlement, from the logged history
                assert not any("banking not checked" in n for n in r["data"]["settlement"]["notes"])


def test_replay_finds_a_settlement_that_the_rules_do_not_give(tmp_path):
    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 3, seed=2)
    # A correctly signed log whose recorded settlement was computed wrongly (say, by a faulty build).
    entry = rounds_in(tmp_path / "log")["2-3"]
    wrong = json.loads(json.dumps(entry.settlement))
    wrong["totals"]["banker_net"] = "999.00"
    forged = AuditLog(tmp_path / "forged", KEY)
    for record in records(tmp_path / "log"):
        data = record["data"]
        if record["event"] == Events.ROUND_SETTLED and data["round"] == "2-3":
            data = {**data, "settlement": wrong}
        forged.append(record["event"], data, record["who"])
    result = replay(tmp_path / "forged", KEY)
    assert [d["round"] for d in result["differences"]] == ["2-3"]
    assert result["differences"][0]["recorded"]["banker_net"] == "999.00"


@pytest.mark.slow
def test_rendered_rounds_read_by_the_camera(tmp_path):
    audit = AuditLog(tmp_path / "log", KEY)
    totals = play_rounds(load_house("general"), audit, 1, seed=6, render=True, size=(4608, 2592))
    assert totals["rounds"] == 1
    reads = [r for r in records(tmp_path / "log") if r["event"] == Events.BANKER_CARDS]
    assert reads[0]["data"]["read"] and len(reads[0]["data"]["read"]) == 7
    # the house dealer's setting laid in banker.front and banker.back, read by the real reader
    setting = next(r for r in records(tmp_path / "log") if r["event"] == Events.BANKER_SET)["data"]
    assert setting["set_by"] == "house-way" and len(setting["read"]) == 7 and all(r["card"] for r in setting["read"])
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_export_csv(tmp_path):
    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 5, seed=8)
    import datetime as dt

    today = dt.date.today()
    export = export_csv(tmp_path / "log", KEY, today - dt.timedelta(days=1), today + dt.timedelta(days=1))
    lines = export.text.splitlines()
    assert lines[0].startswith("round,settled_at,gaming_day,seat,wager") and len(lines) == export.rows + 1 > 5
    assert export_csv(tmp_path / "log", KEY, dt.date(2000, 1, 1), dt.date(2000, 1, 2)).text.count("\n") == 1


def log_bytes(log):
    """What the log's writer has written: its lock file (the holder's process id) is not a record. The writer
    renames its temporary files into place (``.HEAD.json.tmp``) while the log is listed here: a file gone
    between the listing and its size is passed over (what it held is in the file it became)."""
    written = 0
    for folder, _, names in os.walk(log):  # nothing for a log not made yet; a folder gone meanwhile is passed over
        for name in names:
            if name == LOCK_FILE:
                continue
            try:
                written += os.stat(os.path.join(folder, name)).st_size
            except FileNotFoundError:
                continue
    return written


def wait_for_growth(log, before, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while log_bytes(log) <= before:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "simulate-table wrote nothing"
        time.sleep(0.02)


@pytest.mark.slow
def test_killed_at_twenty_random_moments(tmp_path):
    """SIGKILL mid-run: the log verifies, no settled round is lost or repeated, the open one is voided."""
    rng = random.Random(20)
    log, key = tmp_path / "log", tmp_path / "log.key"
    settled_before = set()
    for _attempt in range(20):
        with subprocess.Popen([APPLIANCE, "simulate-table", "--rounds", "100000", "--audit", str(log), "--seed", "9"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
            try:
                # The moment is counted from its first new record, so a slow start (a loaded machine) still
                # gets killed mid-play rather than before its first round.
                wait_for_growth(log, log_bytes(log), proc)
                time.sleep(rng.uniform(0.0, 0.8))
            finally:  # killed on a failure here too: leaving the block waits for the child, 100,000 rounds
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        rounds = rounds_in(log)
        settled = {rid for rid, state in rounds.items() if state.settlement is not None}
        assert settled_before <= settled  # nothing settled was lost
        settled_before = settled
    # The next start recovers: the log verifies and the interrupted round is voided with a record.
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "1", "--audit", str(log), "--seed", "9"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert verify(log, load_key(key)).ok
    rounds = rounds_in(log)
    ids = [r["data"]["round"] for r in records(log) if r["event"] == Events.ROUND_SETTLED]
    assert len(ids) == len(set(ids))  # no round settled twice
    assert all(state.settlement is not None or state.void for state in rounds.values())
    voided = [r for r in records(log) if r["event"] == Events.ROUND_VOIDED]
    assert voided and all(r["who"] == "appliance (recovery)" and "interrupted" in r["data"]["reason"] for r in voided)
    assert replay(log, load_key(key))["differences"] == []


def test_a_card_seen_twice_holds_the_round_for_the_supervisor(tmp_path):
    from appliance.table.round import HeldForSupervisor

    table, audit = new_round(tmp_path)
    table.open("dealer", [SeatWagers(2, Decimal("25"))])
    table.start_seat("rng", 4)
    table.banker_cards(["As", "Kd", "9c", "9s", "5h", "5d", "2c"])
    with pytest.raises(HeldForSupervisor, match="card Kd seen twice: banker and seat 2"):
        table.seat_cards(2, ["Kd", "Jh"], ["Ts", "Th", "Tc", "4d", "4c"])
    last = records(tmp_path / "log")[-1]
    assert last["event"] == Events.TABLE_FLAGGED and last["data"]["flags"] == ["card Kd seen twice: banker and seat 2"]
    assert not table.state.seats[2].has_cards
    table.void("misdeal: foreign card", who="supervisor 1042")


@pytest.mark.slow
def test_zone_images_are_kept_by_their_hash_and_checked(tmp_path):
    audit = AuditLog(tmp_path / "log", KEY)
    play_rounds(load_house("general"), audit, 1, seed=6, render=True, size=(4608, 2592))
    assert verify(tmp_path / "log", KEY).ok
    images = sorted((tmp_path / "log" / "images").rglob("*.png"))
    assert images
    cited = {d for r in records(tmp_path / "log") for d in r["data"].get("images", [])}
    assert {p.stem for p in images} == cited
    data = bytearray(images[0].read_bytes())
    data[-20] ^= 1
    images[0].write_bytes(bytes(data))
    result = verify(tmp_path / "log", KEY)
    assert not result.ok and "does not match its SHA-256" in result.problem and result.line >= 1


def test_simulate_table_makes_its_key_beside_the_log_but_no_missing_folder(tmp_path):
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "2", "--audit", "data/audit"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and f"no folder {tmp_path / 'data'}" in out.stderr
    assert list(tmp_path.iterdir()) == []  # a mistyped path is refused, not made
    (tmp_path / "data").mkdir()
    out = subprocess.run([APPLIANCE, "simulate-table", "--rounds", "2", "--audit", "data/audit"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "data" / "audit.key").is_file() and verify(tmp_path / "data" / "audit",
                                                                   load_key(tmp_path / "data" / "audit.key")).ok


def test_a_player_banker_sets_his_own_hand_and_capitol_stops_a_foul(tmp_path):
    """Capitol rule 31: "The casino dealer cannot permit the Player/Dealer to set his hand foul": stopped
    before play, nothing recorded (the reset by the house way, for a foul let through "by mistake", is the
    settlement's: tests/test_settlement.py)."""
    from appliance.table.round import FouledSettingRefused

    rules = load_house("capitol")
    audit = AuditLog(tmp_path / "log", KEY)
    table = TableRound("c1", rules, read_toml(Path(rules.source)), audit)
    table.open(4, [SeatWagers(2, Decimal("40"))], banker_wager=Decimal("200"))
    table.start_seat("dice", 12, dice=[3, 4, 5])
    # The Player/Dealer lays aces in front of a pair of kings: fouled.
    with pytest.raises(FouledSettingRefused, match="front outranks back"):
        table.banker_cards(["As", "Ad", "Kc", "Ks", "9h", "4d", "3c"], front=["As", "Ad"],
                           back=["Kc", "Ks", "9h", "4d", "3c"])
    assert table.phase is Phase.START_SEAT
    table.banker_cards(["As", "Ad", "Kc", "Ks", "9h", "4d", "3c"], front=["Kc", "Ks"], back=["As", "Ad", "9h", "4d", "3c"])
    table.seat_cards(2, ["Qh", "Jh"], ["Ts", "Th", "Tc", "6d", "5c"])
    settlement = table.settle()
    assert "reset_from" not in settlement["banker"]
    assert replay(tmp_path / "log", KEY)["differences"] == []
    with pytest.raises(RoundStateError, match="not his seven cards"):
        other = TableRound("c2", rules, {}, audit)
        other.open(4, [SeatWagers(2, Decimal("40"))], banker_wager=Decimal("200"))
        other.start_seat("dice", 3, dice=[1, 1, 1])
        other.banker_cards(["As", "Ad", "Kc", "Ks", "9h", "4d", "3c"], front=["As", "2d"], back=["Kc", "Ks", "9h", "4d", "3c"])
