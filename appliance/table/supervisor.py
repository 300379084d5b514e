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
from typing import NoReturn

from ..lockouts import Lockouts
from .repeats import Repeats
from .round import Events

ITERATIONS = 200_000
PIN_LIMIT = 8  # digits of a PIN at most: the table's checks here, and the longest the dashboard reads
ID_LOGGED = 64  # characters of a refused id that are logged: an id is a badge number, not a document
# Where a PIN typed is the table's own screen (the kiosk on the box, or a call in the process): the floor on an
# id's failures in all does not apply there, so that guesses from the network never lock out the table itself.
OWN_SCREEN = frozenset({"local", "127.0.0.1", "::1"})
KNOWN_ADDRESSES = 16  # addresses remembered per id as ones its right PIN came from (the latest kept)


class PinError(ValueError):
    """A PIN that is refused: wrong, badly formed, or tried too often."""


def hash_pin(pin: str, iterations: int = ITERATIONS) -> str:
    if not (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= PIN_LIMIT):  # 0-9: isdigit alone takes "١" and "²"
        raise PinError(f"a supervisor PIN is 4 to {PIN_LIMIT} digits")
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def new_pin(pin: str) -> str:
    """The stored hash of a new supervisor's PIN (or a changed one): 6 to 8 digits."""
    if not (pin.isascii() and pin.isdigit() and 6 <= len(pin) <= PIN_LIMIT):
        raise PinError(f"a new supervisor PIN is 6 to {PIN_LIMIT} digits")
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
        self.lockouts = Lockouts({"id": free, "address": address_free, "all": id_free_in_all}, lockout_s,
                                 max_lockout_s, clock)
        self._known: dict[str, list[str]] = {}  # id -> addresses its right PIN came from, latest last
        self._lock = threading.Lock()  # the known addresses; the slow hash and the record run outside it

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
        lock = self.lockouts.attempt(keys)  # counted now, forgiven below if the PIN is right
        if lock is not None:
            (kind, _), left = lock
            spread = " for this id from many addresses" if kind == "all" else ""
            self._refuse(supervisor, address, f"too many wrong PINs{spread}: locked for {left:.0f} s more")
        stored = self.supervisors.get(supervisor)
        right = check_pin(pin, stored if stored is not None else _dummy_hash()) and stored is not None
        if right:
            self.lockouts.forgive(keys)
            with self._lock:
                known = [a for a in self._known.get(supervisor, []) if a != address]
                self._known[supervisor] = [*known, address][-KNOWN_ADDRESSES:]
            return supervisor
        why = "unknown supervisor or wrong PIN"
        strikes, now = self.lockouts.strikes(keys[0]), self.lockouts.clock()
        if strikes is not None and strikes.locked_until > now:
            why += f"; {strikes.failures} failures: locked for {strikes.locked_until - now:.0f} s"
        self._refuse(supervisor, address, why)

    def stored(self, supervisor: str) -> str | None:
        """The hash a session was opened with is compared to this: a changed PIN ends the session."""
        return self.supervisors.get(supervisor)

    def _refuse(self, supervisor: str, address: str, why: str) -> NoReturn:
        refusal = {"supervisor": supervisor[:ID_LOGGED], "address": address, "reason": why}
        self.refusals.offer(address, Events.SUPERVISOR_REFUSED, refusal, "supervisor gate")
        raise PinError(why)
