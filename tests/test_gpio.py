import subprocess
import sys

from appliance.devices.gpio import BACKENDS, Flashing, Panel, PanelPins, SimulatedPins

LAYOUT = PanelPins(buttons={"next": 17, "confirm": 27, "supervisor": 22}, lamps={"attention": 23, "ready": 24},
                   debounce=0.03)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_bouncing_press_is_one_event():
    pins, clock, presses = SimulatedPins(), Clock(), []
    panel = Panel(pins, LAYOUT, presses.append, clock)
    # contact bounce for 12 ms, then held for 50 ms, then released with bounce
    for t, level in [(0.000, False), (0.004, True), (0.008, False), (0.012, True), (0.016, False)]:
        clock.now = t
        pins.drive(17, level)
        panel.sample()
    for step in range(1, 11):
        clock.now = 0.016 + step * 0.005
        panel.sample()
    assert presses == ["next"]
    for t, level in [(0.07, True), (0.072, False), (0.075, True)]:
        clock.now = t
        pins.drive(17, level)
        panel.sample()
    for step in range(1, 11):
        clock.now = 0.075 + step * 0.005
        panel.sample()
    assert presses == ["next"]  # the release is no press


def test_a_glitch_shorter_than_the_debounce_is_ignored():
    pins, clock, presses = SimulatedPins(), Clock(), []
    panel = Panel(pins, LAYOUT, presses.append, clock)
    pins.drive(22, False)
    clock.now = 0.001
    panel.sample()
    clock.now = 0.02
    panel.sample()
    pins.drive(22, True)
    clock.now = 0.025
    panel.sample()
    clock.now = 0.2
    panel.sample()
    assert presses == []


def test_lamps_follow_the_appliance():
    pins = SimulatedPins()
    panel = Panel(pins, LAYOUT, lambda name: None)
    panel.lamp("attention", True)
    panel.lamp("ready", True)
    panel.lamp("attention", False)
    assert pins.history[23] == [True, False] and pins.history[24] == [True]


def test_the_simulated_backend_never_imports_rpi_gpio():
    code = ("import sys; from appliance.devices.gpio import BACKENDS, Panel, PanelPins; "
            "Panel(BACKENDS['simulated'](), PanelPins({'next': 17}, {'ready': 24}), print); "
            "import appliance.cli; print('RPi' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
    assert set(BACKENDS) == {"simulated", "rpi-gpio"}


def test_a_flashing_lamp_says_a_number_and_yields_to_a_lamp_test_and_to_a_steady_lamp():
    """The ready lamp flashes the seat the bank is offered to: three flashes, a pause, three again."""
    pins, clock = SimulatedPins(), Clock()
    panel = Panel(pins, LAYOUT, lambda name: None, clock)
    panel.lamp("ready", Flashing(3))
    levels = []
    for _ in range(int(2 * (3 * 0.6 + 1.2) / 0.005)):  # two cycles, sampled as the panel's thread does
        clock.now += 0.005
        panel.sample()
        levels.append(panel.lamp_is_on("ready"))
    lit_at = [i for i in range(1, len(levels)) if levels[i] and not levels[i - 1]]
    assert len(lit_at) == 5  # 3 + 3, the first lit at once
    assert pins.history[24][0] is True
    written = len(pins.history[24])
    panel.lamp("ready", Flashing(3))  # the same number asked again does not restart the rhythm
    assert len(pins.history[24]) == written
    panel.test_lamp("ready", False)  # a technician's test holds it dark
    for _ in range(400):
        clock.now += 0.005
        panel.sample()
    assert not panel.lamp_is_on("ready")
    panel.test_lamp("ready", None)
    panel.lamp("ready", True)
    for _ in range(400):
        clock.now += 0.005
        panel.sample()
    assert panel.lamp_is_on("ready") and pins.history[24][-1] is True
