"""The dashboard served for real on loopback (the front and waitress), fed by the real round engine."""

from decimal import Decimal
import http.client
import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from served import dashboard_serving

from appliance.game.settlement import SeatWagers
from appliance.audit.log import AuditLog
from appliance.config import load_house, read_toml
from appliance.table.live import LiveTable
from appliance.table.round import TableRound
from appliance.web.app import create_app

RULES = load_house("general")


@pytest.fixture()
def served(tmp_path):
    live = LiveTable()
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live) as base:
        yield base, live, AuditLog(tmp_path / "log", b"w" * 64)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers.get_content_type(), response.read()


def state_when(base, condition, timeout=5.0):
    """The served state once ``condition`` holds: the front answers /api/state from the state the
    table's process last sent it, a few milliseconds behind the table (never behind an event it sent)."""
    deadline = time.monotonic() + timeout
    while not condition(state := json.loads(get(base + "/api/state")[2])) and time.monotonic() < deadline:
        time.sleep(0.01)
    return state


def play(live, audit):
    table = TableRound("w1", RULES, read_toml(Path(RULES.source)), audit, [live])
    table.open("dealer", [SeatWagers(2, Decimal("25")), SeatWagers(5, Decimal("40"))])
    table.start_seat("rng", 4)
    table.banker_cards(["As", "Kd", "9c", "9s", "5h", "5d", "2c"])
    table.seat_cards(2, ["Qh", "Jh"], ["Ts", "Th", "Tc", "4d", "4c"])
    table.seat_cards(5, ["3h", "2d"], ["7c", "7s", "4h", "6d", "Jc"])
    return table.settle()


def test_the_page_and_the_state(served):
    base, live, audit = served
    status, kind, body = get(base + "/")
    assert status == 200 and kind == "text/html" and b"EventSource" in body
    assert json.loads(get(base + "/api/state")[2]) == {"round": None, "phase": "idle", "held": None, "dealer": {},
                                                       "boot": live.boot, "stamp": 0}
    settlement = play(live, audit)
    state = state_when(base, lambda state: state["phase"] == "settled")
    assert state["round"] == "w1" and state["boot"] == live.boot and state["stamp"] == 6  # a change per record (six)
    assert state["banker"]["front"] == ["As", "Kd"] and state["banker"]["rule"].startswith("Two pair")
    assert state["seats"]["2"]["result"] == settlement["seats"][0]["result"] or \
        state["seats"]["2"]["result"] == settlement["seats"][1]["result"]
    assert state["totals"] == settlement["totals"]
    assert json.loads(get(base + "/api/rounds/w1")[2])["round"] == "w1"


def test_events_stream_each_record_as_it_is_written(served):
    base, live, audit = served
    received = []

    def listen():
        host, port = base.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            connection.request("GET", "/events")
            response = connection.getresponse()
            while len(received) < 6:
                line = response.fp.readline().decode().strip()
                if line.startswith("event: ") and line != "event: heartbeat":
                    received.append(line[7:])
            response.close()
        finally:
            connection.close()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    time.sleep(0.5)
    play(live, audit)
    listener.join(timeout=10)
    assert received == ["RoundOpened", "StartSeat", "BankerCards", "SeatCards", "SeatCards", "RoundSettled"]


def test_the_hint_shows_the_house_way_and_the_other_splits(served):
    base, _, _ = served
    hint = json.loads(get(base + "/api/hint?cards=As+Kd+9c+9s+5h+5d+2c")[2])
    assert hint["front"] == ["As", "Kd"] and len(hint["splits"]) == 21
    assert sum(s["house_way"] for s in hint["splits"]) == 1
    assert any(s["foul"] for s in hint["splits"])  # e.g. nines in front of a worse back
    with pytest.raises(urllib.error.HTTPError) as err:
        get(base + "/api/hint?cards=As+Kd")
    assert err.value.code == 400
    assert "give 7 cards, got 2" in json.loads(err.value.read())["error"]
    err.value.close()


def test_the_dashboard_binds_to_loopback_by_default():
    from appliance.cli import build_parser

    args = build_parser().parse_args(["run", "--simulate"])
    assert args.host == "127.0.0.1"


def test_the_device_panel_folds_status_and_faults(tmp_path):
    from appliance.table.round import Events
    from appliance.table.table import Table

    live = LiveTable()
    table = Table(RULES, read_toml(Path(RULES.source)), AuditLog(tmp_path / "log", b"v" * 64), {}, listeners=[live])
    table.log(Events.DEVICE_STATUS, {"device": "rng", "status": "online", "detail": "valid message"}, "appliance")
    table.log(Events.DEVICE_REJECTED, {"device": "rng", "rejected": "R,1,9*00", "reason": "bad checksum"}, "device")
    table.log(Events.DEVICE_STATUS, {"device": "rng", "status": "offline", "detail": "no valid message for 3.1 s"},
              "appliance")
    table.log(Events.DEVICE_STATUS, {"device": "camera", "status": "online", "detail": "markers found"}, "appliance")
    devices = create_app(live, RULES).test_client().get("/api/devices").get_json()
    assert [(d["device"], d["status"]) for d in devices] == [("camera", "online"), ("rng", "offline")]
    assert [f["message"] for f in devices[1]["faults"]] == ["bad checksum", "no valid message for 3.1 s"]
    assert devices[0]["faults"] == []
