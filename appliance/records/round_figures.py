"""A round's figures as the floor's pit and day report count them: a projection of the one fold
(:class:`~appliance.records.round_state.RoundState`), so that a round the pit counts is the round the
table, the dispute view and the audit tools show, a supervisor's correction included.

The amounts are the settlement's as recorded (the engine's own text, signed where it is a result): the
projection reads the log, it does not check it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal

from ..game.money import ZERO, MoneyError, money
from .round_state import RoundState

@dataclass(frozen=True)
class RoundFigures:
    """One round's row of the floor's figures (the columns of ``floor_rounds``, in their order)."""

    gaming_day: str | None  # of the settlement that stands, else of the round's first record
    dealer: str  # who opened the round ("?": the log lacks the opening)
    began: str | None
    settled: bool
    misdeal: bool
    voided: bool
    corrections: int
    unreadable: int  # cards the camera could not read, in every zone read: the hands dealt and each setting
    wagers: Decimal
    commission: Decimal
    collection: Decimal
    banker_net: Decimal
    house_net: Decimal
    fouls: int
    seats: int
    cards: int  # the cards the unreadable ones are counted out of
    problems: tuple[str, ...] = ()  # what of the settlement recorded could not be counted, and why

    def row(self) -> tuple:
        """The values of :data:`COLUMNS`, in their order."""
        return tuple(getattr(self, name) for name in COLUMNS)


def round_figures(state: RoundState) -> RoundFigures:
    """The figures of a folded round: the settlement that stands counts (none while a correction has
    reopened it); each reading of a card counts, a setting held and laid again included.

    >>> from appliance.records.events import Events
    >>> state = RoundState("r-1")
    >>> for n, (event, data) in enumerate([
    ...         (Events.ROUND_OPENED, {"bets": [{"seat": 2, "wager": "20.00"}]}),
    ...         (Events.SEAT_CARDS, {"seat": 2, "read": [{"card": "Ah"}, {"card": None}]}),
    ...         (Events.ROUND_SETTLED, {"settlement": {"totals": {"commission": "0.95", "house_net": "-19.05"},
    ...                                                "seats": [{"wager": "20.00", "result": "win"}]}})], 1):
    ...     state = state.fold({"seq": n, "who": "ann", "gaming_day": "2026-12-07", "event": event,
    ...                         "data": {"round": "r-1", **data}})
    >>> f = round_figures(state)
    >>> f.dealer, f.settled, f.unreadable, f.cards, f.wagers, f.house_net, f.banker_net
    ('ann', True, 1, 14, Decimal('20.00'), Decimal('-19.05'), Decimal('0.00'))

    A void whose reason a tampered record gives as no text is counted as a void, not a misdeal:

    >>> voided = RoundState("r-2").fold({"seq": 1, "event": Events.ROUND_VOIDED, "data": {"round": "r-2", "reason": ["misdeal: x"]}})
    >>> round_figures(voided).voided, round_figures(voided).misdeal
    (True, False)
    """
    problems: list[str] = []
    s = _part(state.settlement, f"round {state.round}: settlement", dict, problems) or {}
    seats = [seat for seat in _part(s.get("seats"), f"round {state.round}: seats", list, problems) or []
             if _part(seat, f"round {state.round}: a seat", dict, problems)]
    totals = _part(s.get("totals"), f"round {state.round}: totals", dict, problems) or {}

    def amount(value, where: str) -> Decimal:
        return _recorded(value, f"round {state.round}: {where}", problems)

    day, began = state.settled or state.first, state.opened or state.first
    return RoundFigures(
        gaming_day=day.gaming_day if day else None,
        dealer=(state.opened.who or "?") if state.opened else "?",
        began=began.at if began else None,
        settled=state.settlement is not None,
        misdeal=state.void is not None and state.void.misdeal,
        voided=state.void is not None and not state.void.misdeal,
        corrections=len(state.corrections),
        unreadable=sum(isinstance(r, dict) and "card" in r and r["card"] is None for read in _reads(state) for r in read),
        wagers=sum((amount(seat.get("wager"), f"seat {seat.get('seat')} wager") for seat in seats), ZERO),
        commission=amount(totals.get("commission"), "commission"),
        collection=amount(totals.get("collection"), "collection"),
        banker_net=amount(totals.get("banker_net"), "banker_net"),
        house_net=amount(totals.get("house_net"), "house_net"),
        fouls=sum(seat.get("result") == "foul" for seat in seats),
        seats=len(seats),
        cards=(len(seats) + 1) * 7 + sum(len(read) for read in _set_reads(state)),
        problems=tuple(problems),
    )


#: The figures kept per round, in ``floor_rounds``' order.
COLUMNS = tuple(f.name for f in fields(RoundFigures) if f.name != "problems")


def _part(value, where: str, kind: type, problems: list[str]):
    """A part of the recorded settlement, where it is of the ``kind`` it should be (None, absent, is none)."""
    if value is None or isinstance(value, kind):
        return value
    problems.append(f"{where}: {value!r:.40} is not a {kind.__name__}")
    return None


def _recorded(value, where: str, problems: list[str]) -> Decimal:
    """An amount as the settlement records it (the engine's text, signed where it is a result), read by the one
    money parser; one it cannot read counts nothing, and is a problem named.

    >>> problems = []
    >>> _recorded("-19.05", "house_net", problems), _recorded(0.1, "wager", problems), problems
    (Decimal('-19.05'), Decimal('0.00'), ['wager: 0.1 is a float; give money as a string such as "25.00"'])
    """
    if value is None:
        return ZERO
    negative = isinstance(value, str) and value.startswith("-")
    try:
        amount = money(value[1:] if negative else value, where)
    except MoneyError as err:
        problems.append(str(err))
        return ZERO
    return -amount if negative else amount


def _set_reads(state: RoundState) -> list[list]:
    """The readings of the zones where the house dealer sets the banker's hand: each held, and the one accepted."""
    b = state.banker
    reads = [*(held.read for held in b.holds), b.accepted.read if b.accepted else None]
    return [read for read in reads if isinstance(read, list)]


def _reads(state: RoundState) -> list[list]:
    """Every reading of the round's cards: the banker's seven, each setting of them, each seat's hand."""
    dealt = [state.banker.read.read if state.banker.read else None,
             *(seat.read.read if seat.read else None for seat in state.seats.values())]
    return [read for read in dealt if isinstance(read, list)] + _set_reads(state)
