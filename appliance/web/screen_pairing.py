"""Screens paired to drive the dealer's controls from another device than the appliance's own.

The appliance's touch screen (loopback) always may. Another device (a second screen at the table)
may once it is paired: someone at the appliance's own screen, or a supervisor with the PIN, asks for
a one-time code, and the code is typed on the new device within two minutes; the device then holds a
random token in a cookie (only its hash is kept here). A paired screen is revoked by a supervisor;
every code, pairing and revocation is logged by the caller. The paired screens are kept in a file in
the data folder (the token's SHA-256, never the token; written whole, through the audit log's
``store_file``: fsync-ed, renamed into place, readable by the service's group only), so a restart
keeps them; a pairing stands only once it is logged and that file is written, a revocation holds at
once. A file that cannot be read pairs nobody (the safe side) and says why in the journal. Wrong codes
lock out the address they come from (``ADDRESS_TRIES``), and lock the code only past ``CODE_TRIES``
from all addresses together.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..lockouts import Lockouts
from .front_caps import counted_address

log = logging.getLogger(__name__)

CODE_TTL_S = 120.0
# Wrong codes from one address before it is locked out for 30 s, doubled at each further one: a typo or
# two at the new screen costs nothing, and one address makes at most 5 guesses in a code's two minutes.
# Wrong codes are slowed per address, never counted against the code alone: when five wrong codes from
# anyone voided it, one stranger typing five numbers spoiled the real screen's code, again and again.
ADDRESS_TRIES = 3
# Wrong codes from all addresses before the code itself is locked (a new one is then needed): guesses
# spread over many addresses end there, at 20 of the 10^8 codes; one address never gets that far.
CODE_TRIES = 20
SCREEN_COOKIE = "screen"  # holds a paired screen's token (read by the dealer's routes, and by the front)


CODE_LOCKED = f"the pairing code was locked by {CODE_TRIES} wrong guesses: ask for a new one on the appliance's screen"


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


Store = Callable[[Path, bytes, str], None]  # AuditLog.store_file: a whole file, or recording stops


class ScreenPairings:
    def __init__(self, kept_in: tuple[Path, Store] | None = None, clock: Callable[[], float] = time.monotonic):
        """``kept_in``: the file the paired screens are kept in and how it is written; None keeps
        them in memory only (a restart unpairs every screen)."""
        self._kept_in, self._clock = kept_in, clock
        self._guessers = Lockouts({"address": ADDRESS_TRIES}, clock=clock)
        self._code: _Code | None = None
        self._screens: dict[str, PairedScreen] = _read(kept_in[0]) if kept_in else {}  # sha256(token) -> screen
        self._lock = threading.Lock()

    def new_code(self, by: str) -> str:
        """A fresh one-time code (the previous one, if any, is void)."""
        code = f"{secrets.randbelow(10**8):08d}"
        with self._lock:
            self._code = _Code(code, self._clock() + CODE_TTL_S, by)
        return code

    def pair(self, code: str, name: str, address: str,
             record: Callable[[PairedScreen], None]) -> tuple[str, PairedScreen]:
        """The new screen's token (for its cookie) and its record, or :class:`PairingError`. The
        pairing is ``record``-ed (logged), then kept: one that cannot be logged or kept does not stand."""
        with self._lock:
            pending = self._code
            if pending is None or self._clock() > pending.expires:
                self._code = None
                raise PairingError("no pairing code is open: ask for a new one on the appliance's screen")
            if pending.tries >= CODE_TRIES:
                raise PairingError(CODE_LOCKED)
            keys = [("address", counted_address(address))]  # an IPv6 host by its /64, as the front counts it
            lock = self._guessers.attempt(keys)  # counted now, forgiven below if the code is right
            if lock is not None:
                raise PairingError(f"too many wrong pairing codes from this address: try again in {lock[1]:.0f} s")
            if not secrets.compare_digest(code.encode(), pending.code.encode()):
                pending.tries += 1
                if pending.tries >= CODE_TRIES:
                    raise PairingError(CODE_LOCKED)
                lock = self._guessers.locked(keys)
                raise PairingError("wrong pairing code" + (f"; too many from this address: try again in {lock[1]:.0f} s"
                                                           if lock else ""))
            self._guessers.forgive(keys)
            self._code = None
            token = secrets.token_urlsafe(32)
            screen = PairedScreen(secrets.token_hex(4), name, address,
                                  dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), pending.by)
            record(screen)
            self._keep({**self._screens, screen_token_digest(token): screen})
            return token, screen

    def screen(self, token: str | None) -> PairedScreen | None:
        if not token:
            return None
        with self._lock:
            return self._screens.get(screen_token_digest(token))

    def revoke(self, screen_id: str) -> PairedScreen:
        with self._lock:
            for digest, screen in self._screens.items():
                if screen.id == screen_id:
                    self._keep({d: s for d, s in self._screens.items() if d != digest})
                    return screen
        raise PairingError(f"no paired screen {screen_id!r}")

    def _keep(self, screens: dict[str, PairedScreen]) -> None:
        """``screens`` from now on, written to the file first. A revocation holds even when the file
        cannot be written (the error still reaches the caller: recording has stopped)."""
        revoking = len(screens) < len(self._screens)
        if revoking:
            self._screens = screens
        if self._kept_in is not None:
            path, store = self._kept_in
            body = {"screens": [{"token_sha256": d, **s.to_json()} for d, s in screens.items()]}
            store(path, json.dumps(body, indent=1).encode() + b"\n", "paired screens")
        self._screens = screens

    def digests(self) -> frozenset[str]:
        """The paired screens' token digests: the front gives their streams the dealer's room."""
        with self._lock:
            return frozenset(self._screens)

    def screens(self) -> list[dict]:
        with self._lock:
            return [s.to_json() for s in self._screens.values()]


def _read(path: Path) -> dict[str, PairedScreen]:
    if not path.exists():
        return {}
    try:
        kept = json.loads(path.read_bytes())["screens"]
        names = [f.name for f in fields(PairedScreen)]
        return {entry["token_sha256"]: PairedScreen(**{n: str(entry[n]) for n in names}) for entry in kept}
    except (OSError, ValueError, KeyError, TypeError) as err:
        log.error("%s: the paired screens cannot be read (%s): no screen is paired until one is paired again",
                  path, err)
        return {}


def screen_token_digest(token: str) -> str:
    """What is kept of a paired screen's token, and what the front is told of it."""
    return hashlib.sha256(token.encode()).hexdigest()
