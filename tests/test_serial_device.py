"""The serial driver against real ports: a pseudo-terminal simulator and pyserial's loop:// transport."""

import json
import shutil
import subprocess
import threading
import time

import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.devices.protocol import LineReader, frame
from appliance.devices.serial_device import DeviceKind, SerialSettings, StartSeatDevice, Status
from appliance.devices.simulator import DeviceSimulator, Faults


class Collector:
    def __init__(self):
        self.results, self.rejections, self.statuses = [], [], []
        self.changed = threading.Condition()

    def result(self, r):
        with self.changed:
            self.results.append(r)
            self.changed.notify_all()

    def reject(self, r):
        with self.changed:
            self.rejections.append(r)
            self.changed.notify_all()

    def status(self, s, why):
        with self.changed:
            self.statuses.append(s)
            self.changed.notify_all()

    def wait(self, predicate, timeout=5.0):
        with self.changed:
            assert self.changed.wait_for(predicate, timeout), "timed out"

    def device(self, settings, **kw):
        return StartSeatDevice(settings, self.result, self.reject, self.status, **kw)


def test_results_come_through_a_pseudo_terminal():
    c = Collector()
    with (DeviceSimulator(DeviceKind.DICE, heartbeat=0.2, seed=3) as sim,
          c.device(SerialSettings(DeviceKind.DICE, sim.path)) as dev):
        c.wait(lambda: Status.ONLINE in c.statuses)
        for _ in range(5):
            assert dev.roll()
            time.sleep(0.05)
        c.wait(lambda: len(c.results) == 5)
    sent = [line for line in sim.sent if line.startswith(b"D,")]
    assert [frame(f"D,{r.seq},{','.join(map(str, r.dice))}") for r in c.results] == sent
    assert all(3 <= r.total <= 18 for r in c.results)
    assert c.rejections == []


def _loop_device(c, kind=DeviceKind.RNG, **settings):
    ports = []

    def opener(url, **kw):
        ports.append(serial.serial_for_url(url, **kw))
        return ports[-1]

    dev = c.device(SerialSettings(kind, "loop://", **settings), opener=opener).start()
    deadline = time.monotonic() + 5
    while not ports and time.monotonic() < deadline:
        time.sleep(0.01)
    return dev, ports[0]


def test_every_kind_of_bad_input_is_rejected_and_never_becomes_a_value():
    c = Collector()
    dev, port = _loop_device(c)
    try:
        port.write(frame("R,1,4"))
        port.write(b"\x07\x00garbage noise\r\n")  # noise
        port.write(b"R,2,5*00\r\n")  # wrong checksum
        port.write(frame("R,3,9"))  # out of range
        port.write(frame("R,1,6"))  # repeated seq
        port.write(frame("D,4,1,2,3"))  # a shaker's message on the RNG port
        port.write(b"X" * 100 + b"\r\n")  # over-long
        port.write(frame("R,5,7"))
        c.wait(lambda: len(c.results) == 2 and len(c.rejections) == 6)
    finally:
        dev.stop()
    assert [(r.seq, r.value) for r in c.results] == [(1, 4), (5, 7)]
    reasons = [r.reason for r in c.rejections]
    assert reasons[0] == "not a framed message"
    assert reasons[1].startswith("checksum 00 does not match")
    assert reasons[2] == "value 9 out of range 1..7"
    assert reasons[3] == "repeated seq 1"
    assert reasons[4] == "a DiceResult on the rng port"
    assert reasons[5] == "line of 100 bytes is longer than 40"


def test_offline_after_silence_and_online_again():
    c = Collector()
    dev, port = _loop_device(c, offline_after=0.4)
    try:
        port.write(frame("H,1"))
        c.wait(lambda: c.statuses == [Status.ONLINE])
        c.wait(lambda: c.statuses == [Status.ONLINE, Status.OFFLINE])
        port.write(frame("H,2"))
        c.wait(lambda: c.statuses == [Status.ONLINE, Status.OFFLINE, Status.ONLINE])
    finally:
        dev.stop()


def test_unplugged_and_replugged_without_losing_a_message(tmp_path):
    c = Collector()
    link = str(tmp_path / "paigow-rng")
    with DeviceSimulator(DeviceKind.RNG, heartbeat=0.1, seed=5, link=link) as sim:
        settings = SerialSettings(DeviceKind.RNG, link, offline_after=1.0, reconnect_every=0.05)
        with c.device(settings):
            c.wait(lambda: Status.ONLINE in c.statuses)
            for _ in range(3):
                sim.send_result()
            c.wait(lambda: len(c.results) == 3)
            sim.unplug()
            c.wait(lambda: c.statuses[-1] is Status.OFFLINE)
            time.sleep(0.3)  # the driver keeps trying a path that is not there
            sim.replug()
            c.wait(lambda: c.statuses[-1] is Status.ONLINE)
            after = [sim.send_result() for _ in range(20)]
            c.wait(lambda: len(c.results) == 23)
    assert [frame(f"R,{r.seq},{r.value}") for r in c.results[3:]] == after
    assert c.statuses == [Status.ONLINE, Status.OFFLINE, Status.ONLINE]


def test_faults_from_the_simulator_are_all_caught():
    c = Collector()
    faults = Faults(bad_checksum=0.3, noise=0.3)
    with (DeviceSimulator(DeviceKind.RNG, heartbeat=10, seed=9, faults=faults) as sim,
          c.device(SerialSettings(DeviceKind.RNG, sim.path))):
        time.sleep(0.2)
        lines = [sim.send_result() for _ in range(200)]
        c.wait(lambda: len(c.results) + len(c.rejections) >= 200)
        time.sleep(0.2)
    assert 0 < len(c.results) < 200 and c.rejections
    for r in c.results:  # each accepted result was sent intact (noise may end in a line break before it)
        assert 1 <= r.value <= 7
        assert any(line.endswith(frame(f"R,{r.seq},{r.value}")) for line in lines)


def test_listen_against_simulate_end_to_end(tmp_path):
    appliance = shutil.which("appliance")
    link = str(tmp_path / "paigow-dice")
    with subprocess.Popen([appliance, "devices", "simulate", "dice", "--link", link, "--heartbeat", "0.2"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as sim:
        try:
            announced = json.loads(sim.stdout.readline())
            assert announced["link"] == link and announced["port"].startswith("/dev/pts/")
            out = subprocess.run([appliance, "devices", "listen", "dice", "--port", link, "--count", "3",
                                  "--roll-every", "0.2", "--timeout", "20"], capture_output=True, text=True, timeout=30)
        finally:
            sim.terminate()
            sim.wait(timeout=10)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 3
    for row in rows:
        assert row["device"] == "dice" and len(row["dice"]) == 3 and row["total"] == sum(row["dice"])
    assert '"status": "online"' in out.stderr


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(DeviceKind)),
       st.lists(st.binary(max_size=50) | st.sampled_from([b"\r\n", frame("R,1,7"), frame("D,2,6,6,1"), frame("H,3")]),
                max_size=40))
def test_the_driver_never_delivers_a_value_out_of_range(kind, chunks):
    c = Collector()
    device = c.device(SerialSettings(kind, "unused"))
    reader = LineReader()
    for chunk in chunks:
        for line in reader.feed(chunk):
            device.handle_line(line)
    for r in c.results:
        if kind is DeviceKind.RNG:
            assert 1 <= r.value <= 7
        else:
            assert all(1 <= d <= 6 for d in r.dice) and 3 <= r.total <= 18
