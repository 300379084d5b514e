"""Every subcommand given bad input, as a new user would: exit status 2, one line on stderr naming the
problem, no traceback, and nothing made (no file or folder in the working directory, none of the paths
named). Each case runs the real command line in a fresh directory; nothing starts a server or a device."""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

SEVEN = ["As", "Kd", "9c", "9s", "5h", "5d", "2c"]
CHARTS = Path(__file__).parent / "house_way_charts"  # charts written wrong on purpose
ROUND = {"house": "general", "banker": {"seat": "dealer", "cards": ["Ah", "Kh", "Qh", "Jh", "9c", "8c", "2d"]},
         "action_seat": 1, "seats": [{"seat": 1, "wager": "25.00", "front": ["3h", "2s"],
                                      "back": ["7c", "7s", "4h", "4d", "Jc"]}]}


def round_with(change) -> str:
    data = json.loads(json.dumps(ROUND))
    change(data)
    return json.dumps(data)


# (argv, stdin, a part of the one line on stderr)
CASES = [
    ([], None, "the following arguments are required: command"),
    (["deal"], None, "invalid choice: 'deal'"),
    (["houseway", "As", "Kd"], None, "the house way sets exactly 7 cards, got 2"),
    (["houseway", "--house-way", "nope", *SEVEN], None, "unknown house way 'nope'"),
    (["houseway", "--house", "Bellagio", *SEVEN], None, "unknown house 'Bellagio'"),
    (["houseway", "--chart", "missing.toml", *SEVEN], None, "missing.toml: no such chart file"),
    (["houseway", "--chart", str(CHARTS / "not-toml.toml"), *SEVEN], None,
     "not-toml.toml: not TOML: Expected ']' at the end of a table declaration (at line 2, column 7)"),
    (["houseway", "--chart", str(CHARTS / "unknown-term.toml"), *SEVEN], None,
     'unknown-term.toml: chart line 1 ("One pair: pair in back"): unknown rule term \'holdin\''),
    (["houseway", "--chart", str(CHARTS / "fouling.toml"), *SEVEN], None,
     'fouling.toml: chart line 29 ("Two pair, {pairs}: always split, the higher pair in front") fouls'),
    (["houseway", "--chart", str(CHARTS / "gap.toml"), *SEVEN], None, "gap.toml: no line sets"),
    (["houseway", "--chart", str(CHARTS / "gap.toml"), "--house-way", "ballys", *SEVEN], None,
     "argument --house-way: not allowed with argument --chart"),
    (["evaluate", "Zz"], None, "unknown card 'Zz'"),
    (["evaluate", "As", "Kd", "2c"], None, "evaluate takes 2, 5 or 7 cards, got 3"),
    (["settle", "-"], round_with(lambda r: r.__setitem__("banker", None)), "banker: expected a table"),
    (["settle", "-"], round_with(lambda r: r["seats"][0].__setitem__("front", [14, 13])),
     'seats[0].front[0]: expected a card code such as "Ah", got 14'),
    (["settle", "-"], round_with(lambda r: r["banker"].__setitem__("cards", [0, 1, 2, 3, 4, 5, 6])),
     'banker.cards[0]: expected a card code such as "Ah", got 0'),
    (["settle", "-"], "{not json", "stdin: not JSON"),
    (["settle", "missing.json"], None, "missing.json"),
    (["settle", sys.executable], None, ": not UTF-8 text"),
    (["start-seat", "--banker", "dealer", "--value", "0"], None, "RNG value 0 is out of range 1-7"),
    (["start-seat", "--banker", "nine", "--value", "3"], None, "--banker: expected \"dealer\" or a seat number"),
    (["start-seat", "--banker", "\u0663", "--value", "3"], None, "--banker: expected \"dealer\" or a seat number"),
    (["start-seat", "--banker", "dealer"], None, "one of the arguments --value --dice is required"),
    (["simulate", "--hands", "0"], None, "--hands: expected a whole number from 1 to 1000000000, got '0'"),
    (["simulate", "--hands", "10", "--workers", "-1"], None, "--workers: expected a whole number from 1 to 64, got '-1'"),
    # a number past any use: a list of 50,001 jobs built, or 65 processes started, before a hand is dealt
    (["simulate", "--hands", "1000000001"], None, "--hands: expected a whole number from 1 to 1000000000"),
    (["simulate", "--hands", "2", "--workers", "65"], None, "--workers: expected a whole number from 1 to 64"),
    # run: every one fails before a server, a device or the data folder is started or made
    (["run", "--port", "70000"], None, "--port: expected a whole number from 0 to 65535, got '70000'"),
    (["run", "--port", "-1"], None, "--port: expected a whole number from 0 to 65535, got '-1'"),
    (["run", "--rounds", "0"], None, "--rounds: expected a whole number of at least 1, got '0'"),
    (["run", "--pace", "0"], None, "--pace: expected a number above 0 and at most 60, got '0'"),
    (["run", "--port", "0", "--data", "d", "--pace", "1e308"], None,
     "--pace: expected a number above 0 and at most 60, got '1e308'"),
    (["run", "--mislay", "1.5"], None, "--mislay: '1.5' is not a share between 0 and 1"),
    (["run", "--data", "missing/data"], None, "--data: missing/data: no folder"),
    (["run", "--config", "missing"], None, "--config: missing: no such folder"),
    (["run", "--port", "0", "--key-file", "wrong.key"], None,
     "wrong.key: no audit key; create one with: appliance audit keygen wrong.key"),
    # a key that is there but is no key: refused before the data folder is made and locked
    (["run", "--port", "0", "--data", "d", "--key-file", "/dev/null"], None,
     "/dev/null: the audit key is shorter than 32 bytes"),
    (["run", "--port", "0", "--data", "d", "--key-file", "."], None, ".: a folder, not an audit key"),
    (["run", "--port", "0", "--data", "d", "--tls-cert", "missing.crt", "--tls-key", "missing.key"], None,
     "--tls-cert missing.crt: no such file"),
    (["run", "--data", str(CHARTS / "gap.toml")], None, "gap.toml: not a folder"),
    (["supervisor", "add", "12", "--config", "missing"], None, "missing: no such configuration folder"),
    (["supervisor", "add", "12", "--config", "."], "12\n", "a new supervisor PIN is 6 to 8 digits"),
    (["supervisor", "add", "", "--config", "."], "123456\n", "supervisor id '': 1 to 64 characters"),
    (["supervisor", "add", "a\nb", "--config", "."], "123456\n", "supervisor id 'a\\nb': 1 to 64 characters"),
    (["supervisor", "add", "12", "--config", "."], "\u0661\u0662\u0663\u0664\u0665\u0666\n",
     "a new supervisor PIN is 6 to 8 digits"),
    (["tls", "selfsigned", "--config", ".", "--days", "999999999"], None,
     "--days: expected a whole number from 1 to 3650, got '999999999'"),
    (["tls", "selfsigned", "--config", ".", "--days", "0"], None, "--days: expected a whole number from 1 to 3650"),
    (["tls", "selfsigned", "--config", "missing"], None, "--config: missing: no such folder"),
    (["tls", "selfsigned", "--config", ".", "--name", ""], None, "--name: '': a DNS name"),
    (["tls", "selfsigned", "--config", ".", "--name", "t\u00e4ble"], None, "--name: 't\u00e4ble': a DNS name"),
    (["simulate-table", "--rounds", "0", "--audit", "log"], None, "--rounds: expected a whole number of at least 1"),
    (["simulate-table", "--rounds", "1", "--audit", "log", "--width", "0", "--height", "0", "--render"], None,
     "--width: expected a whole number from 640 to 8192, got '0'"),
    (["simulate-table", "--rounds", "1", "--audit", "missing/log"], None, "--audit: missing/log: no folder"),
    (["simulate-table", "--rounds", "1", "--audit", "log", "--key-file", "missing/k.key"], None,
     "missing/k.key: no audit key; create one with: appliance audit keygen missing/k.key"),
    (["simulate-table", "--rounds", "1", "--audit", "log", "--key-file", "k.key"], None,
     "k.key: no audit key; create one with"),
    (["simulate-table", "--rounds", "1", "--audit", "log", "--refuse-free-mb", "-1"], None,
     "--refuse-free-mb: expected a number of at least 0, got '-1'"),
    (["simulate-table", "--rounds", "1", "--audit", "log", "--key-file", "/dev/null"], None,
     "/dev/null: the audit key is shorter than 32 bytes"),
    (["simulate-table", "--rounds", "1", "--audit", "log", "--key-file", "."], None, ".: a folder, not an audit key"),
    (["simulate-table", "--rounds", "1", "--audit", str(CHARTS / "gap.toml")], None, "gap.toml: not a folder"),
    (["devices", "listen", "rng", "--port", "/dev/nonexistent"], None,
     "--port /dev/nonexistent: no such device"),
    # each of these listened for ever, saying only "offline"
    (["devices", "listen", "rng", "--port", ""], None, "--port '': no such device"),
    (["devices", "listen", "rng", "--port", "."], None, "--port .: not a serial device"),
    (["devices", "listen", "rng", "--port", str(CHARTS / "gap.toml")], None, "gap.toml: not a serial device"),
    (["devices", "listen", "rng", "--port", "zzz://x"], None, "--port zzz://x: invalid URL, protocol 'zzz' not known"),
    (["devices", "listen", "rng", "--port", "loop://", "--roll-every", "1e308"], None,
     "--roll-every: expected a number from 0 to 3600, got '1e308'"),
    (["devices", "listen", "rng", "--port", "loop://", "--count", "-1"], None,
     "--count: expected a whole number of at least 0, got '-1'"),
    (["devices", "listen", "coin", "--port", "loop://"], None, "invalid choice: 'coin'"),
    (["devices", "simulate", "rng", "--every", "0"], None, "--every: expected a number above 0 and at most 3600, got '0'"),
    (["devices", "simulate", "rng", "--every", "1e308"], None, "--every: expected a number above 0 and at most 3600"),
    (["devices", "simulate", "dice", "--noise", "2"], None, "--noise: '2' is not a share between 0 and 1"),
    (["devices", "simulate", "rng", "--link", "missing/rng"], None, "--link: missing/rng: no folder"),
    (["vision", "markers", "--out", "m", "--dpi", "0"], None, "--dpi: expected a whole number from 72 to 1200"),
    (["vision", "markers", "--out", "m", "--dpi", "100000"], None, "--dpi: expected a whole number from 72 to 1200"),
    (["vision", "markers", "--out", "missing/m"], None, "--out: missing/m: no folder"),
    (["vision", "markers", "--out", str(CHARTS / "gap.toml")], None, "gap.toml: not a folder"),
    (["vision", "calibrate", "--layout", "missing.toml", "frame.png"], None, "missing.toml: no such layout file"),
    (["vision", "render", "--out", "x.txt"], None, "--out x.txt: OpenCV writes no image of that kind"),
    (["vision", "render", "--out", "missing/x.png"], None, "--out: missing/x.png: no folder"),
    (["vision", "render", "--out", "x.png", "--design", "plain"], None, "unknown design 'plain'"),
    (["vision", "render", "--out", "x.png", "--height", "0"], None, "--height: expected a whole number from 360"),
    (["vision", "read", "--deck", "missing", "frame.png"], None, "missing/deck.json: no deck here"),
    (["vision", "find", "--deck", "missing", "photo.jpg"], None, "missing/deck.json: no deck here"),
    (["deck", "learn", "--faces", "missing", "--out", "deck"], None, "missing: no such folder of card faces"),
    (["deck", "learn", "--faces", ".", "--out", "missing/deck"], None, "--out: missing/deck: no folder"),
    (["deck", "learn", "--faces", ".", "--out", str(CHARTS / "gap.toml")], None, "gap.toml: not a folder"),
    (["deck", "capture", "--out", "missing/faces", "frame.png"], None, "--out: missing/faces: no folder"),
    (["deck", "capture", "--out", "faces", "--codes", "Zz", "frame.png"], None, "unknown card 'Zz'"),
    (["deck", "capture", "--out", "faces", "--codes", "", "frame.png"], None, "frames but only 0 card codes"),
    (["audit", "verify", "missing", "--key-file", "k.key"], None, "argument path: missing: no such file or folder"),
    (["audit", "verify", ".", "--key-file", "k.key"], None, "k.key: no audit key"),
    (["audit", "verify", ".", "--key-file", "."], None, ".: a folder, not an audit key"),
    (["audit", "replay", "missing", "--key-file", "k.key"], None, "argument path: missing: no such folder"),
    (["audit", "replay", ".", "--key-file", "k.key"], None, "k.key: no audit key"),
    (["audit", "export", ".", "--key-file", "k.key", "--from", "2026-02-01", "--to", "2026-01-01"], None,
     "--from 2026-02-01 is after --to 2026-01-01"),
    (["audit", "export", ".", "--key-file", "k.key", "--from", "2026-13-01", "--to", "2026-01-01"], None,
     "--from/--to: month must be in 1..12"),
    (["audit", "index", "missing", "--db", "index.sqlite"], None, "argument path: missing: no such folder"),
    (["audit", "index", ".", "--db", "missing/index.sqlite"], None, "--db: missing/index.sqlite: no folder"),
    (["audit", "index", ".", "--db", "."], None, "--db .: a folder, not a history index"),
    (["audit", "index", ".", "--db", str(CHARTS / "gap.toml")], None,
     "gap.toml: not a history index: file is not a database"),
    (["audit", "recall", ".", "--key-file", "k.key", "--last", "0"], None,
     "--last: expected a whole number of at least 1, got '0'"),
    (["audit", "recall", ".", "--key-file", "k.key", "--last", "-1"], None, "--last: expected a whole number"),
    (["audit", "keygen", "missing/k.key"], None, "missing/k.key: no folder"),
    (["audit", "keygen", "."], None, ".: a folder; name the key file to make"),
    (["audit", "keygen", ""], None, "argument path: an empty path"),
    (["floor", "migrate", "--db", "garbage"], None, "--db 'garbage': not a libpq connection string"),
    (["floor", "serve", "--port", "70000"], None, "--port: expected a whole number from 0 to 65535"),
    (["floor", "serve", "--db", "garbage"], None, "--db 'garbage': not a libpq connection string"),
    (["floor", "enroll", "T1", "--out", "missing/T1.credentials"], None, "--out: missing/T1.credentials: no folder"),
    (["floor", "enroll", "T1", "--db", "garbage", "--out", "T1.credentials"], None,
     "--db 'garbage': not a libpq connection string"),
    (["floor", "prune", "--db", "garbage", "--keep-days", "0"], None, "--keep-days: 0; at least 1"),
    (["floor", "user", "add", "X", "--role", "boss"], None, "invalid choice: 'boss'"),
    (["floor", "user", "add", "X", "--role", "pit", "--db", "garbage"], None, "a password is 10 to 256 characters"),
    (["floor", "user", "remove", "X", "--db", "garbage"], None, "--db 'garbage': not a libpq connection string"),
    (["floor", "user", "list", "--db", "garbage"], None, "--db 'garbage': not a libpq connection string"),
    (["floor", "ship", "--audit", "missing", "--floor", "http://127.0.0.1:9", "--floor-credentials", "T1.credentials"],
     None, "--audit: missing: no such folder"),
    (["floor", "ship", "--audit", ".", "--floor", "http://127.0.0.1:9", "--floor-credentials", "T1.credentials"],
     None, "T1.credentials: no floor credentials here"),
    (["floor", "ship", "--audit", ".", "--floor", "http://127.0.0.1:9", "--floor-credentials", "c", "--wait", "-1"],
     None, "--wait: expected a number of at least 0, got '-1'"),
]


def appliance(argv, cwd, stdin=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "appliance", *argv], input=stdin, capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("argv, stdin, message", CASES, ids=[" ".join(argv) or "(none)" for argv, _, _ in CASES])
@pytest.mark.slow
def test_bad_input_is_one_line_exit_2_and_makes_nothing(tmp_path, argv, stdin, message):
    named = [arg for arg in argv if not arg.startswith("-") and not (tmp_path / arg).exists()]
    out = appliance(argv, tmp_path, stdin)
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), out.stderr
    assert "Traceback" not in out.stderr
    assert lines[0].startswith("appliance") and message in lines[0], lines[0]
    assert out.stdout == ""
    assert listing(tmp_path) == []
    assert [arg for arg in named if (tmp_path / arg).exists()] == []  # absolute paths too (/dev/nonexistent)


def test_a_path_named_by_mistake_is_left_as_it_was(tmp_path):
    """Paths that are there, named where a command writes: a link's name given to a file (it was replaced by
    the link, then deleted when the simulator stopped), another program's database given as the history
    index (its tables were dropped as an index of another layout)."""
    import sqlite3

    notes = tmp_path / "notes.txt"
    notes.write_text("the shift's notes\n")
    out = appliance(["devices", "simulate", "rng", "--link", str(notes)], tmp_path)
    assert (out.returncode, out.stderr.strip()) == (
        2, f"appliance devices simulate: argument --link: {notes}: a file is there; only a link is replaced")
    assert notes.read_text() == "the shift's notes\n" and not notes.is_symlink()

    other = tmp_path / "players.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE players (name TEXT)")
        db.execute("INSERT INTO players VALUES ('Ann')")
    db.close()
    (tmp_path / "log").mkdir()
    out = appliance(["audit", "index", "log", "--db", str(other)], tmp_path)
    assert (out.returncode, out.stderr.strip()) == (
        2, f"appliance audit index: --db {other}: not a history index: it holds the table players")
    with sqlite3.connect(other) as db:
        assert db.execute("SELECT name FROM players").fetchall() == [("Ann",)]
    db.close()
    assert listing(tmp_path) == ["log", "notes.txt", "players.sqlite"]


def subcommands(parser: argparse.ArgumentParser, prefix=()) -> list[tuple[str, ...]]:
    """Every runnable command line's words, walked from the parser (a new subcommand shows up here)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += subcommands(sub, (*prefix, name)) or [(*prefix, name)]
    return found


@pytest.mark.slow
def test_every_subcommand_has_a_bad_input():
    from appliance.cli import build_parser

    covered = {tuple(argv[:len(words)]) for argv, _, _ in CASES for words in subcommands(build_parser())}
    missing = [" ".join(words) for words in subcommands(build_parser()) if words not in covered]
    assert missing == []


@pytest.mark.slow
def test_run_rounds_plays_them_and_exits(tmp_path):
    """--rounds 1 used to play one round and then serve the dashboard for ever."""
    out = appliance(["run", "--simulate", "--rounds", "1", "--pace", "0.05", "--port", "0", "--data", "data"],
                    tmp_path, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[0])["simulate"] is True
    settled = [line for day in (tmp_path / "data" / "audit").glob("*.jsonl") for line in day.read_text().splitlines()
               if '"RoundSettled"' in line]
    assert len(settled) == 1  # and it exited: the 60 s timeout above stops a run that serves on
