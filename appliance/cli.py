"""The ``appliance`` command line.

Machine-readable JSON on stdout where another tool reads it; a one-line
human error on stderr (exit status 2 for bad usage or input, 1 when some
lines of a batch failed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence

from pathlib import Path
from typing import NoReturn

from .arguments import (UsageError, dns_name_or_address, existing_folder, existing_path, new_folder, new_link, new_path,
                        not_negative, not_negative_at_most, port, positive_at_most, share, whole_number)
from .config import DEFAULT_HOUSE, load_house, read_chart, read_toml, shipped_config_dir
from .devices.serial_device import DeviceKind, SerialSettings, StartSeatDevice
from .devices.simulator import DeviceSimulator, Faults
from .floor.commands import add_floor_commands, add_shipping_options, may_make_key, shipping
from .game.cards import format_cards, parse_cards
from .game.fortune import best_paying
from .game.money import fmt
from .game.house_ways import HOUSE_WAYS, set_by_house_way
from .game.house_ways.chart_check import load_chart
from .game.setting import SPLITS
from .game.round_json import house_of, round_from_json, settlement_to_json
from .game.settlement import settle
from .game.start_seat import DEALER, StartSeatError, start_of_round
from .simulate import simulate


#: past these ``simulate`` would build a list of jobs too long to hold, or start a process per worker at once
MAX_HANDS, MAX_WORKERS = 1_000_000_000, 64


def _print(obj: object) -> None:
    print(json.dumps(obj), flush=True)


def cmd_houseway(args: argparse.Namespace) -> int:
    rules = load_house(args.house)
    ev = rules.evaluator()
    if args.chart:
        # Proven under this house's rules before any hand is set: a chart that can foul is refused here.
        way = load_chart(read_chart(Path(args.chart)), args.chart, ev)
    else:
        way = args.house_way or rules.way
        if isinstance(way, str) and way not in HOUSE_WAYS:
            raise UsageError(f"unknown house way {way!r}: expected one of {', '.join(HOUSE_WAYS)}")
    if args.cards:
        _print(set_by_house_way(parse_cards(args.cards), way, ev).to_json(ev))
        return 0
    status = 0
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            _print(set_by_house_way(parse_cards(line), way, ev).to_json(ev))
        except ValueError as err:
            _print({"error": f"line {number}: {err}"})
            status = 1
    return status


def cmd_evaluate(args: argparse.Namespace) -> int:
    rules = load_house(args.house)
    ev = rules.evaluator()
    cards = parse_cards(args.cards)
    out: dict = {"cards": format_cards(cards)}
    if len(cards) in (2, 5):
        out["value"] = ev.name(ev.value(cards))
        out["rank"] = int(ev.value(cards))
    elif len(cards) == 7:
        best = max((ev.five([cards[i] for i in back]), back) for back, _ in SPLITS)
        out["fortune"] = _bonus_line(cards, ev, rules.fortune, lambda pay: f"{pay} to 1")
        out["envy"] = _bonus_line(cards, ev, rules.envy, lambda pay: f"{fmt(pay)} to every other seat with a qualifying Fortune bet")
        out["best_five"] = format_cards(cards[i] for i in best[1])
        out["best_five_value"] = ev.name(best[0])
    else:
        raise UsageError(f"evaluate takes 2, 5 or 7 cards, got {len(cards)}")
    _print(out)
    return 0


def _bonus_line(cards, ev, bonus, shown) -> dict | None:
    """The line of the house's own pay table that seven cards are paid on ("no pay" where none);
    None where the house offers no such bonus."""
    if bonus is None:
        return None
    line = best_paying(cards, ev, bonus.pays)
    return {"line": line, "pays": shown(bonus.pays[line]) if line else "no pay"}


def cmd_settle(args: argparse.Namespace) -> int:
    source = "stdin" if args.round == "-" else args.round
    try:
        text = sys.stdin.read() if args.round == "-" else Path(args.round).read_text(encoding="utf-8")
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise UsageError(f"{source}: not JSON: {err}") from None
    except UnicodeDecodeError as err:
        raise UsageError(f"{source}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    named = house_of(data, source)
    if args.house and named and load_house(args.house).key != load_house(named).key:
        raise UsageError(f"{source}: house: the round names {named!r} but --house is {args.house!r}")
    rules = load_house(args.house or named or DEFAULT_HOUSE)
    result = settle(round_from_json(data, source), rules)
    _print(settlement_to_json(result, rules.evaluator()))
    return 0


def cmd_start_seat(args: argparse.Namespace) -> int:
    rules = load_house(args.house)
    banker = DEALER if args.banker == DEALER else _seat_number(args.banker)
    dice = tuple(args.dice) if args.dice else None
    try:
        start = start_of_round(rules.start, banker, value=args.value, dice=dice)
    except StartSeatError as err:
        raise UsageError(f"{rules.name}: {err}") from None
    _print(start.to_json())
    return 0


def _seat_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()):  # str.isdigit alone takes "٣" and "²"
        raise UsageError(f"--banker: expected \"dealer\" or a seat number, got {text!r}")
    return int(text)


def cmd_simulate(args: argparse.Namespace) -> int:
    rules = load_house(args.house)
    if args.house_way and args.house_way not in HOUSE_WAYS:
        raise UsageError(f"unknown house way {args.house_way!r}: expected one of {', '.join(HOUSE_WAYS)}")
    _print(simulate(rules, args.hands, seed=args.seed, workers=args.workers, way=args.house_way))
    return 0


def cmd_devices_listen(args: argparse.Namespace) -> int:
    done = threading.Event()
    start = time.monotonic()
    seen = 0

    def on_result(result) -> None:
        nonlocal seen
        _print(result.to_json())
        seen += 1
        if args.count and seen >= args.count:
            done.set()

    def on_reject(rejection) -> None:
        print(json.dumps(rejection.to_json()), file=sys.stderr, flush=True)

    def on_status(status, why) -> None:
        print(json.dumps({"status": status.value, "reason": why}), file=sys.stderr, flush=True)

    check_serial_port(args.port)
    settings = SerialSettings(DeviceKind(args.device), args.port, baudrate=args.baud)
    with StartSeatDevice(settings, on_result, on_reject, on_status) as device:
        try:
            while not done.wait(args.roll_every or 0.5):
                if args.roll_every:
                    device.roll()
                if args.timeout and time.monotonic() - start > args.timeout:
                    raise UsageError(f"{args.timeout} s passed with {seen} of {args.count} results")
        except KeyboardInterrupt:
            pass
    return 0


def check_serial_port(port: str) -> None:
    """A port the device can be opened on: pyserial would retry any other for ever, saying only "offline"."""
    import stat

    import serial

    if "://" in port:
        try:
            serial.serial_for_url(port, do_not_open=True)
        except ValueError as err:
            raise UsageError(f"--port {port}: {err}") from None
        return
    if not port or not Path(port).exists():
        raise UsageError(f"--port {port or repr(port)}: no such device (is it plugged in?)")
    if not stat.S_ISCHR(Path(port).stat().st_mode):
        what = "a folder" if Path(port).is_dir() else "a file"
        raise UsageError(f"--port {port}: not a serial device ({what})")


def cmd_devices_simulate(args: argparse.Namespace) -> int:
    faults = Faults(bad_checksum=args.bad_checksum, noise=args.noise, silent=args.silent)
    sim = DeviceSimulator(DeviceKind(args.device), every=args.every, heartbeat=args.heartbeat,
                          faults=faults, seed=args.seed, link=args.link)
    signal.signal(signal.SIGTERM, lambda *_: sim.stop_serving())
    _print({"device": args.device, "port": sim.path, "link": args.link})
    try:
        sim.serve(stdin_fd=sys.stdin.fileno() if sys.stdin and not sys.stdin.closed else None)
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return 0


def _layout(path: str | None):
    from .vision.layout import load_layout

    return load_layout(path or shipped_config_dir() / "layout.toml")


def cmd_vision_markers(args: argparse.Namespace) -> int:
    from .vision.markers import write_marker_pages

    paths = write_marker_pages(_layout(args.layout), Path(args.out), args.dpi)
    _print({"pages": [str(p) for p in paths], "dpi": args.dpi})
    return 0


def _each_frame(paths: list[str], handle, key: str = "frame") -> int:
    """Run ``handle(path, frame) -> dict`` on each readable frame, printing one JSON line per frame
    (the path under ``key``); an unreadable frame, or a ValueError from ``handle``, is that frame's
    error. Exit status 1 if any."""
    import cv2

    status = 0
    for path in paths:
        frame = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        try:
            if frame is None:
                raise ValueError(f"{path}: missing, or not an image OpenCV can read")
            _print({key: path, **handle(path, frame)})
        except ValueError as err:
            _print({key: path, "error": str(err)})
            status = 1
    return status


def cmd_vision_calibrate(args: argparse.Namespace) -> int:
    from .vision.calibrate import calibrate

    layout = _layout(args.layout)
    return _each_frame(args.frames, lambda path, frame: calibrate(frame, layout).to_json())


def cmd_vision_render(args: argparse.Namespace) -> int:
    import random

    import cv2

    from .vision.render import DESIGNS, Scene, deal_table, render_table

    layout = _layout(args.layout)
    if args.design not in DESIGNS:
        raise UsageError(f"unknown design {args.design!r}: expected one of {', '.join(DESIGNS)}")
    if not cv2.haveImageWriter(args.out):
        raise UsageError(f"--out {args.out}: OpenCV writes no image of that kind: name it .png or .jpg")
    rng = random.Random(args.seed)
    scene = Scene.random(rng, layout, size=(args.width, args.height), degrade=not args.clean,
                         rotation="slight" if args.clean else "any", spread=args.spread)
    rendered = render_table(layout, deal_table(rng), DESIGNS[args.design], scene, seed=args.seed)
    if not cv2.imwrite(args.out, rendered.image):
        raise UsageError(f"{args.out}: cannot write the frame")
    _print({"frame": args.out, "zones": rendered.truth, "tilt_deg": round(scene.tilt_deg, 1)})
    return 0


def cmd_deck_learn(args: argparse.Namespace) -> int:
    from .vision.deck import learn

    deck = learn(args.faces, Path(args.out))
    deck.save(Path(args.out))
    notes = [note for note in (deck.photo_advice, None if "JK" in deck.ranks else "no joker face: a joker reads as unreadable")
             if note is not None]
    _print({"deck": args.out, "complete": deck.complete, "ranks": sorted(deck.ranks), "suits": sorted(deck.suits),
            "templates": sum(map(len, deck.ranks.values())) + sum(map(len, deck.suits.values())),
            "index_mm": deck.index.to_json(), "faces_learned": len(deck.corners),
            "photo_px_per_mm": round(deck.photo_px_per_mm, 1),
            "refused": deck.refused, "untaught": deck.untaught, "notes": notes})
    if not deck.complete:  # written and usable, but some cards read as unreadable: say so in the status
        print(f"appliance deck learn: {args.out}: incomplete: {len(deck.untaught)} card(s) not taught "
              f"({', '.join(sorted(deck.untaught))}); they read as unreadable", file=sys.stderr)
        return 3
    return 0


def cmd_deck_capture(args: argparse.Namespace) -> int:
    from .vision.capture import photo_in_teach_zone, save_face

    layout = _layout(args.layout)
    codes = parse_cards(args.codes) if args.codes is not None else parse_cards(" ".join(
        r + s for s in "shdc" for r in "AKQJT98765432") + " Jk")
    if len(codes) < len(args.frames):
        raise UsageError(f"{len(args.frames)} frames but only {len(codes)} card codes")
    card_of = dict(zip(args.frames, map(str, codes)))

    def capture(path, frame):
        saved = save_face(photo_in_teach_zone(frame, layout), card_of[path], Path(args.out))
        return {"card": card_of[path], "face": str(saved)}

    return _each_frame(args.frames, capture)


def cmd_vision_read(args: argparse.Namespace) -> int:
    from .vision.calibrate import calibrate
    from .vision.deck import Deck
    from .vision.reader import read_frame

    layout = _layout(args.layout)
    deck = Deck.load(args.deck)
    return _each_frame(args.frames, lambda path, frame: read_frame(frame, layout, deck, calibrate(frame, layout)).to_json())


def cmd_vision_find(args: argparse.Namespace) -> int:
    from .vision.deck import Deck
    from .vision.reader import read_photo

    deck = Deck.load(args.deck)
    return _each_frame(args.photos, lambda path, photo: read_photo(photo, deck).to_json(), key="photo")


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from .audit.log import load_key, verify
    from .audit.seal import parse_seal

    key = load_key(args.key_file)
    result = verify(args.path, key, seal=parse_seal(args.seal, key) if args.seal else None)
    _print(result.to_json())
    if not result.ok:
        print(f"appliance audit verify: {result.where()}: {result.problem}", file=sys.stderr)
    return 0 if result.ok else 1


def cmd_audit_index(args: argparse.Namespace) -> int:
    from .audit.history_index import Index

    check_index_file(Path(args.db))
    try:
        index = Index(args.db)
    except sqlite3.Error as err:
        raise UsageError(f"--db {args.db}: not a history index: {err}") from None
    count = index.rebuild(args.path)
    index.close()
    _print({"db": args.db, "records": count})
    return 0


def check_index_file(path: Path) -> None:
    """A history index may be rebuilt over an index (an older one is dropped and made again), never over
    another program's database or a file that is no database."""
    from .audit.history_index import TABLES

    if path.is_dir():
        raise UsageError(f"--db {path}: a folder, not a history index")
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)) as db:
            tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.Error as err:
        raise UsageError(f"--db {path}: not a history index: {err}") from None
    others = sorted(name for name in set(tables) - TABLES if not name.startswith("sqlite_"))
    if others:
        raise UsageError(f"--db {path}: not a history index: it holds the table{'s' if len(others) > 1 else ''} "
                         f"{', '.join(others)}")


def cmd_audit_recall(args: argparse.Namespace) -> int:
    from .audit.log import load_key, records, verify

    checked = verify(args.path, load_key(args.key_file))
    if not checked.ok:
        raise UsageError(f"{checked.file} line {checked.line}: {checked.problem}")
    by_round: dict[str, list[dict]] = {}
    for record in records(args.path):
        if "round" in record["data"]:
            by_round.setdefault(record["data"]["round"], []).append(
                {k: record[k] for k in ("seq", "ts", "event", "who")} | {"data": {
                    k: v for k, v in record["data"].items() if k not in ("rules", "round")}})
    for round_id in list(by_round)[-args.last:]:
        _print({"round": round_id, "records": by_round[round_id]})
    return 0


def cmd_audit_keygen(args: argparse.Namespace) -> int:
    from .audit.log import new_key

    if Path(args.path).is_dir():
        raise UsageError(f"{args.path}: a folder; name the key file to make")
    try:
        new_key(args.path)
    except FileExistsError:
        raise UsageError(f"{args.path}: a key is already there; an audit key is never overwritten") from None
    _print({"key": args.path})
    return 0


def cmd_simulate_table(args: argparse.Namespace) -> int:
    from .audit.history_index import Index
    from .audit.keys import key_path
    from .audit.writer_lock import hold_for_writing
    from .table.recording import SpaceLimits
    from .table.simulation import play_rounds

    audit_dir = Path(args.audit)
    # A simulation on the shipped configuration: its key may sit beside its log folder.
    key_file = key_path(args.key_file, None, audit_dir.parent / f"{audit_dir.name}.key")
    rules = load_house(args.house)
    make_key = may_make_key(args, key_file)
    hold_for_writing(audit_dir)  # before anything is written: the key, a partial record cut, the index
    start = time.perf_counter()
    space = SpaceLimits(max(args.refuse_free_mb, SpaceLimits.warn_mb), args.refuse_free_mb)
    index_file = audit_dir.parent / f"{audit_dir.name}.index.sqlite"
    audit, shipper = _simulation_log(args, rules, key_file, make_key, index_file)
    index = Index(index_file)  # round ids go on from it
    thread, stop = shipper.start() if shipper else (None, None)
    try:
        totals = play_rounds(rules, audit, args.rounds, seed=args.seed, render=args.render,
                             size=(args.width, args.height), index=index, space=space, mislay=args.mislay)
    finally:
        index.close()
        if shipper:
            stop.set()
            thread.join()
    out = {**totals, "audit": str(audit_dir), "key_file": str(key_file),
           "seconds": round(time.perf_counter() - start, 2)}
    if shipper:
        out["floor"] = _last_shipment(shipper)
    _print(out)
    return 0


def _simulation_log(args: argparse.Namespace, rules, key_file: Path, make_key: bool, index_file: Path):
    """simulate-table's audit log (and its floor shipper, or None), refused where recording stopped for good."""
    from .audit.gaming_day import GamingDay
    from .audit.log import AuditLog, RecordingStopped

    audit_dir = Path(args.audit)
    day = GamingDay.from_house(read_toml(Path(rules.source)), rules.source)
    key, shipper = shipping(args, audit_dir, key_file, make_key=make_key)
    audit = AuditLog(audit_dir, key, day=day, index=index_file)
    if audit.stopped is not None and audit.stopped.lasting:  # the index would be rebuilt from the short log
        raise RecordingStopped(audit.stopped.reason)
    if shipper:
        shipper.recording = lambda: audit.stopped is None
    return audit, shipper


def _last_shipment(shipper) -> dict:
    """One more pass when the table stops: what the floor holds, or why it could not be reached (the log keeps
    the rest for the next run)."""
    from .floor.shipper import FloorRefused, FloorUnreachable

    with shipper:
        try:
            return shipper.ship_pending().to_json()
        except (FloorRefused, FloorUnreachable) as err:
            return {"error": str(err), "pending": shipper.log.head().seq}


def cmd_audit_replay(args: argparse.Namespace) -> int:
    from .audit.log import load_key
    from .audit.replay import replay

    result = replay(args.path, load_key(args.key_file), args.round)
    _print(result)
    return 1 if result["differences"] else 0


def cmd_audit_export(args: argparse.Namespace) -> int:
    import datetime as dt

    from .audit.log import load_key
    from .audit.replay import write_export

    try:
        start, end = dt.date.fromisoformat(args.date_from), dt.date.fromisoformat(args.date_to)
    except ValueError as err:
        raise UsageError(f"--from/--to: {err} (use YYYY-MM-DD)") from None
    if start > end:
        raise UsageError(f"--from {start} is after --to {end}: no gaming day lies between them")
    write_export(args.path, load_key(args.key_file), start, end, sys.stdout)  # as it is read: never the whole log
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .bootstrap import assemble, serve_until_stopped  # the whole appliance (Flask, the camera): only run needs it

    serve_until_stopped(assemble(args), args.keep_serving)
    return 0


def cmd_supervisor_add(args: argparse.Namespace) -> int:
    import getpass

    from .config import load_supervisors, save_supervisors
    from .table.supervisor import new_pin

    config_dir = Path(args.config)
    if not config_dir.is_dir():
        raise UsageError(f"{config_dir}: no such configuration folder")
    if not (1 <= len(args.id) <= 64 and args.id.isprintable() and args.id == args.id.strip()):
        raise UsageError(f"supervisor id {args.id!r}: 1 to 64 characters, printable, with no space at either end "
                         "(a badge number)")
    if sys.stdin.isatty():
        pin = getpass.getpass(f"PIN for supervisor {args.id}: ")
        if getpass.getpass("The same PIN again: ") != pin:
            raise UsageError("the two PINs differ; nothing was changed")
    else:
        pin = sys.stdin.readline().strip()
    hashes = load_supervisors(config_dir)
    hashes[args.id] = new_pin(pin)
    _print({"supervisor": args.id, "file": str(save_supervisors(config_dir, hashes))})
    return 0


def cmd_tls_selfsigned(args: argparse.Namespace) -> int:
    from .web.certificate import make_self_signed

    folder = Path(args.config) / "tls"
    made = make_self_signed(folder, args.name, days=args.days, force=args.force)
    _print(made.to_json())
    print(f"SHA-256 fingerprint {made.sha256}: check it in the browser the first time it connects",
          file=sys.stderr)
    return 0


def add_mislay_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mislay", type=share, default=0.0, metavar="SHARE",
                   help="in simulation, the share of house-banked rounds (0-1) in which the dealer first sets the "
                        "banker's hand otherwise than the house way: the round is held until the dealer resets it "
                        "(default 0: always the house way)")


class Parser(argparse.ArgumentParser):
    """argparse's own errors on one line too, as every error of the command line (the usage is in --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def add_frame_size_options(p: argparse.ArgumentParser) -> None:
    """The synthetic camera's frame: under 640x360 its markers are too small to find."""
    p.add_argument("--width", type=whole_number(640, 8192), default=4608, help="the frame's width in px (640-8192)")
    p.add_argument("--height", type=whole_number(360, 8192), default=2592, help="the frame's height in px (360-8192)")


def add_game_commands(sub: argparse._SubParsersAction) -> None:
    """The game engine's commands: a hand set, valued or settled, a start seat, a simulation."""
    p = sub.add_parser("houseway", help="set seven cards by the house way (stdin: one hand per line)")
    p.add_argument("--house", default=DEFAULT_HOUSE, help="house rules (file name or house name)")
    way = p.add_mutually_exclusive_group()
    way.add_argument("--house-way", help=f"override the house's house way: {', '.join(HOUSE_WAYS)}")
    way.add_argument("--chart", metavar="FILE", help="set by a house way chart (config/house_ways/README.md), "
                     "proven over every rank pattern under the house's rules first")
    p.add_argument("cards", nargs="*", help="seven cards, e.g. As Kd 9c 9s 5h 5d Jk")
    p.set_defaults(func=cmd_houseway)

    p = sub.add_parser("evaluate", help="value a 2-, 5- or 7-card hand")
    p.add_argument("--house", default=DEFAULT_HOUSE)
    p.add_argument("cards", nargs="+")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("settle", help="settle a round given as JSON (a file, or - for stdin)")
    p.add_argument("round", help="ROUND.json or -")
    p.add_argument("--house", help="house rules (default: the round's \"house\", else general)")
    p.set_defaults(func=cmd_settle)

    p = sub.add_parser("start-seat", help="the first hand and action order for a device value or three dice")
    p.add_argument("--house", default=DEFAULT_HOUSE)
    p.add_argument("--banker", required=True, help='"dealer" or the banking player\'s seat')
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--value", type=int, help="the electronic device's value, 1-7")
    how.add_argument("--dice", type=int, nargs=3, metavar=("A", "B", "C"), help="the three dice")
    p.set_defaults(func=cmd_start_seat)

    p = sub.add_parser("simulate", help="heads-up hands, both sides set by the house way")
    p.add_argument("--house", default=DEFAULT_HOUSE)
    p.add_argument("--house-way", help="override the house's house way")
    p.add_argument("--hands", type=whole_number(1, MAX_HANDS), required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=1, help=f"processes (1-{MAX_WORKERS})")
    p.set_defaults(func=cmd_simulate)


def add_run_command(sub: argparse._SubParsersAction) -> None:
    """``appliance run``: the appliance itself (appliance/bootstrap.py)."""
    p = sub.add_parser("run", help="start the appliance: round engine, audit log and dashboard")
    p.add_argument("--config", type=existing_folder, help="a configuration folder (default: the shipped config)")
    p.add_argument("--data", type=new_folder, help="data folder (default: $APPLIANCE_DATA_DIR, $STATE_DIRECTORY, ./data)")
    p.add_argument("--key-file", help="the audit key (default: $APPLIANCE_KEY_FILE, else audit.key in --config; "
                   "a simulation on the shipped config keeps one in the data folder)")
    p.add_argument("--host", default="127.0.0.1", help="the dashboard's address (off loopback: HTTPS)")
    p.add_argument("--port", type=port, default=8080, help="the dashboard's port (0: any free one)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a name or address the floor network reaches the dashboard by (repeatable)")
    p.add_argument("--tls-cert", help="PEM certificate (default: <config>/tls/dashboard.crt if present)")
    p.add_argument("--tls-key", help="PEM private key (default: <config>/tls/dashboard.key if present)")
    p.add_argument("--insecure-http", action="store_true",
                   help="serve plain HTTP off loopback (every page then warns that it is not secure)")
    p.add_argument("--house", help=f"house rules (default: the house chosen on the setup screen, else {DEFAULT_HOUSE})")
    p.add_argument("--simulate", action="store_true", help="simulated devices and camera (the default without hardware)")
    p.add_argument("--production", action="store_true",
                   help="a dealing table (the service): refuse to start on a simulated start source, camera or GPIO rail")
    p.add_argument("--render", action="store_true", help="in simulation, read every hand from the synthetic camera")
    p.add_argument("--pace", type=positive_at_most(60), default=1.5,
                   help="seconds between the steps of a simulated round (at most 60)")
    p.add_argument("--rounds", type=whole_number(1), help="in simulation, play N rounds, then stop (default: play on)")
    p.add_argument("--keep-serving", action="store_true",
                   help="with --rounds: after the last round, keep serving the dashboard (the round settled on it) "
                        "until stopped")
    p.add_argument("--seed", type=int, default=1)
    add_mislay_option(p)
    add_shipping_options(p)
    p.set_defaults(func=cmd_run)


def add_access_commands(sub: argparse._SubParsersAction) -> None:
    """Who may log in to the dashboard and the certificate it is served under."""
    supervisor = sub.add_parser("supervisor", help="the supervisors who may log in").add_subparsers(
        dest="supervisor_command", required=True)
    p = supervisor.add_parser("add", help="add a supervisor or change a PIN (the PIN is read from the terminal or stdin)")
    p.add_argument("id", help="the supervisor's id, e.g. a badge number")
    p.add_argument("--config", required=True, help="the configuration folder (e.g. /etc/paigow-appliance)")
    p.set_defaults(func=cmd_supervisor_add)

    tls = sub.add_parser("tls", help="the dashboard's TLS certificate").add_subparsers(dest="tls_command",
                                                                                      required=True)
    p = tls.add_parser("selfsigned", help="make a self-signed certificate and key in <config>/tls; prints the "
                                          "SHA-256 fingerprint to pin")
    p.add_argument("--config", type=existing_folder, required=True,
                   help="the configuration folder (e.g. /etc/paigow-appliance)")
    p.add_argument("--name", action="append", default=[], type=dns_name_or_address,
                   help="a DNS name or address of the appliance (repeatable)")
    p.add_argument("--days", type=whole_number(1, 3650), default=825, help="days the certificate is valid (1-3650)")
    p.add_argument("--force", action="store_true", help="replace an existing certificate and key")
    p.set_defaults(func=cmd_tls_selfsigned)


def add_simulate_table_command(sub: argparse._SubParsersAction) -> None:
    """Full rounds through the round engine and the audit log, without the dashboard."""
    p = sub.add_parser("simulate-table", help="play full rounds through the round engine and the audit log")
    p.add_argument("--rounds", type=whole_number(1), required=True)
    p.add_argument("--audit", type=new_folder, required=True, help="the audit log folder")
    p.add_argument("--key-file", help="the HMAC key (default: $APPLIANCE_KEY_FILE, else <audit>.key beside the "
                   "folder, created only while there is no log)")
    p.add_argument("--house", default=DEFAULT_HOUSE)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--render", action="store_true", help="read every hand with the simulated camera and the reader")
    add_frame_size_options(p)
    p.add_argument("--refuse-free-mb", type=not_negative, default=20,
                   help="open no round while the audit disk has less free space than this (MB)")
    add_mislay_option(p)
    add_shipping_options(p)
    p.set_defaults(func=cmd_simulate_table)


def add_devices_commands(sub: argparse._SubParsersAction) -> None:
    """The start-seat devices on a serial port, real or simulated."""
    devices = sub.add_parser("devices", help="start-seat devices on a serial port").add_subparsers(
        dest="devices_command", required=True)
    p = devices.add_parser("listen", help="print each validated result as a JSON line (rejections on stderr)")
    p.add_argument("device", choices=["rng", "dice"])
    p.add_argument("--port", required=True, help="a device path or a pyserial URL (loop://, socket://host:port)")
    p.add_argument("--count", type=whole_number(0), default=0, help="stop after N results (default: run until interrupted)")
    p.add_argument("--baud", type=whole_number(1), default=9600)
    p.add_argument("--roll-every", type=not_negative_at_most(3600), default=0, help="send ROLL every S seconds")
    p.add_argument("--timeout", type=not_negative, default=0, help="give up after S seconds (with --count)")
    p.set_defaults(func=cmd_devices_listen)

    p = devices.add_parser("simulate", help="a device on a pseudo-terminal: prints its path, then serves")
    p.add_argument("device", choices=["rng", "dice"])
    p.add_argument("--every", type=positive_at_most(3600),
                   help="send a result every S seconds (also on ROLL and on Enter)")
    p.add_argument("--heartbeat", type=positive_at_most(3600), default=1.0)
    p.add_argument("--bad-checksum", type=share, default=0.0, help="probability of a wrong checksum")
    p.add_argument("--noise", type=share, default=0.0, help="probability of noise bytes before a line")
    p.add_argument("--silent", action="store_true", help="send nothing (an unplugged or dead device)")
    p.add_argument("--link", type=new_link, help="also make this path a link to the port, as udev does")
    p.add_argument("--seed", type=int, help="reproducible values (default: the OS generator)")
    p.set_defaults(func=cmd_devices_simulate)


def add_vision_commands(sub: argparse._SubParsersAction) -> None:
    """The layout, its markers and the camera's frames read."""
    vision = sub.add_parser("vision", help="the layout, its markers and the camera").add_subparsers(
        dest="vision_command", required=True)
    p = vision.add_parser("markers", help="print the layout's markers at true size (A4 PNG pages)")
    p.add_argument("--layout", help="layout TOML (default: the shipped config/layout.toml)")
    p.add_argument("--out", type=new_folder, required=True, help="folder for markers-N.png")
    p.add_argument("--dpi", type=whole_number(72, 1200), default=300, help="the pages' resolution (72-1200)")
    p.set_defaults(func=cmd_vision_markers)
    p = vision.add_parser("calibrate", help="find the markers in frames and fit the homography")
    p.add_argument("--layout")
    p.add_argument("frames", nargs="+")
    p.set_defaults(func=cmd_vision_calibrate)
    p = vision.add_parser("render", help="draw a synthetic dealt table (the simulated camera)")
    p.add_argument("--layout")
    p.add_argument("--out", type=new_path, required=True, help="the frame to write (.png, .jpg, ...)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--design", default="classic")
    add_frame_size_options(p)
    p.add_argument("--clean", action="store_true", help="no tilt, light, glare, noise, blur or JPEG")
    p.add_argument("--spread", action="store_true", help="each hand spread with overlap, every index corner in view")
    p.set_defaults(func=cmd_vision_render)
    p = vision.add_parser("read", help="read every card on the layout, zone by zone (JSON per frame)")
    p.add_argument("--layout")
    p.add_argument("--deck", required=True, help="a deck directory made by appliance deck learn")
    p.add_argument("frames", nargs="+")
    p.set_defaults(func=cmd_vision_read)
    p = vision.add_parser("find", help="every card in photos without a layout (any background, in perspective): JSON per photo")
    p.add_argument("--deck", required=True, help="a deck directory made by appliance deck learn")
    p.add_argument("photos", nargs="+")
    p.set_defaults(func=cmd_vision_find)


def add_deck_commands(sub: argparse._SubParsersAction) -> None:
    """A deck design taught to the reader."""
    deck = sub.add_parser("deck", help="teach the reader a deck design").add_subparsers(
        dest="deck_command", required=True)
    p = deck.add_parser("learn", help="rank and suit templates from one photo per card (any camera, angle, background)")
    p.add_argument("--faces", required=True, help="folder of faces named by card code: As.png ... Jk.png")
    p.add_argument("--out", type=new_folder, required=True, help="the deck directory to write")
    p.set_defaults(func=cmd_deck_learn)
    p = deck.add_parser("capture", help="faces from frames of one card at a time in the teach zone")
    p.add_argument("--layout")
    p.add_argument("--out", type=new_folder, required=True, help="folder for the faces (then: appliance deck learn --faces)")
    p.add_argument("--codes", help="the cards in the order they were laid (default: As Ks ... 2c Jk)")
    p.add_argument("frames", nargs="+")
    p.set_defaults(func=cmd_deck_capture)


def add_audit_commands(sub: argparse._SubParsersAction) -> None:
    """The tamper-evident audit log checked, replayed, exported, indexed and its key made."""
    audit = sub.add_parser("audit", help="the tamper-evident audit log").add_subparsers(
        dest="audit_command", required=True)
    p = audit.add_parser("verify", help="check every chain and signature; names the first bad record")
    p.add_argument("path", type=existing_path, help="the log folder (or one day's file)")
    p.add_argument("--key-file", required=True, help="the HMAC key, kept outside the log")
    p.add_argument("--seal", help="a shift seal (its text, or a file holding it): the log must still hold "
                   "every record up to it, unchanged")
    p.set_defaults(func=cmd_audit_verify)
    p = audit.add_parser("replay", help="settle every logged round again from its raw records; report differences")
    p.add_argument("path", type=existing_folder, help="the log folder")
    p.add_argument("--key-file", required=True)
    p.add_argument("--round", help="only this round id")
    p.set_defaults(func=cmd_audit_replay)
    p = audit.add_parser("export", help="settled rounds of gaming days (--from/--to) as CSV, with their shift seals")
    p.add_argument("path", type=existing_folder, help="the log folder")
    p.add_argument("--key-file", required=True)
    p.add_argument("--from", dest="date_from", required=True)
    p.add_argument("--to", dest="date_to", required=True)
    p.set_defaults(func=cmd_audit_export)
    p = audit.add_parser("index", help="rebuild the SQLite history index from the log")
    p.add_argument("path", type=existing_folder, help="the log folder")
    p.add_argument("--db", type=new_path, required=True)
    p.set_defaults(func=cmd_audit_index)
    p = audit.add_parser("recall", help="the last rounds with their reads, device values and settlement")
    p.add_argument("path", type=existing_folder, help="the log folder")
    p.add_argument("--key-file", required=True)
    p.add_argument("--last", type=whole_number(1), default=10, help="how many rounds (at least 1)")
    p.set_defaults(func=cmd_audit_recall)
    p = audit.add_parser("keygen", help="create the HMAC key file (mode 600); never overwrites")
    p.add_argument("path", type=new_path, help="the key file to make")
    p.set_defaults(func=cmd_audit_keygen)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="appliance", description="Pai Gow Poker dealer-assist appliance")
    sub = parser.add_subparsers(dest="command", required=True)
    # in the order --help lists them
    for add_commands in (add_game_commands, add_run_command, add_access_commands, add_simulate_table_command,
                         add_devices_commands, add_vision_commands, add_deck_commands, add_audit_commands,
                         add_floor_commands):
        add_commands(sub)
    return parser


def one_line(err: Exception) -> str:
    """An error's message on one line (a library's own may run over several)."""
    return "; ".join(line.strip() for line in str(err).splitlines() if line.strip()) or type(err).__name__


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # Commands report on stdout/stderr as JSON; the log only speaks up for errors here. The appliance
    # itself runs under systemd: its warnings (a device offline, a camera fault) belong in the journal.
    level = logging.WARNING if args.command == "run" else logging.ERROR
    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        return args.func(args)
    except (ValueError, OSError) as err:
        command = " ".join(filter(None, (args.command, getattr(args, "devices_command", None),
                                          getattr(args, "vision_command", None), getattr(args, "deck_command", None),
                                          getattr(args, "audit_command", None),
                                          getattr(args, "supervisor_command", None),
                                          getattr(args, "floor_command", None),
                                          getattr(args, "tls_command", None))))
        print(f"appliance {command}: {one_line(err)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
