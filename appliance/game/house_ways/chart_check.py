"""A chart is proven before it is used: every rank pattern is set by it, and none may foul.

Every rank pattern (67,600), dealt with suits spread and with suits packed into a flush
(:mod:`.patterns`), is set by the chart under the bug joker the charts are written for and the
house's wheel and same-pair foul rules. A chart whose line fouls a hand, or that has no line for
a hand, or whose line cannot be played on a hand it names, is refused with an error naming the
line and a hand. The answer is remembered for the chart's content and those rules, so a chart is
swept once per process (a replay reads the same chart with every round).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..cards import format_cards
from ..values import Evaluator, JokerRule, evaluator
from .chart import Chart, ChartError, ChartGapError, parse_chart
from .patterns import every_deal
from .shape import Shape


class ChartFoulsError(ChartError):
    """A chart with a line that fouls a hand (or none that sets it): refused at load."""


@dataclass(frozen=True)
class ChartProof:
    chart: str
    settings: int  # both deals of every rank pattern
    seconds: float


_PROVEN: dict[tuple, ChartProof] = {}


def check_chart(chart: Chart, ev: Evaluator) -> ChartProof:
    """Set both deals of every rank pattern by ``chart``; raise :class:`ChartFoulsError` at the first foul."""
    bug = evaluator(JokerRule.BUG, ev.wheel, ev.equal_pair_behind_fouls)
    key = (chart.digest, bug.wheel, bug.equal_pair_behind_fouls)
    if key in _PROVEN:
        return _PROVEN[key]
    started = time.perf_counter()
    settings = 0
    two, five, fouls = bug.two, bug.five, bug.fouls
    for cards in every_deal():
        shape = Shape(cards, bug)
        try:
            line = chart.line_for(shape)
        except ChartGapError:
            raise ChartFoulsError(f"{chart.source}: no line sets {' '.join(format_cards(cards))} "
                                  f"({_hand(shape)}): a chart sets every hand") from None
        try:
            d = chart.play(line, shape)
        except (ValueError, IndexError, StopIteration, TypeError) as err:
            raise ChartFoulsError(f"{chart.source}: {line.where()}: cannot play {line.play!r} on "
                                  f"{' '.join(format_cards(cards))}: {err or type(err).__name__}") from None
        fv, bv = two(d.front), five(d.back)
        if fouls(fv, bv):
            raise ChartFoulsError(
                f"{chart.source}: {line.where()} fouls {' '.join(format_cards(cards))}: "
                f"{bug.name(fv)} in front over {bug.name(bv)} behind; a house way never fouls")
        settings += 1
    proof = _PROVEN[key] = ChartProof(chart.name, settings, round(time.perf_counter() - started, 2))
    return proof


def _hand(shape: Shape) -> str:
    from .chart import HAND_OF_SIZES
    return HAND_OF_SIZES[shape.sizes]


def load_chart(data: Mapping[str, Any], source: str, ev: Evaluator) -> Chart:
    """Read a chart and prove it under a house's rules: the one way a chart comes into use."""
    chart = parse_chart(data, source)
    check_chart(chart, ev)
    return chart
