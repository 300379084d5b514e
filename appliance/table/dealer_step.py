"""Where the dealer's round stands, as the buttons and the camera see it, and which zones the camera reads there."""

from __future__ import annotations

import enum

from ..game.rules import BankerSetting
from ..game.start_seat import DEALER
from ..records.round_state import RoundState
from ..vision.layout import BANKER_SET_ZONES
from .bank_walk import BankWalk
from .dealer_errors import DealerInputError
from .round import Phase
from .table import Table


class Step(enum.Enum):
    IDLE = "idle"  # between rounds: NEXT opens one (CONFIRM offers the bank, where players may bank)
    BANK = "bank"  # between rounds, the bank offered seat by seat: CONFIRM the seat takes it, NEXT it passes
    START = "start"  # waiting for the start-seat value
    BANKER = "banker"  # reading the banker's seven cards
    SEATS = "seats"  # reading the players' hands (and the house dealer's setting)
    RESET = "reset"  # the house dealer's setting is not the house way: held for the dealer to reset it
    HELD = "held"  # waiting for a supervisor


def step_of(table: Table, walk: BankWalk | None) -> Step:
    if table.held is not None:
        return Step.HELD
    if walk is not None:  # only between rounds: NEXT passes the bank instead of opening one
        return Step.BANK
    current = table.current
    phase = current.phase if current is not None else Phase.SETTLED
    return {Phase.BETS_OPEN: Step.START, Phase.START_SEAT: Step.BANKER, Phase.BANKER: Step.SEATS,
            Phase.SET_HELD: Step.RESET, Phase.SET: Step.SEATS, Phase.PLAYERS: Step.SEATS}.get(phase, Step.IDLE)


def round_in_play(table: Table) -> str | None:
    return table.current.round_id if table.current is not None else None


def round_to_void(table: Table, step: Step, round_id: str | None) -> str:
    """The round in play at ``step``, which a misdeal voids: the one the screen showed (``round_id``), if given."""
    if step is Step.HELD:
        raise DealerInputError("the table is held: the supervisor declares the misdeal")
    if step not in (Step.START, Step.BANKER, Step.SEATS, Step.RESET):
        raise DealerInputError("no round is being dealt: a misdeal voids the round in play")
    current = table.playing
    if round_id is not None and round_id != current.round_id:
        raise DealerInputError(f"round {round_id} is no longer in play (round {current.round_id} is): "
                               "look at the table again")
    return current.round_id


def zones_read(table: Table, step: Step) -> list[str]:
    """The zones the camera should read at ``step``."""
    if step is Step.BANKER:
        return banker_zones(table)
    if step in (Step.SEATS, Step.RESET):
        return set_zones(table) + [f"seat{s.seat}.{part}" for s in table.playing.state.seats.values()
                                   if s.bet is not None and not s.has_cards for part in ("front", "back")]
    return []


def set_zones(table: Table) -> list[str]:
    """The banker's set zones while the house dealer's setting is still to be accepted."""
    banker = table.playing.state.banker
    return list(BANKER_SET_ZONES) if banker.set_checked and banker.setting is None else []


def banker_zones(table: Table) -> list[str]:
    """A player-banker who sets his own hand lays it front and back in his seat's zones (his seat has
    no hand of its own); else the banker's seven cards lie in the banker zone, set by the house way."""
    banker = table.playing.state.banker.seat
    if banker != DEALER and table.rules.banking.banker_sets is BankerSetting.OWN:
        return [f"seat{banker}.front", f"seat{banker}.back"]
    return ["banker"]


def waiting(state: RoundState) -> list[int]:
    """The seats with a wager whose hand is not recorded yet, in the order of the wagers."""
    return [s.seat for s in state.seats.values() if s.bet is not None and not s.has_cards]
