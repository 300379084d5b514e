"""Listeners hear of a record once it is on disk, in order, each isolated: one that fails is named in
the journal and neither undoes the action nor keeps the others from hearing of it."""

import logging

from dealer_table import Dealer

from appliance.audit.log import records
from appliance.table.round import Events


def broken_dashboard(record):
    raise RuntimeError("the dashboard's listener has a bug")


def test_a_listener_that_raises_does_not_break_next(tmp_path, caplog):
    dealer = Dealer(tmp_path / "log")
    dealer.table.listeners.insert(0, broken_dashboard)  # first: the live view after it must still hear
    dealer.loop.set_bets([{"seat": 2, "wager": "25"}])
    with caplog.at_level(logging.ERROR, logger="appliance.table.listeners"):
        assert dealer.loop.press("next") == ""
    assert dealer.live.snapshot()["round"] == "t-1" and dealer.live.snapshot()["phase"] == "bets_open"
    assert dealer.requests == ["ROLL"]
    assert [r["event"] for r in records(tmp_path / "log")] == [Events.ROUND_OPENED]
    failed = [r for r in caplog.records if "broken_dashboard" in r.getMessage()]
    assert failed and "RoundOpened (seq 1)" in failed[0].getMessage() and failed[0].exc_info[0] is RuntimeError


def test_listeners_hear_each_record_in_order_after_it_is_on_disk(tmp_path):
    dealer = Dealer(tmp_path / "log")
    heard = []
    dealer.table.listeners[:0] = [lambda r: heard.append(("first", r["seq"], len(records(tmp_path / "log")))),
                                  broken_dashboard, lambda r: heard.append(("second", r["seq"]))]
    dealer.open_round()
    assert heard == [("first", 1, 1), ("second", 1), ("first", 2, 2), ("second", 2)]
