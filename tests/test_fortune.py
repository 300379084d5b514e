from fractions import Fraction

import pytest
from fortune_exact import exact_counts

from appliance.game.cards import parse_cards
from appliance.game.fortune import best_paying, fortune_category, fortune_holdings
from appliance.game.values import JokerRule, WheelRule, evaluator

BUG = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
WILD = evaluator(JokerRule.WILD, WheelRule.LOWEST)

PUBLISHED = {
    "seven-card-straight-flush": 32,
    "royal-match": 72,
    "seven-card-straight-flush-joker": 196,
    "five-aces": 1_128,
    "royal-flush": 26_020,
    "straight-flush": 184_644,
    "four-of-a-kind": 307_472,
    "full-house": 4_188_528,
    "flush": 6_172_088,
    "three-of-a-kind": 7_672_500,
    "straight": 11_034_204,
    None: 124_556_196,
}
COMMON_PAYS = {
    "seven-card-straight-flush": 8000, "royal-match": 2000, "seven-card-straight-flush-joker": 1000,
    "five-aces": 400, "royal-flush": 150, "straight-flush": 50, "four-of-a-kind": 25,
    "full-house": 5, "flush": 4, "three-of-a-kind": 3, "straight": 2,
}


@pytest.fixture(scope="module")
def bug_counts():
    return exact_counts(BUG)


@pytest.mark.slow
def test_fortune_categories_over_all_154_143_080_hands(bug_counts):
    assert sum(bug_counts.values()) == 154_143_080
    assert dict(bug_counts) == PUBLISHED


@pytest.mark.slow  # the exhaustive count (tens of seconds); test_category_examples covers each category fast
def test_house_edge_of_the_common_pay_table(bug_counts):
    player = sum(COMMON_PAYS[line] * n for line, n in bug_counts.items() if line) - bug_counts[None]
    assert player == -11_970_096
    assert Fraction(player, 154_143_080) == Fraction(-11_970_096, 154_143_080)


@pytest.mark.slow
def test_wild_joker_counts_add_up_and_make_five_of_a_kind():
    counts = exact_counts(WILD)
    assert sum(counts.values()) == 154_143_080
    assert counts["five-of-a-kind"] == 12 * 1_128  # four of a non-ace rank, the joker, any two others
    assert counts["five-aces"] == 1_128


@pytest.mark.parametrize("cards, line", [
    ("4h 5h 6h 7h 8h 9h Th", "seven-card-straight-flush"),
    ("Ah 2h 3h 4h 5h 6h 7h", "seven-card-straight-flush"),
    ("4h 5h Jk 7h 8h 9h Th", "seven-card-straight-flush-joker"),
    ("Th Jh Qh Kh Jk Ks Qs", "royal-match"),
    ("Th Jh Qh Kh Ah Ks Qd", "royal-flush"),
    ("As Ac Ad Ah Jk 2c 3d", "five-aces"),
    ("As Ac Ad Jk 2c 3d 9h", "four-of-a-kind"),
    ("Qs Qh Qd 9c 8d 7s 6h", "three-of-a-kind"),
    ("Qs Qh Qd 9c 9d 7s 6h", "full-house"),
    ("2s 3h 4d 5c Jk 9d Kh", "straight"),
])
def test_category_examples(cards, line):
    assert fortune_category(parse_cards(cards), BUG) == line


def test_a_pay_table_without_trips_pays_the_straight():
    cards = parse_cards("Qs Qh Qd Jc Td 9s 8h")
    assert {"three-of-a-kind", "straight"} <= fortune_holdings(cards, BUG)
    assert best_paying(cards, BUG, {"straight": 2, "flush": 3}) == "straight"
    assert best_paying(cards, BUG, COMMON_PAYS) == "three-of-a-kind"
    assert best_paying(parse_cards("2c 2d 5h 7s 9c Jd Kh"), BUG, COMMON_PAYS) is None


def test_wild_joker_makes_five_of_a_kind():
    assert fortune_category(parse_cards("9s 9c 9d 9h Jk 2c 4d"), WILD) == "five-of-a-kind"
    assert fortune_category(parse_cards("9s 9c 9d 9h Jk 2c 4d"), BUG) == "four-of-a-kind"


def test_seven_cards_only():
    with pytest.raises(ValueError, match="7 cards, got 5"):
        fortune_holdings(parse_cards("2c 3d 4h 5s 6c"), BUG)


def test_fortune_houses_envy_table_follows_the_documents_ranking():
    """Fortune: "1st 7 Card Straight Flush / 2nd Royal Flush + Royal Match / 3rd 7 Card Straight Flush w/ Joker /
    4th Five Aces / 5th Royal Flush / 6th Straight Flush / 7th Four-of-a-kind" (amounts: the game's published table)."""
    from appliance.config import load_house
    envy = load_house("fortune").envy
    ranking = ["seven-card-straight-flush", "royal-match", "seven-card-straight-flush-joker", "five-aces",
               "royal-flush", "straight-flush", "four-of-a-kind"]
    assert list(envy.pays) == ranking
    amounts = [envy.pays[line] for line in ranking]
    assert amounts == sorted(amounts, reverse=True)
    assert "five-of-a-kind" not in envy.pays  # not in the document's ranking: pays as four of a kind
    assert best_paying(parse_cards("9s 9c 9d 9h Jk 2c 4d"), WILD, envy.pays) == "four-of-a-kind"
    assert best_paying(parse_cards("4h 5h 6h 7h 8h 9h Th"), WILD, envy.pays) == "seven-card-straight-flush"


def test_fortune_houses_pay_table_pays_trips_with_a_straight_as_the_straight():
    """Fortune's "7-CARD COMBINATION PAY ODDS" has STRAIGHT 2 to 1 and no three-of-a-kind line."""
    from appliance.config import load_house
    pays = load_house("fortune").fortune.pays
    assert "three-of-a-kind" not in pays
    assert best_paying(parse_cards("5h 6c 7d 8s 9h 9c 9d"), WILD, pays) == "straight"
    assert best_paying(parse_cards("5h 5c 5d 8s 9h Jc 2d"), WILD, pays) is None


def test_a_royal_with_the_joker_pays_the_royal_line_and_a_natural_seven_card_straight_flush_its_best_five():
    """config/houses/README.md (issue 38 item 9): the pay table as printed. "ROYAL FLUSH 100 to 1" has no joker
    line, and there is no 7-card line outside the Envy ranking."""
    from appliance.config import load_house
    from appliance.game.cards import parse_cards
    from appliance.game.fortune import best_paying

    rules = load_house("fortune")
    ev = rules.evaluator()
    assert best_paying(parse_cards("Th Jh Qh Kh Jk 2c 3d"), ev, rules.fortune.pays) == "royal-flush"
    assert best_paying(parse_cards("3h 4h 5h 6h 7h 8h 9h"), ev, rules.fortune.pays) == "straight-flush"
    assert best_paying(parse_cards("3h 4h 5h 6h 7h 8h 9h"), ev, rules.envy.pays) == "seven-card-straight-flush"
    assert best_paying(parse_cards("Th Jh Qh Kh Jk 2c 3d"), ev, rules.envy.pays) == "royal-flush"
