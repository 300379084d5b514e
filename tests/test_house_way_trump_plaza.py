"""Every line of the Trump Plaza chart and its reading notes, one hand each."""

import pytest

from appliance.game.cards import format_cards, parse_cards
from appliance.game.house_ways import set_by_house_way
from appliance.game.values import JokerRule, WheelRule, evaluator

EV = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)

CASES = [
    # hand, front, rule (start of it)
    ("Kh 9c 7d 5s 4h 3c 2d", "9c 7d", "No pair: highest card in back"),
    ("Jk Kh 9c 7d 5s 3h 2d", "Kh 9c", "No pair"),  # the joker is the highest card: an ace
    ("8h 8c Ks Qd 7h 4c 2s", "Ks Qd", "One pair: pair in back"),
    ("Jk Ah Ks 9d 7h 4c 2s", "Ks 9d", "One pair"),  # joker and ace: a pair of aces
    # Two pair, by class.
    ("6h 6c 3s 3d Qh 9c 2s", "3s 3d", "Two pair, low and low: split unless holding a king or better"),
    ("6h 6c 3s 3d Kh 9c 2s", "Kh 9c", "Two pair, low and low, holding a king or better"),
    ("9h 9c 3s 3d Qh 8c 2s", "3s 3d", "Two pair, low and medium: split unless holding a king or better"),
    ("9h 9c 3s 3d Ah 8c 2s", "Ah 8c", "Two pair, low and medium, holding a king or better"),
    ("Jh Jc 4s 4d Kh 8c 2s", "4s 4d", "Two pair, low and high: split unless holding an ace"),
    ("Jh Jc 4s 4d Ah 8c 2s", "Ah 8c", "Two pair, low and high, holding an ace"),
    ("Th Tc 8s 8d Kh 5c 2s", "8s 8d", "Two pair, medium and medium: split unless holding an ace"),
    ("Th Tc 8s 8d Ah 5c 2s", "Ah 5c", "Two pair, medium and medium, holding an ace"),
    ("Qh Qc 8s 8d Ah 5c 2s", "8s 8d", "Two pair, medium and high: always split"),
    ("Kh Kc Js Jd Ah 5c 2s", "Js Jd", "Two pair, high and high: always split"),
    ("Ah Ac 3s 3d Kh 5c 8s", "3s 3d", "Pair of aces and any other pair: always split"),
    ("Jk 6h 6c 3s 3d 9c 2s", "Jk 9c", "Two pair, low and low, holding a king or better"),  # the joker is an ace
    ("Jk Ah 6h 6c Qs 9d 2c", "6h 6c", "Pair of aces and any other pair"),
    # Three pair; the joker with an ace makes a pair of aces.
    ("Kh Kc 7s 7d 4h 4c 2s", "Kh Kc", "Three pair: play the highest pair in front"),
    ("Jk Ah 7s 7d 4h 4c 2s", "Jk Ah", "Three pair"),
    # Three of a kind.
    ("7h 7c 7s Kd Qh 4c 2s", "Kd Qh", "Three of a kind: play three of a kind in back"),
    ("Ah Ac As Kd Qh 4c 2s", "As Kd", "Three of a kind, aces: a pair of aces in back and one ace in front"),
    ("9h 9c 9s 5d 5h 5c Ks", "9h 9c", "Three of a kind twice: play the highest pair in front"),
    # Full house.
    ("Qh Qc Qs 8d 8h 4c 2s", "8d 8h", "Full house: split, the pair in front"),
    ("Qh Qc Qs 2d 2h Ac Ks", "Ac Ks", "Full house with a pair of twos and an ace and a king"),
    ("Qh Qc Qs 2d 2h Ac Js", "2d 2h", "Full house: split"),
    ("Qh Qc Qs 2d 2h Jk Ks", "Jk Ks", "Full house with a pair of twos and an ace and a king"),
    ("Qh Qc Qs 8d 8h 4c 4s", "8d 8h", "Full house with three of a kind and two pairs: play the highest pair in front"),
    # Four of a kind, by rank.
    ("5h 5c 5s 5d Ah Kc 2s", "Ah Kc", "Four of a kind, 2 through 6: always keep together"),
    ("9h 9c 9s 9d Kh 7c 2s", "Kh 7c", "Four of a kind, 7 through 10, with a king or better"),
    ("9h 9c 9s 9d Qh 7c 2s", "9h 9c", "Four of a kind, 7 through 10: split unless a king or better"),
    ("Jh Jc Js Jd Ah 7c 2s", "Ah 7c", "Four of a kind, jack through king, with an ace"),
    ("Jh Jc Js Jd Kh 7c 2s", "Jh Jc", "Four of a kind, jack through king: split unless an ace"),
    ("Ah Ac As Ad Kh 7c 2s", "Ah Ac", "Four of a kind, aces: always split"),
    ("5h 5c 5s 5d Kh Kc 2s", "Kh Kc", "Four of a kind and a pair: play the pair in front"),
    ("Ah Ac As Ad Kh Kc 2s", "Kh Kc", "Four of a kind and a pair"),  # aces included
    ("5h 5c 5s 5d Kh Kc Ks", "Kh Kc", "Four of a kind and three of a kind: play a pair from the three of a kind"),
    # Five aces.
    ("Ah Ac As Ad Jk 7c 2s", "Ah Ac", "Five aces: three aces in back, two aces in front"),
    ("Ah Ac As Ad Jk Kc Ks", "Kc Ks", "Five aces with a pair of kings"),
    # Straights and flushes.
    ("Jh 9h 7h 3h 2h Tc 8d", "Tc 8d", "Straights and flushes: play the one that allows the highest two cards in front"),
    ("2c 3d 4h 5s 6c 7d 8h", "8h 7d", "Straights and flushes"),  # the lower straight, the highest cards in front
    ("Kh Qd Jc Ts 9h 5c 5d", "5c 5d", "Straight or flush with one pair: play the pair in front"),
    ("9h 8h 7d 6s 6d 5c 2h", "6s 2h", "Straight or flush with one pair: no straight or flush stays behind"),
    ("9h 8c 7d 6s 5h 5c 5d", "5c 5d", "Straight or flush with three of a kind: play the pair in front"),
    ("9h 8c 7d 6s 5h 9c 5d", "5h 5d", "Two pair, low and medium: split"),  # the two pair rule breaks the straight
    ("Ah Kh Qh Jh Th Ac Kc", "Kh Kc", "Pair of aces and any other pair"),  # ... and even a royal flush
    # A-A-A and the joker with a straight that needs the joker: a pair of aces in front, the straight behind
    # (four aces split, and the joker goes where it makes the higher back).
    ("Ah Ac As Kh Qd Jc Jk", "Ac As", "Four of a kind, aces: always split"),
    # Ace and joker are a pair of aces, but no straight stays behind with them in front.
    ("Jk Ah Kd Qc Js 6h 3d", "6h 3d", "Straight or flush with one pair: no straight or flush stays behind"),
    # Ace, joker and another pair is two pair, even though the joker could complete a straight.
    ("9c Ts Qh Kd Ks As Jk", "Kd Ks", "Pair of aces and any other pair: always split"),
]


def ranks(codes):
    """Where the chart fixes only ranks, any suit will do (the joker stays the joker)."""
    return sorted(code if code == "Jk" else code[0] for code in codes)


@pytest.mark.parametrize("hand, front, rule", CASES, ids=[c[0] for c in CASES])
def test_trump_plaza(hand, front, rule):
    s = set_by_house_way(parse_cards(hand), "trump-plaza", EV)
    assert ranks(format_cards(s.front)) == ranks(front.split()), s.rule
    assert s.rule.startswith(rule), s.rule
    assert sorted(format_cards(s.front + s.back)) == sorted(hand.split())
    assert s.front_value <= s.back_value


def test_pair_of_aces_only_with_the_pair_in_front_when_a_straight_stays_behind():
    # A-A with a straight among the other five: the aces go in front.
    s = set_by_house_way(parse_cards("Ah Ad 9c 8d 7s 6h 5c"), "trump-plaza", EV)
    assert format_cards(s.front) == ["Ah", "Ad"] and EV.name(s.back_value) == "Straight, nine high"
