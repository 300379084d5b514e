"""Supervisors' sessions, kept on the appliance: the browser's cookie holds only a random id.

A session ends at logout, after ``idle_s`` without a request, when the supervisor's PIN is changed
(the session remembers the stored hash it was opened with) and when all are closed at once (the end
of a shift). An ended session is forgotten: a saved copy of the cookie opens nothing.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class SupervisorSession:
    supervisor: str
    csrf: str
    pin_hash: str  # the stored hash at login: a changed PIN ends the session
    last_seen: float


class SessionStore:
    def __init__(self, idle_s: float = 15 * 60, clock: Callable[[], float] = time.monotonic, limit: int = 200):
        self.idle_s, self._clock, self.limit = idle_s, clock, limit
        self._sessions: dict[str, SupervisorSession] = {}
        self._lock = threading.Lock()

    def open(self, supervisor: str, pin_hash: str) -> tuple[str, SupervisorSession]:
        sid = secrets.token_urlsafe(32)
        session = SupervisorSession(supervisor, secrets.token_urlsafe(32), pin_hash, self._clock())
        with self._lock:
            self._forget_idle()
            if len(self._sessions) >= self.limit:  # never more than a table's supervisors could hold
                oldest = min(self._sessions, key=lambda k: self._sessions[k].last_seen)
                del self._sessions[oldest]
            self._sessions[sid] = session
        return sid, session

    def get(self, sid: str | None, current_hash: Callable[[str], str | None]) -> SupervisorSession | None:
        """The open session ``sid`` (its idle time starts again), or None if it has ended."""
        if not sid:
            return None
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                return None
            now = self._clock()
            if now - session.last_seen > self.idle_s or current_hash(session.supervisor) != session.pin_hash:
                del self._sessions[sid]
                return None
            session.last_seen = now
            return session

    def end(self, sid: str | None) -> None:
        with self._lock:
            self._sessions.pop(sid or "", None)

    def end_all(self) -> int:
        """Close every session (the shift has ended); how many were open."""
        with self._lock:
            count = len(self._sessions)
            self._sessions.clear()
            return count

    def _forget_idle(self) -> None:
        now = self._clock()
        for sid in [k for k, s in self._sessions.items() if now - s.last_seen > self.idle_s]:
            del self._sessions[sid]
