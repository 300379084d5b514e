from appliance.config import load_house
from appliance.game.banking import BankRound, bank_refusal


def rounds(*bankers, wagered=(1, 2, 3, 4, 5, 6, 7)):
    return [BankRound(b, frozenset(wagered)) for b in bankers]


def test_a_house_banked_room_never_offers_the_bank():
    assert bank_refusal(1, [], load_house("safari").banking) == "the house banks every round (banking.mode)"


def test_capitol_and_fortune_allow_two_consecutive_banks():
    for key in ("capitol", "fortune"):
        banking = load_house(key).banking
        assert bank_refusal(3, rounds(2, 3), banking) is None
        assert bank_refusal(3, rounds(3, 3), banking) == "seat 3 has banked 2 consecutive rounds, the most allowed (banking.max_consecutive)"
        assert bank_refusal(4, rounds(3, 3), banking) is None


def test_greektown_every_other_round_after_wagering_with_the_house():
    banking = load_house("greektown").banking
    assert bank_refusal(5, rounds("dealer"), banking) is None
    assert "every 2nd round" in bank_refusal(5, rounds("dealer", 2), banking)
    assert bank_refusal(5, rounds("dealer", 2, "dealer"), banking) is None
    assert bank_refusal(5, rounds("dealer", wagered=(1, 2)), banking) == \
        "seat 5 did not wager in the last round the house banked (banking.requires_previous_wager)"
