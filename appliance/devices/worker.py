"""The one pattern of the device drivers and simulators: a daemon thread that runs until stopped."""

from __future__ import annotations

import threading
from collections.abc import Callable
from abc import ABC, abstractmethod


class Worker(ABC):
    """Runs ``_work()`` on a daemon thread from ``start()`` until ``stop()``; usable in a ``with`` block.

    ``_work`` watches ``self._stop``; ``_stopped()`` releases what the worker held. A worker that the
    watchdog watches calls ``on_beat()`` each time round its loop (set by whoever watches it)."""

    thread_name = "worker"

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.on_beat: Callable[[], None] = lambda: None

    @abstractmethod
    def _work(self) -> None:
        """The worker's loop."""

    def _stopped(self) -> None:  # noqa: B027  (a hook: most workers hold nothing to release)
        """Release the worker's resources once its thread has ended."""

    def start(self):
        self._thread = threading.Thread(target=self._work, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._stopped()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
