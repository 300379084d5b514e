"""Every view of a round is a projection of the one fold: fed the same records, the round engine, the live
view, the pit, the dispute view, the history index (live, and caught up by a new process), the replay, the
export, the simulation's totals and the restart's check for an interrupted round agree on the round's
phase, whether it is settled and whether it is voided, record by record.

They once each folded the records their own way: after a correction of the banker's hand in a settled
round, the engine said ``players``, the live view and the pit ``settled``."""

from __future__ import annotations

from decimal import Decimal

from appliance.game.settlement import SeatWagers
from appliance.audit.dispute import dispute
from appliance.audit.history_index import Index
from appliance.audit.log import AuditLog, records
from appliance.audit.replay import replay, settled_in
from appliance.config import load_house, read_toml
from appliance.floor.pit_events import Observed, observe
from appliance.records.round_state import Phase
from appliance.table.live import LiveTable
from appliance.table.round import TableRound, interrupted
from appliance.table.simulation import PlayedTotals

KEY = b"p" * 64
RULES = load_house("greektown")  # its house dealer's setting is read from the layout, and held when not the way
MAPPING = read_toml(RULES.source)
SEVEN = ["Qs", "7c", "Qd", "9h", "8c", "4h", "2s"]  # the house way: front 9h 8c, back Qs Qd 7c 4h 2s
SEAT = (["Ah", "Kd"], ["Jc", "Js", "5d", "5c", "3h"])
STATUS = {Phase.SETTLED: "settled", Phase.VOIDED: "voided"}  # any other phase: open


class Projections:
    """Each view, fed each record as the round engine records it (a listener), asked after it for the current
    round's phase, or its status and whether a settlement stands."""

    def __init__(self, folder):
        self.folder, self.live, self.pit, self.totals = folder, LiveTable(), Observed(), PlayedTotals()
        self.index = Index(folder.parent / "index.sqlite", folder=folder)
        self.engine: TableRound | None = None
        self.seen: list[tuple[str, str, str]] = []  # (record's event, the phase, the status) where all agree
        self.disagree: list[tuple[str, dict]] = []  # (record's event, what each view said) where they did not

    def __call__(self, record: dict) -> None:
        for listener in (self.live, self.index.add, self.totals, lambda r: observe(self.pit, r, "T1", None)):
            listener(record)
        phase, round_id = self.engine.phase, self.engine.round_id
        logged = [r for r in records(self.folder) if r["data"].get("round") == round_id]
        viewed = dispute(round_id, logged, [r["seq"] for r in logged], KEY)
        indexed = self.index.search(round_id=round_id)[0]
        said = {"engine": (phase.value, STATUS.get(phase, "open"), phase is Phase.SETTLED),
                "live": (self.live.snapshot()["phase"], None, "totals" in self.live.snapshot()),
                "pit": (self.pit.phase, None, None),
                "dispute": (None, viewed["status"], viewed["settlement"] is not None),
                "index": (None, indexed["status"], indexed["seat"] is not None)}
        for n, _what in enumerate(("phase", "status", "settled")):
            if len({view[n] for view in said.values() if view[n] is not None}) != 1:
                self.disagree.append((record["event"], {name: view[n] for name, view in said.items()}))
        self.seen.append((record["event"], *said["engine"][:2]))

    def round(self, round_id: str, audit: AuditLog) -> TableRound:
        self.engine = TableRound(round_id, RULES, MAPPING, audit, [self])
        return self.engine


def dealt(table_round: TableRound) -> None:
    table_round.open("dealer", [SeatWagers(1, Decimal("20"))])
    table_round.start_seat("rng", 3)


def test_every_view_agrees_on_the_phase_settled_and_voided(tmp_path):
    audit = AuditLog(tmp_path / "log", KEY)
    views = Projections(tmp_path / "log")

    voided = views.round("r-1", audit)  # a misdeal
    dealt(voided)
    voided.void("misdeal: a card exposed", "dealer")

    held = views.round("r-2", audit)  # a setting held, let stand by a supervisor, then settled
    dealt(held)
    held.banker_cards(SEVEN, set_checked=True)
    assert held.banker_set(["Qs", "7c"], ["Qd", "9h", "8c", "4h", "2s"]) is not None
    held.setting_stands("the player agreed to the setting", "supervisor 1042",
                        {"front": ["Qs", "7c"], "back": ["Qd", "9h", "8c", "4h", "2s"]})
    held.seat_cards(1, *SEAT)
    held.settle()

    reopened = views.round("r-3", audit)  # settled, then the banker's hand corrected: open until settled again
    dealt(reopened)
    reopened.banker_cards(SEVEN, set_checked=True)
    reopened.banker_set(["9h", "8c"], ["Qs", "Qd", "7c", "4h", "2s"])
    reopened.seat_cards(1, *SEAT)
    reopened.settle()
    views.index.close()  # the appliance restarts: its new index meets the round mid-way, and folds it from the log
    views.index = Index(tmp_path / "index.sqlite", folder=tmp_path / "log")
    views.index.catch_up(tmp_path / "log")
    reopened.correct("banker", "the 2s was the 2d", "supervisor 1042", cards=[*SEVEN[:6], "2d"],
                     front=["9h", "8c"], back=["Qs", "Qd", "7c", "4h", "2d"])

    assert views.disagree == [] and len(views.seen) == len(records(tmp_path / "log"))  # none failed on a record
    assert [s for s in views.seen if s[0] in ("RoundVoided", "BankerSetHeld", "RoundSettled", "ReadCorrected")] == [
        ("RoundVoided", "voided", "voided"), ("BankerSetHeld", "set_held", "open"),
        ("RoundSettled", "settled", "settled"), ("RoundSettled", "settled", "settled"),
        ("ReadCorrected", "players", "open")]
    assert views.totals.totals()["rounds"] == 1  # r-2 settled; r-3 open again
    assert interrupted(tmp_path / "log") == ["r-3"]  # a restart now holds the table for the supervisor
    assert replay(tmp_path / "log", KEY) == {"rounds": 3, "settled": 1, "voided": 1, "open": 1, "differences": []}
    day = records(tmp_path / "log")[-1]["gaming_day"]
    assert list(settled_in(tmp_path / "log", day, day)) == ["r-2"]
    rebuilt = Index(tmp_path / "rebuilt.sqlite")
    rebuilt.rebuild(tmp_path / "log")
    assert [r["status"] for r in rebuilt.recent(3)] == ["open", "settled", "voided"]
    rebuilt.check()

    reopened.settle()  # settled again: every view says so
    assert views.disagree == [] and views.seen[-1] == ("RoundSettled", "settled", "settled")
    assert views.totals.totals()["rounds"] == 2
    assert interrupted(tmp_path / "log") == [] and list(settled_in(tmp_path / "log", day, day)) == ["r-2", "r-3"]
    views.index.check()
