"""The live camera loop: one capture and inference for many readers, reconnects, occlusion."""

from __future__ import annotations

import threading
import time

import numpy as np

from server.camera import CameraLoop, hold_occluded


class FlakyCapture:
    """A capture that gives `frames` frames, then fails (the camera dropped)."""

    opened = 0

    def __init__(self, frames: int) -> None:
        FlakyCapture.opened += 1
        self.left = frames

    def isOpened(self) -> bool:
        return True

    def read(self):
        time.sleep(0.005)
        if self.left <= 0:
            return False, None
        self.left -= 1
        return True, np.zeros((24, 32, 3), np.uint8)

    def release(self) -> None:
        pass


def _wait(predicate, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_many_readers_share_one_loop_and_it_reconnects() -> None:
    FlakyCapture.opened = 0
    calls = []

    def reader(frame):
        calls.append(frame.shape)
        return {"tiles": [{"face": "up", "pips": [1, 2]}]}

    loop = CameraLoop(
        0, reader=reader, infer_interval_s=0.0, opener=lambda _s: FlakyCapture(20)
    ).start()
    try:
        assert _wait(lambda: loop.status()["reconnects"] >= 1)
        frames_seen: list[int] = []

        def viewer() -> None:
            parts = loop.mjpeg(max_s=0.3)
            frames_seen.append(sum(1 for _ in parts))

        threads = [threading.Thread(target=viewer) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(n >= 1 for n in frames_seen)
        status = loop.status()
        # Eight viewers did not multiply the work: inferences <= frames captured.
        assert status["inferences"] <= status["frames"]
        assert len(calls) == status["inferences"]
        assert FlakyCapture.opened >= 2 and status["scene"]["tiles"]
    finally:
        loop.stop()
    assert loop.status()["state"] == "stopped"


def test_a_camera_that_never_opens_says_so() -> None:
    class Closed(FlakyCapture):
        def isOpened(self) -> bool:
            return False

    loop = CameraLoop("rtsp://camera", opener=lambda _s: Closed(0)).start()
    try:
        assert _wait(lambda: loop.status()["state"] == "reconnecting")
        assert "cannot open" in loop.status()["message"]
        assert loop.latest_jpeg() is None
    finally:
        loop.stop()


def test_a_momentarily_hidden_tile_does_not_vanish() -> None:
    two = {"tiles": [{"face": "up"}, {"face": "up"}]}
    one = {"tiles": [{"face": "up"}]}
    scene, t = hold_occluded(None, 0.0, two, 10.0, 2.0)
    assert scene is two and t == 10.0
    scene, t = hold_occluded(scene, t, one, 11.0, 2.0)  # an arm over a tile
    assert len(scene["tiles"]) == 2 and scene["held"]
    scene, t = hold_occluded(scene, t, two, 11.5, 2.0)  # back
    assert scene is two
    scene, t = hold_occluded(scene, t, one, 12.0, 2.0)
    scene, t = hold_occluded(scene, t, one, 14.0, 2.0)  # gone for longer: really removed
    assert scene is one
