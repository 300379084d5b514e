"""The watchdog sees a hang: systemd is pinged only while the table, the camera reader, the device
reader and the web server each show progress. Each is hung for real (a lock held elsewhere, a camera
frame that never comes, a device callback that blocks, a web server whose one worker is taken) and
the pings stop; a serial write the port does not take fails in time, with the table's lock free."""

import os
import socket
import tempfile
import threading
import time

import pytest
import waitress.server
from test_station import table_at, table_config, wait_for

from appliance.config import load_devices, load_house
from appliance.devices.serial_device import DeviceKind, SerialSettings, StartSeatDevice
from appliance.devices.simulator import DeviceSimulator
from appliance.heartbeats import Heartbeats, Probe, http_probe
from appliance.service import start_watchdog
from appliance.station import Station
from appliance.table.dealer import Step
from appliance.table.live import LiveTable
from appliance.web.app import create_app

STALE = 1.0


class Pings:
    """systemd's end of $NOTIFY_SOCKET: the times of the WATCHDOG=1 pings received."""

    def __init__(self, monkeypatch):
        self.path = tempfile.mktemp(prefix="notify-", dir="/tmp")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.times: list[float] = []
        self.stop = threading.Event()
        monkeypatch.setenv("NOTIFY_SOCKET", self.path)
        monkeypatch.setenv("WATCHDOG_USEC", "100000")  # a ping every 0.05 s while healthy
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self):
        while not self.stop.is_set():
            try:
                if self.sock.recv(64) == b"WATCHDOG=1":
                    self.times.append(time.monotonic())
            except OSError:
                pass

    def within(self, seconds: float) -> int:
        """Pings received in the last ``seconds``."""
        now = time.monotonic()
        return sum(1 for t in self.times if now - t <= seconds)

    def close(self):
        self.stop.set()
        self.sock.close()
        os.unlink(self.path)


@pytest.fixture()
def pings(monkeypatch):
    p = Pings(monkeypatch)
    yield p
    p.close()


def watched(hearts: Heartbeats, pings: Pings) -> threading.Event:
    stop = threading.Event()
    start_watchdog(healthy=hearts.healthy, stop=stop)
    wait_for(lambda: pings.within(0.3) >= 3, 10)  # pinging while every thread beats
    return stop


def stops_pinging(pings: Pings, hearts: Heartbeats) -> None:
    wait_for(lambda: hearts.stale(), 20)  # a thread has gone quiet for longer than STALE
    time.sleep(0.5)
    assert pings.within(0.4) == 0


@pytest.fixture
def deck(synthetic_deck):
    return synthetic_deck("modern")


def station_at_a_table(tmp_path, rng_path, frames, deck):
    config = table_config(tmp_path, rng_path, frames, deck)
    (config / "devices.toml").write_text((config / "devices.toml").read_text().replace(
        "stale_after_s = 10.0", f"stale_after_s = {STALE}"))
    table, _ = table_at(tmp_path / "log")
    return Station(table, load_devices(config / "devices.toml"), simulate=False)


def test_a_held_table_lock_stops_the_pings(tmp_path, pings, deck):
    with DeviceSimulator(DeviceKind.RNG, seed=4) as rng:
        station = station_at_a_table(tmp_path, rng.path, tmp_path, deck).start()
        stop = watched(station.hearts, pings)
        try:
            blocker = threading.Thread(target=lambda: (station.table.lock.acquire(), time.sleep(STALE + 2),
                                                       station.table.lock.release()), daemon=True)
            blocker.start()
            stops_pinging(pings, station.hearts)
            assert "table" in station.hearts.stale()
            blocker.join()
            wait_for(lambda: pings.within(0.3) >= 3, 10)  # the lock is free again: the pings come back
        finally:
            stop.set()
            station.stop()


@pytest.mark.slow
def test_a_camera_frame_that_never_comes_stops_the_pings(tmp_path, pings, deck):
    frames = tmp_path / "frames"
    frames.mkdir()
    os.mkfifo(frames / "f1.png")  # a read of it blocks until something writes: a wedged camera
    with DeviceSimulator(DeviceKind.RNG, seed=4) as rng:
        station = station_at_a_table(tmp_path, rng.path, frames, deck).start()
        stop = watched(station.hearts, pings)
        try:
            station.loop.set_bets([{"seat": 2, "wager": "25"}])
            station.loop.press("next")
            wait_for(lambda: station.loop.step is Step.BANKER, 10)  # the camera is asked to look
            stops_pinging(pings, station.hearts)
            assert station.hearts.stale() == ["camera"]
        finally:
            stop.set()
            with open(frames / "f1.png", "wb"):
                pass  # the blocked read ends (an empty frame), so the camera's thread can stop
            station.stop()


def test_a_device_reader_that_blocks_stops_the_pings(pings):
    hearts = Heartbeats(STALE)
    release = threading.Event()
    with DeviceSimulator(DeviceKind.RNG, every=0.1, seed=4) as sim:
        device = StartSeatDevice(SerialSettings(DeviceKind.RNG, sim.path), on_result=lambda r: release.wait(30))
        device.on_beat = hearts.watch("device")
        stop = threading.Event()
        start_watchdog(healthy=hearts.healthy, stop=stop)
        with device:
            try:
                stops_pinging(pings, hearts)  # its first result blocks it (a lock held elsewhere)
                assert hearts.stale() == ["device"]
                release.set()
                wait_for(lambda: pings.within(0.3) >= 3, 10)
            finally:
                release.set()
                stop.set()


def test_a_web_server_whose_worker_is_stuck_stops_the_pings(pings):
    hearts = Heartbeats(STALE)
    live = LiveTable()
    server = waitress.server.create_server(create_app(live, load_house("general")), host="127.0.0.1", port=0,
                                           threads=1)
    threading.Thread(target=server.run, daemon=True).start()
    probe = Probe("web", http_probe(f"http://127.0.0.1:{server.effective_port}/healthz", 0.2), every=0.1)
    probe.on_beat = hearts.watch("web")
    with probe:
        stop = watched(hearts, pings)
        try:
            with live._lock:  # the live view's lock held elsewhere: a request for the state blocks on it
                stuck = socket.create_connection(("127.0.0.1", server.effective_port))
                stuck.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{server.effective_port}\r\n\r\n".encode())
                stops_pinging(pings, hearts)  # the only worker waits: /healthz is not answered
                assert hearts.stale() == ["web"]
            wait_for(lambda: pings.within(0.3) >= 3, 10)  # the lock is free: the worker and the pings are back
            stuck.close()
        finally:
            stop.set()
            time.sleep(0.2)
            for channel in list(server._map.values()):
                channel.close()
            server.close()


def test_a_roll_the_port_does_not_take_fails_in_time_with_the_table_free(tmp_path, deck):
    """Nobody reads the far end of the serial line: the write buffer fills and a write would block
    for ever. The ROLL fails within the write timeout, and meanwhile the table's lock is free."""
    master, slave = os.openpty()
    try:
        station = station_at_a_table(tmp_path, os.ttyname(slave), tmp_path, deck).start()
        try:
            device = next(w for w in station.workers if isinstance(w, StartSeatDevice))
            wait_for(lambda: device._port is not None, 10)
            device._port.write_timeout = 0.05
            while device.roll():  # fill the line until a write times out
                pass
            device._port.write_timeout = 1.0
            station.loop.set_bets([{"seat": 2, "wager": "25"}])
            took = {}

            def press():
                took["message"] = station.loop.press("next")

            presser = threading.Thread(target=press)
            presser.start()
            wait_for(lambda: station.loop.step is Step.START, 5)
            # the camera, the buttons and the supervisor are not kept waiting on the write
            assert station.table.lock.acquire(timeout=0.5)
            station.table.lock.release()
            presser.join(10)  # the write gives up after its write_timeout_s; the 10 s only stop a hang
            assert not presser.is_alive() and "not connected" in took["message"]
        finally:
            station.stop()
    finally:
        os.close(master)
        os.close(slave)
