"""The wall clock stepped forward, at a start or while a round is dealt: recorded, the table held with the
reason in plain words, no round's step booked to the day it jumped to, until a supervisor confirms the
gaming day with the PIN (a wrong day is refused). The log before the fix recorded nothing and booked the
next rounds 400 days on."""

import datetime as dt

import pytest
from dealer_table import BANKER, KEY, RULES, SEAT2, Dealer

from appliance.audit.clock import ClockInDoubt, boot_seconds
from appliance.audit.gaming_day import GamingDay
from appliance.audit.log import AuditLog, records, verify
from appliance.records.events import ROUND_STEPS, Events
from appliance.table.dealer import Step
from appliance.table.supervisor import PinError
from appliance.web.app import create_app


class SteppedClock:
    """The real wall clock, moved on by ``ahead`` when the test says so (an NTP server or an RTC gone wrong)."""

    def __init__(self):
        self.ahead = dt.timedelta(0)

    def __call__(self):
        return dt.datetime.now(dt.UTC) + self.ahead


def stepped_log(folder, clock):
    """The appliance's log: the stepped wall clock, checked against the box's own timer."""
    return AuditLog(folder, KEY, clock=clock, timer=boot_seconds)


def day_of(clock):
    """The gaming day the clock gives, as the log books it (the default house day: UTC, from 06:00)."""
    return GamingDay().of(clock())


def settle(d):
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    d.look(SEAT2)
    d.loop.press("confirm")


def test_a_step_forward_while_dealing_books_nothing_of_the_round_until_the_day_is_confirmed(tmp_path):
    clock = SteppedClock()
    d = Dealer(tmp_path / "log", audit=stepped_log(tmp_path / "log", clock))
    d.open_round()
    d.look({"banker": BANKER})
    d.loop.press("confirm")
    before = [r["gaming_day"] for r in records(tmp_path / "log")]
    clock.ahead = dt.timedelta(days=400)
    d.look(SEAT2)
    d.loop.press("confirm")  # the seat's cards would be recorded, and the round settled, 400 days on

    logged = records(tmp_path / "log")
    stepped = next(r for r in logged if r["event"] == Events.CLOCK_STEPPED)
    assert stepped["data"]["direction"] == "forward" and 400 * 86400 - 60 < stepped["data"]["seconds"] < 400 * 86400 + 60
    assert not [r for r in logged if r["event"] in ROUND_STEPS and r["gaming_day"] not in before]
    assert d.loop.step is Step.HELD and d.table.held.startswith("The clock jumped forward 400 days")
    assert "confirm today's gaming day with the PIN" in d.table.held
    assert d.live.snapshot()["held"] == d.table.held  # the screens heard of it
    d.loop.press("confirm")
    assert "held" in d.loop.message and d.table.current.phase.value != "settled"

    with pytest.raises(ClockInDoubt, match="confirm the gaming day to release"):
        d.table.release("1042", "4821", "carry on")
    with pytest.raises(PinError):
        d.table.confirm_clock("1042", "0000", day_of(clock))
    with pytest.raises(ClockInDoubt, match=f"the clock gives gaming day {day_of(clock)}, not {before[-1]}"):
        d.table.confirm_clock("1042", "4821", before[-1])  # the supervisor's own date: the clock is wrong
    assert d.loop.step is Step.HELD

    clock.ahead = dt.timedelta(0)  # the clock set right (recorded as a step back), then the day confirmed
    d.table.confirm_clock("1042", "4821", day_of(clock))
    assert d.table.held is None and d.live.snapshot()["held"] is None
    d.look(SEAT2)
    d.loop.press("confirm")
    assert d.table.current.phase.value == "settled"
    logged = records(tmp_path / "log")
    confirmed = next(r for r in logged if r["event"] == Events.CLOCK_CONFIRMED)
    assert confirmed["who"] == "supervisor 1042" and confirmed["data"]["step_record"] == stepped["seq"]
    settled = next(r for r in logged if r["event"] == Events.ROUND_SETTLED)
    assert settled["gaming_day"] in before and verify(tmp_path / "log", KEY).ok


def test_a_start_far_past_the_last_record_holds_until_the_day_is_confirmed(tmp_path):
    clock = SteppedClock()
    d = Dealer(tmp_path / "log", audit=stepped_log(tmp_path / "log", clock))
    d.open_round()
    settle(d)
    clock.ahead = dt.timedelta(days=400)
    again = Dealer(tmp_path / "log", audit=stepped_log(tmp_path / "log", clock))  # the restart
    assert again.loop.step is Step.HELD and again.table.held.startswith("The clock reads ")
    assert "400 days after the log's last record" in again.table.held
    stepped = [r for r in records(tmp_path / "log") if r["event"] == Events.CLOCK_STEPPED]
    assert len(stepped) == 1 and stepped[0]["data"]["found"].startswith("at start-up")
    again.loop.press("next")
    assert again.table.current is None and "held" in again.loop.message  # no round opened 400 days on
    # The table really was dark that long: the supervisor confirms the day the clock gives, and play goes on.
    again.table.confirm_clock("1042", "4821", day_of(clock))
    again.open_round()
    settle(again)
    days = [r["gaming_day"] for r in records(tmp_path / "log") if r["event"] == Events.ROUND_SETTLED]
    assert days == [GamingDay().of(clock() - clock.ahead), day_of(clock)]
    confirmed = next(r for r in records(tmp_path / "log") if r["event"] == Events.CLOCK_CONFIRMED)
    assert confirmed["data"]["step_record"] == stepped[0]["seq"]
    assert verify(tmp_path / "log", KEY).ok


def test_a_short_pause_and_a_step_back_do_not_hold(tmp_path):
    clock = SteppedClock()
    d = Dealer(tmp_path / "log", audit=stepped_log(tmp_path / "log", clock))
    d.open_round()
    clock.ahead = dt.timedelta(minutes=2)  # within what NTP or a slow tick can leave
    settle(d)
    clock.ahead = dt.timedelta(hours=-3)
    d.loop.press("next")
    assert d.table.held is None and d.table.current.round_id == "t-2"
    assert [r["data"].get("direction") for r in records(tmp_path / "log") if r["event"] == Events.CLOCK_STEPPED] == [None]


def test_the_supervisors_page_confirms_the_day_with_the_pin(tmp_path):
    clock = SteppedClock()
    d = Dealer(tmp_path / "log", audit=stepped_log(tmp_path / "log", clock))
    d.open_round()
    settle(d)
    clock.ahead = dt.timedelta(days=400)
    again = Dealer(tmp_path / "log", audit=stepped_log(tmp_path / "log", clock))
    client = create_app(again.live, RULES, again.table, secret_key=b"k" * 32).test_client()
    token = client.post("/login", json={"supervisor": "1042", "pin": "4821"}).get_json()["csrf"]
    assert client.get("/api/state").get_json()["held"].startswith("The clock reads ")

    def confirm(day, pin="4821"):
        return client.post("/api/clock/confirm", json={"gaming_day": day, "pin": pin}, headers={"X-CSRF-Token": token})

    assert confirm(day_of(clock), "0000").status_code == 403
    wrong = confirm(GamingDay().of(clock() - clock.ahead))
    assert wrong.status_code == 409 and wrong.get_json()["error"].startswith(f"the clock gives gaming day {day_of(clock)}")
    right = confirm(day_of(clock))
    assert right.status_code == 200 and right.get_json() == {"ok": True, "gaming_day": day_of(clock), "held": None}
    assert client.get("/api/state").get_json()["held"] is None
    assert confirm(day_of(clock)).get_json()["error"] == "the clock has not stepped: there is nothing to confirm"
