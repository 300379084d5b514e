"""Dealer buttons and lamps on GPIO, behind one seam with a real and a simulated backend.

Buttons are wired to ground with the pin pulled up (pressed reads low). Debouncing
is done here, by sampling, rather than by the GPIO library: RPi.GPIO and rpi-lgpio
(its stand-in on a Raspberry Pi 5) debounce differently, and sampled debouncing
behaves the same on both and in simulation. The real backend imports its library
only when it is constructed, so nothing imports RPi.GPIO on a machine that runs
the simulated backend (importing it off a Pi raises RuntimeError).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from .worker import Worker

BUTTONS = ("next", "confirm", "supervisor")
LAMPS = ("attention", "ready")


class Pins(Protocol):
    def setup_input(self, pin: int) -> None: ...
    def setup_output(self, pin: int) -> None: ...
    def read(self, pin: int) -> bool: ...
    def write(self, pin: int, on: bool) -> None: ...
    def close(self) -> None: ...


class SimulatedPins:
    """Pins in memory: tests and the simulator drive inputs and read the lamps' history."""

    def __init__(self) -> None:
        self.levels: dict[int, bool] = {}
        self.history: dict[int, list[bool]] = {}

    def setup_input(self, pin: int) -> None:
        self.levels[pin] = True  # pulled up: released

    def setup_output(self, pin: int) -> None:
        self.levels[pin] = False
        self.history[pin] = []

    def read(self, pin: int) -> bool:
        return self.levels[pin]

    def write(self, pin: int, on: bool) -> None:
        self.levels[pin] = on
        self.history[pin].append(on)

    def drive(self, pin: int, level: bool) -> None:
        self.levels[pin] = level

    def close(self) -> None:
        pass


class RpiGpioPins:
    """The RPi.GPIO API: the RPi.GPIO package (Pi 1-4) or rpi-lgpio (Pi 5, same import name)."""

    def __init__(self) -> None:
        import RPi.GPIO as GPIO  # noqa: N814  (only on a Pi, only when configured)

        self.GPIO = GPIO
        GPIO.setwarnings(False)
        GPIO.setmode(GPIO.BCM)

    def setup_input(self, pin: int) -> None:
        self.GPIO.setup(pin, self.GPIO.IN, pull_up_down=self.GPIO.PUD_UP)

    def setup_output(self, pin: int) -> None:
        self.GPIO.setup(pin, self.GPIO.OUT, initial=self.GPIO.LOW)

    def read(self, pin: int) -> bool:
        return bool(self.GPIO.input(pin))

    def write(self, pin: int, on: bool) -> None:
        self.GPIO.output(pin, self.GPIO.HIGH if on else self.GPIO.LOW)

    def close(self) -> None:
        self.GPIO.cleanup()


BACKENDS: dict[str, Callable[[], Pins]] = {"simulated": SimulatedPins, "rpi-gpio": RpiGpioPins}


@dataclass(frozen=True)
class Flashing:
    """A lamp that flashes ``count`` times, then stays dark for a pause, over and over: a number (the
    seat the bank is offered to) that the dealer reads off the rail without looking at the screen."""

    count: int
    on_s: float = 0.3
    off_s: float = 0.3
    pause_s: float = 1.2

    def lit(self, elapsed: float) -> bool:
        """Whether the lamp is lit ``elapsed`` seconds after the flashing began (it begins lit)."""
        flash = self.on_s + self.off_s
        t = elapsed % (self.count * flash + self.pause_s)
        return t < self.count * flash and t % flash < self.on_s


@dataclass(frozen=True)
class PanelPins:
    buttons: Mapping[str, int]  # name -> BCM pin
    lamps: Mapping[str, int]
    debounce: float = 0.03  # seconds a level must hold before it counts
    sample_every: float = 0.005


class Panel(Worker):
    """The dealer's buttons and lamps. ``on_press(name)`` is called once per debounced press."""

    thread_name = "gpio-panel"

    def __init__(self, pins: Pins, layout: PanelPins, on_press: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.pins = pins
        self.layout = layout
        self._on_press = on_press
        self._clock = clock
        for pin in layout.buttons.values():
            pins.setup_input(pin)
        for pin in layout.lamps.values():
            pins.setup_output(pin)
        # per button: the debounced level, and the raw level with when it last changed
        now = clock()
        self._stable = {name: True for name in layout.buttons}
        self._raw = {name: (True, now) for name in layout.buttons}
        self.presses = {name: 0 for name in layout.buttons}  # debounced presses since start (the setup shows them)
        self._wanted: dict[str, bool | Flashing] = {name: False for name in layout.lamps}  # what the table last asked
        self._flashing_since: dict[str, float] = {}  # a flashing lamp: when its pattern began
        # The table asks for lamps from its thread while this one keeps them flashing.
        self._lamps_lock = threading.Lock()
        self._tested: dict[str, bool] = {}  # lamps held by a technician's test, whatever the table asks

    def sample(self) -> None:
        """Read every button once; a press is a debounced fall from released to pressed."""
        now = self._clock()
        for name, pin in self.layout.buttons.items():
            level = self.pins.read(pin)
            raw, since = self._raw[name]
            if level != raw:
                self._raw[name] = (level, now)
                continue
            if level != self._stable[name] and now - since >= self.layout.debounce:
                self._stable[name] = level
                if not level:
                    self.presses[name] += 1
                    self._on_press(name)
        self._flash(now)

    def is_down(self, name: str) -> bool:
        """The button is held down now (debounced)."""
        return not self._stable[name]

    def lamp(self, name: str, on: bool | Flashing) -> None:
        """Light or darken a lamp, or flash it (the sampling thread keeps it flashing)."""
        with self._lamps_lock:
            if isinstance(on, Flashing):
                if self._wanted[name] == on:
                    return  # already flashing this number: its rhythm is not restarted at every announcement
                self._flashing_since[name] = self._clock()
            else:
                self._flashing_since.pop(name, None)
            self._wanted[name] = on
            if name not in self._tested:
                self.pins.write(self.layout.lamps[name], bool(on))

    def _flash(self, now: float) -> None:
        with self._lamps_lock:
            for name, since in self._flashing_since.items():
                lit = self._wanted[name].lit(now - since)
                if name not in self._tested and lit != self.lamp_is_on(name):
                    self.pins.write(self.layout.lamps[name], lit)

    def test_lamp(self, name: str, on: bool | None) -> None:
        """A technician's lamp test: ``on`` holds the lamp lit or dark whatever the table asks (the
        table lights its lamps on every change); None gives the lamp back to the table."""
        with self._lamps_lock:
            if on is None:
                self._tested.pop(name, None)
                self.pins.write(self.layout.lamps[name], bool(self._wanted[name]))
            else:
                self._tested[name] = on
                self.pins.write(self.layout.lamps[name], on)

    def lamp_is_on(self, name: str) -> bool:
        return self.pins.read(self.layout.lamps[name])

    def _work(self) -> None:
        while not self._stop.wait(self.layout.sample_every):
            self.sample()

    def _stopped(self) -> None:
        self.pins.close()
