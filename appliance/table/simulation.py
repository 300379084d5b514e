"""A table that plays itself: full rounds through the real round engine and audit log.

Each round: bets, a start-seat value from the simulated RNG, seven hands of seven dealt
from a shuffled 53-card deck in rotation from the first hand (four cards unused, empty
seats' hands discarded), the banker's hand and each seat's hand read from the simulated
camera by the real reader (or taken as dealt with ``render=False``), players setting
their hands by the house way, and the settlement. A card the reader cannot read is
confirmed by the simulated dealer, as a person would at the table, and logged so.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ..audit.log import AuditLog
from ..config import read_toml
from ..game.cards import format_cards, parse_cards
from ..game.house_ways import decide
from ..game.rules import BankingMode, HouseRules
from ..game.start_seat import DEALER, Position, first_hand, ring
from ..game.values import evaluator
from ..devices.protocol import RngResult
from ..devices.start_source import HealthTracker
from ..devices.worker import Worker
from .dealer import DealerInputError, DealerLoop, Step
from .round import Events, TableRound, rounds_in, void_interrupted

log = logging.getLogger(__name__)


@dataclass
class Reader:
    """The simulated camera and the real card reader, or (render=False) a perfect eye."""

    render: bool
    seed: int
    size: tuple[int, int] = (4608, 2592)
    stable_frames: int = 2  # a read is accepted when the same over this many frames

    def __post_init__(self) -> None:
        if not self.render:
            return
        from ..config import shipped_config_dir
        from ..vision.calibrate import Calibrator
        from ..vision.layout import load_layout
        from ..vision.render import SyntheticCamera, learned_deck

        self.layout = load_layout(shipped_config_dir() / "layout.toml")
        self.deck = learned_deck("classic")
        self.camera = SyntheticCamera(self.layout, "classic", seed=self.seed, size=self.size)
        self.calibrator = Calibrator(self.layout)

    def read(self, zones: dict[str, list[str]], audit: AuditLog) -> tuple[dict[str, list[dict]], dict[str, str]]:
        """What the reader says of each zone ([{"card": code or None, ...}] left to right), and the
        SHA-256 of each accepted zone image, kept in the audit log."""
        if not self.render:
            return {zone: [{"card": c, "confidence": 1.0} for c in cards] for zone, cards in zones.items()}, {}
        import cv2

        images: dict[str, str] = {}

        from ..vision.reader import read_zone, zone_image

        from .stable import StableRead

        self.camera.show(zones)
        stable = {name: StableRead(self.stable_frames) for name in zones}
        accepted: dict[str, list[dict]] = {}
        for _ in range(self.stable_frames + 3):  # a zone that never settles is confirmed by the dealer
            frame = self.camera.read()
            calibration = self.calibrator.update(frame)
            for name in zones:
                if name in accepted:
                    continue
                zone = self.layout.zone(name)
                steady = stable[name].offer([r.to_json() for r in read_zone(frame, zone, self.deck, calibration)])
                if steady is not None:
                    accepted[name] = steady
                    ok, png = cv2.imencode(".png", zone_image(frame, zone, calibration)[0])
                    images[name] = audit.store_image(png.tobytes())
            if len(accepted) == len(zones):
                break
        return {name: accepted.get(name, []) for name in zones}, images


def _confirmed(table: TableRound, zone: str, read: list[dict], dealt: list[str], totals: dict) -> list[str]:
    """The cards as read, with each unreadable or missing one confirmed by the (simulated) dealer."""
    cards = []
    for i, truth in enumerate(dealt):
        got = read[i]["card"] if i < len(read) and len(read) == len(dealt) else None
        if got is None:
            table.confirm_read(zone, i, truth, who="dealer (simulated)")
            totals["confirmed_reads"] += 1
            got = truth
        cards.append(got)
    return cards


def random_wagers(rng: random.Random, rules: HouseRules) -> tuple[Position, list[dict], Decimal | None]:
    """A round's banker, the seats that play (about three in four) and their wagers, within the house's limits."""
    player_seats = rules.start.player_seats
    banker = DEALER if rules.banking.mode is not BankingMode.PLAYER else rng.randint(1, player_seats)
    seats = [s for s in range(1, player_seats + 1) if s != banker and rng.random() < 0.75] or \
        [next(s for s in range(1, player_seats + 1) if s != banker)]
    step = 5
    low, high = int(rules.limits.minimum), int(rules.limits.maximum)
    bets = [{"seat": s, "wager": str(rng.randrange(low, min(high, low * 10) + 1, step) if low % step == 0 else low)}
            for s in seats]
    if rules.fortune is not None:
        for bet in bets:
            if rng.random() < 0.4:
                bet["fortune"] = str(max(int(rules.fortune.minimum), rng.choice([1, 5, 10])))
    banker_wager = Decimal(rng.randrange(100, 1001, 50)) if banker != DEALER else None
    return banker, bets, banker_wager


def deal(rng: random.Random, rules: HouseRules, banker: Position, first: Position) -> dict[Position, list[str]]:
    """Seven hands of seven from a shuffled 53-card deck, in rotation from the first hand; four cards stay unused."""
    deck = list(range(53))
    rng.shuffle(deck)
    positions = ring(rules.start.player_seats, banker)
    step_dir = 1 if rules.start.action_direction.value == "clockwise" else -1
    start = positions.index(first)
    order = [positions[(start + step_dir * k) % len(positions)] for k in range(len(positions))]
    return {pos: format_cards(deck[7 * i: 7 * i + 7]) for i, pos in enumerate(order)}


def players_set(hands: dict, seats: list[int], rules: HouseRules, ev) -> dict[str, list[str]]:
    """Each playing seat's hand set by the house way, as laid in its front and back zones."""
    laid = {}
    for seat in seats:
        front, back, _, _, _ = decide(parse_cards(hands[seat]), rules.house_way, ev)
        laid[f"seat{seat}.front"] = format_cards(sorted(front, reverse=True))
        laid[f"seat{seat}.back"] = format_cards(sorted(back, reverse=True))
    return laid


def play_rounds(rules: HouseRules, audit: AuditLog, rounds: int, seed: int = 1, render: bool = False,
                size: tuple[int, int] = (4608, 2592), listeners=(), pace=lambda: None,
                stop=lambda: False) -> dict:
    """Play ``rounds`` rounds; ``listeners`` see every record of each round, ``pace()`` runs between
    the steps of a round (the live demo waits there), and ``stop()`` ends the run between rounds."""
    mapping = read_toml(Path(rules.source))
    reader = Reader(render, seed, size)
    ev = evaluator(rules.joker, rules.wheel)
    audit.append(Events.APPLIANCE_STARTED, {"mode": "simulate-table", "seed": seed, "render": render,
                                            "house": rules.key})
    interrupted = void_interrupted(audit)
    # Rounds go on from the last one logged, so a restart never repeats a round id.
    done = [int(rid.rsplit("-", 1)[1]) for rid in rounds_in(audit.folder) if rid.startswith(f"{seed}-")]
    first_round = max(done, default=0) + 1
    totals = {"rounds": 0, "confirmed_reads": 0, "commission": Decimal(0), "collection": Decimal(0),
              "voided_at_start": interrupted}
    # Every start value feeds the device's running uniformity check; a warning is an audit record.
    health = HealthTracker("simulated-rng", on_warning=lambda w: audit.append(
        Events.DEVICE_HEALTH, {"source": w.source, "message": w.message(), **w.check.to_json()}, "appliance"))
    for n in range(first_round, first_round + rounds):
        rng = random.Random(f"{seed}:{n}")  # each round's deal depends on its number alone
        banker, bets, banker_wager = random_wagers(rng, rules)
        seats = [b["seat"] for b in bets]
        if stop():
            break
        table = TableRound(f"{seed}-{n}", rules, mapping, audit, list(listeners))
        table.open(banker, bets, banker_wager)
        pace()
        value = rng.randint(1, 7)
        health.observe(RngResult(n % 10000, value))
        first = table.start_seat("simulated-rng", value, seq=n % 10000)
        pace()
        hands = deal(rng, rules, banker, first)
        banker_hand = hands[banker]
        reads, images = reader.read({"banker": banker_hand}, audit)
        read = reads["banker"]
        table.banker_cards(_confirmed(table, "banker", read, banker_hand, totals), read=read,
                           images=list(images.values()))
        pace()
        # Players set their hands (by the house way here); one frame shows every seat's cards.
        laid = players_set(hands, seats, rules, ev)
        reads, images = reader.read(laid, audit)
        for seat in seats:
            front_zone, back_zone = f"seat{seat}.front", f"seat{seat}.back"
            table.seat_cards(seat, _confirmed(table, front_zone, reads[front_zone], laid[front_zone], totals),
                             _confirmed(table, back_zone, reads[back_zone], laid[back_zone], totals),
                             read=[*reads[front_zone], *reads[back_zone]],
                             images=[images[z] for z in (front_zone, back_zone) if z in images])
            pace()
        settlement = table.settle()
        totals["rounds"] += 1
        totals["commission"] += Decimal(settlement["totals"]["commission"])
        totals["collection"] += Decimal(settlement["totals"]["collection"])
    totals["commission"], totals["collection"] = str(totals["commission"]), str(totals["collection"])
    return totals


class SimulatedDealer(Worker):
    """The dealer of the simulation, at the appliance's real inputs: wagers on the screen, the rail's
    buttons (``press``), cards laid on the layout the camera sees (``lay``), and an unreadable card
    named from the cards dealt, as a person at the table would. A held table waits for a supervisor."""

    thread_name = "simulated-dealer"

    def __init__(self, loop: DealerLoop, press, lay, seed: int = 1, pace: float = 1.5, rounds: int | None = None):
        super().__init__()
        self.loop, self._press, self._lay = loop, press, lay
        self.seed, self.pace, self.rounds = seed, pace, rounds
        self.opened = 0
        rules = loop.table.rules
        self._ev = evaluator(rules.joker, rules.wheel)
        self._hands: dict = {}
        self._round = None

    def _work(self) -> None:
        while not self._stop.wait(self.pace):
            try:
                self.act()
            except DealerInputError as err:  # the table moved on between looking and acting
                log.info("simulated dealer: %s", err)

    def act(self) -> None:
        """One move of the dealer, by where the round stands."""
        loop, rules = self.loop, self.loop.table.rules
        step, current = loop.step, loop.table.current
        if step is Step.IDLE:
            if self.rounds is not None and self.opened >= self.rounds:
                return
            self.opened += 1
            number = int(current.round_id.rsplit("-", 1)[1]) + 1 if current is not None else 1
            banker, bets, banker_wager = random_wagers(random.Random(f"{self.seed}:{number}"), rules)
            self._lay({})
            loop.set_bets(bets, banker, banker_wager, who="dealer (simulated)")
            self._press("next")
        elif step is Step.START:
            self._press("next")  # the device did not answer in time: ask again
        elif step in (Step.BANKER, Step.SEATS):
            state = current.state
            if self._round != current.round_id:
                start = state["start"]
                count = sum(start["dice"]) if start["dice"] else start["value"]
                first = first_hand(count, state["banker"], rules.start.player_seats, rules.start.count_direction)
                self._hands = deal(random.Random(f"{self.seed}:{current.round_id}"), rules, state["banker"], first)
                self._round = current.round_id
            if step is Step.BANKER and loop.wanted_zones() == ["banker"]:
                laid = {"banker": self._hands[state["banker"]]}
            elif step is Step.BANKER:  # a player-banker sets his own hand (here as the house way would)
                laid = players_set(self._hands, [state["banker"]], rules, self._ev)
            else:
                laid = players_set(self._hands, [b["seat"] for b in state["bets"]], rules, self._ev)
            self._lay(laid)
            prompt = loop.prompt()
            if not all(zone in prompt["zones"] for zone in prompt["wanted"]):
                return  # the camera has no steady read yet
            for zone in prompt["wanted"]:
                seen = prompt["zones"][zone]
                if len(seen["cards"]) != len(laid[zone]):  # cards the camera cannot tell apart: typed in
                    loop.enter_hand(zone, laid[zone], who="dealer (simulated)")
                    continue
                for position in seen["unreadable"]:
                    loop.name_card(zone, position, laid[zone][position], who="dealer (simulated)")
            self._press("confirm")


