"""The live view of the table: the current round as the dashboard shows it, and a stream of events.

Fed by the round engine's listeners (each record is on disk before it reaches here), read by
the dashboard; it holds no game logic of its own: the round is the one fold's
(:class:`~appliance.records.round_state.RoundState`), rendered as the dashboard reads it (:func:`round_view`).
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
from typing import Any

from ..records.fold import Rounds
from ..records.round_state import Phase, RoundState, SeatState
from .round import Events


class LiveTable:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list = []  # queues, or the dashboard's front
        self.state: dict = {"round": None, "phase": "idle"}  # the current round as the dashboard reads it
        self._rounds = Rounds()
        self.history: list[dict] = []  # settled rounds, newest last (the last ten are kept)
        self.devices: dict[str, dict] = {}  # device name -> its last status record
        self.dealer: dict = {}  # what the dealer's loop asks of the dealer now
        self.held: str | None = None
        self._rendered: bytes | None = None  # the state's JSON, rendered once per change
        # Which state is newer: answers reach a screen out of order (a press's answer beside the stream's
        # refreshes), and a restarted appliance counts again from 0 under another boot.
        self.boot, self._changes = secrets.token_hex(4), 0

    def __call__(self, record: dict) -> None:
        """A round listener: fold one record into the view, then tell every subscriber."""
        event, data = record["event"], record["data"]
        with self._lock:
            folded = self._rounds.fold(record)
            if folded is not None:
                self.state = round_view(folded)
                if folded.phase is Phase.SETTLED:
                    # a deep copy: the current round's view changes on; a re-settlement replaces the first
                    kept = [r for r in self.history if r["round"] != folded.round]
                    self.history = (kept + [json.loads(json.dumps(self.state))])[-10:]
            if event == Events.TABLE_HELD:
                self.held = data["reason"]
            elif event == Events.TABLE_RELEASED:
                self.held = None
            elif event in (Events.DEVICE_STATUS, Events.DEVICE_HEALTH, Events.DEVICE_REJECTED):
                name = data.get("device") or data["source"]
                entry = self.devices.setdefault(name, {"device": name, "status": "unknown", "faults": []})
                if event == Events.DEVICE_STATUS:
                    entry.update(status=data["status"], detail=data.get("detail", ""), since=record["ts"])
                fault = _fault(event, data)
                if fault is not None:
                    entry["faults"] = (entry["faults"] + [{"at": record["ts"], "message": fault}])[-20:]  # recent only
            self._changed()
            self._announce({"seq": record["seq"], "event": event, "round": data.get("round")})

    def prompt(self, prompt: dict) -> None:
        """The dealer loop's prompt (not a record: what the dealer is asked to do next)."""
        with self._lock:
            self.dealer = prompt
            self._changed()
            self._announce({"seq": None, "event": "Dealer", "round": prompt.get("round")})

    def _announce(self, message: dict) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber.put_nowait(message)
            except queue.Full:
                pass  # a client that stopped reading; it reloads the state when it reconnects

    def state_json(self) -> bytes:
        """The state as the dashboard serves it (``/api/state``): rendered by the first reader after a
        change, then the same bytes for every reader until the next change."""
        with self._lock:
            if self._rendered is None:
                self._rendered = json.dumps({**self.state, "held": self.held, "dealer": self.dealer,
                                             **self._stamp()}).encode()
            return self._rendered

    def stamp(self) -> dict:
        """How new the view is: ``{"boot", "stamp"}``, the stamp counting its changes since boot."""
        with self._lock:
            return self._stamp()

    def _stamp(self) -> dict:
        return {"boot": self.boot, "stamp": self._changes}

    def _changed(self) -> None:
        self._changes += 1
        self._rendered = None

    def snapshot(self) -> dict:
        """The state as a deep copy the caller may keep."""
        return json.loads(self.state_json())

    def device_status(self) -> list[dict]:
        with self._lock:
            return json.loads(json.dumps(sorted(self.devices.values(), key=lambda d: d["device"])))

    def subscribe(self, sink) -> None:
        """``sink`` (anything with ``put_nowait(message)``, called under this view's lock: it must not
        block; a full ``queue.Queue`` drops the message) gets every event from now on."""
        with self._lock:
            self._subscribers.append(sink)

    def unsubscribe(self, q) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)


def round_view(state: RoundState) -> dict:
    """A round as the dashboard shows it (``/api/state``, the history of settled rounds): its phase, the
    banker's hand and setting, each seat's wager, hand and result, the start value, flags, a void's reason."""
    b = state.banker
    banker: dict[str, Any] = {"seat": b.seat, "wager": b.wager}  # JSON from here: the edge
    if b.read is not None:
        front, back = b.shown
        # set_checked: the house way's setting is shown, the house dealer's own is still to be read
        banker.update(cards=b.cards, front=front, back=back, rule=b.read.rule, set_checked=b.set_checked)
    if b.holds or b.accepted:
        banker["setting_held"] = b.held.shown() if b.held else None
    if b.accepted:
        banker["set_by"] = b.accepted.set_by
        if b.accepted.reason is not None:
            banker["set_reason"] = b.accepted.reason
    view: dict[str, Any] = {"round": state.round, "phase": state.phase.value, "house": state.house, "banker": banker,
            "seats": {str(seat.seat): _seat_view(seat) for seat in state.seats.values()}}
    if state.start is not None:
        start = state.start
        view["start"] = {"source": start.source, "value": start.value, "dice": start.dice,
                         "first_hand": start.first_hand}
    if state.flags:
        view["flags"] = [flag for flagged in state.flags for flag in flagged.flags]
    settlement = state.settlement
    if settlement is not None:
        for seat in settlement["seats"]:
            view["seats"].setdefault(str(seat["seat"]), {}).update(
                {k: seat[k] for k in ("result", "won", "lost", "commission", "collection", "net", "reason")},
                front_result=seat["front"], back_result=seat["back"], bonus=seat["bonus"],
                hand=seat["hand"], house_way_rule=seat["house_way_rule"], wagers=seat.get("wagers", []))
        banker.update(net=settlement["banker"]["net"], hand=settlement["banker"]["hand"])
        view["totals"] = settlement["totals"]
        view["action_order"] = settlement["action_order"]
    if state.void is not None:
        view["reason"] = state.void.reason
    return view


def _seat_view(seat: SeatState) -> dict:
    view = {"wager": seat.bet["wager"], "backline": seat.bet.get("backline", [])} if seat.bet else {}
    if seat.has_cards:
        view.update(front=seat.front, back=seat.back)
    if seat.count is not None:
        view.update(count=seat.count, count_foul=seat.count_foul)
    return view


def _fault(event: str, data: dict) -> str | None:
    """What a device record says went wrong, if anything: a device offline or faulty, a rejected line,
    values that fail the uniformity check."""
    if event == Events.DEVICE_STATUS:
        fault = data["detail"] if data["status"] in ("offline", "fault") else None
    else:
        fault = data.get("message") or data.get("reason", "")
    count = data.get("count", 1)
    return f"{fault} ({count} more like it)" if fault and count > 1 else fault
