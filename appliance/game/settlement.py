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

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from .cards import Card, check_unique
from .fortune import best_paying
from .house_ways import decide as house_way_decide
from .money import ZERO, round_to
from .rules import BankingMode, CommissionKind, FoulPenalty, HouseRules
from .setting import SetHand
from .start_seat import DEALER, Position, StartSeatError, action_order
from .values import Evaluator, evaluator


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


@dataclass(frozen=True)
class Bet:
    seat: int
    wager: Decimal
    hand: Hand
    fortune: Decimal = ZERO


@dataclass(frozen=True)
class Banker:
    seat: Position  # "dealer" or the Player/Dealer's seat
    hand: Hand
    wager: Decimal | None = None  # a player-banker's wager


@dataclass(frozen=True)
class Round:
    banker: Banker
    action_seat: Position
    bets: tuple[Bet, ...]


@dataclass(frozen=True)
class Played:
    """How a hand was played: as laid, or set or reset by the house way, and why."""

    hand: SetHand
    rule: str | None = None  # the house-way rule, when the house way set it
    reset_from: SetHand | None = None  # the fouled setting that was reset


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
    ev = evaluator(rules.joker, rules.wheel)
    _validate(rnd, rules)
    banker_played, banker_forfeits = _banker_hand(rnd.banker, rules, ev)
    order = action_order(rnd.action_seat, rnd.banker.seat, [b.seat for b in rnd.bets],
                         rules.start.player_seats, rules.start.action_direction)
    bets = {b.seat: b for b in rnd.bets}
    limited = rules.player_banked and rules.banking.action_limited and rnd.banker.seat != DEALER
    remaining = rnd.banker.wager if limited else None
    hands7 = {b.seat: b.hand.all_cards for b in rnd.bets}

    seats = []
    for seat in order:
        bet = bets[seat]
        action = min(bet.wager, rules.limits.maximum)  # over the maximum: no action on the excess
        played = _player_hand(bet.hand, rules, ev)
        front = back = None
        if played.hand.foul:
            result, reason = Result.FOUL, f"fouled: {played.hand.foul}"
        elif banker_forfeits:
            result, reason = Result.WIN, "the banker's hand is fouled and forfeits"
        else:
            front = _side(played.hand.front_value, banker_played.hand.front_value)
            back = _side(played.hand.back_value, banker_played.hand.back_value)
            wins = (front is Side.WIN) + (back is Side.WIN)
            result = (Result.LOSS, Result.PUSH, Result.WIN)[wins]
            reason = {2: "won both hands", 1: "won one hand, lost the other", 0: "lost both hands"}[wins]
            if played.reset_from is not None:
                reason += " (fouled setting reset by the house way)"
        if action < bet.wager:
            reason += f"; {bet.wager - action} over the table maximum has no action"

        if remaining is not None:
            if remaining == 0:
                # Once the Player/Dealer's wager is used up the hand is over for every later seat.
                action, result, front, back = ZERO, Result.NO_ACTION, None, None
                reason = "no action: the Player/Dealer's wager was used up by earlier seats"
            elif result is not Result.PUSH:
                if action > remaining:
                    reason += f"; partial action: {remaining} of {action} (the Player/Dealer's wager is used up)"
                    action = remaining
                remaining -= action

        won = action if result is Result.WIN else ZERO
        lost = action if result in (Result.LOSS, Result.FOUL) else ZERO
        commission = _commission(won, rules)
        collection = collection_fee(bet.wager, rules)
        fortune, fortune_line = _fortune(bet, rules, ev)
        envy = _envy(bet, hands7, rules, ev)
        net = won - lost - commission - collection + fortune + envy
        seats.append(SeatSettlement(
            seat, result, front, back, bet.wager, action, won, lost, commission, collection,
            fortune, fortune_line, envy, net, played, reason,
        ))

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
    notes = []
    if remaining is not None:
        notes.append(f"Player/Dealer action used: {rnd.banker.wager - remaining} of {rnd.banker.wager}")
    return Settlement(
        house=rules.key, banker_seat=rnd.banker.seat, banker=banker_played, action_order=tuple(order),
        seats=tuple(seats), commission=players_commission + banker_commission,
        collection=collection + banker_collection, banker_commission=banker_commission,
        banker_collection=banker_collection, banker_net=banker_net, bonus_net=bonus_net,
        house_net=house_net, notes=tuple(notes),
    )


def _side(player: int, banker: int) -> Side:
    if player > banker:
        return Side.WIN
    return Side.COPY if player == banker else Side.LOSS


def _house_way(cards: Sequence[int], rules: HouseRules, ev: Evaluator, reset_from: SetHand | None = None) -> Played:
    front, back, _, _, rule = house_way_decide(cards, rules.house_way, ev)
    return Played(SetHand.of(front, back, ev), rule, reset_from)


def _banker_hand(banker: Banker, rules: HouseRules, ev: Evaluator) -> tuple[Played, bool]:
    """The banker's hand as played, and whether a fouled banker hand forfeits every seat's wager."""
    hand = banker.hand
    if hand.cards is not None:
        return _house_way(hand.cards, rules, ev), False
    laid = SetHand.of(hand.front, hand.back, ev)
    if not laid.foul:
        return Played(laid), False
    if rules.banker_foul is FoulPenalty.HOUSE_WAY:
        return _house_way(hand.all_cards, rules, ev, reset_from=laid), False
    return Played(laid), True


def _player_hand(hand: Hand, rules: HouseRules, ev: Evaluator) -> Played:
    if hand.cards is not None:
        return _house_way(hand.cards, rules, ev)
    laid = SetHand.of(hand.front, hand.back, ev)
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


def _fortune(bet: Bet, rules: HouseRules, ev: Evaluator) -> tuple[Decimal, str | None]:
    if not bet.fortune or rules.fortune is None:
        return ZERO, None
    line = best_paying(bet.hand.all_cards, ev, rules.fortune.pays)
    if line is None:
        return -bet.fortune, None
    return bet.fortune * rules.fortune.pays[line], line


def _envy(bet: Bet, hands7: dict[int, tuple[Card, ...]], rules: HouseRules, ev: Evaluator) -> Decimal:
    """Envy pays for every other player's qualifying hand; never the seat's own or the banker's."""
    if rules.envy is None or bet.fortune < rules.envy.minimum_fortune:
        return ZERO
    total = ZERO
    for seat, cards in hands7.items():
        if seat != bet.seat and len(cards) == 7:
            line = best_paying(cards, ev, rules.envy.pays)
            if line is not None:
                total += rules.envy.pays[line]
    return total


def check_wagers(rules: HouseRules, banker_seat, banker_wager: Decimal | None,
                 bets: list[tuple[int, Decimal, Decimal | None]]) -> None:
    """The round's positions and wagers (``bets``: seat, wager, Fortune wager or None) against the
    house rules, before any card is dealt; a :class:`RoundError` names the field."""
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
    seen: set[int] = set()
    for i, (seat, wager, fortune) in enumerate(bets):
        where = f"seats[{i}]"
        if not 1 <= seat <= seats:
            raise RoundError(f"{where}.seat: {seat} is not a seat 1-{seats}")
        if seat in seen:
            raise RoundError(f"{where}.seat: seat {seat} appears twice")
        if seat == banker_seat:
            raise RoundError(f"{where}.seat: seat {seat} is the banker's seat")
        seen.add(seat)
        if wager < rules.limits.minimum:
            raise RoundError(f"{where}.wager: {wager} is under the table minimum {rules.limits.minimum}")
        if wager > rules.limits.maximum:
            raise RoundError(f"{where}.wager: {wager} is over the table maximum {rules.limits.maximum}")
        if fortune:
            if rules.fortune is None:
                raise RoundError(f"{where}.bonus.fortune: {rules.name} offers no Fortune bonus")
            if not rules.fortune.minimum <= fortune <= rules.fortune.maximum:
                raise RoundError(f"{where}.bonus.fortune: {fortune} is outside the bonus limits "
                                 f"{rules.fortune.minimum}-{rules.fortune.maximum}")
    if rules.limits.banker_maximum is not None and banker_wager is not None \
            and banker_wager > rules.limits.banker_maximum:
        raise RoundError(f"banker.wager: {banker_wager} is over the banker maximum {rules.limits.banker_maximum}")


def _validate(rnd: Round, rules: HouseRules) -> None:
    banker = rnd.banker
    check_wagers(rules, banker.seat, banker.wager, [(b.seat, b.wager, b.fortune) for b in rnd.bets])
    _validate_hand(banker.hand, "banker")
    if len(banker.hand.all_cards) != 7:
        raise RoundError(f"banker: {len(banker.hand.all_cards)} cards; the banker's hand has 7")
    for i, bet in enumerate(rnd.bets):
        where = f"seats[{i}]"
        if bet.fortune and len(bet.hand.all_cards) != 7:
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
