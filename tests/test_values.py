"""Hand values: exhaustive counts, an independent evaluator (treys), and a brute-force joker oracle."""

import random
from collections import Counter
from itertools import combinations

import pytest
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from appliance.game.cards import JOKER_INDEX, parse_cards
from appliance.game.values import (
    ACE_HIGH_STRAIGHT, Category, JokerRule, WheelRule, evaluator, natural_value, pack,
)

BUG = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
WILD = evaluator(JokerRule.WILD, WheelRule.SECOND_HIGHEST)
BUG_LOW = evaluator(JokerRule.BUG, WheelRule.LOWEST)

# Standard poker counts over the 2,598,960 joker-free hands.
STANDARD = {
    Category.STRAIGHT_FLUSH: 40, Category.FOUR_OF_A_KIND: 624, Category.FULL_HOUSE: 3744,
    Category.FLUSH: 5108, Category.STRAIGHT: 10200, Category.THREE_OF_A_KIND: 54912,
    Category.TWO_PAIR: 123552, Category.PAIR: 1098240, Category.HIGH_CARD: 1302540,
}
# All 2,869,685 hands from 53 cards with the joker as a bug. The joker hands add:
# five aces 1 (AAAA+Jk); straight flushes 164 = 204-40; trips 8,448 = AA+Jk with two
# non-ace singles (6*66*16 = 6,336) plus non-ace trips with a non-ace single (12*4*11*4 = 2,112).
BUG_COUNTS = {
    Category.FIVE_OF_A_KIND: 1, Category.STRAIGHT_FLUSH: 204, Category.FOUR_OF_A_KIND: 828,
    Category.FULL_HOUSE: 4368, Category.FLUSH: 7804, Category.STRAIGHT: 20532,
    Category.THREE_OF_A_KIND: 63360, Category.TWO_PAIR: 138600, Category.PAIR: 1215024,
    Category.HIGH_CARD: 1418964,
}
# The same with a fully wild joker: five of a kind for every rank (13).
WILD_COUNTS = {
    Category.FIVE_OF_A_KIND: 13, Category.STRAIGHT_FLUSH: 204, Category.FOUR_OF_A_KIND: 3120,
    Category.FULL_HOUSE: 6552, Category.FLUSH: 7804, Category.STRAIGHT: 20532,
    Category.THREE_OF_A_KIND: 137280, Category.TWO_PAIR: 123552, Category.PAIR: 1268088,
    Category.HIGH_CARD: 1302540,
}


@pytest.mark.slow
@pytest.mark.parametrize("ev, expected", [(BUG, BUG_COUNTS), (WILD, WILD_COUNTS)], ids=["bug", "wild"])
def test_every_five_card_hand_from_53_cards(ev, expected):
    natural, everything = Counter(), Counter()
    five = ev.five
    for hand in combinations(range(53), 5):
        category = five(hand) >> 20
        everything[category] += 1
        if hand[-1] != JOKER_INDEX:
            natural[category] += 1
    assert sum(everything.values()) == 2_869_685
    assert natural == Counter(STANDARD)
    assert everything == Counter(expected)


@pytest.mark.slow
def test_order_agrees_with_treys_on_natural_hands():
    """treys ranks A-2-3-4-5 lowest; so does the LOWEST wheel rule."""
    treys = TreysEvaluator()
    codes = [TreysCard.new(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    rng = random.Random(7)
    for _ in range(100_000):
        a, b = rng.sample(range(52), 5), rng.sample(range(52), 5)
        ta = treys.evaluate([codes[i] for i in a], [])
        tb = treys.evaluate([codes[i] for i in b], [])
        va, vb = BUG_LOW.five(a), BUG_LOW.five(b)
        assert (ta < tb) == (va > vb) and (ta == tb) == (va == vb), (a, b)


def _oracle_bug(four):
    """Brute force: the joker as any ace not held, or as any card that makes a straight or flush."""
    ranks = [(c >> 2) + 2 for c in four]
    if ranks.count(14) == 4:
        return pack(Category.FIVE_OF_A_KIND, 14)
    best = 0
    for sub in range(52):
        if sub in four:
            continue
        value = BUG.five([*four, sub])
        if (sub >> 2) + 2 == 14 or value >> 20 in (Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH):
            best = max(best, value)
    return best


def _oracle_wild(four):
    """Brute force: the joker as any of the 52 cards, a duplicate included (five of a kind)."""
    best = 0
    for sub in range(52):
        ranks = [(c >> 2) + 2 for c in (*four, sub)]
        suited = len({c & 3 for c in (*four, sub)}) == 1 and sub not in four
        best = max(best, natural_value(ranks, suited, WheelRule.SECOND_HIGHEST))
    return best


@pytest.mark.slow
def test_joker_hands_match_brute_force_substitution():
    rng = random.Random(3)
    samples = [tuple(rng.sample(range(52), 4)) for _ in range(4000)]
    # and every hand where the joker must complete something: four suited or four to a straight
    samples += [tuple(c * 4 + 2 for c in run) for run in ((0, 1, 2, 3), (9, 10, 11, 12), (12, 0, 1, 2), (3, 4, 6, 7))]
    for four in samples:
        assert BUG.five([*four, JOKER_INDEX]) == _oracle_bug(four), four
        assert WILD.five([*four, JOKER_INDEX]) == _oracle_wild(four), four


@pytest.mark.parametrize("cards, name", [
    ("As Ac Ad Ah Jk", "Five aces"),
    ("Th Jh Qh Kh Ah", "Royal flush"),
    ("Th Jh Qh Kh Jk", "Royal flush"),
    ("9h Th Jh Qh Jk", "Straight flush, king high"),
    ("Ah 2h 3h 4h 5h", "Straight flush, five high (A-2-3-4-5)"),
    ("Kc Kd Kh Ks 2c", "Four of a kind, kings"),
    ("Ac Ad Ah 2c Jk", "Four of a kind, aces"),
    ("Kc Kd Kh 5s 5c", "Full house, kings over fives"),
    ("Kh 9h 5h 3h Jk", "Flush, ace high"),
    ("Ah Kh 9h 3h Jk", "Flush, ace high"),
    ("2c 3d 4h 5s Jk", "Straight, five high (A-2-3-4-5)"),  # the wheel outranks 2-6 here
    ("Qs Qh Qd 7c 2h", "Three of a kind, queens"),
    ("Qs Qh 7d 7c Jk", "Two pair, queens and sevens"),
    ("6s 6h 9d 7c Jk", "Pair of sixes"),
    ("As 6h 9d 7c Jk", "Pair of aces"),
    ("Ks 6h 9d 7c 2c", "King high"),
])
def test_names_a_dealer_says(cards, name):
    assert BUG.name(BUG.value(parse_cards(cards))) == name


def test_wheel_rules():
    wheel, six_high, king_high = (BUG.five(parse_cards(h)) for h in ("Ah 2c 3d 4s 5h", "2c 3d 4s 5h 6c", "9h Tc Jd Qs Kh"))
    ace_high = BUG.five(parse_cards("Th Jc Qd Ks Ah"))
    assert king_high < wheel < ace_high  # second-highest
    low = [BUG_LOW.five(parse_cards(h)) for h in ("Ah 2c 3d 4s 5h", "2c 3d 4s 5h 6c")]
    assert low[0] < low[1]  # lowest
    assert (ace_high >> 16) & 15 == ACE_HIGH_STRAIGHT
    assert BUG_LOW.name(low[0]) == "Straight, five high (A-2-3-4-5)"
    assert BUG_LOW.name(BUG_LOW.five(parse_cards("2c 3d 4h 5s Jk"))) == "Straight, six high"


def test_five_of_a_kind_tops_a_royal_flush():
    assert BUG.five(parse_cards("As Ac Ad Ah Jk")) > BUG.five(parse_cards("Th Jh Qh Kh Ah"))
    assert WILD.five(parse_cards("2s 2c 2d 2h Jk")) > WILD.five(parse_cards("Th Jh Qh Kh Ah"))
    assert WILD.name(WILD.five(parse_cards("2s 2c 2d 2h Jk"))) == "Five of a kind, twos"


@pytest.mark.parametrize("front, bug, wild", [
    ("Ah Ad", "Pair of aces", "Pair of aces"),
    ("Jk Ad", "Pair of aces", "Pair of aces"),
    ("Jk Kd", "Ace, king", "Pair of kings"),
    ("Jk 2d", "Ace, two", "Pair of twos"),
    ("Kh 7d", "King, seven", "King, seven"),
])
def test_front_hands_under_each_joker_rule(front, bug, wild):
    cards = parse_cards(front)
    assert BUG.name(BUG.two(cards)) == bug
    assert WILD.name(WILD.two(cards)) == wild


def test_front_and_back_share_one_scale():
    pair_kings_back = BUG.five(parse_cards("Kc Kd 7s 4h 2c"))
    assert BUG.two(parse_cards("Kh Ks")) < pair_kings_back  # the back has kickers
    assert BUG.two(parse_cards("Ah Ad")) > pair_kings_back
    assert BUG.two(parse_cards("Ah Kd")) < BUG.five(parse_cards("Ac Ks 5h 4d 2c"))
    assert BUG.two(parse_cards("Ah Kd")) > BUG.five(parse_cards("Ac Qs 5h 4d 2c"))


def test_value_refuses_other_sizes():
    with pytest.raises(ValueError, match="2 or 5 cards, not 3"):
        BUG.value(parse_cards("Ah Kd 2c"))
