"""An appliance as a technician meets it on the setup screen, served for real: a start-seat RNG on a
pseudo-terminal through the serial driver, the rail's buttons and lamps on simulated pins, the
simulated camera rendering the layout (the hand that lays cards before it is the simulation's),
the real reader, and the dashboard on waitress behind the front. Supervisor 1042, PIN 4821."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from served import dashboard_serving

from appliance.audit.log import AuditLog
from appliance.config import load_devices, load_house, read_toml, shipped_config_dir
from appliance.devices.serial_device import DeviceKind
from appliance.devices.simulator import DeviceSimulator
from appliance.setup.rig import SetupRig
from appliance.station import Station
from appliance.table.live import LiveTable
from appliance.table.supervisor import hash_pin
from appliance.table.table import Table
from appliance.web.app import create_app

KEY = b"s" * 64
RULES = load_house("general")


@dataclass
class SetupTable:
    url: str
    station: Station
    rig: SetupRig
    rng: DeviceSimulator
    log: Path
    data: Path


def devices_toml(folder: Path, port: str, size: tuple[int, int]) -> Path:
    text = (shipped_config_dir() / "devices.toml").read_text()
    for old, new in [('source = "simulated"', 'source = "rng"'), ('port = "/dev/paigow-rng"', f'port = "{port}"'),
                     ("width = 4608", f"width = {size[0]}"), ("height = 2592", f"height = {size[1]}"),
                     ('layout = "layout.toml"', f'layout = "{shipped_config_dir() / "layout.toml"}"')]:
        assert old in text
        text = text.replace(old, new, 1)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "devices.toml").write_text(text)
    return folder / "devices.toml"


@contextlib.contextmanager
def setup_table(tmp_path: Path, size: tuple[int, int] = (4608, 2592), lay=None):
    """The appliance served; ``lay(real_lay)`` may stand in for the simulation's hand (a technician who
    lays the wrong card)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    with DeviceSimulator(DeviceKind.RNG, seed=4, link=str(tmp_path / "paigow-rng")) as rng:  # a udev-like name
        live = LiveTable()
        table = Table(RULES, read_toml(Path(RULES.source)), AuditLog(tmp_path / "log", KEY), {"1042": hash_pin("4821")},
                      listeners=[live])
        station = Station(table, load_devices(devices_toml(tmp_path / "config", rng.name, size)), simulate=False)
        if lay is not None:
            station.lay = lay(station.lay)
        rig = SetupRig.of(station, tmp_path / "data", None, RULES.key)
        station.start()
        try:
            with dashboard_serving(lambda site: create_app(live, RULES, table, dealer=station.loop, site=site,
                                                           setup=rig), live) as url:
                yield SetupTable(url, station, rig, rng, tmp_path / "log", tmp_path / "data")
        finally:
            station.stop()


class Client:
    """A browser's session with the dashboard, without the browser: a cookie jar and the CSRF token."""

    def __init__(self, url: str):
        self.url, self.csrf = url, None
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, path: str, body=None, csrf: bool = True, raw: bytes | None = None) -> tuple[int, dict | bytes]:
        headers = {"Content-Type": "application/json"}
        if csrf and self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers=headers,
                                         method="GET" if data is None else "POST")
        try:
            with self.opener.open(request, timeout=120) as answer:
                status, payload, kind = answer.status, answer.read(), answer.headers.get_content_type()
        except urllib.error.HTTPError as err:
            status, payload, kind = err.code, err.read(), err.headers.get_content_type()
        return status, json.loads(payload) if kind == "application/json" else payload

    def login(self, supervisor: str = "1042", pin: str = "4821") -> None:
        status, answer = self.call("/login", {"supervisor": supervisor, "pin": pin})
        assert status == 200, answer
        self.csrf = answer["csrf"]


def wait_for(condition, seconds: float = 30.0, what: str = "the condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
