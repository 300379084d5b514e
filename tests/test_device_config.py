import pytest

from appliance.config import DeviceConfigError, load_devices, shipped_config_dir
from appliance.devices.serial_device import DeviceKind


def test_the_shipped_devices_file():
    cfg = load_devices()
    assert cfg.start_source == "simulated" and cfg.gpio_backend == "simulated"
    assert cfg.serial[DeviceKind.RNG].port == "/dev/paigow-rng" and cfg.serial[DeviceKind.DICE].baudrate == 9600
    assert cfg.panel.buttons == {"next": 17, "confirm": 27, "supervisor": 22}
    assert cfg.panel.debounce == 0.03
    assert cfg.camera.source == "synthetic" and (cfg.camera.width, cfg.camera.height) == (4608, 2592)
    assert cfg.vision.layout == shipped_config_dir() / "layout.toml" and cfg.vision.layout.is_file()
    assert cfg.vision.stable_frames == 3


@pytest.mark.parametrize("old, new, message", [
    ("next = 17", "next = 24", "gpio.buttons: two buttons or lamps share a pin"),
    ("next = 17", "nxt = 17", "gpio.buttons.next: missing value"),
    ('backend = "simulated"', 'backend = "pigpio"', "gpio.backend: expected one of simulated, rpi-gpio"),
    ("baudrate = 9600", 'baudrate = "fast"', "serial.rng.baudrate: expected a whole number"),
    ('source = "simulated"', 'source = "coin"', "start_seat.source: expected one of"),
    ('source = "synthetic"', 'source = "webcam"', "camera.source: expected one of picamera2, v4l2, folder"),
    ("stable_frames = 3", "stable_frames = 0", "vision.stable_frames"),
])
def test_errors_name_file_and_key(tmp_path, old, new, message):
    path = tmp_path / "devices.toml"
    path.write_text((shipped_config_dir() / "devices.toml").read_text().replace(old, new, 1))
    with pytest.raises(DeviceConfigError, match=message):
        load_devices(path)
