"""The one configuration loader: finds the shipped ``config/`` and reads its TOML files.

The shipped configuration is installed inside the package (``appliance/_config``)
and, in a source checkout, is the repository's ``config/``; a ``--config DIR``
given by the operator takes precedence over both.
"""

from __future__ import annotations

import importlib.resources
import logging
import tomllib
from collections.abc import Callable
from pathlib import Path

from dataclasses import dataclass

from .devices.gpio import BACKENDS, BUTTONS, LAMPS, PanelPins
from .devices.serial_device import DeviceKind, SerialSettings
from .game.house_ways.chart import ChartError
from .game.rules import HouseRules, HouseRulesError, UnknownHouseError
from .game.schema import SchemaError, Section

DEFAULT_HOUSE = "general"


def shipped_config_dir() -> Path:
    """The configuration that ships with the package."""
    installed = Path(str(importlib.resources.files("appliance"))) / "_config"
    if (installed / "houses").is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "config"


def read_toml(path: Path) -> dict:
    """Parse one TOML file; a syntax error names the file and line."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise HouseRulesError(f"{path}: {err}") from None


def read_chart(path: Path) -> dict:
    """Parse a house way chart file; a missing file or a syntax error names the file (and the line)."""
    path = Path(path)
    if not path.is_file():
        raise ChartError(f"{path}: no such chart file")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise ChartError(f"{path}: not TOML: {err}") from None


def chart_file(name: str, config_dir: Path | None = None) -> Path:
    """The shipped chart of a house way module's name (``trump-plaza`` -> ``house_ways/trump-plaza.toml``)."""
    return (config_dir or shipped_config_dir()) / "house_ways" / f"{name}.toml"


def read_house(path: Path) -> dict:
    """Parse a house file. Where its house way names a chart file (``house_way = "../house_ways/x.toml"``,
    relative to the house file), the chart is read into the mapping as ``house.house_way_chart``: the
    mapping is then the whole of the house's rules, as recorded with every round and replayed."""
    data = read_toml(path)
    house = data.get("house")
    if not isinstance(house, dict):
        return data  # (what is wrong with it is said where the rules are read from it)
    way = house.get("house_way")
    if isinstance(way, str) and way.endswith(".toml") and "house_way_chart" not in house:
        try:
            chart = read_chart(Path(path).parent / way)
        except ChartError as err:
            raise HouseRulesError(f"{path}: house.house_way: {err}") from None
        data["house"] = {**house, "house_way_chart": chart}
    return data


def house_files(config_dir: Path | None = None) -> dict[str, Path]:
    """House key (file stem) -> rules file."""
    folder = (config_dir or shipped_config_dir()) / "houses"
    return {path.stem: path for path in sorted(folder.glob("*.toml"))}


def load_house(name: str = DEFAULT_HOUSE, config_dir: Path | None = None) -> HouseRules:
    """A house by file stem (``capitol``) or by its name (``Capitol Casino``), or a path to a file."""
    candidate = Path(name)
    if candidate.suffix == ".toml" and candidate.is_file():
        return HouseRules.from_mapping(read_house(candidate), str(candidate), candidate.stem)
    files = house_files(config_dir)
    wanted = name.strip().lower()
    for key, path in files.items():
        if wanted == key:
            return HouseRules.from_mapping(read_house(path), str(path), key)
    for key, path in files.items():
        rules = HouseRules.from_mapping(read_house(path), str(path), key)
        if rules.name.lower() == wanted:
            return rules
    raise UnknownHouseError(f"unknown house {name!r}: expected one of {', '.join(files) or '(none installed)'}")


def load_all_houses(config_dir: Path | None = None) -> dict[str, HouseRules]:
    return {
        key: HouseRules.from_mapping(read_house(path), str(path), key)
        for key, path in house_files(config_dir).items()
    }


START_SOURCES = ("rng", "dice", "builtin", "simulated")
CAMERA_SOURCES = ("picamera2", "v4l2", "folder", "synthetic")


class DeviceConfigError(SchemaError):
    """A devices file that is incomplete or mistyped."""


@dataclass(frozen=True)
class CameraConfig:
    source: str
    device: str
    width: int
    height: int
    stall_after: float


@dataclass(frozen=True)
class VisionConfig:
    layout: Path
    deck: Path
    stable_frames: int


@dataclass(frozen=True)
class FloorConfig:
    url: str
    credentials: Path


@dataclass(frozen=True)
class DeviceConfig:
    start_source: str
    serial: dict[DeviceKind, SerialSettings]
    health_window: int
    health_alpha: float
    gpio_backend: str
    panel: PanelPins
    camera: CameraConfig
    vision: VisionConfig
    source: str
    warn_free_mb: float = 100  # free space on the audit disk below which the screens warn
    refuse_free_mb: float = 20  # ... and below which no new round is opened
    floor: FloorConfig | None = None  # where this table ships its records (docs/floor.md)
    stale_after: float = 10.0  # seconds without progress from a watched thread before the watchdog stops


def load_devices(path: Path | None = None) -> DeviceConfig:
    """``config/devices.toml`` (or the given file), validated."""
    path = path or shipped_config_dir() / "devices.toml"
    top = Section(read_toml(path), str(path), error=DeviceConfigError)
    start = top.table("start_seat")
    source = start.one_of("source", START_SOURCES)
    start.done()
    serial_t = top.table("serial")
    ports = {}
    for kind in DeviceKind:
        t = serial_t.table(kind.value)
        ports[kind] = SerialSettings(
            kind, t.string("port"), baudrate=t.integer("baudrate", 300, 115200),
            offline_after=t.number("offline_after_s", 0.1, 60), reconnect_every=t.number("reconnect_every_s", 0.01, 60),
            write_timeout=t.number("write_timeout_s", 0.01, 10, default=1.0),
        )
        t.done()
    serial_t.done()
    health = top.table("health")
    window, alpha = health.integer("window", 35, 1_000_000), health.number("alpha", 1e-9, 0.5)
    health.done()
    gpio = top.table("gpio")
    backend = gpio.one_of("backend", BACKENDS)
    pins = {}
    for group, names in (("buttons", BUTTONS), ("lamps", LAMPS)):
        t = gpio.table(group)
        pins[group] = {name: t.integer(name, 0, 27) for name in names}
        t.done()
    used = list(pins["buttons"].values()) + list(pins["lamps"].values())
    if len(set(used)) != len(used):
        raise gpio.error("buttons", "two buttons or lamps share a pin")
    panel = PanelPins(pins["buttons"], pins["lamps"], debounce=gpio.integer("debounce_ms", 1, 500) / 1000,
                      sample_every=gpio.integer("sample_ms", 1, 100) / 1000)
    gpio.done()
    cam = top.table("camera")
    camera_source = cam.one_of("source", CAMERA_SOURCES)
    camera = CameraConfig(camera_source, cam.string("device"), cam.integer("width", 320, 10000),
                          cam.integer("height", 240, 10000), cam.number("stall_after_s", 0.1, 60))
    cam.done()
    vis = top.table("vision")
    vision = VisionConfig(path.parent / vis.string("layout"), path.parent / vis.string("deck"),
                          vis.integer("stable_frames", 1, 30))
    vis.done()
    audit = top.table("audit", optional=True)
    warn, refuse = (100, 20) if audit is None else (audit.number("warn_free_mb", 0, 1e6, 100),
                                                    audit.number("refuse_free_mb", 0, 1e6, 20))
    if audit is not None:
        if refuse > warn:
            raise audit.error("refuse_free_mb", f"{refuse:g} is above warn_free_mb ({warn:g})")
        audit.done()
    floor = None
    floor_t = top.table("floor", optional=True)
    if floor_t is not None:
        floor = FloorConfig(floor_t.string("url"), path.parent / floor_t.string("credentials"))
        floor_t.done()
    watchdog = top.table("watchdog", optional=True)
    stale_after = watchdog.number("stale_after_s", 0.5, 120, default=10.0) if watchdog else 10.0
    if watchdog:
        watchdog.done()
    top.done()
    return DeviceConfig(source, ports, window, alpha, backend, panel, camera, vision, str(path), warn, refuse, floor,
                        stale_after)


SUPERVISORS_HEADER = """# Supervisors allowed to correct, void and settle disputes: id = the salted hash of the PIN.
# Written by `appliance supervisor add ID --config DIR`; a PIN is never stored in clear.
"""


def load_supervisors(config_dir: Path | None) -> dict[str, str]:
    """``supervisors.toml`` in the configuration folder (none: no supervisor can log in)."""
    path = (config_dir or shipped_config_dir()) / "supervisors.toml"
    if not path.exists():
        return {}
    top = Section(read_toml(path), str(path), error=DeviceConfigError)
    group = top.table("supervisors")
    hashes = {}
    for who, _ in group.items():
        stored = group.string(who)
        if not stored.startswith("pbkdf2_sha256$"):
            raise group.error(who, "not a PIN hash: store PINs with appliance supervisor add, never in clear")
        hashes[who] = stored
    group.done()
    top.done()
    return hashes


def supervisors_as_saved(config_dir: Path | None) -> Callable[[], dict[str, str]]:
    """The supervisors as ``supervisors.toml`` holds them now: read again whenever the file changes, so
    that a PIN changed with ``appliance supervisor add`` ends that supervisor's sessions at once. A file
    that became unreadable keeps the last good list (and is reported once)."""
    path = (config_dir or shipped_config_dir()) / "supervisors.toml"
    seen: dict = {"stamp": (), "hashes": {}}

    def current() -> dict[str, str]:
        try:
            stat = path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp != seen["stamp"]:
            try:
                seen["hashes"] = load_supervisors(config_dir)
            except DeviceConfigError as err:
                logging.getLogger(__name__).error("supervisors not reloaded: %s", err)
            seen["stamp"] = stamp
        return seen["hashes"]

    current()
    return current


def save_supervisors(config_dir: Path, hashes: dict[str, str]) -> Path:
    """Write the supervisors file whole (readable by the service's group only)."""
    import json
    import os

    path = config_dir / "supervisors.toml"
    body = SUPERVISORS_HEADER + "[supervisors]\n" + "".join(f"{json.dumps(who)} = {json.dumps(h)}\n"
                                                              for who, h in sorted(hashes.items()))
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "w") as handle:
        handle.write(body)
    os.replace(tmp, path)
    return path
