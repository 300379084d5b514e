"""The live view of the table: the current round as the dashboard shows it, and a stream of events.

Fed by the round engine's listeners (each record is on disk before it reaches here), read by
the dashboard; it holds no game logic of its own.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading

from .round import Events


class LiveTable:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list = []  # queues, or the dashboard's front
        self.state: dict = {"round": None, "phase": "idle"}
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
            s = self.state
            if event == Events.ROUND_OPENED:
                s = self.state = {"round": data["round"], "phase": "bets_open", "house": data["house"],
                                  "banker": {"seat": data["banker"], "wager": data.get("banker_wager")},
                                  "seats": {str(b["seat"]): {"wager": b["wager"], "backline": b.get("backline", [])}
                                            for b in data["bets"]}}
            elif event == Events.START_SEAT:
                s.update(phase="start_seat", start={"source": data["source"], "value": data["value"],
                                                    "dice": data.get("dice"), "first_hand": data["first_hand"]})
            elif event == Events.BANKER_CARDS:
                s["phase"] = "banker"
                # set_checked: the house way's setting is shown, the house dealer's own is still to be read
                s["banker"].update(cards=data["cards"], front=data["front"], back=data["back"], rule=data["rule"],
                                   set_checked=bool(data.get("set_checked")))
            elif event == Events.BANKER_SET_HELD:
                s["phase"] = "set_held"
                s["banker"]["setting_held"] = {k: data[k] for k in ("front", "back", "house_way", "differs")}
            elif event == Events.BANKER_SET:
                s["phase"] = "set"
                s["banker"].update(front=data["front"], back=data["back"], set_by=data["set_by"], setting_held=None,
                                   **({"set_reason": data["reason"]} if "reason" in data else {}))
            elif event == Events.READ_CORRECTED and data["seat"] == "banker":
                s["banker"].update({k: data[k] for k in ("cards", "front", "back") if k in data})
            elif event in (Events.SEAT_CARDS, Events.READ_CORRECTED):
                s["phase"] = "players"
                s["seats"][str(data["seat"])].update(front=data["front"], back=data["back"],
                                                     **({"count": data["count"], "count_foul": data["foul"]}
                                                        if "count" in data else {}))
            elif event == Events.ROUND_SETTLED:
                settlement = data["settlement"]
                s["phase"] = "settled"
                for seat in settlement["seats"]:
                    s["seats"][str(seat["seat"])].update(
                        {k: seat[k] for k in ("result", "won", "lost", "commission", "collection", "net", "reason")},
                        front_result=seat["front"], back_result=seat["back"], bonus=seat["bonus"],
                        hand=seat["hand"], house_way_rule=seat["house_way_rule"], wagers=seat.get("wagers", []))
                s["banker"].update(net=settlement["banker"]["net"], hand=settlement["banker"]["hand"])
                s["totals"] = settlement["totals"]
                s["action_order"] = settlement["action_order"]
                # a deep copy: the current round's view changes on; a re-settlement replaces the first
                kept = [r for r in self.history if r["round"] != s["round"]]
                self.history = (kept + [json.loads(json.dumps(s))])[-10:]
            elif event == Events.ROUND_VOIDED:
                s.update(phase="voided", reason=data["reason"])
            elif event == Events.TABLE_FLAGGED:
                s.setdefault("flags", []).extend(data["flags"])
            elif event == Events.TABLE_HELD:
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


def _fault(event: str, data: dict) -> str | None:
    """What a device record says went wrong, if anything: a device offline or faulty, a rejected line,
    values that fail the uniformity check."""
    if event == Events.DEVICE_STATUS:
        fault = data["detail"] if data["status"] in ("offline", "fault") else None
    else:
        fault = data.get("message") or data.get("reason", "")
    count = data.get("count", 1)
    return f"{fault} ({count} more like it)" if fault and count > 1 else fault
