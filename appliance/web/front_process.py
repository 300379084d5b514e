"""The table's side of the dashboard's front (:mod:`.front`), which runs in a process of its own.

A live-table subscriber whose ``put_nowait`` only queues the event: the table's thread does nothing
more for its viewers. A thread here takes what has queued within ``COALESCE_S``, renders the stream
chunks and takes the state (``LiveTable.state_json``, rendered at most once per change), and writes
the state then the events to the front's process in one write: the front answers ``/api/state``
with a state at least as new as any event it has sent (a few milliseconds behind the table's own).
It also sends the paired screens' token digests whenever they change (checked with each batch and
each heartbeat: a screen just paired gets the dealer's room for its stream within ``heartbeat_s``).
The front reports back how many viewers it has, dropped and refused. If the front's process dies,
that is logged, and ``/healthz`` (which the watchdog's web probe reads through the front) no longer
answers.
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable

from ..table.live import LiveTable
from .front import COUNTS, EVENTS, HEARTBEAT, PAIRED, READY, STATE, FrontLimits, TlsFiles, arguments
from .front_feed import FedProcess, frame
from .site_guard import Site

log = logging.getLogger(__name__)

QUEUED_LIMIT = 10_000  # events waiting for the front's process; past that the table drops them, never waits
# Events that come within this long of each other go to the front, and to each viewer, in one write:
# a table playing flat out makes hundreds of events a second, and each write to each viewer costs a
# system call (300 viewers: 14-18 ms of the front's CPU per simulated round at 10 ms), while nobody at
# a table can tell 25 ms.
COALESCE_S = 0.025
BATCH_BYTES = 16 * 1024  # at most this (and one event) in one batch: a quarter of a viewer's backlog
START_TIMEOUT_S = 20.0
NOTHING = object()  # no event came before the next heartbeat was due


class FrontProcess(FedProcess):
    def __init__(self, live: LiveTable, sock: socket.socket, site: Site, upstream: str, tls: TlsFiles | None,
                 limits: FrontLimits, paired: Callable[[], frozenset[str]] = frozenset):
        """Start the front on the bound, listening ``sock`` (it is the front's from now on); ``paired``
        gives the paired screens' token digests (``ScreenPairings.digests``)."""
        self.live, self.limits, self._paired = live, limits, paired
        self.viewers = 0  # open event streams, as the front last reported
        self.dropped = 0  # viewers the front dropped for not keeping up
        self.refused = 0  # streams the front refused, past a cap
        self._queue: queue.Queue = queue.Queue(QUEUED_LIMIT)
        self._ready = threading.Event()
        self._stopping = False
        super().__init__("appliance.web.front", sock, lambda sock, feed: arguments(sock, feed, site, upstream, tls, limits))
        self._sent_state, self._sent_paired = live.state_json(), paired()
        # both wait in the socket for the front to read them
        self.feed.sendall(frame(STATE, self._sent_state) + frame(PAIRED, _listed(self._sent_paired)))
        self._sender = threading.Thread(target=self._send, name="dashboard-front-feed", daemon=True)
        self._receiver = threading.Thread(target=self._receive, name="dashboard-front-counts", daemon=True)
        self._sender.start()
        self._receiver.start()
        if not self._ready.wait(START_TIMEOUT_S):
            self.stop()
            raise RuntimeError(f"the dashboard's front did not start within {START_TIMEOUT_S:.0f} s")

    def put_nowait(self, message: dict) -> None:
        """A live-table subscriber (called under the live view's lock): queue the event and return."""
        self._queue.put_nowait(message)

    def _send(self) -> None:
        # The heartbeat comes from here, not from the front: a stopped or frozen appliance falls silent
        # on every screen, even though the front's own process still answers.
        next_beat = time.monotonic() + self.limits.heartbeat_s
        while True:
            try:
                message = self._queue.get(timeout=max(0.0, next_beat - time.monotonic()))
                if self._queue.empty():  # the first of a burst, maybe: let the rest of it come
                    time.sleep(COALESCE_S)
            except queue.Empty:
                message = NOTHING
            events, size = [], 0
            while message is not None and message is not NOTHING:
                events.append(f"event: {message['event']}\ndata: {json.dumps(message)}\n\n".encode())
                size += len(events[-1])
                if size >= BATCH_BYTES:  # a viewer's backlog holds several batches
                    break
                try:
                    message = self._queue.get_nowait()
                except queue.Empty:
                    break
            if time.monotonic() >= next_beat:
                events.append(HEARTBEAT)
                next_beat = time.monotonic() + self.limits.heartbeat_s
            state = self.live.state_json()  # taken after the events: it holds what they announce
            chunks = [frame(STATE, state)] if state is not self._sent_state else []
            paired = self._paired()
            if paired != self._sent_paired:
                chunks.append(frame(PAIRED, _listed(paired)))
            if events:
                chunks.append(frame(EVENTS, b"".join(events)))
            try:
                self.feed.sendall(b"".join(chunks))
            except OSError:
                if not self._stopping:
                    log.error("the dashboard's front is gone: no viewer gets the table's events")
                return
            self._sent_state, self._sent_paired = state, paired
            if message is None:  # stop() queued it
                return

    def _receive(self) -> None:
        for kind, payload in self.frames():
            if kind == READY:
                self._ready.set()
            elif kind == COUNTS:
                self.viewers, self.dropped, self.refused = json.loads(payload)
        if not self._stopping:
            log.error("the dashboard's front stopped (exit status %s)", self.process.poll())

    def stop(self) -> None:
        """The front's feed ends, and with it the front's process."""
        self._stopping = True
        try:
            self._queue.put_nowait(None)  # what is queued goes first
        except queue.Full:
            pass
        self._sender.join(2)
        self.end_feed(self._receiver)


def _listed(digests: frozenset[str]) -> bytes:
    return json.dumps(sorted(digests)).encode()
