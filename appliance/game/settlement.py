"""Settling a round: each seat against the banker, commission or collection, bonus pays, the bank's net.

Money flows, all exact ``Decimal``: a seat's ``net`` is what the player ends
the round up or down (wager outcome, less commission and collection, plus
bonus pays); ``banker_net`` is the banker's own result (for a player-banker,
after their commission and collection); ``house_net`` is what the house takes
(commission, collection, the bank's result when the house banks, and the
bonus bets it books). Every round balances: the seats' nets, a player-banker's
net and the house's net add up to zero.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from .banking import BankRound, bank_refusal
from .cards import Card, check_unique, format_cards
from .fortune import best_paying
from .house_ways import house_way_split
from .money import ZERO, fmt, round_to
from .rules import BankerSetting, BankingMode, CommissionKind, FoulPenalty, HouseRules
from .setting import SetHand
from .start_seat import DEALER, Position, StartSeatError, action_order
from .values import Evaluator


class RoundError(ValueError):
    """A round that cannot be settled as given; the message names the field."""


class Result(enum.Enum):
    WIN = "win"
    PUSH = "push"
    LOSS = "loss"
    FOUL = "foul"
    NO_ACTION = "no_action"


class Side(enum.Enum):
    WIN = "win"
    LOSS = "loss"
    COPY = "copy"  # identical values: the banker wins it


@dataclass(frozen=True)
class Hand:
    """Cards as laid: a front and a back, or seven cards to be set by the house way."""

    front: tuple[Card, ...] | None = None
    back: tuple[Card, ...] | None = None
    cards: tuple[Card, ...] | None = None

    @property
    def all_cards(self) -> tuple[Card, ...]:
        if self.cards is not None:
            return self.cards
        return (*(self.front or ()), *(self.back or ()))

    def laid(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """The front and back of a hand given as laid (validation refuses one without both)."""
        if self.front is None or self.back is None:
            raise RoundError("give cards (7, set by the house way) or front and back")
        return self.front, self.back


@dataclass(frozen=True)
class Wager:
    """One wager on a seat's hand: the seated player's, or one riding on it (a backline wager,
    Capitol rules 18-19; another betting circle of the seat, Fortune rule 5)."""

    amount: Decimal
    by: str
    fortune: Decimal = ZERO


def _staked(amount: Decimal, fortune: Decimal) -> dict:
    """One betting circle's wager, and its Fortune bonus where there is one, as a round records it."""
    return {"wager": fmt(amount), **({"bonus": {"fortune": fmt(fortune)}} if fortune else {})}


@dataclass(frozen=True)
class SeatWagers:
    """A seat's wagers as a round opens, before any card is dealt: the seated player's, the Fortune bonus
    beside it, and the wagers riding on the seat's hand. Recorded in the settlement's input form:

    >>> SeatWagers(2, Decimal("25.00"), backline=(Wager(Decimal("10.00"), "Ann", Decimal("5.00")),)).to_json()
    {'seat': 2, 'wager': '25.00', 'backline': [{'by': 'Ann', 'wager': '10.00', 'bonus': {'fortune': '5.00'}}]}
    """

    seat: int
    wager: Decimal
    fortune: Decimal = ZERO
    backline: tuple[Wager, ...] = ()

    def to_json(self) -> dict:
        backline = [{"by": w.by, **_staked(w.amount, w.fortune)} for w in self.backline]
        return {"seat": self.seat, **_staked(self.wager, self.fortune), **({"backline": backline} if backline else {})}


@dataclass(frozen=True)
class Bet:
    seat: int
    wager: Decimal
    hand: Hand
    fortune: Decimal = ZERO
    backline: tuple[Wager, ...] = ()  # other players' wagers riding on this hand

    @property
    def wagers(self) -> tuple[Wager, ...]:
        """Every wager on the hand in the order action reaches them. The documents are silent within a
        seat: chosen, the largest first (the player who "has the final decision on the play of that
        particular hand", Capitol rule 17; Fortune rule 5), equal wagers in the order given."""
        return tuple(sorted((Wager(self.wager, "seat", self.fortune), *self.backline), key=lambda w: -w.amount))


class HouseWayMismatchError(RoundError):
    """A house dealer's setting that is not the house way's, given without ``"set_by": "dealer"``."""


@dataclass(frozen=True)
class Banker:
    seat: Position  # "dealer" or the Player/Dealer's seat
    hand: Hand
    wager: Decimal | None = None  # a player-banker's wager
    #: "dealer": a house dealer's setting that differs from the house way, to be settled as it lies.
    set_by: str | None = None


@dataclass(frozen=True)
class Round:
    banker: Banker
    action_seat: Position
    bets: tuple[Bet, ...]
    #: The rounds before, oldest first, as the bank's rotation rules see them; None: not given.
    history: tuple[BankRound, ...] | None = None


class BankRefusedError(RoundError):
    """A player-banker the house's banking rules did not allow this round."""


@dataclass(frozen=True)
class Played:
    """How a hand was played: as laid, or set or reset by the house way, and why."""

    hand: SetHand
    rule: str | None = None  # the house-way rule, when the house way set it
    reset_from: SetHand | None = None  # the fouled setting that was reset


@dataclass(frozen=True)
class WagerSettlement:
    """One wager's result on a hand that carries several."""

    by: str
    result: Result
    wager: Decimal
    action: Decimal
    won: Decimal
    lost: Decimal
    commission: Decimal
    collection: Decimal
    fortune: Decimal
    envy: Decimal
    net: Decimal
    reason: str


@dataclass(frozen=True)
class SeatSettlement:
    seat: int
    result: Result
    front: Side | None
    back: Side | None
    wager: Decimal
    action: Decimal  # the part of the wager that was in play
    won: Decimal
    lost: Decimal
    commission: Decimal
    collection: Decimal
    fortune: Decimal  # the Fortune bet's result: its pay, or minus the bet
    fortune_line: str | None
    envy: Decimal
    net: Decimal
    played: Played
    reason: str
    #: Each wager on the hand when it carries more than the seated player's (backline, other circles).
    wagers: tuple[WagerSettlement, ...] = ()


@dataclass(frozen=True)
class Settlement:
    house: str
    banker_seat: Position
    banker: Played
    action_order: tuple[int, ...]
    seats: tuple[SeatSettlement, ...]
    commission: Decimal  # players' commission plus a player-banker's
    collection: Decimal  # every collection, a player-banker's included
    banker_commission: Decimal
    banker_collection: Decimal
    banker_net: Decimal
    bonus_net: Decimal  # what the house won (+) or paid (-) on bonus bets
    house_net: Decimal
    notes: tuple[str, ...] = field(default=())


def settle(rnd: Round, rules: HouseRules) -> Settlement:
    """Settle a validated round under a house's rules. Raises :class:`RoundError` before any result."""
    ev = rules.evaluator()
    _validate(rnd, rules)
    banker_played, banker_forfeits, banker_note = _banker_hand(rnd.banker, rules, ev)
    order = action_order(rnd.action_seat, rnd.banker.seat, [b.seat for b in rnd.bets],
                         rules.start.player_seats, rules.start.action_direction)
    bets = {b.seat: b for b in rnd.bets}
    limited = rules.player_banked and rules.banking.action_limited and rnd.banker.seat != DEALER
    remaining = rnd.banker.wager if limited else None
    hands7 = {b.seat: b.hand.all_cards for b in rnd.bets}

    seats = []
    for seat in order:
        bet = bets[seat]
        played = _player_hand(bet.hand, rules, ev)
        front = back = None
        if played.hand.foul:
            result, reason = Result.FOUL, f"fouled: {played.hand.foul}"
        elif banker_forfeits:
            result, reason = Result.WIN, "the banker's hand is fouled and forfeits"
        else:
            (player_front, player_back), (banker_front, banker_back) = _values(played.hand), _values(banker_played.hand)
            front, back = _side(player_front, banker_front), _side(player_back, banker_back)
            wins = (front is Side.WIN) + (back is Side.WIN)
            result = (Result.LOSS, Result.PUSH, Result.WIN)[wins]
            reason = {2: "won both hands", 1: "won one hand, lost the other", 0: "lost both hands"}[wins]
            if played.reset_from is not None:
                reason += " (fouled setting reset by the house way)"
        wagers = []
        for wager in bet.wagers:
            settled, remaining = _settle_wager(wager, result, reason, remaining, rules)
            fortune, fortune_line = _fortune(wager, bet.hand, rules, ev)
            envy = _envy(wager, seat, hands7, rules, ev)
            wagers.append((dataclasses.replace(settled, fortune=fortune, envy=envy, net=settled.net + fortune + envy),
                           fortune_line))
        seats.append(_seat(seat, result, front, back, played, wagers))

    bank_result = sum((s.lost - s.won for s in seats), ZERO)
    players_commission = sum((s.commission for s in seats), ZERO)
    collection = sum((s.collection for s in seats), ZERO)
    bonus_net = -sum((s.fortune + s.envy for s in seats), ZERO)
    if rnd.banker.seat == DEALER:
        banker_commission = banker_collection = ZERO
        banker_net = bank_result
        house_net = bank_result + players_commission + collection + bonus_net
    else:
        banker_collection = collection_fee(rnd.banker.wager, rules) if rnd.banker.wager is not None else ZERO
        banker_commission = ZERO
        if bank_result > 0 and rules.commission.banker_percent:
            banker_commission = round_to(bank_result * rules.commission.banker_percent / 100,
                                         rules.commission.increment, rules.commission.rounding)
        banker_net = bank_result - banker_commission - banker_collection
        house_net = players_commission + banker_commission + collection + banker_collection + bonus_net
    notes = [note for note in (banker_note, _banking_note(rnd, rules)) if note]
    if remaining is not None and rnd.banker.wager is not None:  # limited action starts from the wager
        notes.append(f"Player/Dealer action used: {rnd.banker.wager - remaining} of {rnd.banker.wager}")
    return Settlement(
        house=rules.key, banker_seat=rnd.banker.seat, banker=banker_played, action_order=tuple(order),
        seats=tuple(seats), commission=players_commission + banker_commission,
        collection=collection + banker_collection, banker_commission=banker_commission,
        banker_collection=banker_collection, banker_net=banker_net, bonus_net=bonus_net,
        house_net=house_net, notes=tuple(notes),
    )


def _banking_note(rnd: Round, rules: HouseRules) -> str | None:
    """Refuse a player-banker the rotation rules did not allow; flag one that could not be checked."""
    seat = rnd.banker.seat
    if not isinstance(seat, int):  # the house dealer banks
        return None
    if rnd.history is None:
        return "banking not checked: the round carries no previous rounds' banking"
    refusal = bank_refusal(seat, rnd.history, rules.banking)
    if refusal:
        raise BankRefusedError(f"banker.seat: {rules.name}: seat {rnd.banker.seat} may not bank this round: {refusal}")
    return None


def _settle_wager(wager: Wager, result: Result, reason: str, remaining: Decimal | None,
                  rules: HouseRules) -> tuple[WagerSettlement, Decimal | None]:
    """One wager on a hand with this result, and what is left of the Player/Dealer's action after it
    (``remaining`` None: not limited). Bonus pays are added by the caller."""
    action = min(wager.amount, rules.limits.maximum)  # over the maximum: no action on the excess
    if action < wager.amount:
        reason += f"; {wager.amount - action} over the table maximum has no action"
    if remaining is not None:
        if remaining == 0:
            # Once the Player/Dealer's wager is used up the hand is over for every later wager.
            action, result = ZERO, Result.NO_ACTION
            reason = "no action: the Player/Dealer's wager was used up by earlier wagers"
        elif result is not Result.PUSH:
            if action > remaining:
                reason += f"; partial action: {remaining} of {action} (the Player/Dealer's wager is used up)"
                action = remaining
            remaining -= action
    won = action if result is Result.WIN else ZERO
    lost = action if result in (Result.LOSS, Result.FOUL) else ZERO
    commission = _commission(won, rules)
    collection = collection_fee(wager.amount, rules)
    net = won - lost - commission - collection
    return WagerSettlement(wager.by, result, wager.amount, action, won, lost, commission, collection,
                           ZERO, ZERO, net, reason), remaining


def _seat(seat: int, result: Result, front: Side | None, back: Side | None, played: Played,
          wagers: list[tuple[WagerSettlement, str | None]]) -> SeatSettlement:
    """A seat's totals over the wagers on its hand; with one wager, that wager's result."""
    settled = [w for w, _ in wagers]
    if all(w.result is Result.NO_ACTION for w in settled):
        result, front, back = Result.NO_ACTION, None, None
    reasons = [w.reason for w in settled]
    reason = reasons[0] if len(set(reasons)) == 1 else "; ".join(f"{w.by}: {w.reason}" for w in settled)

    def total(name: str) -> Decimal:
        return sum((getattr(w, name) for w in settled), ZERO)

    line = next((line for _, line in wagers if line), None)
    return SeatSettlement(
        seat, result, front, back, total("wager"), total("action"), total("won"), total("lost"),
        total("commission"), total("collection"), total("fortune"), line, total("envy"), total("net"),
        played, reason, tuple(settled) if len(settled) > 1 else (),
    )


def _values(hand: SetHand) -> tuple[int, int]:
    """The front and back values of a hand that is not fouled (a hand of the wrong size has none)."""
    if hand.front_value is None or hand.back_value is None:
        raise ValueError(f"a hand of {len(hand.front)} and {len(hand.back)} cards has no values")
    return hand.front_value, hand.back_value


def _side(player: int, banker: int) -> Side:
    if player > banker:
        return Side.WIN
    return Side.COPY if player == banker else Side.LOSS


def _house_way(cards: Sequence[int], rules: HouseRules, ev: Evaluator, reset_from: SetHand | None = None) -> Played:
    front, back, _, _, rule = house_way_split(cards, rules.way, ev)
    return Played(SetHand.of(front, back, ev), rule, reset_from)


def _banker_hand(banker: Banker, rules: HouseRules, ev: Evaluator) -> tuple[Played, bool, str | None]:
    """The banker's hand as played, whether a fouled banker hand forfeits every seat's wager,
    and a note when a house dealer's setting was settled against the house way."""
    hand = banker.hand
    if hand.cards is not None:
        return _house_way(hand.cards, rules, ev), False, None
    laid = SetHand.of(*hand.laid(), ev)
    note = _house_way_check(banker, laid, rules, ev)
    if not laid.foul:
        return Played(laid), False, note
    if rules.banker_foul is FoulPenalty.HOUSE_WAY:
        return _house_way(hand.all_cards, rules, ev, reset_from=laid), False, note
    return Played(laid), True, note


def _house_way_check(banker: Banker, laid: SetHand, rules: HouseRules, ev: Evaluator) -> str | None:
    """A house dealer's setting that is not the house way's is refused, or settled as it lies and
    noted when the input says ``"set_by": "dealer"``."""
    differs = house_way_difference(banker.seat, laid.front, laid.back, rules)
    if differs is None:
        return None
    if banker.set_by == "dealer":
        return f"the house dealer's setting ({differs.laid}) is not the house way ({differs.house_way}); settled as laid (set_by: dealer)"
    raise HouseWayMismatchError(f"banker: {differs}; reset the hand, or give \"set_by\": \"dealer\" to settle it as laid")


@dataclass(frozen=True)
class HouseWayDifference:
    laid: str
    house_way: str
    rule: str

    def __str__(self) -> str:
        return (f"the house dealer's setting ({self.laid}) is not the house way: the house way sets "
                f"{self.house_way} ({self.rule})")


def house_way_difference(banker: Position, front: Sequence[Card], back: Sequence[Card],
                         rules: HouseRules) -> HouseWayDifference | None:
    """How a banker's setting differs from the house way, where the banker must set by it, or None.

    A house dealer sets by the house way (general rules: "the dealer sets the banker's hand by a fixed
    set of rules called the house way"; Greektown: "The dealer must set his or her hands by using ...
    'The House way'"), as does a player-banker where the house says so. Settings of equal values are
    the same setting."""
    if not (banker == DEALER or rules.banking.banker_sets is BankerSetting.HOUSE_WAY) or len(front) + len(back) != 7:
        return None  # a wrong number of cards is refused (or fouled) where cards are counted
    ev = rules.evaluator()
    laid = SetHand.of(front, back, ev)
    way_front, way_back, _, _, rule = house_way_split((*laid.front, *laid.back), rules.way, ev)
    way = SetHand.of(way_front, way_back, ev)
    if (laid.front_value, laid.back_value) == (way.front_value, way.back_value):
        return None
    return HouseWayDifference(
        f"front {' '.join(format_cards(laid.front))}, back {' '.join(format_cards(laid.back))}",
        f"front {' '.join(format_cards(sorted(way.front, reverse=True)))}, "
        f"back {' '.join(format_cards(sorted(way.back, reverse=True)))}", rule)


def _player_hand(hand: Hand, rules: HouseRules, ev: Evaluator) -> Played:
    if hand.cards is not None:
        return _house_way(hand.cards, rules, ev)
    laid = SetHand.of(*hand.laid(), ev)
    if laid.foul and rules.player_foul is FoulPenalty.HOUSE_WAY and len(hand.all_cards) == 7:
        return _house_way(hand.all_cards, rules, ev, reset_from=laid)
    return Played(laid)


def _commission(won: Decimal, rules: HouseRules) -> Decimal:
    c = rules.commission
    if c.kind is not CommissionKind.PERCENT or won == 0:
        return ZERO
    return round_to(won * c.percent / 100, c.increment, c.rounding)


def collection_fee(wager: Decimal, rules: HouseRules) -> Decimal:
    """The flat collection a wager pays in advance under a collection house (0 otherwise)."""
    if rules.commission.kind is not CommissionKind.COLLECTION:
        return ZERO
    for tier in rules.commission.tiers:
        if tier.up_to is None or wager <= tier.up_to:
            return tier.fee
    raise AssertionError("validated collection tiers end with an open tier")


def _fortune(wager: Wager, hand: Hand, rules: HouseRules, ev: Evaluator) -> tuple[Decimal, str | None]:
    if not wager.fortune or rules.fortune is None:
        return ZERO, None
    line = best_paying(hand.all_cards, ev, rules.fortune.pays)
    if line is None:
        return -wager.fortune, None
    return wager.fortune * rules.fortune.pays[line], line


def _envy(wager: Wager, on_seat: int, hands7: dict[int, tuple[Card, ...]], rules: HouseRules,
          ev: Evaluator) -> Decimal:
    """Envy pays for every other seat's qualifying hand; never the hand the wager rides on or the banker's."""
    if rules.envy is None or wager.fortune < rules.envy.minimum_fortune:
        return ZERO
    total = ZERO
    for seat, cards in hands7.items():
        if seat != on_seat and len(cards) == 7:
            line = best_paying(cards, ev, rules.envy.pays)
            if line is not None:
                total += rules.envy.pays[line]
    return total


def check_wagers(rules: HouseRules, banker_seat, banker_wager: Decimal | None, bets: Sequence[SeatWagers]) -> None:
    """The round's positions and wagers against the house rules, before any card is dealt; a
    :class:`RoundError` names the field."""
    seats = rules.start.player_seats
    if banker_seat == DEALER:
        if rules.banking.mode is BankingMode.PLAYER:
            raise RoundError(f"banker.seat: {rules.name} has no house bank; give the Player/Dealer's seat (1-{seats})")
        if banker_wager is not None:
            raise RoundError("banker.wager: the house bank places no wager")
    else:
        if rules.banking.mode is BankingMode.HOUSE:
            raise RoundError(f"banker.seat: {rules.name} is house-banked; the banker is \"dealer\"")
        if not isinstance(banker_seat, int) or not 1 <= banker_seat <= seats:
            raise RoundError(f"banker.seat: {banker_seat!r} is not a seat 1-{seats}")
        if rules.banking.action_limited and banker_wager is None:
            raise RoundError("banker.wager: the Player/Dealer's wager is needed: action is limited to it")
        if banker_wager is not None and banker_wager < rules.limits.minimum:
            # Capitol rule 6: "Players must wager at least the table minimum"; Fortune: "you must bet at
            # least the table minimum. However, there is no maximum limit for the Player/Dealer position".
            raise RoundError(f"banker.wager: {banker_wager} is under the table minimum {rules.limits.minimum}: "
                             "the Player/Dealer wagers at least the table minimum")
    seen: set[int] = set()
    for i, bet in enumerate(bets):
        seat, where = bet.seat, f"seats[{i}]"
        if not 1 <= seat <= seats:
            raise RoundError(f"{where}.seat: {seat} is not a seat 1-{seats}")
        if seat in seen:
            raise RoundError(f"{where}.seat: seat {seat} appears twice")
        if seat == banker_seat:
            raise RoundError(f"{where}.seat: seat {seat} is the banker's seat")
        seen.add(seat)
        _check_amounts(where, bet.wager, bet.fortune, rules)
        if bet.backline and not rules.limits.backline:
            raise RoundError(f"{where}.backline: {rules.name} takes no wager on a seat besides the seated "
                             "player's (limits.backline)")
        for j, other in enumerate(bet.backline):
            _check_amounts(f"{where}.backline[{j}]", other.amount, other.fortune, rules)
    if rules.limits.banker_maximum is not None and banker_wager is not None \
            and banker_wager > rules.limits.banker_maximum:
        raise RoundError(f"banker.wager: {banker_wager} is over the banker maximum {rules.limits.banker_maximum}")


def _check_amounts(where: str, wager: Decimal, fortune: Decimal, rules: HouseRules) -> None:
    """A wager in one betting circle: Capitol rules 5-6, at least the table minimum in each circle."""
    if wager < rules.limits.minimum:
        raise RoundError(f"{where}.wager: {wager} is under the table minimum {rules.limits.minimum}")
    if fortune:
        if rules.fortune is None:
            raise RoundError(f"{where}.bonus.fortune: {rules.name} offers no Fortune bonus")
        if not rules.fortune.minimum <= fortune <= rules.fortune.maximum:
            raise RoundError(f"{where}.bonus.fortune: {fortune} is outside the bonus limits "
                             f"{rules.fortune.minimum}-{rules.fortune.maximum}")


def _validate(rnd: Round, rules: HouseRules) -> None:
    banker = rnd.banker
    check_wagers(rules, banker.seat, banker.wager, [SeatWagers(b.seat, b.wager, b.fortune, b.backline) for b in rnd.bets])
    _validate_hand(banker.hand, "banker")
    if len(banker.hand.all_cards) != 7:
        raise RoundError(f"banker: {len(banker.hand.all_cards)} cards; the banker's hand has 7")
    for i, bet in enumerate(rnd.bets):
        where = f"seats[{i}]"
        if any(w.fortune for w in bet.wagers) and len(bet.hand.all_cards) != 7:
            raise RoundError(f"{where}.bonus.fortune: the Fortune bonus needs the seat's seven cards")
        _validate_hand(bet.hand, where)
    every = [c for hand in [banker.hand, *(b.hand for b in rnd.bets)] for c in hand.all_cards]
    try:
        check_unique(every, " across the hands")
    except ValueError as err:
        raise RoundError(str(err)) from None
    try:
        action_order(rnd.action_seat, banker.seat, [], rules.start.player_seats, rules.start.action_direction)
    except StartSeatError as err:
        raise RoundError(f"action_seat: {err}") from None


def _validate_hand(hand: Hand, where: str) -> None:
    if hand.cards is not None:
        if hand.front is not None or hand.back is not None:
            raise RoundError(f"{where}: give either cards (set by the house way) or front and back, not both")
        if len(hand.cards) != 7:
            raise RoundError(f"{where}.cards: {len(hand.cards)} cards; the house way sets exactly 7")
    elif hand.front is None or hand.back is None:
        raise RoundError(f"{where}: give cards (7, set by the house way) or front and back")
