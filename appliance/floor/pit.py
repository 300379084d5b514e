"""What the pit view shows, read from the floor's database: every table's state, the open alerts,
the gaming day's figures per table, dealer or shift, and the recall of a table's last rounds."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ..game.money import fmt
from ..records.events import Events
from ..records.fold import fold_round
from ..records.round_state import RoundState

OFFLINE_AFTER = dt.timedelta(seconds=15)  # a shipper says hello every few seconds, even with nothing to send
SHIFTS = ("day", "swing", "grave")  # eight hours each from the start of the gaming day
GROUPS = {"table": "table_id", "dealer": "dealer", "shift": "shift"}


class StatsError(ValueError):
    """A figures request that names no known grouping or no valid day."""


def gaming_day(now: dt.datetime, starts: dt.time) -> dt.date:
    """The gaming day a local time belongs to (it runs from ``starts`` to the next day's).

    >>> gaming_day(dt.datetime(2026, 12, 1, 5, 59), dt.time(6, 0)), gaming_day(dt.datetime(2026, 12, 1, 6, 0), dt.time(6, 0))
    (datetime.date(2026, 11, 30), datetime.date(2026, 12, 1))
    """
    return now.date() if now.time() >= starts else now.date() - dt.timedelta(days=1)


def status_of(last_seen: dt.datetime | None, held: bool, recording: bool | None, now: dt.datetime,
              refused: bool = False) -> str:
    """Offline once the table has been silent too long, whatever it last said; refused while the floor
    refuses its records (heard from, but nothing it sends is taken: never online); then what it said.

    >>> now = dt.datetime(2026, 12, 1, 12, 0)
    >>> [status_of(now - dt.timedelta(seconds=s), held, rec, now, refused) for s, held, rec, refused in
    ...  ((16, False, True, True), (1, False, True, True), (1, True, True, False), (1, True, False, False),
    ...   (1, False, None, False))]
    ['offline', 'refused', 'held', 'recording-stopped', 'online']
    """
    if last_seen is None or now - last_seen > OFFLINE_AFTER:
        return "offline"
    if refused:
        return "refused"
    if recording is False:
        return "recording-stopped"
    return "held" if held else "online"


def tables(conn) -> list[dict]:
    now = conn.execute("SELECT now()").fetchone()[0]
    rows = conn.execute("SELECT table_id, records, head_seq, last_seen, held, recording, phase, current_round, "
                        "last_settlement, devices, table_says, refused_since IS NOT NULL FROM floor_tables "
                        "ORDER BY table_id").fetchall()
    return [{"table": r[0], "records": r[1], "head_seq": r[2],
             "status": status_of(r[3], r[4], r[5], now, r[11]),
             "last_seen": r[3].isoformat() if r[3] else None, "phase": r[6], "round": r[7],
             "last_settlement": r[8], "devices": r[9],
             "behind": max(0, (r[10] or 0) - r[2])} for r in rows]


def alerts(conn, day: dt.date) -> list[dict]:
    """The open alerts, newest first, then the day's rates out of line."""
    rows = conn.execute("SELECT id, table_id, kind, message, at FROM floor_alerts WHERE closed_at IS NULL "
                        "ORDER BY at DESC, id DESC").fetchall()
    return [*({"id": r[0], "table": r[1], "kind": r[2], "message": r[3], "at": r[4].isoformat()} for r in rows),
            *rates_out_of_line(conn, day)]


RATE_FACTOR = 3  # a table's rate this many times the rest of the floor's is out of line
RATE_LEAST = 5  # ... once it has at least this many (fouls or unreadable cards): a few are chance
RATES = {"foul-rate": ("fouls", "seats", "fouled hands"), "unreadable-rate": ("unreadable", "cards", "unreadable cards")}


def rates_out_of_line(conn, day: dt.date) -> list[dict]:
    """Tables whose foul or unreadable-card rate today is far above the rest of the floor's: a dealer to
    watch, or a camera, deck or light to look at. Computed when asked, not stored."""
    rows = conn.execute("SELECT table_id, sum(fouls), sum(seats), sum(unreadable), sum(cards), max(began) "
                        "FROM floor_rounds WHERE gaming_day = %s AND settled GROUP BY table_id", (day,)).fetchall()
    figures = {r[0]: {"fouls": r[1], "seats": r[2], "unreadable": r[3], "cards": r[4], "at": r[5]} for r in rows}
    out = []
    for kind, (count, base, what) in RATES.items():
        for table, f in figures.items():
            others = [g for t, g in figures.items() if t != table]
            rest = sum(g[count] for g in others), sum(g[base] for g in others)
            if f[count] < RATE_LEAST or not f[base] or not rest[1]:
                continue
            mine, theirs = f[count] / f[base], rest[0] / rest[1]
            if mine > RATE_FACTOR * theirs:
                out.append({"id": None, "table": table, "kind": kind, "at": f["at"].isoformat(), "message": (
                    f"table {table}: {f[count]} {what} in {f[base]} today ({mine:.1%}), "
                    f"the rest of the floor {theirs:.1%}")})
    return out


STATS = """
SELECT {key} AS key, count(*) FILTER (WHERE settled) AS rounds, min(began) AS first, max(began) AS last,
    sum(wagers) AS wagers, sum(commission) AS commission, sum(collection) AS collection,
    sum(banker_net) AS banker_net, sum(house_net) AS house_net, sum(fouls) AS fouls, sum(seats) AS seats,
    count(*) FILTER (WHERE misdeal) AS misdeals, count(*) FILTER (WHERE voided) AS voids,
    sum(corrections) AS corrections, sum(unreadable) AS unreadable
FROM (SELECT *, floor(extract(epoch FROM began - (gaming_day + %(starts)s::time)) / 28800)::int AS shift
      FROM floor_rounds WHERE gaming_day = %(day)s) per_round
GROUP BY {key} ORDER BY {key}
"""


def _cents(value) -> str:
    """A sum from SQL (None over no rows) as the project writes amounts."""
    return fmt(Decimal(value or 0))


def stats(conn, day: dt.date, by: str = "table", day_starts_at: dt.time = dt.time(6, 0)) -> list[dict]:
    """The gaming day's figures, one row per table, dealer or shift (the hold is the bank's result over wagers)."""
    if by not in GROUPS:
        raise StatsError(f"by: expected one of {', '.join(GROUPS)}, got {by!r}")
    rows = conn.execute(STATS.format(key=GROUPS[by]), {"day": day, "starts": day_starts_at}).fetchall()
    out = []
    for (key, rounds, first, last, wagers, commission, collection, banker_net, house_net, fouls, seats, misdeals,
         voids, corrections, unreadable) in rows:
        hours = (last - first).total_seconds() / 3600 if first and last else 0
        out.append({
            by: SHIFTS[key] if by == "shift" and 0 <= key < 3 else key, "rounds": rounds,
            "rounds_per_hour": round(rounds / hours, 1) if hours >= 0.25 else None,
            "wagers": _cents(wagers), "commission": _cents(commission), "collection": _cents(collection),
            "banker_result": _cents(banker_net), "house_result": _cents(house_net),
            "hold": f"{Decimal(banker_net) / Decimal(wagers) * 100:.2f}%" if wagers else None,
            "fouls": int(fouls), "seats": int(seats), "misdeals": misdeals, "voids": voids,
            "corrections": int(corrections), "unreadable_cards": int(unreadable)})
    return out


def recall(conn, table: str, last: int = 10) -> list[dict]:
    """The table's last rounds, newest first: each as it stands by the one fold (:func:`standing`), and its
    records' events, cards and settlements as recorded (a superseded settlement among them)."""
    rounds = [r[0] for r in conn.execute(
        # the name spelled in the query, as the partial index floor_records_opened is, for the planner to use it
        "SELECT round FROM floor_records WHERE table_id = %s AND event = 'RoundOpened' ORDER BY seq DESC LIMIT %s",
        (table, last))]
    out = []
    for round_id in rounds:
        records = [{"seq": seq, "ts": ts.isoformat(), "event": event, "who": who, "data": data}
                   for seq, ts, event, who, data in conn.execute(
                       "SELECT seq, ts, event, who, line::jsonb -> 'data' FROM floor_records "
                       "WHERE table_id = %s AND round = %s ORDER BY seq", (table, round_id))]
        out.append({"round": round_id, "state": standing(fold_round(round_id, records)), "records": [
            {**{k: r[k] for k in ("seq", "ts", "event", "who")}, "detail": _detail(r["event"], r["data"])}
            for r in records]})
    return out


def standing(state: RoundState) -> dict:
    """A round as it stands, for the recall: ``status`` (open, settled or voided) and phase, the hands as they
    stand (a supervisor's correction applied), the settlement that stands (None while the round is open, so
    from a correction until it is settled again) and a void's reason.

    >>> state = RoundState("r-1")
    >>> back = ["Ah", "Kc", "8d", "5c", "3s"]
    >>> for n, (event, data) in enumerate([
    ...         (Events.ROUND_OPENED, {"banker": "dealer", "bets": [{"seat": 2, "wager": "20"}]}),
    ...         (Events.SEAT_CARDS, {"seat": 2, "front": ["Kd", "Jh"], "back": back}),
    ...         (Events.ROUND_SETTLED, {"settlement": {"totals": {"banker_net": "20.00"}, "seats": []}}),
    ...         (Events.READ_CORRECTED, {"seat": 2, "front": ["Kd", "Jc"], "back": back})], 1):
    ...     state = state.fold({"seq": n, "event": event, "data": {"round": "r-1", **data}})
    >>> shown = standing(state)
    >>> shown["status"], shown["settlement"], shown["corrections"], shown["seats"][0]["front"]
    ('open', None, 1, ['Kd', 'Jc'])
    """
    b = state.banker
    # a setting settled as laid; else the house way's recorded with the seven, while those are the seven
    front, back = b.shown if b.setting is not None or (b.read and b.read.cards == b.cards) else (None, None)
    settlement = state.settlement
    return {"status": state.status, "phase": state.phase.value, "corrections": len(state.corrections),
            "banker": {"seat": b.seat, "cards": b.cards, "front": front, "back": back},
            "seats": [{"seat": s.seat, "front": s.front, "back": s.back} for s in state.seats.values() if s.has_cards],
            "settlement": None if settlement is None else {
                **_detail(Events.ROUND_SETTLED, {"settlement": settlement}), "at": state.settled.at,
                "by": state.settled.who},
            "voided": None if state.void is None else {"reason": state.void.reason, "at": state.void.stamp.at}}


def _detail(event: str, data: dict) -> dict:
    """What a pit boss looks for in each record (the rules and the reads' confidences stay in the record)."""
    if event == Events.ROUND_OPENED:
        return {"banker": data.get("banker"), "bets": data.get("bets")}
    if event in (Events.BANKER_CARDS, Events.SEAT_CARDS):
        return {k: data.get(k) for k in ("seat", "front", "back", "images") if k in data}
    if event in (Events.BANKER_SET_HELD, Events.BANKER_SET):  # the house dealer's setting against the house way's
        return {k: data[k] for k in ("front", "back", "house_way", "differs", "set_by", "reason") if k in data}
    if event == Events.ROUND_SETTLED:
        s = data.get("settlement", {})
        return {"totals": s.get("totals"), "seats": [{k: x.get(k) for k in ("seat", "wager", "result", "net")}
                                                     for x in s.get("seats", [])]}
    return {k: v for k, v in data.items() if k not in ("round", "rules")}
