"""A table with one settled round in which the reader got a card wrong (seat 2's 3h is really Ac),
and a supervisor 1042 whose PIN is 4821: the starting point of the correction tests."""

from decimal import Decimal
from pathlib import Path

from appliance.game.settlement import SeatWagers
from appliance.audit.log import AuditLog
from appliance.config import load_house, read_toml
from appliance.table.supervisor import hash_pin
from appliance.table.table import Table

RULES = load_house("general")
SUPERVISOR, PIN = "1042", "4821"
CORRECTION = {"reason": "3h misread: ace of clubs", "seat": 2,
              "front": ["Ac", "2d"], "back": ["7c", "7s", "4h", "4d", "Jc"]}


def settled_table(log: Path, key: bytes, listeners=(), manual_start: bool = False):
    """(table, its round r1) after the round is settled."""
    table = Table(RULES, read_toml(Path(RULES.source)), AuditLog(log, key), {SUPERVISOR: hash_pin(PIN)})
    table.listeners.extend(listeners)
    r = table.new_round("r1")
    r.open("dealer", [SeatWagers(2, Decimal("25"))])
    if manual_start:
        table.manual_start("r1", SUPERVISOR, PIN, 4)
    else:
        r.start_seat("rng", 4)
    r.banker_cards(["As", "Kd", "9c", "9s", "5h", "5d", "2c"])
    r.seat_cards(2, ["3h", "2d"], ["7c", "7s", "4h", "4d", "Jc"])
    r.settle()
    return table, r
