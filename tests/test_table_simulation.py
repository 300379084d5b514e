"""The simulated dealer (appliance/table/simulation.py) at the dealer's loop, as a dealer at the table: it
waits for the camera to see the cards it laid, names only the cards the camera cannot read, and resets
the banker's hand when a setting is held. Played move by move, the camera looking between the moves."""

import itertools
from pathlib import Path

import pytest

from appliance.audit.log import AuditLog, records
from appliance.config import load_house, read_toml
from appliance.devices.protocol import RngResult
from appliance.table.dealer import DealerInputError, DealerLoop, Step
from appliance.table.eye import SeenCard, TableTop
from appliance.table.round import Events
from appliance.table.simulation import SimulatedDealer
from appliance.table.table import Table

KEY = b"s" * 64


class Glare(TableTop):
    """The perfect eye, except for the cards ``unreadable(card)`` picks: a glare spot, a bent corner (or a
    camera too coarse to read any card): each is seen, but not named."""

    def __init__(self, unreadable):
        super().__init__()
        self.unreadable = unreadable

    def look(self, zones):
        return {zone: ([SeenCard(None, reason="unreadable") if self.unreadable(c) else SeenCard(c, 1.0)
                        for c in self.laid.get(zone, [])], lambda: None) for zone in zones}


def general_table(tmp_path, eye: TableTop) -> DealerLoop:
    """The dealer's loop at a general-rules table whose layout reads the house dealer's setting; the start
    value answers at once."""
    rules = load_house("general")
    table = Table(rules, read_toml(Path(rules.source)), AuditLog(tmp_path / "log", KEY), {})
    seq, ids = itertools.count(1), (f"s-{n}" for n in itertools.count(1))

    def roll() -> bool:
        loop.start_value("simulated-rng", RngResult(next(seq), 3))
        return True

    loop = DealerLoop(table, eye, roll, lambda: next(ids), "simulated-rng", stable_frames=3, reads_setting=True)
    return loop


def play(tmp_path, eye: Glare, rounds: int, looks_per_move: int, mislay: float = 0.0, seed: int = 4) -> list[dict]:
    """``rounds`` rounds at a general-rules table whose layout reads the house dealer's setting, the camera
    looking ``looks_per_move`` times between two moves of the dealer (more than one: a dealer slower than
    the camera, as under load); bounded: 60 moves a round."""
    loop = general_table(tmp_path, eye)
    audit = loop.table.audit
    dealer = SimulatedDealer(loop, lambda button: loop.press(button, "dealer (simulated)"), eye.lay, seed,
                             rounds=rounds, patience=10, mislay=mislay)
    for _ in range(60 * rounds):
        dealer.act()
        if dealer.played.is_set():
            break
        for _ in range(looks_per_move):
            loop.tick()
    log = records(audit.folder)
    assert sum(r["event"] == Events.ROUND_SETTLED for r in log) == rounds, loop.prompt()["say"]
    return log


def hands(log: list[dict]) -> list[tuple[list[dict], list[str]]]:
    """Each hand recorded from the layout: its reads and its cards, left to right."""
    hand_events = (Events.BANKER_CARDS, Events.BANKER_SET, Events.BANKER_SET_HELD, Events.SEAT_CARDS)
    return [(r["data"]["read"], r["data"].get("cards") or r["data"]["front"] + r["data"]["back"])
            for r in log if r["event"] in hand_events and r["data"].get("read")]


def test_a_dealer_slower_than_the_camera_waits_for_it_and_names_only_the_cards_it_cannot_read(tmp_path):
    """Under load the camera looks several times between two moves of the dealer: it settles on the layout as
    it was before the cards were laid (an empty zone, the banker's seven still in one pile). The dealer waits
    until the camera sees what was laid, and names the hearts (under a glare), never typing a hand in."""
    log = play(tmp_path, Glare(lambda card: card.endswith("h")), rounds=3, looks_per_move=4)
    assert hands(log)
    for reads, cards in hands(log):
        assert not any("entered by" in (read.get("reason") or "") for read in reads)
        assert [read["card"] for read in reads] == [None if c.endswith("h") else c for c in cards]
    named = [r["data"]["card"] for r in log if r["event"] == Events.READ_CONFIRMED]
    assert named and all(card.endswith("h") for card in named)


def test_a_mislaid_banker_hand_the_camera_cannot_read_is_reset_and_the_rounds_finish(tmp_path):
    """--mislay 0.5 where the camera names no card (simulate-table --render at a small frame): held for a
    reset, the dealer lays the house way and names the cards again where they now lie (the camera cannot
    tell the cards apart, so the names given for the setting held stay on the screen until the dealer
    renames them). Every held round is reset by the house way and settled."""
    log = play(tmp_path, Glare(lambda card: True), rounds=6, looks_per_move=1, mislay=0.5)
    held = {r["data"]["round"] for r in log if r["event"] == Events.BANKER_SET_HELD}
    reset = {r["data"]["round"] for r in log if r["event"] == Events.BANKER_SET and r["data"]["reset"]}
    assert held and reset == held
    assert not any(r["event"] in (Events.TABLE_FLAGGED, Events.TABLE_HELD) for r in log)


def test_a_move_for_a_step_that_passed_while_the_dealer_laid_the_cards_is_refused_not_made_for_the_next(tmp_path):
    """The rail's CONFIRM is taken by the panel's thread a moment after the press: here while the dealer lays the
    cards of its next move, a move it chose looking at the banker's hand still being read. The move is
    refused as a whole (the table moved on to the players' hands), never played against the step after (it
    failed with KeyError 'banker.front' and killed the dealer's thread), and the dealer's next look plays on."""
    eye = Glare(lambda card: card.endswith("h"))
    loop = general_table(tmp_path, eye)
    rail: list[str] = []  # presses on the rail the panel's thread has yet to take

    def take_presses() -> None:
        while rail:
            loop.press(rail.pop(0), "dealer (button)")

    taking = False  # whether the panel's thread takes the presses while the dealer lays cards

    def lay(laid) -> None:
        if taking:
            take_presses()
        eye.lay(laid)

    dealer = SimulatedDealer(loop, rail.append, lay, seed=4, rounds=1, patience=10)
    for _ in range(60):  # the banker's seven laid, named and CONFIRM pressed: the press not taken yet
        dealer.act()
        if rail == ["confirm"] and loop.step is Step.BANKER:
            break
        take_presses()
        for _ in range(3):
            loop.tick()
    assert rail == ["confirm"] and loop.step is Step.BANKER
    before = len(records(loop.table.audit.folder))
    taking = True
    with pytest.raises(DealerInputError, match="moved on"):
        dealer.act()  # looked at the banker's step; the CONFIRM taken while it laid the cards
    assert loop.step is Step.SEATS
    # the CONFIRM's records only (the cards the dealer named in the banker's hand, the hand), and nothing named
    # or typed in for the players' step
    assert [r["event"] for r in records(loop.table.audit.folder)[before:]][-1:] == [Events.BANKER_CARDS]
    assert {r["event"] for r in records(loop.table.audit.folder)[before:-1]} <= {Events.READ_CONFIRMED}
    assert loop.reads.zones == {}
    for _ in range(60):  # the next look plays the players' step, and the round settles
        dealer.act()
        if dealer.played.is_set():
            break
        take_presses()
        for _ in range(3):
            loop.tick()
    log = records(loop.table.audit.folder)
    assert sum(r["event"] == Events.ROUND_SETTLED for r in log) == 1, loop.prompt()["say"]
    assert not any(r["event"] in (Events.TABLE_FLAGGED, Events.TABLE_HELD) for r in log)


def test_a_next_the_rail_never_took_is_pressed_again_and_every_round_asked_for_is_played(tmp_path):
    """Under load the panel's thread may not look at the rail while the simulated finger holds a button
    (debounced, a press is taken only from two looks while it is held): the press is lost. The NEXT that
    should open the second round is lost here; the dealer presses it again, and three rounds are played
    before ``played`` says so (it counted the NEXT as a round opened: two were played, and `appliance run
    --rounds 3 --keep-serving` then waited for the third for ever)."""
    eye = TableTop()
    loop = general_table(tmp_path, eye)
    nexts = itertools.count(1)

    def press(button: str) -> None:
        if button == "next" and loop.step is Step.IDLE and next(nexts) == 2:
            return  # the round's first NEXT, not taken
        loop.press(button, "dealer (button)")

    dealer = SimulatedDealer(loop, press, eye.lay, seed=4, rounds=3, paying=2)
    for _ in range(200):
        dealer.act()
        if dealer.played.is_set():
            break
        loop.tick()
    assert dealer.played.is_set()
    assert sum(r["event"] == Events.ROUND_SETTLED for r in records(loop.table.audit.folder)) == 3
