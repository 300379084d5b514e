"""Device health: a running chi-square test that a device's values are uniform.

A biased or tampered start-seat device is a real risk, so every value a source
delivers (1..7 from an RNG, each die 1..6 from a shaker) feeds a window, and a
distribution that departs from uniform at the 99% level raises a warning.

>>> m = UniformityMonitor(faces=7, window=70)
>>> for v in [1, 2, 3, 4, 5, 6, 7] * 10: m.add(v)
>>> m.check().warning
False
>>> for v in [7] * 70: m.add(v)
>>> r = m.check(); r.warning, round(r.p_value, 6)
(True, 0.0)
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass


def chi_square_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with ``dof`` degrees of freedom.

    >>> round(chi_square_sf(16.812, 6), 4), round(chi_square_sf(15.086, 5), 4)
    (0.01, 0.01)
    """
    if x <= 0:
        return 1.0
    if dof % 2 == 0:
        term = total = math.exp(-x / 2)
        for i in range(1, dof // 2):
            term *= (x / 2) / i
            total += term
        return min(1.0, total)
    total = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    for k in range(1, (dof + 1) // 2):
        total += term
        term *= x / (2 * k + 1)
    return min(1.0, total)


@dataclass(frozen=True)
class HealthCheck:
    count: int
    chi_square: float
    p_value: float
    warning: bool
    counts: dict[int, int]

    def to_json(self) -> dict:
        return {"count": self.count, "chi_square": round(self.chi_square, 3), "p_value": self.p_value,
                "warning": self.warning, "counts": {str(face): n for face, n in self.counts.items()}}


class UniformityMonitor:
    def __init__(self, faces: int, window: int = 700, alpha: float = 0.01, min_expected: float = 5.0):
        self.faces = faces
        self.alpha = alpha
        self.min_expected = min_expected
        self._values: deque[int] = deque(maxlen=window)

    def add(self, value: int) -> None:
        if not 1 <= value <= self.faces:
            raise ValueError(f"value {value} is not a face 1..{self.faces}")
        self._values.append(value)

    def check(self) -> HealthCheck:
        """The test over the window; no warning until every face is expected ``min_expected`` times."""
        n = len(self._values)
        counts = Counter(self._values)
        expected = n / self.faces
        if n == 0:
            return HealthCheck(0, 0.0, 1.0, False, {})
        chi = sum((counts.get(face, 0) - expected) ** 2 / expected for face in range(1, self.faces + 1))
        p = chi_square_sf(chi, self.faces - 1)
        enough = expected >= self.min_expected
        return HealthCheck(n, chi, p, enough and p < self.alpha, {f: counts.get(f, 0) for f in range(1, self.faces + 1)})
