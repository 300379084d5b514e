"""The running appliance put together from its configuration and ``appliance run``'s arguments.

The composition root: each step below builds one part from the parts before it, in the order the
appliance starts (the configuration read and checked first; nothing written before the data folder
is held; a demonstration's PIN shown only once its log and key exist). The command line only parses,
calls :func:`assemble` and :func:`serve_until_stopped`, and turns a refusal into its one-line error.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import secrets
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .arguments import UsageError
from .audit.checkpoint import StartupCheck, check_at_startup
from .audit.gaming_day import GamingDay
from .audit.history_index import Index, index_key, open_checked
from .audit.keys import ENV as KEY_ENV
from .audit.keys import key_path
from .audit.log import AuditLog
from .audit.writer_lock import hold_for_writing
from .config import DEFAULT_HOUSE, DeviceConfig, load_devices, load_house, read_house, supervisors_as_saved
from .floor.commands import may_make_key, shipping
from .game.rules import HouseRules
from .heartbeats import Probe, http_probe
from .service import notify, start_watchdog
from .setup.rig import SetupRig, chosen_house, taught_deck
from .station import Station
from .table.live import LiveTable
from .table.recording import IndexFeed, index_reason
from .table.round import Events
from .table.supervisor import new_pin
from .table.table import Table
from .web.app import create_app
from .web.front import TlsFiles
from .web.serving import Dashboard, serve_dashboard
from .web.site_guard import check_bind

if TYPE_CHECKING:  # the shipper's own module, and the PostgreSQL client under it, only with a floor
    from .floor.shipper import Shipper


@dataclass(frozen=True)
class Settings:
    """What the configuration and the arguments decide, before anything is written."""

    config_dir: Path | None
    tls: TlsFiles | None
    data: Path
    rules: HouseRules
    house_notice: str | None
    devices: DeviceConfig
    simulate: bool
    supervisors: Callable[[], dict[str, str]]
    demo_pin: str | None
    key_file: Path
    key_beside_data: bool
    make_key: bool


@dataclass(frozen=True)
class Recording:
    """The audit log opened on the data folder, with its key, its floor shipper and its start-up check."""

    key: bytes
    rules_mapping: dict
    audit: AuditLog
    shipper: Shipper | None
    check: StartupCheck


@dataclass(frozen=True)
class TableParts:
    """The table and what it records to besides the log: the live view, and the history index with its feed."""

    table: Table
    live: LiveTable
    index: Index
    feed: IndexFeed


@dataclass(frozen=True)
class Appliance:
    """Every part of a started appliance but its threads, which :func:`serve_until_stopped` runs."""

    settings: Settings
    recording: Recording
    table: Table
    station: Station
    dashboard: Dashboard


def assemble(args: argparse.Namespace) -> Appliance:
    """The appliance built and its dashboard served (the threads not yet started); a refusal is a
    UsageError (a ValueError) or an OSError, which the command line reports on one line."""
    settings = read_settings(args)
    hold_data_folder(settings.data)
    recording = open_recording(args, settings)
    parts = open_table(settings, recording)
    station = build_station(args, settings, parts)
    hold_for_findings(parts.table, recording)
    dashboard = serve_the_dashboard(args, settings, recording, parts, station)
    appliance = Appliance(settings, recording, parts.table, station, dashboard)
    announce(args, appliance)
    watch_the_dashboard(args, appliance)
    return appliance


def read_settings(args: argparse.Namespace) -> Settings:
    """The configuration read and checked against the arguments; nothing is written yet."""
    config_dir = Path(args.config) if args.config else None
    tls = dashboard_tls(args, config_dir)
    check_bind(args.host, tls is not None, args.insecure_http)  # before anything starts
    data = data_dir(args.data)
    house, house_notice = house_to_deal_by(args.house, data)
    rules = load_house(house, config_dir if config_dir and (config_dir / "houses").is_dir() else None)
    devices = table_devices(args, config_dir, data)
    simulate = args.simulate or devices.start_source == "simulated"
    supervisors, demo_pin = supervisors_to_admit(config_dir, simulate)
    # The audit key lives outside the data (see audit/keys.py); only a simulation on the shipped
    # configuration keeps one beside its data.
    beside_data = simulate and config_dir is None and not args.key_file and not os.environ.get(KEY_ENV)
    key_file = key_path(args.key_file, config_dir, data / "audit.key" if beside_data else None)
    make_key = may_make_key(args, key_file, devices.floor)
    return Settings(config_dir, tls, data, rules, house_notice, devices, simulate, supervisors, demo_pin, key_file,
                    beside_data, make_key)


def data_dir(given: str | None) -> Path:
    """--data, else $APPLIANCE_DATA_DIR, else systemd's $STATE_DIRECTORY, else ./data."""
    return Path(given or os.environ.get("APPLIANCE_DATA_DIR") or os.environ.get("STATE_DIRECTORY") or "data").absolute()


def dashboard_tls(args: argparse.Namespace, config_dir: Path | None) -> TlsFiles | None:
    """The TLS certificate and key from --tls-cert/--tls-key (checked), else from tls/dashboard.crt and .key in the
    configuration folder when both are there; None without a certificate."""
    folder = (config_dir or Path(".")) / "tls"
    cert = Path(args.tls_cert) if args.tls_cert else folder / "dashboard.crt"
    key = Path(args.tls_key) if args.tls_key else folder / "dashboard.key"
    if not (args.tls_cert or args.tls_key or (config_dir and cert.is_file() and key.is_file())):
        return None
    for flag, given, path in (("--tls-cert", args.tls_cert, cert), ("--tls-key", args.tls_key, key)):
        if not path.is_file():
            raise UsageError(f"{flag + ' ' if given else ''}{path}: no such file")
    files = TlsFiles(cert.absolute(), key.absolute())
    files.context()  # a certificate or key that cannot be used fails before anything starts
    return files


def house_to_deal_by(given: str | None, data: Path) -> tuple[str, str | None]:
    """The house chosen on the setup screen (a technician's later word than the service's --house),
    else ``given``, else the default; and what the screens say when the choice is not ``given``."""
    try:
        choice = chosen_house(data)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if choice is None:
        return given or DEFAULT_HOUSE, None
    if given and given != choice["house"]:
        return choice["house"], (f"The house {choice.get('name', choice['house'])} was chosen on the setup screen "
                                 f"by {choice.get('by', '?')} ({choice.get('at', '?')}): --house {given} is not used")
    return choice["house"], None


def table_devices(args: argparse.Namespace, config_dir: Path | None, data: Path) -> DeviceConfig:
    """devices.toml with the deck taught on the setup screen (later than the configuration's), checked
    against what the arguments ask of it."""
    devices = load_devices(config_dir / "devices.toml" if config_dir else None)
    taught = taught_deck(data)
    if taught is not None:
        devices = dataclasses.replace(devices, vision=dataclasses.replace(devices.vision, deck=taught))
    if args.production:
        refuse_simulated_parts(args, devices)
    if args.rounds and not (args.simulate or devices.start_source == "simulated"):
        raise UsageError("--rounds: only a simulation plays rounds by itself (add --simulate)")
    return devices


def refuse_simulated_parts(args: argparse.Namespace, devices: DeviceConfig) -> None:
    """A dealing table (``--production``, as the service runs) never plays itself: a simulated start
    source or camera would write a self-played game into the table's audit log, and a simulated rail
    would leave the dealer's buttons and lamps dead without a word."""
    if args.simulate:
        raise UsageError("--production and --simulate together: a dealing table is never simulated")
    only_simulation = (  # devices.toml's table and key, what is set, the simulation's value, what to set instead
        ("start_seat", "source", devices.start_source, "simulated", '"rng", "dice" or "builtin" (hardware/README.md)'),
        ("camera", "source", devices.camera.source, "synthetic", '"picamera2" (or "v4l2" for a USB camera)'),
        ("gpio", "backend", devices.gpio_backend, "simulated", '"rpi-gpio" (hardware/README.md)'))
    for table, key, value, simulated, instead in only_simulation:
        if value == simulated:
            raise UsageError(f'{devices.source}: [{table}] {key} = "{value}" on a dealing table: set it to {instead}')


def supervisors_to_admit(config_dir: Path | None, simulate: bool) -> tuple[Callable[[], dict[str, str]], str | None]:
    """The saved supervisors, and the PIN of a demonstration's own supervisor where there is none."""
    supervisors = supervisors_as_saved(config_dir)
    if not (simulate and not supervisors()):
        return supervisors, None
    # A demonstration needs a supervisor: one for this run only, its PIN shown (once the run has its log and
    # key) on stderr and nowhere else.
    demo_pin = f"{secrets.randbelow(10**6):06d}"
    demo = {"demo": new_pin(demo_pin)}
    return lambda: demo, demo_pin


def hold_data_folder(data: Path) -> None:
    """One appliance per data folder, before anything is written or printed (a demonstration's PIN):
    a second one on the same log would fork its chain."""
    if not data.parent.is_dir():
        raise UsageError(f"the data folder {data}: no folder {data.parent}")
    data.mkdir(mode=0o750, exist_ok=True)
    hold_for_writing(data / "audit")


def open_recording(args: argparse.Namespace, settings: Settings) -> Recording:
    """The audit log on the held data folder, its key (made, or written from the floor's credentials) and shipper."""
    data, rules = settings.data, settings.rules
    rules_mapping = read_house(Path(rules.source))
    key, shipper = shipping(args, data / "audit", settings.key_file, settings.devices.floor, make_key=settings.make_key)
    if settings.demo_pin:
        print(f"simulation: supervisor id demo, PIN {settings.demo_pin} (this run only)", file=sys.stderr, flush=True)
    audit = AuditLog(data / "audit", key, day=GamingDay.from_house(rules_mapping, rules.source),
                     index=data / "index.sqlite")
    if shipper:
        shipper.recording = lambda: audit.stopped is None  # the pit shows "recording stopped"
    check = check_at_startup(audit)  # verify what was not verified before trusting the log
    return Recording(key, rules_mapping, audit, shipper, check)


def open_table(settings: Settings, recording: Recording) -> TableParts:
    """The table, recording to the audit log and feeding the live view and the history index."""
    audit = recording.audit
    live = LiveTable()

    def index_rebuilt(why: str) -> None:  # an edited row found while the supervisor's page read it
        audit.record_when_possible(Events.INDEX_REBUILT, {"reason": why}, "appliance")
        table.notices.append(why)

    index, set_aside = history_index(settings.data, index_key(recording.key), audit, index_rebuilt)
    feed = IndexFeed(index.add, audit)  # an index that cannot be written stops recording too
    catch_up(settings.data, audit, index, feed)
    table = Table(settings.rules, recording.rules_mapping, audit, settings.supervisors, listeners=[live, feed])
    if set_aside:
        audit.record_when_possible(Events.INDEX_REBUILT, {"reason": set_aside}, "appliance (start-up)")
        table.notices.append(set_aside)
    table.notices.extend(start_notices(settings))
    return TableParts(table, live, index, feed)


def history_index(data: Path, key: bytes, audit: AuditLog,
                  on_rebuilt: Callable[[str], None]) -> tuple[Index, str | None]:
    """The history index at start-up, checked: a damaged or edited file is set aside and rebuilt from the
    log (and why is returned); one that cannot even be made (a full disk on the first start) is kept in
    memory for this run, caught up from the log once there is room, and the table held with the reason."""
    path = data / "index.sqlite"
    try:
        index, set_aside = open_checked(path, key, data / "audit", on_rebuilt)
    except sqlite3.OperationalError as err:
        audit.stop(index_reason(err), "history index")
        return Index(":memory:", key, data / "audit", on_rebuilt), None
    os.chmod(path, 0o640)
    return index, set_aside


def catch_up(data: Path, audit: AuditLog, index: Index, feed: IndexFeed) -> None:
    """The log is the truth; the index catches up with what was written since it last saw the log
    (the first start after an upgrade builds it once), so a start does not grow with history."""
    if audit.stopped is not None and audit.stopped.lasting:  # the index, evidence of a longer log, is kept
        return

    def indexing(done: int) -> None:  # a long first build tells systemd it is no hang
        notify(f"EXTEND_TIMEOUT_USEC=60000000\nSTATUS=indexing the audit history: {done} records")

    feed.catch_up_first(lambda: index.catch_up(data / "audit", on_batch=indexing))


def start_notices(settings: Settings) -> list[str]:
    """What the screens say from the start about how this run was set up."""
    notices = [settings.house_notice] if settings.house_notice else []
    if settings.key_beside_data:
        notices.append(f"Simulation: the audit key is kept in the data folder ({settings.key_file}); on a table it "
                       "lives in the configuration folder")
    return notices


def hold_for_findings(table: Table, recording: Recording) -> None:
    """Records lost from the log's end, or a log that fails verification: no round until a supervisor has seen it."""
    check = recording.check
    table.hold_for_audit(recording.audit.findings + ([{"problem": check.problem, "seq": None}] if check.problem else []))


def build_station(args: argparse.Namespace, settings: Settings, parts: TableParts) -> Station:
    """The devices, the camera and the dealer's loop around the table (their threads not yet started)."""
    return Station(parts.table, settings.devices, settings.simulate, render=args.render, seed=args.seed,
                   pace=args.pace, rounds=args.rounds, on_prompt=parts.live.prompt, index=parts.index,
                   ready_to_record=parts.feed.flush, mislay=args.mislay)


def serve_the_dashboard(args: argparse.Namespace, settings: Settings, recording: Recording, parts: TableParts,
                        station: Station) -> Dashboard:
    data, rules = settings.data, settings.rules
    return serve_dashboard(lambda site: create_app(parts.live, rules, table=parts.table, index=parts.index,
                                                   audit=recording.audit, dealer=station.loop, site=site,
                                                   screens_file=data / "paired-screens.json",
                                                   setup=SetupRig.of(station, data, settings.config_dir, rules.key)),
                           parts.live, args.host, args.port, names=tuple(args.allow_host), tls=settings.tls,
                           insecure_http=args.insecure_http)


def announce(args: argparse.Namespace, appliance: Appliance) -> None:
    """The dashboard's address and the run's settings as the first line on stdout (tools read it as JSON),
    and the start in the audit log."""
    settings, dashboard, table = appliance.settings, appliance.dashboard, appliance.table
    tls = settings.tls is not None
    if dashboard.site.insecure_http:
        print(f"WARNING: the dashboard is served over plain HTTP on {args.host} (--insecure-http): anyone on "
              "the network can read and change what it sends", file=sys.stderr, flush=True)
    print(json.dumps({"dashboard": dashboard.url + "/", "data": str(settings.data), "tls": tls,
                      "simulate": settings.simulate, "house": settings.rules.key, "key_file": str(settings.key_file),
                      "verified": appliance.recording.check.verification.records, "held": table.held}), flush=True)
    table.note(Events.APPLIANCE_STARTED, {"mode": "run", "simulate": settings.simulate, "house": settings.rules.key,
                                          "dashboard": f"{args.host}:{dashboard.site.port}", "tls": tls,
                                          "insecure_http": dashboard.site.insecure_http}, "appliance")


def watch_the_dashboard(args: argparse.Namespace, appliance: Appliance) -> None:
    """A heartbeat that asks the dashboard's own health page, as a browser would."""
    probe_host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "[::1]"}.get(
        args.host, f"[{args.host}]" if ":" in args.host else args.host)  # the server answers itself on loopback
    scheme = "https" if appliance.settings.tls else "http"
    station = appliance.station
    web_probe = Probe("web", http_probe(f"{scheme}://{probe_host}:{appliance.dashboard.site.port}/healthz",
                                        timeout=2.0), every=min(1.0, appliance.settings.devices.stale_after / 4))
    web_probe.on_beat = station.hearts.watch("web")
    station.workers.append(web_probe)


def serve_until_stopped(appliance: Appliance, keep_serving: bool) -> None:
    """Run the station and the floor shipper until SIGTERM, an interrupt, or (without ``keep_serving``)
    the simulation's last round; then stop every part."""
    station, shipper = appliance.station, appliance.recording.shipper
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    shipped = shipper.start() if shipper else None  # the backlog first, then each record as it is written
    station.start()
    notify("READY=1")
    start_watchdog(healthy=station.hearts.healthy, stop=stop)
    try:
        while not stop.wait(0.2):
            if station.played is not None and station.played.is_set() and not keep_serving:
                break  # --rounds played: the appliance stops as if told to
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        notify("STOPPING=1")
        appliance.dashboard.stop()
        station.stop()
        if shipped:
            shipped[1].set()
