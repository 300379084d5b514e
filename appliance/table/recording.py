"""Recording stopped: what the table does when the audit log cannot be written.

Nothing may be settled without a record, so a table that cannot record is held at once (its
``held`` reads the log's stop) with the reason in plain words on the dealer's screen and the
supervisor's page, and the attention lamp lit. No thread dies of it. The probe tries to record
again every second; the first record that goes down says how long recording stopped, and the
table carries on by itself. Free space is watched too: a warning on the screens below
``warn_mb``, and no new round below ``refuse_mb`` (``[audit]`` in devices.toml).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from ..audit.log import AuditLog, RecordingStopped
from ..devices.worker import Worker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SpaceLimits:
    warn_mb: float = 100
    refuse_mb: float = 20

    def status(self, audit: AuditLog) -> dict:
        """What the screens show about recording: stopped (why), the free space, a warning."""
        free = audit.free_mb()
        warning = None
        if free < self.refuse_mb:
            warning = f"The audit disk has {free:.0f} MB free: no new round can be opened below {self.refuse_mb:g} MB"
        elif free < self.warn_mb:
            warning = f"The audit disk has only {free:.0f} MB free: make room soon"
        return {"stopped": audit.stopped.reason if audit.stopped else None,
                "since": audit.stopped.since if audit.stopped else None,
                "free_mb": round(free, 1), "warning": warning}

    def refusal(self, audit: AuditLog) -> str | None:
        free = audit.free_mb()
        if free < self.refuse_mb:
            return (f"The audit disk has only {free:.0f} MB free (a new round needs {self.refuse_mb:g} MB): "
                    "no round can be opened until room is made")
        return None


def index_reason(err: sqlite3.Error) -> str:
    if "full" in str(err):
        return "The audit disk is full: nothing can be recorded (the history index cannot be written)"
    return f"The history index cannot be written ({err}): nothing can be recorded"


def catch_up(index, folder, on_batch: Callable[[int], None] = lambda done: None) -> int:
    """The index brought up to the log's end at start-up; an index that cannot be written is recording
    stopped, said in the same words."""
    try:
        return index.catch_up(folder, on_batch=on_batch)
    except sqlite3.Error as err:
        raise RecordingStopped(index_reason(err)) from None


class IndexFeed:
    """The history index as a listener: a record it cannot take (SQLite's disk full) stops recording
    until it can, and the records it missed are given to it again first."""

    def __init__(self, add: Callable[[dict], None], audit: AuditLog):
        self._add, self.audit = add, audit
        self._missed: list[dict] = []
        self._behind: Callable[[], int] | None = None

    def __call__(self, record: dict) -> None:
        self._missed.append(record)
        self.flush()

    def catch_up_first(self, catch_up: Callable[[], int]) -> bool:
        """The index brought up to the log's end before anything else; an index that cannot be written
        (a disk full at start-up) holds the table with the reason, and is caught up before recording
        resumes, instead of stopping the start."""
        self._behind = catch_up
        return self.flush()

    def flush(self) -> bool:
        """Index what was missed; False (and recording stopped) while the index refuses."""
        if self._behind is not None:
            try:
                self._behind()
            except sqlite3.Error as err:
                log.warning("history index: %s", err)
                self.audit.stop(index_reason(err), "history index")
                return False
            self._behind = None
        while self._missed:
            try:
                self._add(self._missed[0])
            except sqlite3.Error as err:
                log.warning("history index: %s", err)
                self.audit.stop(index_reason(err), "history index")
                return False
            self._missed.pop(0)
        return True


class RecordingProbe(Worker):
    """Tries every ``every`` seconds to record again while recording is stopped; ``on_change`` runs
    when recording stops or resumes (the lamps and the screens)."""

    thread_name = "recording-probe"

    def __init__(self, resume: Callable[[], dict | None], stopped: Callable[[], bool],
                 on_change: Callable[[], None], ready: Callable[[], bool] = lambda: True, every: float = 1.0):
        super().__init__()
        self._resume, self._stopped_now, self._on_change, self._ready = resume, stopped, on_change, ready
        self.every = every
        self._was = False

    def _work(self) -> None:
        while not self._stop.wait(self.every):
            self.check()

    def check(self) -> None:
        try:
            if self._stopped_now() and self._ready():
                self._resume()
        except RecordingStopped:
            pass  # still refused: the next look tries again
        except Exception:  # noqa: BLE001 - the probe must outlive whatever went wrong
            log.exception("recording probe")
        now = self._stopped_now()
        if now != self._was:
            self._was = now
            self._on_change()
