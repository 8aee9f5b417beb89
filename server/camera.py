"""The live camera: one capture-and-inference loop, many readers, reconnecting on drops.

`CameraLoop` owns the `cv2.VideoCapture` (an index, a video file or an RTSP/HTTP URL) in one
background thread. Every viewer (the MJPEG stream, the frame endpoint, a snapshot into the
round) reads the latest encoded frame and Scene from it, so ten viewers cost one capture and
one inference per interval, not ten. When reading fails the loop says so (`state:
"reconnecting"`, with the reason; `status_text` is what the pages show), releases the device and
reopens it with back-off; a file source loops from its start.

Momentary occlusion: a tile hidden for a frame or two (a player's arm) must not vanish from
the live state. The dashboard's loop (`start_camera`) reads frames through the vision
runtime's tracker (`dominocam.vision.track.TableTracker`): tiles are confirmed after a few
frames, kept while hidden, removed only when gone, and each tile is read once instead of once
per frame. A `CameraLoop` given a plain `reader` (no tracker, `tracked=False`) falls back to
`hold_occluded`: the last Scene with at least as many face-up tiles is kept for `hold_s`
seconds when a newer one suddenly shows fewer.

Into the game: the changes the tracker confirms (`dominocam.vision.track.TableEvent`, "6-4
played at the top right, open end now 4") are stored with the frame and its Scene in the
current game's open round (`dominocam.server.game.record_camera_update`, people's
corrections standing), and the SSE streams are woken, so the dashboard and the overlay show
them at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from dominocam.i18n import _, ngettext
from dominocam.server import engine, game, uploads
from dominocam.server.db import get_db
from dominocam.vision.scene import Scene


def parse_source(source: str | int) -> str | int:
    """An int for a device index ("0"), else the file path or URL as given."""
    if isinstance(source, int):
        return source
    text = str(source).strip()
    return int(text) if text.isdigit() else text


class CameraLoop:
    """A capture thread with the latest frame, Scene and status for any number of readers.

    Args:
        source: device index, file or URL.
        reader: `(pixels_bgr) -> scene dict`, or None for no inference; exceptions are shown in
            the status, never raised into readers.
        infer_interval_s: seconds between inferences (capture runs at the source's rate).
        hold_s: how long a Scene keeps tiles that momentarily disappear (untracked readers).
        tracked: the reader's Scenes are already stable (it tracks the table itself), so
            `hold_occluded` is not applied.
        opener: `(source) -> capture` with read()/release()/isOpened(); cv2.VideoCapture.
    """

    def __init__(
        self,
        source: str | int,
        reader: Callable[[np.ndarray], dict[str, Any]] | None = None,
        infer_interval_s: float = 1.0,
        hold_s: float = 2.0,
        opener: Callable[[Any], Any] | None = None,
        max_backoff_s: float = 10.0,
        tracked: bool = False,
    ) -> None:
        self.source = parse_source(source)
        self.reader = reader
        self.infer_interval_s = infer_interval_s
        self.hold_s = hold_s
        self.tracked = tracked
        self.max_backoff_s = max_backoff_s
        self._opener = opener
        self._cond = threading.Condition()
        self._jpeg: bytes | None = None
        self._frame_no = 0
        self._scene: dict[str, Any] | None = None
        self._scene_time = 0.0
        self._state = "starting"
        self._message = ""
        self._reconnects = 0
        self._last_drop: dict[str, Any] | None = None
        self._inferences = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dominocam-camera", daemon=True)

    # --- readers ---

    def start(self) -> CameraLoop:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout)

    def latest_jpeg(self) -> bytes | None:
        with self._cond:
            return self._jpeg

    def latest_scene(self) -> dict[str, Any] | None:
        with self._cond:
            return self._scene

    def status(self) -> dict[str, Any]:
        with self._cond:
            status = {
                "state": self._state,
                "message": self._message,
                "source": str(self.source) if isinstance(self.source, int) else "configured",
                "frames": self._frame_no,
                "inferences": self._inferences,
                "reconnects": self._reconnects,
                "last_drop": self._last_drop,
                "scene": self._scene,
            }
        status["text"] = status_text(status)
        return status

    def wait_frame(self, after: int, timeout: float) -> int:
        """Block until a frame newer than `after` (or timeout); the newest frame number."""
        with self._cond:
            if self._frame_no <= after and not self._stop.is_set():
                self._cond.wait(timeout)
            return self._frame_no

    def mjpeg(self, max_s: float | None = None) -> Iterator[bytes]:
        """multipart/x-mixed-replace parts of the latest frames, for one viewer."""
        seen = 0
        start = time.monotonic()
        while not self._stop.is_set():
            seen = self.wait_frame(seen, 2.0)
            jpeg = self.latest_jpeg()
            if jpeg is not None:
                yield (
                    b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                    + str(len(jpeg)).encode()
                    + b"\r\n\r\n"
                    + jpeg
                    + b"\r\n"
                )
            if max_s is not None and time.monotonic() - start > max_s:
                return

    # --- the loop ---

    def _open(self) -> Any:
        if self._opener is not None:
            return self._opener(self.source)
        import cv2

        return cv2.VideoCapture(self.source)

    def _set(self, state: str, message: str = "") -> None:
        with self._cond:
            self._state, self._message = state, message
            self._cond.notify_all()

    def _run(self) -> None:
        import cv2

        backoff = 0.5
        last_infer = 0.0
        is_file = isinstance(self.source, str) and "://" not in self.source
        while not self._stop.is_set():
            capture = None
            try:
                capture = self._open()
                if capture is None or not capture.isOpened():
                    raise OSError("cannot open the camera")
                self._set("live", "")
                backoff = 0.5
                while not self._stop.is_set():
                    ok, frame = capture.read()
                    if not ok or frame is None:
                        if is_file and self._frame_no > 0:
                            capture.release()
                            capture = self._open()  # a file source loops
                            continue
                        raise OSError("the camera stopped sending frames")
                    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
                    with self._cond:
                        if ok:
                            self._jpeg = encoded.tobytes()
                        self._frame_no += 1
                        self._cond.notify_all()
                    if self.reader and time.monotonic() - last_infer >= self.infer_interval_s:
                        last_infer = time.monotonic()
                        self._infer(frame)
                    if is_file:
                        time.sleep(1 / 15)
            except Exception as error:  # any failure: report, back off, reopen
                with self._cond:
                    self._reconnects += 1
                    self._last_drop = {"message": str(error), "time": time.time()}
                self._set("reconnecting", f"{error}; retrying in {backoff:g} s")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.max_backoff_s)
            finally:
                if capture is not None:
                    with contextlib.suppress(Exception):
                        capture.release()
        self._set("stopped", "")

    def _infer(self, frame: np.ndarray) -> None:
        try:
            scene = self.reader(frame) if self.reader else None
        except Exception as error:
            with self._cond:
                self._message = f"reading the frame failed: {error}"
            return
        self._inferences += 1
        now = time.monotonic()
        with self._cond:
            if self.tracked:
                if scene is not None:
                    self._scene, self._scene_time = scene, now
                return
            self._scene, self._scene_time = hold_occluded(
                self._scene, self._scene_time, scene, now, self.hold_s
            )


def status_text(status: dict[str, Any]) -> str:
    """The camera's status in words for the pages (in the request's language, dominocam.i18n):
    live, dropped and reconnecting, back."""
    state, message = status.get("state"), status.get("message") or ""
    drops = int(status.get("reconnects") or 0)
    if state == "reconnecting":
        if message:
            return _("camera dropped ({why}); reconnecting").format(why=message)
        return _("reconnecting")
    if state == "live":
        notes = [message] if message else []
        if drops:
            last = (status.get("last_drop") or {}).get("message") or _("unknown reason")
            notes.append(
                ngettext(
                    "reconnected after {count} drop; last: {last}",
                    "reconnected after {count} drops; last: {last}",
                    drops,
                ).format(count=drops, last=last)
            )
        return _("live ({notes})").format(notes="; ".join(notes)) if notes else _("live")
    return {"starting": _("starting"), "stopped": _("stopped")}.get(str(state), _("off"))


def _face_up(scene: dict[str, Any] | None) -> int:
    return sum(1 for t in (scene or {}).get("tiles") or [] if t.get("face") == "up")


def hold_occluded(
    previous: dict[str, Any] | None,
    previous_time: float,
    new: dict[str, Any] | None,
    now: float,
    hold_s: float,
) -> tuple[dict[str, Any] | None, float]:
    """Keep the previous Scene while the new one lost tiles for less than `hold_s` seconds.

    Tiles are never removed from a table in play, so a sudden drop in face-up tiles is an
    occlusion (an arm, a hand) until it lasts longer than `hold_s`.
    """
    if new is None:
        return previous, previous_time
    occluded = previous is not None and _face_up(new) < _face_up(previous)
    if occluded and now - previous_time < hold_s:
        held = dict(previous or {})
        held["held"] = True
        return held, previous_time
    return new, now


def tracking_reader(
    app: Any, interval_s: float = 1.0, clock: Callable[[], float] = time.monotonic
) -> Callable[[np.ndarray], dict[str, Any]]:
    """A camera reader that tracks the table: `(pixels) -> stable Scene dict`.

    One `dominocam.vision.track.TableTracker` serves the loop (its thread is the only caller); it is
    made again when the frame size or the set changes, and told the game's layout (variant, players,
    engine double: `dominocam.server.engine.reading_game`) when that changes. Its thresholds follow
    the inference interval and its layout the game, as the vision runtime sets them for every camera
    (`dominocam.vision.reading.tracker_config`). With the vision runtime, only new or moved tiles
    are read; with an injected `SCENE_PROVIDER` the provider's Scenes are tracked as they are. The
    Scene dict carries `track` on each tile (the tracker's id of it), `hidden` (ids of tiles held
    while not seen) and `events` (the changes confirmed at this frame), and the events are stored in
    the current game (`store_camera_events`).
    """
    state: dict[str, Any] = {"key": None, "tracker": None, "pending": []}

    def reader(pixels: np.ndarray) -> dict[str, Any]:
        from dominocam.vision.reading import tracker_config
        from dominocam.vision.track import TableTracker

        with app.app_context():
            conn = get_db()
            gid = game.current_game_id(conn)
            row = game.get_game(conn, gid) if gid is not None else None
            set_max = int(row["set_max"]) if row is not None else 12
            table = game.table_game(conn, gid) if gid is not None else None
            config = tracker_config(
                1.0 / max(interval_s, 1e-3), set_max, engine.reading_game(table)
            )
            provider = app.config.get("SCENE_PROVIDER")
            height, width = pixels.shape[:2]
            key = (width, height, set_max)
            if state["key"] != key:
                # EngineUnavailable (no model installed) is shown in the status.
                tracker = (
                    TableTracker(width, height, config)
                    if provider is not None
                    else engine.photo_reader().tracker(width, height, config)
                )
                state["key"], state["tracker"] = key, tracker
            tracker = state["tracker"]
            if tracker.config.layout != config.layout:
                # A new round (engine double) or game (variant): the tiles are still on the
                # table, only how they are laid out changes, so the tracker keeps them.
                tracker.config = dataclasses.replace(tracker.config, layout=config.layout)
            if provider is not None:
                scene = Scene.from_dict(provider(pixels, "table", set_max))
                result = tracker.update_scene(scene, clock())
            else:
                result = engine.photo_reader().track(tracker, pixels, clock())
            out = result.scene.to_dict()
            for tile, track in zip(out["tiles"], result.tracks, strict=True):
                tile["track"] = track
            out["hidden"] = list(result.hidden)
            out["events"] = [event.to_dict() for event in result.events]
            # Events wait here until stored: a failed write (the database busy) is retried
            # with the next frame instead of losing a tile played.
            state["pending"] = (state["pending"] + out["events"])[-MAX_PENDING_EVENTS:]
            if state["pending"] and gid is not None:
                store_camera_events(app, conn, gid, pixels, out, state["pending"])
            state["pending"] = []
            return out

    return reader


# Camera events kept for a retry while the database cannot take them (about a minute's worth).
MAX_PENDING_EVENTS = 200


def store_camera_events(
    app: Any,
    conn: Any,
    game_id: int,
    pixels: np.ndarray,
    scene: dict[str, Any],
    events: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Keep the frame as the round's table picture, store the events with the Scene
    (`dominocam.server.game.record_camera_update`) and wake the SSE streams; returns the stored
    events.

    The frame is kept because the Scene's outlines are drawn over it: a table photo uploaded
    earlier shows other coordinates. One file per round, replaced at each change.
    """
    import cv2

    rnd = game.get_round(conn, game_id)
    if rnd["status"] != "open":
        return []
    name = None
    ok, jpeg = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if ok:
        folder = uploads.game_folder(app.config["UPLOAD_FOLDER"], game_id)
        name = uploads.store_bytes(folder, f"camera-round-{rnd['number']}.jpg", jpeg.tobytes())
    table = {k: v for k, v in scene.items() if k != "events"}
    stored = game.record_camera_update(conn, game_id, table, events, name)
    if stored:
        app.extensions["dominocam.broker"].notify()
    return stored


def start_camera(app: Any, opener: Callable[[Any], Any] | None = None) -> CameraLoop:
    """Start the app's camera loop (config CAMERA), tracking the table (`tracking_reader`).

    `opener` replaces `cv2.VideoCapture` (a device stand-in for tests)."""
    interval = float(app.config["CAMERA_INFER_INTERVAL_S"])
    loop = CameraLoop(
        app.config["CAMERA"],
        reader=tracking_reader(app, interval),
        infer_interval_s=interval,
        tracked=True,
        opener=opener,
    ).start()
    app.extensions["dominocam.camera"] = loop
    return loop
