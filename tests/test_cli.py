"""The command-line contracts, run as a user would: the installed console script, from another directory."""

import json
import shutil
import subprocess
import sys

import pytest

APPLIANCE = shutil.which("appliance") or pytest.fail("the appliance console script is not installed")


def run(*args, stdin=None, cwd=None):
    return subprocess.run([APPLIANCE, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_houseway_one_hand(tmp_path):
    out = run("houseway", "As", "Kd", "9c", "9s", "5h", "5d", "2c", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert set(d) == {"hand", "front", "back", "front_value", "back_value", "rule"}
    assert d["front"] == ["As", "Kd"] and d["back_value"] == "Two pair, nines and fives"
    assert d["rule"].startswith("Two pair, low and medium, holding a king or better")


def test_houseway_batch_from_stdin_keeps_going_after_a_bad_line(tmp_path):
    lines = "As Kd 9c 9s 5h 5d 2c\nAs Kd 9c\n10h jh qh kh ah 2c 3d\nZz Kd 9c 9s 5h 5d 2c\n"
    out = run("houseway", "--house-way", "golden-nugget", stdin=lines, cwd=tmp_path)
    assert out.returncode == 1
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 4
    assert "front" in rows[0] and "front" in rows[2]
    assert rows[1] == {"error": "line 2: the house way sets exactly 7 cards, got 3"}
    assert rows[3]["error"].startswith("line 4: unknown card 'Zz'")
    assert rows[2]["hand"] == ["Th", "Jh", "Qh", "Kh", "Ah", "2c", "3d"]


@pytest.mark.slow
def test_houseway_by_a_chart_sets_as_the_house_way_module(tmp_path):
    from appliance.config import chart_file

    lines = "As Kd 9c 9s 5h 5d 2c\nTh 9h 8h 7h 6h Jc 2h\nAh Ac As Ad Jk Kc Ks\n"
    by_chart = run("houseway", "--chart", str(chart_file("golden-nugget")), stdin=lines, cwd=tmp_path)
    by_module = run("houseway", "--house-way", "golden-nugget", stdin=lines, cwd=tmp_path)
    assert by_chart.returncode == 0, by_chart.stderr
    assert by_chart.stdout == by_module.stdout and len(by_chart.stdout.splitlines()) == 3


@pytest.mark.slow
def test_evaluate_two_five_seven():
    assert json.loads(run("evaluate", "Jk", "Kd").stdout)["value"] == "Ace, king"
    assert json.loads(run("evaluate", "--house", "fortune", "Jk", "Kd").stdout)["value"] == "Pair of kings"
    assert json.loads(run("evaluate", "As", "Ac", "Ad", "Ah", "Jk").stdout)["value"] == "Five aces"
    seven = json.loads(run("evaluate", "Th", "Jh", "Qh", "Kh", "Ah", "Ks", "Qs").stdout)
    assert seven["fortune"] is None and seven["best_five_value"] == "Royal flush"  # the general rules have no bonus
    # Fortune pays "ROYAL FLUSH 100 to 1" (no royal match line); the Envy ranking's 2nd line is "Royal Flush + Royal Match".
    seven = json.loads(run("evaluate", "--house", "fortune", "Th", "Jh", "Qh", "Kh", "Ah", "Ks", "Qs").stdout)
    assert seven["fortune"] == {"line": "royal-flush", "pays": "100 to 1"}
    assert seven["envy"]["line"] == "royal-match"
    # Fortune's table: "STRAIGHT 2 to 1" and no three-of-a-kind line: trips and a straight are paid as the straight.
    seven = json.loads(run("evaluate", "--house", "fortune", "5h", "6c", "7d", "8s", "9h", "9c", "9d").stdout)
    assert seven["fortune"] == {"line": "straight", "pays": "2 to 1"} and seven["envy"]["pays"] == "no pay"
    seven = json.loads(run("evaluate", "--house", "fortune", "2c", "2d", "5h", "7s", "9c", "Jd", "Kh").stdout)
    assert seven["fortune"] == {"line": None, "pays": "no pay"}
    bad = run("evaluate", "As", "Kd", "2c")
    assert bad.returncode == 2 and "2, 5 or 7 cards, got 3" in bad.stderr


ROUND = {
    "house": "fortune",
    "banker": {"seat": 4, "wager": "100.00", "front": ["Kh", "Qd"], "back": ["9c", "9s", "5h", "5d", "2c"]},
    "action_seat": 1,
    "seats": [
        {"seat": 1, "wager": "50.00", "front": ["3h", "2d"], "back": ["7c", "7s", "4h", "4d", "Jc"]},
        {"seat": 2, "wager": "50.00", "front": ["Ac", "Kd"], "back": ["Th", "Ts", "Td", "6c", "6d"],
         "bonus": {"fortune": "5.00"}},
        {"seat": 3, "wager": "25.00", "cards": ["Ah", "Ks", "Qs", "Js", "4c", "8h", "3s"]},
    ],
}


def test_settle_a_file_and_stdin(tmp_path):
    path = tmp_path / "round.json"
    path.write_text(json.dumps(ROUND))
    out = run("settle", str(path))
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    seats = {s["seat"]: s for s in d["seats"]}
    assert (seats[1]["result"], seats[1]["lost"]) == ("loss", "50.00")
    assert (seats[2]["result"], seats[2]["won"], seats[2]["bonus"]["fortune"]) == ("win", "50.00", "25.00")
    assert seats[3]["result"] == "no_action" and seats[3]["house_way_rule"]
    # collections in advance: 2.00 + 2.00 + 1.00 from the seats, 2.00 from the Player/Dealer
    assert d["totals"]["collection"] == "7.00" and d["totals"]["banker_net"] == "-2.00"
    assert json.loads(run("settle", "-", stdin=json.dumps(ROUND)).stdout) == d


@pytest.mark.parametrize("change, message", [
    (lambda r: r["seats"][0]["front"].__setitem__(1, "Qd"), "card Qd appears twice across the hands"),
    (lambda r: r["seats"][0]["front"].__setitem__(1, "Zz"), r"seats[0].front[1]: unknown card 'Zz'"),
    (lambda r: r.__setitem__("house", "Bellagio"), "unknown house 'Bellagio'"),
    (lambda r: r["seats"][0].__setitem__("seat", 9), "seats[0].seat: expected a whole number from 1 to 7, got 9"),
    (lambda r: r["seats"][0].__setitem__("wager", 50), None),
    (lambda r: r["seats"][0].__setitem__("colour", "red"), "seats[0].colour: unknown key"),
    # the one money parser (game.money), as the dealer's screen reads its wagers
    (lambda r: r["seats"][0].__setitem__("wager", "1e30"), "seats[0].wager: '1e30' is not an amount of money"),
    (lambda r: r["seats"][0].__setitem__("wager", "-0"), "seats[0].wager: '-0' is not an amount of money"),
])
@pytest.mark.slow
def test_settle_refuses_bad_input_naming_the_field(change, message):
    rnd = json.loads(json.dumps(ROUND))
    change(rnd)
    out = run("settle", "-", stdin=json.dumps(rnd))
    if message is None:  # a whole-number wager is fine: it is read as dollars
        assert out.returncode == 0, out.stderr
        return
    assert out.returncode == 2 and out.stdout == ""
    assert message in out.stderr


@pytest.mark.slow
def test_simulate_small_run_is_reproducible():
    a = json.loads(run("simulate", "--hands", "3000", "--seed", "4").stdout)
    b = json.loads(run("simulate", "--hands", "3000", "--seed", "4", "--workers", "2").stdout)
    assert a == b
    assert a["player_win"]["count"] + a["push"]["count"] + a["banker_win"]["count"] == 3000
    assert a["fouls"] == 0


def test_python_dash_m():
    out = subprocess.run([sys.executable, "-m", "appliance", "evaluate", "Ah", "Ad"], capture_output=True, text=True)
    assert json.loads(out.stdout)["value"] == "Pair of aces"


@pytest.mark.slow
def test_start_seat_command_prints_first_hand_action_order_and_rule():
    # Greektown: "the banking player will be counted as 1, 8, or 15"
    out = run("start-seat", "--house", "greektown", "--banker", "3", "--dice", "2", "3", "3")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["first_hand"], data["action_order"], data["banker"]) == (3, [4, 5, 6, 1, 2], 3)
    assert "counter-clockwise" in data["rule"]
    out = run("start-seat", "--house", "safari", "--banker", "dealer", "--value", "3")
    assert json.loads(out.stdout)["first_hand"] == 5
    out = run("start-seat", "--house", "capitol", "--banker", "2", "--value", "3")
    assert out.returncode == 2 and "Capitol Casino: this house starts with the dice cup" in out.stderr
    out = run("start-seat", "--house", "capitol", "--banker", "nine", "--dice", "1", "2", "3")
    assert out.returncode == 2 and "--banker" in out.stderr


@pytest.mark.slow
def test_simulate_table_mislays_the_share_asked_and_refuses_a_share_outside_0_to_1(tmp_path):
    from appliance.audit.log import records

    for share in ("1.5", "-0.1", "nan", "half"):
        out = run("simulate-table", "--rounds", "1", "--audit", str(tmp_path / share), "--mislay", share, cwd=tmp_path)
        assert out.returncode == 2 and f"--mislay: {share!r} is not a share between 0 and 1" in out.stderr, out.stderr
        assert not (tmp_path / share).exists()
    out = run("simulate-table", "--rounds", "2", "--audit", str(tmp_path / "log"), "--mislay", "1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    events = [r["event"] for r in records(tmp_path / "log")]
    assert events.count("BankerSetHeld") == 2 and events.count("RoundSettled") == 2  # every round held, then reset
