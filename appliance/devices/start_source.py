"""Start-seat values from any source, each logged and fed to its health check.

The serial RNG and dice shaker, and the built-in generator, all end here: every value is
logged like a device value, and a distribution that departs from uniform raises a
device-health warning once (and a recovery message when it passes again).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from .health import HealthCheck, UniformityMonitor
from .protocol import DiceResult, RngResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HealthWarning:
    source: str
    check: HealthCheck
    die: int | None = None  # which die of the shaker, 1-3

    def message(self) -> str:
        what = self.source if self.die is None else f"{self.source} die {self.die}"
        return (f"{what}: values depart from uniform (chi-square {self.check.chi_square:.1f}, "
                f"p = {self.check.p_value:.2g} over {self.check.count} values)")


class HealthTracker:
    """The running chi-square checks of one source: one for an RNG, one per die for a shaker."""

    def __init__(self, source: str, window: int = 700, alpha: float = 0.01,
                 on_warning: Callable[[HealthWarning], None] = lambda w: None):
        self.source = source
        self.window, self.alpha = window, alpha
        self._on_warning = on_warning
        self._monitors: dict[int | None, UniformityMonitor] = {}
        self._warned: set[int | None] = set()

    def observe(self, result: RngResult | DiceResult) -> list[HealthWarning]:
        if isinstance(result, RngResult):
            values: list[tuple[int | None, int, int]] = [(None, result.value, 7)]
            log.info("%s value %d (seq %d)", self.source, result.value, result.seq)
        else:
            values = [(i + 1, d, 6) for i, d in enumerate(result.dice)]
            log.info("%s dice %s total %d (seq %d)", self.source, list(result.dice), result.total, result.seq)
        warnings = []
        for key, value, faces in values:
            monitor = self._monitors.setdefault(key, UniformityMonitor(faces, self.window, self.alpha))
            monitor.add(value)
            check = monitor.check()
            if check.warning and key not in self._warned:
                self._warned.add(key)
                warning = HealthWarning(self.source, check, key)
                log.warning(warning.message())
                self._on_warning(warning)
                warnings.append(warning)
            elif not check.warning and key in self._warned:
                self._warned.discard(key)
                log.warning("%s%s: values pass the uniformity check again", self.source,
                            "" if key is None else f" die {key}")
        return warnings
