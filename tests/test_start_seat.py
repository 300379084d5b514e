import pytest

from appliance.game.rules import Direction
from appliance.game.start_seat import StartSeatError, action_order, first_hand

CW, CCW = Direction.CLOCKWISE, Direction.COUNTER_CLOCKWISE


@pytest.mark.parametrize("count, direction, expected", [
    (1, CW, "dealer"), (8, CW, "dealer"), (15, CW, "dealer"),
    (2, CW, 1), (7, CW, 6), (9, CW, 1), (18, CW, 3),
    (2, CCW, 6), (7, CCW, 1), (10, CCW, 5), (3, CCW, 5),
])
def test_counted_from_the_house_dealer_as_1_8_15(count, direction, expected):
    assert first_hand(count, "dealer", 6, direction) == expected


@pytest.mark.parametrize("count, direction, expected", [
    (1, CW, 4), (8, CW, 4), (15, CW, 4), (2, CW, 5), (5, CW, 1), (2, CCW, 3), (5, CCW, 7),
])
def test_counted_from_a_player_dealer_in_seat_4_of_7(count, direction, expected):
    assert first_hand(count, 4, 7, direction) == expected


def test_action_order_skips_the_banker_and_empty_seats():
    assert action_order(5, 4, [1, 2, 5, 6, 7], 7, CW) == [5, 6, 7, 1, 2]
    assert action_order(5, 4, [1, 2, 5, 6, 7], 7, CCW) == [5, 2, 1, 7, 6]
    assert action_order("dealer", "dealer", [1, 3, 6], 6, CW) == [1, 3, 6]
    assert action_order("dealer", "dealer", [1, 3, 6], 6, CCW) == [6, 3, 1]


@pytest.mark.parametrize("count", [0, 19, -3])
def test_out_of_range_counts_are_refused(count):
    with pytest.raises(StartSeatError, match=f"start count {count} is out of range"):
        first_hand(count, "dealer", 6, CW)


def test_unknown_positions_are_refused():
    with pytest.raises(StartSeatError, match="banker position 9"):
        first_hand(5, 9, 7, CW)
    with pytest.raises(StartSeatError, match="action seat 7"):
        action_order(7, "dealer", [1], 6, CW)
