"""What the technician's setup reaches on a running appliance: the camera and layout, the start-seat
device and its recent values, the dealer's buttons and lamps, the deck being taught, and the houses.

The choices the setup makes are kept in the data folder (``<data>/setup/``): the configuration
folder is read-only to the service. The house chosen there is the one ``appliance run`` deals by at
its next start; a deck taught there is the one the camera reads with, at once and at the next start.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..config import house_files, load_house
from ..devices.gpio import Panel
from ..devices.serial_device import StartSeatDevice
from ..game.rules import HouseRules
from ..table.dealer import DealerLoop
from ..table.round import Events
from ..table.table import Table
from ..vision.index import IndexGeometry
from .deck_teaching import DeckTeaching

HOUSE_FILE = "house.json"
DECK_FOLDER = "deck"
VALUES_SHOWN = 12
FRAME_WAIT_S = 3.0  # a camera that is reopening gets this long to give a frame


def setup_folder(data: Path) -> Path:
    return data / "setup"


def chosen_house(data: Path) -> dict | None:
    """The house chosen on the setup screen (``{"house", "name", "by", "at"}``), or None."""
    path = setup_folder(data) / HOUSE_FILE
    try:
        chosen = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not a house choice ({err}): choose the house again on the setup screen") from None
    if not isinstance(chosen, dict) or not isinstance(chosen.get("house"), str):
        raise ValueError(f"{path}: no house named: choose the house again on the setup screen")
    return chosen


def taught_deck(data: Path) -> Path | None:
    """The deck taught on the setup screen, if one was put in use."""
    folder = setup_folder(data) / DECK_FOLDER
    return folder if (folder / "deck.json").is_file() else None


def write_choice(data: Path, choice: dict) -> Path:
    folder = setup_folder(data)
    folder.mkdir(mode=0o750, parents=True, exist_ok=True)
    path, tmp = folder / HOUSE_FILE, folder / (HOUSE_FILE + ".tmp")
    tmp.write_text(json.dumps(choice, indent=1))
    os.replace(tmp, path)
    return path


class DeviceWatch:
    """The start-seat source's recent values and status, from the table's records (a listener)."""

    def __init__(self, source: str):
        self.source = source
        self.values: collections.deque = collections.deque(maxlen=VALUES_SHOWN)
        self.rejected: collections.deque = collections.deque(maxlen=4)
        self.status: dict | None = None

    def __call__(self, record: dict) -> None:
        data, event = record.get("data", {}), record.get("event")
        if event == Events.START_SEAT and data.get("source") == self.source or \
                event == Events.DEVICE_VALUE and data.get("device") == self.source:
            self.values.appendleft({"value": data.get("value"), "dice": data.get("dice"), "seq": data.get("seq"),
                                    "at": record.get("ts"), "used": event == Events.START_SEAT})
        elif event == Events.DEVICE_REJECTED and data.get("device") == self.source:
            self.rejected.appendleft({"line": data.get("rejected"), "reason": data.get("reason"), "at": record.get("ts")})
        elif event == Events.DEVICE_STATUS and data.get("device") == self.source:
            self.status = {"status": data.get("status"), "detail": data.get("detail"), "at": record.get("ts")}


@dataclass
class SetupRig:
    """The parts of one appliance the setup works with, and what the setup has done so far."""

    loop: DealerLoop
    panel: Panel
    data: Path
    config_dir: Path | None
    house_in_use: str
    request_start: Callable[[], bool]  # asks the start-seat device for a value
    device: DeviceWatch
    serial: StartSeatDevice | None = None
    # the simulation's hand laying cards before the rendered camera
    lay: Callable[[dict[str, list[str]]], None] | None = None
    deck: DeckTeaching = field(init=False)
    begun_by: str | None = None
    checks: dict = field(default_factory=dict)  # what the setup saw work, for its closing record
    frame_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.deck = DeckTeaching(setup_folder(self.data), self.geometry_in_use)
        self.loop.table.listeners.append(self.device)

    @classmethod
    def of(cls, station, data: Path, config_dir: Path | None, house_in_use: str) -> SetupRig:
        return cls(station.loop, station.panel, data, config_dir, house_in_use, station.request_start,
                   DeviceWatch(station.start_source_name), station.start_device, station.lay)

    @property
    def table(self) -> Table:
        return self.loop.table

    @property
    def camera(self):
        """The camera the reader looks through, or None (a simulation read by a perfect eye)."""
        return getattr(self.loop.eye, "camera", None)

    @property
    def layout(self):
        return getattr(self.loop.eye, "layout", None)

    def geometry_in_use(self) -> IndexGeometry | None:
        deck = getattr(self.loop.eye, "deck", None)
        return None if deck is None else deck.index

    @property
    def houses_dir(self) -> Path | None:
        """The configuration folder whose houses/ the table's houses come from (None: the shipped one)."""
        return self.config_dir if self.config_dir and (self.config_dir / "houses").is_dir() else None

    def houses(self) -> dict[str, Path]:
        return house_files(self.houses_dir)

    def house(self, key: str) -> HouseRules:
        return load_house(key, self.houses_dir)

    def frame(self, laid: dict[str, list[str]] | None = None) -> np.ndarray | None:
        """A fresh frame from the camera (in a simulation, with ``laid`` on the table first)."""
        with self.frame_lock:
            if laid is not None and self.lay is not None:
                self.lay(laid)
            deadline = time.monotonic() + FRAME_WAIT_S
            while True:
                frame = self.camera.read()
                if frame is not None or time.monotonic() > deadline:
                    return frame
                time.sleep(0.1)

    def choose_house(self, key: str, name: str, who: str) -> dict:
        choice = {"house": key, "name": name, "by": who, "at": dt.datetime.now(dt.UTC).isoformat()}
        write_choice(self.data, choice)
        return choice
