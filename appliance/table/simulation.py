"""A table that plays itself: full rounds through the dealer's loop, the round engine and the audit log.

Each round: wagers, a start-seat value from the simulated RNG, seven hands of seven dealt
from a shuffled 53-card deck in rotation from the first hand (four cards unused, empty
seats' hands discarded), the banker's hand and each seat's hand read from the simulated
camera by the real reader (or seen by a perfect eye with ``render=False``), players setting
their hands by the house way, and the settlement. A card the reader cannot read is named
by the simulated dealer, as a person would at the table, and logged so.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from decimal import Decimal
from itertools import combinations
from pathlib import Path

from ..audit.history_index import Index
from ..audit.log import AuditLog, RecordingStopped
from ..config import read_house
from ..game.cards import format_cards, parse_cards
from ..game.house_ways import house_way_split
from ..game.rules import BankerSetting, BankingMode, HouseRules, StartMethod
from ..game.settlement import house_way_difference
from ..game.banking import BankRound, bank_offers
from ..game.start_seat import DEALER, Position, first_hand, ring
from ..records.fold import Rounds
from ..records.round_state import RoundState
from ..devices.protocol import DiceResult, RngResult
from ..devices.start_source import HealthTracker, HealthWarning
from ..devices.worker import Worker
from .dealer import DealerLoop
from .dealer_errors import DealerInputError
from .dealer_step import Step
from .eye import CameraEye, TableTop
from .recording import IndexFeed, SpaceLimits, catch_up
from ..vision.layout import BANKER_SET_ZONES
from .round import Events, Phase, RoundIds, void_interrupted
from .table import BANK_MEMORY, Table

log = logging.getLogger(__name__)


class SimulationStopped(ValueError):
    """A simulated table that cannot go on (no round can be opened)."""


def random_wagers(rng: random.Random, rules: HouseRules,
                  history: Sequence[BankRound] = ()) -> tuple[Position, list[dict], Decimal | None]:
    """A round's banker, the seats that play (about three in four) and their wagers, within the house's limits,
    with a backline wager now and then where the house takes them. Where a player always banks, the bank is
    offered in the house's order and each seat the rules allow takes it at even odds (the last one offered
    takes it when all before passed)."""
    player_seats = rules.start.player_seats
    banker: Position = DEALER
    if rules.banking.mode is BankingMode.PLAYER:
        allowed = [o.seat for o in bank_offers(history, rules.banking, player_seats) if o.refusal is None]
        banker = next((s for s in allowed if rng.random() < 0.5), allowed[-1])
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
    if rules.limits.backline:
        for bet in bets:
            if rng.random() < 0.2:
                bet["backline"] = [{"wager": str(low * rng.randint(1, 5)), "by": "backline 1"}]
    banker_wager = Decimal(rng.randrange(100, 1001, 50)) if banker != DEALER else None
    return banker, bets, banker_wager


def deal(rng: random.Random, rules: HouseRules, first: Position) -> dict[Position, list[str]]:
    """Seven hands of seven from a shuffled 53-card deck, in rotation from the first hand; four cards stay unused."""
    deck = list(range(53))
    rng.shuffle(deck)
    positions = ring(rules.start.player_seats)
    step_dir = 1 if rules.start.action_direction.value == "clockwise" else -1
    start = positions.index(first)
    order = [positions[(start + step_dir * k) % len(positions)] for k in range(len(positions))]
    return {pos: format_cards(deck[7 * i: 7 * i + 7]) for i, pos in enumerate(order)}


def players_set(hands: dict, seats: list[int], rules: HouseRules, ev) -> dict[str, list[str]]:
    """Each playing seat's hand set by the house way, as laid in its front and back zones."""
    laid = {}
    for seat in seats:
        laid.update(house_way_laid(hands[seat], f"seat{seat}", rules, ev))
    return laid


def house_way_laid(hand: list[str], place: str, rules: HouseRules, ev) -> dict[str, list[str]]:
    """Seven cards set by the house way, as laid in ``place``'s front and back zones (``seat3``, ``banker``)."""
    front, back, _, _, _ = house_way_split(parse_cards(hand), rules.way, ev)
    return {f"{place}.front": format_cards(sorted(front, reverse=True)),
            f"{place}.back": format_cards(sorted(back, reverse=True))}


def mislaid(hand: list[str], banker: Position, rules: HouseRules, ev) -> dict[str, list[str]] | None:
    """The banker's seven set otherwise than the house way, and no foul, as laid in the banker's set zones:
    a house dealer's mistake (None where every such setting is the house way's)."""
    cards = parse_cards(hand)
    for front in combinations(cards, 2):
        back = [c for c in cards if c not in front]
        if not ev.fouls(ev.two(front), ev.five(back)) and house_way_difference(banker, front, back, rules):
            return {"banker.front": format_cards(front), "banker.back": format_cards(back)}
    return None


def play_rounds(rules: HouseRules, audit: AuditLog, rounds: int, seed: int = 1, render: bool = False,
                size: tuple[int, int] = (4608, 2592), listeners=(), pace=lambda: None,
                stop=lambda: False, index: Index | None = None, space: SpaceLimits = SpaceLimits(),
                mislay: float = 0.0) -> dict:
    """Play ``rounds`` rounds, one move at a time, through the dealer's loop: the simulated dealer
    at its inputs, the start value from a seeded RNG, the cards seen by a perfect eye or (``render``)
    the synthetic camera and the real reader. ``listeners`` see every record, ``pace()`` runs between
    the dealer's moves (the live demo waits there), and ``stop()`` ends the run between rounds.
    Round ids go on from the history ``index`` (caught up with the log first); without one, an index in
    memory is built from the whole log. With no supervisor to wait for, a run stops with
    :class:`RecordingStopped` when recording stops, and with :class:`SimulationStopped` when a round
    cannot be opened (the disk below ``space``). ``mislay``: the share of house-banked rounds in which the
    house dealer first sets the banker's hand otherwise than the house way (held, then reset)."""
    if index is None:
        index = Index(":memory:")
    catch_up(index, audit.folder)
    table = Table(rules, read_house(Path(rules.source)), audit, {}, listeners=[IndexFeed(index.add, audit), *listeners])
    table.log(Events.APPLIANCE_STARTED, {"mode": "simulate-table", "seed": seed, "render": render,
                                         "house": rules.key}, "appliance")
    interrupted = void_interrupted(audit)
    table.remember_banking(index.bank_rounds(rules.key, BANK_MEMORY))
    played = PlayedTotals()
    table.listeners.append(played)
    # Every start value feeds the device's running uniformity check; a warning is an audit record.
    def warned(w: HealthWarning) -> None:
        table.log(Events.DEVICE_HEALTH, {"device": "simulated-rng", "source": w.source, "message": w.message(),
                                         **w.check.to_json()}, "appliance")

    health = HealthTracker("simulated-rng", on_warning=warned)

    def roll() -> bool:  # the device answers at once, with a value that depends on the round alone
        round_id = table.playing.round_id
        draw, seq = random.Random(f"{seed}:{round_id}:start"), int(round_id.rsplit("-", 1)[1]) % 10000
        if StartMethod.RNG in rules.start.methods:
            loop.start_value("simulated-rng", RngResult(seq, draw.randint(1, 7)))
        else:  # a house that throws dice only (Capitol rule 14) refuses an RNG value: the shaker answers
            dice = (draw.randint(1, 6), draw.randint(1, 6), draw.randint(1, 6))
            loop.start_value("simulated-rng", DiceResult(seq, dice))
        return True

    eye, lay = simulated_eye(render, seed, size)
    # the shipped table, whose layout reads the house dealer's setting (tests/test_vision_layout.py)
    loop = DealerLoop(table, eye, roll, RoundIds(index.last_number, lambda: str(seed)), "simulated-rng", health,
                      stable_frames=2, space=space, reads_setting=True)
    dealer = SimulatedDealer(loop, lambda button: loop.press(button, "dealer (simulated)"), lay, seed, patience=5,
                             mislay=mislay)
    for _ in range(rounds):
        if stop():
            break
        if loop.step is Step.HELD and (table.current is None or table.current.phase in (Phase.SETTLED, Phase.VOIDED)):
            raise SimulationStopped(f"the table is held: {table.held}")  # e.g. the clock stepped at the start
        dealer.act()  # wagers and NEXT: the round opens and the device answers
        if loop.step is Step.IDLE and loop.message:
            raise SimulationStopped(loop.message)
        for _move in range(100):
            if audit.stopped is not None:
                raise RecordingStopped(f"{audit.stopped.reason} (the log is whole up to record {audit.seq})")
            if loop.step is Step.IDLE:
                break
            if loop.step is Step.HELD:
                raise RuntimeError(f"round {table.playing.round_id}: {table.held}")
            pace()
            dealer.act()  # lays the cards this step wants, names what the camera could not read, confirms
            loop.tick()
        else:
            raise RuntimeError(f"round {table.playing.round_id}: not settled after 100 moves ({loop.prompt()['say']})")
    return {**played.totals(), "voided_at_start": interrupted}


class PlayedTotals:
    """What a simulation played, from each round's state by the one fold (a listener): the rounds settled,
    the cards a person named, the commission and the collection of the settlements that stand."""

    def __init__(self) -> None:
        self._rounds = Rounds()
        self._over = {"rounds": 0, "confirmed_reads": 0, "commission": Decimal(0), "collection": Decimal(0)}

    def __call__(self, record: dict) -> None:
        before = self._rounds.current
        folded = self._rounds.fold(record)
        if before is not None and folded is not None and folded is not before:
            self._over = _added(self._over, before)  # rounds follow one another: the one before is over

    def totals(self) -> dict:
        """``{"rounds", "confirmed_reads", "commission", "collection"}`` so far, the amounts as text."""
        totals = self._over if self._rounds.current is None else _added(self._over, self._rounds.current)
        return {**totals, "commission": str(totals["commission"]), "collection": str(totals["collection"])}


def _added(totals: dict, state: RoundState) -> dict:
    settled = state.settlement["totals"] if state.settlement is not None else None
    return {"rounds": totals["rounds"] + (settled is not None),
            "confirmed_reads": totals["confirmed_reads"] + len(state.confirmations),
            "commission": totals["commission"] + Decimal(settled["commission"] if settled else 0),
            "collection": totals["collection"] + Decimal(settled["collection"] if settled else 0)}


def _sees(seen: dict | None, laid: list[str]) -> bool:
    """Whether the camera's steady read of a zone (as the dealer's screen shows it) is of the cards laid there:
    as many, and each named as laid or not named at all (a card the dealer names)."""
    return seen is not None and len(seen["reads"]) == len(laid) and all(
        read["card"] in (None, card) for read, card in zip(seen["reads"], laid))


def simulated_eye(render: bool, seed: int, size: tuple[int, int], layout=None,
                  on_status: Callable[[str, str], None] = lambda status, detail: None):
    """A perfect eye, or the synthetic camera read by the real reader (its deck learned as a technician
    teaches one); and how the simulated dealer lays cards before it."""
    if not render:
        top = TableTop()
        return top, top.lay
    from ..config import shipped_config_dir
    from ..devices.camera import Camera
    from ..vision.calibrate import Calibrator
    from ..vision.layout import load_layout
    from ..vision.render import SyntheticCamera, learned_deck

    layout = layout or load_layout(shipped_config_dir() / "layout.toml")
    synthetic = SyntheticCamera(layout, "classic", seed=seed, size=size)
    camera = Camera(lambda: synthetic, on_fault=lambda why: on_status("fault", why))
    return CameraEye(camera, layout, learned_deck("classic"), Calibrator(layout), on_status), synthetic.show


class TableMovedOn(DealerInputError):
    """The simulated dealer's move for a step, a round or reads that are no longer the table's: not made."""


class SimulatedDealer(Worker):
    """The dealer of the simulation, at the appliance's real inputs: wagers on the screen, the rail's
    buttons (``press``), cards laid on the layout the camera sees (``lay``), and an unreadable card
    named from the cards dealt, as a person at the table would. Like a person, it waits for the screen to
    show the cards it laid (the camera may be slow, or have looked before they were laid), and types a zone
    in only when the camera has not settled on it ``patience`` frames later. A held table waits for a
    supervisor. In a share ``mislay`` of the rounds the house dealer banks, it first sets the banker's hand
    otherwise than the house way; held for it, it resets the hand after ``reset_moves`` moves (the hold stays
    on the screens)."""

    thread_name = "simulated-dealer"

    def __init__(self, loop: DealerLoop, press, lay, seed: int = 1, pace: float = 1.5, rounds: int | None = None,
                 patience: int = 10,  # frames the dealer waits, once cards are laid, before typing a zone in
                 paying: int = 0,  # moves spent paying a settled round (it stays on the screen) before NEXT
                 mislay: float = 0.0, reset_moves: int = 0):
        super().__init__()
        self.loop, self._press, self._lay = loop, press, lay
        self.seed, self.pace, self.rounds, self.patience, self.paying = seed, pace, rounds, patience, paying
        self.mislay, self.reset_moves = mislay, reset_moves
        self._paid = self._held_for = 0
        # the rounds the table opened, counted once dealt: a NEXT pressed is not one, the rail may
        # not take it (its thread did not look while the button was held, under load)
        self.opened = 0
        self.played = threading.Event()  # set once the ``rounds`` asked for are played and settled
        self._laid: tuple | None = None  # (round, step, the cards laid, the camera's look count when laid)
        rules = loop.table.rules
        self._ev = rules.evaluator()
        self._hands: dict = {}
        self._round: str | None = None

    def _work(self) -> None:
        while not self._stop.wait(self.pace):
            try:
                self.act()
            except DealerInputError as err:  # the table moved on between looking and acting
                log.info("simulated dealer: %s", err)

    def act(self) -> None:
        """One move of the dealer, by where the round stands at one look: the step, the round, the reads and
        the zones wanted, taken together under the table's lock. The table may move on before the move is
        made (the rail's CONFIRM is taken by the panel's thread a moment after the press): the dealer's
        inputs are then refused (:class:`TableMovedOn`), never made for the step after."""
        loop, rules = self.loop, self.loop.table.rules
        with loop.table.lock:
            look, looks = loop.prompt(), loop.looks
            step = Step(look["step"])
            if step in (Step.BANKER, Step.SEATS, Step.RESET):
                round_id = loop.table.playing.round_id
                banker, count, seats = _dealt(loop.table.playing.state)
        if step is Step.IDLE:
            if self.rounds is not None and self.opened >= self.rounds:
                self.played.set()
                return
            if self.opened and self._paid < self.paying:
                self._paid += 1
                return
            # the next round's wagers, the same at each NEXT until the table opens it
            banker, bets, banker_wager = random_wagers(random.Random(f"{self.seed}:wagers:{self.opened + 1}"),
                                                        rules, loop.table.bank_history)
            self._lay({})
            loop.set_bets(bets, banker, banker_wager, who="dealer (simulated)")
            self._press("next")
        elif step is Step.START:
            self._press("next")  # the device did not answer in time: ask again
        elif step is Step.BANK:
            # A CONFIRM that came after the one that settled the round (the rail's press is taken by the
            # panel's thread, a moment later) offered the bank between rounds: the seat asked passes it
            # on, seat by seat, until the offer ends, and the dealer deals on.
            self._press("next")
        elif step in (Step.BANKER, Step.SEATS, Step.RESET):
            if self._round != round_id:
                first = first_hand(count, banker, rules.start.player_seats, rules.start.count_direction)
                self._hands = deal(random.Random(f"{self.seed}:{round_id}"), rules, first)
                self._round, self._paid = round_id, 0
                self.opened += 1
            own = rules.banking.banker_sets is BankerSetting.OWN
            # a player-banker (a seat, not the dealer) sets his own hand, here as the house way would
            if step is Step.BANKER and isinstance(banker, int) and own:
                laid = players_set(self._hands, [banker], rules, self._ev)
            elif step is Step.BANKER:
                laid = {"banker": self._hands[banker]}
            else:
                laid = players_set(self._hands, seats, rules, self._ev)
                if BANKER_SET_ZONES[0] in look["wanted"]:  # the house dealer sets the banker's hand
                    laid.update(self._banker_set(step, round_id, self._hands[banker]))
            if step is Step.RESET and self._held_for < self.reset_moves:
                self._held_for += 1
                return
            self._held_for = 0
            self._lay(laid)
            if self._laid is None or self._laid[:3] != (round_id, step, laid):
                self._laid = (round_id, step, laid, looks)  # laid anew: the camera has yet to see it
            behind = [zone for zone in look["wanted"] if not _sees(look["zones"].get(zone), laid[zone])]
            if behind and looks - self._laid[3] < self.patience:
                # The camera still shows the layout as it was before the cards were laid (a slow reader
                # under load, or a look taken before they were): a dealer waits for it, types nothing.
                return
            self._laid = None
            with loop.table.lock:  # the inputs for the look, at the table as it was looked at, or none
                now = (loop.step, loop.table.current.round_id if loop.table.current else None, loop.version)
                if now != (step, round_id, look["version"]):
                    raise TableMovedOn(f"round {round_id}: the table moved on from the {step.value} step the "
                                       f"dealer looked at (now {now[0].value}, round {now[1]}, reads "
                                       f"{look['version']} -> {now[2]}): looking again")
                for zone in look["wanted"]:
                    seen = look["zones"].get(zone)
                    if seen is None or len(seen["cards"]) != len(laid[zone]):
                        # a zone the camera never settles on, or cards it cannot tell apart: typed in
                        loop.enter_hand(zone, laid[zone], who="dealer (simulated)")
                        continue
                    # Each card the camera could not read, named where it lies now: after a reset a name the
                    # dealer gave for the setting held is still shown (the camera cannot tell that unread
                    # cards moved) and is named again.
                    for position, (read, card) in enumerate(zip(seen["reads"], laid[zone])):
                        if read["card"] is None and seen["cards"][position] != card:
                            loop.name_card(zone, position, card, who="dealer (simulated)")
            self._press("confirm")

    def _banker_set(self, step: Step, round_id: str, hand: list[str]) -> dict[str, list[str]]:
        """The banker's hand as the house dealer sets it: by the house way, or in a share ``mislay`` of the
        rounds first otherwise (the reset, once held, is the house way's)."""
        rules = self.loop.table.rules
        if step is Step.SEATS and random.Random(f"{self.seed}:{round_id}:mislay").random() < self.mislay:
            otherwise = mislaid(hand, DEALER, rules, self._ev)
            if otherwise is not None:
                return otherwise
        return house_way_laid(hand, "banker", rules, self._ev)


def _dealt(state: RoundState) -> tuple[Position, int, list[int]]:
    """The banker, start count and playing seats of a round being dealt (its start seat is past)."""
    count = state.start.count if state.start is not None else None
    if count is None or state.banker.seat is None:
        raise DealerInputError(f"round {state.round}: dealt with no start value or banker recorded")
    return state.banker.seat, count, [b["seat"] for b in state.bets]
