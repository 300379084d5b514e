"""Every seat of a house wagered, the dealer's loop and the dashboard served on loopback as `appliance run` serves it:
the dealer's screen as a browser meets it. Used by the screen's browser tests and by
docs/screenshots.py. The camera is the simulated layout (tests/dealer_table.py)."""

from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

from dealer_table import Dealer

from appliance.audit.history_index import Index
from appliance.config import load_house
from appliance.devices.protocol import DiceResult, RngResult
from appliance.game.cards import CARDS, format_cards, parse_cards
from appliance.game.house_ways import set_by_house_way
from appliance.game.rules import StartMethod
from appliance.game.settlement import house_way_difference
from appliance.game.start_seat import DEALER
from appliance.game.values import evaluator
from appliance.web.app import create_app
from appliance.web.serving import serve_dashboard

#: the 7-inch display, 7-inch tablets, Touch Display 2 in landscape, 10-inch tablets, a 1080p monitor
SIZES = [(800, 480), (1024, 600), (1280, 720), (1280, 800), (1920, 1080)]

#: (house, banker): six players with a house dealer; seven seats at a California table, where the
#: Player/Dealer banks from one of them; at Greektown a player may take the bank from the house.
TABLES = {"house-dealer": ("general", DEALER), "california": ("capitol", 4), "greektown": ("greektown", 3),
          "fortune": ("fortune", 4), "general-bank": ("general", 3)}


class ServedTable:
    def __init__(self, folder: Path, kind: str = "house-dealer", reads_setting: bool = False):
        house, self.banker = TABLES[kind]
        self.rules = load_house(house)
        self.d = Dealer(folder / "log", rules=self.rules, reads_setting=reads_setting)
        self.index = Index(folder / "index.sqlite")
        self.d.table.listeners.append(self.index.add)
        self.ev = evaluator(self.rules.joker, self.rules.wheel)
        self.seats = [n for n in range(1, self.rules.start.player_seats + 1) if n != self.banker]
        self.rounds = 0
        self.dashboard = serve_dashboard(lambda site: create_app(
            self.d.live, self.rules, self.d.table, index=self.index, audit=self.d.audit, dealer=self.d.loop, site=site),
            self.d.live)
        self.base = self.dashboard.url

    def close(self) -> None:
        self.dashboard.stop()
        self.index.close()

    def wager_everyone(self, wager: str = "25") -> None:
        banker_wager = None if self.banker == DEALER else "500"
        self.d.loop.set_bets([{"seat": n, "wager": wager} for n in self.seats], self.banker, banker_wager)

    def deal(self) -> dict[str, list[str]]:
        """This round's hands, each set by the house way, by zone (the banker's seven as dealt)."""
        deck = list(CARDS)
        random.Random(self.rounds).shuffle(deck)
        hands = {}
        for n, position in enumerate([self.banker, *self.seats]):
            seven = deck[7 * n:7 * n + 7]
            if position == DEALER:
                hands["banker"] = format_cards(seven)
                continue
            setting = set_by_house_way(seven, self.rules.house_way, self.ev)
            hands[f"seat{position}.front"] = format_cards(setting.front)
            hands[f"seat{position}.back"] = format_cards(setting.back)
        return hands

    def start_value(self) -> None:
        """The house's device answers NEXT's request: the RNG, or the shaker at a house that throws dice only."""
        self.rounds += 1
        if StartMethod.RNG in self.rules.start.methods:
            self.d.loop.start_value("rng", RngResult(self.rounds, 1 + self.rounds % 7))
        else:
            self.d.loop.start_value("dice", DiceResult(self.rounds, (1 + self.rounds % 6, 2, 3)))

    def lay_banker(self, hands: dict, unreadable: int | None = None) -> None:
        zones = {z: c for z, c in hands.items() if z == "banker" or z.startswith(f"seat{self.banker}.")}
        if unreadable is not None:
            first = sorted(zones)[0]
            zones[first] = [None if i == unreadable else c for i, c in enumerate(zones[first])]
        self.d.look(zones)

    def lay_seats(self, hands: dict, unreadable: tuple[str, int] | None = None, unseen: str | None = None) -> None:
        """The players' hands, and where the layout reads it, the house dealer's setting by the house way."""
        zones = {z: list(c) for z, c in hands.items() if z != "banker" and not z.startswith(f"seat{self.banker}.")}
        if "banker.front" in self.d.loop.wanted_zones():  # the house dealer sets the banker's hand by the house way
            way = self.d.table.current.house_way_setting()
            zones.update({"banker.front": way["front"], "banker.back": way["back"]})
        if unreadable:
            zones[unreadable[0]][unreadable[1]] = None
        if unseen:
            del zones[unseen]
        self.d.look(zones)

    def set_otherwise(self) -> tuple[list[str], list[str]]:
        """A setting of the banker's seven that is not the house way's, and no foul: a dealer's mistake."""
        ev = self.rules.evaluator()
        seven = self.d.table.current.state.banker.cards
        for front in combinations(seven, 2):
            back = [c for c in seven if c not in front]
            fv, bv = ev.two(parse_cards(front)), ev.five(parse_cards(back))
            if not ev.fouls(fv, bv) and house_way_difference(DEALER, parse_cards(front), parse_cards(back), self.rules):
                return list(front), back
        raise AssertionError("every setting is the house way's")

    def play_round(self) -> None:
        """A whole round as the rail's buttons play it (no screen)."""
        hands = self.deal()
        assert self.d.loop.press("next") == ""
        self.start_value()
        self.lay_banker(hands)
        assert self.d.loop.press("confirm") == ""
        self.lay_seats(hands)
        assert self.d.loop.press("confirm") == "", self.d.loop.prompt()
