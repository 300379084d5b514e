"""One round at the table: an explicit state machine whose every step is an audit record.

The round engine is the only place that knows the order of a round. Each input (bets,
the start-seat value, the banker's cards, each seat's cards, a supervisor's action) is
checked against the phase, written to the audit log (fsync-ed), and only then applied and
announced to listeners (the dashboard). The round's state is folded from its own records by the
one fold (:meth:`~appliance.records.round_state.RoundState.fold`), and its settlement derived by
:func:`~appliance.records.fold.derive` with the game engine alone: ``appliance audit replay`` runs the
same two over the log. The phases and the steps between them are the records' own table
(:data:`~appliance.records.round_state.TRANSITIONS`): the engine refuses an input the table does not
allow, before anything is recorded.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..audit.log import AuditLog, tail
from ..game.cards import format_cards, parse_cards
from ..game.house_ways import house_way_split
from ..game.money import fmt
from ..game.rules import FoulPenalty, HouseRules, WrongCount
from ..game.setting import SetHand
from ..game.settlement import HouseWayDifference, SeatWagers, house_way_difference
from ..game.start_seat import Position, StartMethodError, StartSeatError, first_hand, start_of_round
from ..records.events import Events
from ..records.fold import derive, fold_round
from ..records.round_state import ASIDES, TRANSITIONS, Phase, RoundState
from .eye import SeenCard
from .listeners import tell


#: A card a person named where the camera could not read it: (zone, position, card, who named it).
Named = tuple[str, int, str, str]


class RoundStateError(ValueError):
    """An input that the round's phase does not allow."""


class HeldForSupervisor(RoundStateError):
    """The layout does not add up (a card seen twice): the round waits for a supervisor."""


class StartValueRefused(RoundStateError):
    """A start value by a method the house does not use, or out of its range: nothing is recorded."""


class FouledSettingRefused(RoundStateError):
    """A Player/Dealer's own setting that fouls, stopped before play (Capitol rule 31)."""


class CorrectionRefused(RoundStateError):
    """A supervisor's correction that would leave the round unable to settle (a card in two hands, a hand
    not of seven cards): refused before anything is recorded."""


def rules_fingerprint(rules_mapping: dict) -> str:
    return hashlib.sha256(json.dumps(rules_mapping, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class TableRound:
    round_id: str
    rules: HouseRules
    rules_mapping: dict  # the house file's content, recorded so a replay uses the rules in force
    audit: AuditLog
    listeners: list[Callable[[dict], None]] = field(default_factory=list)
    state: RoundState = field(init=False)  # folded from the round's own records, as they are recorded

    def __post_init__(self) -> None:
        self.state = RoundState(self.round_id)

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def banker(self) -> Position:
        """The round's banker, recorded when it opened (the steps that ask come after)."""
        if self.state.banker.seat is None:
            raise RoundStateError(f"round {self.round_id}: not opened: no banker yet")
        return self.state.banker.seat

    @property
    def banker_seven(self) -> list[str]:
        """The banker's seven cards as they stand (the steps that ask come after they are read)."""
        if self.state.banker.cards is None:
            raise RoundStateError(f"round {self.round_id}: the banker's cards are not read yet")
        return self.state.banker.cards

    @classmethod
    def restore(cls, round_id: str, rules: HouseRules, rules_mapping: dict, audit: AuditLog,
                listeners: list[Callable[[dict], None]]) -> TableRound:
        """The last round, which the appliance stopped in the middle of, rebuilt from its records (read
        from the log's end) in the phase it had reached."""
        table_round = cls(round_id, rules, rules_mapping, audit, listeners)
        last = last_round(audit.folder)
        if last is None or last[0] != round_id:
            raise RoundStateError(f"round {round_id} is not the last round in the log")
        table_round.state = fold_round(round_id, last[1])
        return table_round

    def _phase_after(self, event: str) -> Phase:
        """The phase ``event`` leads to, or :class:`RoundStateError` where the phase does not allow it."""
        if event in ASIDES:
            return self.phase
        to = TRANSITIONS[self.phase].get(event)
        if to is None and event == Events.ROUND_VOIDED:
            raise RoundStateError(f"round {self.round_id}: cannot be voided once {self.phase.value}")
        if to is None:
            raise RoundStateError(f"round {self.round_id}: {event} is not allowed while {self.phase.value}")
        return to

    def _record(self, event: str, data: dict, who: str) -> dict:
        self._phase_after(event)
        record = self.audit.append(event, {"round": self.round_id, **data}, who)  # on disk first
        self.state.fold(record)
        tell(self.listeners, record)
        return record

    def open(self, banker: Position, bets: Sequence[SeatWagers], banker_wager: Decimal | None = None, who: str = "dealer",
             previous_rounds: list | None = None, bank_passed: Sequence[int] = ()) -> None:
        """Open the round; ``previous_rounds`` (BankRound, oldest first: what the rotation rules look
        at) are logged with it, so that the settlement checks the Player/Dealer against the rotation
        rules, and the replay does the same. ``bank_passed``: the seats offered the bank before the
        banker, who passed it (logged)."""
        data: dict[str, Any] = {"house": self.rules.key, "rules": self.rules_mapping,
                "rules_sha256": rules_fingerprint(self.rules_mapping), "banker": banker,
                "banker_wager": None if banker_wager is None else fmt(banker_wager),
                "bets": [b.to_json() for b in bets]}
        if previous_rounds is not None:
            data["previous_rounds"] = [{"banker": r.banker, "wagered": sorted(r.wagered)} for r in previous_rounds]
        if bank_passed:
            data["bank_passed"] = list(bank_passed)
        self._record(Events.ROUND_OPENED, data, who)

    def start_seat(self, source: str, value: int, dice: list[int] | None = None, seq: int | None = None,
                   who: str = "device") -> Position:
        """The start value: three ``dice`` (``value`` their total), or an RNG ``value`` 1-7. Only by a method
        the house uses (``start_seat.methods``: Capitol rule 14 "The value of the dice cup", Safari the
        electronic device), checked as ``appliance start-seat`` checks it; a supervisor's manual value too
        (three dice at a dice house, an RNG value at an RNG house), whatever the source says."""
        self._phase_after(Events.START_SEAT)  # a round not waiting for one is refused as such first
        try:
            start_of_round(self.rules.start, self.banker, value=None if dice else value,
                           dice=tuple(dice) if dice else None)
        except StartMethodError as err:
            raise StartValueRefused(f"round {self.round_id}: {self.rules.name}: {err} (start_seat.methods)") from None
        except StartSeatError as err:
            raise StartValueRefused(f"round {self.round_id}: {err}") from None
        count = sum(dice) if dice else value
        first = first_hand(count, self.banker, self.rules.start.player_seats, self.rules.start.count_direction)
        self._record(Events.START_SEAT, {"source": source, "value": value, "dice": dice, "seq": seq,
                                         "first_hand": first}, who)
        return first

    def banker_cards(self, cards: list[str], read: Sequence[SeenCard] | None = None, images: Sequence[str] = (),
                     who: str = "reader", front: list[str] | None = None, back: list[str] | None = None,
                     set_checked: bool = False, named: Sequence[Named] = ()) -> dict:
        """The banker's seven cards. Set by the house way (the setting and its rule are recorded), or,
        for a player-banker who sets his own hand, as laid in ``front`` and ``back``: the settlement
        then checks it for a foul and applies the house's penalty (Capitol rule 31: reset by house way).
        ``set_checked``: the house dealer then sets the hand where the camera reads it, and the setting
        read (:meth:`banker_set`) is what is settled. ``named``: the cards people named in the hand
        (:meth:`confirm_named`)."""
        hand = parse_cards(cards, unique=False)
        self.hold_if_seen({"banker": format_cards(hand)})
        if front is not None or back is not None:
            laid = parse_cards([*(front or []), *(back or [])])
            if sorted(laid) != sorted(hand):
                raise RoundStateError(f"round {self.round_id}: the banker's front and back are not his seven cards")
            differs = house_way_difference(self.banker, parse_cards(front or []), parse_cards(back or []),
                                           self.rules)
            if differs is not None:  # a house dealer resets by the house way before the round goes on
                raise RoundStateError(f"round {self.round_id}: {differs}: reset the hand")
            self._refuse_fouled_setting(front or [], back or [])
            setting: dict[str, Any] = {"front": format_cards(parse_cards(front or [])),
                                       "back": format_cards(parse_cards(back or [])), "rule": None, "set_by": "own"}
        else:
            setting = {**_house_way_setting(hand, self.rules), "set_by": "house-way", "set_checked": set_checked}
        self.confirm_named(named)
        self._record(Events.BANKER_CARDS, {"cards": format_cards(hand), **setting, "read": _as_recorded(read),
                                           "images": list(images)}, who)
        return setting

    def _refuse_fouled_setting(self, front: list[str], back: list[str]) -> None:
        """A Player/Dealer's own setting that fouls is stopped before play (Capitol rule 31: "The casino
        dealer cannot permit the Player/Dealer to set his hand foul"): the house way's reset
        (``fouls.banker = "house-way"``) is for a foul let through "by mistake", which the camera does not
        make. Refused, nothing recorded: the Player/Dealer sets the hand again."""
        if self.rules.banker_foul is not FoulPenalty.HOUSE_WAY:
            return
        foul = SetHand.of(parse_cards(front), parse_cards(back), self.rules.evaluator()).foul
        if foul is not None:
            raise FouledSettingRefused(f"round {self.round_id}: the Player/Dealer's setting is fouled ({foul}): the "
                                       "dealer cannot permit it (fouls.banker): set the hand again")

    def house_way_setting(self) -> dict:
        """The banker's seven cards as the house way sets them: ``{"front", "back", "rule"}``."""
        return _house_way_setting(parse_cards(self.banker_seven), self.rules)

    def setting_difference(self, front: list[str], back: list[str]) -> HouseWayDifference | None:
        """How the house dealer's setting read from the layout differs from the house way (None: it is the
        house way's, settings of equal values being the same setting). Cards other than the banker's seven
        are a card swapped or misread: flagged, and the table held for the supervisor."""
        if not self.state.banker.set_checked:
            raise RoundStateError(f"round {self.round_id}: the banker's setting is not read at this table")
        laid = parse_cards([*front, *back], unique=False)
        if sorted(laid) != sorted(parse_cards(self.banker_seven)):
            flag = (f"the banker's setting (front {' '.join(format_cards(parse_cards(front, unique=False)))}, back "
                    f"{' '.join(format_cards(parse_cards(back, unique=False)))}) is not the seven cards read "
                    f"({' '.join(self.banker_seven)})")
            self._record(Events.TABLE_FLAGGED, {"flags": [flag], "where": "banker"}, "reader")
            raise HeldForSupervisor(f"round {self.round_id}: {flag}: held for the supervisor")
        return house_way_difference(self.banker, parse_cards(front), parse_cards(back), self.rules)

    def banker_set(self, front: list[str], back: list[str], read: Sequence[SeenCard] | None = None,
                   images: Sequence[str] = (), who: str = "reader",
                   named: Sequence[Named] = ()) -> HouseWayDifference | None:
        """The house dealer's setting of the banker's hand as the camera read it. The house way's is
        recorded and settled (after a hold, as the reset); any other holds the round for the dealer to
        reset (both settings recorded) and is returned."""
        differs = self.setting_difference(front, back)
        setting = {"front": format_cards(parse_cards(front)), "back": format_cards(parse_cards(back)),
                   "house_way": self.house_way_setting(), "read": _as_recorded(read), "images": list(images)}
        held = self.state.banker.held
        held_again = self.phase is Phase.SET_HELD and held is not None and (held.front, held.back) == (
            setting["front"], setting["back"])
        if differs is not None and held_again:
            raise RoundStateError(f"round {self.round_id}: the banker's hand is still not set by the house "
                                  f"way ({differs.house_way}): reset it")
        self.confirm_named(named)
        if differs is not None:
            self._record(Events.BANKER_SET_HELD, {**setting, "differs": str(differs)}, who)
            return differs
        self._record(Events.BANKER_SET, {**setting, "set_by": "house-way",
                                         "reset": self.phase is Phase.SET_HELD}, who)
        return None

    def setting_stands(self, reason: str, who: str, shown: dict) -> None:
        """A supervisor's decision that the house dealer's held setting stands: settled as the cards lie
        (``set_by: dealer``), the decision recorded with who made it and why. ``shown`` is the setting the
        supervisor was shown (front, back): held again since as another setting, it is refused."""
        if self.phase is not Phase.SET_HELD:
            raise RoundStateError(f"round {self.round_id}: no setting of the banker's hand is held")
        if not reason.strip():
            raise RoundStateError(f"round {self.round_id}: say why the dealer's setting stands")
        setting = self.state.banker.held
        if setting is None or setting.front is None or setting.back is None:  # a held setting is recorded whole
            raise RoundStateError(f"round {self.round_id}: no setting of the banker's hand is held")
        held = {"front": setting.front, "back": setting.back}
        if any(sorted(parse_cards(shown[part], unique=False)) != sorted(parse_cards(held[part])) for part in held):
            raise RoundStateError(f"round {self.round_id}: the setting held is now front {' '.join(held['front'])}, "
                                  f"back {' '.join(held['back'])}, not the one shown: look at it again")
        self._record(Events.BANKER_SET, {**held, "house_way": self.house_way_setting(), "set_by": "dealer",
                                         "reason": reason.strip()}, who)

    def seat_cards(self, seat: int, front: list[str], back: list[str], read: Sequence[SeenCard] | None = None,
                   images: Sequence[str] = (), who: str = "reader", named: Sequence[Named] = (),
                   house_way: dict | None = None) -> None:
        """A seat's hand as laid. ``house_way``: why the house way sets it instead (``{"why": "one pile", "words"}``
        where ``player_hands.one_pile`` says so, or ``{"why": "request", "requested_by"}``): its seven cards as
        laid, the house way's front and back and its rule are recorded, and it is settled as set by the house way."""
        if seat not in {b["seat"] for b in self.state.bets}:
            raise RoundStateError(f"round {self.round_id}: seat {seat} has no wager this round")
        if self.state.banker.set_checked and self.state.banker.setting is None:
            raise RoundStateError(f"round {self.round_id}: the banker's setting is not read yet")
        laid = [*front, *back]
        if house_way is not None:
            if len(laid) != 7:
                raise RoundStateError(f"round {self.round_id}: seat {seat}: {len(laid)} cards seen: the house way "
                                      "sets seven: name or enter the hand")
            miscount = {}
        else:
            miscount = self.miscount(seat, len(laid))
        self.hold_if_seen({f"seat {seat}": format_cards(parse_cards(laid, unique=False))})
        self.confirm_named(named)
        if house_way is not None:
            setting = _house_way_setting(parse_cards(laid), self.rules)
            data = {"seat": seat, "laid": {"front": format_cards(parse_cards(front)),
                                           "back": format_cards(parse_cards(back))},
                    **setting, "set_by": "house-way", **house_way}
        else:
            data = {"seat": seat, "front": format_cards(parse_cards(front, unique=False)),
                    "back": format_cards(parse_cards(back, unique=False))}
        self._record(Events.SEAT_CARDS, {**data, "read": _as_recorded(read), "images": list(images), **miscount}, who)

    def miscount(self, seat: int, count: int) -> dict:
        """A seat's hand of other than seven cards: where the house's document makes it a foul
        (``fouls.wrong_count``: Capitol rule 27, the general rules) recorded with the count and the document's
        words, and settled as the player's foul (the other seats settle as they lie); else refused (named
        again, or a misdeal)."""
        if count == 7:
            return {}
        if self.rules.wrong_count is not WrongCount.FOUL:
            raise RoundStateError(f"round {self.round_id}: seat {seat}: {count} cards seen, 7 expected: name or "
                                  f"enter the hand ({self.rules.name} does not foul a wrong count: fouls.wrong_count)")
        bet = self.state.seats[seat].bet or {}  # a seat in play has its bet
        if any(w.get("bonus") for w in [bet, *bet.get("backline", [])]):
            raise RoundStateError(f"round {self.round_id}: seat {seat}: {count} cards seen: the Fortune bonus needs "
                                  "the seat's seven cards: name or enter the hand, or declare a misdeal")
        return {"count": count, "foul": self.rules.wrong_count_words}

    def confirm_read(self, zone: str, position: int, card: str, who: str) -> None:
        """A card the reader could not read, confirmed or entered by a person (never by the appliance)."""
        self._record(Events.READ_CONFIRMED, {"zone": zone, "position": position, "card": card}, who)

    def confirm_named(self, named: Sequence[Named]) -> None:
        """The cards people named in a hand, recorded just before the hand and only once it has passed every
        check: a hand refused (a card seen twice, a setting to reset) must leave no named card in the log,
        where the shift page would count it and its CONFIRM again would count it twice."""
        for zone, position, card, who in named:
            self.confirm_read(zone, position, card, who)

    def hold_if_seen(self, cards: dict[str, list[str]]) -> None:
        """A card already in this round's hands, or twice among ``cards`` (where -> cards about to be
        recorded), is a possible foreign card: flag it and take nothing, so no hand is half recorded."""
        taken = {c: "banker" for c in self.state.banker.cards or []}
        for seat in self.state.seats.values():
            if seat.has_cards:
                taken.update({c: f"seat {seat.seat}" for c in seat.laid_cards})
        twice = []
        for where, hand in cards.items():
            for c in hand:
                if c in taken:
                    twice.append(f"card {c} seen twice: {taken[c]} and {where}")
                taken[c] = where
        if twice:
            self._record(Events.TABLE_FLAGGED, {"flags": twice, "where": where}, "reader")
            raise HeldForSupervisor(f"round {self.round_id}: {'; '.join(twice)}: held for the supervisor")

    def settle(self, who: str = "appliance") -> dict:
        if self.state.banker.set_checked and self.state.banker.setting is None:
            raise RoundStateError(f"round {self.round_id}: the banker's setting is not read yet")
        missing = [b["seat"] for b in self.state.bets if not self.state.seats[b["seat"]].has_cards]
        if missing:
            raise RoundStateError(f"round {self.round_id}: no cards yet for seat(s) {missing}")
        settlement = derive(self.state, self.rules)
        self._record(Events.ROUND_SETTLED, {"settlement": settlement}, who)
        return settlement

    def void(self, reason: str, who: str) -> None:
        self._record(Events.ROUND_VOIDED, {"reason": reason}, who)

    def correct(self, seat: int | str, reason: str, who: str, cards: list[str] | None = None,
                front: list[str] | None = None, back: list[str] | None = None) -> None:
        """A supervisor's correction of a read: the banker's seven cards (his front and back once a setting
        is recorded: his own, or the house dealer's as read), or a seat's front and back. The round as the
        correction leaves it is checked in full first (:meth:`_check_corrected`): a refused correction
        records nothing."""
        self._phase_after(Events.READ_CORRECTED)  # a round not dealt yet, or voided: refused as such first
        if seat == "banker" and self.state.banker.setting is not None:
            set_by = self.state.banker.setting.set_by
            if front is None or back is None:
                whose = "the banker set his own hand" if set_by == "own" else "the house dealer's setting is recorded"
                raise RoundStateError(f"round {self.round_id}: {whose}: give the corrected front and back")
            laid = parse_cards([*front, *back])
            if len(laid) != 7:
                raise RoundStateError(f"round {self.round_id}: the banker's front and back hold {len(laid)} cards, "
                                      "not seven")
            differs = house_way_difference(self.banker, parse_cards(front), parse_cards(back), self.rules)
            if set_by == "house-way" and differs is not None:  # it would settle against the house way unannounced
                raise RoundStateError(f"round {self.round_id}: {differs}: the corrected setting must be the house "
                                      "way's (void the round if the cards lay otherwise)")
            data: dict[str, Any] = {"seat": "banker", "cards": format_cards(laid), "front": format_cards(parse_cards(front)),
                    "back": format_cards(parse_cards(back)), "set_by": set_by}
        elif seat == "banker":
            if cards is None:
                raise RoundStateError(f"round {self.round_id}: give the banker's corrected cards")
            data = {"seat": "banker", "cards": format_cards(parse_cards(cards))}
        else:
            if seat not in self.state.seats or not self.state.seats[seat].has_cards:
                raise RoundStateError(f"round {self.round_id}: seat {seat} has no cards to correct")
            if front is None or back is None:
                raise RoundStateError(f"round {self.round_id}: seat {seat}: give the corrected front and back")
            data = {"seat": seat, "front": format_cards(parse_cards(front, unique=False)),
                    "back": format_cards(parse_cards(back, unique=False))}
        self._check_corrected(data)
        self._record(Events.READ_CORRECTED, {**data, "reason": reason}, who)

    def _check_corrected(self, data: dict) -> None:
        """The round as the correction ``data`` would leave it, folded on a copy and checked before anything
        is recorded: a record cannot be taken back, and a correction the settlement refused after it was
        signed would stay in the log, applied, leaving the round open and unsettleable (the table wedged,
        the replay and the export without a round that was paid)."""
        state = copy.deepcopy(self.state).fold({"event": Events.READ_CORRECTED, "data": data})
        hands = {"banker": state.banker.cards or [],  # a round being corrected is dealt
                 **{f"seat {s.seat}": s.laid_cards for s in state.seats.values() if s.has_cards}}
        corrected = "banker" if data["seat"] == "banker" else f"seat {data['seat']}"
        if len(hands[corrected]) != 7:  # a hand dealt short or long is a misdeal, not a misread
            raise CorrectionRefused(f"round {self.round_id}: the corrected hand of {corrected} holds "
                                    f"{len(hands[corrected])} cards, not seven")
        seen: dict[str, str] = {}
        for where, hand in hands.items():
            for c in hand:
                if c in seen:
                    raise CorrectionRefused(f"round {self.round_id}: card {c} appears twice: {seen[c]} and {where} "
                                            "(correct the other hand first)")
                seen[c] = where
        if all(state.seats[bet["seat"]].has_cards for bet in state.bets):
            try:  # every hand is in: the round must settle as corrected, as it will be settled next
                derive(state, self.rules)
            except ValueError as err:
                raise CorrectionRefused(f"round {self.round_id}: the corrected round does not settle: {err}") from None


def _house_way_setting(hand, rules: HouseRules) -> dict:
    """Seven cards set by the house's way, shown high to low as a dealer lays them, with the rule."""
    f, b, _, _, rule = house_way_split(hand, rules.way, rules.evaluator())
    return {"front": format_cards(sorted(f, reverse=True)), "back": format_cards(sorted(b, reverse=True)),
            "rule": rule}


def _as_recorded(read: Sequence[SeenCard] | None) -> list[dict] | None:
    """A hand's reads as its record keeps them: the audit log holds JSON, the round is handed the eye's values."""
    return None if read is None else [card.to_json() for card in read]


def last_round(folder) -> tuple[str, list[dict]] | None:
    """The last round in the log and its records in log order, read backwards from the log's end to
    the round's opening: rounds follow one another, so only the last can be unfinished."""
    found: list[dict] = []
    round_id = None
    for record in tail(folder):
        rid = record["data"].get("round") if isinstance(record.get("data"), dict) else None
        if rid is None or (round_id is not None and rid != round_id):
            continue
        round_id = rid
        found.append(record)
        if record["event"] == Events.ROUND_OPENED:
            return round_id, found[::-1]
    return (round_id, found[::-1]) if round_id is not None else None


class RoundIds:
    """Round ids ``<prefix>-N``, going on from the highest N logged under the same prefix (asked of the
    history index once per prefix: a gaming day, a simulation's seed), so a restart never repeats one."""

    def __init__(self, last_number: Callable[[str], int], prefix: Callable[[], str], digits: int = 1):
        self.last_number, self.prefix, self.digits = last_number, prefix, digits
        self._last: tuple[str, int] | None = None

    def __call__(self) -> str:
        prefix = self.prefix()
        if self._last is None or self._last[0] != prefix:
            self._last = (prefix, self.last_number(prefix))
        self._last = (prefix, self._last[1] + 1)
        return f"{prefix}-{self._last[1]:0{self.digits}d}"


def interrupted(folder) -> list[str]:
    """The round opened but neither settled nor voided, if any: the appliance stopped in the middle of it."""
    last = last_round(folder)
    if last is None:
        return []
    return [] if fold_round(last[0], last[1]).closed else [last[0]]


def void_interrupted(audit: AuditLog) -> list[str]:
    """The simulation's recovery: an interrupted round is voided, with a record saying so.

    Gaming regulators want a machine that lost power mid-round to stay stopped until the fault is
    cleared; the simulation clears it itself, the appliance waits for a supervisor's decision
    (:meth:`TableRound.restore`).
    """
    voided = interrupted(audit.folder)
    for round_id in voided:
        audit.append(Events.ROUND_VOIDED, {"round": round_id, "reason": "interrupted: the appliance stopped "
                                           "mid-round and was restarted"}, "appliance (recovery)")
    return voided
