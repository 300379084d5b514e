"""Who may bank: the house's rotation rules, as a pure check over the rounds before.

>>> from appliance.game.rules import Banking, BankingMode, BankerSetting
>>> greek = Banking(BankingMode.PLAYER_OPTIONAL, BankerSetting.OWN, offer_every=2, max_consecutive=1,
...                 requires_previous_wager=True)
>>> history = [BankRound("dealer", frozenset({1, 3}))]
>>> bank_refusal(3, history, greek) is None
True
>>> bank_refusal(2, history, greek)
'seat 2 did not wager in the last round the house banked (banking.requires_previous_wager)'
>>> bank_refusal(3, history + [BankRound(3, frozenset({1}))], greek)
'the bank is offered to players every 2nd round; the house banks this one (banking.offer_every)'

Each refusal names the house-file key that encodes the rule. :func:`bank_offers` gives every seat
in the order the bank is offered this round, each with its refusal:

>>> capitol = Banking(BankingMode.PLAYER, BankerSetting.OWN, max_consecutive=2, requires_prior_hand_wager=True)
>>> [(o.seat, o.refusal is None) for o in bank_offers([BankRound(3, frozenset({1, 3})), BankRound(3, frozenset({1, 3}))], capitol, 4)]
[(4, False), (1, True), (2, False), (3, False)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Banking, BankingMode
from .start_seat import DEALER, Position


@dataclass(frozen=True)
class BankRound:
    """One earlier round, as the rotation rules see it."""

    banker: Position  # "dealer" or the banking player's seat
    wagered: frozenset[int]  # the seats that placed a wager

    @classmethod
    def played(cls, banker: Position, seats) -> BankRound:
        """A settled round with these seats' wagers: a Player/Dealer's own seat wagered too (his bank)."""
        return cls(banker, frozenset({*seats, *([banker] if isinstance(banker, int) else [])}))


def bank_refusal(seat: int, history: Sequence[BankRound], banking: Banking) -> str | None:
    """Why ``seat`` may not bank the next round, or ``None`` if it may (``history`` oldest first)."""
    if banking.mode is BankingMode.HOUSE:
        return "the house banks every round (banking.mode)"
    if banking.offer_every > 1 and banking.mode is BankingMode.PLAYER_OPTIONAL:
        recent = history[-(banking.offer_every - 1):]
        if any(r.banker != DEALER for r in recent):
            return (f"the bank is offered to players every {_ordinal(banking.offer_every)} round; "
                    "the house banks this one (banking.offer_every)")
    if banking.max_consecutive:
        run = 0
        for r in reversed(history):
            if r.banker != seat:
                break
            run += 1
        if run >= banking.max_consecutive:
            return f"seat {seat} has banked {run} consecutive rounds, the most allowed (banking.max_consecutive)"
    if banking.requires_prior_hand_wager and history and seat not in history[-1].wagered:
        return f"no wager was placed on seat {seat} on the prior hand (banking.requires_prior_hand_wager)"
    if banking.requires_previous_wager:
        house_rounds = [r for r in history if r.banker == DEALER]
        if house_rounds and seat not in house_rounds[-1].wagered:
            return f"seat {seat} did not wager in the last round the house banked (banking.requires_previous_wager)"
    return None


@dataclass(frozen=True)
class BankOffer:
    """One seat's turn at the bank this round: ``refusal`` None when the rules let it bank."""

    seat: int
    refusal: str | None

    def to_json(self) -> dict:
        return {"seat": self.seat, "may": self.refusal is None, "refusal": self.refusal}


def bank_offers(history: Sequence[BankRound], banking: Banking, player_seats: int) -> tuple[BankOffer, ...]:
    """Every player seat in the order the bank is offered for the next round, clockwise (rising seat
    numbers): from seat 1 in a new game (Fortune: "The Player/Dealer is determined in a new game by
    starting at seat #1, continuing clockwise"), else from the seat after the last player-banker: the
    offer moves on round the table (general rules: "offers the bank to each seat in rotation"; Capitol:
    "rotates in a systematic and continuous manner"). Only where the house lets a Player/Dealer bank
    consecutive hands (``banking.max_consecutive`` of 2 or more) does he keep the first refusal while the
    rules allow (Fortune: "the option to be the Player/Dealer for two consecutive hands"). None at a
    house-banked table."""
    if banking.mode is BankingMode.HOUSE:
        return ()
    last = next((r.banker for r in reversed(history) if isinstance(r.banker, int)), None)  # not the dealer
    first = 1 if last is None else last % player_seats + 1  # the option passes on
    if last is not None and banking.max_consecutive > 1 and bank_refusal(last, history, banking) is None:
        first = last  # his next consecutive hand, first
    seats = [(first - 1 + k) % player_seats + 1 for k in range(player_seats)]
    return tuple(BankOffer(seat, bank_refusal(seat, history, banking)) for seat in seats)


def passed_over(banker: Position, offers: Sequence[BankOffer]) -> list[int]:
    """The seats offered the bank before ``banker`` that could have taken it: they passed."""
    if banker == DEALER:
        return [o.seat for o in offers if o.refusal is None]
    before: list[int] = []
    for offer in offers:
        if offer.seat == banker:
            return before
        if offer.refusal is None:
            before.append(offer.seat)
    return before


def history_needed(history: Sequence[BankRound], banking: Banking) -> list[BankRound]:
    """The end of ``history`` that every refusal depends on: what a round records to be checked again
    (the rounds since the last the house banked, the last ``max_consecutive``, the prior hand)."""
    depth = max(banking.offer_every - 1, banking.max_consecutive, 1 if banking.requires_prior_hand_wager else 0)
    if banking.requires_previous_wager:
        house = [i for i, r in enumerate(history) if r.banker == DEALER]
        if house:
            depth = max(depth, len(history) - house[-1])
    return list(history[len(history) - depth:]) if depth else []


def _ordinal(n: int) -> str:
    return f"{n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'}"
