"""The one fold of a round's records (appliance/records/round_state.py): every round event, the phases by
the transition table, and a log read as it stands (records missing, a reader that joined mid-round)."""

from __future__ import annotations

import copy

from appliance.records.events import ROUND_STEPS, Events
from appliance.records.round_state import ASIDES, ARRIVES, TRANSITIONS, Phase, RoundState, next_phase

BANKER = ["As", "Kd", "9c", "9s", "5h", "5d", "2c"]
OPENED = {"house": "greektown", "rules": {"house": {}}, "rules_sha256": "ab", "banker": "dealer",
          "banker_wager": None, "bets": [{"seat": 1, "wager": "20.00"}, {"seat": 3, "wager": "10.00",
                                                                           "bonus": {"fortune": "5.00"}}]}


def records(*steps: tuple[str, dict]) -> list[dict]:
    return [{"seq": n, "ts": f"2026-11-29T11:00:{n:02d}.000000+00:00", "who": "dealer", "gaming_day": "2026-11-29",
             "event": event, "data": {"round": "r-1", **data}} for n, (event, data) in enumerate(steps, 1)]


def fold(logged: list[dict], state: RoundState | None = None) -> RoundState:
    state = state or RoundState("r-1")
    for record in logged:
        state = state.fold(record)
    return state


SETTLEMENT = {"totals": {"banker_net": "-10.00", "commission": "0.50", "collection": "0.00"}, "seats": []}
HELD_THEN_SET = records(
    (Events.ROUND_OPENED, OPENED),
    (Events.START_SEAT, {"source": "rng", "value": 4, "dice": None, "first_hand": 4, "seq": 9}),
    (Events.BANKER_CARDS, {"cards": BANKER, "front": ["9c", "9s"], "back": ["As", "Kd", "5h", "5d", "2c"],
                           "rule": "two pair", "set_by": "house-way", "set_checked": True, "read": [],
                           "images": ["a"]}),
    (Events.BANKER_SET_HELD, {"front": ["As", "Kd"], "back": ["9c", "9s", "5h", "5d", "2c"], "differs": "not the way",
                              "house_way": {"front": ["9c", "9s"]}, "images": ["b"]}),
    (Events.BANKER_SET, {"front": ["As", "Kd"], "back": ["9c", "9s", "5h", "5d", "2c"], "set_by": "dealer",
                         "reason": "the player agreed", "images": ["c"]}),
    (Events.READ_CONFIRMED, {"zone": "seat1.front", "position": 0, "card": "Qh"}),
    (Events.SEAT_CARDS, {"seat": 1, "front": ["Qh", "Jd"], "back": ["2s", "3s", "4s", "8h", "8d"], "images": ["d"]}),
    (Events.SEAT_CARDS, {"seat": 3, "front": ["Th"], "back": ["Tc", "6s", "7s", "Js", "Ks"], "count": 6,
                         "foul": "a hand of other than seven cards is a foul"}),
    (Events.ROUND_SETTLED, {"settlement": SETTLEMENT}),
)


def test_every_round_step_is_folded():
    """The fold knows each of a round's records (the clock books the same set to a gaming day)."""
    for event in ROUND_STEPS:
        state = RoundState("r-1").fold(records((event, {}))[0])  # an empty record changes no phase wrongly
        assert state.phase in (ARRIVES.get(event, Phase.NEW), Phase.NEW)
    assert ASIDES <= ROUND_STEPS and set(ARRIVES) <= ROUND_STEPS


def test_a_held_setting_let_stand_then_settled():
    state = fold(HELD_THEN_SET)
    assert state.phase is Phase.SETTLED and state.status == "settled" and state.closed
    assert state.house == "greektown" and state.opened.seq == 1 and state.start.count == 4
    b = state.banker
    assert b.cards == BANKER and b.set_checked and b.held is None and len(b.holds) == 1
    assert (b.setting.front, b.setting.set_by, b.accepted.reason) == (["As", "Kd"], "dealer", "the player agreed")
    assert b.shown == (["As", "Kd"], ["9c", "9s", "5h", "5d", "2c"]) and b.images == ["a", "b", "c"]
    assert [s.bet["wager"] for s in state.seats.values()] == ["20.00", "10.00"] and state.bets[1]["bonus"]
    assert state.seats[3].count == 6 and state.seats[1].read.images == ["d"]
    assert state.confirmations[0].card == "Qh" and state.confirmations[0].stamp.seq == 6
    assert state.settlement == SETTLEMENT and state.settled.gaming_day == "2026-11-29"


def test_a_banker_correction_after_the_settlement_reopens_the_round():
    """The bug of the separate folds: after a banker correction the round engine said ``players``, the
    live view and the pit ``settled``. There is one answer now: open again, until it is settled again."""
    corrected = records((Events.READ_CORRECTED, {"seat": "banker", "cards": BANKER, "front": ["As", "Kd"],
                                                 "back": ["9c", "9s", "5h", "5d", "2c"], "set_by": "dealer",
                                                 "reason": "misread"}))
    state = fold(corrected, fold(HELD_THEN_SET))
    assert state.phase is Phase.PLAYERS and state.status == "open" and state.settlement is None
    assert state.corrections[0].to_json() == {k: v for k, v in corrected[0]["data"].items() if k != "round"}
    assert fold(records((Events.ROUND_SETTLED, {"settlement": SETTLEMENT})), state).status == "settled"


def test_a_seat_corrected_drops_its_wrong_count():
    state = fold(records((Events.READ_CORRECTED, {"seat": 3, "front": ["Th", "Tc"], "back": ["6s", "7s", "Js", "Ks",
                                                                                           "2d"], "reason": "x"})),
                 fold(HELD_THEN_SET))
    assert state.seats[3].front == ["Th", "Tc"] and state.seats[3].count is None
    assert state.seats[3].read.front == ["Th"]  # as read, for the dispute


def test_a_void_ends_the_round_for_good():
    state = fold(records((Events.ROUND_OPENED, OPENED), (Events.ROUND_VOIDED, {"reason": "misdeal: a card exposed"}),
                         (Events.READ_CORRECTED, {"seat": 1, "front": [], "back": []})))
    assert state.phase is Phase.VOIDED and state.void.reason == "misdeal: a card exposed" and state.void.stamp.seq == 2


def test_a_log_is_read_as_it_stands():
    """A record missing (a dispute's view of an edited log), or a reader that joined mid-round: each step
    lands where it leads; nothing is refused."""
    missing = [r for r in HELD_THEN_SET if r["event"] != Events.SEAT_CARDS]
    assert fold(missing).phase is Phase.SETTLED
    joined = RoundState("r-1", phase=Phase.SETTLED).fold(records((Events.READ_CORRECTED, {"seat": 2}))[0])
    assert joined.phase is Phase.PLAYERS and joined.seats[2].front is None
    assert next_phase(Phase.NEW, Events.TABLE_FLAGGED) is Phase.NEW


def test_the_table_reaches_every_phase_and_only_a_void_or_settlement_closes():
    reached = {Phase.NEW} | {to for steps in TRANSITIONS.values() for to in steps.values()}
    assert reached == set(Phase)
    assert not TRANSITIONS[Phase.VOIDED] and Events.ROUND_VOIDED not in TRANSITIONS[Phase.SETTLED]


def test_a_copy_folds_apart_from_the_original():
    """The round engine checks a correction on a copy before it records it."""
    state = fold(HELD_THEN_SET[:-1])
    trial = copy.deepcopy(state).fold({"event": Events.READ_CORRECTED, "data": {"seat": 1, "front": ["2d", "2h"],
                                                                               "back": state.seats[1].back}})
    assert trial.seats[1].front == ["2d", "2h"] and state.seats[1].front == ["Qh", "Jd"] and not state.corrections
