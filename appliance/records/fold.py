"""The one fold of a round's records into its state, and its settlement derived from that state by the
game engine alone: the live round (:mod:`appliance.table.round`), ``appliance audit replay`` and the
audit tools read a round's records the same way, from here (below both the table and the audit log)."""

from __future__ import annotations

from ..game.round_json import round_from_json, settlement_to_json
from ..game.rules import HouseRules
from ..game.settlement import settle
from ..game.start_seat import first_hand
from .events import Events


def apply(state: dict, event: str, data: dict) -> None:
    """Fold one of a round's records into its state (live, and in a replay)."""
    if event == Events.ROUND_OPENED:
        state.update(house=data["house"], rules=data["rules"], banker=data["banker"],
                     banker_wager=data.get("banker_wager"), bets=data["bets"], seat_cards={},
                     previous_rounds=data.get("previous_rounds"))
    elif event == Events.START_SEAT:
        state["start"] = {"value": data["value"], "dice": data.get("dice")}
    elif event == Events.BANKER_CARDS:
        state["banker_cards"] = data["cards"]
        # A player-banker who set his own hand: his front and back are settled as laid.
        state["banker_set"] = (data["front"], data["back"]) if data.get("set_by") == "own" else None
        state["banker_set_by"] = "own" if state["banker_set"] else None
        # the house dealer then sets the hand where the camera reads it (a layout with banker.front/back)
        state["set_checked"] = bool(data.get("set_checked"))
    elif event == Events.BANKER_SET_HELD:
        state["set_held"] = {"front": data["front"], "back": data["back"]}
    elif event == Events.BANKER_SET:
        state["banker_set"], state["banker_set_by"] = (data["front"], data["back"]), data["set_by"]
        state["set_held"] = None
    elif event == Events.SEAT_CARDS:
        state["seat_cards"][data["seat"]] = (data["front"], data["back"])
        if data.get("set_by") == "house-way":  # laid in one pile, or asked for: settled as set by the house way
            state.setdefault("house_way_seats", []).append(data["seat"])
    elif event == Events.READ_CORRECTED:
        if data["seat"] == "banker":
            state["banker_cards"] = data["cards"]
            # a setting already recorded (the player-banker's own, the house dealer's as read), corrected
            # card for card: settled as it was laid
            state["banker_set"] = (data["front"], data["back"]) if data.get("set_by") else None
            state["banker_set_by"] = data.get("set_by")
        else:
            state["seat_cards"][data["seat"]] = (data["front"], data["back"])


def derive(state: dict, rules: HouseRules) -> dict:
    """The settlement of a folded round, by the game engine alone."""
    start = state["start"]
    count = sum(start["dice"]) if start["dice"] else start["value"]
    if state.get("banker_set"):
        banker = {"seat": state["banker"], "front": state["banker_set"][0], "back": state["banker_set"][1]}
        if state.get("banker_set_by") == "dealer":  # a supervisor let the house dealer's setting stand
            banker["set_by"] = "dealer"
    else:
        banker = {"seat": state["banker"], "cards": state["banker_cards"]}
    if state.get("banker_wager") is not None:
        banker["wager"] = state["banker_wager"]
    seats = []
    for bet in state["bets"]:
        front, back = state["seat_cards"][bet["seat"]]
        if bet["seat"] in state.get("house_way_seats", ()):
            seats.append({**bet, "cards": [*front, *back]})  # the settlement sets them by the house way
        else:
            seats.append({**bet, "front": front, "back": back})
    data = {"house": state["house"], "banker": banker, "seats": seats,
            "action_seat": first_hand(count, state["banker"], rules.start.player_seats, rules.start.count_direction)}
    if state.get("previous_rounds") is not None:
        data["previous_rounds"] = state["previous_rounds"]
    result = settle(round_from_json(data, f"round {state.get('round', '')}"), rules)
    return settlement_to_json(result, rules.evaluator())


def fold_rounds(logged) -> dict[str, dict]:
    """Each round's folded state, its recorded settlement (if any) and whether it was voided, from
    records in log order."""
    rounds: dict[str, dict] = {}
    for record in logged:
        round_id = record["data"].get("round")
        if round_id is None:
            continue
        entry = rounds.setdefault(round_id, {"state": {"round": round_id}, "settlement": None, "voided": None,
                                             "settled_at": None, "gaming_day": None})
        if record["event"] == Events.ROUND_SETTLED:
            entry["settlement"], entry["settled_at"] = record["data"]["settlement"], record["ts"]
            entry["gaming_day"] = record["gaming_day"]
        elif record["event"] == Events.READ_CORRECTED and entry["settlement"] is not None:
            # corrected after settling: open again until settled again (a power cut may come between)
            entry["settlement"] = entry["settled_at"] = None
            apply(entry["state"], record["event"], record["data"])
        elif record["event"] == Events.ROUND_VOIDED:
            entry["voided"] = record["data"]["reason"]
        else:
            apply(entry["state"], record["event"], record["data"])
    return rounds
