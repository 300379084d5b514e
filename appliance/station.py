"""The appliance assembled from its configuration: the start-seat device, the camera, the dealer's
buttons, the dealer's loop, and the threads that run them.

``appliance run`` builds one station. In simulation every part is the simulated one behind the
same seam (a device on a pseudo-terminal speaking the real protocol, the renderer or a perfect
eye as the camera, simulated GPIO pins) and a simulated dealer plays at those inputs; on the
table the parts named in ``devices.toml`` are used and the dealer plays.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from pathlib import Path

from .audit.history_index import Index
from .audit.log import RecordingStopped
from .config import DeviceConfig, DeviceConfigError
from .devices.builtin_rng import BuiltinRng
from .devices.camera import Camera, ImageFolderSource, Picamera2Source, VideoCaptureSource
from .devices.gpio import BACKENDS, Panel, SimulatedPins
from .devices.serial_device import DeviceKind, SerialSettings, StartSeatDevice
from .devices.simulator import DeviceSimulator
from .devices.start_source import HealthTracker
from .devices.worker import Worker
from .game.rules import StartMethod
from .heartbeats import Heartbeats, Probe, lock_probe
from .table.dealer import DealerLoop
from .table.eye import CameraEye
from .table.recording import RecordingProbe, SpaceLimits
from .table.repeats import fault_kind
from .table.round import Events, RoundIds, interrupted, void_interrupted
from .table.simulation import SimulatedDealer, simulated_eye
from .table.table import BANK_MEMORY, Table

log = logging.getLogger(__name__)


class Watcher(Worker):
    """The camera's thread: looks at the layout whenever the loop wants a zone read."""

    thread_name = "camera"

    def __init__(self, every: float, tick):
        super().__init__()
        self.every, self._tick = every, tick

    def _work(self) -> None:
        while not self._stop.is_set():
            self.on_beat()
            started = time.monotonic()
            self._tick()
            self._stop.wait(max(0.0, self.every - (time.monotonic() - started)))


class Station:
    """Everything ``appliance run`` starts; ``stop()`` ends it in order."""

    def __init__(self, table: Table, devices: DeviceConfig, simulate: bool, render: bool = False, seed: int = 1,
                 pace: float = 1.5, rounds: int | None = None, on_prompt=lambda prompt: None,
                 index: Index | None = None, ready_to_record=lambda: True, mislay: float = 0.0):
        """``index`` is the history index, caught up with the log and listening to the table; without
        one, an index in memory is built from the whole log. ``ready_to_record`` says whether the
        parts beside the log (the index's feed) can take records again after recording stopped.
        ``mislay``: in a simulation, the share of rounds in which the house dealer first sets the
        banker's hand otherwise than the house way (:class:`SimulatedDealer`)."""
        if index is None:
            index = Index(":memory:")
            index.catch_up(table.audit.folder)
            table.listeners.append(index.add)
        self.table = table
        self.workers: list[Worker] = []
        self.camera: Camera | None = None  # a real camera, closed when the station stops
        self.start_device: StartSeatDevice | None = None  # the serial RNG or shaker, if the start values come from one
        self.hearts = Heartbeats(devices.stale_after)  # what the watchdog's pings rest on
        self.played: threading.Event | None = None  # a simulation's ``rounds``, once played
        status = self._status_logger()
        health = HealthTracker("start-seat", devices.health_window, devices.health_alpha, on_warning=lambda w: table.note(
            Events.DEVICE_HEALTH, {"device": "start-seat", "source": w.source, "message": w.message(),
                                   **w.check.to_json()}, "appliance"))
        # the rail first: a missing GPIO library is said before the camera and the deck are loaded
        pins = SimulatedPins() if simulate else self._pins(devices)
        request_start, source = self._start_source(devices, simulate, status)
        eye, lay, every, reads_setting = self._eye(devices, simulate, render, seed, status)
        # what the technician's setup reaches: the start value asked for, and in a simulation with a
        # rendered camera the hand that lays cards before it (a teach card too)
        self.request_start, self.start_source_name = request_start, source
        self.lay = lay if render or not simulate else None
        self.panel = Panel(pins, devices.panel,
                           on_press=self._guarded("buttons", lambda name: self.loop.press(name, "dealer (button)")))
        def day() -> str:  # round ids by gaming day: <day>-0001, <day>-0002, ...
            return table.audit.gaming_day(dt.datetime.now(dt.UTC))

        self.loop = DealerLoop(table, eye, request_start, RoundIds(index.last_number, day, digits=4), source, health,
                               devices.vision.stable_frames, lamp=self.panel.lamp, on_prompt=on_prompt,
                               space=SpaceLimits(devices.warn_free_mb, devices.refuse_free_mb), reads_setting=reads_setting)
        # Recording stopped holds the table at once; the probe lights the lamp and tries to record again.
        self.probe = RecordingProbe(table.resume_recording, lambda: table.audit.stopped is not None,
                                    self.loop.announce, ready=ready_to_record)
        camera_reader = Watcher(every, self._guarded("camera", self.loop.tick))
        table_probe = Probe("table", lock_probe(table.lock), min(1.0, devices.stale_after / 4))
        camera_reader.on_beat, table_probe.on_beat = self.hearts.watch("camera"), self.hearts.watch("table")
        self.workers += [self.panel, camera_reader, self.probe, table_probe]
        if simulate:
            def press(name: str) -> None:  # a finger on the rail's button: held past the debounce time
                pin = devices.panel.buttons[name]
                pins.drive(pin, False)
                time.sleep(devices.panel.debounce * 3)
                pins.drive(pin, True)

            # the settled round stays on the screen while the dealer pays it, as at a table, and a held
            # setting while the dealer is slow to reset it (a supervisor may let it stand meanwhile)
            dealer = SimulatedDealer(self.loop, press, lay, seed, pace, rounds, paying=4, mislay=mislay, reset_moves=8)
            self.workers.append(dealer)
            self.played = dealer.played
            void_interrupted(table.audit)  # the simulation clears a power cut itself
        open_rounds = interrupted(table.audit.folder)
        # The bank's rotation looks back across a restart: the rounds settled before it, from the index.
        table.remember_banking(index.bank_rounds(table.rules.key, BANK_MEMORY, excluding=tuple(open_rounds)))
        for round_id in open_rounds:
            table.resume(round_id)  # held until a supervisor decides

    @staticmethod
    def _pins(devices: DeviceConfig):
        try:
            return BACKENDS[devices.gpio_backend]()
        except (ImportError, RuntimeError) as err:  # no GPIO library, or RPi.GPIO where it cannot run (a Pi 5)
            raise DeviceConfigError(
                f"{devices.source}: gpio.backend: \"{devices.gpio_backend}\" cannot open the pins: {err} "
                "(install RPi.GPIO on a Pi 1-4, rpi-lgpio on a Pi 5: hardware/README.md)") from None

    def _guarded(self, part: str, action):
        """``action`` for a device's thread: one bad input or fault is logged and reported as the part's
        fault, and the thread goes on (a dead button thread would leave the dealer without buttons)."""
        def run(*args):
            try:
                return action(*args)
            except RecordingStopped as err:  # the table is held by it; the probe reports it
                log.error("%s: %s", part, err)
            except Exception as err:  # noqa: BLE001 - whatever it was, the thread must survive it
                detail = f"{type(err).__name__}: {err}"
                if self.table.repeats.offer((Events.DEVICE_STATUS, part, fault_kind(detail)), Events.DEVICE_STATUS,
                                            {"device": part, "status": "fault", "detail": detail}, "appliance"):
                    log.exception("%s: %s", part, err)  # the journal too hears of it once a window
        return run

    def _status_logger(self):
        def status(device: str, state: str, detail: str) -> None:
            self.table.note(Events.DEVICE_STATUS, {"device": device, "status": state, "detail": detail}, "appliance")
        return status

    def _start_source(self, devices: DeviceConfig, simulate: bool, status):
        kind = "simulated" if simulate else devices.start_source
        method = {"builtin": StartMethod.RNG, "rng": StartMethod.RNG, "dice": StartMethod.DICE}.get(kind)
        methods = self.table.rules.start.methods
        if method is not None and method not in methods:  # every value it gave would be refused
            raise DeviceConfigError(f"{devices.source}: start_seat.source {kind!r}: {self.table.rules.name} starts "
                                    f"with {' or '.join(m.value for m in methods)} only (start_seat.methods)")
        if kind == "builtin":
            rng = BuiltinRng()

            def draw() -> bool:
                self.loop.start_value(rng.kind, rng.draw())
                return True
            return draw, rng.kind
        if kind == "simulated":  # the house's own method: Capitol throws dice only (start_seat.methods)
            simulated = DeviceKind.RNG if StartMethod.RNG in self.table.rules.start.methods else DeviceKind.DICE
            simulator = DeviceSimulator(simulated)
            self.workers.append(simulator)
            settings = SerialSettings(simulated, simulator.path)
            name = f"simulated-{simulated.value}"
        else:
            settings = devices.serial[DeviceKind(kind)]
            if "://" not in settings.port and not Path(settings.port).exists():
                raise DeviceConfigError(f"{devices.source}: serial.{kind}.port: {settings.port}: no such device "
                                        "(is it plugged in? see hardware/99-paigow.rules)")
            name = kind
        device = StartSeatDevice(
            settings, on_result=self._guarded(name, lambda result: self.loop.start_value(name, result)),
            on_reject=lambda rejection: self.table.repeats.offer(
                (Events.DEVICE_REJECTED, name, fault_kind(rejection.reason)), Events.DEVICE_REJECTED,
                {"device": name, **rejection.to_json()}, "device"),
            on_status=lambda state, why: status(name, state.value, why))
        device.on_beat = self.hearts.watch("device")
        self.workers.append(device)
        self.start_device = device
        return device.roll, name

    def _eye(self, devices: DeviceConfig, simulate: bool, render: bool, seed: int, status):
        """The camera seam: (eye, how the simulated dealer lays cards, seconds between looks, whether the
        layout reads the house dealer's setting)."""
        from .vision.calibrate import Calibrator
        from .vision.deck import Deck
        from .vision.layout import load_layout

        cam = devices.camera
        layout = load_layout(devices.vision.layout)
        needed = ["banker", *(f"seat{n}.{part}" for n in range(1, self.table.rules.start.player_seats + 1)
                              for part in ("front", "back"))]
        have = {zone.name for zone in layout.zones}
        missing = [name for name in needed if name not in have]
        if missing:
            raise DeviceConfigError(f"{devices.vision.layout}: no zone {', '.join(missing)}: a "
                                    f"{self.table.rules.start.player_seats}-seat table needs each seat's front and back")
        if simulate or cam.source == "synthetic":
            eye, lay = simulated_eye(render or not simulate, seed, (cam.width, cam.height), layout,
                                     lambda state, why: status("camera", state, why))
            return eye, lay, 0.05, layout.reads_banker_setting
        open_source = {"picamera2": lambda: Picamera2Source(cam.width, cam.height),
                       "v4l2": lambda: VideoCaptureSource(int(cam.device) if cam.device.isdigit() else cam.device,
                                                          cam.width, cam.height),
                       "folder": lambda: ImageFolderSource(cam.device, loop=True)}[cam.source]
        camera = self.camera = Camera(open_source, on_fault=lambda why: status("camera", "fault", why),
                                      stall_after=cam.stall_after)
        eye = CameraEye(camera, layout, Deck.load(devices.vision.deck), Calibrator(layout),
                        on_status=lambda state, why: status("camera", state, why))
        return eye, None, 0.1, layout.reads_banker_setting

    def start(self) -> Station:
        for worker in self.workers:
            worker.start()
        self.loop.announce()
        return self

    def stop(self) -> None:
        for worker in reversed(self.workers):
            worker.stop()
        if self.camera is not None:
            self.camera.close()  # after its thread has stopped: no read can come in between
        self.table.repeats.flush()  # the counts of faults and refused logins still being counted
        self.table.gate.refusals.flush()

