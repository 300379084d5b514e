"""A round and its settlement as JSON data (the ``appliance settle`` format).

Input::

    {"house": "capitol",
     "banker": {"seat": "dealer" or N, "wager": "100.00", "cards": [7 codes]} or "front"/"back",
                (a house dealer's front/back must be the house way's unless "set_by": "dealer"),
     "action_seat": N or "dealer",
     "seats": [{"seat": N, "wager": "25.00", "front": [2], "back": [5]} or "cards": [7],
               with an optional "bonus": {"fortune": "5.00"}, and an optional "backline":
               [{"wager": "10.00", "by": "B", "bonus": {...}}]: other players' wagers riding on the hand
               (Capitol's backline, rules 18-19; Fortune's other betting circles, rule 5)],
     "previous_rounds": [{"banker": "dealer" or N, "wagered": [seats]}, ...]}  (optional, oldest first:
               a player-banker the house's rotation rules did not allow is then refused)

Every error names the field (``seats[2].front[1]: unknown card 'Zz'``).
"""

from __future__ import annotations

from typing import Any

from .banking import BankRound
from .cards import CardError, card
from .money import ZERO, fmt
from .schema import Section
from .settlement import Banker, Bet, Hand, Played, Round, RoundError, Settlement, Wager, WagerSettlement
from .start_seat import DEALER, Position
from .values import Evaluator


def house_of(data: Any, source: str = "round") -> str | None:
    """The house named in a round, if any."""
    if isinstance(data, dict) and "house" in data:
        value = data["house"]
        if not isinstance(value, str):
            raise RoundError(f"{source}: house: expected a house name, got {value!r}")
        return value
    return None


def round_from_json(data: Any, source: str = "round") -> Round:
    top = Section(data, source, error=RoundError)
    top.raw("house", None)  # read by the caller to pick the rules
    b = top.table("banker")
    set_by = b.raw("set_by", None)
    if set_by not in (None, "dealer"):
        raise b.error("set_by", f'expected "dealer" (a house dealer\'s setting settled as laid), got {set_by!r}')
    banker = Banker(seat=_position(b, "seat"), hand=_hand(b), wager=b.amount("wager") if b.has("wager") else None,
                    set_by=set_by)
    b.done()
    action = _position(top, "action_seat")
    bets = []
    for t in top.tables("seats"):
        backline = []
        for k, w in enumerate(t.tables("backline", [])):
            backline.append(Wager(w.amount("wager"), w.string("by") if w.has("by") else f"backline {k + 1}",
                                  _fortune(w)))
            w.done()
        bets.append(Bet(seat=t.integer("seat", 1, 7), wager=t.amount("wager"), hand=_hand(t), fortune=_fortune(t),
                        backline=tuple(backline)))
        t.done()
    history = None
    if top.has("previous_rounds"):
        history = tuple(_bank_round(r) for r in top.tables("previous_rounds"))
    top.done()
    return Round(banker, action, tuple(bets), history)


def _bank_round(t: Section) -> BankRound:
    wagered = t.raw("wagered")
    if not isinstance(wagered, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in wagered):
        raise t.error("wagered", f"expected a list of seat numbers, got {wagered!r}")
    result = BankRound(_position(t, "banker"), frozenset(wagered))
    t.done()
    return result


def _fortune(t: Section):
    bonus = t.table("bonus", optional=True)
    if bonus is None:
        return ZERO
    if bonus.has("envy"):
        raise bonus.error("envy", "there is no separate Envy wager: a Fortune bet of the house's "
                                  "Envy minimum qualifies the seat for Envy")
    fortune = bonus.amount("fortune", ZERO)
    bonus.done()
    return fortune


def _position(t: Section, key: str) -> Position:
    value = t.raw(key)
    if value == DEALER:
        return DEALER
    if isinstance(value, bool) or not isinstance(value, int):
        raise t.error(key, f'expected a seat number or "dealer", got {value!r}')
    return value


def _hand(t: Section) -> Hand:
    parts = {}
    for key in ("front", "back", "cards"):
        if t.has(key):
            codes = t.raw(key)
            if not isinstance(codes, list):
                raise t.error(key, f"expected a list of card codes, got {codes!r}")
            cards = []
            for i, code in enumerate(codes):
                if not isinstance(code, str):  # card() takes an index too: 14 would be a card
                    raise t.error(f"{key}[{i}]", f"expected a card code such as \"Ah\", got {code!r}")
                try:
                    cards.append(card(code))
                except CardError as err:
                    raise t.error(f"{key}[{i}]", str(err)) from None
            parts[key] = tuple(cards)
    return Hand(**parts)


def settlement_to_json(s: Settlement, ev: Evaluator) -> dict:
    return {
        "house": s.house,
        "banker": {"seat": s.banker_seat, **_played(s.banker, ev), "net": fmt(s.banker_net),
                   "commission": fmt(s.banker_commission), "collection": fmt(s.banker_collection)},
        "action_order": list(s.action_order),
        "seats": [
            {
                "seat": seat.seat,
                "result": seat.result.value,
                "front": seat.front.value if seat.front else None,
                "back": seat.back.value if seat.back else None,
                "wager": fmt(seat.wager),
                "action": fmt(seat.action),
                "won": fmt(seat.won),
                "lost": fmt(seat.lost),
                "commission": fmt(seat.commission),
                "collection": fmt(seat.collection),
                "bonus": {"fortune": fmt(seat.fortune), "fortune_line": seat.fortune_line, "envy": fmt(seat.envy)},
                "net": fmt(seat.net),
                "reason": seat.reason,
                **_played(seat.played, ev),
                **({"wagers": [_wager(w) for w in seat.wagers]} if seat.wagers else {}),
            }
            for seat in s.seats
        ],
        "totals": {
            "commission": fmt(s.commission),
            "collection": fmt(s.collection),
            "banker_net": fmt(s.banker_net),
            "bonus_net": fmt(s.bonus_net),
            "house_net": fmt(s.house_net),
        },
        "notes": list(s.notes),
    }


def _wager(w: WagerSettlement) -> dict:
    return {"by": w.by, "result": w.result.value, "wager": fmt(w.wager), "action": fmt(w.action), "won": fmt(w.won),
            "lost": fmt(w.lost), "commission": fmt(w.commission), "collection": fmt(w.collection),
            "bonus": {"fortune": fmt(w.fortune), "envy": fmt(w.envy)}, "net": fmt(w.net), "reason": w.reason}


def _played(p: Played, ev: Evaluator) -> dict:
    out = {"hand": p.hand.to_json(ev), "house_way_rule": p.rule}
    if p.reset_from is not None:
        out["reset_from"] = p.reset_from.to_json(ev)
    return out
