"""Wrong guesses at a secret (a supervisor's PIN, a floor user's password, a screen's pairing code)
counted per key, and how long each key is locked out: the one rule of every gate that takes a secret.

A key is a (kind, name) pair: an id at an address, an address, an id from all addresses... Each kind
has its own number of free failures; at that many the key is locked for ``lockout_s``, doubled at
each further failure up to ``max_lockout_s``. A run of failures older than four times
``max_lockout_s`` is forgiven. A guess is counted before the secret is checked
(:meth:`Lockouts.attempt`), so concurrent guesses cannot slip past the limit; a right secret takes
its count back (:meth:`Lockouts.forgive`).

>>> lockouts = Lockouts({"address": 2}, lockout_s=30.0, clock=lambda: 0.0)
>>> [lockouts.attempt([("address", "10.0.0.7")]) for _ in range(3)]
[None, None, (('address', '10.0.0.7'), 30.0)]
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Key = tuple[str, str]  # (kind, name): ("address", "10.0.0.7"), ("id", "7@10.0.0.7") ...


@dataclass
class Strikes:
    """Failed guesses from one key and how long it is locked."""

    failures: int = 0
    locked_until: float = 0.0
    last: float = 0.0


class Lockouts:
    def __init__(self, free: dict[str, int], lockout_s: float = 30.0, max_lockout_s: float = 900.0,
                 clock: Callable[[], float] = time.monotonic, most_kept: int = 10_000):
        """``free``: each kind of key's failures before it is locked; past ``most_kept`` keys the quiet
        ones are dropped (a flood of made-up names or addresses)."""
        self.free, self.lockout_s, self.max_lockout_s = free, lockout_s, max_lockout_s
        self.clock, self.most_kept = clock, most_kept
        self._strikes: dict[Key, Strikes] = {}
        self._lock = threading.Lock()  # the counters only: the slow check of the secret runs outside it

    def attempt(self, keys: Sequence[Key]) -> tuple[Key, float] | None:
        """A guess from ``keys``: counted against each of them (None), or, while one is locked, refused
        uncounted: that key and the seconds left."""
        with self._lock:
            now = self.clock()
            lock = self._longest_lock(keys, now)
            if lock is not None:
                return lock
            for key in keys:
                self._strike(key, now)
            return None

    def locked(self, keys: Sequence[Key]) -> tuple[Key, float] | None:
        """The key of ``keys`` locked the longest and the seconds left, or None."""
        with self._lock:
            return self._longest_lock(keys, self.clock())

    def strikes(self, key: Key) -> Strikes | None:
        with self._lock:
            found = self._strikes.get(key)
            return Strikes(found.failures, found.locked_until, found.last) if found else None

    def forgive(self, keys: Sequence[Key]) -> None:
        """The secret was right: the first key (this id at this address) starts afresh; from each other
        key the failure :meth:`attempt` counted is taken back, and the others stay (a right guess does
        not wipe out what guessers did)."""
        with self._lock:
            self._strikes.pop(keys[0], None)
            for key in keys[1:]:
                strikes = self._strikes.get(key)
                if strikes is None:
                    continue
                strikes.failures -= 1
                if strikes.failures < self.free[key[0]]:
                    strikes.locked_until = 0.0
                if strikes.failures <= 0:
                    del self._strikes[key]

    def _longest_lock(self, keys: Sequence[Key], now: float) -> tuple[Key, float] | None:
        until, key = max(((self._strikes[k].locked_until, k) for k in keys if k in self._strikes), default=(0.0, None))
        return (key, until - now) if until > now else None

    def _strike(self, key: Key, now: float) -> None:
        strikes = self._strikes.setdefault(key, Strikes())
        if now - strikes.last > self.max_lockout_s * 4:
            strikes.failures = 0  # an old run of failures is forgiven
        strikes.failures += 1
        strikes.last = now
        free = self.free[key[0]]
        if strikes.failures >= free:
            strikes.locked_until = now + min(self.lockout_s * 2 ** (strikes.failures - free), self.max_lockout_s)
        if len(self._strikes) > self.most_kept:
            for quiet in [k for k, s in self._strikes.items() if s.locked_until < now][:self.most_kept // 2]:
                del self._strikes[quiet]
