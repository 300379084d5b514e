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

Each refusal names the house-file key that encodes the rule.
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


def _ordinal(n: int) -> str:
    return f"{n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'}"
