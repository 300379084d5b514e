"""What the dealer is shown: where the round stands and what to do next, in words, with the wagers, the
bank, the zones read and, while it is to be accepted, the house dealer's setting beside the house way's."""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import parse_cards
from ..game.rules import OnePile, WrongCount
from ..game.settlement import SeatWagers, house_way_difference
from ..records.round_state import HeldSetting
from ..vision.layout import BANKER_SET_ZONES
from .bank_walk import BankWalk
from .dealer_step import Step, round_in_play, set_zones, waiting
from .next_wagers import NextWagers
from .recording import SpaceLimits
from .table import Table
from .wager_checks import amount_as_entered, as_entered
from .zone_reads import HAND, LaidCount, ZoneReads, spoken


class DealerPrompt:
    def __init__(self, table: Table, wagers: NextWagers, reads: ZoneReads, requests: dict[tuple[str, int], str],
                 start_source: str, space: SpaceLimits):
        self.table, self.wagers, self.reads, self.requests = table, wagers, reads, requests
        self.start_source, self.space = start_source, space

    def prompt(self, step: Step, wanted: list[str], message: str, version: int) -> dict:
        """The prompt at ``step``, the camera reading ``wanted``; ``message`` (the last refusal) said instead, if any."""
        zones = self.reads.shown()
        bank = self.wagers.bank_prompt()
        setting = self._setting_prompt(zones) if step in (Step.SEATS, Step.RESET) else None
        asked = sorted(seat for (round_id, seat) in self.requests if round_id == round_in_play(self.table))
        say = message or _say(step, self.table, self.wagers.bets, zones, wanted,
                              bank["refused"] and f"seat {self.wagers.banker} may not bank this round",
                              self.wagers.walk, setting, asked)
        return {"step": step.value, "say": say, "bank": bank, "setting": setting, "house_way_asked": asked,
                "house_way_seats": self._house_way_seats(step),
                "misdeal_reasons": list(self.table.rules.misdeal_reasons),
                "held": self.table.held, "round": round_in_play(self.table), "start_source": self.start_source,
                "player_seats": self.table.rules.start.player_seats,
                "bets": [as_entered(b) for b in self.wagers.bets], "banker": self.wagers.banker,
                "wager_kinds": {"backline": self.table.rules.limits.backline,
                                "fortune": self.table.rules.fortune is not None},
                "banker_wager": None if self.wagers.banker_wager is None else amount_as_entered(self.wagers.banker_wager),
                "wanted": wanted, "zones": zones, "version": version,
                "recording": self.space.status(self.table.audit), "notices": self.table.notices}

    def _house_way_seats(self, step: Step) -> list[int]:
        """The seats whose player may ask now to have the hand set by the house way (``DealerLoop.ask_house_way``):
        the seats being read, where the house sets a hand so on request."""
        if not self.table.rules.house_way_on_request or step is not Step.SEATS:
            return []
        return sorted(waiting(self.table.playing.state))

    def _setting_prompt(self, zones: dict) -> dict | None:
        """The house dealer's setting beside the house way's, while it is to be accepted: each hand's cards
        and value in words, and whether the setting read (when whole) is the house way's."""
        if not set_zones(self.table):
            return None
        current, ev = self.table.playing, self.table.rules.evaluator()
        way = current.house_way_setting()
        read = [zones.get(name, {}).get("cards") for name in BANKER_SET_ZONES]
        laid, same = None, None
        if all(read) and None not in read[0] + read[1] and len(read[0]) + len(read[1]) == HAND:
            cards = parse_cards(read[0] + read[1], unique=False)
            mine = sorted(cards) == sorted(parse_cards(current.state.banker.cards or ()))  # none read: not his
            # a card named twice (the dealer part way through naming the unread cards again after a reset)
            # is not a hand to value yet
            laid = _valued(read[0], read[1], ev) if len(set(cards)) == HAND else \
                {"front": read[0], "back": read[1], "front_value": "-", "back_value": "-", "foul": None}
            seat = current.state.banker.seat
            same = mine and seat is not None and house_way_difference(
                seat, parse_cards(read[0]), parse_cards(read[1]), self.table.rules) is None
            laid["banker_cards"] = mine
        held = current.state.banker.held
        return {"house_way": {**_valued(way["front"], way["back"], ev), "rule": way["rule"]}, "laid": laid,
                "same": same, "held": _held_valued(held, ev)}


def _held_valued(held: HeldSetting | None, ev) -> dict | None:
    """The held setting as the screen shows it, where one is held (with both hands recorded)."""
    if held is None or held.front is None or held.back is None:
        return None
    return _valued(held.front, held.back, ev)


def _valued(front: list[str], back: list[str], ev) -> dict:
    """A setting as the screen shows it: the cards, each hand's value in words, and whether it fouls."""
    fv, bv = ev.two(parse_cards(front)), ev.five(parse_cards(back))
    return {"front": front, "back": back, "front_value": ev.name(fv), "back_value": ev.name(bv), "foul": ev.fouls(fv, bv)}


def _say(step: Step, table: Table, bets: list[SeatWagers], zones: dict, wanted: list[str], bank_refused: str | None,
         walk: BankWalk | None, setting: dict | None, asked: Sequence[int] = ()) -> str:
    if step is Step.HELD:
        return f"Held: {table.held}"
    if step is Step.BANK and walk is not None:  # the bank step is the walk under way
        return f"Bank to seat {walk.asked}? CONFIRM takes it, NEXT passes"
    if step is Step.RESET and setting is not None and not setting["same"]:  # a held setting is shown
        return "Held: not the house way. Reset the banker's hand as shown, then CONFIRM"
    if setting is not None and setting["laid"] is not None and not setting["laid"]["banker_cards"]:
        return "The banker's set hand is not the seven cards read: set the banker's own cards"
    if setting is not None and setting["same"] is False:
        return "Not the house way: set the banker's hand as shown"
    if step is Step.IDLE:
        offered = " (CONFIRM offers the bank)" if table.bank_offers() else ""
        if bets and bank_refused:
            return f"Choose the banker: {bank_refused}{offered}"
        return f"Press NEXT to open the round{offered}" if bets else "Enter the wagers, then press NEXT"
    if step is Step.START:
        return "Waiting for the start-seat value (NEXT asks the device again)"
    unreadable = [f"{spoken(name)} card {i + 1}" for name, z in zones.items() for i in z["unreadable"]]
    if unreadable:
        return "Name the unreadable card(s): " + ", ".join(unreadable)
    steady = all(zone in zones for zone in wanted)
    if step is Step.BANKER:
        return "Press CONFIRM to accept the banker's hand" if steady else "Lay the banker's seven cards face up"
    if not steady:
        return "Set the banker's hand as shown; lay the players' hands"
    return _say_seats(table, zones, wanted, asked)


def _say_seats(table: Table, zones: dict, wanted: list[str], asked: Sequence[int]) -> str:
    """The players' hands all read steadily: what CONFIRM will do with them."""
    # A hand of other than seven cards is refused by CONFIRM: say so, rather than call it a foul.
    seats = sorted({name.split(".")[0] for name in wanted if name.startswith("seat")}, key=lambda s: int(s[4:]))
    counts = {s: LaidCount.of(zones[f"{s}.front"]["cards"], zones[f"{s}.back"]["cards"]) for s in seats}
    short = [f"{spoken(s)}: {n.total} cards seen" for s, n in counts.items()
             if n.wrong and (int(s[4:]) in asked or table.rules.wrong_count is not WrongCount.FOUL)]
    if short:
        return "Name or enter the hands: " + "; ".join(short) + f" ({HAND} expected)"
    # a hand set by the house way (asked for, or laid in one pile where the house sets it so): said before
    pile = table.rules.one_pile is OnePile.HOUSE_WAY
    ways = {s: "asked for the house way" if int(s[4:]) in asked else "in one pile: set by the house way"
            for s in seats if int(s[4:]) in asked or (pile and counts[s].one_pile)}
    # where the house's document makes a wrong count a foul, CONFIRM settles it as one: said before
    fouls = [f"{spoken(s)} has {counts[s].total} cards, not {HAND}" if counts[s].wrong else
             f"{spoken(s)} has {counts[s].front} cards in front" for s in seats
             if s not in ways and (counts[s].wrong or counts[s].front != 2)]
    return ("Press CONFIRM to settle" + "".join(f" ({spoken(s)} {why})" for s, why in ways.items())
            + (f" ({'; '.join(fouls)}: a foul)" if fouls else ""))
