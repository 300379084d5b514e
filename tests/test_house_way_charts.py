"""House ways as charts: the shipped charts set every hand as the modules do, a chart that can foul is
refused at load naming its line, and a house file can name a chart that is then recorded with its rules."""

import pickle
import shutil
from pathlib import Path

import pytest

from appliance.config import chart_file, load_house, read_chart, read_house, shipped_config_dir
from appliance.game.cards import format_cards, parse_cards
from appliance.game.house_ways import HOUSE_WAYS, _decide, decide, set_by_house_way
from appliance.game.house_ways.chart import ChartError, parse_chart
from appliance.game.house_ways.chart_check import ChartFoulsError, check_chart
from appliance.game.house_ways.patterns import PATTERNS, every_deal, rank_patterns
from appliance.game.rules import HouseRules, HouseRulesError
from appliance.game.values import JokerRule, WheelRule, evaluator

GENERAL = evaluator(JokerRule.BUG, WheelRule.SECOND_HIGHEST, True)  # the general house's rules
# Every joker rule, wheel rule and equal-pair foul rule a house file can name.
ALL_EVALUATORS = [evaluator(j, w, strict) for j in JokerRule for w in WheelRule for strict in (False, True)]
TEST_CHARTS = Path(__file__).parent / "house_way_charts"
# The quick sweep: every 11th rank pattern (both deals); the slow test and bench/house_way_charts.py run all.
EVERY = 11


@pytest.fixture(scope="module")
def charts():
    """The shipped charts as read (their load-time proof is its own test below)."""
    return {way: parse_chart(read_chart(chart_file(way)), str(chart_file(way))) for way in HOUSE_WAYS}


@pytest.mark.slow
@pytest.mark.parametrize("ev", [GENERAL, evaluator(JokerRule.BUG, WheelRule.LOWEST, False)], ids=["strict", "lenient"])
def test_the_shipped_charts_pass_the_load_time_proof(ev):
    for way in HOUSE_WAYS:
        proof = check_chart(parse_chart(read_chart(chart_file(way)), way), ev)
        assert proof.settings == 2 * PATTERNS


def same(a, b):
    """Two settings alike: the same cards in front and behind, the same values, the same rule text."""
    return (sorted(a[0]), sorted(a[1]), a[2], a[3], a[4]) == (sorted(b[0]), sorted(b[1]), b[2], b[3], b[4])


def test_there_are_67600_rank_patterns():
    assert sum(1 for _ in rank_patterns()) == PATTERNS == 67_600


@pytest.mark.parametrize("way", list(HOUSE_WAYS))
@pytest.mark.parametrize("ev", [GENERAL, evaluator(JokerRule.WILD, WheelRule.LOWEST, False)],
                         ids=["bug-second-highest-strict", "wild-lowest"])
@pytest.mark.slow
def test_each_chart_sets_every_11th_rank_pattern_as_its_module(charts, way, ev):
    hands = list(every_deal(EVERY))
    assert len(hands) > 12_000
    differ = [format_cards(h) for h in hands if not same(_decide(h, way, ev), _decide(h, charts[way], ev))]
    assert differ == []


@pytest.mark.slow
@pytest.mark.parametrize("way", list(HOUSE_WAYS))
def test_each_chart_sets_every_rank_pattern_as_its_module(charts, way):
    """All 67,600 patterns, both deals, under the general rules; every 11th under every rule set.
    All patterns under all 8 rule sets take over ten minutes: python bench/house_way_charts.py."""
    hands = list(every_deal())
    assert len(hands) == 2 * PATTERNS
    differ = [format_cards(h) for h in hands if not same(_decide(h, way, GENERAL), _decide(h, charts[way], GENERAL))]
    assert differ == []
    for ev in ALL_EVALUATORS:
        differ = [format_cards(h) for h in hands[::EVERY] if not same(_decide(h, way, ev), _decide(h, charts[way], ev))]
        assert differ == [], (ev.joker, ev.wheel, ev.equal_pair_behind_fouls)


@pytest.mark.parametrize("hand, way", [
    ("Ah Ac Jk Kd Qc Js 2c", "ballys"), ("Th 9h 8h 7h 6h Jc 2h", "golden-nugget"),
    ("3h 4h 5h 6h 7h 9h 2c", "golden-nugget"), ("Ah Kd 9c 9s 5h 5d 2c", "trump-plaza"),
    ("As Ah Ad Ac 9d 5c 2s", "trump-plaza"),
])
def test_the_rule_recorded_is_the_chart_line_as_today(charts, hand, way):
    module, chart = set_by_house_way(parse_cards(hand), way, GENERAL), set_by_house_way(parse_cards(hand), charts[way], GENERAL)
    assert (chart.front, chart.back, chart.rule) == (module.front, module.back, module.rule)
    assert chart.way == charts[way].name


def test_a_chart_that_fouls_is_refused_naming_its_line():
    chart = parse_chart(read_chart(TEST_CHARTS / "fouling.toml"), "fouling.toml")
    with pytest.raises(ChartFoulsError, match=r'fouling.toml: chart line 29 \("Two pair, \{pairs\}: always split, the '
                                              r'higher pair in front"\) fouls .*: Pair of .* in front over Pair of'):
        check_chart(chart, GENERAL)


def test_a_chart_with_a_hand_it_does_not_set_is_refused():
    chart = parse_chart(read_chart(TEST_CHARTS / "gap.toml"), "gap.toml")
    with pytest.raises(ChartFoulsError, match=r"gap.toml: no line sets 2c 2d 2h 2s 3c 3d 3h \(four of a kind and three "
                                              r"of a kind\): a chart sets every hand"):
        check_chart(chart, GENERAL)


def test_a_play_that_cannot_be_made_on_a_hand_its_line_names_is_refused():
    data = {"chart": {"name": "Wrong play"}, "line": [
        {"hand": "any", "play": "pair in front", "rule": "Everything: the pair in front"}]}
    with pytest.raises(ChartFoulsError, match=r'chart line 1 \("Everything: the pair in front"\): cannot play '
                                              r"'pair in front' on .*: the hand has no second pair"):
        check_chart(parse_chart(data, "wrong.toml"), GENERAL)


LINE = {"hand": "one pair", "play": "pair in back, next two highest in front", "rule": "One pair"}


@pytest.mark.parametrize("change, message", [
    ({"holdin": "an ace"}, "unknown rule term 'holdin'"),
    ({"hand": "a pair"}, "hand: unknown hand 'a pair'"),
    ({"play": "pair behind"}, "play: unknown play 'pair behind'"),
    ({"rank": "bishops"}, "rank: 'bishops' is no rank or range of ranks"),
    ({"rank": "kings through twos"}, "rank: 'kings through twos' is no rank"),
    ({"pairs": "low and tiny"}, "pairs: 'low and tiny': expected \"<lower pair> and <higher pair>\""),
    ({"straight_or_flush": "sometimes"}, "straight_or_flush: expected one of true, false"),
    ({"front": "jack"}, "front: 'jack': expected \"<rank> or better\""),
    ({"unless": {"hand": "two pair"}}, "unless: unknown rule term 'hand'"),
    ({"rule": ""}, "rule: expected the chart's words"),
])
def test_a_line_the_language_does_not_have_is_refused_naming_it(change, message):
    with pytest.raises(ChartError, match="chart line 1") as err:
        parse_chart({"chart": {"name": "T"}, "line": [{**LINE, **change}]}, "t.toml")
    assert message in str(err.value)


def test_the_chart_itself_must_be_a_chart():
    for data, message in [({"line": [LINE]}, "[chart] name: missing"),
                          ({"chart": {"name": "T"}}, "no [[line]]"),
                          ({"chart": {"name": "T", "author": "x"}, "line": [LINE]}, "[chart] author: unknown key"),
                          ({"chart": {"name": "T"}, "line": [LINE], "lines": []}, "unknown key 'lines'")]:
        with pytest.raises(ChartError, match="t.toml") as err:
            parse_chart(data, "t.toml")
        assert message in str(err.value)


def test_a_missing_or_broken_chart_file_names_the_file(tmp_path):
    with pytest.raises(ChartError, match="nope.toml: no such chart file"):
        read_chart(tmp_path / "nope.toml")
    with pytest.raises(ChartError, match=r"not-toml.toml: not TOML: .*line 2"):
        read_chart(TEST_CHARTS / "not-toml.toml")


@pytest.fixture
def house_with_chart(tmp_path):
    """The general house with its house way named as a chart file beside it."""
    houses = tmp_path / "houses"
    houses.mkdir()
    (tmp_path / "house_ways").mkdir()
    shutil.copy(chart_file("golden-nugget"), tmp_path / "house_ways" / "nugget.toml")
    text = (shipped_config_dir() / "houses" / "general.toml").read_text()
    assert 'house_way = "trump-plaza"' in text
    (houses / "general.toml").write_text(text.replace('house_way = "trump-plaza"',
                                                      'house_way = "../house_ways/nugget.toml"'))
    return houses / "general.toml"


def test_a_house_file_can_name_a_chart_and_the_rules_recorded_carry_it(house_with_chart):
    rules = load_house(str(house_with_chart))
    assert rules.chart is not None and rules.chart.name == "Golden Nugget" and rules.house_way_name == "Golden Nugget"
    hand = parse_cards("8h 8c 3s 3d Qh 9c 2s")
    assert same(decide(hand, rules.way, rules.evaluator()), decide(hand, "golden-nugget", rules.evaluator()))
    # The mapping recorded with a round holds the chart: a replay reads it back with no file at hand.
    mapping = read_house(house_with_chart)
    assert mapping["house"]["house_way_chart"]["chart"]["name"] == "Golden Nugget"
    house_with_chart.parent.parent.joinpath("house_ways", "nugget.toml").unlink()
    again = HouseRules.from_mapping(mapping, "the rules recorded for round 1", "general")
    assert again == rules and again.chart == rules.chart


def test_a_house_file_naming_a_fouling_or_missing_chart_is_refused(house_with_chart):
    shutil.copy(TEST_CHARTS / "fouling.toml", house_with_chart.parent.parent / "house_ways" / "nugget.toml")
    with pytest.raises(HouseRulesError, match=r"house.house_way '../house_ways/nugget.toml': chart line 29 .* fouls"):
        load_house(str(house_with_chart))
    (house_with_chart.parent.parent / "house_ways" / "nugget.toml").unlink()
    with pytest.raises(HouseRulesError, match=r"general.toml: house.house_way: .*nugget.toml: no such chart file"):
        load_house(str(house_with_chart))


def test_a_house_way_that_is_neither_a_module_nor_a_chart_is_refused(tmp_path):
    text = (shipped_config_dir() / "houses" / "general.toml").read_text()
    (tmp_path / "h.toml").write_text(text.replace('house_way = "trump-plaza"', 'house_way = "caesars"'))
    with pytest.raises(HouseRulesError, match="house.house_way: unknown house way 'caesars'"):
        load_house(str(tmp_path / "h.toml"))


def test_a_chart_goes_to_another_process_as_its_text(charts):
    copy = pickle.loads(pickle.dumps(charts["ballys"]))
    hand = parse_cards("Ah Ac Jk Kd Qc Js 2c")
    assert copy == charts["ballys"] and same(decide(hand, copy, GENERAL), decide(hand, "ballys", GENERAL))


def test_a_round_settled_under_a_chart_house_records_the_same_rules_as_under_the_module(house_with_chart):
    from appliance.game.round_json import round_from_json, settlement_to_json
    from appliance.game.settlement import settle

    by_chart = load_house(str(house_with_chart))
    by_module = HouseRules.from_mapping(
        {**read_house(house_with_chart), "house": {"name": by_chart.name, "house_way": "golden-nugget"}},
        "general.toml", "general")
    data = {"banker": {"seat": "dealer", "cards": ["Th", "9h", "8h", "7h", "6h", "Jc", "2h"]}, "action_seat": 1,
            "seats": [{"seat": 1, "wager": "25.00", "cards": ["8d", "8c", "3s", "3d", "Qh", "9c", "2s"]},
                      {"seat": 2, "wager": "25.00", "front": ["Ks", "Qd"], "back": ["Ac", "Ad", "5s", "4d", "3c"]}]}
    results = [settlement_to_json(settle(round_from_json(data), rules), rules.evaluator())
               for rules in (by_chart, by_module)]
    assert results[0] == results[1]
    assert "Play the straight or flush over the straight flush" in str(results[0])


@pytest.mark.parametrize("way", list(HOUSE_WAYS))
@pytest.mark.slow
def test_each_chart_sets_random_hands_as_its_module(charts, way):
    """The sweep deals each pattern two ways; random hands bring the suits in other arrangements."""
    import random

    rng = random.Random(38)
    for ev in (GENERAL, evaluator(JokerRule.WILD, WheelRule.LOWEST, False)):
        hands = [tuple(sorted(rng.sample(range(53), 7))) for _ in range(5000)]
        differ = [format_cards(h) for h in hands if not same(_decide(h, way, ev), _decide(h, charts[way], ev))]
        assert differ == []
