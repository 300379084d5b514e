"""The people who may use the floor's pages: a name, a role and a password, kept in the floor's
database with the password as a slow salted hash (scrypt, from the standard library).

Each role sees what its work needs (docs/floor.md):

- ``pit`` (pit supervisor): the pit view: every table's state, the open alerts, the day's figures per
  table, dealer and shift.
- ``surveillance``: every table's state and the open alerts, and the recall of a table's last rounds
  (cards and bets).
- ``accounting``: the day's figures and the gaming day's report (page and CSV).

>>> stored = hash_password("correct horse battery")
>>> stored.startswith("scrypt$") and "horse" not in stored
True
>>> check_password("correct horse battery", stored), check_password("correct horse batterY", stored)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re

from .database import connect

PIT, ACCOUNTING, SURVEILLANCE = "pit", "accounting", "surveillance"
ROLES = (PIT, ACCOUNTING, SURVEILLANCE)
# scrypt's cost: 16 MiB and some 50 ms a check, so that a stolen table of hashes is slow to guess from,
# and a login costs the floor little (one check per login, not per request: sessions follow).
SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 14, 8, 1
PASSWORD_LEAST = 10  # characters
PASSWORD_MOST = 256  # characters: longer is not a password, and scrypt would hash it all
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


class UserError(ValueError):
    """A user that cannot be added or changed as asked (the message says why)."""


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        candidate = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p))
    except ValueError:
        return False
    return hmac.compare_digest(candidate.hex(), digest)


def new_password(password: str) -> str:
    """The stored hash of a new password, or :class:`UserError` if it is too short or too long."""
    if not PASSWORD_LEAST <= len(password) <= PASSWORD_MOST:
        raise UserError(f"a password is {PASSWORD_LEAST} to {PASSWORD_MOST} characters, got {len(password)}")
    return hash_password(password)


def add_user(dsn: str, name: str, role: str, password: str, replace: bool = False) -> None:
    """Add ``name`` with ``role``; with ``replace``, an existing user's role and password are set anew
    (their open sessions end at their next request)."""
    if not NAME.match(name):
        raise UserError(f"user {name[:80]!r}: 1 to 64 letters, digits and _.@- (starting with a letter or digit)")
    if role not in ROLES:
        raise UserError(f"--role {role!r}: expected one of {', '.join(ROLES)}")
    stored = new_password(password)
    with connect(dsn) as conn:
        if replace:
            conn.execute("INSERT INTO floor_users (name, role, password_hash) VALUES (%s, %s, %s) ON CONFLICT (name) "
                         "DO UPDATE SET role = excluded.role, password_hash = excluded.password_hash",
                         (name, role, stored))
        elif conn.execute("INSERT INTO floor_users (name, role, password_hash) VALUES (%s, %s, %s) "
                          "ON CONFLICT (name) DO NOTHING", (name, role, stored)).rowcount == 0:
            raise UserError(f"user {name!r} exists already (--replace sets a new role and password)")


def remove_user(dsn: str, name: str) -> bool:
    """Remove ``name`` (their open sessions end at their next request); whether there was one."""
    with connect(dsn) as conn:
        return conn.execute("DELETE FROM floor_users WHERE name = %s", (name,)).rowcount == 1


def list_users(dsn: str) -> list[dict]:
    with connect(dsn) as conn:
        return [{"user": r[0], "role": r[1], "created_at": r[2].isoformat()} for r in
                conn.execute("SELECT name, role, created_at FROM floor_users ORDER BY name")]
