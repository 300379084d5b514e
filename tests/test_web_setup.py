"""The technician's setup over HTTP on a served appliance: the supervisor's session and CSRF token,
bad input answered 4xx naming the field, the start-seat RNG's values over a pseudo-terminal, the
buttons and lamps on their pins, the camera's markers, and the house chosen kept for the next start."""

from decimal import Decimal
import base64
import shutil
import subprocess

import cv2
import numpy as np
import pytest
from setup_table import Client, setup_table, wait_for
from started_run import StartedRun

from appliance.game.settlement import SeatWagers
from appliance.audit.log import records
from appliance.config import shipped_config_dir
from appliance.setup.camera_check import check_frame
from appliance.table.round import Events
from appliance.vision.calibrate import detect_markers
from appliance.vision.layout import load_layout
from appliance.vision.render import DESIGNS, Scene, render_table

LAYOUT = load_layout(shipped_config_dir() / "layout.toml")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with setup_table(tmp_path_factory.mktemp("setup"), size=(2400, 1350)) as table:
        yield table


def test_the_setup_needs_a_supervisor_its_token_and_a_table_out_of_play(served):
    client = Client(served.url)
    assert client.call("/api/setup")[0] == 401
    assert client.call("/api/setup/begin", {})[0] == 401
    client.login()
    status, answer = client.call("/api/setup/begin", {}, csrf=False)
    assert (status, answer) == (403, {"error": "missing or wrong CSRF token"})
    status, answer = client.call("/api/setup/lamp", {"lamp": "ready", "on": True})
    assert status == 409 and "begin the setup first" in answer["error"]
    table = served.station.table
    table.new_round("2026-01-01-0001").open("dealer", [SeatWagers(2, Decimal("25"))])
    status, answer = client.call("/api/setup/begin", {})
    assert status == 409 and answer["error"] == "round 2026-01-01-0001 is in play: settle or void it before the setup"
    table.void("2026-01-01-0001", "1042", "4821", "a test round")
    status, answer = client.call("/api/setup/begin", {})
    assert status == 200 and answer["begun_by"] == "supervisor 1042" and "setup in progress" in answer["held"]
    assert served.station.loop.press("next", "dealer (button)") == "the table is held: only a supervisor can release it"


@pytest.mark.parametrize("path, body, field", [
    ("/api/setup/lamp", {"lamp": "bogus", "on": True}, "lamp: 'bogus' is not one of attention, ready"),
    ("/api/setup/lamp", {"lamp": "ready", "on": "yes"}, "on: expected true (lit), false (dark) or null"),
    ("/api/setup/lamp", {"on": True}, "lamp: expected a string, got nothing"),
    ("/api/setup/house", {"house": "bellagio"}, "house: 'bellagio' is not one of"),
    ("/api/setup/house", {"house": ["general"]}, "house: expected a string, got a list"),
    ("/api/setup/deck/capture", {"card": "Zz"}, "card: 'Zz' is not a card code"),
    ("/api/setup/deck/capture", {"card": 7}, "card: expected a string, got a number"),
    ("/api/setup/deck/try", {"card": "x" * 10}, "card: 10 characters, at most 4"),
    ("/api/setup/end", {}, "pin: expected a string, got nothing"),
    ("/api/setup/lamp", None, "the body must be a JSON object"),
])
def test_bad_input_is_a_4xx_naming_the_field(served, path, body, field):
    client = Client(served.url)
    client.login()
    client.call("/api/setup/begin", {})
    status, answer = client.call(path, body, raw=b"not json" if body is None else None)
    assert status == 400 and field in answer["error"], answer
    status, answer = client.call("/api/setup/deck/nope/face.png")
    assert status == 404 and "no 'face' picture of card 'nop'" in answer["error"]


def test_the_start_seat_rng_answers_over_its_port_and_its_values_are_shown(served):
    client = Client(served.url)
    client.login()
    client.call("/api/setup/begin", {})
    status, device = client.call("/api/setup/device")
    assert status == 200 and device["port"] == served.rng.name and device["source"] == "rng"
    wait_for(lambda: client.call("/api/setup/device")[1]["status"] == "online", 10, "the RNG online")
    before = len(client.call("/api/setup/device")[1]["values"])
    assert client.call("/api/setup/device/roll", {}) == (200, {"ok": True})
    values = wait_for(lambda: (v := client.call("/api/setup/device")[1]["values"]) and len(v) > before and v, 10,
                      "the RNG's value")
    sent = f"R,{values[0]['seq']},{values[0]['value']}*"  # the line the device wrote on its port
    assert values[0]["used"] is False and any(line.decode().startswith(sent) for line in served.rng.sent)
    logged = [r for r in records(served.log) if r["event"] == Events.DEVICE_VALUE]
    assert logged[-1]["data"]["seq"] == values[0]["seq"] and logged[-1]["data"]["used"] is False
    served.rng.unplug()  # the USB adapter pulled out
    try:
        offline = wait_for(lambda: (d := client.call("/api/setup/device")[1])["status"] == "offline" and d, 15,
                           "the RNG offline")
        assert offline["say"] == (f"No valid message from the RNG on {served.rng.name} (offline): check its USB cable "
                                  "and power; the udev name comes from hardware/99-paigow.rules.")
        assert client.call("/api/setup/device/roll", {}) == \
            (409, {"error": "the device's port is not open: is it plugged in? (see the status above)"})
    finally:
        served.rng.replug()
    wait_for(lambda: client.call("/api/setup/device")[1]["status"] == "online", 15, "the RNG back")


def test_each_button_shows_as_pressed_and_a_lamp_test_holds_whatever_the_table_asks(served):
    client = Client(served.url)
    client.login()
    client.call("/api/setup/begin", {})
    panel, pins = served.station.panel, served.station.panel.pins
    pin = panel.layout.buttons["confirm"]
    before = panel.presses["confirm"]
    pins.drive(pin, False)
    down = wait_for(lambda: next(b for b in client.call("/api/setup/panel")[1]["buttons"] if b["name"] == "confirm")["down"],
                    5, "CONFIRM down")
    assert down
    pins.drive(pin, True)
    shown = wait_for(lambda: (b := next(b for b in client.call("/api/setup/panel")[1]["buttons"]
                                        if b["name"] == "confirm")) and not b["down"] and b, 5, "CONFIRM up")
    assert shown["presses"] == before + 1 and shown["pin"] == pin
    lamp = panel.layout.lamps["attention"]  # lit by the table while it is held
    assert client.call("/api/setup/lamp", {"lamp": "attention", "on": False}) == \
        (200, {"lamp": "attention", "on": False, "tested": True})
    served.station.loop.announce()  # the table lights its lamps again on every change
    assert pins.levels[lamp] is False
    assert client.call("/api/setup/lamp", {"lamp": "attention", "on": None})[1]["on"] is True
    tested = [r for r in records(served.log) if r["event"] == Events.LAMP_TESTED]
    assert [(r["data"]["lamp"], r["data"]["on"], r["who"]) for r in tested[-2:]] == \
        [("attention", False, "supervisor 1042"), ("attention", None, "supervisor 1042")]


def test_the_camera_step_finds_the_markers_and_their_error(served):
    client = Client(served.url)
    client.login()
    client.call("/api/setup/begin", {})
    status, view = client.call("/api/setup/camera")
    assert status == 200 and view["ok"] and view["found"] == [0, 1, 2, 3, 4] and view["missing"] == []
    assert 0 < view["error_px"] < 1.0 and "5 of 5 markers found" in view["say"][0]
    picture = cv2.imdecode(np.frombuffer(base64.b64decode(view["image"].split(",", 1)[1]), np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[1] == 1280


def test_a_covered_marker_is_named_and_drawn_where_it_should_be():
    frame = render_table(LAYOUT, {}, DESIGNS["classic"], Scene(tilt_deg=8), seed=3).image
    marker = next(m for m in LAYOUT.markers if m.id == 3)
    seen = check_frame(frame, LAYOUT)
    corners = next(c for i, c in detect_markers(frame, LAYOUT) if i == marker.id)
    x0, y0 = corners.min(axis=0).astype(int) - 5
    x1, y1 = corners.max(axis=0).astype(int) + 5
    frame[y0:y1, x0:x1] = (40, 120, 40)  # a stack of chips on it
    covered = check_frame(frame, LAYOUT)
    assert seen.ok and seen.missing == []
    assert covered.ok and covered.found == [0, 1, 2, 4] and covered.missing == [3]
    assert covered.say[1].startswith("Marker 3 not found: covered, outside the picture")
    frame[:] = (40, 120, 40)  # the camera turned away from the layout
    blank = check_frame(frame, LAYOUT)
    assert not blank.ok and blank.error_px is None and "The table cannot be measured: 0 of the layout's 5 markers" in \
        " ".join(blank.say)


@pytest.mark.slow
def test_the_house_chosen_is_logged_and_dealt_by_at_the_next_start(served, tmp_path):
    client = Client(served.url)
    client.login()
    client.call("/api/setup/begin", {})
    status, houses = client.call("/api/setup/houses")
    assert status == 200, houses
    assert houses["in_use"] == "general" and "capitol" in [h["house"] for h in houses["houses"]]
    status, chosen = client.call("/api/setup/house", {"house": "capitol"})
    assert status == 200 and chosen["by"] == "supervisor 1042" and "from its next start" in chosen["say"]
    assert client.call("/api/setup/houses")[1]["chosen"] == "capitol"
    record = [r for r in records(served.log) if r["event"] == Events.HOUSE_CHOSEN][-1]
    assert record["data"]["house"] == "capitol" and record["who"] == "supervisor 1042"
    # the next start, as the service starts it (with the installer's --house)
    data = tmp_path / "data"
    shutil.copytree(served.data / "setup", data / "setup", ignore=shutil.ignore_patterns("faces", "deck*", "pictures"))
    with StartedRun([shutil.which("appliance"), "run", "--simulate", "--house", "general", "--data", str(data),
                     "--pace", "60"]) as run:
        assert run.printed["house"] == "capitol"
    (data / "setup" / "house.json").write_text("{not json")
    out = subprocess.run([shutil.which("appliance"), "run", "--simulate", "--data", str(data), "--port", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "house.json: not a house choice" in out.stderr and "Traceback" not in out.stderr
