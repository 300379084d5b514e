"""Camera sources behind one seam: the Pi camera (Picamera2), cv2.VideoCapture (a USB camera or a
video file), a folder of images replayed in order, and (in simulation) the table renderer.

Every source returns BGR frames (OpenCV's order) or ``None`` when it has no frame now.
:class:`Camera` wraps a source: a source that stops delivering is reported and reopened,
never a crash.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class FrameSource(Protocol):
    name: str

    def read(self) -> np.ndarray | None: ...
    def close(self) -> None: ...


class ImageFolderSource:
    """Images in a folder, in name order; ``loop`` starts again at the end."""

    def __init__(self, folder: str | Path, loop: bool = False):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"{self.folder}: no such folder of frames")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self.loop = loop
        self.name = f"folder:{self.folder}"
        self._next = 0

    def read(self) -> np.ndarray | None:
        if self._next >= len(self.files):
            if not self.loop or not self.files:
                return None
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            log.warning("%s: not an image OpenCV can read", path)
        return frame

    def close(self) -> None:
        pass


class VideoCaptureSource:
    """A USB camera (an index such as 0) or a video file, through cv2.VideoCapture."""

    def __init__(self, device: int | str, width: int | None = None, height: int | None = None):
        self.name = f"capture:{device}"
        self.capture = cv2.VideoCapture(device)
        if not self.capture.isOpened():
            raise OSError(f"{device}: cv2.VideoCapture cannot open it")
        if width and height:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def read(self) -> np.ndarray | None:
        ok, frame = self.capture.read()
        return frame if ok else None

    def close(self) -> None:
        self.capture.release()


class Picamera2Source:
    """A Raspberry Pi camera module. cv2.VideoCapture cannot open these on current Raspberry Pi OS.

    Picamera2 comes from the OS packages (``python3-picamera2``); it is imported only here.
    ``RGB888`` gives OpenCV's BGR byte order. One mode is configured and kept running: a mode
    switch costs about half a second.
    """

    def __init__(self, width: int = 4608, height: int = 2592):
        from picamera2 import Picamera2  # only on a Pi, only when configured

        self.name = f"picamera2:{width}x{height}"
        self.camera = Picamera2()
        config = self.camera.create_still_configuration(main={"size": (width, height), "format": "RGB888"})
        self.camera.configure(config)
        self.camera.start()

    def read(self) -> np.ndarray | None:
        return self.camera.capture_array("main")

    def close(self) -> None:
        self.camera.stop()
        self.camera.close()


class Camera:
    """A source that is reported and reopened when it stops delivering frames."""

    def __init__(self, open_source: Callable[[], FrameSource], on_fault: Callable[[str], None] = lambda why: None,
                 stall_after: float = 2.0, retry_every: float = 1.0, clock: Callable[[], float] = time.monotonic):
        self._open_source = open_source
        self._on_fault = on_fault
        self.stall_after = stall_after
        self.retry_every = retry_every
        self._clock = clock
        self.source: FrameSource | None = None
        self._last_frame = clock()
        self._last_attempt = float("-inf")
        self.healthy = False
        self._faulted = False  # a fault was reported and no frame has come since

    def read(self) -> np.ndarray | None:
        """The next frame, or None; faults are reported once, and the source is reopened."""
        now = self._clock()
        if self.source is None:
            if now - self._last_attempt < self.retry_every:
                return None
            self._last_attempt = now
            try:
                self.source = self._open_source()
                self._last_frame = now
            except (OSError, RuntimeError, ImportError, ValueError) as err:
                self._fault(f"camera cannot be opened: {err}")
                return None
        try:
            frame = self.source.read()
        except (OSError, RuntimeError, cv2.error) as err:
            self._reopen(f"camera read failed: {err}")
            return None
        if frame is None:
            if now - self._last_frame > self.stall_after:
                self._reopen(f"no frame for {now - self._last_frame:.1f} s from {self.source.name}")
            return None
        self._last_frame = now
        if not self.healthy:
            self.healthy, self._faulted = True, False
            log.info("camera %s delivering frames", self.source.name)
        return frame

    def _reopen(self, why: str) -> None:
        self._fault(why)
        try:
            self.source.close()
        except (OSError, RuntimeError, cv2.error):
            pass
        self.source = None

    def _fault(self, why: str) -> None:
        """Reported once per outage: retries that fail the same way stay quiet until a frame comes."""
        self.healthy = False
        if not self._faulted:
            self._faulted = True
            log.warning(why)
            self._on_fault(why)

    def close(self) -> None:
        if self.source is not None:
            self.source.close()
            self.source = None
