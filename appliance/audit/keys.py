"""Where the audit key is, and the one rule that keeps a log verifiable: a key is never made where a
log already exists (a new key would sign on, and the old records would verify under neither).

The key is ``--key-file``, else ``$APPLIANCE_KEY_FILE``, else ``audit.key`` in the configuration
folder (``/etc/paigow-appliance/audit.key`` under systemd), never in the data folder, so a copy of
the data does not carry it. Only a simulation on the shipped configuration keeps its key beside its
data (``fallback``), and says so.
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


def audit_key(path: Path, log_folder: Path, key: bytes | None = None) -> bytes:
    """The key at ``path``; made there (``key``, else a random one) only when no log exists yet."""
    if not path.exists():
        if log_folder.is_dir() and (day_files(log_folder) or (log_folder / HEAD).exists()):
            raise AuditKeyError(f"{path}: no audit key, but the log in {log_folder} already holds records: put back "
                                "the key that signed it (a new key would leave the log unverifiable)")
        path.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
        new_key(path, key)
    return load_key(path)
