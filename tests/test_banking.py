from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.config import load_house
from appliance.game.banking import BankRound, bank_offers, bank_refusal, history_needed, passed_over


def rounds(*bankers, wagered=(1, 2, 3, 4, 5, 6, 7)):
    return [BankRound.played(b, wagered) for b in bankers]


def test_a_house_banked_room_never_offers_the_bank():
    # Safari: the dealer splits "according to fixed house rules"; the house banks every hand.
    assert bank_refusal(1, [], load_house("safari").banking) == "the house banks every round (banking.mode)"


def test_capitol_and_fortune_allow_two_consecutive_banks():
    # Capitol: "No player is allowed to bank for more than two consecutive hands." Fortune: "As the
    # Player/Dealer, you have the option to be the Player/Dealer for two consecutive hands."
    for key in ("capitol", "fortune"):
        banking = load_house(key).banking
        assert bank_refusal(3, rounds(2, 3), banking) is None
        assert bank_refusal(3, rounds(3, 3), banking) == "seat 3 has banked 2 consecutive rounds, the most allowed (banking.max_consecutive)"
        assert bank_refusal(4, rounds(3, 3), banking) is None


def test_greektown_every_other_round_after_wagering_with_the_house():
    # Greektown: "The banking option will be offered to each player every other round of play. If a player
    # elects to bank, the banking player ... must have wagered in the previous round that the dealer acted as banker."
    banking = load_house("greektown").banking
    assert bank_refusal(5, rounds("dealer"), banking) is None
    assert "every 2nd round" in bank_refusal(5, rounds("dealer", 2), banking)
    assert bank_refusal(5, rounds("dealer", 2, "dealer"), banking) is None
    assert bank_refusal(5, rounds("dealer", wagered=(1, 2)), banking) == \
        "seat 5 did not wager in the last round the house banked (banking.requires_previous_wager)"


def test_the_bank_is_offered_from_seat_1_clockwise_in_a_new_game():
    # Fortune: "The Player/Dealer is determined in a new game by starting at seat #1, continuing clockwise.
    # Each player in turn has the opportunity to become the Player/Dealer."
    offers = bank_offers([], load_house("fortune").banking, 7)
    assert [(o.seat, o.refusal) for o in offers] == [(n, None) for n in range(1, 8)]


def test_the_player_dealer_keeps_the_option_for_a_second_hand_then_it_passes_clockwise():
    # Fortune: "As the Player/Dealer, you have the option to be the Player/Dealer for two consecutive hands.
    # You may play one hand and pass the Player/Dealer option, or you may pass the option completely."
    banking = load_house("fortune").banking
    assert [o.seat for o in bank_offers(rounds(5), banking, 7)] == [5, 6, 7, 1, 2, 3, 4]
    after_two = bank_offers(rounds(5, 5), banking, 7)
    assert [o.seat for o in after_two] == [6, 7, 1, 2, 3, 4, 5]
    assert after_two[-1].refusal == "seat 5 has banked 2 consecutive rounds, the most allowed (banking.max_consecutive)"


def test_capitol_offers_no_bank_on_a_spot_without_a_wager_on_the_prior_hand():
    # Capitol rule 23: "All seated players are given the opportunity to be the Player/Dealer. If no wager was
    # placed on the prior hand, no one will be Player/Dealer on that spot."
    offers = {o.seat: o.refusal for o in bank_offers(rounds(3, wagered=(1, 2)), load_house("capitol").banking, 7)}
    assert offers[1] is None and offers[3] is None  # the Player/Dealer's own seat was his bank
    assert offers[6] == "no wager was placed on seat 6 on the prior hand (banking.requires_prior_hand_wager)"


def test_greektown_offers_the_bank_every_other_round_to_who_wagered_with_the_house():
    # Greektown: "The banking option will be offered to each player every other round of play ... must have
    # wagered in the previous round that the dealer acted as banker."
    banking = load_house("greektown").banking
    assert all("every 2nd round" in o.refusal for o in bank_offers(rounds("dealer", 4), banking, 6))
    offers = bank_offers(rounds(4, "dealer", wagered=(1, 5)), banking, 6)
    assert [o.seat for o in offers] == [5, 6, 1, 2, 3, 4]  # on from the last player-banker's turn
    assert [o.seat for o in offers if o.refusal is None] == [5, 1]


def test_seats_offered_before_the_banker_passed_and_all_pass_when_the_house_banks():
    # Greektown: "No player will be required to accept the bank and the dealer will act as banker when all
    # players decline."
    offers = bank_offers(rounds("dealer", wagered=(2, 3, 5)), load_house("greektown").banking, 6)
    assert passed_over(5, offers) == [2, 3]
    assert passed_over("dealer", offers) == [2, 3, 5]
    assert bank_offers(rounds("dealer"), load_house("safari").banking, 6) == ()


def test_a_round_records_only_the_history_its_refusals_depend_on():
    capitol, greektown = load_house("capitol").banking, load_house("greektown").banking
    history = rounds(*([1, 2, 3] * 40))
    assert history_needed(history, capitol) == history[-2:]  # the last two hands: two in a row, and rule 23
    assert history_needed(rounds("dealer", 2, "dealer", 4), greektown) == rounds("dealer", 4)
    assert history_needed(history, load_house("general").banking) == []
    for seat in range(1, 8):
        assert bank_refusal(seat, history, capitol) == bank_refusal(seat, history_needed(history, capitol), capitol)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["general", "capitol", "fortune", "greektown"]),
       st.lists(st.tuples(st.sampled_from(["dealer", 1, 2, 3, 4, 5, 6]),
                          st.frozensets(st.integers(1, 6), max_size=6)), max_size=12))
def test_the_history_a_round_records_gives_the_same_refusals_as_the_whole(house, drawn):
    """A round records only the end of the banking history (``previous_rounds``): the settlement and the
    replay refuse the same bankers by it as by the whole history."""
    banking = load_house(house).banking
    history = [BankRound.played(banker, wagered) for banker, wagered in drawn]
    needed = history_needed(history, banking)
    def rule(refusal):  # the house-file key the refusal names, or None (the counts it gives may differ)
        return refusal and refusal.rsplit("(", 1)[1]

    for seat in range(1, 7):
        assert rule(bank_refusal(seat, needed, banking)) == rule(bank_refusal(seat, history, banking))
