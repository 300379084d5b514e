"""A table with the dealer's loop, the real round engine, audit log and live view; a simulated layout
(what is laid is what is seen, an unreadable card laid as None) stands in for the camera.
Supervisor 1042, PIN 4821."""

import itertools
from pathlib import Path

from appliance.audit.log import AuditLog
from appliance.config import load_house, read_toml
from appliance.devices.protocol import RngResult
from appliance.table.dealer import DealerLoop
from appliance.table.eye import TableTop
from appliance.table.live import LiveTable
from appliance.table.supervisor import hash_pin
from appliance.table.table import Table

KEY = b"d" * 64
RULES = load_house("general")
BANKER = ["As", "Kd", "9c", "9s", "5h", "5d", "2c"]
SEAT2 = {"seat2.front": ["Qh", "Jd"], "seat2.back": ["8c", "8s", "4h", "4d", "3c"]}
SEAT5 = {"seat5.front": ["Th", "6d"], "seat5.back": ["Ks", "Kh", "7d", "7h", "Jk"]}


class Dealer:
    """The loop and its surroundings, as the appliance builds them."""

    def __init__(self, folder: Path, start_requests: list | None = None, rules=RULES, audit: AuditLog | None = None,
                 space=None, reads_setting: bool = False):
        """``reads_setting``: the layout's banker.front and banker.back zones, where the house dealer's setting is read."""
        self.live = LiveTable()
        self.audit = audit or AuditLog(folder, KEY)
        self.table = Table(rules, read_toml(Path(rules.source)), self.audit, {"1042": hash_pin("4821")},
                           listeners=[self.live])
        self.top = TableTop()
        self.requests = start_requests if start_requests is not None else []
        ids = (f"t-{n}" for n in itertools.count(1))
        self.lamps: dict[str, bool] = {}
        self.loop = DealerLoop(self.table, self.top, self.roll, lambda: next(ids),
                               "rng", stable_frames=3, lamp=self.lamps.__setitem__, on_prompt=self.live.prompt,
                               **({"space": space} if space else {}), reads_setting=reads_setting)
        self.loop.announce()

    def roll(self) -> bool:
        self.requests.append("ROLL")
        return True

    def open_round(self):
        """Seat 2 wagers 25, NEXT, and the RNG's value 3: the banker's hand is next."""
        self.loop.set_bets([{"seat": 2, "wager": "25"}])
        self.loop.press("next")
        self.loop.start_value("rng", RngResult(1, 3))

    def look(self, zones, frames=3):
        self.top.lay(zones)
        for _ in range(frames):
            self.loop.tick()
