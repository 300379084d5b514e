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


# Greektown: "The dealer, when the house is banking, or the banking player will be counted as 1, 8, or 15
# when the Pai Gow shaker and dice are used. The count will begin with the dealer or banking player and
# continue in a counter-clockwise direction until it matches the total on the dice."
@pytest.mark.parametrize("count", [1, 8, 15])
def test_a_banking_player_at_a_house_dealer_table_is_counted_as_1_8_15(count):
    assert first_hand(count, 3, 6, CCW) == 3


@pytest.mark.parametrize("count, expected", [(2, 2), (3, 1), (4, "dealer"), (5, 6), (7, 4), (10, 1)])
def test_seven_places_are_counted_whoever_banks(count, expected):
    # Seven hands are dealt ("Seven cards will be dealt to each betting area, including the dealer"),
    # so the dealer's place is counted when a player banks too.
    assert first_hand(count, 3, 6, CCW) == expected


def test_a_first_hand_on_the_dealers_place_starts_action_with_the_next_seat():
    assert action_order("dealer", 3, [1, 2, 4, 5, 6], 6, CW) == [1, 2, 4, 5, 6]


def test_start_of_round_names_the_places_counted():
    from appliance.config import load_house
    from appliance.game.start_seat import start_of_round
    start = start_of_round(load_house("greektown").start, 3, dice=(2, 3, 3))
    assert (start.first_hand, start.action_order, start.banker) == (3, (4, 5, 6, 1, 2), 3)
    assert "counted counter-clockwise over the 7 places from the banker (seat 3) as 1, 8 and 15" in start.rule
    assert "4 the dealer" in start.rule
    capitol = load_house("capitol").start  # rule 14: "The value of the dice cup"
    with pytest.raises(StartSeatError, match="dice cup"):
        start_of_round(capitol, 2, value=4)
    # "The Player/Dealer's position is always counted as numbers 1, 8, or 15": 8 is the banker again, 9 the next seat.
    assert start_of_round(capitol, 2, dice=(1, 1, 6)).first_hand == 2
    assert start_of_round(capitol, 2, dice=(1, 2, 6)).first_hand == 3
    with pytest.raises(StartSeatError, match=r"three dice, each 1-6"):
        start_of_round(capitol, 2, dice=(1, 1, 7))
