"""The serial start-seat device driver: reads validated results, watches the line, reconnects.

The port is opened through pyserial's ``serial_for_url``, so a device path, a
pseudo-terminal or any pyserial URL (``loop://``, ``socket://host:port``) works
the same. One background thread reads; results, rejections and status changes
go to the callbacks given to the constructor. Unplugging the USB adapter makes
reads fail: the driver closes the port, reports the device offline and opens
the same path again until it comes back (a udev name such as
``/dev/paigow-rng`` follows the device).
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from .protocol import ROLL, DiceResult, Heartbeat, LineReader, Rejection, RngResult, SequenceCheck, parse
from .worker import Worker

log = logging.getLogger(__name__)


class DeviceKind(enum.Enum):
    RNG = "rng"
    DICE = "dice"


class Status(enum.Enum):
    CONNECTING = "connecting"  # no valid message seen yet
    ONLINE = "online"
    OFFLINE = "offline"


@dataclass(frozen=True)
class SerialSettings:
    kind: DeviceKind
    port: str
    baudrate: int = 9600
    offline_after: float = 3.0  # seconds without a valid message
    reconnect_every: float = 0.5  # seconds between attempts to reopen a lost port
    read_timeout: float = 0.1
    write_timeout: float = 1.0  # a port that takes no more (a wedged adapter) fails the write, never hangs it


Result = RngResult | DiceResult


class StartSeatDevice(Worker):
    def __init__(
        self,
        settings: SerialSettings,
        on_result: Callable[[Result], None],
        on_reject: Callable[[Rejection], None] = lambda r: None,
        on_status: Callable[[Status, str], None] = lambda s, why: None,
        opener: Callable[..., serial.SerialBase] = serial.serial_for_url,
        clock: Callable[[], float] = time.monotonic,
    ):
        super().__init__()
        self.thread_name = f"serial-{settings.kind.value}"
        self.settings = settings
        self._on_result, self._on_reject, self._on_status = on_result, on_reject, on_status
        self._opener = opener
        self._clock = clock
        self._reader = LineReader()
        self._seqs = SequenceCheck()
        self._port: serial.SerialBase | None = None
        self._write_lock = threading.Lock()
        self.status = Status.CONNECTING
        self._last_valid = clock()

    def roll(self) -> bool:
        """Ask the device for a new result; False when the port is not open."""
        with self._write_lock:
            if self._port is None:
                return False
            try:
                self._port.write(ROLL)
                return True
            except (serial.SerialException, OSError) as err:
                log.warning("%s: ROLL not sent: %s", self.settings.port, err)
                return False

    # --- the reading loop ---------------------------------------------------------------

    def _stopped(self) -> None:
        self._close()

    def _work(self) -> None:
        self._last_valid = self._clock()  # silence is counted from the start, not from construction
        while not self._stop.is_set():
            self.on_beat()
            if self._port is None and not self._open():
                self._check_silence()
                self._stop.wait(self.settings.reconnect_every)
                continue
            try:
                port = self._port
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as err:
                # TypeError/AttributeError: pyserial's posix read on a port closed under it
                self._lost(f"read failed: {err}")
                continue
            for line in self._reader.feed(data):
                self.handle_line(line)
            self._check_silence()

    def _open(self) -> bool:
        try:
            port = self._opener(self.settings.port, baudrate=self.settings.baudrate,
                                timeout=self.settings.read_timeout, write_timeout=self.settings.write_timeout)
        except (serial.SerialException, OSError, ValueError) as err:
            log.debug("%s: cannot open: %s", self.settings.port, err)
            return False
        with self._write_lock:
            self._port = port
        log.info("%s: port open", self.settings.port)
        return True

    def _close(self) -> None:
        with self._write_lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass

    def _lost(self, why: str) -> None:
        self._close()
        partial = self._reader.discard_partial()
        if partial:
            self._reject(Rejection("partial line cut off by the lost connection", partial.decode("ascii", "replace")))
        self._set_status(Status.OFFLINE, why)

    def _check_silence(self) -> None:
        silent = self._clock() - self._last_valid
        if self.status is not Status.OFFLINE and silent > self.settings.offline_after:
            self._set_status(Status.OFFLINE, f"no valid message for {silent:.1f} s")

    def _set_status(self, status: Status, why: str) -> None:
        if status is not self.status:
            self.status = status
            log.warning("%s: %s (%s)", self.settings.port, status.value, why)
            self._on_status(status, why)

    def _reject(self, rejection: Rejection) -> None:
        log.info("%s: rejected %r: %s", self.settings.port, rejection.line, rejection.reason)
        self._on_reject(rejection)

    def handle_line(self, line: bytes) -> None:
        """Validate one line and deliver it (public for the parse benchmark)."""
        message = parse(line)
        if isinstance(message, Rejection):
            self._reject(message)
            return
        expected = RngResult if self.settings.kind is DeviceKind.RNG else DiceResult
        if not isinstance(message, (expected, Heartbeat)):
            self._reject(Rejection(f"a {type(message).__name__} on the {self.settings.kind.value} port",
                                   line.decode("ascii", "replace")))
            return
        kind = "H" if isinstance(message, Heartbeat) else "result"
        if self._seqs.repeated(kind, message.seq):
            self._reject(Rejection(f"repeated seq {message.seq}", line.decode("ascii", "replace")))
            return
        self._last_valid = self._clock()
        self._set_status(Status.ONLINE, "valid message")
        if not isinstance(message, Heartbeat):
            self._on_result(message)
