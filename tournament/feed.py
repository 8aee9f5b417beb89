"""A table's camera in tournament mode: frames to the event's web address, at a steady rate.

    dominocam feed --url http://10.0.0.5:5000 --table t1 --token ADMIN --source 0 --fps 2

The source is a camera index, a video file or stream URL (OpenCV), or `synth:SEED`, a
dominosynth game video rendered on the fly (for trying the event without cameras). Frames
go as JPEG to `POST /api/tables/ID/frames`; the workers read the newest one, so a feed never
waits for reading, and an unreachable web address is retried, not fatal.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import cv2
import numpy as np

from dominocam.errors import UserInputError
from dominosynth.video import VideoSpec, plan_video, render_frames

JPEG_QUALITY = 85


def synth_frames(seed: int, width: int = 640, height: int = 360) -> Iterator[np.ndarray]:
    """The frames of a dominosynth game video, rendered as they are sent, looping (BGR uint8)."""
    video = plan_video(seed, VideoSpec(width=width, height=height))
    while True:
        yield from render_frames(video)


def capture_frames(source: str) -> Iterator[np.ndarray]:
    """Frames from OpenCV: a device index ("0"), a file (looping) or a stream URL."""
    target: int | str = int(source) if source.isdigit() else source
    capture = cv2.VideoCapture(target)
    if not capture.isOpened():
        raise UserInputError(f"cannot open the camera or video {source!r}")
    try:
        while True:
            ok, image = capture.read()
            if not ok:
                if isinstance(target, str):  # a file ends: start again
                    capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    ok, image = capture.read()
                if not ok:
                    raise UserInputError(f"the camera or video {source!r} stopped sending frames")
            yield image
    finally:
        capture.release()


def source_frames(source: str) -> Iterator[np.ndarray]:
    if source.startswith("synth:"):
        try:
            seed = int(source.split(":", 1)[1])
        except ValueError:
            raise UserInputError("a synthetic source is synth:SEED, e.g. synth:1") from None
        return synth_frames(seed)
    return capture_frames(source)


def encode(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise UserInputError("cannot encode a frame as JPEG")
    return data.tobytes()


def post_frame(url: str, table: str, token: str, jpeg: bytes, timeout: float = 5.0) -> int:
    """Send one frame; returns its sequence number."""
    request = urllib.request.Request(
        f"{url.rstrip('/')}/api/tables/{table}/frames",
        data=jpeg,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "image/jpeg"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return int(json.loads(answer.read())["seq"])


def run_feed(
    url: str, table: str, token: str, source: str, fps: float, limit: int | None = None
) -> int:
    """Send frames at `fps` until interrupted (or `limit` frames); returns frames sent."""
    if fps <= 0:
        raise UserInputError("--fps must be positive")
    interval = 1.0 / fps
    sent = 0
    next_at = time.monotonic()
    for image in source_frames(source):
        if limit is not None and sent >= limit:
            break
        try:
            post_frame(url, table, token, encode(image))
            sent += 1
        except urllib.error.HTTPError as error:
            if error.code in (400, 401, 403, 404):
                raise UserInputError(
                    f"{url} refused table {table}'s frames: {error.read().decode()[:200]}"
                ) from error
        except OSError:
            pass  # the web process is away (restarting): the next frame tries again
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))
    return sent
