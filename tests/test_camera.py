"""Camera sources on real files with real OpenCV."""

import cv2
import numpy as np
import pytest

from appliance.devices.camera import Camera, ImageFolderSource, VideoCaptureSource


def _frames(n, size=(64, 48)):
    return [np.full((size[1], size[0], 3), 40 * i, np.uint8) for i in range(n)]


def test_a_folder_replays_in_order(tmp_path):
    for i, frame in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), frame)
    (tmp_path / "notes.txt").write_text("not a frame")
    source = ImageFolderSource(tmp_path)
    got = [source.read() for _ in range(4)]
    assert [int(f[0, 0, 0]) for f in got[:3]] == [0, 40, 80] and got[3] is None
    looping = ImageFolderSource(tmp_path, loop=True)
    assert [int(looping.read()[0, 0, 0]) for _ in range(4)] == [0, 40, 80, 0]


def test_a_video_file_through_videocapture(tmp_path):
    path = str(tmp_path / "table.avi")
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for frame in _frames(4):
        writer.write(frame)
    writer.release()
    source = VideoCaptureSource(path)
    frames = [source.read() for _ in range(5)]
    source.close()
    assert all(f is not None and f.shape == (48, 64, 3) for f in frames[:4]) and frames[4] is None
    with pytest.raises(OSError, match="cannot open"):
        VideoCaptureSource(str(tmp_path / "missing.avi"))


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


def test_a_camera_that_stops_is_reported_once_and_reopened(tmp_path):
    cv2.imwrite(str(tmp_path / "f0.png"), _frames(1)[0])
    clock, faults, opened = Clock(), [], []

    def open_source():
        opened.append(clock.now)
        return ImageFolderSource(tmp_path)

    camera = Camera(open_source, faults.append, stall_after=2.0, retry_every=1.0, clock=clock)
    assert camera.read() is not None and camera.healthy
    clock.now = 1.0
    assert camera.read() is None and faults == []  # not stalled yet
    clock.now = 3.5
    assert camera.read() is None
    assert faults == ["no frame for 3.5 s from folder:" + str(tmp_path)] and not camera.healthy
    clock.now = 5.0
    assert camera.read() is not None and camera.healthy  # reopened: the folder replays
    assert opened == [0.0, 5.0]


def test_a_camera_that_cannot_open_is_retried_quietly(tmp_path):
    clock, faults = Clock(), []
    camera = Camera(lambda: ImageFolderSource(tmp_path / "gone"), faults.append, retry_every=1.0, clock=clock)
    for t in (0.0, 0.5, 1.0, 2.0, 3.0):
        clock.now = t
        assert camera.read() is None
    assert len(faults) == 1 and "no such folder" in faults[0]


@pytest.mark.slow
def test_the_synthetic_camera_is_a_camera_source():
    import random as _random

    from appliance.config import shipped_config_dir
    from appliance.vision.calibrate import calibrate
    from appliance.vision.layout import load_layout
    from appliance.vision.render import SyntheticCamera, deal_table

    layout = load_layout(shipped_config_dir() / "layout.toml")
    faults = []
    camera = Camera(lambda: SyntheticCamera(layout, seed=3, size=(1152, 648)), faults.append)
    assert camera.read() is not None  # opens the source: an empty table
    camera.source.show(deal_table(_random.Random(1)))
    first, second = camera.read(), camera.read()
    assert first.shape == (648, 1152, 3) and not np.array_equal(first, second)  # fresh noise each frame
    assert calibrate(second, layout).markers and faults == []
