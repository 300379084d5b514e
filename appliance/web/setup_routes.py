"""The technician's first-run setup on the dashboard (``/setup``), behind the supervisor's PIN: the
camera's view with the markers found and their reprojection error, the deck taught card by card from
the camera, the start-seat device's live values, the buttons and lamps tested, and the house chosen.

Beginning the setup holds the table (no round opens while cards are laid in the teach zone and
buttons are pressed to test them); finishing it releases the table with the PIN. Every request needs
the supervisor's session, every change its CSRF token too, and every change is an audit record
naming the supervisor. What is wrong is said in a technician's words, never as a fault code.
"""

from __future__ import annotations

import functools
from importlib import resources

from flask import Blueprint, Response, g, jsonify, request

from ..game.cards import Card, CardError
from ..setup.camera_check import check_frame
from ..setup.deck_teaching import IMAGES, card_name
from ..setup.rig import SetupRig, chosen_house
from ..table.round import Events, Phase
from ..vision.calibrate import CalibrationError, calibrate
from ..vision.capture import CaptureError, photo_in_teach_zone
from ..vision.reader import read_zone
from .access import SETUP, Refused, answering, check_token, open_session, pin
from .request_body import ID_LIMIT, BodyError, json_object, text
from .services import services

PAGE = resources.files("appliance.web").joinpath("static", "setup.html").read_text(encoding="utf-8")

bp = Blueprint("setup", __name__)


class SetupRefused(Refused):
    """What the setup cannot do now, in the technician's words (a 409)."""

    def __init__(self, message: str):
        super().__init__(409, message)


def current_rig() -> SetupRig:
    return services().setup


def setup_step(change: bool, before_begin: bool = False):
    """A route for a supervisor's open session; a change also needs the session's CSRF token and a
    JSON object as its body. Unless ``before_begin``, it is refused (409) until the setup has begun."""
    def wrap(view):
        @functools.wraps(view)
        @answering(SETUP)
        def guarded(*args, **kwargs):
            open_session()
            if change:
                check_token()
                kwargs["body"] = json_object()
            g.who = f"supervisor {g.supervisor.supervisor}"
            if not before_begin and current_rig().begun_by is None:
                raise SetupRefused("begin the setup first: it holds the table while you test")
            return view(*args, **kwargs)
        return guarded
    return wrap


def camera_frame(laid=None):
    rig = current_rig()
    if rig.camera is None:
        raise SetupRefused("no camera: this simulation reads the table by a perfect eye; start it with "
                           "`appliance run --simulate --render` to see the simulated camera")
    frame = rig.frame(laid)
    if frame is None:
        raise SetupRefused("no picture from the camera: check its cable and that it is enabled "
                           "(hardware/README.md); the dealer's screen shows the camera's fault")
    return frame


def card_code(body: dict) -> str:
    given = text(body, "card", 4)
    try:
        return str(Card.parse(given))
    except CardError:
        raise BodyError(f"card: {given!r} is not a card code such as As, Td or Jk") from None


@bp.get("/setup")
def setup_view():
    return Response(PAGE, mimetype="text/html")


@bp.get("/api/setup")
@setup_step(change=False, before_begin=True)
def overview():
    rig = current_rig()
    table = rig.table
    return jsonify({"begun_by": rig.begun_by, "held": table.held, "simulated_camera": rig.lay is not None,
                    "camera": rig.camera is not None, "house_in_use": rig.house_in_use, "checks": rig.checks})


@bp.post("/api/setup/begin")
@setup_step(change=True, before_begin=True)
def begin(body):
    rig = current_rig()
    table = rig.table
    with table.lock:
        current = table.current
        if current is not None and current.phase not in (Phase.SETTLED, Phase.VOIDED):
            raise SetupRefused(f"round {current.round_id} is in play: settle or void it before the setup")
        if rig.begun_by is None:
            rig.begun_by, rig.checks = g.who, {}
            table.log(Events.SETUP_BEGUN, {"held_before": table.held}, g.who)
            if table.held is None:
                table.hold(f"setup in progress ({g.who}): the technician is testing the camera, the deck, "
                           "the devices and the buttons", g.who)
    return jsonify({"begun_by": rig.begun_by, "held": table.held})


@bp.post("/api/setup/end")
@setup_step(change=True)
def end(body):
    rig = current_rig()
    table = rig.table
    given, address = pin(body), request.remote_addr or "?"
    if table.held is not None:  # the release checks the PIN
        table.release(g.supervisor.supervisor, given, "setup finished", address)
    else:
        table.gate.check(g.supervisor.supervisor, given, address)
    for lamp in rig.panel.layout.lamps:
        rig.panel.test_lamp(lamp, None)
    if rig.lay is not None:
        rig.lay({})  # the simulation's teach card taken away
    table.log(Events.SETUP_ENDED, {"checks": rig.checks, "presses": dict(rig.panel.presses)}, g.who)
    rig.begun_by = None
    return jsonify({"ok": True, "held": table.held})


# --- the camera ------------------------------------------------------------------------------


@bp.get("/api/setup/camera")
@setup_step(change=False)
def camera():
    rig = current_rig()
    check = check_frame(camera_frame(), rig.layout)
    rig.checks["camera"] = {"ok": check.ok, "found": check.found, "error_px": check.to_json()["error_px"]}
    return jsonify(check.to_json())


# --- the deck --------------------------------------------------------------------------------


@bp.get("/api/setup/deck")
@setup_step(change=False)
def deck():
    rig = current_rig()
    return jsonify(rig.deck.to_json())


@bp.get("/api/setup/deck/<code>/<kind>.png")
@setup_step(change=False)
def deck_image(code: str, kind: str):
    rig = current_rig()
    image = rig.deck.image(code[:3], kind) if kind in IMAGES else None
    if image is None:
        raise Refused(404, f"no {kind[:20]!r} picture of card {code[:3]!r}")
    return Response(image, mimetype="image/png", headers={"Cache-Control": "no-store"})


@bp.post("/api/setup/deck/capture")
@setup_step(change=True)
def capture(body):
    """The card named, as it lies in the teach zone now (in a simulation, laid there first)."""
    rig = current_rig()
    code = card_code(body)
    try:
        photo = photo_in_teach_zone(camera_frame({"teach": [code]}), rig.layout)
    except CalibrationError as err:
        raise SetupRefused(f"the table cannot be measured, so the teach zone cannot be found: {err}. "
                           "See the camera step") from None
    except CaptureError as err:
        raise SetupRefused(f"{err} (the {card_name(code)}, face up)") from None
    taught = rig.deck.capture(code, photo)
    return jsonify({**taught.to_json(code), "deck": rig.deck.to_json()})


@bp.post("/api/setup/deck/learn")
@setup_step(change=True)
def learn_again(body):
    rig = current_rig()
    rig.deck.learn_again()
    return jsonify(rig.deck.to_json())


@bp.post("/api/setup/deck/use")
@setup_step(change=True)
def use_deck(body):
    """The deck learned becomes the reader's now, and at the next start."""
    rig = current_rig()
    table = rig.table
    if not hasattr(rig.loop.eye, "deck"):
        raise SetupRefused("this simulation has no camera reader to give the deck to")
    faces_learned = len(rig.deck.learned.corners) if rig.deck.learned is not None else 0
    deck = rig.deck.use()
    rig.loop.eye.deck = deck
    taught = rig.deck.to_json()
    record = {"folder": str(rig.deck.deck_dir), "faces_learned": faces_learned,
              "refused": taught["refused"], "ranks": sorted(deck.ranks), "suits": sorted(deck.suits),
              "templates": sum(map(len, deck.ranks.values())) + sum(map(len, deck.suits.values())),
              "index_mm": deck.index.to_json()}
    table.log(Events.DECK_TAUGHT, record, g.who)
    rig.checks["deck"] = {"faces_learned": record["faces_learned"], "refused": taught["refused"]}
    return jsonify({"ok": True, **record})


@bp.post("/api/setup/deck/try")
@setup_step(change=True)
def try_deck(body):
    """The card in the teach zone read with the reader's deck, as a round would read it."""
    rig = current_rig()
    laid = {"teach": [card_code(body)]} if rig.lay is not None else None
    frame = camera_frame(laid)
    try:
        calibration = calibrate(frame, rig.layout)
    except CalibrationError as err:
        raise SetupRefused(f"the table cannot be measured: {err}. See the camera step") from None
    reads = read_zone(frame, rig.layout.zone("teach"), rig.loop.eye.deck, calibration)
    if len(reads) != 1:
        raise SetupRefused(f"{len(reads)} cards in the teach zone: lay exactly one card there")
    read = reads[0]
    say = (f"read as the {card_name(read.card)} ({read.confidence:.0%} sure)" if read.card else
           f"unreadable: {read.reason}")
    return jsonify({"card": read.card, "say": say})


# --- the start-seat device -------------------------------------------------------------------


@bp.get("/api/setup/device")
@setup_step(change=False)
def device():
    rig = current_rig()
    serial = rig.serial
    status = rig.device.status
    if serial is None:
        say = (f"{rig.device.source}: the appliance's own generator, nothing to wire"
               if rig.device.source == "builtin" else f"{rig.device.source}: no serial device")
    elif serial.status.value == "online":
        say = f"The {serial.settings.kind.value.upper()} on {serial.settings.port} answers."
    else:
        say = (f"No valid message from the {serial.settings.kind.value.upper()} on {serial.settings.port} "
               f"({serial.status.value}): check its USB cable and power; the udev name comes from "
               "hardware/99-paigow.rules.")
    return jsonify({"source": rig.device.source, "port": serial.settings.port if serial else None,
                    "status": serial.status.value if serial else "built in", "last_status": status, "say": say,
                    "values": list(rig.device.values), "rejected": list(rig.device.rejected)})


@bp.post("/api/setup/device/roll")
@setup_step(change=True)
def roll(body):
    """Ask the device for a value (logged as a value no round used)."""
    rig = current_rig()
    if not rig.request_start():
        raise SetupRefused("the device's port is not open: is it plugged in? (see the status above)")
    rig.checks["device_asked"] = rig.checks.get("device_asked", 0) + 1
    return jsonify({"ok": True})


# --- the buttons and lamps -------------------------------------------------------------------


@bp.get("/api/setup/panel")
@setup_step(change=False)
def panel():
    rig = current_rig()
    p = rig.panel
    return jsonify({"buttons": [{"name": n, "pin": pin, "down": p.is_down(n), "presses": p.presses[n]}
                                for n, pin in p.layout.buttons.items()],
                    "lamps": [{"name": n, "pin": pin, "on": p.lamp_is_on(n)} for n, pin in p.layout.lamps.items()]})


@bp.post("/api/setup/lamp")
@setup_step(change=True)
def lamp(body):
    rig = current_rig()
    table = rig.table
    name = text(body, "lamp", ID_LIMIT)
    if name not in rig.panel.layout.lamps:
        raise BodyError(f"lamp: {name!r} is not one of {', '.join(rig.panel.layout.lamps)}")
    on = body.get("on")
    if on is not None and not isinstance(on, bool):
        raise BodyError("on: expected true (lit), false (dark) or null (back to the table)")
    rig.panel.test_lamp(name, on)
    table.log(Events.LAMP_TESTED, {"lamp": name, "pin": rig.panel.layout.lamps[name], "on": on}, g.who)
    rig.checks.setdefault("lamps", {})[name] = rig.checks.get("lamps", {}).get(name, []) + [on]
    return jsonify({"lamp": name, "on": rig.panel.lamp_is_on(name), "tested": on is not None})


# --- the house -------------------------------------------------------------------------------


@bp.get("/api/setup/houses")
@setup_step(change=False)
def houses():
    rig = current_rig()
    return jsonify({"in_use": rig.house_in_use, "chosen": _chosen(rig), "houses": [
        {"house": key, **_house_summary(rig.house(key))} for key in rig.houses()]})


@bp.post("/api/setup/house")
@setup_step(change=True)
def choose_house(body):
    rig = current_rig()
    table = rig.table
    key = text(body, "house", ID_LIMIT)
    if key not in rig.houses():
        raise BodyError(f"house: {key!r} is not one of {', '.join(rig.houses())}")
    rules = rig.house(key)
    choice = rig.choose_house(key, rules.name, g.who)
    table.log(Events.HOUSE_CHOSEN, {"house": key, "name": rules.name, "source": rules.source,
                                    "in_use": rig.house_in_use}, g.who)
    rig.checks["house"] = key
    say = (f"{rules.name} is the house in use." if key == rig.house_in_use else
           f"{rules.name} is chosen: the table deals by it from its next start (restart the appliance: "
           "sudo systemctl restart paigow-appliance). Until then it deals by "
           f"{rig.house(rig.house_in_use).name}.")
    return jsonify({**choice, "say": say})


def _chosen(rig: SetupRig) -> str | None:
    try:
        choice = chosen_house(rig.data)
    except ValueError:
        return None
    return None if choice is None else choice["house"]


def _house_summary(rules) -> dict:
    return {"name": rules.name, "house_way": rules.house_way_name, "player_seats": rules.start.player_seats}
