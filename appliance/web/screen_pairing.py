"""Screens paired to drive the dealer's controls from another device than the appliance's own.

The appliance's touch screen (loopback) always may. Another device (a second screen at the table)
may once it is paired: someone at the appliance's own screen, or a supervisor with the PIN, asks for
a one-time code, and the code is typed on the new device within two minutes; the device then holds a
random token in a cookie (only its hash is kept here). A paired screen is revoked by a supervisor;
every code, pairing and revocation is logged by the caller. Pairings last until the appliance
restarts: a restart unpairs every screen, which errs on the safe side.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

CODE_TTL_S = 120.0
CODE_TRIES = 5  # wrong codes before the code is void


class PairingError(ValueError):
    """A pairing code that is wrong, used, or expired; a screen that is not paired."""


@dataclass
class PairedScreen:
    id: str  # shown to supervisors, used to revoke (not the secret)
    name: str
    address: str
    paired_at: str
    by: str  # who issued the code

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class _Code:
    code: str
    expires: float
    by: str
    tries: int = 0


class ScreenPairings:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._code: _Code | None = None
        self._screens: dict[str, PairedScreen] = {}  # sha256(token) -> screen
        self._lock = threading.Lock()

    def new_code(self, by: str) -> str:
        """A fresh one-time code (the previous one, if any, is void)."""
        code = f"{secrets.randbelow(10**8):08d}"
        with self._lock:
            self._code = _Code(code, self._clock() + CODE_TTL_S, by)
        return code

    def pair(self, code: str, name: str, address: str) -> tuple[str, PairedScreen]:
        """The new screen's token (for its cookie) and its record, or :class:`PairingError`."""
        with self._lock:
            pending = self._code
            if pending is None or self._clock() > pending.expires:
                self._code = None
                raise PairingError("no pairing code is open: ask for a new one on the appliance's screen")
            if not secrets.compare_digest(code.encode(), pending.code.encode()):
                pending.tries += 1
                if pending.tries >= CODE_TRIES:
                    self._code = None
                    raise PairingError(f"wrong code {CODE_TRIES} times: the code is void; ask for a new one")
                raise PairingError("wrong pairing code")
            self._code = None
            token = secrets.token_urlsafe(32)
            screen = PairedScreen(secrets.token_hex(4), name, address,
                                  dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), pending.by)
            self._screens[_digest(token)] = screen
            return token, screen

    def screen(self, token: str | None) -> PairedScreen | None:
        if not token:
            return None
        with self._lock:
            return self._screens.get(_digest(token))

    def revoke(self, screen_id: str) -> PairedScreen:
        with self._lock:
            for digest, screen in self._screens.items():
                if screen.id == screen_id:
                    del self._screens[digest]
                    return screen
        raise PairingError(f"no paired screen {screen_id!r}")

    def screens(self) -> list[dict]:
        with self._lock:
            return [s.to_json() for s in self._screens.values()]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
