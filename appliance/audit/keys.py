"""Where the audit key is, and the one rule that keeps a log verifiable: a key is never made where a
log already exists (a new key would sign on, and the old records would verify under neither).

The key is ``--key-file``, else ``$APPLIANCE_KEY_FILE``, else ``audit.key`` in the configuration
folder (``/etc/paigow-appliance/audit.key`` under systemd), never in the data folder, so a copy of
the data does not carry it. Only a simulation on the shipped configuration keeps its key beside its
data (``fallback``), and says so. A key is made only where none was named; a named one must be there.
"""

from __future__ import annotations

import os
from pathlib import Path

from .log import HEAD, AuditError, day_files, load_key, new_key

ENV = "APPLIANCE_KEY_FILE"


class AuditKeyError(AuditError):
    """No key where one must be, or a key that would be made for a log signed by another."""


def key_path(given: str | Path | None, config_dir: Path | None, fallback: Path | None = None) -> Path:
    chosen = given or os.environ.get(ENV) or (config_dir / "audit.key" if config_dir else fallback)
    if chosen is None:
        raise AuditKeyError(f"no audit key: give --key-file, set ${ENV}, or --config a folder holding audit.key")
    return Path(chosen)


def named(given: str | Path | None) -> bool:
    """Whether the key was named (``--key-file`` or ``$APPLIANCE_KEY_FILE``): a named key must be there,
    as a mistyped name would otherwise sign a new log with a new key."""
    return bool(given or os.environ.get(ENV))


def require_key(path: Path) -> None:
    """A key that may not be made must be there already."""
    if not path.exists():
        raise AuditKeyError(f"{path}: no audit key; create one with: appliance audit keygen {path}")


def audit_key(path: Path, log_folder: Path, key: bytes | None = None, *, make: bool = True) -> bytes:
    """The key at ``path``; made there (``key``, else a random one) only when ``make`` and no log exists
    yet. Its folder is never made: a missing one is a wrong path."""
    if not path.exists():
        if not make:
            require_key(path)
        if log_folder.is_dir() and (day_files(log_folder) or (log_folder / HEAD).exists()):
            raise AuditKeyError(f"{path}: no audit key, but the log in {log_folder} already holds records: put back "
                                "the key that signed it (a new key would leave the log unverifiable)")
        if not path.parent.is_dir():
            raise AuditKeyError(f"{path}: no folder {path.parent.absolute()} for the audit key")
        new_key(path, key)
    return load_key(path)
