"""The appliance assembled: the dealer's loop behind the real seams (a start-seat device on a
pseudo-terminal through the serial driver, the button panel on simulated pins, the camera reading
rendered frames with the real reader), in simulation and as configured for a table."""

import random
import shutil
import subprocess
import time
from decimal import Decimal
from importlib.util import find_spec
from pathlib import Path

import cv2
import pytest

from appliance.game.settlement import SeatWagers
from appliance.audit.log import AuditLog, records, verify
from appliance.audit.replay import replay
from appliance.config import load_devices, load_house, read_toml, shipped_config_dir
from appliance.devices.serial_device import DeviceKind
from appliance.devices.simulator import DeviceSimulator
from appliance.station import Station
from appliance.table.dealer import Step
from appliance.table.live import LiveTable
from appliance.table.round import Events
from appliance.table.supervisor import hash_pin
from appliance.table.table import Table
from appliance.vision.layout import load_layout
from appliance.vision.render import DESIGNS, Scene, render_table
from started_run import StartedRun

KEY = b"k" * 64
RULES = load_house("general")
BANKER = ["As", "Kd", "9c", "9s", "5h", "5d", "2c"]


def table_at(folder: Path) -> tuple[Table, LiveTable]:
    live = LiveTable()
    table = Table(RULES, read_toml(Path(RULES.source)), AuditLog(folder, KEY), {"1042": hash_pin("4821")},
                  listeners=[live])
    return table, live


def wait_for(condition, seconds=60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


# Two whole rounds rendered and read (half a minute of CPU): the table configured below
# (test_at_the_table_the_rail_buttons_the_rng_and_the_camera_drive_the_round) drives the same seams fast.
@pytest.mark.slow
def test_a_simulated_table_plays_through_the_device_the_buttons_and_the_reader(tmp_path):
    config = tmp_path / "devices.toml"
    config.write_text((shipped_config_dir() / "devices.toml").read_text()
                      .replace("width = 4608", "width = 2400").replace("height = 2592", "height = 1350")
                      .replace('layout = "layout.toml"', f'layout = "{shipped_config_dir() / "layout.toml"}"'))
    table, live = table_at(tmp_path / "log")
    station = Station(table, load_devices(config), simulate=True, render=True, seed=3, pace=0.05, rounds=2)
    station.start()
    try:
        wait_for(lambda: sum(r["event"] == Events.ROUND_SETTLED for r in records(tmp_path / "log")) == 2, 240)
    finally:
        station.stop()
    log = records(tmp_path / "log")
    opened = [r for r in log if r["event"] == Events.ROUND_OPENED]
    assert [r["who"] for r in opened] == ["dealer (button)"] * 2  # pressed on the (simulated) rail
    starts = [r for r in log if r["event"] == Events.START_SEAT]
    assert all(r["data"]["source"] == "simulated-rng" and r["who"] == "device" for r in starts)
    assert any(r["event"] == Events.DEVICE_STATUS and r["data"]["status"] == "online" for r in log)
    banker = [r for r in log if r["event"] == Events.BANKER_CARDS]
    assert all(len(r["data"]["images"]) == 1 and len(r["data"]["read"]) == 7 for r in banker)
    # every card the reader could not name was named by the dealer, never by the appliance
    for r in log:
        if r["event"] in (Events.BANKER_CARDS, Events.SEAT_CARDS):
            named = [c for c in (r["data"].get("cards") or r["data"]["front"] + r["data"]["back"])]
            for read, card in zip(r["data"]["read"], named):
                assert read["card"] in (None, card)
    assert verify(tmp_path / "log", KEY).ok and replay(tmp_path / "log", KEY)["differences"] == []
    assert live.snapshot()["phase"] == "settled"


def table_config(tmp_path: Path, port: str, frames: Path, deck: Path) -> Path:
    text = (shipped_config_dir() / "devices.toml").read_text()
    for old, new in [('source = "simulated"', 'source = "rng"'), ('port = "/dev/paigow-rng"', f'port = "{port}"'),
                     ('source = "synthetic"', 'source = "folder"'), ('device = "0"', f'device = "{frames}"'),
                     ('layout = "layout.toml"', f'layout = "{shipped_config_dir() / "layout.toml"}"'),
                     ('deck = "deck"', f'deck = "{deck}"')]:
        assert old in text
        text = text.replace(old, new, 1)
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "devices.toml").write_text(text)
    return config


@pytest.mark.slow
def test_at_the_table_the_rail_buttons_the_rng_and_the_camera_drive_the_round(tmp_path, synthetic_deck):
    """Configured for a table: a serial RNG (here on a pseudo-terminal), the rail's buttons, and a camera
    (here frames in a folder: the banker's hand rendered in a new deck design, read by the real reader)."""
    layout = load_layout(shipped_config_dir() / "layout.toml")
    frames = tmp_path / "frames"
    frames.mkdir()
    scene = Scene.random(random.Random(11), layout, size=(3200, 1800))
    cv2.imwrite(str(frames / "f1.png"), render_table(layout, {"banker": BANKER}, DESIGNS["modern"], scene, 1).image)
    with DeviceSimulator(DeviceKind.RNG, seed=4) as rng:
        config = table_config(tmp_path, rng.path, frames, synthetic_deck("modern"))
        table, live = table_at(tmp_path / "log")
        devices = load_devices(config / "devices.toml")
        station = Station(table, devices, simulate=False)
        station.start()
        try:
            station.loop.set_bets([{"seat": 2, "wager": "25"}])
            pins = station.panel.pins
            pin = devices.panel.buttons["next"]
            pins.drive(pin, False)
            wait_for(lambda: station.loop.step is not Step.IDLE, 10)
            pins.drive(pin, True)
            wait_for(lambda: station.loop.step is Step.BANKER, 10)  # the RNG answered the ROLL
            wait_for(lambda: "banker" in station.loop.prompt()["zones"], 60)
            zone = station.loop.prompt()["zones"]["banker"]
            for position in zone["unreadable"]:
                station.loop.name_card("banker", position, BANKER[position])
            assert sorted(c for c in station.loop.prompt()["zones"]["banker"]["cards"]) == sorted(BANKER)
            station.loop.press("confirm", "dealer (screen)")
            assert station.loop.step is Step.SEATS, station.loop.message
            assert station.camera.source is not None
        finally:
            station.stop()
        assert station.camera.source is None  # the camera was closed, not left to the process's end
    log = records(tmp_path / "log")
    start = next(r for r in log if r["event"] == Events.START_SEAT)
    assert start["data"]["source"] == "rng" and start["data"]["seq"] is not None
    banker = next(r for r in log if r["event"] == Events.BANKER_CARDS)
    assert sorted(banker["data"]["cards"]) == sorted(BANKER) and len(banker["data"]["images"]) == 1
    assert (tmp_path / "log" / "images" / banker["data"]["images"][0][:2]).is_dir()


def test_after_a_power_cut_the_table_waits_for_a_supervisor(tmp_path, synthetic_deck):
    with DeviceSimulator(DeviceKind.RNG, seed=4) as rng:
        config = table_config(tmp_path, rng.path, tmp_path, synthetic_deck("modern"))
        table, _ = table_at(tmp_path / "log")
        table.new_round("2026-01-01-0001").open("dealer", [SeatWagers(2, Decimal("25"))])
        # the appliance restarts with the round open
        table, live = table_at(tmp_path / "log")
        station = Station(table, load_devices(config / "devices.toml"), simulate=False)
        assert station.loop.step is Step.HELD and "interrupted" in live.snapshot()["held"]
        table.void("2026-01-01-0001", "1042", "4821", "power cut")
        assert station.loop.step is Step.IDLE and live.snapshot()["held"] is None


@pytest.mark.parametrize("change, args, message", [
    (lambda cfg: cfg.replace('port = "PORT"', 'port = "/dev/no-such-rng"'), [],
     "devices.toml: serial.rng.port: /dev/no-such-rng: no such device"),
    (lambda cfg: cfg.replace('deck = "DECK"', 'deck = "/nonexistent/deck"'), [],
     "/nonexistent/deck/deck.json: no deck here"),
    (lambda cfg: cfg.replace("[camera]", "[camera"), [], "devices.toml: Expected ']'"),
    (lambda cfg: cfg, ["--house", "bellagio"], "unknown house 'bellagio'"),
    pytest.param(lambda cfg: cfg.replace('backend = "simulated"', 'backend = "rpi-gpio"'), [],
                 'devices.toml: gpio.backend: "rpi-gpio" cannot open the pins: No module named \'RPi\'',
                 marks=pytest.mark.skipif(find_spec("RPi") is not None, reason="RPi.GPIO is installed here")),
])
@pytest.mark.slow
def test_configuration_errors_stop_start_up_with_one_line(tmp_path, change, args, message):
    text = (shipped_config_dir() / "devices.toml").read_text()
    for old, new in [('source = "simulated"', 'source = "rng"'), ('port = "/dev/paigow-rng"', 'port = "PORT"'),
                     ('source = "synthetic"', 'source = "folder"'), ('deck = "deck"', 'deck = "DECK"')]:
        text = text.replace(old, new, 1)
    with DeviceSimulator(DeviceKind.RNG) as rng:
        text = change(text).replace('"PORT"', f'"{rng.path}"').replace('"DECK"', '"/nonexistent/deck"')
        (tmp_path / "devices.toml").write_text(text)
        shutil.copy(shipped_config_dir() / "layout.toml", tmp_path)
        (tmp_path / "audit.key").write_bytes(b"x" * 64)
        out = subprocess.run([shutil.which("appliance"), "run", "--config", str(tmp_path), "--data", str(tmp_path / "d"),
                              "--port", "0", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.slow
def test_the_bank_rotation_goes_on_across_a_real_restart(tmp_path):
    """Capitol: "No player is allowed to bank for more than two consecutive hands"; rule 23: "If no wager
    was placed on the prior hand, no one will be Player/Dealer on that spot." Both look back at rounds
    before a restart: `appliance run` is stopped and started again on the same data, and the first
    rounds after it are checked against (and log) the rounds settled before it."""
    import json
    import urllib.request

    from appliance.game.banking import BankRound, bank_refusal, history_needed

    data, rules = tmp_path / "data", load_house("capitol")
    for last in (3, 6):  # three rounds, a restart, three more
        with StartedRun([shutil.which("appliance"), "run", "--simulate", "--house", "capitol", "--rounds", "3",
                         "--keep-serving", "--pace", "0.05", "--data", str(data)]) as run:
            seen = {}

            def settled() -> bool:
                run.check()
                try:
                    with urllib.request.urlopen(f"{run.address}api/state", timeout=2) as r:
                        seen.update(json.loads(r.read()))
                except OSError:
                    return False
                return seen["phase"] == "settled" and (seen["round"] or "").endswith(f"-{last:04d}")
            try:
                wait_for(settled, 180)
            except AssertionError as timeout:  # say where the table stood, and what the run said
                raise AssertionError(f"round {last} not settled: {seen.get('phase')} {seen.get('round')}; "
                                     f"{run.said()[-3000:]}") from timeout
    history, checked = [], []
    for record in records(data / "audit"):
        if record["event"] == Events.ROUND_OPENED and record["data"]["banker"] != "dealer":
            banker = record["data"]["banker"]
            assert bank_refusal(banker, history, rules.banking) is None, (record["data"]["round"], history)
            logged = [BankRound(r["banker"], frozenset(r["wagered"])) for r in record["data"]["previous_rounds"]]
            assert logged == history_needed(history, rules.banking)
            checked.append((record["data"]["round"], len(logged)))
            bets = [b["seat"] for b in record["data"]["bets"]]
        elif record["event"] == Events.ROUND_SETTLED:
            history.append(BankRound.played(banker, bets))
    assert len(checked) == 6
    assert checked[3][1] == 2  # the first round after the restart looked at the two settled before it


@pytest.mark.slow
def test_the_bank_offered_from_the_rail_on_the_stations_own_panel(tmp_path, synthetic_deck):
    """General rules: "The house usually offers the bank to each seat in rotation". The station's own panel
    thread on simulated pins, as configured for a table: CONFIRM between rounds offers the bank to seat 2
    (the first seat in play), the ready lamp flashes, NEXT passes it to seat 3, CONFIRM gives it to seat 3:
    each step logged as the rail's, and seat 3's wager becomes its bank."""
    with DeviceSimulator(DeviceKind.RNG, seed=4) as rng:
        config = table_config(tmp_path, rng.path, tmp_path, synthetic_deck("modern"))
        table, _ = table_at(tmp_path / "log")
        devices = load_devices(config / "devices.toml")
        station = Station(table, devices, simulate=False)
        station.start()
        pins, buttons = station.panel.pins, devices.panel.buttons

        def press(name):
            seen = len([r for r in records(tmp_path / "log")])
            pins.drive(buttons[name], False)
            wait_for(lambda: len(records(tmp_path / "log")) > seen, 10)
            pins.drive(buttons[name], True)
            time.sleep(devices.panel.debounce * 3)

        try:
            station.loop.set_bets([{"seat": 2, "wager": "25"}, {"seat": 3, "wager": "40"}])
            press("confirm")
            assert station.loop.step is Step.BANK and station.loop.wagers.walk.asked == 2
            levels = []
            for _ in range(150):  # 3 s of the lamp, as the dealer sees it
                levels.append(station.panel.lamp_is_on("ready"))
                time.sleep(0.02)
            assert sum(1 for a, b in zip(levels, levels[1:]) if b and not a) >= 2  # flashing, not steady
            press("next")
            assert station.loop.wagers.walk.asked == 3
            press("confirm")
            wait_for(lambda: station.loop.step is Step.IDLE, 10)
            assert station.loop.wagers.banker == 3 and station.loop.wagers.banker_wager == Decimal("40")
            assert station.loop.wagers.bets == [SeatWagers(2, Decimal("25"))]
            time.sleep(0.2)
            assert station.panel.lamp_is_on("ready")  # steady again: NEXT opens the round
        finally:
            station.stop()
    steps = [(r["event"], r["who"]) for r in records(tmp_path / "log")
             if r["event"] in (Events.BANK_OFFERED, Events.BANK_PASSED, Events.BANK_TAKEN)]
    assert steps == [(Events.BANK_OFFERED, "dealer (button)"), (Events.BANK_PASSED, "dealer (button)"),
                     (Events.BANK_OFFERED, "dealer (button)"), (Events.BANK_TAKEN, "dealer (button)")]
