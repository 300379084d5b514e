"""Who may log in to the floor's pages, and how fast wrong passwords are let through.

Wrong passwords are counted per name *at* an address, per address, and per name over all addresses:
past ``free`` failures of a name from one address that pair is locked for ``lockout_s``, doubled at
each further failure up to ``max_lockout_s``; an address past ``address_free`` failures over any names
is locked the same way, and so is a name past ``name_free`` failures from anywhere (guesses spread over
many addresses are slowed too; the real user then waits out the lock, which doubles from
``lockout_s`` as the others do). A failure is counted before the password is hashed, so concurrent
guesses cannot slip past the limit; an unknown name costs the same scrypt as a known one, so names
cannot be told apart by time. The same rules as the tables' supervisor PINs (``SupervisorGate``),
with the floor's passwords.

>>> gate = LoginGate(lambda name: None, free=2, address_free=100, name_free=100, clock=lambda: 0.0)
>>> for _ in range(3):
...     try:
...         gate.check("ann", "guess", "10.0.0.7")
...     except LoginRefused as err:
...         print(err)
unknown user or wrong password
unknown user or wrong password; locked for 30 s
too many wrong passwords: locked for 30 s more
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from .users import check_password, hash_password

log = logging.getLogger(__name__)
NAME_LOGGED = 64  # characters of a refused name that are logged


class LoginRefused(PermissionError):
    """A login refused: an unknown user, a wrong password, or too many of them (``locked``: this attempt
    was refused unchecked while locked, or was the one that locked)."""

    def __init__(self, why: str, locked: bool = False):
        super().__init__(why)
        self.locked = locked


@functools.cache
def _dummy_hash() -> str:
    """What an unknown name's password is checked against, so that it costs what a known name's costs."""
    return hash_password("not anybody's password")


@dataclass
class Strikes:
    failures: int = 0
    locked_until: float = 0.0
    last: float = 0.0


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    password_hash: str


class LoginGate:
    def __init__(self, account: Callable[[str], Account | None], free: int = 5, address_free: int = 20,
                 name_free: int = 50, lockout_s: float = 30.0, max_lockout_s: float = 900.0,
                 clock: Callable[[], float] = time.monotonic):
        self._account, self._clock = account, clock
        self._free = {"at": free, "address": address_free, "name": name_free}
        self.lockout_s, self.max_lockout_s = lockout_s, max_lockout_s
        self._strikes: dict[tuple[str, str], Strikes] = {}
        self._lock = threading.Lock()  # the counters only; the slow hash runs outside it

    def check(self, name: str, password: str, address: str) -> Account:
        """The user's account, or :class:`LoginRefused` (logged)."""
        keys = [("at", f"{name[:NAME_LOGGED]}@{address}"), ("address", address), ("name", name[:NAME_LOGGED])]
        with self._lock:
            now = self._clock()
            locked = max((self._strikes[k].locked_until for k in keys if k in self._strikes), default=0.0)
            if now >= locked:
                for key in keys:  # counted now, forgiven below if the password is right
                    self._strike(key, now)
        if now < locked:
            self._refuse(name, address, f"too many wrong passwords: locked for {locked - now:.0f} s more", True)
        account = self._account(name)
        right = check_password(password, account.password_hash if account else _dummy_hash()) and account is not None
        with self._lock:
            if right:
                self._strikes.pop(keys[0], None)  # this user at this address: forgiven
                for key in keys[1:]:  # the address and the name: this attempt is not counted
                    strikes = self._strikes.get(key)
                    if strikes is not None:
                        strikes.failures -= 1
                        if strikes.failures < self._free[key[0]]:
                            strikes.locked_until = 0.0
                        if strikes.failures <= 0:
                            del self._strikes[key]
                return account
            why = "unknown user or wrong password"
            now = self._clock()
            locked = max((self._strikes[k].locked_until for k in keys if k in self._strikes), default=0.0)
            if locked > now:  # this user here, this address, or this user from anywhere
                why += f"; locked for {locked - now:.0f} s"
        self._refuse(name, address, why, locked > now)

    def _strike(self, key: tuple[str, str], now: float) -> None:
        strikes = self._strikes.setdefault(key, Strikes())
        if now - strikes.last > self.max_lockout_s * 4:
            strikes.failures = 0  # an old run of failures is forgiven
        strikes.failures += 1
        strikes.last = now
        free = self._free[key[0]]
        if strikes.failures >= free:
            strikes.locked_until = now + min(self.lockout_s * 2 ** (strikes.failures - free), self.max_lockout_s)
        if len(self._strikes) > 30_000:  # a flood of made-up names: drop the quiet ones
            for k in [k for k, s in self._strikes.items() if s.locked_until < now][:10_000]:
                del self._strikes[k]

    def _refuse(self, name: str, address: str, why: str, locked: bool = False) -> NoReturn:
        log.warning("floor login refused: user %r from %s: %s", name[:NAME_LOGGED], address, why)
        raise LoginRefused(why, locked)
