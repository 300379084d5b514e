import shutil
import tomllib
from decimal import Decimal

import pytest

from appliance.config import house_files, load_all_houses, load_house, shipped_config_dir
from appliance.game.money import Rounding
from appliance.game.rules import (
    BankingMode, CommissionKind, Direction, FoulPenalty, HouseRules, HouseRulesError, StartMethod,
    UnknownHouseError,
)
from appliance.game.schema import SchemaError
from appliance.game.values import JokerRule, WheelRule


def test_one_file_per_customer_house():
    # Capitol's brochure describes two games: Pai Gow Poker and Pai Gow Poker Joker's Wild.
    assert set(house_files()) == {"capitol", "capitol-jokers-wild", "fortune", "general", "greektown", "safari"}
    assert all(path.is_relative_to(shipped_config_dir()) for path in house_files().values())


def test_the_houses_say_what_their_documents_say():
    h = load_all_houses()
    capitol, fortune, greek, general, safari = (h[k] for k in ("capitol", "fortune", "greektown", "general", "safari"))
    assert capitol.joker is JokerRule.BUG and fortune.joker is JokerRule.WILD
    assert general.wheel is WheelRule.SECOND_HIGHEST
    assert capitol.player_foul is FoulPenalty.FORFEIT and capitol.banker_foul is FoulPenalty.HOUSE_WAY  # rule 31
    assert capitol.commission.kind is CommissionKind.COLLECTION and fortune.commission.kind is CommissionKind.COLLECTION
    assert greek.commission.kind is CommissionKind.PERCENT and greek.commission.percent == 5
    assert capitol.banking.mode is BankingMode.PLAYER and capitol.banking.action_limited  # rule 9
    assert capitol.banking.max_consecutive == 2 and fortune.banking.max_consecutive == 2
    assert greek.banking.mode is BankingMode.PLAYER_OPTIONAL and greek.banking.offer_every == 2
    assert greek.banking.requires_previous_wager
    assert greek.start.count_direction is Direction.COUNTER_CLOCKWISE
    assert set(greek.start.methods) == {StartMethod.DICE, StartMethod.RNG}
    assert capitol.start.methods == (StartMethod.DICE,) and capitol.start.player_seats == 7
    assert safari.banking.mode is BankingMode.HOUSE and safari.start.player_seats == 6
    assert (safari.limits.minimum, safari.limits.maximum) == (Decimal("5.00"), Decimal("300.00"))
    assert capitol.limits.banker_maximum is None  # rule 8
    assert fortune.fortune.pays["five-aces"] == 500 and "three-of-a-kind" not in fortune.fortune.pays
    assert fortune.envy.minimum_fortune == Decimal("5.00")
    assert general.commission.rounding is Rounding.DOWN


def test_find_a_house_by_name_or_key():
    assert load_house("Capitol Casino").key == "capitol"
    assert load_house("GREEKTOWN").key == "greektown"
    with pytest.raises(UnknownHouseError, match="unknown house 'Bellagio'"):
        load_house("Bellagio")


def _edited(tmp_path, change):
    folder = tmp_path / "config"
    shutil.copytree(shipped_config_dir() / "houses", folder / "houses")
    path = folder / "houses" / "general.toml"
    path.write_text(change(path.read_text()))
    return folder


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace('wheel = "second-highest"', 'wheel = "second-highest"\nwheels = 1'), r"general.toml: cards.wheels: unknown key"),
    (lambda t: t.replace('joker = "bug"', 'joker = "wildish"'), r"general.toml: cards.joker: expected one of 'bug', 'wild', got 'wildish'"),
    (lambda t: t.replace('\npercent = "5"', '\npercent = 5.5'), r"general.toml: commission.percent: expected a number as text"),
    (lambda t: t.replace('minimum = "10.00"\n', ''), r"general.toml: limits.minimum: missing value"),
    (lambda t: t.replace('player_seats = 6', 'player_seats = 9'), r"general.toml: start_seat.player_seats: expected a whole number from 6 to 7"),
    (lambda t: t.replace('minimum = "10.00"', 'minimum = "10.005"'), r"general.toml: limits.minimum: .* fractions of a cent"),
    (lambda t: t.replace('[cards]', '[cards'), r"general.toml: .*"),
])
def test_errors_name_the_file_and_key(tmp_path, change, message):
    folder = _edited(tmp_path, change)
    with pytest.raises(SchemaError, match=message):
        load_house("general", folder)


def test_a_house_file_given_by_path(tmp_path):
    folder = _edited(tmp_path, lambda t: t.replace('name = "Pai Gow Poker General Rules"', 'name = "Test Room"'))
    assert load_house(str(folder / "houses" / "general.toml")).name == "Test Room"


def test_collection_tiers_must_cover_every_wager():
    data = tomllib.loads((shipped_config_dir() / "houses" / "capitol.toml").read_text())
    data["commission"]["tiers"] = data["commission"]["tiers"][:-1]
    with pytest.raises(HouseRulesError, match="the last tier must have no up_to"):
        HouseRules.from_mapping(data, "capitol.toml", "capitol")


def test_the_house_dealer_cannot_set_its_own_way():
    data = tomllib.loads((shipped_config_dir() / "houses" / "safari.toml").read_text())
    data["banking"]["banker_sets"] = "own"
    with pytest.raises(HouseRulesError, match="banking.banker_sets"):
        HouseRules.from_mapping(data, "safari.toml", "safari")


def test_capitol_jokers_wild_is_capitol_with_a_wild_joker():
    """Capitol: "In Pai Gow Poker Joker's Wild, the joker can be used as any card." Nothing else differs."""
    from appliance.game.cards import parse_cards
    capitol, wild = load_house("capitol"), load_house("capitol-jokers-wild")
    assert load_house("Capitol Casino Joker's Wild") == wild
    assert wild.joker is JokerRule.WILD and capitol.joker is JokerRule.BUG
    same = ("wheel", "house_way", "player_foul", "banker_foul", "commission", "banking", "start", "limits",
            "equal_pair_behind_fouls", "misdeal_reasons", "fortune", "envy")
    assert {k: getattr(wild, k) for k in same} == {k: getattr(capitol, k) for k in same}
    ev = wild.evaluator()
    assert ev.name(ev.two(parse_cards("Jk Kd"))) == "Pair of kings"
    assert ev.name(ev.five(parse_cards("Ks Kc Kd 7h Jk"))) == "Four of a kind, kings"


def test_every_key_of_every_house_file_is_in_the_house_rules_table():
    """config/houses/README.md takes each document rule by rule with the key that encodes it: a key added
    to a house file and not to the table would be a rule a supervisor cannot look up."""
    import re

    readme = (shipped_config_dir() / "houses" / "README.md").read_text()
    missing = []
    for path in sorted((shipped_config_dir() / "houses").glob("*.toml")):
        for section, body in tomllib.loads(path.read_text()).items():
            keys = body.items() if isinstance(body, dict) else [(section, body)]
            missing += [f"{path.name}: {section}.{key}" for key, value in keys
                        if not isinstance(value, dict) and not re.search(rf"`[^`]*\b{re.escape(key)}\b[^`]*`", readme)]
    assert not missing, missing
