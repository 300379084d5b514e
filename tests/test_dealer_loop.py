"""The dealer's round loop with the real round engine, audit log and live view: a simulated layout
(what is laid is what is seen, an unreadable card laid as None) stands in for the camera."""

from decimal import Decimal

import pytest
from dealer_table import BANKER, KEY, RULES, SEAT2, SEAT5, Dealer, Rail

from appliance.audit.log import records
from appliance.audit.replay import replay
from appliance.devices.protocol import DiceResult, RngResult
from appliance.game.cards import parse_cards
from appliance.game.house_ways import decide
from appliance.game.values import evaluator
from appliance.table.dealer import DealerInputError, Step
from appliance.table.round import Events, Phase


def events(folder):
    return [r["event"] for r in records(folder)]


def test_a_round_from_next_to_settlement(tmp_path):
    d = Dealer(tmp_path / "log")
    d.loop.set_bets([{"seat": 2, "wager": "25"}, {"seat": 5, "wager": "100"}])
    assert d.loop.step is Step.IDLE and d.lamps == {"attention": False, "ready": True}
    d.loop.press("next", "dealer (button)")
    assert d.loop.step is Step.START and d.requests == ["ROLL"]
    d.loop.start_value("rng", RngResult(7, 4))
    assert d.loop.step is Step.BANKER and d.loop.wanted_zones() == ["banker"]
    d.look({"banker": BANKER}, frames=2)
    d.loop.press("confirm")  # two frames are not yet a steady read
    assert d.loop.step is Step.BANKER and "no steady read" in d.loop.message
    d.look({"banker": BANKER}, frames=1)
    d.loop.press("confirm")
    front, back, *_ = decide(parse_cards(BANKER), RULES.house_way, evaluator(RULES.joker, RULES.wheel))
    assert d.live.snapshot()["banker"]["front"] == [str(c) for c in sorted(front, reverse=True)]
    assert d.loop.step is Step.SEATS
    assert d.loop.wanted_zones() == ["seat2.front", "seat2.back", "seat5.front", "seat5.back"]
    d.look({**SEAT2, **SEAT5})
    d.loop.press("confirm")
    assert d.table.current.phase is Phase.SETTLED and d.loop.step is Step.IDLE
    state = d.live.snapshot()
    assert state["phase"] == "settled" and {s: state["seats"][s]["result"] for s in ("2", "5")}
    assert events(tmp_path / "log") == [Events.ROUND_OPENED, Events.START_SEAT, Events.BANKER_CARDS,
                                        Events.SEAT_CARDS, Events.SEAT_CARDS, Events.ROUND_SETTLED]
    opened = records(tmp_path / "log")[0]
    assert opened["who"] == "dealer (button)"
    assert opened["data"]["bets"] == [{"seat": 2, "wager": "25.00"},
                                      {"seat": 5, "wager": "100.00"}]
    assert records(tmp_path / "log")[1]["data"]["seq"] == 7
    assert replay(tmp_path / "log", KEY)["differences"] == []
    # NEXT opens the next round with the same wagers
    d.loop.press("next")
    assert d.table.current.round_id == "t-2" and d.loop.step is Step.START


def test_an_unreadable_card_is_named_by_the_dealer_never_guessed(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": [*BANKER[:3], None, *BANKER[4:]]})
    assert d.live.snapshot()["dealer"]["zones"]["banker"]["unreadable"] == [3]
    assert "Name the unreadable card(s): Banker card 4" in d.live.snapshot()["dealer"]["say"]
    d.loop.press("confirm")
    assert d.loop.step is Step.BANKER and "name the unreadable card(s) first: card 4" in d.loop.message
    with pytest.raises(DealerInputError, match="Banker: no card 8"):
        d.loop.name_card("banker", 7, "9s")
    with pytest.raises(ValueError, match="unknown card 'Zz'"):
        d.loop.name_card("banker", 3, "Zz")
    d.loop.name_card("banker", 3, "9s", who="dealer (screen)")
    d.loop.press("confirm", who="dealer (screen)")
    log = records(tmp_path / "log")
    confirmed = [r for r in log if r["event"] == Events.READ_CONFIRMED]
    assert [(r["data"]["zone"], r["data"]["position"], r["data"]["card"], r["who"]) for r in confirmed] == \
        [("banker", 3, "9s", "dealer (screen)")]
    banker = next(r for r in log if r["event"] == Events.BANKER_CARDS)
    assert banker["data"]["cards"] == BANKER and banker["data"]["read"][3] == {"card": None, "reason": "unreadable"}



def test_a_named_card_of_a_hand_refused_is_not_recorded(tmp_path):
    """The dealer names the banker's unreadable card as the As already read in the hand: the hand is held
    as a card seen twice, and the name is not recorded with it (the shift page counts named cards); named
    again rightly after the release, it is recorded once."""
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": [*BANKER[:3], None, *BANKER[4:]]})
    d.loop.name_card("banker", 3, "As")
    d.loop.press("confirm")
    assert d.loop.step is Step.HELD and "card As seen twice" in d.table.held
    assert Events.READ_CONFIRMED not in events(tmp_path / "log")
    d.table.release("1042", "4821", "the dealer named the wrong card")
    d.loop.name_card("banker", 3, "9s")
    d.loop.press("confirm")
    assert d.loop.step is Step.SEATS
    confirmed = [r["data"] for r in records(tmp_path / "log") if r["event"] == Events.READ_CONFIRMED]
    assert confirmed == [{"round": "t-1", "zone": "banker", "position": 3, "card": "9s"}]

def test_a_read_that_keeps_changing_is_never_accepted(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    for i in range(10):  # a hand moving over the cards
        d.look({"banker": BANKER if i % 2 else BANKER[:6]}, frames=1)
    assert "banker" not in d.live.snapshot()["dealer"]["zones"]
    d.loop.press("confirm")
    assert d.loop.step is Step.BANKER


def test_a_start_value_no_round_waits_for_is_logged_not_used(tmp_path):
    d = Dealer(tmp_path / "log")
    d.loop.start_value("dice", DiceResult(3, (2, 5, 6)))
    assert records(tmp_path / "log")[-1]["data"] == {"device": "dice", "value": 13, "dice": [2, 5, 6], "seq": 3,
                                                     "used": False, "step": "idle"}
    d.loop.set_bets([{"seat": 2, "wager": "25"}])
    d.loop.press("next")
    d.loop.start_value("dice", DiceResult(4, (1, 1, 2)))
    start = records(tmp_path / "log")[-1]
    assert start["event"] == Events.START_SEAT and start["data"]["dice"] == [1, 1, 2]
    assert start["data"]["first_hand"] == 4  # dice total 4 counted from the dealer


def test_wagers_are_checked(tmp_path):
    d = Dealer(tmp_path / "log")
    with pytest.raises(DealerInputError, match="seats.0..seat: 8 is not a seat 1-6"):
        d.loop.set_bets([{"seat": 8, "wager": "25"}])
    with pytest.raises(DealerInputError, match="offers no Fortune bonus"):
        d.loop.set_bets([{"seat": 3, "wager": "10", "fortune": "5"}])
    with pytest.raises(DealerInputError, match="under the table minimum"):
        d.loop.set_bets([{"seat": 3, "wager": "1"}])
    with pytest.raises(DealerInputError, match="seat 2 wager: '2.555'"):
        d.loop.set_bets([{"seat": 2, "wager": "2.555"}])
    with pytest.raises(DealerInputError, match="seat 2 appears twice"):
        d.loop.set_bets([{"seat": 2, "wager": "15"}, {"seat": 2, "wager": "15"}])
    d.loop.press("next")
    assert d.loop.message == "enter the wagers first" and events(tmp_path / "log") == []
    with pytest.raises(DealerInputError, match="unknown button"):
        d.loop.press("deal")


def test_calling_the_supervisor_holds_the_table_until_released(tmp_path):
    d = Dealer(tmp_path / "log")
    d.loop.set_bets([{"seat": 2, "wager": "25"}])
    d.loop.press("next")
    d.loop.press("supervisor", "dealer (button)")
    assert d.loop.step is Step.HELD and d.lamps["attention"] and d.live.snapshot()["held"]
    d.loop.start_value("rng", RngResult(1, 3))  # logged, not used while held
    d.loop.press("next")
    assert "only a supervisor" in d.loop.message
    d.table.release("1042", "4821", "player's question answered")
    assert d.loop.step is Step.START and d.live.snapshot()["held"] is None
    assert events(tmp_path / "log")[1:] == [Events.SUPERVISOR_CALLED, Events.TABLE_HELD, Events.DEVICE_VALUE,
                                            Events.TABLE_RELEASED]
    assert records(tmp_path / "log")[-1]["who"] == "supervisor 1042"


def test_a_card_seen_twice_holds_the_table(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look({"seat2.front": ["As", "Jd"], "seat2.back": SEAT2["seat2.back"]})
    d.loop.press("confirm")
    assert d.loop.step is Step.HELD and "As seen twice" in d.table.held
    d.table.void(d.table.current.round_id, "1042", "4821", "foreign card")
    assert d.loop.step is Step.IDLE


def test_a_hand_entered_by_hand_when_the_camera_sees_nothing(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    with pytest.raises(DealerInputError, match="Seat 2, front: not being read now"):
        d.loop.enter_hand("seat2.front", ["Qh", "Jd"])
    d.loop.enter_hand("banker", BANKER, who="dealer (screen)")
    d.look({"banker": BANKER[:5]})  # the camera does not overwrite the dealer's entry
    d.loop.press("confirm")
    assert d.loop.step is Step.SEATS
    confirmed = [r["data"]["card"] for r in records(tmp_path / "log") if r["event"] == Events.READ_CONFIRMED]
    assert confirmed == BANKER


def test_a_round_cut_off_by_a_power_cut_waits_for_the_supervisor(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    # the power goes; at the restart the round is restored in its phase and the table held
    again = Dealer(tmp_path / "log")
    again.table.resume("t-1")
    assert again.table.current.phase is Phase.BANKER and again.loop.step is Step.HELD
    again.loop.press("next")
    assert "only a supervisor" in again.loop.message
    again.table.void("t-1", "1042", "4821", "power cut mid-round")
    assert again.loop.step is Step.IDLE
    log = records(tmp_path / "log")
    assert [r["event"] for r in log[-3:]] == [Events.TABLE_HELD, Events.ROUND_VOIDED, Events.TABLE_RELEASED]


def test_a_read_that_moves_after_it_was_shown_must_settle_again_before_confirm(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.look({"banker": [BANKER[1], BANKER[0], *BANKER[2:]]}, frames=1)  # two cards swapped: not steady
    assert "banker" not in d.live.snapshot()["dealer"]["zones"]
    assert d.loop.press("confirm").startswith("Banker: no steady read yet")
    d.look({"banker": BANKER})
    assert d.loop.press("confirm") == ""


def test_a_name_goes_only_to_an_unreadable_card_of_the_read_the_dealer_saw(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": [*BANKER[:3], None, *BANKER[4:]]})
    shown = d.live.snapshot()["dealer"]["version"]
    with pytest.raises(DealerInputError, match="the camera read As as card 1"):
        d.loop.name_card("banker", 0, "Qs")
    d.look({"banker": [None, *BANKER[1:]]})  # the read changes before the dealer's tap arrives
    with pytest.raises(DealerInputError, match="the read changed"):
        d.loop.name_card("banker", 3, "9s", version=shown)
    assert "the reads changed" in d.loop.press("confirm", version=shown)
    d.loop.name_card("banker", 0, "As", version=d.live.snapshot()["dealer"]["version"])
    assert d.loop.press("confirm", version=d.live.snapshot()["dealer"]["version"]) == ""


def test_a_card_twice_among_the_seats_holds_before_any_seat_is_recorded(tmp_path):
    d = Dealer(tmp_path / "log")
    d.loop.set_bets([{"seat": 2, "wager": "25"}, {"seat": 5, "wager": "25"}])
    d.loop.press("next")
    d.loop.start_value("rng", RngResult(1, 3))
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look({**SEAT2, "seat5.front": ["Qh", "6d"], "seat5.back": SEAT5["seat5.back"]})
    d.loop.press("confirm")
    assert d.loop.step is Step.HELD and "card Qh seen twice: seat 2 and seat 5" in d.table.held
    assert Events.SEAT_CARDS not in events(tmp_path / "log")


def test_a_banker_misread_found_at_the_seats_is_corrected_and_the_round_goes_on(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look({"seat2.front": ["As", "Jd"], "seat2.back": SEAT2["seat2.back"]})  # the banker's "As" was the Ac
    d.loop.press("confirm")
    assert d.loop.step is Step.HELD
    d.table.correct(d.table.current.round_id, "1042", "4821", "banker's As was the Ac", "banker",
                    cards=["Ac", *BANKER[1:]])
    assert d.loop.step is Step.SEATS
    d.loop.press("confirm")
    assert d.table.current.phase is Phase.SETTLED
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_a_restart_while_held_after_a_power_cut_holds_again(tmp_path):
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.loop.press("supervisor")
    for _ in range(2):  # two power cuts before the supervisor comes
        again = Dealer(tmp_path / "log")
        again.table.resume("t-1")
        assert again.table.current.phase is Phase.START_SEAT and again.loop.step is Step.HELD
    again.table.release("1042", "4821", "checked the layout")
    again.loop.start_value("rng", RngResult(9, 2))
    assert again.loop.step is Step.BANKER


def test_a_correction_cut_off_before_the_new_settlement_leaves_the_round_open(tmp_path):
    from appliance.table.round import interrupted

    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look(SEAT2)
    d.loop.press("confirm")
    d.table.current.correct(2, "misread", "supervisor 1042", front=["Qh", "Td"], back=SEAT2["seat2.back"])
    assert interrupted(tmp_path / "log") == ["t-1"]  # the power went before it was settled again


def test_a_player_banker_who_sets_his_own_hand_lays_it_in_his_seat(tmp_path):
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 2, "wager": "25"}], banker=4, banker_wager="500")
    d.loop.press("next")
    d.loop.start_value("dice", DiceResult(1, (1, 1, 1)))  # rule 14: "The value of the dice cup"
    assert d.loop.wanted_zones() == ["seat4.front", "seat4.back"]
    # his own setting: ace-king in front, the two pair behind (rule 31: never a foul, which is refused)
    d.look({"seat4.front": ["As", "Kd"], "seat4.back": ["9c", "9s", "5h", "5d", "2c"]})
    d.loop.press("confirm")
    banker = next(r for r in records(tmp_path / "log") if r["event"] == Events.BANKER_CARDS)
    assert banker["data"]["set_by"] == "own" and banker["data"]["front"] == ["As", "Kd"]


def test_the_banker_wager_is_shown_again_as_typed_as_the_seats_are(tmp_path):
    """The wagers dialog fills its fields from the prompt: the seats' wagers come back as typed ("25"),
    and so does the Player/Dealer's (it came back as "500.00")."""
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 2, "wager": "25"}], banker=4, banker_wager="500")
    prompt = d.loop.prompt()
    assert prompt["bets"] == [{"seat": 2, "wager": "25"}] and prompt["banker_wager"] == "500"
    d.loop.set_bets([{"seat": 2, "wager": "25"}], banker=4, banker_wager="512.50")
    assert d.loop.prompt()["banker_wager"] == "512.50"


def test_a_device_that_is_not_connected_is_said_so(tmp_path):
    d = Dealer(tmp_path / "log")
    d.roll = lambda: False
    d.loop._request_start = d.roll
    d.loop.set_bets([{"seat": 2, "wager": "25"}])
    assert "not connected" in d.loop.press("next")
    assert d.loop.step is Step.START  # the round is open; NEXT asks again, or a supervisor enters the value


def test_the_prompt_names_zones_as_a_dealer_says_them_and_calls_no_empty_zone_a_foul(tmp_path):
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("greektown"))  # silent on a wrong count: not settled
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look({"seat2.back": SEAT2["seat2.back"]})  # nothing seen in front: CONFIRM would be refused, not a foul
    say = d.live.snapshot()["dealer"]["say"]
    assert say == "Name or enter the hands: Seat 2: 5 cards seen (7 expected)"
    d.look({"seat2.front": ["Qh", "Jd", "8c"], "seat2.back": ["8s", "4h", "4d", "3c"]})  # three in front: a foul
    assert d.live.snapshot()["dealer"]["say"] == "Press CONFIRM to settle (Seat 2 has 3 cards in front: a foul)"
    d.look({"seat2.back": SEAT2["seat2.back"]})
    assert d.loop.press("confirm") == "Seat 2: 5 cards seen, 7 expected: name or enter the hand"
    assert Events.SEAT_CARDS not in events(tmp_path / "log")


def test_next_refuses_a_third_consecutive_bank_and_the_bank_passes_on_clockwise(tmp_path):
    """Capitol: "No player is allowed to bank for more than two consecutive hands"; "The Player/Dealer button
    rotates around clockwise". The wagers stay from round to round, so NEXT alone (the rail's button)
    would open a third: it is refused with the rule named, logged, and the screen offers the next seats."""
    from dealer_screen import ServedTable

    table = ServedTable(tmp_path, "california")  # Capitol, seat 4 banks
    try:
        table.wager_everyone()
        table.play_round()
        table.play_round()
        loop = table.d.loop
        refused = loop.press("next", "dealer (button)")
        assert refused == ("seat 4 may not bank this round: seat 4 has banked 2 consecutive rounds, "
                           "the most allowed (banking.max_consecutive)")
        assert loop.step is Step.IDLE and table.d.table.current.round_id == "t-2"
        prompt = loop.prompt()
        assert [o["seat"] for o in prompt["bank"]["offers"]] == [5, 6, 7, 1, 2, 3, 4]
        assert [o["may"] for o in prompt["bank"]["offers"]] == [True] * 6 + [False]
        assert prompt["bank"]["house"] is False  # rule 1: the casino "does not participate in the play"
        loop.message = ""
        assert loop.prompt()["say"] == "Choose the banker: seat 4 may not bank this round (CONFIRM offers the bank)"
        loop.set_bets([{"seat": n, "wager": "25"} for n in (1, 2, 3, 4, 5, 7)], 6, "500")
        assert loop.press("next") == ""
    finally:
        table.close()
    log = records(tmp_path / "log")
    assert [(r["who"], r["data"]) for r in log if r["event"] == Events.BANK_REFUSED] == [("dealer (button)", {
        "seat": 4, "reason": "Capitol Casino: seat 4 may not bank this round: seat 4 has banked 2 consecutive rounds, "
                             "the most allowed (banking.max_consecutive)"})]
    opened = [r["data"] for r in log if r["event"] == Events.ROUND_OPENED][-1]
    assert opened["banker"] == 6 and opened["bank_passed"] == [5]  # offered first, seat 5 passed
    assert opened["previous_rounds"] == [{"banker": 4, "wagered": list(range(1, 8))}] * 2


def test_backline_wagers_ride_on_a_seats_hand_in_the_live_round(tmp_path):
    """Capitol rule 18: "A seated player cannot stop any backline wagers"; rule 9: "The Player/Dealer cannot
    collect losing bets beyond the amount that has been wagered"; rule 17: "The person wagering the largest
    amount of money will handle the cards". Each wager is entered, recorded, settled and shown on its own."""
    from dealer_screen import ServedTable

    table = ServedTable(tmp_path, "california")  # Capitol, seat 4 banks
    try:
        loop = table.d.loop
        bets = [{"seat": n, "wager": "25"} for n in table.seats]
        bets[0]["backline"] = [{"wager": "40", "by": "Ann"}, {"wager": "10"}]
        with pytest.raises(DealerInputError, match=r"seats\[0\].backline\[0\].wager: 5.00 is under the table minimum 10.00"):
            loop.set_bets([{**bets[0], "backline": [{"wager": "5", "by": "Ann"}]}], 4, "500")
        with pytest.raises(DealerInputError, match=r"seat 1 Ann: 1500.00 is over the table maximum 1000.00"):
            loop.set_bets([{**bets[0], "backline": [{"wager": "1500", "by": "Ann"}]}], 4, "500")
        loop.set_bets(bets, 4, "100")  # the Player/Dealer's action: 100
        assert loop.prompt()["bets"][0]["backline"] == [{"wager": "40", "by": "Ann"}, {"wager": "10", "by": "backline 2"}]
        table.play_round()
        seat1 = table.d.live.snapshot()["seats"]["1"]
        assert [w["by"] for w in seat1["backline"]] == ["Ann", "backline 2"]
    finally:
        table.close()
    log = records(tmp_path / "log")
    opened = next(r["data"] for r in log if r["event"] == Events.ROUND_OPENED)
    assert opened["bets"][0] == {"seat": 1, "wager": "25.00", "backline": [{"by": "Ann", "wager": "40.00"},
                                                                             {"by": "backline 2", "wager": "10.00"}]}
    settled = next(r["data"]["settlement"] for r in log if r["event"] == Events.ROUND_SETTLED)
    seat = next(s for s in settled["seats"] if s["seat"] == 1)
    assert [w["by"] for w in seat["wagers"]] == ["Ann", "seat", "backline 2"]  # the largest first
    assert seat["wager"] == "75.00" and seat1["wagers"] == seat["wagers"]
    assert all(w["collection"] != "0.00" for w in seat["wagers"])  # rule 4: "a collection ... for each wager"
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_a_house_that_seats_every_player_takes_no_backline_wager(tmp_path):
    # Greektown: "All guests have to be seated in order to play."
    from appliance.config import load_house
    d = Dealer(tmp_path / "log", rules=load_house("greektown"))
    with pytest.raises(DealerInputError, match=r"seats\[0\].backline: Greektown Casino takes no wager on a seat "
                                               r"besides the seated player's \(limits.backline\)"):
        d.loop.set_bets([{"seat": 2, "wager": "25", "backline": [{"wager": "25"}]}])
    assert d.loop.prompt()["wager_kinds"] == {"backline": False, "fortune": False}


def test_greektown_gives_the_next_round_to_the_house_after_a_players_bank(tmp_path):
    """Greektown: "The banking option will be offered to each player every other round of play ... the dealer
    will act as banker when all players decline." After seat 3 banks, NEXT with the same wagers is refused
    and only the house is offered the bank; after the house's round the bank is offered again."""
    from dealer_screen import ServedTable

    table = ServedTable(tmp_path, "greektown")  # seat 3 banks from a house-dealer table
    try:
        table.wager_everyone()
        table.play_round()
        loop = table.d.loop
        assert loop.press("next") == ("seat 3 may not bank this round: the bank is offered to players every 2nd "
                                      "round; the house banks this one (banking.offer_every)")
        bank = loop.prompt()["bank"]
        assert bank["house"] is True and not any(o["may"] for o in bank["offers"])
        loop.set_bets([{"seat": n, "wager": "25"} for n in (1, 2, 4, 5, 6)])  # seat 3 sits out: the house banks
        table.banker, table.seats = "dealer", [1, 2, 4, 5, 6]
        table.play_round()
        offers = loop.prompt()["bank"]["offers"]
        assert [(o["seat"], o["may"]) for o in offers] == [(4, True), (5, True), (6, True), (1, True), (2, True),
                                                           (3, False)]
        assert "seat 3 did not wager in the last round the house banked" in offers[-1]["refusal"]
    finally:
        table.close()
    opened = [r["data"] for r in records(tmp_path / "log") if r["event"] == Events.ROUND_OPENED]
    assert opened[1]["banker"] == "dealer" and "previous_rounds" not in opened[1]


def bank_steps(folder):
    """The bank's walk as the log has it: (event, who, the seat or banker, who had passed)."""
    return [(r["event"], r["who"], r["data"].get("seat", r["data"].get("banker")), r["data"].get("passed"))
            for r in records(folder) if r["event"] in (Events.BANK_OFFERED, Events.BANK_PASSED, Events.BANK_TAKEN,
                                                       Events.BANK_OFFER_ENDED)]


def test_the_bank_offered_round_the_table_from_the_rails_buttons(tmp_path):
    """Capitol: "The Player/Dealer button rotates around clockwise"; rule 23: "All seated players are given
    the opportunity to be the Player/Dealer"; "No player is allowed to bank for more than two consecutive
    hands". From the rail alone, between rounds: CONFIRM offers the bank to the next seat that may take it
    (seat 4, who banked twice, is not asked and the rule is named), NEXT passes it on, CONFIRM takes it; the
    ready lamp flashes the number of the seat asked; every step is logged with who and when."""
    from dealer_screen import ServedTable

    rail, table = Rail(), ServedTable(tmp_path, "california")  # Capitol, seat 4 banks
    rail.attach(table.d)
    loop = table.d.loop
    try:
        table.wager_everyone()
        table.play_round()
        table.play_round()
        assert rail.ready_flashes() == 0 and rail.panel.lamp_is_on("ready")  # steady: NEXT opens the round
        rail.press("confirm")
        assert loop.step is Step.BANK and loop.message == ""
        assert loop.prompt()["say"] == "Bank to seat 5? CONFIRM takes it, NEXT passes"
        walk = loop.prompt()["bank"]["walk"]
        assert walk["asked"] == 5 and [(o["seat"], o["refusal"]) for o in walk["not_offered"]] == [
            (4, "seat 4 has banked 2 consecutive rounds, the most allowed (banking.max_consecutive)")]
        assert rail.ready_flashes() == 5
        rail.press("next")  # seat 5 passes
        assert loop.prompt()["bank"]["walk"]["asked"] == 6 and rail.ready_flashes() == 6
        rail.press("confirm")  # seat 6 takes it: its wager is its bank, seat 4's bank goes back on its seat
        assert loop.step is Step.IDLE and loop.message == "" and rail.ready_flashes() == 0
        assert loop.wagers.banker == 6 and loop.wagers.banker_wager == Decimal("25")
        assert [(b.seat, b.wager) for b in loop.wagers.bets] == [(1, 25), (2, 25), (3, 25), (4, 500), (5, 25), (7, 25)]
        table.banker, table.seats = 6, [1, 2, 3, 4, 5, 7]
        table.play_round()  # NEXT on the rail opens it
    finally:
        table.close()
    log = records(tmp_path / "log")
    assert bank_steps(tmp_path / "log") == [
        (Events.BANK_OFFERED, "dealer (button)", 5, []), (Events.BANK_PASSED, "dealer (button)", 5, None),
        (Events.BANK_OFFERED, "dealer (button)", 6, [5]), (Events.BANK_TAKEN, "dealer (button)", 6, [5])]
    offered = next(r for r in log if r["event"] == Events.BANK_OFFERED)
    assert offered["ts"] and offered["data"]["not_offered"][0]["seat"] == 4
    taken = next(r["data"] for r in log if r["event"] == Events.BANK_TAKEN)
    assert taken["banker_wager"] == "25.00"
    opened = [r["data"] for r in log if r["event"] == Events.ROUND_OPENED][-1]
    assert opened["banker"] == 6 and opened["banker_wager"] == "25.00" and opened["bank_passed"] == [5]
    assert {"seat": 4, "wager": "500.00"} in opened["bets"]
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_every_seat_passing_the_bank_at_a_house_with_no_house_bank(tmp_path):
    """Capitol rule 1: the casino "does not participate in the play of the game". Every seat passes: the
    offer ends, the rule named, and the banker stays; seat 1's Fortune-like bonus cannot become a bank."""
    from dealer_screen import ServedTable

    rail, table = Rail(), ServedTable(tmp_path, "california")
    rail.attach(table.d)
    loop = table.d.loop
    try:
        table.wager_everyone()
        rail.press("confirm")  # a new game: from seat 1 (Fortune: "starting at seat #1, continuing clockwise")
        assert loop.prompt()["bank"]["walk"]["asked"] == 1
        for seat in range(1, 8):
            assert loop.prompt()["bank"]["walk"]["asked"] == seat
            rail.press("next")
        assert loop.step is Step.IDLE and loop.wagers.banker == 4 and rail.ready_flashes() == 0
        assert loop.message == ("no seat in play took the bank, and Capitol Casino has no house bank (banking.mode): "
                                "offer the bank again (CONFIRM) or choose the banker on the screen")
    finally:
        table.close()
    steps = bank_steps(tmp_path / "log")
    assert steps[-1] == (Events.BANK_OFFER_ENDED, "dealer (button)", 4, [1, 2, 3, 4, 5, 6, 7])
    assert len(steps) == 15  # seven offers, seven passes, the end


def test_the_house_keeps_the_bank_when_every_player_declines(tmp_path):
    """Greektown: "No player will be required to accept the bank and the dealer will act as banker when all
    players decline"; "The banking option will be offered to each player every other round of play". After
    seat 3's bank no seat may bank: CONFIRM gives the house the bank at once, each seat's rule named; after
    the house's round every seat is asked in turn, all pass, and the house keeps it."""
    from dealer_screen import ServedTable

    rail, table = Rail(), ServedTable(tmp_path, "greektown")  # seat 3 banks from a house-dealer table
    rail.attach(table.d)
    loop = table.d.loop
    try:
        table.wager_everyone()
        table.play_round()
        rail.press("confirm")
        assert loop.step is Step.IDLE and loop.message == "" and loop.wagers.banker == "dealer"
        assert [(b.seat, b.wager) for b in loop.wagers.bets] == [(n, 500 if n == 3 else 25) for n in range(1, 7)]
        table.banker, table.seats = "dealer", list(range(1, 7))
        table.play_round()
        rail.press("confirm")
        asked = []
        while loop.step is Step.BANK:
            asked.append(loop.prompt()["bank"]["walk"]["asked"])
            rail.press("next")
        # the offer moves on from the last Player/Dealer (seat 3): he is asked last, not first again
        assert asked == [4, 5, 6, 1, 2, 3] and loop.wagers.banker == "dealer" and loop.message == ""
    finally:
        table.close()
    log = records(tmp_path / "log")
    kept = [r for r in log if r["event"] == Events.BANK_TAKEN]
    assert [(r["data"]["banker"], r["data"]["passed"]) for r in kept] == [("dealer", []), ("dealer", asked)]
    assert {o["seat"]: o["refusal"] for o in kept[0]["data"]["not_offered"]}[1] == (
        "the bank is offered to players every 2nd round; the house banks this one (banking.offer_every)")
    assert all(r["who"] == "dealer (button)" for r in kept)


def test_a_seat_with_a_bonus_bet_is_refused_the_bank_until_the_wagers_change(tmp_path):
    """Fortune rule 2: "Each player in turn has the opportunity to become the Player/Dealer". The bank is
    taken with the seat's own wager: a seat with a Fortune bet (a bonus on its own hand) is refused, with
    the reason, and the offer stands; the wagers entered on the screen end the offer, logged."""
    from dealer_screen import ServedTable

    table = ServedTable(tmp_path, "fortune")
    loop = table.d.loop
    try:
        bets = [{"seat": n, "wager": "25", **({"fortune": "5"} if n == 1 else {})} for n in table.seats]
        loop.set_bets(bets, 4, "500")
        assert loop.press("confirm", "dealer (button)") == ""
        assert loop.press("confirm", "dealer (button)") == (
            "seat 1 takes the bank with the wager on its seat alone (its bonus and backline wagers have no hand "
            "to ride on): change the wagers on the screen")
        assert loop.step is Step.BANK and loop.prompt()["bank"]["walk"]["asked"] == 1
        loop.set_bets([b for b in bets if b["seat"] != 2], 2, "300", who="dealer (screen)")
        assert loop.step is Step.IDLE and loop.wagers.banker == 2
    finally:
        table.close()
    assert bank_steps(tmp_path / "log")[-1] == (Events.BANK_OFFER_ENDED, "dealer (screen)", 2, [])


def test_the_dealer_declares_a_misdeal_for_a_reason_the_house_lists(tmp_path):
    """Capitol rule 29: "A misdeal will be declared if one of the following occurs: 1. Joker or Ace is boxed
    or exposed. 2. Two or more cards are boxed or exposed." The dealer's misdeal takes the house's reason
    only, voids the round in play as the supervisor's does, and the next NEXT deals again."""
    from appliance.config import load_house
    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 2, "wager": "25"}], 4, "100")
    with pytest.raises(DealerInputError, match="no round is being dealt"):
        d.loop.misdeal("joker or ace boxed or exposed", "dealer (screen)")
    d.loop.press("next")
    with pytest.raises(ValueError, match="misdeal reason 'a card fell' is not one of Capitol Casino's: joker or "
                                         "ace boxed or exposed; two or more cards boxed or exposed"):
        d.loop.misdeal("a card fell", "dealer (screen)")
    with pytest.raises(DealerInputError, match="round t-0 is no longer in play"):
        d.loop.misdeal("joker or ace boxed or exposed", "dealer (screen)", round_id="t-0")
    d.loop.press("supervisor", "dealer (screen)")
    with pytest.raises(DealerInputError, match="the table is held"):
        d.loop.misdeal("joker or ace boxed or exposed", "dealer (screen)")
    d.table.release("1042", "4821", "seen")
    d.loop.misdeal("Two or more cards boxed or exposed", "dealer (screen)", round_id="t-1")
    assert d.table.current.phase is Phase.VOIDED and d.loop.step is Step.IDLE
    voided = records(tmp_path / "log")[-1]
    assert (voided["event"], voided["who"], voided["data"]) == (
        Events.ROUND_VOIDED, "dealer (screen)", {"round": "t-1", "reason": "misdeal: two or more cards boxed or exposed"})
    d.loop.press("next")
    assert d.table.current.round_id == "t-2"


def test_the_house_start_method_is_the_only_one_taken(tmp_path):
    """Capitol rule 14: "The value of the dice cup determines which player receives the first hand"; Safari
    starts with the electronic device (chosen: config/houses/README.md). A value by the other method is
    refused as ``appliance start-seat`` refuses it, logged with the reason, and the round waits for the
    house's own."""
    from appliance.config import load_house

    capitol = Dealer(tmp_path / "capitol", rules=load_house("capitol"))
    capitol.loop.set_bets([{"seat": 2, "wager": "25"}], 4, "100")
    capitol.loop.press("next")
    capitol.loop.start_value("rng", RngResult(1, 3))
    assert capitol.loop.step is Step.START
    assert capitol.loop.prompt()["say"] == ("round t-1: Capitol Casino: this house starts with the dice cup, not an "
                                            "electronic device (start_seat.methods)")
    refused = records(tmp_path / "capitol")[-1]
    assert (refused["event"], refused["data"]["used"], refused["data"]["refused"]) == (
        Events.DEVICE_VALUE, False, capitol.loop.message)
    capitol.loop.start_value("dice", DiceResult(2, (2, 5, 6)))
    assert capitol.loop.step is Step.BANKER
    assert records(tmp_path / "capitol")[-1]["data"]["dice"] == [2, 5, 6]

    safari = Dealer(tmp_path / "safari", rules=load_house("safari"))
    safari.loop.set_bets([{"seat": 2, "wager": "25"}])
    safari.loop.press("next")
    safari.loop.start_value("dice", DiceResult(1, (2, 5, 6)))
    assert safari.loop.step is Step.START and safari.loop.message == (
        "round t-1: Safari Casino (Atlantic City rules): this house starts with an electronic device, not dice "
        "(start_seat.methods)")
    safari.loop.start_value("rng", RngResult(2, 3))
    assert safari.loop.step is Step.BANKER
    assert replay(tmp_path / "capitol", KEY)["differences"] == replay(tmp_path / "safari", KEY)["differences"] == []


def test_a_misdeal_once_the_banker_and_players_hands_are_open_is_the_supervisors(tmp_path):
    """General rules: "Once the banker's cards are exposed, players may not touch their cards"; Capitol: the
    Player/Dealer's hand is opened "After all players have set their hands". Until the banker's hand is
    accepted the dealer declares a misdeal alone; after, the deal is complete and every hand face up: it
    takes a supervisor's id and PIN, and is logged as the supervisor's."""
    from appliance.table.dealer import MisdealNeedsPin
    from appliance.table.supervisor import PinError

    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look(SEAT2)
    assert d.loop.step is Step.SEATS
    logged = records(tmp_path / "log")
    with pytest.raises(MisdealNeedsPin, match="round t-1: the deal is complete .the banker's hand is open.: a "
                                              "misdeal now needs the supervisor's PIN"):
        d.loop.misdeal("two or more cards boxed or exposed", "dealer (screen)", round_id="t-1")
    with pytest.raises(PinError):
        d.loop.misdeal("two or more cards boxed or exposed", "dealer (screen)", supervisor="1042", pin="0000")
    assert [r for r in records(tmp_path / "log") if r["event"] != Events.SUPERVISOR_REFUSED] == logged
    d.loop.misdeal("two or more cards boxed or exposed", "dealer (screen)", supervisor="1042", pin="4821")
    voided = records(tmp_path / "log")[-1]
    assert (voided["event"], voided["who"], voided["data"]["reason"]) == (
        Events.ROUND_VOIDED, "supervisor 1042", "misdeal: two or more cards boxed or exposed")
    assert d.loop.step is Step.IDLE
    d.open_round()  # while the banker's hand is still being read, the deal goes on: the dealer's own
    d.loop.misdeal("a hand dealt with the wrong number of cards", "dealer (screen)")
    assert records(tmp_path / "log")[-1]["who"] == "dealer (screen)"


def test_a_seat_read_with_the_wrong_count_is_that_players_foul_and_the_other_seats_settle(tmp_path):
    """Capitol rule 27: "An individual has a FOULED hand if ... The player does not hold exactly five cards in
    the back hand"; rule 24: "holding out of cards will foul a hand and the wager will be forfeited". Seat 1 laid
    six cards: CONFIRM settles it as a foul, recorded with the count and the rule's words, and seat 2 settles as
    it lies; the Player/Dealer's own hand of six cards is still refused (a misdeal, rule 29, not a foul)."""
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 1, "wager": "25"}, {"seat": 2, "wager": "25"}], 4, "100")
    d.loop.press("next")
    d.loop.start_value("dice", DiceResult(1, (1, 1, 1)))
    d.look({"seat4.front": ["5h", "5d"], "seat4.back": ["As", "Kd", "9c", "9s"]})
    assert d.loop.press("confirm") == "The banker: 6 cards seen, 7 expected: name or enter the hand"
    d.look({"seat4.front": ["5h", "5d"], "seat4.back": ["As", "Kd", "9c", "9s", "2c"]})
    assert d.loop.press("confirm") == ""
    d.look({"seat1.front": ["Th", "6d"], "seat1.back": ["Ks", "Kh", "7d", "7h"], **SEAT2})
    assert d.loop.prompt()["say"] == "Press CONFIRM to settle (Seat 1 has 6 cards, not 7: a foul)"
    assert d.loop.press("confirm") == ""
    assert d.table.current.phase is Phase.SETTLED
    log = records(tmp_path / "log")
    seat1 = next(r["data"] for r in log if r["event"] == Events.SEAT_CARDS and r["data"]["seat"] == 1)
    assert seat1["count"] == 6 and seat1["foul"].startswith('Rule 27: "An individual has a FOULED hand if')
    settled = {s["seat"]: s for s in log[-1]["data"]["settlement"]["seats"]}
    assert (settled[1]["result"], settled[1]["net"]) == ("foul", "-26.00")  # the wager and its collection
    assert settled[1]["reason"] == "fouled: back has 4 cards, not 5"
    assert settled[2]["result"] != "foul"
    assert d.live.snapshot()["seats"]["1"]["count"] == 6
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_a_player_dealers_fouled_setting_is_stopped_before_play(tmp_path):
    """Capitol rule 31: "The casino dealer cannot permit the Player/Dealer to set his hand foul." The
    Player/Dealer lays the aces in front of a back of one pair: CONFIRM refuses it, nothing is recorded, and
    the hand set again is played as laid (never silently reset by the house way at settlement)."""
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 2, "wager": "25"}], 4, "100")
    d.loop.press("next")
    d.loop.start_value("dice", DiceResult(1, (1, 1, 1)))
    d.look({"seat4.front": ["As", "Ad"], "seat4.back": ["Kd", "9c", "9s", "5h", "2c"]})
    assert d.loop.press("confirm") == (
        "round t-1: the Player/Dealer's setting is fouled (front outranks back: Pair of aces over Pair of nines): "
        "the dealer cannot permit it (fouls.banker): set the hand again")
    assert d.loop.step is Step.BANKER and Events.BANKER_CARDS not in events(tmp_path / "log")
    d.look({"seat4.front": ["9c", "9s"], "seat4.back": ["As", "Ad", "Kd", "5h", "2c"]})
    assert d.loop.press("confirm") == ""
    banker = next(r["data"] for r in records(tmp_path / "log") if r["event"] == Events.BANKER_CARDS)
    assert (banker["set_by"], banker["front"]) == ("own", ["9c", "9s"])


def test_the_bank_offer_moves_on_round_the_table_under_the_general_rules(tmp_path):
    """General rules: "The house usually offers the bank to each seat in rotation" (no limit on consecutive
    banks): after seat 3's bank the offer starts at seat 4, and seat 3 is asked last, every round."""
    from dealer_screen import ServedTable

    table = ServedTable(tmp_path, "general-bank")  # seat 3 banks at a house-dealer table
    loop = table.d.loop
    try:
        table.wager_everyone()
        for _ in range(3):
            table.play_round()
            assert loop.press("confirm") == ""
            assert loop.prompt()["bank"]["walk"]["asked"] == 4
            assert [o["seat"] for o in loop.prompt()["bank"]["offers"]] == [4, 5, 6, 1, 2, 3]
            while loop.prompt()["bank"]["walk"]["asked"] != 3:
                loop.press("next")
            assert loop.press("confirm") == "" and loop.wagers.banker == 3  # seat 3, asked last, takes it again
    finally:
        table.close()


def capitol_seats(tmp_path):
    """Capitol, the Player/Dealer in seat 4 with a weak hand of his own; seats 1 and 2 wager 25: the seats are next."""
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 1, "wager": "25"}, {"seat": 2, "wager": "25"}], 4, "100")
    d.loop.press("next")
    d.loop.start_value("dice", DiceResult(1, (1, 1, 1)))
    d.look({"seat4.front": ["5h", "3d"], "seat4.back": ["Kd", "9c", "7s", "4h", "2c"]})
    assert d.loop.press("confirm") == ""
    return d


ONE_PILE = ["As", "Ad", "Kh", "Kc", "Qs", "Jd", "8h"]
SEAT1 = {"seat1.front": ["Th", "6d"], "seat1.back": ["Ks", "Qh", "7d", "7h", "3c"]}


def test_a_hand_laid_in_one_pile_is_set_by_the_house_way_at_capitol(tmp_path):
    """Capitol: "If all 7 cards are placed face down in one pile, it will be set as houseway" (issue 38 item 1:
    the live table forfeited it, -26 instead of +24). Seat 2's seven cards lie in its back zone and none in front:
    CONFIRM records them set by the house way, with the rule and why, and settles the seat as so set."""
    d = capitol_seats(tmp_path)
    d.look({**SEAT1, "seat2.front": [], "seat2.back": ONE_PILE})
    assert d.loop.prompt()["say"] == "Press CONFIRM to settle (Seat 2 in one pile: set by the house way)"
    assert d.loop.press("confirm") == ""
    log = records(tmp_path / "log")
    seat2 = next(r["data"] for r in log if r["event"] == Events.SEAT_CARDS and r["data"]["seat"] == 2)
    way = decide(parse_cards(ONE_PILE), d.table.rules.house_way, d.table.rules.evaluator())
    assert (seat2["set_by"], seat2["why"], seat2["rule"]) == ("house-way", "one pile", way[4])
    assert sorted(seat2["front"]) == sorted(str(c) for c in way[0])
    assert seat2["laid"] == {"front": [], "back": ONE_PILE}
    settled = {s["seat"]: s for s in log[-1]["data"]["settlement"]["seats"]}
    assert (settled[2]["result"], settled[2]["net"]) == ("win", "24.00")  # the wager less its collection
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_a_hand_laid_in_one_pile_is_a_foul_where_the_house_says_so(tmp_path):
    """General rules: "A hand set ... with the wrong number of cards in either part, is a foul"."""
    d = Dealer(tmp_path / "log")
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look({"seat2.front": [], "seat2.back": ["Ah", "Ad", "Kh", "Kc", "Qs", "Jd", "8h"]})
    assert d.loop.prompt()["say"] == "Press CONFIRM to settle (Seat 2 has 0 cards in front: a foul)"
    assert d.loop.press("confirm") == ""
    assert records(tmp_path / "log")[-1]["data"]["settlement"]["seats"][0]["result"] == "foul"


def test_a_player_asks_for_the_house_way_and_the_dealer_enters_it(tmp_path):
    """Capitol: players "may request their hands to be set as houseway". The dealer enters seat 2's request;
    the hand it laid (a foul: aces in front of kings) is set by the house way, recorded with who entered the
    request; a house that does not set hands on request refuses it."""
    d = capitol_seats(tmp_path)
    with pytest.raises(DealerInputError, match="seat 3: no hand of that seat is being read now"):
        d.loop.ask_house_way(3, "dealer 7")
    d.look({**SEAT1, "seat2.front": ["As", "Ad"], "seat2.back": ["Kh", "Kc", "Qs", "Jd", "8h"]})
    assert d.loop.prompt()["house_way_seats"] == [1, 2]  # the seats the screen offers the request for
    d.loop.ask_house_way(2, "dealer 7")
    assert d.loop.prompt()["house_way_asked"] == [2]
    assert d.loop.prompt()["say"] == "Press CONFIRM to settle (Seat 2 asked for the house way)"
    assert d.loop.press("confirm", "dealer 7") == ""
    log = records(tmp_path / "log")
    seat2 = next(r for r in log if r["event"] == Events.SEAT_CARDS and r["data"]["seat"] == 2)
    assert (seat2["data"]["why"], seat2["data"]["requested_by"], seat2["who"]) == ("request", "dealer 7", "dealer 7")
    assert seat2["data"]["laid"] == {"front": ["As", "Ad"], "back": ["Kh", "Kc", "Qs", "Jd", "8h"]}
    settled = {s["seat"]: s for s in log[-1]["data"]["settlement"]["seats"]}
    assert (settled[2]["result"], settled[2]["net"]) == ("win", "24.00")
    assert replay(tmp_path / "log", KEY)["differences"] == []
    # the next round's seat 2 is not asked for unless asked again
    d.loop.press("next")
    assert d.loop.prompt()["house_way_asked"] == [] and d.loop.prompt()["house_way_seats"] == []

    from appliance.config import load_house
    g = Dealer(tmp_path / "greektown", rules=load_house("greektown"))
    g.open_round()
    g.look({"banker": BANKER})
    g.loop.press("confirm")
    assert g.loop.prompt()["house_way_seats"] == []
    with pytest.raises(DealerInputError, match="player_hands.house_way_on_request"):
        g.loop.ask_house_way(2)


def test_the_simulated_dealer_passes_on_a_bank_offered_by_a_late_confirm(tmp_path):
    """The simulated dealer presses the rail's CONFIRM, and the panel's thread takes the press a moment later:
    a second CONFIRM taken after the first settled the round offers the bank between rounds. The simulated
    dealer passes it on, seat by seat, and deals on (it used to wait for ever: `run --simulate` hung)."""
    from appliance.table.simulation import SimulatedDealer

    d = Dealer(tmp_path / "log")
    d.loop.set_bets([{"seat": 2, "wager": "25"}, {"seat": 5, "wager": "25"}])
    d.loop.press("confirm")  # the late CONFIRM
    assert d.loop.step is Step.BANK and d.loop.wagers.walk.asked == 2
    dealer = SimulatedDealer(d.loop, lambda button: d.loop.press(button, "dealer (simulated)"), lambda laid: None)
    for _ in range(5):
        if d.loop.step is not Step.BANK:
            break
        dealer.act()
    assert d.loop.step is Step.IDLE and d.loop.wagers.walk is None
    steps = [(r["event"], r["data"].get("seat")) for r in records(tmp_path / "log")
             if r["event"] in (Events.BANK_OFFERED, Events.BANK_PASSED)]
    assert steps == [(Events.BANK_OFFERED, 2), (Events.BANK_PASSED, 2), (Events.BANK_OFFERED, 5),
                     (Events.BANK_PASSED, 5)]


# Issue 38 item 7: Capitol and Safari are silent on the same pair in front and behind, and their Atlantic City
# chart says of four aces "Aces: Always split"; only the general rules make it a foul.
HOUSE_BANKER = ["Kd", "Qs", "9c", "8h", "7s", "4h", "2c"]
FOUR_ACES_SPLIT = {"seat2.front": ["As", "Ah"], "seat2.back": ["Ad", "Ac", "9d", "5c", "2s"]}


@pytest.mark.parametrize("house, result, net", [("capitol", "win", "24.00"), ("safari", "win", "23.75"),
                                                ("general", "foul", "-25.00")])
def test_four_aces_split_in_front_and_behind_as_the_houses_chart_splits_them(tmp_path, house, result, net):
    """The seat splits four aces, a pair in front and the same pair behind: at the live table Capitol and
    Safari settle it as laid (it wins both hands), the general rules ("a pair of aces ... two pair or
    better") as a foul. At Capitol a player who asks for the house way has four aces split so too."""
    from appliance.config import load_house

    if house == "capitol":
        d = capitol_seats(tmp_path)
        d.look({**SEAT1, **FOUR_ACES_SPLIT})
    else:
        d = Dealer(tmp_path / "log", rules=load_house(house))
        d.open_round()
        d.look({"banker": HOUSE_BANKER})
        assert d.loop.press("confirm") == ""
        d.look(FOUR_ACES_SPLIT)
    assert d.loop.press("confirm") == ""
    seat2 = next(s for s in records(tmp_path / "log")[-1]["data"]["settlement"]["seats"] if s["seat"] == 2)
    assert (seat2["result"], seat2["net"]) == (result, net), seat2["reason"]
    assert replay(tmp_path / "log", KEY)["differences"] == []
    if house == "capitol":
        d.loop.press("next")
        d.loop.start_value("dice", DiceResult(2, (1, 1, 1)))
        d.look({"seat4.front": ["5h", "3d"], "seat4.back": ["Kd", "9c", "7s", "4h", "2c"]})
        assert d.loop.press("confirm") == ""
        d.look({**SEAT1, "seat2.front": ["9d", "5c"], "seat2.back": ["As", "Ah", "Ad", "Ac", "2s"]})
        d.loop.ask_house_way(2, "dealer 7")
        assert d.loop.press("confirm") == ""
        asked = [r["data"] for r in records(tmp_path / "log") if r["event"] == Events.SEAT_CARDS and
                 r["data"]["seat"] == 2][-1]
        assert [c[0] for c in asked["front"]] == ["A", "A"] and asked["why"] == "request", asked  # split


@pytest.mark.slow
def test_a_house_whose_way_is_a_chart_file_sets_the_dealers_hand_by_it_at_the_table(tmp_path):
    """Issue 38 item 8: a house file naming a chart (here the Golden Nugget chart as a file) plays at the live
    table: the house dealer's hand is set by the chart, recorded with its line, and the log replays with the
    chart recorded in the round's rules, the chart's file gone."""
    import shutil

    from appliance.config import chart_file, load_house, shipped_config_dir

    (tmp_path / "houses").mkdir()
    (tmp_path / "house_ways").mkdir()
    shutil.copy(chart_file("golden-nugget"), tmp_path / "house_ways" / "nugget.toml")
    text = (shipped_config_dir() / "houses" / "general.toml").read_text()
    (tmp_path / "houses" / "general.toml").write_text(
        text.replace('house_way = "trump-plaza"', 'house_way = "../house_ways/nugget.toml"'))
    rules = load_house(str(tmp_path / "houses" / "general.toml"))
    d = Dealer(tmp_path / "log", rules=rules)
    banker = ["Th", "9h", "8h", "7h", "6h", "Jc", "2h"]  # a straight flush the chart breaks for a flush behind
    d.open_round()
    d.look({"banker": banker})
    assert d.loop.press("confirm") == ""
    d.look(SEAT2)
    assert d.loop.press("confirm") == ""
    log = records(tmp_path / "log")
    dealt = next(r["data"] for r in log if r["event"] == Events.BANKER_CARDS)
    chart = decide(parse_cards(banker), "golden-nugget", rules.evaluator())
    assert (dealt["set_by"], sorted(dealt["front"]), dealt["rule"]) == (
        "house-way", sorted(str(c) for c in chart[0]), chart[4])
    assert dealt["rule"].startswith("Play the straight or flush over the straight flush")
    opened = next(r["data"] for r in log if r["event"] == Events.ROUND_OPENED)
    assert opened["rules"]["house"]["house_way_chart"]["chart"]["name"] == "Golden Nugget"
    (tmp_path / "house_ways" / "nugget.toml").unlink()
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_the_choices_where_capitols_document_is_silent_at_the_table(tmp_path):
    """Issue 38 item 9 (config/houses/README.md): a wager the Player/Dealer's action does not reach keeps the
    collection taken in advance (rule 4), and each wager on a seat's hand is its own circle's, held to the
    table maximum on its own (rule 5): a seat's 1000 with a backline 1000 is taken, a backline 1500 is not."""
    from appliance.config import load_house

    d = Dealer(tmp_path / "log", rules=load_house("capitol"))
    d.loop.set_bets([{"seat": 1, "wager": "1000", "backline": [{"wager": "1000", "by": "Ann"}]}], 4, "100")
    with pytest.raises(DealerInputError, match=r"seat 1 Ann: 1500.00 is over the table maximum 1000.00"):
        d.loop.set_bets([{"seat": 1, "wager": "1000", "backline": [{"wager": "1500", "by": "Ann"}]}], 4, "100")
    d.loop.set_bets([{"seat": 1, "wager": "25"}, {"seat": 2, "wager": "25"}], 4, "25")  # action for one seat
    d.loop.press("next")
    d.loop.start_value("dice", DiceResult(1, (1, 1, 1)))
    d.look({"seat4.front": ["5h", "3d"], "seat4.back": ["Kd", "9c", "7s", "4h", "2c"]})
    assert d.loop.press("confirm") == ""
    d.look({**SEAT1, "seat2.front": ["Qs", "Jd"], "seat2.back": ["8c", "8s", "4s", "4d", "3h"]})
    assert d.loop.press("confirm") == ""
    seats = {s["seat"]: s for s in records(tmp_path / "log")[-1]["data"]["settlement"]["seats"]}
    assert [(seats[1]["result"], seats[1]["net"]), (seats[2]["result"], seats[2]["action"], seats[2]["net"])] == [
        ("win", "24.00"), ("no_action", "0.00", "-1.00")]  # seat 2: its collection, 1.00 on 25, is kept
    assert replay(tmp_path / "log", KEY)["differences"] == []


def test_the_choices_where_fortunes_document_is_silent_at_the_table(tmp_path):
    """Issue 38 item 9 at Fortune: a collection per circle (each wager on a seat's hand pays its own fee); a
    royal flush made with the joker pays the "ROYAL FLUSH 100 to 1" line, a natural 7-card straight flush its
    best five-card line (50 to 1) and the Envy's 1st; the Envy amounts are the installation's (fortune.toml)."""
    from appliance.config import load_house

    rules = load_house("fortune")
    d = Dealer(tmp_path / "log", rules=rules)
    d.loop.set_bets([{"seat": 1, "wager": "25", "fortune": "5", "backline": [{"wager": "25", "by": "Ann"}]},
                     {"seat": 2, "wager": "25", "fortune": "5"}], 4, "500")
    d.loop.press("next")
    d.loop.start_value("rng", RngResult(1, 1))
    d.look({"seat4.front": ["Kc", "Qd"], "seat4.back": ["As", "Ad", "8s", "5s", "2s"]})
    assert d.loop.press("confirm") == ""
    d.look({"seat1.front": ["2c", "3d"], "seat1.back": ["Th", "Jh", "Qh", "Kh", "Jk"],   # a royal with the joker
            "seat2.front": ["3h", "4h"], "seat2.back": ["5h", "6h", "7h", "8h", "9h"]})  # 3h to 9h: seven cards
    assert d.loop.press("confirm") == ""
    seats = {s["seat"]: s for s in records(tmp_path / "log")[-1]["data"]["settlement"]["seats"]}
    assert [(w["by"], w["collection"]) for w in seats[1]["wagers"]] == [("seat", "1.00"), ("Ann", "1.00")]
    assert seats[1]["collection"] == "2.00"
    assert (seats[1]["bonus"]["fortune_line"], seats[1]["bonus"]["fortune"]) == ("royal-flush", "500.00")
    assert (seats[2]["bonus"]["fortune_line"], seats[2]["bonus"]["fortune"]) == ("straight-flush", "250.00")
    envy = rules.envy.pays
    assert Decimal(seats[1]["bonus"]["envy"]) == envy["seven-card-straight-flush"] == Decimal("5000.00")
    assert Decimal(seats[2]["bonus"]["envy"]) == envy["royal-flush"]  # seat 1's royal, the Envy's 5th
    assert replay(tmp_path / "log", KEY)["differences"] == []
