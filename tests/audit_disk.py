"""Disks that fill up, for the audit log's fault tests: a write layer that fails at a chosen byte
(as if another writer had filled the disk), and a real size-limited tmpfs when the test may mount one."""

import contextlib
import errno
import os
import subprocess


class FillingDisk:
    """``os.write`` with a budget: once ``budget`` bytes are written, the disk is full (ENOSPC),
    wherever that falls (between two records, or in the middle of one). ``None``: room again."""

    def __init__(self):
        self.budget: int | None = None

    def write(self, fd, data) -> int:
        if self.budget is None:
            return os.write(fd, data)
        if self.budget == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = os.write(fd, bytes(data[: self.budget]))
        self.budget -= written
        return written


@contextlib.contextmanager
def tmpfs(folder, size="2m"):
    """A real tmpfs of ``size`` mounted at ``folder``; yields False (nothing mounted) where mounting
    is not permitted, so the caller can skip with the reason."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                             capture_output=True).returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill(folder, leave: int = 0) -> "os.PathLike":
    """Another writer fills the filesystem of ``folder``, leaving about ``leave`` bytes; returns its file."""
    filler = folder / "filler.bin"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while os.write(fd, b"x" * 4096) > 0:
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    if leave:
        size = filler.stat().st_size
        os.truncate(filler, max(0, size - leave))
    return filler
