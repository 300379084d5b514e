"""Records read as rounds, by the one fold (:meth:`~appliance.records.round_state.RoundState.fold`), and a
round's settlement derived from its state by the game engine alone: the live round
(:mod:`appliance.table.round`), ``appliance audit replay``, the export, the live view, the index and the
pit read a round's records the same way, from here (below both the table and the audit log)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..game.round_json import round_from_json, settlement_to_json
from ..game.rules import HouseRules
from ..game.settlement import RoundError, settle
from ..game.start_seat import Position, first_hand
from .events import ROUND_STEPS
from .round_state import RoundState


def round_of(record: dict) -> str | None:
    """The round a record is one of the steps of (None: a record outside any round's steps).

    >>> round_of({"event": "SeatCards", "data": {"round": "7-1", "seat": 2}})
    '7-1'
    >>> round_of({"event": "TableHeld", "data": {"round": "7-1", "reason": "..."}}) is None
    True
    """
    if record["event"] not in ROUND_STEPS or not isinstance(record.get("data"), dict):
        return None
    return record["data"].get("round")


def fold_round(round_id: str, records: Iterable[dict]) -> RoundState:
    """One round's state from records in log order (the records of other rounds are passed over)."""
    state = RoundState(round_id)
    for record in records:
        if round_of(record) == round_id:
            state.fold(record)
    return state


def fold_rounds(records: Iterable[dict]) -> dict[str, RoundState]:
    """Each round's state, from records in log order (the audit tools' whole-log view)."""
    rounds: dict[str, RoundState] = {}
    for record in records:
        round_id = round_of(record)
        if round_id is not None:
            rounds.setdefault(round_id, RoundState(round_id)).fold(record)
    return rounds


class Rounds:
    """The round a stream of records in log order has reached, folded: rounds follow one another (a
    correction comes before the next round opens), so only the last is held. ``current`` may be given
    (a state folded from the log so far)."""

    def __init__(self, current: RoundState | None = None):
        self.current = current

    def fold(self, record: dict) -> RoundState | None:
        """The state ``record`` was folded into (a new round's, when it is another round's step), or None
        for a record outside any round's steps."""
        round_id = round_of(record)
        if round_id is None:
            return None
        if self.current is None or self.current.round != round_id:
            self.current = RoundState(round_id)
        return self.current.fold(record)


def each_round(records: Iterable[dict]) -> Iterator[RoundState]:
    """Each round's state once its records are over (the next round's first step, or the end), from
    records in log order, holding one round at a time: a long log read as a stream."""
    rounds = Rounds()
    for record in records:
        before = rounds.current
        folded = rounds.fold(record)
        if before is not None and folded is not None and folded is not before:
            yield before
    if rounds.current is not None:
        yield rounds.current


def derive(state: RoundState, rules: HouseRules) -> dict:
    """The settlement of a folded round, by the game engine alone."""
    b = state.banker
    if b.setting is not None:
        banker = {"seat": b.seat, "front": b.setting.front, "back": b.setting.back}
        if b.setting.set_by == "dealer":  # a supervisor let the house dealer's setting stand
            banker["set_by"] = "dealer"
    else:
        banker = {"seat": b.seat, "cards": b.cards}
    if b.wager is not None:
        banker["wager"] = b.wager
    seats = []
    for bet in state.bets:
        seat = state.seats[bet["seat"]]
        # laid in one pile, or asked for: the settlement sets them by the house way (a hand not in is refused there)
        if seat.house_way and seat.front is not None and seat.back is not None:
            seats.append({**bet, "cards": [*seat.front, *seat.back]})
        else:
            seats.append({**bet, "front": seat.front, "back": seat.back})
    data = {"house": state.house, "banker": banker, "seats": seats,
            "action_seat": _action_seat(state, rules)}
    if state.previous_rounds is not None:
        data["previous_rounds"] = state.previous_rounds
    result = settle(round_from_json(data, f"round {state.round}"), rules)
    return settlement_to_json(result, rules.evaluator())


def _action_seat(state: RoundState, rules: HouseRules) -> Position:
    """The first hand, counted again from the recorded start value and banker."""
    count, banker = state.start.count if state.start else None, state.banker.seat
    if count is None or banker is None:
        raise RoundError(f"round {state.round}: no start value or no banker recorded")
    return first_hand(count, banker, rules.start.player_seats, rules.start.count_direction)
