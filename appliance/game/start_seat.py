"""Where the first hand goes, and the order in which seats get action.

Positions round the table, clockwise seen from above: with a house dealer the
dealer's place and seats 1..6 (seat 1 is first clockwise from the dealer);
at a table where the Player/Dealer sits in a seat, seats 1..7. Seven places
are always counted, whoever banks: a player banking at a house-dealer table
is counted from their own seat and the dealer's place is counted as it is
passed (Greektown: "the banking player will be counted as 1, 8, or 15").
The count starts at the banker as 1 (so also 8 and 15) and runs in the
house's count direction; an RNG value 1-7 is counted the same way as a dice total.

>>> from appliance.game.rules import Direction
>>> first_hand(10, "dealer", 6, Direction.COUNTER_CLOCKWISE)
5
>>> first_hand(8, "dealer", 6, Direction.CLOCKWISE)
'dealer'
>>> first_hand(8, 3, 6, Direction.COUNTER_CLOCKWISE)
3
>>> action_order(3, "dealer", [1, 2, 3, 5, 6], 6, Direction.CLOCKWISE)
[3, 5, 6, 1, 2]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .rules import Direction, StartMethod, StartSeat

DEALER = "dealer"

Position = int | str  # a seat number, or "dealer"


class StartSeatError(ValueError):
    """A device value or a banker position that cannot start a round."""


class StartMethodError(StartSeatError):
    """A start value by a method the house does not use (dice at an RNG house, an RNG value at a dice house)."""


def ring(player_seats: int) -> list[Position]:
    """Every place a hand is dealt to, clockwise: seven, whoever banks."""
    if player_seats == 6:
        return [DEALER, *range(1, 7)]
    return list(range(1, player_seats + 1))


def first_hand(count: int, banker: Position, player_seats: int, direction: Direction) -> Position:
    """The position that receives the first hand for a dice total (3-18) or RNG value (1-7)."""
    return counted(count, banker, player_seats, direction)[-1]


def counted(count: int, banker: Position, player_seats: int, direction: Direction) -> list[Position]:
    """The places counted, one per point of ``count``, from the banker as 1: the last receives the first hand."""
    if not 1 <= count <= 18:
        raise StartSeatError(f"start count {count} is out of range: a dice total is 3-18, an RNG value 1-7")
    positions = ring(player_seats)
    if banker not in positions:
        raise StartSeatError(f"banker position {banker!r} is not at a {player_seats}-seat table")
    step = 1 if direction is Direction.CLOCKWISE else -1
    start = positions.index(banker)
    return [positions[(start + step * k) % len(positions)] for k in range(count)]


def action_order(start: Position, banker: Position, seats: Iterable[int], player_seats: int,
                 direction: Direction) -> list[int]:
    """The seats in ``seats`` in action order, beginning at ``start`` (the banker's place starts with the next seat)."""
    positions = ring(player_seats)
    if start not in positions:
        raise StartSeatError(f"action seat {start!r} is not at a {player_seats}-seat table")
    step = 1 if direction is Direction.CLOCKWISE else -1
    wanted = set(seats)
    i = positions.index(start)
    order = []
    for k in range(len(positions)):
        position = positions[(i + step * k) % len(positions)]
        if position in wanted and position != banker:
            order.append(position)
    return order


@dataclass(frozen=True)
class StartOfRound:
    """Where a round starts, and why, as ``appliance start-seat`` prints it."""

    first_hand: Position
    action_order: tuple[int, ...]  # every player seat but the banker's, in action order
    banker: Position
    rule: str

    def to_json(self) -> dict:
        return {"first_hand": self.first_hand, "action_order": list(self.action_order),
                "banker": self.banker, "rule": self.rule}


def start_of_round(start: StartSeat, banker: Position, value: int | None = None,
                   dice: Sequence[int] | None = None) -> StartOfRound:
    """The first hand and action order for an RNG ``value`` (1-7) or three ``dice``, under a house's start rules."""
    count, source = _count(start, value, dice)
    places = counted(count, banker, start.player_seats, start.count_direction)
    seats = [p for p in ring(start.player_seats) if isinstance(p, int) and p != banker]  # not the dealer
    order = action_order(places[-1], banker, seats, start.player_seats, start.action_direction)
    shown = ", ".join(f"{k + 1} {_name(p)}" for k, p in enumerate(places[:7]))
    more = f", ... {count} {_name(places[-1])}" if count > 7 else ""
    rule = (f"{source}, counted {start.count_direction.value} over the 7 places from the banker "
            f"({_name(banker)}) as 1, 8 and 15: {shown}{more}; the first hand goes to {_name(places[-1])} "
            f"and action runs {start.action_direction.value} from there")
    return StartOfRound(places[-1], tuple(order), banker, rule)


def _count(start: StartSeat, value: int | None, dice: Sequence[int] | None) -> tuple[int, str]:
    """The count round the table, and what gave it: three dice or an RNG value, exactly one of the two."""
    if dice is not None and value is None:
        if StartMethod.DICE not in start.methods:
            raise StartMethodError("this house starts with an electronic device, not dice")
        if len(dice) != 3 or any(not 1 <= d <= 6 for d in dice):
            raise StartSeatError(f"dice {list(dice)}: three dice, each 1-6")
        return sum(dice), f"dice {'+'.join(map(str, dice))} = {sum(dice)}"
    if value is not None and dice is None:
        if StartMethod.RNG not in start.methods:
            raise StartMethodError("this house starts with the dice cup, not an electronic device")
        if not 1 <= value <= 7:
            raise StartSeatError(f"RNG value {value} is out of range 1-7")
        return value, f"RNG value {value}"
    raise StartSeatError("give either an RNG value or three dice, not both or neither")


def _name(position: Position) -> str:
    return "the dealer" if position == DEALER else f"seat {position}"
