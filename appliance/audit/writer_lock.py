"""One writer per audit folder: an exclusive lock, held for the writing process's life.

Two processes appending to one log each carry the chain on from the record they last saw: the log
forks, and no later record verifies. A second start would also cut "partial" records the first is in
the middle of writing. So ``appliance run`` and ``appliance simulate-table`` take the folder's lock
before they write anything (the key, the log, the index), and a second process on the same folder
is refused in one line naming the folder and the process holding it (exit status 2).

The lock is :func:`fcntl.flock` on ``writer.lock`` in the folder: the kernel drops it when the
holder exits, however it exits (a power cut, SIGKILL), so a stale lock file never blocks a start.
The holder's process id is written into the file only to be named in the refusal.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .log import AuditError

LOCK_FILE = "writer.lock"

#: Folder -> the open lock file, kept open (and so locked) until this process exits. A folder taken
#: again in the same process is already held: in-process restarts (tests, benches) open the log anew.
_held: dict[Path, int] = {}


class FolderInUse(AuditError):
    """Another process writes to this audit folder: a second writer would fork the chain."""


def hold_for_writing(folder: str | Path) -> Path:
    """Take ``folder``'s exclusive lock for this process's life (made if missing), or :class:`FolderInUse`.
    Returns the lock file."""
    folder = Path(folder).absolute()
    lock = folder / LOCK_FILE
    if folder in _held:
        return lock
    folder.mkdir(mode=0o750, parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o640)  # not inherited by child processes (PEP 446)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise FolderInUse(f"{folder}: the audit log is being written by another process ({holder}): one "
                          "appliance writes to a data folder; stop that one first") from None
    except BaseException:
        os.close(fd)
        raise
    _held[folder] = fd
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass  # a full disk: the lock holds all the same, and a refusal says the id is not written
    return lock


def _holder(fd: int) -> str:
    """The holding process as its lock file names it, with its command line where this process may see it."""
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    if not text.isdigit():
        return "its process id not written yet"
    try:
        command = Path(f"/proc/{text}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        command = ""  # not Linux, or hidden (the service's ProtectProc=invisible)
    return f"process {text}" + (f": {command[:120]}" if command else "")
