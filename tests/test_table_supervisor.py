from decimal import Decimal
from pathlib import Path

import pytest
from settled_table import settled_table

from appliance.game.settlement import SeatWagers
from appliance.audit.log import AuditLog, records
from appliance.audit.replay import replay
from appliance.config import load_house, read_toml
from appliance.table.round import Events, RoundStateError
from appliance.table.supervisor import PinError, SupervisorGate, hash_pin
from appliance.table.table import Table

KEY = b"s" * 64


def played(tmp_path):
    return settled_table(tmp_path / "log", KEY, manual_start=True)


def test_a_correction_resettles_and_replays(tmp_path):
    table, r = played(tmp_path)
    assert (r.state.start.value, r.state.start.dice) == (4, None)
    before = records(tmp_path / "log")
    assert [x for x in before if x["event"] == Events.START_SEAT][0]["who"] == "supervisor 1042"
    settlement = table.correct("r1", "1042", "4821", "3h misread, it is the ace of clubs", 2,
                               front=["Ac", "2d"], back=["7c", "7s", "4h", "4d", "Jc"])
    assert settlement["seats"][0]["front"] == "loss"  # ace-two against the banker's ace-king
    log = records(tmp_path / "log")
    assert [x["event"] for x in log[-2:]] == [Events.READ_CORRECTED, Events.ROUND_SETTLED]
    assert log[-2]["who"] == "supervisor 1042" and log[-2]["data"]["reason"].startswith("3h misread")
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_wrong_pins_are_refused_logged_and_rate_limited(tmp_path):
    table, _ = played(tmp_path)
    for _ in range(5):
        with pytest.raises(PinError):
            table.void("r1", "1042", "0000", "test")
    with pytest.raises(PinError, match="locked"):
        table.void("r1", "1042", "4821", "test")  # even the right PIN, while locked
    # The first refusal is logged at once, the rest of the minute as one record when it ends.
    refused = [x for x in records(tmp_path / "log") if x["event"] == Events.SUPERVISOR_REFUSED]
    assert [x["data"]["count"] for x in refused] == [1]
    table.gate.refusals.flush()  # the minute is over
    refused = [x for x in records(tmp_path / "log") if x["event"] == Events.SUPERVISOR_REFUSED]
    assert [x["data"]["count"] for x in refused] == [1, 5]
    # No PIN, right or wrong, is ever written (the hashes and signatures are random hex: not checked).
    assert all("4821" not in str(x["data"]) and "0000" not in str(x["data"]) for x in refused)


def test_no_change_once_the_next_round_has_started(tmp_path):
    table, _ = played(tmp_path)
    table.new_round("r2").open("dealer", [SeatWagers(1, Decimal("10"))])
    with pytest.raises(RoundStateError, match="round r1 can no longer be changed"):
        table.void("r1", "1042", "4821", "too late")


def test_misdeal(tmp_path):
    rules = load_house("general")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {"7": hash_pin("123456")})
    r = table.new_round("m1")
    r.open("dealer", [SeatWagers(3, Decimal("10"))])
    with pytest.raises(RoundStateError, match="still open"):
        table.new_round("m2")
    table.misdeal("m1", "7", "123456", "Joker or ace boxed or exposed")
    assert records(tmp_path / "log")[-1]["data"]["reason"] == "misdeal: joker or ace boxed or exposed"
    assert table.new_round("m2")


def test_pin_rules():
    with pytest.raises(PinError, match="4 to 8 digits"):
        hash_pin("12ab")
    gate = SupervisorGate({"1": hash_pin("1234")})
    assert gate.check("1", "1234") == "1"


def test_a_misdeal_names_a_reason_the_house_lists(tmp_path):
    # Capitol rule 29: "A misdeal will be declared if one of the following occurs: 1. Joker or Ace is boxed or
    # exposed. 2. Two or more cards are boxed or exposed."
    from appliance.game.rules import MisdealReasonError
    rules = load_house("capitol")
    assert rules.misdeal_reasons == ("joker or ace boxed or exposed", "two or more cards boxed or exposed")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {"7": hash_pin("123456")})
    r = table.new_round("m1")
    r.open(1, [SeatWagers(3, Decimal("10"))], banker_wager=Decimal("100"))
    with pytest.raises(MisdealReasonError, match="'a card fell' is not one of Capitol Casino's: joker or ace"):
        table.misdeal("m1", "7", "123456", "a card fell")
    table.misdeal("m1", "7", "123456", "Two or more cards boxed or exposed")
    assert records(tmp_path / "log")[-1]["data"]["reason"] == "misdeal: two or more cards boxed or exposed"


def test_a_correction_of_a_player_bankers_own_hand_changes_the_settlement(tmp_path):
    """Capitol: the Player/Dealer sets his own hand. His 9h was really the Kh: his front K-4 now beats
    seat 2's Q-J, and the seat's win becomes a push; the replay folds the correction the same way."""
    rules = load_house("capitol")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {"1042": hash_pin("4821")})
    r = table.new_round("c1")
    r.open(4, [SeatWagers(2, Decimal("40"))], banker_wager=Decimal("200"))
    r.start_seat("dice", 12, dice=[3, 4, 5])
    r.banker_cards(["9h", "4d", "As", "Ad", "Kc", "Ks", "3c"], front=["9h", "4d"], back=["As", "Ad", "Kc", "Ks", "3c"])
    r.seat_cards(2, ["Qh", "Jh"], ["Ts", "Th", "Tc", "6d", "5c"])
    assert r.settle()["seats"][0]["result"] == "win"
    with pytest.raises(RoundStateError, match="set his own hand"):
        table.correct("c1", "1042", "4821", "9h misread", "banker", cards=["Kh", "4d", "As", "Ad", "Kc", "Ks", "3c"])
    again = table.correct("c1", "1042", "4821", "9h misread: king of hearts", "banker",
                          front=["Kh", "4d"], back=["As", "Ad", "Kc", "Ks", "3c"])
    assert again["seats"][0]["result"] == "push"
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_a_house_dealers_setting_that_is_not_the_house_way_is_held_for_the_dealer_to_reset(tmp_path):
    # Greektown: "The dealer must set his or her hands by using a set of rules known as 'The House way.'"
    rules = load_house("greektown")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {})
    r = table.new_round("h1")
    r.open("dealer", [SeatWagers(1, Decimal("20"))])
    r.start_seat("rng", 2)
    cards = ["Qs", "7c", "Qd", "9h", "8c", "4h", "2s"]
    with pytest.raises(RoundStateError, match=r"setting \(front Qs 7c, back Qd 9h 8c 4h 2s\) is not the house way: "
                                              r"the house way sets front 9h 8c, back Qs Qd 7c 4h 2s .*reset the hand"):
        r.banker_cards(cards, front=["Qs", "7c"], back=["Qd", "9h", "8c", "4h", "2s"])
    assert r.state.banker.cards is None
    setting = r.banker_cards(cards, front=["9h", "8c"], back=["Qs", "Qd", "7c", "4h", "2s"])
    assert setting["front"] == ["9h", "8c"]


def test_the_live_table_refuses_a_third_consecutive_bank_and_logs_it(tmp_path):
    # Capitol: "No player is allowed to bank for more than two consecutive hands." Rule 23: "If no wager was
    # placed on the prior hand, no one will be Player/Dealer on that spot."
    from appliance.table.dealer import DealerInputError, DealerLoop
    from appliance.table.eye import TableTop

    rules = load_house("capitol")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {})
    for n in (1, 2):
        r = table.new_round(f"b{n}")
        r.open(4, [SeatWagers(2, Decimal("40"))], banker_wager=Decimal("200"))
        r.start_seat("dice", 12, dice=[3, 4, 5])
        r.banker_cards(["9h", "4d", "As", "Ad", "Kc", "Ks", "3c"], front=["9h", "4d"], back=["As", "Ad", "Kc", "Ks", "3c"])
        r.seat_cards(2, ["Qh", "Jh"], ["Ts", "Th", "Tc", "6d", "5c"])
        r.settle()
    assert [b.banker for b in table.bank_history] == [4, 4]  # the settled current round counts
    table.new_round("b3")
    assert table.bank_refused(2, "dealer") is None
    assert "seat 5 may not bank this round: no wager was placed on seat 5 on the prior hand" in table.bank_refused(5, "dealer")
    loop = DealerLoop(table, TableTop(), lambda: True, lambda: "b4", "rng")
    with pytest.raises(DealerInputError, match=r"Capitol Casino: seat 4 may not bank this round: seat 4 has banked 2 "
                                               r"consecutive rounds, the most allowed \(banking.max_consecutive\)"):
        loop.set_bets([{"seat": 2, "wager": "40"}], banker=4, banker_wager="200")
    refused = [x for x in records(tmp_path / "log") if x["event"] == Events.BANK_REFUSED]
    assert [x["data"]["seat"] for x in refused] == [5, 4]
