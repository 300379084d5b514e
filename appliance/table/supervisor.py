"""Supervisor PINs: stored as salted PBKDF2 hashes (never in clear), checked in constant time, with
failed attempts rate-limited and logged.

A new supervisor's PIN has 6 to 8 digits (:func:`new_pin`); PINs stored before that rule (4 or 5
digits) still check until they are changed.

>>> stored = hash_pin("4821")
>>> stored.startswith("pbkdf2_sha256$") and "4821" not in stored
True
>>> check_pin("4821", stored), check_pin("4822", stored)
(True, False)
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from .repeats import Repeats
from .round import Events

ITERATIONS = 200_000
ID_LOGGED = 64  # characters of a refused id that are logged: an id is a badge number, not a document
# Where a PIN typed is the table's own screen (the kiosk on the box, or a call in the process): the floor on an
# id's failures in all does not apply there, so that guesses from the network never lock out the table itself.
OWN_SCREEN = frozenset({"local", "127.0.0.1", "::1"})
KNOWN_ADDRESSES = 16  # addresses remembered per id as ones its right PIN came from (the latest kept)


class PinError(ValueError):
    """A PIN that is refused: wrong, badly formed, or tried too often."""


def hash_pin(pin: str, iterations: int = ITERATIONS) -> str:
    if not (pin.isdigit() and 4 <= len(pin) <= 8):
        raise PinError("a supervisor PIN is 4 to 8 digits")
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def new_pin(pin: str) -> str:
    """The stored hash of a new supervisor's PIN (or a changed one): 6 to 8 digits."""
    if not (pin.isdigit() and 6 <= len(pin) <= 8):
        raise PinError("a new supervisor PIN is 6 to 8 digits")
    return hash_pin(pin)


def check_pin(pin: str, stored: str) -> bool:
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        candidate = hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(candidate.hex(), digest)


@functools.cache
def _dummy_hash() -> str:
    """What an unknown id's PIN is checked against, so that it costs what a known id's check costs."""
    return hash_pin("00000000")


@dataclass
class Strikes:
    """Failed PINs from one key (an id at an address, or an address) and how long it is locked."""

    failures: int = 0
    locked_until: float = 0.0
    last: float = 0.0


def tried(summary: dict, refusal: dict) -> dict:
    """A window's later refusals from one address, folded into one record: the ids tried and the reasons
    given, a few of each, so that a spray of made-up ids (each cut to ``ID_LOGGED``) stays one small record.

    >>> summary = tried({}, {"supervisor": "7", "address": "a", "reason": "wrong PIN"})
    >>> tried(summary, {"supervisor": "8", "address": "a", "reason": "wrong PIN"})["supervisor"]
    '(several)'
    """
    ids, reasons = summary.get("ids", []), summary.get("reasons", [])
    if refusal["supervisor"] not in ids and len(ids) < 10:
        ids = [*ids, refusal["supervisor"]]
    if refusal["reason"] not in reasons and len(reasons) < 5:
        reasons = [*reasons, refusal["reason"]]
    return {"supervisor": ids[0] if len(ids) == 1 else "(several)", "ids": ids, "address": refusal["address"],
            "reason": reasons[0] if len(reasons) == 1 else "(several)", "reasons": reasons}


class SupervisorGate:
    """Who may act as supervisor.

    Wrong PINs are counted per id *at* an address and per address: after ``free`` failures of an id
    from one address, that pair is locked for ``lockout_s``, doubled at each further failure (up to
    ``max_lockout_s``); an address that fails ``address_free`` times over any ids is locked the same
    way. One id's failures never lock another id unless the address is spraying.

    An id's failures are also counted over all addresses: guesses spread thin over a hundred addresses
    (each under its own limits) lock the id after ``id_free_in_all`` of them, the same way, except at
    the table's own screen and at the addresses the id has given its right PIN from since the start.
    So the real supervisor at the table, or at a screen already used, is not locked out by someone
    guessing elsewhere; a new screen waits for the lock to pass.

    An unknown id costs the same PBKDF2 as a known one, so ids cannot be told apart by time. A failure
    is counted before the PIN is hashed, so concurrent guesses cannot slip past the limit.

    Refusals are recorded through ``record(event, data, who)`` as the table's repeated faults are, but
    per address (``refusals``): the first of a window at once, the rest of the window as one record
    of the ids tried (:func:`tried`) when it ends."""

    def __init__(self, supervisors: dict[str, str] | Callable[[], dict[str, str]],
                 record: Callable[[str, dict, str], dict | None] = lambda event, data, who: None, free: int = 5,
                 address_free: int = 20, lockout_s: float = 30.0, max_lockout_s: float = 900.0,
                 window_s: float = 60.0, clock: Callable[[], float] = time.monotonic, id_free_in_all: int = 30):
        self._source = supervisors if callable(supervisors) else (lambda: supervisors)
        self.refusals = Repeats(record, window_s, fold=tried)
        self.free, self.address_free, self.id_free_in_all = free, address_free, id_free_in_all
        self._known: dict[str, list[str]] = {}  # id -> addresses its right PIN came from, latest last
        self.lockout_s, self.max_lockout_s = lockout_s, max_lockout_s
        self._clock = clock
        self._strikes: dict[tuple[str, str], Strikes] = {}
        self._lock = threading.Lock()  # the counters only; the slow hash and the record run outside it

    @property
    def supervisors(self) -> dict[str, str]:
        """The configured supervisors as they are now (a changed PIN shows at once)."""
        return self._source()

    def check(self, supervisor: str, pin: str, address: str = "local") -> str:
        """The supervisor's id, or :class:`PinError` (logged)."""
        keys = [("id", f"{supervisor[:ID_LOGGED]}@{address}"), ("address", address)]
        with self._lock:
            if address not in OWN_SCREEN and address not in self._known.get(supervisor, ()):
                keys.append(("all", supervisor[:ID_LOGGED]))
            now = self._clock()
            lock, locked = max(((k, self._strikes[k].locked_until) for k in keys if k in self._strikes),
                               key=lambda pair: pair[1], default=(None, 0.0))
            if now >= locked:
                for key in keys:  # counted now, forgiven below if the PIN is right
                    self._strike(key, now)
        if now < locked:
            spread = " for this id from many addresses" if lock[0] == "all" else ""
            self._refuse(supervisor, address, f"too many wrong PINs{spread}: locked for {locked - now:.0f} s more")
        stored = self.supervisors.get(supervisor)
        right = check_pin(pin, stored if stored is not None else _dummy_hash()) and stored is not None
        with self._lock:
            now = self._clock()
            if right:
                self._strikes.pop(keys[0], None)
                for key, free in zip(keys[1:], (self.address_free, self.id_free_in_all)):
                    self._forgive(key, free)
                known = [a for a in self._known.get(supervisor, []) if a != address]
                self._known[supervisor] = [*known, address][-KNOWN_ADDRESSES:]
                return supervisor
            why = "unknown supervisor or wrong PIN"
            strikes = self._strikes[keys[0]]
            if strikes.locked_until > now:
                why += f"; {strikes.failures} failures: locked for {strikes.locked_until - now:.0f} s"
        self._refuse(supervisor, address, why)

    def stored(self, supervisor: str) -> str | None:
        """The hash a session was opened with is compared to this: a changed PIN ends the session."""
        return self.supervisors.get(supervisor)

    def _strike(self, key: tuple[str, str], now: float) -> None:
        strikes = self._strikes.setdefault(key, Strikes())
        if now - strikes.last > self.max_lockout_s * 4:
            strikes.failures = 0  # an old run of failures is forgiven
        strikes.failures += 1
        strikes.last = now
        free = {"id": self.free, "address": self.address_free, "all": self.id_free_in_all}[key[0]]
        if strikes.failures >= free:
            strikes.locked_until = now + min(self.lockout_s * 2 ** (strikes.failures - free), self.max_lockout_s)
        if len(self._strikes) > 10_000:  # a flood of made-up ids: drop the quiet ones
            for k in [k for k, s in self._strikes.items() if s.locked_until < now][:5_000]:
                del self._strikes[k]

    def _forgive(self, key: tuple[str, str], free: int) -> None:
        """The failure counted for a right PIN taken back (the others stay: a supervisor's login does not
        wipe out what guessers did)."""
        strikes = self._strikes.get(key)
        if strikes is not None:
            strikes.failures -= 1
            strikes.locked_until = 0.0 if strikes.failures < free else strikes.locked_until

    def _refuse(self, supervisor: str, address: str, why: str) -> NoReturn:
        refusal = {"supervisor": supervisor[:ID_LOGGED], "address": address, "reason": why}
        self.refusals.offer(address, Events.SUPERVISOR_REFUSED, refusal, "supervisor gate")
        raise PinError(why)
