"""The live camera loop: one capture and inference for many readers, reconnects, occlusion,
and a synthetic game video played into the dashboard through the bundled models."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
from server_factories import ADMIN

from dominocam.server.camera import CameraLoop, hold_occluded, start_camera, status_text
from dominosynth.video import TINY_GAME, write_video


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


class Device:
    """A stand-in camera device: the first opening sends `frames` frames, then the stream stops
    (the camera dropped) and it stays unplugged until `plugged` is set; then it streams on."""

    def __init__(self, frames: int) -> None:
        self.frames = frames
        self.plugged = threading.Event()
        self.plugged.set()
        self.opened = 0

    def open(self, _source: object) -> FlakyCapture:
        if not self.plugged.is_set():

            class Unplugged(FlakyCapture):
                def isOpened(self) -> bool:
                    return False

            return Unplugged(0)
        self.opened += 1
        if self.opened == 1:
            self.plugged.clear()
            return FlakyCapture(self.frames)
        return FlakyCapture(10**9)


def test_the_page_says_the_camera_dropped_and_that_it_reconnected(app, client, game) -> None:
    device = Device(frames=5)
    app.config["CAMERA"] = "0"
    loop = start_camera(app, opener=device.open)
    page = f"/games/{game['game']['id']}"
    try:
        assert _wait(lambda: loop.status()["state"] == "reconnecting")
        status = client.get("/api/camera").json
        assert status["text"].startswith("camera dropped (")
        assert status["last_drop"]["message"] in (
            "the camera stopped sending frames",
            "cannot open the camera",
        )
        assert "camera dropped" in client.get(page).get_data(as_text=True)
        device.plugged.set()
        assert _wait(lambda: loop.status()["state"] == "live" and device.opened == 2, 10.0)
        text = client.get("/api/camera").json["text"]
        assert text.startswith("live (reconnected after ")
        assert "reconnected after" in client.get(page).get_data(as_text=True)
        assert client.get("/api/health").json["camera"]["reconnects"] >= 1
    finally:
        loop.stop()
    assert status_text(loop.status()) == "stopped"


TINY_GAME_SEED = 5  # a Mexican Train table whose two tiles the bundled models read
VARIANT_OF_KIND = {
    "line": "block",
    "spinner": "all-fives",
    "mexican": "mexican-train",
    "chicken": "chicken-foot",
}


def test_a_game_video_through_the_camera_loop_reaches_the_store_and_the_stream(
    make_app, tmp_path
) -> None:
    card = write_video(tmp_path / "video", TINY_GAME_SEED, TINY_GAME)
    assert card["variant"] == "mexican" and card["tiles"] == 2
    # The bundled models read the frames (no SCENE_PROVIDER); every frame is inferred.
    app = make_app(SCENE_PROVIDER=None, CAMERA_INFER_INTERVAL_S=0.1)
    client = app.test_client()
    body = {"variant": VARIANT_OF_KIND[card["variant"]], "set": 12, "players": ["A", "B"]}
    gid = client.post("/api/games", json=body, headers=ADMIN).json["game"]["id"]
    stream = client.get(f"/api/events?game={gid}&max_s=30", buffered=False)
    chunks = iter(stream.response)
    assert next(chunks).startswith(b"retry:")
    app.config["CAMERA"] = str(tmp_path / "video" / "video.mp4")
    loop = start_camera(app)
    pushed: list[dict] = []
    try:
        # Pushed over SSE as the camera confirms them (the stream wakes on each write).
        for chunk in chunks:
            text = chunk.decode()
            if text.startswith("id:"):
                state = json.loads(text.split("data: ", 1)[1])
                pushed = state["round"]["table"]["events"]
                if pushed:
                    break
        assert loop.status()["state"] == "live", loop.status()
    finally:
        loop.stop()
        stream.close()
    assert pushed and all(e["kind"] == "added" for e in pushed)
    stored = client.get(f"/api/games/{gid}/rounds/current/table/events").json["events"]
    assert {e["id"] for e in pushed} <= {e["id"] for e in stored}
    assert all("played" in e["text"] for e in stored)
    rnd = client.get(f"/api/games/{gid}/state").json["round"]
    # The game's variant reached the camera's layout; the frame is the table picture.
    assert rnd["table"]["scene"]["layout"]["kind"] == "mexican"
    assert client.get(rnd["table"]["image"]).mimetype == "image/jpeg"
