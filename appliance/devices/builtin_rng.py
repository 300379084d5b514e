"""The appliance as the approved 1-to-7 generator, for houses that allow it.

``secrets.randbelow(7) + 1`` draws from the operating system's generator with no
modulo bias and no second draw; each value is delivered like a device result.
"""

from __future__ import annotations

import secrets

from .protocol import SEQ_MODULO, RngResult


class BuiltinRng:
    kind = "builtin-rng"

    def __init__(self) -> None:
        self.seq = 0

    def draw(self) -> RngResult:
        result = RngResult(self.seq, secrets.randbelow(7) + 1)
        self.seq = (self.seq + 1) % SEQ_MODULO
        return result
