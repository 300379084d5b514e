"""Supervisor PINs: stored as salted PBKDF2 hashes (never in clear), checked in constant time, with
failed attempts rate-limited and logged.

>>> stored = hash_pin("4821")
>>> stored.startswith("pbkdf2_sha256$") and "4821" not in stored
True
>>> check_pin("4821", stored), check_pin("4822", stored)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections.abc import Callable

ITERATIONS = 200_000


class PinError(ValueError):
    """A PIN that is refused: wrong, badly formed, or tried too often."""


def hash_pin(pin: str, iterations: int = ITERATIONS) -> str:
    if not (pin.isdigit() and 4 <= len(pin) <= 8):
        raise PinError("a supervisor PIN is 4 to 8 digits")
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def check_pin(pin: str, stored: str) -> bool:
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        candidate = hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(candidate.hex(), digest)


class SupervisorGate:
    """Who may act as supervisor. Five failures in a row lock the gate for a minute."""

    def __init__(self, supervisors: dict[str, str], on_failure: Callable[[str, str], None] = lambda who, why: None,
                 max_failures: int = 5, lockout_s: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.supervisors = supervisors  # id -> stored hash
        self._on_failure = on_failure
        self.max_failures, self.lockout_s = max_failures, lockout_s
        self._clock = clock
        self._failures = 0
        self._locked_until = 0.0
        self._lock = threading.Lock()  # one check at a time: concurrent guesses cannot pass the limit

    def check(self, supervisor: str, pin: str) -> str:
        """The supervisor's id, or :class:`PinError` (logged through ``on_failure``)."""
        with self._lock:
            return self._check(supervisor, pin)

    def _check(self, supervisor: str, pin: str) -> str:
        now = self._clock()
        if now < self._locked_until:
            why = f"too many wrong PINs: locked for {self._locked_until - now:.0f} s more"
            self._on_failure(supervisor, why)
            raise PinError(why)
        stored = self.supervisors.get(supervisor)
        if stored is None or not check_pin(pin, stored):
            self._failures += 1
            why = "unknown supervisor or wrong PIN"
            if self._failures >= self.max_failures:
                self._locked_until, self._failures = now + self.lockout_s, 0
                why += f"; {self.max_failures} failures: locked for {self.lockout_s:.0f} s"
            self._on_failure(supervisor, why)
            raise PinError(why)
        self._failures = 0
        return supervisor
