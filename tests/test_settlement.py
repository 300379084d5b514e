import dataclasses
import re
from decimal import Decimal as D

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.config import load_all_houses, load_house
from appliance.game.cards import parse_cards
from appliance.game.house_ways import set_by_house_way
from appliance.game.rules import BankingMode, FoulPenalty
from appliance.game.settlement import (
    Banker, Bet, Hand, Result, Round, RoundError, Side, Wager, collection_fee, settle,
)

HOUSES = load_all_houses()
GENERAL, CAPITOL, FORTUNE, GREEKTOWN, SAFARI = (HOUSES[k] for k in ("general", "capitol", "fortune", "greektown", "safari"))

# A banker hand set: front K-Q, back two pair nines and fives.
BANKER_SET = Hand(front=parse_cards("Kh Qd"), back=parse_cards("9c 9s 5h 5d 2c"))
WINNER = Hand(front=parse_cards("Ac Kd"), back=parse_cards("Th Ts Td 6c 6d"))  # beats both
LOSER = Hand(front=parse_cards("3h 2d"), back=parse_cards("7c 7s 4h 4d Jc"))  # loses both
PUSHER = Hand(front=parse_cards("As 3s"), back=parse_cards("8c 8s 4s 4c Js"))  # wins front, loses back
WINNER2 = Hand(front=parse_cards("Ad Ah"), back=parse_cards("Qh Qs Qc 8h 8d"))
LOSER2 = Hand(front=parse_cards("3c 2h"), back=parse_cards("6h 6s 3d 7h 2s"))


def hand(front, back):
    return Hand(front=parse_cards(front), back=parse_cards(back))


def dealer_round(*bets, banker=BANKER_SET, action=1):
    return Round(Banker("dealer", banker), action, tuple(bets))


def test_win_push_loss_and_commission_rounding():
    s = settle(dealer_round(Bet(1, D("25.00"), WINNER), Bet(2, D("27.00"), PUSHER), Bet(3, D("40.00"), LOSER)), GENERAL)
    win, push, loss = s.seats
    assert (win.result, win.front, win.back) == (Result.WIN, Side.WIN, Side.WIN)
    assert (win.won, win.commission, win.net) == (D("25.00"), D("1.25"), D("23.75"))
    assert (push.result, push.net, push.commission) == (Result.PUSH, D("0.00"), D("0.00"))
    assert (loss.result, loss.lost, loss.net) == (Result.LOSS, D("40.00"), D("-40.00"))
    assert s.banker_net == D("15.00") and s.commission == D("1.25") and s.house_net == D("16.25")


@pytest.mark.parametrize("wager, commission", [("10.00", "0.50"), ("27.00", "1.25"), ("35.00", "1.75"), ("39.00", "1.75"), ("5.00", "0.25")])
def test_commission_rounds_down_to_the_quarter(wager, commission):
    s = settle(Round(Banker("dealer", BANKER_SET), 1, (Bet(1, D(wager), WINNER),)), SAFARI)
    assert s.seats[0].commission == D(commission)
    assert s.seats[0].net == D(wager) - D(commission)


def test_commission_rounding_up_is_configuration():
    rules = dataclasses.replace(GENERAL, commission=dataclasses.replace(GENERAL.commission, rounding=type(GENERAL.commission.rounding)("up")))
    s = settle(dealer_round(Bet(1, D("27.00"), WINNER)), rules)
    assert s.seats[0].commission == D("1.50")


def test_copies_go_to_the_banker():
    front_copy = hand("Ks Qh", "As Ad 3c 3h 7d")  # copies the front, wins the back
    both = hand("Kc Qs", "9h 9d 5s 5c 2d")  # copies both
    s = settle(dealer_round(Bet(1, D("20.00"), front_copy), Bet(2, D("20.00"), both)), GENERAL)
    assert (s.seats[0].front, s.seats[0].back, s.seats[0].result) == (Side.COPY, Side.WIN, Result.PUSH)
    assert (s.seats[1].front, s.seats[1].back, s.seats[1].result) == (Side.COPY, Side.COPY, Result.LOSS)
    assert s.seats[1].lost == D("20.00")


def test_a_fouled_hand_forfeits():
    fouled = hand("Ac Ad", "Kc Ks 7s 4h 3c")
    short = Hand(front=parse_cards("Ah"), back=parse_cards("Qh Qs 8h 6h 3d 2s"))
    s = settle(dealer_round(Bet(1, D("20.00"), fouled), Bet(2, D("20.00"), short)), GENERAL)
    assert s.seats[0].result is Result.FOUL and s.seats[0].lost == D("20.00")
    assert "front outranks back" in s.seats[0].reason
    assert s.seats[1].result is Result.FOUL and "front has 1 card, not 2" in s.seats[1].reason


def test_a_fouled_hand_reset_by_the_house_way():
    rules = dataclasses.replace(GENERAL, player_foul=FoulPenalty.HOUSE_WAY)
    s = settle(dealer_round(Bet(1, D("20.00"), hand("Ac Ad", "Kc Ks 7s 4h 3c"))), rules)
    seat = s.seats[0]
    assert seat.result is not Result.FOUL and seat.played.reset_from is not None
    assert seat.played.rule.startswith("Pair of aces and any other pair")  # AA KK split: kings in front
    assert sorted(str(c) for c in seat.played.hand.front) == ["Kc", "Ks"]


def test_capitol_rule_31_a_fouled_player_dealer_is_reset_by_house_way():
    fouled_banker = hand("Ah Ad", "Kc Ks 9h 6h 3c")
    rnd = Round(Banker(4, fouled_banker, D("500.00")), 1, (Bet(1, D("20.00"), LOSER),))
    s = settle(rnd, CAPITOL)
    assert s.banker.reset_from is not None and s.banker.reset_from.foul
    assert s.banker.hand.foul is None and s.banker.rule


def test_a_forfeiting_banker_loses_every_seat():
    rules = dataclasses.replace(GREEKTOWN, banker_foul=FoulPenalty.FORFEIT)
    fouled_banker = hand("Ah Ad", "Kc Ks 9h 6h 3c")
    s = settle(Round(Banker(4, fouled_banker), 1, (Bet(1, D("20.00"), LOSER),)), rules)
    assert s.seats[0].result is Result.WIN and s.banker_net < 0


def test_fortune_rules_own_example_of_the_action_limit():
    """P/D wagers $100, loses $50 to the action hand, wins $50 from the next: nothing more is settled."""
    rnd = Round(Banker(4, BANKER_SET, D("100.00")), 5, (
        Bet(5, D("50.00"), WINNER), Bet(6, D("50.00"), LOSER), Bet(7, D("50.00"), WINNER2), Bet(1, D("50.00"), LOSER2),
    ))
    s = settle(rnd, FORTUNE)
    assert s.action_order == (5, 6, 7, 1)
    assert [x.result for x in s.seats] == [Result.WIN, Result.LOSS, Result.NO_ACTION, Result.NO_ACTION]
    assert [x.action for x in s.seats] == [D("50.00"), D("50.00"), D("0.00"), D("0.00")]
    collections = sum(x.collection for x in s.seats)
    assert s.banker_net == -s.banker_collection and collections == 4 * collection_fee(D("50.00"), FORTUNE)


def test_partial_action():
    rnd = Round(Banker(4, BANKER_SET, D("100.00")), 1, (
        Bet(1, D("75.00"), LOSER), Bet(2, D("20.00"), PUSHER), Bet(3, D("50.00"), WINNER),
    ))
    s = settle(rnd, CAPITOL)
    assert [x.result for x in s.seats] == [Result.LOSS, Result.PUSH, Result.WIN]
    assert [x.action for x in s.seats] == [D("75.00"), D("20.00"), D("25.00")]
    assert s.seats[2].won == D("25.00") and "partial action" in s.seats[2].reason
    assert s.banker_net == D("50.00") - s.banker_collection


def test_collection_tiers_taken_in_advance_from_every_wager():
    assert [collection_fee(D(w), CAPITOL) for w in ("10.00", "30.00", "30.01", "100.00", "300.00", "5000.00")] == \
        [D("1.00"), D("1.00"), D("2.00"), D("2.00"), D("3.00"), D("5.00")]
    s = settle(Round(Banker(4, BANKER_SET, D("200.00")), 1, (Bet(1, D("40.00"), PUSHER),)), CAPITOL)
    assert s.seats[0].collection == D("2.00") and s.seats[0].net == D("-2.00")
    assert s.banker_collection == D("3.00") and s.collection == D("5.00")
    assert s.commission == 0


def test_wagers_over_the_maximum_get_no_action_on_the_excess():
    s = settle(dealer_round(Bet(1, D("400.00"), WINNER)), SAFARI)
    assert s.seats[0].action == D("300.00") and s.seats[0].won == D("300.00")
    assert "over the table maximum" in s.seats[0].reason


def test_player_banker_pays_commission_on_net_winnings():
    rnd = Round(Banker(4, BANKER_SET), 1, (Bet(1, D("100.00"), LOSER), Bet(2, D("40.00"), WINNER)))
    s = settle(rnd, GREEKTOWN)
    assert s.banker_commission == D("3.00")  # 5% of 60.00
    assert s.banker_net == D("57.00")
    assert s.commission == D("5.00")  # the winner's 2.00 and the banker's 3.00


def test_fortune_and_envy():
    royal = hand("2h 3c", "Th Jh Qh Kh Ah")  # a royal flush: 100 to 1 at the Fortune room
    straight = hand("4c 4d", "5h 6h 7d 8c 9s")
    banker = hand("Kc Qc", "9h 9d 5c 5s 2s")
    rnd = Round(Banker(2, banker, D("1000.00")), 1, (
        Bet(1, D("20.00"), royal, fortune=D("5.00")),
        Bet(3, D("20.00"), straight, fortune=D("5.00")),
        Bet(4, D("20.00"), hand("Ac Ad", "Ks Kd 3h 3s 2d"), fortune=D("1.00")),
    ))
    s = settle(rnd, FORTUNE)
    by = {x.seat: x for x in s.seats}
    assert (by[1].fortune_line, by[1].fortune) == ("royal-flush", D("500.00"))
    assert (by[3].fortune_line, by[3].fortune) == ("straight", D("10.00"))
    assert by[4].fortune == D("-1.00")
    # Envy: seat 3 (Fortune $5) is paid for seat 1's royal; seat 1 gets nothing for its own;
    # seat 4's $1 Fortune bet does not qualify.
    assert (by[1].envy, by[3].envy, by[4].envy) == (D("0.00"), D("50.00"), D("0.00"))
    assert s.bonus_net == -(D("500.00") + D("10.00") - D("1.00") + D("50.00"))


@pytest.mark.parametrize("rnd, rules, message", [
    (dealer_round(Bet(1, D("20.00"), WINNER), Bet(1, D("20.00"), LOSER)), GENERAL, r"seats\[1\].seat: seat 1 appears twice"),
    (dealer_round(Bet(9, D("20.00"), WINNER)), GENERAL, r"seats\[0\].seat: 9 is not a seat 1-6"),
    (dealer_round(Bet(1, D("2.00"), WINNER)), GENERAL, r"seats\[0\].wager: 2.00 is under the table minimum 10.00"),
    (dealer_round(Bet(1, D("20.00"), hand("Kh 2d", "7c 7s 4h 4d Jc"))), GENERAL, "card Kh appears twice across the hands"),
    (dealer_round(Bet(1, D("20.00"), WINNER), banker=hand("Kh Qd", "9c 9s 5h 5d")), GENERAL, "banker: 6 cards"),
    (dealer_round(Bet(1, D("20.00"), WINNER)), CAPITOL, "banker.seat: Capitol Casino has no house bank"),
    (Round(Banker(4, BANKER_SET), 1, (Bet(1, D("20.00"), WINNER),)), CAPITOL, "banker.wager: the Player/Dealer's wager is needed"),
    (Round(Banker(4, BANKER_SET), 1, (Bet(1, D("20.00"), WINNER),)), SAFARI, "banker.seat: .* is house-banked"),
    (dealer_round(Bet(1, D("20.00"), WINNER, fortune=D("5.00"))), GENERAL, r"seats\[0\].bonus.fortune: .* offers no Fortune bonus"),
    (dealer_round(Bet(1, D("20.00"), WINNER), action=8), GENERAL, "action_seat: action seat 8 is not at a 6-seat table"),
])
def test_invalid_rounds_are_refused_before_any_result(rnd, rules, message):
    with pytest.raises(RoundError, match=message):
        settle(rnd, rules)


# --- money is conserved, round by round -------------------------------------------------------

def _round_strategy():
    house = st.sampled_from(sorted(HOUSES))

    @st.composite
    def build(draw):
        rules = HOUSES[draw(house)]
        deck = draw(st.permutations(range(53)))
        seats = rules.start.player_seats
        banker_seat = "dealer" if rules.banking.mode is BankingMode.HOUSE else draw(st.integers(1, seats))
        if rules.banking.mode is BankingMode.PLAYER_OPTIONAL and draw(st.booleans()):
            banker_seat = "dealer"
        players = [s for s in range(1, seats + 1) if s != banker_seat]
        chosen = draw(st.lists(st.sampled_from(players), min_size=1, max_size=len(players), unique=True))
        cents = st.integers(int(rules.limits.minimum * 100), int(rules.limits.maximum * 100) + 5000)
        bets, pos = [], 7
        for seat in chosen:
            cards = tuple(deck[pos:pos + 7])
            pos += 7
            if draw(st.booleans()):
                h = Hand(cards=cards)
            else:
                h = Hand(front=cards[:2], back=cards[2:])  # as a player might lay them, fouls included
            fortune = D(0)
            if rules.fortune is not None and draw(st.booleans()):
                fortune = D(draw(st.integers(int(rules.fortune.minimum), int(rules.fortune.maximum))))
            backline = tuple(Wager(D(draw(cents)) / 100, f"backline {k}")
                             for k in range(draw(st.integers(0, 2 if rules.limits.backline else 0))))
            bets.append(Bet(seat, D(draw(cents)) / 100, h, fortune, backline))
        wager = None
        if banker_seat != "dealer":
            wager = D(draw(st.integers(1000, 100000))) / 100
        banker_hand = Hand(cards=tuple(deck[:7])) if draw(st.booleans()) else Hand(front=tuple(deck[:2]), back=tuple(deck[2:7]))
        action = draw(st.sampled_from(players))
        # A house dealer's own setting is settled as laid only when the input says so.
        set_by = "dealer" if banker_hand.cards is None and banker_seat == "dealer" else None
        return rules, Round(Banker(banker_seat, banker_hand, wager, set_by), action, tuple(bets))

    return build()


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_round_strategy())
def test_money_is_conserved(case):
    rules, rnd = case
    s = settle(rnd, rules)
    players = sum(x.net for x in s.seats)
    player_banker = s.banker_net if s.banker_seat != "dealer" else 0
    assert players + player_banker + s.house_net == 0
    # What players win, less the commission, is what the bank pays out (and the bank keeps what they lose).
    assert sum(x.won - x.lost for x in s.seats) == -(s.banker_net + s.banker_commission + s.banker_collection)
    for x in s.seats:
        assert x.won == 0 or x.lost == 0
        assert x.action <= x.wager
        assert x.commission <= x.won
    if rules.banking.action_limited and s.banker_seat != "dealer":
        used = sum(x.won + x.lost for x in s.seats)
        assert used <= rnd.banker.wager
    for amount in [s.banker_net, s.house_net, *(x.net for x in s.seats)]:
        assert amount == amount.quantize(D("0.01"))


def test_every_house_settles_a_round():
    for key, rules in HOUSES.items():
        banker = Banker("dealer", BANKER_SET) if rules.banking.mode is not BankingMode.PLAYER else Banker(6, BANKER_SET, D("500.00"))
        s = settle(Round(banker, 1, (Bet(1, rules.limits.minimum, WINNER), Bet(2, rules.limits.minimum, LOSER))), rules)
        assert [x.result for x in s.seats] == [Result.WIN, Result.LOSS], key
    assert load_house("general").key == "general"


# General rules: "The five-card hand must rank higher than the two-card hand. If the two-card hand is a pair
# of aces, for example, the five-card hand must hold two pair or better."
@pytest.mark.parametrize("front", ["As Ah", "Jk Ah"])
def test_a_pair_of_aces_in_front_needs_two_pair_behind(front):
    rnd = Round(Banker("dealer", hand("Kd Qd", "9s 8c 7h 6d 5c")), 1,
                (Bet(1, D("20.00"), hand(front, "Ad Ac Kh Qh Jc")),))
    seat = settle(rnd, GENERAL).seats[0]
    assert (seat.result, seat.net) == (Result.FOUL, D("-20.00"))
    assert "a pair in front needs two pair or better behind" in seat.reason
    # Greektown: "The five card hand must always be equal to or higher in rank than the two card hand".
    assert settle(rnd, GREEKTOWN).seats[0].result is Result.PUSH


def test_which_houses_foul_the_same_pair_behind():
    # Only the general rules say so ("a pair of aces ... two pair or better"); Greektown "equal to or higher",
    # Fortune "must not rank lower"; Capitol and Safari are silent and follow their Atlantic City chart.
    chosen = {"general": True, "capitol": False, "capitol-jokers-wild": False, "safari": False,
              "greektown": False, "fortune": False}
    assert {k: HOUSES[k].equal_pair_behind_fouls for k in chosen} == chosen


# Issue 38 item 7: where the document is silent, the chart decides. The Atlantic City chart Capitol and
# Safari use says of four aces "Aces: Always split": the player who splits them as the chart does is not
# fouled, and the house way splits them too.
@pytest.mark.parametrize("house", ["capitol", "safari"])
def test_four_aces_split_as_the_chart_splits_them_is_not_a_foul(house):
    rules = HOUSES[house]
    cards = Hand(cards=parse_cards("Kd Qd 9s 8c 7h 6d 3c"))  # set by the house way: Q-9 in front, king high behind
    banker = Banker(1, cards, D("100.00")) if rules.player_banked else Banker("dealer", cards)
    rnd = Round(banker, 2, (Bet(2, D("20.00"), hand("As Ah", "Ad Ac 9d 4c 2s")),))
    seat = settle(rnd, rules).seats[0]
    assert seat.result is Result.WIN, seat.reason
    way = set_by_house_way(parse_cards("As Ah Ad Ac 9d 5c 2s"), rules.house_way, rules.evaluator())
    assert rules.evaluator().name(way.front_value) == "Pair of aces", way.rule


# Capitol rule 6: "Players must wager at least the table minimum." Fortune: "As a player, you must bet at
# least the table minimum. However, there is no maximum limit for the Player/Dealer position."
@pytest.mark.parametrize("wager", ["0.00", "9.99"])
@pytest.mark.parametrize("house", ["capitol", "fortune"])
def test_a_player_dealer_wager_under_the_table_minimum_is_refused(house, wager):
    rnd = Round(Banker(1, BANKER_SET, D(wager)), 2, (Bet(2, D("20.00"), WINNER),))
    with pytest.raises(RoundError, match=rf"banker.wager: {wager} is under the table minimum 10.00"):
        settle(rnd, HOUSES[house])
    assert settle(dataclasses.replace(rnd, banker=Banker(1, BANKER_SET, D("10.00"))), HOUSES[house]).seats[0].won == D("10.00")


# Greektown: "The dealer must set his or her hands by using a set of rules known as 'The House way.'"
def test_a_house_dealers_hand_not_set_by_the_house_way_is_refused_unless_set_by_the_dealer():
    from appliance.game.settlement import HouseWayMismatchError
    laid = hand("Qs 7c", "Qd 9h 8c 4h 2s")
    player = Bet(1, D("20.00"), hand("Kd Jh", "Ah Kc 8d 5c 3s"))
    with pytest.raises(HouseWayMismatchError, match=r"the house way sets front 9h 8c, back Qs Qd 7c 4h 2s \(One pair"):
        settle(Round(Banker("dealer", laid), 1, (player,)), GREEKTOWN)
    as_laid = settle(Round(Banker("dealer", laid, set_by="dealer"), 1, (player,)), GREEKTOWN)
    assert (as_laid.seats[0].result, as_laid.seats[0].net) == (Result.WIN, D("19.00"))
    assert "settled as laid (set_by: dealer)" in as_laid.notes[0]
    by_way = settle(Round(Banker("dealer", hand("9h 8c", "Qs Qd 7c 4h 2s")), 1, (player,)), GREEKTOWN)
    assert by_way.seats[0].result is Result.PUSH and not by_way.notes


def test_set_by_in_the_round_json():
    from appliance.game.round_json import round_from_json
    data = {"banker": {"seat": "dealer", "set_by": "dealer", "front": ["Qs", "7c"], "back": ["Qd", "9h", "8c", "4h", "2s"]},
            "action_seat": 1, "seats": [{"seat": 1, "wager": "20.00", "front": ["Kd", "Jh"], "back": ["Ah", "Kc", "8d", "5c", "3s"]}]}
    assert round_from_json(data).banker.set_by == "dealer"
    data["banker"]["set_by"] = "me"
    with pytest.raises(RoundError, match=r"banker.set_by: expected \"dealer\""):
        round_from_json(data)


# Capitol rule 18: "A seated player cannot stop any backline wagers." Rule 17: "The person wagering the largest
# amount of money will handle the cards". Rule 9: "The Player/Dealer cannot collect losing bets beyond the amount
# that has been wagered." Rule 12: "All action runs clockwise beginning with action button."
def test_backline_wagers_ride_on_the_seats_hand_and_share_the_player_dealers_action():
    from appliance.game.settlement import Wager
    bets = (Bet(1, D("20.00"), WINNER, backline=(Wager(D("40.00"), "Ann"), Wager(D("10.00"), "Bob"))),
            Bet(2, D("30.00"), LOSER))
    s = settle(Round(Banker(4, BANKER_SET, D("50.00")), 1, bets), CAPITOL)
    seat1, seat2 = s.seats
    assert [(w.by, w.result, w.action) for w in seat1.wagers] == [
        ("Ann", Result.WIN, D("40.00")), ("seat", Result.WIN, D("10.00")), ("Bob", Result.NO_ACTION, D("0.00"))]
    assert (seat1.result, seat1.wager, seat1.action, seat1.won) == (Result.WIN, D("70.00"), D("50.00"), D("50.00"))
    assert seat1.collection == D("4.00")  # rule 4: "A collection is taken in advance for each wager"
    assert (seat2.result, seat2.action) == (Result.NO_ACTION, D("0.00"))
    players = sum(x.net for x in s.seats)
    assert players + s.banker_net + s.house_net == 0


def test_fortune_betting_circles_each_settle_with_their_own_bonus():
    # Fortune rule 5: "Every seat has multiple numbers of betting circles. When there is a betting circle(s) not
    # wagered, the other player(s) has the right to wager on it."
    from appliance.game.settlement import Wager
    cards = Hand(front=parse_cards("Ac Kd"), back=parse_cards("Th Ts Td 6c 6d"))
    bet = Bet(1, D("20.00"), cards, D("5.00"), backline=(Wager(D("20.00"), "circle 2"),))
    s = settle(Round(Banker(4, BANKER_SET, D("500.00")), 1, (bet,)), FORTUNE)
    seat, circle = s.seats[0].wagers
    assert seat.fortune == D("25.00") and circle.fortune == D("0.00")  # full house 5 to 1 on the $5 bet only
    assert s.seats[0].fortune_line == "full-house"


@pytest.mark.parametrize("backline, message", [
    ([{"wager": "5.00"}], r"seats\[0\].backline\[0\].wager: 5.00 is under the table minimum 10.00"),
    ([{"wager": "10.00", "color": "red"}], r"seats\[0\].backline\[0\].color: unknown key"),
])
def test_backline_wagers_are_checked_like_any_circle(backline, message):
    # Capitol rule 5: "minimum and maximum amounts that may be wagered in each betting circle".
    from appliance.game.round_json import round_from_json
    data = {"banker": {"seat": 4, "wager": "50.00", "front": ["Kh", "Qd"], "back": ["9c", "9s", "5h", "5d", "2c"]},
            "action_seat": 1, "seats": [{"seat": 1, "wager": "20.00", "front": ["Ac", "Kd"],
                                         "back": ["Th", "Ts", "Td", "6c", "6d"], "backline": backline}]}
    with pytest.raises(RoundError, match=message):
        settle(round_from_json(data), CAPITOL)


def _banked_by(seat, history, rules, wager="100.00"):
    from appliance.game.banking import BankRound
    past = tuple(BankRound(b, frozenset(w)) for b, w in history)
    return settle(Round(Banker(seat, BANKER_SET, D(wager)), 1 if seat != 1 else 2,
                        (Bet(1 if seat != 1 else 2, rules.limits.minimum, WINNER),), past), rules)


def test_a_banker_the_rotation_rules_did_not_allow_is_refused_with_the_rule_named():
    from appliance.game.settlement import BankRefusedError
    # Capitol: "No player is allowed to bank for more than two consecutive hands."
    with pytest.raises(BankRefusedError, match=r"Capitol Casino: seat 3 may not bank this round: seat 3 has banked "
                                               r"2 consecutive rounds, the most allowed \(banking.max_consecutive\)"):
        _banked_by(3, [(3, {1, 3}), (3, {1, 3})], CAPITOL)
    assert not any("banking" in n for n in _banked_by(3, [(2, {1, 2, 3}), (3, {1, 3})], CAPITOL).notes)
    # Capitol rule 23: "If no wager was placed on the prior hand, no one will be Player/Dealer on that spot."
    with pytest.raises(BankRefusedError, match=r"no wager was placed on seat 5 on the prior hand"):
        _banked_by(5, [(2, {1, 2, 3})], CAPITOL)
    # Fortune: "you have the option to be the Player/Dealer for two consecutive hands".
    with pytest.raises(BankRefusedError, match="banking.max_consecutive"):
        _banked_by(6, [(6, {1, 6}), (6, {1, 6})], FORTUNE, wager="500.00")
    # Greektown: "offered to each player every other round" and "must have wagered in the previous round that
    # the dealer acted as banker".
    with pytest.raises(BankRefusedError, match=r"every 2nd round; the house banks this one"):
        _banked_by(4, [("dealer", {1, 4}), (2, {1, 4})], GREEKTOWN)
    with pytest.raises(BankRefusedError, match=r"seat 4 did not wager in the last round the house banked"):
        _banked_by(4, [("dealer", {1, 2})], GREEKTOWN)
    assert _banked_by(4, [("dealer", {1, 4})], GREEKTOWN).seats[0].result is Result.WIN


def test_a_player_banker_without_the_previous_rounds_is_flagged():
    s = settle(Round(Banker(3, BANKER_SET, D("100.00")), 1, (Bet(1, D("10.00"), WINNER),)), CAPITOL)
    assert "banking not checked: the round carries no previous rounds' banking" in s.notes


def test_previous_rounds_in_the_round_json():
    from appliance.game.round_json import round_from_json
    data = {"banker": {"seat": 3, "wager": "100.00", "front": ["Kh", "Qd"], "back": ["9c", "9s", "5h", "5d", "2c"]},
            "action_seat": 1, "seats": [{"seat": 1, "wager": "10.00", "front": ["Ac", "Kd"],
                                         "back": ["Th", "Ts", "Td", "6c", "6d"]}],
            "previous_rounds": [{"banker": 3, "wagered": [1, 3]}, {"banker": 3, "wagered": [1, 3]}]}
    with pytest.raises(RoundError, match="may not bank this round"):
        settle(round_from_json(data), CAPITOL)
    data["previous_rounds"] = [{"banker": 3, "wagered": "all"}]
    with pytest.raises(RoundError, match=r"previous_rounds\[0\].wagered: expected a list of seat numbers"):
        round_from_json(data)


@pytest.mark.parametrize("house", ["greektown", "general", "safari"])
def test_a_house_without_backline_wagers_refuses_them(house):
    # Greektown: "All guests have to be seated in order to play." The general rules ("each player places
    # their wager in the betting area") and Safari are silent: chosen, one wager per seat.
    from appliance.game.round_json import round_from_json
    data = {"banker": {"seat": "dealer", "cards": ["Kh", "Qd", "9c", "9s", "5h", "5d", "2c"]}, "action_seat": 1,
            "seats": [{"seat": 1, "wager": "20.00", "front": ["Ac", "Kd"], "back": ["Th", "Ts", "Td", "6c", "6d"],
                       "backline": [{"wager": "20.00"}]}]}
    rules = load_house(house)
    with pytest.raises(RoundError, match=rf"seats\[0\].backline: {re.escape(rules.name)} takes no wager on a seat besides the "
                                         r"seated player's \(limits.backline\)"):
        settle(round_from_json(data), rules)
