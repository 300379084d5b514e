"""A table with the dealer's loop, the real round engine, audit log and live view; a simulated layout
(what is laid is what is seen, an unreadable card laid as None) stands in for the camera.
Supervisor 1042, PIN 4821."""

import itertools
from pathlib import Path

from appliance.audit.log import AuditLog
from appliance.config import load_house, read_house
from appliance.devices.gpio import Panel, PanelPins, SimulatedPins
from appliance.devices.protocol import DiceResult, RngResult
from appliance.game.rules import StartMethod
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


class Lamps(dict):
    """The lamps as the loop last lit them; with a rail attached (:meth:`Rail.attach`) its lamps follow."""

    panel = None

    def __setitem__(self, name, on):
        super().__setitem__(name, on)
        if self.panel is not None:
            self.panel.lamp(name, on)


class Dealer:
    """The loop and its surroundings, as the appliance builds them."""

    def __init__(self, folder: Path, start_requests: list | None = None, rules=RULES, audit: AuditLog | None = None,
                 space=None, reads_setting: bool = False):
        """``reads_setting``: the layout's banker.front and banker.back zones, where the house dealer's setting is read."""
        self.live = LiveTable()
        self.audit = audit or AuditLog(folder, KEY)
        self.table = Table(rules, read_house(Path(rules.source)), self.audit, {"1042": hash_pin("4821")},
                           listeners=[self.live])
        self.top = TableTop()
        self.requests = start_requests if start_requests is not None else []
        ids = (f"t-{n}" for n in itertools.count(1))
        self.lamps = Lamps()
        self.loop = DealerLoop(self.table, self.top, self.roll, lambda: next(ids),
                               "rng", stable_frames=3, lamp=self.lamps.__setitem__, on_prompt=self.live.prompt,
                               **({"space": space} if space else {}), reads_setting=reads_setting)
        self.loop.announce()

    def roll(self) -> bool:
        self.requests.append("ROLL")
        return True

    def open_round(self):
        """Seat 2 wagers 25, NEXT, and the RNG's value 3 (at a house that throws dice only, three aces: 3):
        the banker's hand is next."""
        self.loop.set_bets([{"seat": 2, "wager": "25"}])
        self.loop.press("next")
        if StartMethod.RNG in self.table.rules.start.methods:
            self.loop.start_value("rng", RngResult(1, 3))
        else:
            self.loop.start_value("dice", DiceResult(1, (1, 1, 1)))

    def look(self, zones, frames=3):
        self.top.lay(zones)
        for _ in range(frames):
            self.loop.tick()


class Clock:
    """Time that moves only when a test moves it."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


RAIL = PanelPins(buttons={"next": 17, "confirm": 27, "supervisor": 22}, lamps={"attention": 23, "ready": 24},
                 debounce=0.03)


class Rail:
    """The rail's buttons and lamps on simulated pins, wired to a dealer's loop as the station wires them:
    a press is a pin held low past the debounce time, sampled as the panel's thread samples it."""

    def __init__(self):
        self.pins, self.clock = SimulatedPins(), Clock()
        self.loop = None
        self.panel = Panel(self.pins, RAIL, lambda name: self.loop.press(name, "dealer (button)"), self.clock)

    def attach(self, dealer: Dealer) -> None:
        """The rail's buttons press ``dealer``'s loop, and its lamps light as the loop asks."""
        self.loop = dealer.loop
        dealer.lamps.panel = self.panel
        dealer.loop.announce()

    def press(self, name: str) -> None:
        pin = RAIL.buttons[name]
        for level in (False, True):
            self.pins.drive(pin, level)
            self.run(0.05)

    def run(self, seconds: float) -> list[bool]:
        """Sample for ``seconds`` (every 5 ms): the ready lamp's level at each sample."""
        levels = []
        for _ in range(round(seconds / RAIL.sample_every)):
            self.clock.now += RAIL.sample_every
            self.panel.sample()
            levels.append(self.panel.lamp_is_on("ready"))
        return levels

    def ready_flashes(self) -> int:
        """The number the ready lamp flashes: its flashes between two pauses (0 while it is steady)."""
        runs = [(lit, len(list(samples))) for lit, samples in itertools.groupby(self.run(12.0))]
        if len(runs) < 3:
            return 0
        pause = max(n for lit, n in runs if not lit)
        pauses = [i for i, (lit, n) in enumerate(runs) if not lit and n >= pause - 2]  # a sample either way
        return sum(1 for lit, _ in runs[pauses[0] + 1:pauses[1]] if lit)
