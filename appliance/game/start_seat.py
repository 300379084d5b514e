"""Where the first hand goes, and the order in which seats get action.

Positions round the table, clockwise seen from above: with a house dealer the
dealer's place and seats 1..6 (seat 1 is first clockwise from the dealer);
at a table where the Player/Dealer sits in a seat, seats 1..7. The count
starts at the banker as 1 (so also 8 and 15) and runs in the house's count
direction; an RNG value 1-7 is counted the same way as a dice total.

>>> from appliance.game.rules import Direction
>>> first_hand(10, "dealer", 6, Direction.COUNTER_CLOCKWISE)
5
>>> first_hand(8, "dealer", 6, Direction.CLOCKWISE)
'dealer'
>>> action_order(3, "dealer", [1, 2, 3, 5, 6], 6, Direction.CLOCKWISE)
[3, 5, 6, 1, 2]
"""

from __future__ import annotations

from collections.abc import Iterable

from .rules import Direction

DEALER = "dealer"

Position = int | str  # a seat number, or "dealer"


class StartSeatError(ValueError):
    """A device value or a banker position that cannot start a round."""


def ring(player_seats: int, banker: Position) -> list[Position]:
    """Every position, clockwise."""
    if banker == DEALER:
        return [DEALER, *range(1, player_seats + 1)]
    return list(range(1, player_seats + 1))


def first_hand(count: int, banker: Position, player_seats: int, direction: Direction) -> Position:
    """The position that receives the first hand for a dice total (3-18) or RNG value (1-7)."""
    if not 1 <= count <= 18:
        raise StartSeatError(f"start count {count} is out of range: a dice total is 3-18, an RNG value 1-7")
    positions = ring(player_seats, banker)
    if banker not in positions:
        raise StartSeatError(f"banker position {banker!r} is not at a {player_seats}-seat table")
    step = 1 if direction is Direction.CLOCKWISE else -1
    return positions[(positions.index(banker) + step * (count - 1)) % len(positions)]


def action_order(start: Position, banker: Position, seats: Iterable[int], player_seats: int,
                 direction: Direction) -> list[int]:
    """The seats in ``seats`` in action order, beginning at ``start`` (the banker's place starts with the next seat)."""
    positions = ring(player_seats, banker)
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
