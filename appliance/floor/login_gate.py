"""Who may log in to the floor's pages, and how fast wrong passwords are let through.

Wrong passwords are counted per name *at* an address, per address, and per name over all addresses:
past ``free`` failures of a name from one address that pair is locked for ``lockout_s``, doubled at
each further failure up to ``max_lockout_s``; an address past ``address_free`` failures over any names
is locked the same way, and so is a name past ``name_free`` failures from anywhere (guesses spread over
many addresses are slowed too; the real user then waits out the lock, which doubles from
``lockout_s`` as the others do). A failure is counted before the password is hashed, so concurrent
guesses cannot slip past the limit; an unknown name costs the same scrypt as a known one, so names
cannot be told apart by time. The same rules, counted by the same :class:`appliance.lockouts.Lockouts`,
as the tables' supervisor PINs (``SupervisorGate``), with the floor's passwords.

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
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from ..lockouts import Lockouts
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


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    password_hash: str


class LoginGate:
    def __init__(self, account: Callable[[str], Account | None], free: int = 5, address_free: int = 20,
                 name_free: int = 50, lockout_s: float = 30.0, max_lockout_s: float = 900.0,
                 clock: Callable[[], float] = time.monotonic):
        self._account = account
        self.lockouts = Lockouts({"at": free, "address": address_free, "name": name_free}, lockout_s, max_lockout_s,
                                 clock, most_kept=30_000)

    def check(self, name: str, password: str, address: str) -> Account:
        """The user's account, or :class:`LoginRefused` (logged)."""
        keys = [("at", f"{name[:NAME_LOGGED]}@{address}"), ("address", address), ("name", name[:NAME_LOGGED])]
        lock = self.lockouts.attempt(keys)  # counted now, forgiven below if the password is right
        if lock is not None:
            self._refuse(name, address, f"too many wrong passwords: locked for {lock[1]:.0f} s more", True)
        account = self._account(name)
        right = check_password(password, account.password_hash if account else _dummy_hash()) and account is not None
        if right:
            self.lockouts.forgive(keys)
            return account
        why = "unknown user or wrong password"
        lock = self.lockouts.locked(keys)  # this user here, this address, or this user from anywhere
        if lock is not None:
            why += f"; locked for {lock[1]:.0f} s"
        self._refuse(name, address, why, lock is not None)

    def _refuse(self, name: str, address: str, why: str, locked: bool = False) -> NoReturn:
        log.warning("floor login refused: user %r from %s: %s", name[:NAME_LOGGED], address, why)
        raise LoginRefused(why, locked)
