"""The house dealer's setting of the banker's hand, read from the layout's banker.front and banker.back
zones and compared with the house way, through the dealer's loop, the real round engine and the audit log.

Greektown: "The dealer must set his or her hands by using a set of rules known as 'The House way.'"
General rules: "When the casino banks, the dealer sets the banker's hand by a fixed set of rules called
the house way, so the dealer makes no choices." and "A player who banks may set their own hand as they wish."
"""

import pytest
from dealer_table import KEY, Dealer

from appliance.audit.dispute import dispute
from appliance.audit.log import records
from appliance.audit.replay import replay
from appliance.config import load_house
from appliance.devices.protocol import RngResult
from appliance.table.dealer import DealerInputError, Step
from appliance.table.round import Events, Phase, TableRound
from appliance.table.supervisor import PinError

GREEKTOWN = load_house("greektown")
BANKER = ["Qs", "Qd", "9h", "8c", "7c", "4h", "2s"]
HOUSE_WAY = {"banker.front": ["9h", "8c"], "banker.back": ["Qs", "Qd", "7c", "4h", "2s"]}  # queens behind
LAID = {"banker.front": ["Qs", "7c"], "banker.back": ["Qd", "9h", "8c", "4h", "2s"]}  # the pair split
SEAT1 = {"seat1.front": ["Kd", "Jh"], "seat1.back": ["Ah", "Kc", "8d", "5c", "3s"]}


def events(d):
    return [r["event"] for r in records(d.audit.folder)]


def dealt(tmp_path, banker="dealer", banker_wager=None, rules=GREEKTOWN, reads_setting=True):
    """A round at a table whose layout reads the dealer's setting: seat 1 wagers 20, the start value in."""
    d = Dealer(tmp_path / "log", rules=rules, reads_setting=reads_setting)
    d.loop.set_bets([{"seat": 1, "wager": "20"}] if banker == "dealer" else [{"seat": 2, "wager": "20"}],
                    banker, banker_wager)
    d.loop.press("next")
    d.loop.start_value("rng", RngResult(1, 3))
    return d


def banker_read(d):
    d.look({"banker": BANKER})
    assert d.loop.press("confirm") == ""


def test_the_house_dealers_setting_is_read_and_settled_as_laid(tmp_path):
    d = dealt(tmp_path)
    banker_read(d)
    opened = next(r for r in records(d.audit.folder) if r["event"] == Events.BANKER_CARDS)
    assert opened["data"]["set_checked"] is True
    assert d.loop.step is Step.SEATS
    assert d.loop.wanted_zones() == ["banker.front", "banker.back", "seat1.front", "seat1.back"]
    assert d.live.snapshot()["banker"]["set_checked"] is True  # the dashboard says "Banker to set", not "set"
    prompt = d.loop.prompt()
    assert prompt["setting"]["house_way"]["front"] == ["9h", "8c"] and prompt["setting"]["laid"] is None
    with pytest.raises(Exception, match="the banker's setting is not read yet"):
        d.table.current.seat_cards(1, SEAT1["seat1.front"], SEAT1["seat1.back"])
    # the same setting with the cards in another order is the same setting
    d.look({"banker.front": ["8c", "9h"], "banker.back": ["7c", "Qd", "2s", "Qs", "4h"], **SEAT1})
    assert d.loop.prompt()["setting"]["same"] is True
    assert d.loop.press("confirm") == ""
    assert d.table.current.phase is Phase.SETTLED
    assert events(d) == [Events.ROUND_OPENED, Events.START_SEAT, Events.BANKER_CARDS, Events.BANKER_SET,
                         Events.SEAT_CARDS, Events.ROUND_SETTLED]
    set_record = records(d.audit.folder)[3]["data"]
    assert (set_record["set_by"], set_record["reset"], set_record["front"]) == ("house-way", False, ["8c", "9h"])
    assert set_record["house_way"]["front"] == ["9h", "8c"] and len(set_record["read"]) == 7
    seat = d.live.snapshot()["seats"]["1"]
    assert seat["result"] == "push"  # the house way makes the Greektown player a push
    assert replay(d.audit.folder, KEY)["differences"] == []


def test_a_setting_other_than_the_house_way_holds_the_round_until_the_dealer_resets_it(tmp_path):
    d = dealt(tmp_path)
    banker_read(d)
    d.look({**LAID, **SEAT1})
    setting = d.loop.prompt()["setting"]
    assert setting["same"] is False and setting["laid"]["front_value"] != setting["house_way"]["front_value"]
    assert d.loop.prompt()["say"] == "Not the house way: set the banker's hand as shown"
    assert d.loop.press("confirm") == ""  # the dealer insists: the round is held, nothing is settled
    assert d.loop.step is Step.RESET and d.table.current.phase is Phase.SET_HELD
    assert d.lamps["attention"] is True and d.table.held is None  # the dealer, not a supervisor, resets it
    held = records(d.audit.folder)[-1]
    assert held["event"] == Events.BANKER_SET_HELD
    assert held["data"]["front"] == ["Qs", "7c"] and held["data"]["house_way"]["front"] == ["9h", "8c"]
    assert "the house way sets front 9h 8c, back Qs Qd 7c 4h 2s" in held["data"]["differs"]
    prompt = d.loop.prompt()
    assert prompt["say"] == "Held: not the house way. Reset the banker's hand as shown, then CONFIRM"
    assert prompt["setting"]["held"]["front"] == ["Qs", "7c"] and prompt["setting"]["house_way"]["back_value"]
    assert d.live.snapshot()["phase"] == "set_held"
    # CONFIRM again on the same cards: refused, not recorded twice
    assert "still not set by the house way" in d.loop.press("confirm")
    assert events(d).count(Events.BANKER_SET_HELD) == 1
    d.look({**HOUSE_WAY, **SEAT1})  # reset
    assert d.loop.prompt()["setting"]["same"] is True
    assert d.loop.press("confirm") == ""
    assert d.table.current.phase is Phase.SETTLED and d.lamps["attention"] is False
    reset = next(r for r in records(d.audit.folder) if r["event"] == Events.BANKER_SET)
    assert reset["data"]["reset"] is True and reset["data"]["set_by"] == "house-way"
    assert d.live.snapshot()["seats"]["1"]["result"] == "push"
    assert replay(d.audit.folder, KEY)["differences"] == []


def test_a_supervisor_lets_the_dealers_setting_stand_and_it_is_settled_as_the_cards_lie(tmp_path):
    d = dealt(tmp_path)
    banker_read(d)
    d.look({**LAID, **SEAT1})
    d.loop.press("confirm")
    with pytest.raises(PinError):
        d.loop.let_setting_stand("1042", "0000", "the dealer's choice")
    assert events(d)[-1] == Events.SUPERVISOR_REFUSED
    with pytest.raises(ValueError, match="say why the dealer's setting stands"):
        d.loop.let_setting_stand("1042", "4821", "  ")
    d.look({**HOUSE_WAY, **SEAT1})  # the cards moved: not what the supervisor was shown
    with pytest.raises(DealerInputError, match="the banker's cards have moved since the hold"):
        d.loop.let_setting_stand("1042", "4821", "the dealer's choice")
    d.look({**LAID, **SEAT1})
    d.loop.let_setting_stand("1042", "4821", "player agreed; house way chart in dispute")
    stood = records(d.audit.folder)[-1]
    assert stood["event"] == Events.BANKER_SET and stood["who"] == "supervisor 1042" and stood["ts"]
    assert stood["data"]["set_by"] == "dealer" and stood["data"]["reason"] == "player agreed; house way chart in dispute"
    assert d.loop.step is Step.SEATS and d.loop.wanted_zones() == ["seat1.front", "seat1.back"]
    assert d.loop.press("confirm") == ""
    settlement = records(d.audit.folder)[-1]["data"]["settlement"]
    assert (settlement["seats"][0]["result"], settlement["seats"][0]["net"]) == ("win", "19.00")  # as laid
    assert any("settled as laid (set_by: dealer)" in note for note in settlement["notes"])
    assert replay(d.audit.folder, KEY)["differences"] == []
    view = dispute("t-1", records(d.audit.folder), [], KEY)
    assert view["banker"]["set_by"] == "dealer" and view["banker"]["set_accepted"]["who"] == "supervisor 1042"
    assert [h["front"] for h in view["banker"]["set_holds"]] == [["Qs", "7c"]]


def test_a_set_hand_of_other_cards_holds_the_table_for_the_supervisor(tmp_path):
    d = dealt(tmp_path)
    banker_read(d)
    d.look({"banker.front": ["9h", "8c"], "banker.back": ["Qs", "Qd", "7c", "4h", "3s"], **SEAT1})
    assert "not the seven cards read" in d.loop.prompt()["say"]
    d.loop.press("confirm")
    assert d.loop.step is Step.HELD and "is not the seven cards read (Qs Qd 9h 8c 7c 4h 2s)" in d.table.held
    assert Events.TABLE_FLAGGED in events(d) and Events.BANKER_SET not in events(d)


def test_a_player_banked_round_is_never_held_for_the_house_way(tmp_path):
    """Greektown seat 1 banks and sets his own hand, not the house way's: read from his seat, settled as laid."""
    d = dealt(tmp_path, banker=1, banker_wager="200")
    assert d.loop.wanted_zones() == ["seat1.front", "seat1.back"]
    d.look({"seat1.front": LAID["banker.front"], "seat1.back": LAID["banker.back"]})
    assert d.loop.press("confirm") == ""
    assert d.loop.wanted_zones() == ["seat2.front", "seat2.back"] and d.loop.prompt()["setting"] is None
    d.look({"seat2.front": SEAT1["seat1.front"], "seat2.back": SEAT1["seat1.back"]})
    assert d.loop.press("confirm") == ""
    assert d.table.current.phase is Phase.SETTLED
    assert Events.BANKER_SET_HELD not in events(d) and Events.BANKER_SET not in events(d)
    assert d.live.snapshot()["seats"]["2"]["result"] == "win"


def test_without_the_set_zones_the_house_ways_setting_is_settled(tmp_path):
    d = dealt(tmp_path, reads_setting=False)
    banker_read(d)
    assert next(r for r in records(d.audit.folder) if r["event"] == Events.BANKER_CARDS)["data"]["set_checked"] is False
    assert d.live.snapshot()["banker"]["set_checked"] is False  # the house way's setting is the banker's: "Banker set"
    assert d.loop.wanted_zones() == ["seat1.front", "seat1.back"]
    d.look(SEAT1)
    assert d.loop.press("confirm") == ""
    assert d.live.snapshot()["seats"]["1"]["result"] == "push"


def test_a_held_setting_survives_a_restart(tmp_path):
    d = dealt(tmp_path)
    banker_read(d)
    d.look({**LAID, **SEAT1})
    d.loop.press("confirm")
    restored = TableRound.restore("t-1", GREEKTOWN, d.table.rules_mapping, d.audit, [])
    assert restored.phase is Phase.SET_HELD and restored.state.banker.held.front == ["Qs", "7c"]


def test_a_correction_of_the_dealers_setting_must_stay_the_house_way(tmp_path):
    d = dealt(tmp_path)
    banker_read(d)
    d.look({**HOUSE_WAY, **SEAT1})
    d.loop.press("confirm")
    with pytest.raises(ValueError, match="the corrected setting must be the house way's"):
        d.table.correct("t-1", "1042", "4821", "misread", "banker", front=LAID["banker.front"],
                        back=LAID["banker.back"])
    settled = d.table.correct("t-1", "1042", "4821", "suits swapped by the reader", "banker",
                              front=["9h", "8c"], back=["Qs", "Qd", "7c", "4h", "2s"])
    assert settled["seats"][0]["result"] == "push"


@pytest.mark.parametrize("house, dealer_banks", [("general", True), ("capitol", False)])
def test_simulated_rounds_lay_the_house_dealers_setting(tmp_path, house, dealer_banks):
    from appliance.audit.log import AuditLog
    from appliance.table.simulation import play_rounds

    audit = AuditLog(tmp_path / "log", KEY)
    assert play_rounds(load_house(house), audit, 6, seed=4)["rounds"] == 6
    logged = [r["event"] for r in records(audit.folder)]
    assert logged.count(Events.BANKER_SET) == (6 if dealer_banks else 0)  # a Player/Dealer sets his own
    assert Events.BANKER_SET_HELD not in logged
    assert replay(audit.folder, KEY)["differences"] == []


def test_the_screens_let_it_stand_takes_a_supervisors_pin_and_reason(tmp_path):
    from appliance.web.app import create_app

    d = dealt(tmp_path)
    client = create_app(d.live, d.table.rules, d.table, secret_key=b"s" * 32, dealer=d.loop).test_client()
    client.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    token = client.get("/api/dealer").get_json()["csrf"]

    def stand(**body):
        return client.post("/api/dealer/setting-stands", json=body, headers={"X-CSRF-Token": token})

    body = {"supervisor": "1042", "pin": "4821", "reason": "the dealer's setting agreed with the player"}
    assert stand(**body).status_code == 409 and "no setting of the banker's hand is held" in stand(**body).get_json()["error"]
    banker_read(d)
    d.look({**LAID, **SEAT1})
    d.loop.press("confirm")
    wrong = stand(**{**body, "pin": "000000"})
    assert wrong.status_code == 403 and wrong.get_json()["needs"] == "supervisor_pin"
    assert stand(supervisor="1042", pin="4821").status_code == 400  # no reason: the field is named
    assert client.post("/api/dealer/setting-stands", json=body).status_code == 403  # no CSRF token
    assert Events.BANKER_SET not in events(d)
    answer = stand(**body)
    assert answer.status_code == 200 and answer.get_json()["dealer"]["step"] == "seats"
    assert records(d.audit.folder)[-1]["data"]["reason"] == body["reason"]


def test_a_simulated_dealer_told_to_mislay_now_and_then_is_held_and_resets(tmp_path):
    """--mislay: in that share of the house-banked rounds the simulated dealer first sets the banker's hand
    otherwise than the house way, as a dealer's mistake; each such round is held, reset and settled by the
    house way, so the figures are the house way's."""
    from appliance.audit.log import AuditLog
    from appliance.table.simulation import play_rounds

    audit = AuditLog(tmp_path / "log", KEY)
    totals = play_rounds(load_house("general"), audit, 12, seed=4, mislay=0.5)
    assert totals["rounds"] == 12
    logged = records(audit.folder)
    held = [r for r in logged if r["event"] == Events.BANKER_SET_HELD]
    sets = [r for r in logged if r["event"] == Events.BANKER_SET]
    assert 2 <= len(held) <= 10 and len(sets) == 12  # about half; every round's setting accepted once
    assert all("is not the house way" in r["data"]["differs"] for r in held)
    reset = {r["data"]["round"] for r in sets if r["data"]["reset"]}
    assert reset == {r["data"]["round"] for r in held} and all(r["data"]["set_by"] == "house-way" for r in sets)
    assert replay(audit.folder, KEY)["differences"] == []
    again = AuditLog(tmp_path / "again", KEY)  # the house way's figures, as without the mistakes
    assert {k: v for k, v in play_rounds(load_house("general"), again, 12, seed=4).items() if k != "voided_at_start"} == \
        {k: v for k, v in totals.items() if k != "voided_at_start"}


def test_unread_cards_named_again_after_a_reset_one_at_a_time(tmp_path):
    """The camera cannot read the banker's set cards: the dealer names them. Held, the dealer resets the hand;
    the camera cannot tell that unread cards moved, so the names given stay on the screen until the dealer
    names each card again where it lies now. Part way through, a card is named in both hands: the screen
    shows the setting without values, and the next name is taken."""
    d = dealt(tmp_path)
    banker_read(d)
    unread = {zone: [None] * len(cards) for zone, cards in LAID.items()}
    d.look({**unread, **SEAT1})
    for zone, cards in LAID.items():
        for position, card in enumerate(cards):
            d.loop.name_card(zone, position, card)
    assert d.loop.press("confirm") == "" and d.loop.step is Step.RESET
    d.look({**unread, **SEAT1})  # reset: the same count of unread cards in each zone
    assert d.loop.prompt()["setting"]["laid"]["front"] == LAID["banker.front"]
    d.loop.name_card("banker.back", 1, HOUSE_WAY["banker.back"][1])  # Qd, still named as the back's first card
    setting = d.loop.prompt()["setting"]
    assert setting["laid"]["back"] == ["Qd", "Qd", "8c", "4h", "2s"] and setting["laid"]["back_value"] == "-"
    assert setting["laid"]["banker_cards"] is False and setting["same"] is False
    for zone, cards in HOUSE_WAY.items():
        for position, card in enumerate(cards):
            d.loop.name_card(zone, position, card)
    assert d.loop.prompt()["setting"]["same"] is True
    assert d.loop.press("confirm") == "" and d.table.current.phase is Phase.SETTLED
    assert replay(d.audit.folder, KEY)["differences"] == []
