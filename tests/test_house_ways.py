"""Bally's and Golden Nugget lines, and what every house way promises: never a foul, same cards, same answer."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.game.cards import format_cards, parse_cards
from appliance.game.house_ways import (
    HOUSE_WAYS, HandSizeError, UnknownHouseWayError, decide, set_by_house_way,
)
from appliance.game.values import JokerRule, WheelRule, evaluator

EV = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST)
# Every joker rule, wheel rule and equal-pair foul rule a house file can name.
ALL_EVALUATORS = [evaluator(j, w, strict) for j in JokerRule for w in WheelRule for strict in (False, True)]


def ranks(codes):
    return sorted(code if code == "Jk" else code[0] for code in codes)


BALLYS = [
    ("9h 9c 9s 9d Ah 7c 2s", "Ah 7c", "Four of a kind, twos through nines: never split"),
    ("Th Tc Ts Td Kh 7c 2s", "Th Tc", "Four of a kind, tens through kings: split unless an ace"),
    ("Th Tc Ts Td Ah 7c 2s", "Ah 7c", "Four of a kind, tens through kings, with an ace"),
    ("Ah Ac As Ad Kh 7c 2s", "Ah Ac", "Four aces: always split"),
    # "Four Aces: always split. Exception: four Aces and a pair of Kings -> Kings low, four Aces high."
    ("Ah Ac As Ad Kh Kc 2s", "Kh Kc", "Four aces and a pair of kings: kings in front"),
    ("As Ah Ad Ac Qd Qc 2s", "As Ah", "Four aces: always split"),
    ("As Ah Ad Ac 5d 5c 2s", "As Ah", "Four aces: always split"),
    ("9h 9c 9s 9d 5h 5c 2s", "5h 5c", "Four of a kind with a pair or three of a kind"),
    # "Exception: When the hand contains a Straight or Straight Flush which is Ace High and includes a Joker,
    # play pair of Aces in the high hand and next two highest cards in the low hand."
    ("Ah Ac Jk Kd Qc Js 2c", "Jk Kd", "Ace-high straight with the joker: play the pair of aces in back"),
    ("Ah Kd Qc Js Jk 5h 3d", "Kd Qc", "Ace-high straight with the joker: play the pair of aces in back"),
    ("Ah Kd Qc Jk Th 9s 3d", "Ah 3d", "Straight or flush with one pair"),  # the lower straight gives the better front
    ("Ah Jk 3d 4c 5s Kd 9h", "Kd 9h", "Straight or flush"),  # A-2-3-4-5 with the joker: play the wheel
    ("6h 6c 3s 3d Kh 9c 2s", "Kh 9c", "Two pair, low and low, holding a king or better"),
]

GOLDEN_NUGGET = [
    ("6h 6c 3s 3d Qh 9c 2s", "Qh 9c", "Two pair, low and low: play two pair in back"),
    ("8h 8c 3s 3d Qh 9c 2s", "3s 3d", "Two pair, low and medium: one pair is sevens or better and no ace"),
    ("8h 8c 3s 3d Ah 9c 2s", "Ah 9c", "Two pair, low and medium: play two pair in back"),
    ("Jh Jc 6s 6d Ah 9c 2s", "6s 6d", "Two pair, low and high: jacks or better and sixes or better with an ace"),
    ("Ah Ac 3s 3d Kh 5c 8s", "3s 3d", "Pair of aces and any other pair: split"),
    ("9h 8c 7d 6s 5h 9c 5d", "Kh", None),  # placeholder replaced below
    ("5h 5c 5s 5d Kh 7c 2s", "Kh 7c", "Four of a kind, 2 through 6: always together"),
    ("9h 9c 9s 9d Ah 7c 2s", "Ah 7c", "Four of a kind, 7 through 10, with an ace or better"),
    ("9h 9c 9s 9d Kh 7c 2s", "9h 9c", "Four of a kind, 7 through 10: split"),
    ("Qh Qc Qs Qd Th Tc 2s", "Th Tc", "Four of a kind, jack through king, with a pair of tens or higher"),
    ("Qh Qc Qs Qd 9h 9c 2s", "Qh Qc", "Four of a kind, jack through king: split"),
    ("Ah Ac As Ad 7h 7c 2s", "7h 7c", "Four aces with a pair of sevens or higher"),
    ("Ah Ac As Ad 6h 6c 2s", "Ah Ac", "Four aces: split"),
    ("Ah Ac As Ad Jk Kc Ks", "Kc Ks", "Five aces with a pair of kings"),
    ("Ah Ac As Ad Jk Qc Qs", "Ah Ac", "Five aces: split"),
    # Straight flush kept unless a straight or flush brings the front to jack or better.
    ("9h 8h 7h 6h 5h Qc 2d", "Qc 2d", "Straight or flush"),
    ("9h 8h 7h 6h 5h 4c 2d", "4c 2d", "Play the straight flush: a straight or flush would not bring the front to jack"),
]
GOLDEN_NUGGET[5] = ("9h 8c 7d 6s 5h 9c 5d", "9c 5d", "Straight or flush with two pair: play the straight or flush in back")


@pytest.mark.parametrize("way, hand, front, rule",
                         [("ballys", *c) for c in BALLYS] + [("golden-nugget", *c) for c in GOLDEN_NUGGET],
                         ids=[f"ballys {c[0]}" for c in BALLYS] + [f"nugget {c[0]}" for c in GOLDEN_NUGGET])
def test_chart_lines(way, hand, front, rule):
    s = set_by_house_way(parse_cards(hand), way, EV)
    assert ranks(format_cards(s.front)) == ranks(front.split()), s.rule
    assert s.rule.startswith(rule), s.rule


def test_golden_nugget_breaks_a_straight_flush_for_a_jack_in_front():
    s = set_by_house_way(parse_cards("Th 9h 8h 7h 6h Jc 2h"), "golden-nugget", EV)
    # The straight flush T-6 leaves J-2 in front; the flush 9-8-7-6-2 of hearts leaves J-T.
    assert EV.name(s.back_value) == "Flush, nine high", s.rule
    assert ranks(format_cards(s.front)) == ["J", "T"]
    assert s.rule.startswith("Play the straight or flush over the straight flush to improve the front to jack or better")


# Golden Nugget: "With a six or seven card straight or flush put the highest hand possible in front while
# maintaining the straight or flush in back." and "Play straight or flush over straight flush to improve front
# hand to jack or better." Both apply to these hands; the rule the dealer sees names both.
@pytest.mark.parametrize("hand, front, back", [
    ("7h 8h 9h Th Jh 4h Kc", ["K", "J"], "Flush, ten high"),  # both lines agree: K-J beats K-4 and is jack or better
    ("3h 4h 5h 6h 7h 9h 2c", ["9", "2"], "Straight flush, seven high"),  # 9-7 beats 9-2 but is below jack: SF kept
])
def test_golden_nugget_six_card_line_and_straight_flush_line_are_both_named(hand, front, back):
    s = set_by_house_way(parse_cards(hand), "golden-nugget", EV)
    assert ranks(format_cards(s.front)) == sorted(front) and EV.name(s.back_value) == back, s.rule
    assert "six or seven card straight or flush" in s.rule and "straight flush" in s.rule


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.permutations(range(53)), st.sampled_from(list(HOUSE_WAYS)), st.sampled_from(ALL_EVALUATORS))
def test_never_a_foul_and_the_same_cards(deck, way, ev):
    hand = deck[:7]
    front, back, fv, bv, rule = decide(hand, way, ev)
    assert sorted((*front, *back)) == sorted(hand)
    assert len(front) == 2 and len(back) == 5
    assert fv == ev.two(front) and bv == ev.five(back)
    assert not ev.fouls(fv, bv), (format_cards(hand), rule)
    assert rule


@pytest.mark.slow
def test_never_a_foul_over_many_hands():
    rng = random.Random(11)
    for ev in ALL_EVALUATORS:
        for way in HOUSE_WAYS:
            for _ in range(20_000):
                _, _, fv, bv, _ = decide(rng.sample(range(53), 7), way, ev)
                assert not ev.fouls(fv, bv)


def test_the_same_cards_in_any_order_are_set_the_same_way():
    rng = random.Random(5)
    for _ in range(2000):
        hand = rng.sample(range(53), 7)
        shuffled = rng.sample(hand, 7)
        for way in HOUSE_WAYS:
            a, b = decide(hand, way, EV), decide(shuffled, way, EV)
            assert (sorted(a[0]), sorted(a[1]), a[4]) == (sorted(b[0]), sorted(b[1]), b[4])


def test_a_wild_joker_never_fouls_the_chart():
    wild = evaluator(JokerRule.WILD, WheelRule.LOWEST)
    # Bug reading: Jk-K in front as ace-king over a pair of sevens; wild, Jk-K is a pair of kings.
    s = set_by_house_way(parse_cards("Jk Kd 7c 7s 5h 4d 2c"), "trump-plaza", wild)
    assert s.front_value <= s.back_value
    # The repair names the chart line it amended.
    assert s.rule.startswith('Amended chart line "One pair: pair in back, the next two highest cards in front"'), s.rule


def test_errors():
    with pytest.raises(UnknownHouseWayError, match="unknown house way 'caesars'"):
        set_by_house_way(parse_cards("Ah Kd 9c 9s 5h 5d 2c"), "caesars", EV)
    with pytest.raises(HandSizeError, match="exactly 7 cards, got 6"):
        set_by_house_way(parse_cards("Ah Kd 9c 9s 5h 5d"), "trump-plaza", EV)
    with pytest.raises(ValueError, match="appears twice"):
        set_by_house_way(["Ah", "Kd", "9c", "9s", "5h", "5d", "Ah"], "trump-plaza", EV)


@pytest.mark.slow
def test_settings_remembered_by_rank_pattern_match_the_charts():
    from appliance.game import house_ways

    rng = random.Random(8)
    for ev in ALL_EVALUATORS:
        for way in HOUSE_WAYS:
            for _ in range(3000):
                hand = rng.sample(range(53), 7)
                fast = decide(hand, way, ev)  # remembered, or read from the chart and remembered
                again = decide(rng.sample(hand, 7), way, ev)
                full = house_ways._decide(tuple(sorted(hand)), way, ev)
                for got in (fast, again):
                    assert (sorted(got[0]), sorted(got[1]), got[2], got[3], got[4]) == \
                        (sorted(full[0]), sorted(full[1]), full[2], full[3], full[4])


@pytest.mark.slow
def test_every_rank_pattern_under_every_houses_rules_never_fouls_and_repairs_only_under_the_wild_joker():
    """The bench over every 9th rank pattern (the full run: python bench/house_way_fouls.py)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench" / "house_way_fouls.py"
    out = subprocess.run([sys.executable, str(bench), "--every", "9"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["patterns"] > 7000
    jokers = {r["joker"] for r in report["rules"]}
    assert jokers == {"bug", "wild"}  # the houses' files name both
    for r in report["rules"]:
        assert r["fouls"] == 0 and r["chart_fouls"] == 0, r
        if r["joker"] == "bug":
            assert r["repairs"] == 0, r


def test_a_chart_line_that_fouls_under_the_bug_joker_is_an_error_not_a_repair(monkeypatch):
    from types import SimpleNamespace

    from appliance.game import house_ways
    from appliance.game.house_ways import ChartFoulError
    from appliance.game.house_ways.shape import Decision

    def fouling(h):  # a chart bug: the two highest cards in front, whatever they are
        ordered = sorted(h.cards, key=h._rank_key, reverse=True)
        return Decision(tuple(ordered[:2]), tuple(ordered[2:]), "Broken line")

    monkeypatch.setitem(house_ways.HOUSE_WAYS, "broken", SimpleNamespace(decide=fouling))
    with pytest.raises(ChartFoulError, match="house way 'broken' fouled .* by its line 'Broken line'"):
        decide(parse_cards("Ah Ad Kc 7s 5h 4d 2c"), "broken", EV)
    wild = evaluator(JokerRule.WILD, WheelRule.LOWEST)
    front, back, fv, bv, rule = decide(parse_cards("Ah Ad Kc 7s 5h 4d 2c"), "broken", wild)
    assert rule.startswith('Amended chart line "Broken line"') and not wild.fouls(fv, bv)


# General rules: "If the two-card hand is a pair of aces, for example, the five-card hand must hold two pair or better."
def test_a_split_that_would_leave_the_same_pair_behind_is_kept_together_where_that_fouls():
    strict = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST, True)
    for way in HOUSE_WAYS:
        s = set_by_house_way(parse_cards("As Ah Ad Ac 9d 5c 2s"), way, strict)
        assert EV.name(s.back_value) == "Four of a kind, aces", (way, s.rule)
        assert "a pair in front needs two pair or better behind, so the four are kept together" in s.rule
        loose = set_by_house_way(parse_cards("As Ah Ad Ac 9d 5c 2s"), way, EV)
        assert EV.name(loose.front_value) == "Pair of aces", (way, loose.rule)
