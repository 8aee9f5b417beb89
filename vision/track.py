"""The live table: a stable picture of the tiles over the frames of a video.

A detector sees a table frame by frame, and frames lie: an arm hides tiles, a box is missed
now and then, a shadow is boxed for a frame, boxes jitter by a pixel or two, the camera
shakes. People must see none of that. `TableTracker` is fed one frame's detections at a time
and answers with a stable Scene and the changes it has confirmed:

* Association: each detection is matched to at most one track by the Hungarian method on a
  cost of centre distance (in tile widths) and angle, gated so that a neighbouring tile in
  a line (one tile length away) never matches; the probabilistic IoU of the two boxes
  (`geometry.probiou`, the measure the detector's NMS uses) must also reach `min_iou`.
* Confirmation: a new track is tentative until it has been seen in `confirm_frames` frames,
  or `confirm_down_frames` for a face-down one (a tentative track missed for more than
  `tentative_misses` frames in a row is dropped, so a one-frame false box never shows).
* Occlusion: a confirmed tile that is not seen stays (flagged hidden) and is removed only
  after `remove_frames` frames in a row without it: an arm over the table for a second does
  not take tiles away.
* Reading a few times per tile: the reader is called for a track when it is about to be
  confirmed, and at each frame until `agree_reads` reads in a row name the same tile (a tile
  is first seen as the hand leaves it, partly hidden, and a confident misread then would
  stick); again only when its box moved by more than `move_frac` of a tile width or
  `move_deg` degrees since it was read, or (at most `max_reads` times) when the read was
  doubtful. A tile whose box has not moved keeps its reading: the reader's cost is paid about
  twice per tile, not once per frame.
* Size: a tile does not change size under a fixed camera, so a shown tile's box that comes
  in another size (by more than `max_resize`: a box over part of the tile, or over two) is
  neither followed nor read, until boxes of that size have come for `resize_frames` frames.
* Events: each confirmed change (a tile added, removed, or read differently after it moved)
  becomes a `TableEvent` with its frame and timestamp; lines and open ends are found by
  `dominocam.vision.layout.layout_scene` on the confirmed tiles, and a tile is named by where
  it lies ("6-4 played at the top right, open end now 4").

Frame counts are counts of `update` calls (frames the tracker was given): a caller that
processes every second frame of a 30 fps camera gives 15 updates a second.

Why a class: the state of the table across frames (tracks, their cached readings, the last
confirmed Scene) is exactly what tracking is; `update` returns everything it found (the Scene,
the events) and nothing is read back from attributes, so one tracker per video source is the
whole contract. A tracker is not thread-safe: feed it from one thread (the capture loop).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import Any, Protocol

import numpy as np

from dominocam.rules import phrases
from dominocam.rules.phrases import Phrase
from dominocam.rules.places import place_of, place_phrase
from dominocam.rules.tiles import SUPPORTED_SETS
from dominocam.vision import geometry, messages
from dominocam.vision.confidence import Calibration, mark_doubtful
from dominocam.vision.decode import joint_decode
from dominocam.vision.layout import LayoutConfig, layout_scene
from dominocam.vision.scene import Scene, SceneTile

EVENT_KINDS: tuple[str, ...] = ("added", "removed", "changed")

# `read(corners_list) -> (N, 2, V)` probabilities of pip values for half 0 and half 1 of
# each box, in the corner order given (`dominocam.vision.reader.Reader.read` bound to the frame).
ReadFn = Callable[[list[np.ndarray]], np.ndarray]


class Observation(Protocol):
    """What the tracker needs of one detection (`dominocam.vision.detector.Detection` has it)."""

    corners: np.ndarray
    score: float

    @property
    def face(self) -> str | None: ...


@dataclass(frozen=True)
class PlainDetection:
    """A plain detection for callers without a detector object (tests, replayed Scenes).

    Attributes:
        corners: (4, 2) float corners in image pixels (any cyclic order; ordered on use).
        face: "up" or "down".
        score: detector confidence 0..1.
        half_probs: optional (2, V) reading already made for these corners (a replayed
            Scene); the tracker then does not call the reader for it.
    """

    corners: np.ndarray
    face: str = "up"
    score: float = 1.0
    half_probs: np.ndarray | None = None

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, dtype=np.float64)
        if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
            raise ValueError(f"corners must be four finite (x, y) pairs, got shape {corners.shape}")
        object.__setattr__(self, "corners", corners)
        if self.face not in ("up", "down"):
            raise ValueError(f"face must be 'up' or 'down', got {self.face!r}")


@dataclass(frozen=True)
class TrackerConfig:
    """Every threshold of the tracker (frames are `update` calls).

    Attributes:
        confirm_frames: frames a new tile must be seen in before it is shown.
        confirm_down_frames: the same for a face-down tile. Longer: a tile carried in a hand
            is often boxed face down for a few frames, and a face-down tile is never a move
            that must be shown at once.
        tentative_misses: frames in a row a tentative track may be missed before it is dropped.
        remove_frames: frames in a row a confirmed tile must be missing before it is removed
            (an arm over the table hides tiles for a second or two).
        max_centre_dist: largest centre distance of a match, in widths of the track's tile.
        max_angle_deg: largest angle between the long axes of a match.
        min_iou: smallest probabilistic IoU of a match.
        smooth: weight of a new box in the track's smoothed box (0..1) while it has not moved.
        move_frac: a box whose centre moved more than this (tile widths) from where it was
            read, or turned more than `move_deg`, is read again.
        move_deg: see `move_frac`.
        max_resize: a shown tile's box whose length or width differs from the track's by more
            than this fraction is taken for a misdrawn box (half a tile, two tiles, a tile
            partly under a hand): the tile counts as seen, but the box is neither followed
            nor read, unless boxes of another size keep coming for `resize_frames` frames.
        resize_frames: see `max_resize`.
        doubt: a read whose weaker half is less likely than this is doubtful: it is read
            again at the next frames, up to `max_reads` reads, then every `reread_every`
            frames while it stays doubtful (a hand half over it, a tile cut by the border).
        max_reads: see `doubt`.
        reread_every: see `doubt`.
        agree_reads: a new face-up tile is shown only once this many reads in a row name the
            same tile (or, like a doubtful one, after `doubt_wait` frames); a shown tile
            changes its values only once this many reads in a row name the new ones.
        doubt_wait: frames a doubtfully read new tile waits for a clear read before it is
            shown anyway (with its doubtful values).
        set_max: the set's highest value (6, 9, 12 or 15), for decoding readings.
        layout: how lines and open ends are rebuilt (`dominocam.vision.layout.LayoutConfig`: the
            layout kind of the game, Mexican Train's number of trains...); by default a
            line game whose first tile is the root even before a second one touches it.
    """

    confirm_frames: int = 3
    confirm_down_frames: int = 10
    tentative_misses: int = 1
    remove_frames: int = 25
    max_centre_dist: float = 0.6
    max_angle_deg: float = 25.0
    min_iou: float = 0.2
    smooth: float = 0.3
    move_frac: float = 0.35
    move_deg: float = 12.0
    max_resize: float = 0.25
    resize_frames: int = 5
    doubt: float = 0.6
    max_reads: int = 3
    reread_every: int = 5
    agree_reads: int = 2
    doubt_wait: int = 8
    set_max: int = 12
    layout: LayoutConfig = field(default_factory=lambda: LayoutConfig(lone_root=True))

    def __post_init__(self) -> None:
        for name in (
            "confirm_frames",
            "confirm_down_frames",
            "remove_frames",
            "max_reads",
            "reread_every",
            "agree_reads",
            "resize_frames",
        ):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"TrackerConfig.{name} must be >= 1")
        if self.tentative_misses < 0 or self.doubt_wait < 0:
            raise ValueError("TrackerConfig.tentative_misses and doubt_wait must be >= 0")
        for name in ("max_centre_dist", "max_angle_deg", "move_frac", "move_deg", "max_resize"):
            if float(getattr(self, name)) <= 0:
                raise ValueError(f"TrackerConfig.{name} must be positive")
        for name in ("min_iou", "smooth", "doubt"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise ValueError(f"TrackerConfig.{name} must be in 0..1")
        if self.set_max not in (6, 9, 12, 15):
            raise ValueError(f"TrackerConfig.set_max must be 6, 9, 12 or 15, got {self.set_max}")

    @classmethod
    def at_rate(
        cls,
        fps: float,
        *,
        confirm_s: float = 0.3,
        confirm_down_s: float = 1.0,
        remove_s: float = 2.5,
        doubt_wait_s: float = 0.8,
        reread_s: float = 0.5,
        resize_s: float = 0.5,
        **overrides: Any,
    ) -> TrackerConfig:
        """The thresholds for `fps` updates a second, from durations in seconds.

        At 10 updates a second this gives the defaults; at one a second (the dashboard's
        inference interval) a tile is shown after 2 frames and removed after 3.
        """
        if fps <= 0:
            raise ValueError("fps must be positive")
        return cls(
            confirm_frames=max(2, math.ceil(confirm_s * fps - 1e-9)),
            confirm_down_frames=max(2, math.ceil(confirm_down_s * fps - 1e-9)),
            remove_frames=max(3, math.ceil(remove_s * fps - 1e-9)),
            doubt_wait=max(1, math.ceil(doubt_wait_s * fps - 1e-9)),
            reread_every=max(1, math.ceil(reread_s * fps - 1e-9)),
            resize_frames=max(2, math.ceil(resize_s * fps - 1e-9)),
            **overrides,
        )


@dataclass(frozen=True)
class TableEvent:
    """One confirmed change of the table.

    Attributes:
        kind: "added" (a tile appeared and was confirmed), "removed" (gone for good) or
            "changed" (read again, with other values: it moved, or a doubtful read cleared).
        frame: index of the `update` call that confirmed it (0-based).
        time_s: the timestamp given with that frame, seconds.
        track: the tile's track id (stable for the tile's life).
        face: "up" or "down".
        pips: (a, b), a <= b, for a read face-up tile; None otherwise.
        line: index of the tile's line in the Scene's layout after the change (None when the
            tile is in no line: the first tile, a loose tile, a removed tile).
        open_end: the value the tile leaves free at the end of its line (None if it ends none).
        open_ends: every open end of the table after the change.
        text: one sentence for people ("6-4 played at the top right, open end now 4"), in
            English;
            a `dominocam.rules.phrases.Phrase` when made here, whose code and parameters `to_dict`
            writes as `words` (pages write it in their reader's language).
        doubtful: the tile is not read surely (`SceneTile.doubtful`): `pips` is None and the
            text asks for a check; a doubtful tile is never announced as a confirmed move.
    """

    kind: str
    frame: int
    time_s: float
    track: int
    face: str
    pips: tuple[int, int] | None
    line: int | None
    open_end: int | None
    open_ends: tuple[int, ...]
    text: str
    doubtful: bool = False

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {self.kind!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "frame": self.frame,
            "time_s": round(self.time_s, 4),
            "track": self.track,
            "face": self.face,
            "pips": list(self.pips) if self.pips is not None else None,
            "line": self.line,
            "open_end": self.open_end,
            "open_ends": list(self.open_ends),
            "text": str(self.text),
            "words": phrases.to_json(self.text),
            "doubtful": self.doubtful,
        }


@dataclass(frozen=True)
class TrackResult:
    """What one `update` found.

    Attributes:
        scene: the stable Scene (confirmed tiles, layout); its tile ids follow track order.
        events: changes confirmed at this frame (usually none).
        tracks: track id of each tile of `scene` (same order).
        hidden: scene ids of confirmed tiles not seen in this frame (held through occlusion).
        tentative: (K, 4, 2) boxes seen but not confirmed yet (for drawing).
        reads: how many boxes the reader was asked to read at this frame.
    """

    scene: Scene
    events: tuple[TableEvent, ...]
    tracks: tuple[int, ...]
    hidden: tuple[int, ...]
    tentative: np.ndarray
    reads: int


@dataclass
class _Track:
    """The tracker's private state of one tile."""

    id: int
    corners: np.ndarray  # smoothed, in the track's own corner order
    face_votes: dict[str, int]
    score: float
    hits: int = 1
    misses: int = 0
    confirmed: bool = False
    read_corners: np.ndarray | None = None  # where the reading was made
    half_probs: np.ndarray | None = None  # (2, V) in the track's corner order
    reads: int = 0
    read_frame: int = -1  # the update at which it was last read
    agree: int = 0  # reads in a row, up to now, that named the tile of `half_probs`
    # A shown tile read as another tile: that tile, and how many reads in a row named it.
    candidate: tuple[tuple[int, int], int] | None = None
    stale: bool = False  # the box moved since the reading: it is read again (`_take_reading`)
    resized: int = 0  # frames in a row its box came in another size (`TrackerConfig.max_resize`)
    shown_pips: tuple[int, int] | None = None  # the values last announced
    guess: tuple[int, int] | None = None  # the values of a doubtful reading (not announced)

    @property
    def face(self) -> str:
        return max(self.face_votes, key=lambda f: (self.face_votes[f], f == "up"))


def _array(value: Any) -> np.ndarray | None:
    return None if value is None else np.asarray(value, np.float64)


def _pair(value: Any) -> tuple[int, int] | None:
    return None if value is None else (int(value[0]), int(value[1]))


def _track_state(track: _Track) -> dict[str, Any]:
    """One track as JSON values (`TableTracker.to_state`)."""
    return {
        "id": track.id,
        "corners": track.corners.tolist(),
        "face_votes": dict(track.face_votes),
        "score": track.score,
        "hits": track.hits,
        "misses": track.misses,
        "confirmed": track.confirmed,
        "read_corners": None if track.read_corners is None else track.read_corners.tolist(),
        "half_probs": None if track.half_probs is None else track.half_probs.tolist(),
        "reads": track.reads,
        "read_frame": track.read_frame,
        "agree": track.agree,
        "candidate": None
        if track.candidate is None
        else [list(track.candidate[0]), track.candidate[1]],
        "stale": track.stale,
        "resized": track.resized,
        "shown_pips": None if track.shown_pips is None else list(track.shown_pips),
        "guess": None if track.guess is None else list(track.guess),
    }


def _track_from_state(data: dict[str, Any]) -> _Track:
    candidate = data["candidate"]
    corners = _array(data["corners"])
    assert corners is not None
    return _Track(
        id=int(data["id"]),
        corners=corners,
        face_votes={str(k): int(v) for k, v in data["face_votes"].items()},
        score=float(data["score"]),
        hits=int(data["hits"]),
        misses=int(data["misses"]),
        confirmed=bool(data["confirmed"]),
        read_corners=_array(data["read_corners"]),
        half_probs=_array(data["half_probs"]),
        reads=int(data["reads"]),
        read_frame=int(data["read_frame"]),
        agree=int(data["agree"]),
        candidate=None if candidate is None else (_pair(candidate[0]), int(candidate[1])),  # type: ignore[arg-type]
        stale=bool(data["stale"]),
        resized=int(data["resized"]),
        shown_pips=_pair(data["shown_pips"]),
        guess=_pair(data["guess"]),
    )


def _width(corners: np.ndarray) -> float:
    return float(
        (np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[3] - corners[2])) / 2
    )


def _length(corners: np.ndarray) -> float:
    return float(
        (np.linalg.norm(corners[2] - corners[1]) + np.linalg.norm(corners[0] - corners[3])) / 2
    )


def _axis_angle(corners: np.ndarray) -> float:
    """Angle of the long axis, radians in [0, pi)."""
    d = (corners[2] + corners[3]) / 2 - (corners[0] + corners[1]) / 2
    return math.atan2(d[1], d[0]) % math.pi


def _angle_diff(a: float, b: float) -> float:
    d = abs(a - b) % math.pi
    return min(d, math.pi - d)


def _align(corners: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """`corners` turned (cyclic shift by 0 or 2, order kept) to best fit `reference`'s order."""
    flipped = np.roll(corners, 2, axis=0)
    if np.abs(flipped - reference).sum() < np.abs(corners - reference).sum():
        return flipped
    return corners


def _tile_of(half_probs: np.ndarray, set_max: int) -> tuple[tuple[int, int], tuple[float, float]]:
    """The best (a, b) of the set for one tile's reading, and its half confidences."""
    tile = SceneTile(0, "up", np.zeros((4, 2)), 1.0, half_probs=half_probs)
    (decoded,), _ = joint_decode([tile], set_max)
    assert decoded.pips is not None and decoded.pip_confidence is not None
    return decoded.pips, decoded.pip_confidence


class TableTracker:
    """A stable Scene of a live table from per-frame detections (see the module docstring).

    Args:
        width, height: frame size in pixels.
        config: thresholds.
        calibration: gives each shown tile its `probability` and marks it `doubtful` below
            the calibration's threshold (`dominocam.vision.confidence`); without one a tile is
            doubtful when its weaker half is below `TrackerConfig.doubt`. Either way, and when two
            tiles are read as one (`dominocam.vision.decode`), a doubtful tile is shown as such,
            never as a confirmed move.

    Example::

        tracker = TableTracker(1280, 720)
        for t, frame in frames:
            boxes = detector.detect(frame)
            result = tracker.update(boxes, lambda c: reader.read(frame, c), t)
            show(result.scene); log(result.events)
    """

    def __init__(
        self,
        width: int,
        height: int,
        config: TrackerConfig | None = None,
        calibration: Calibration | None = None,
    ) -> None:
        self.config = config or TrackerConfig()
        self.calibration = calibration
        self.width, self.height = int(width), int(height)
        if self.width <= 0 or self.height <= 0:
            raise ValueError("frame size must be positive")
        self._tracks: list[_Track] = []
        self._next_id = 0
        self._frame = -1
        self._scene = Scene(self.width, self.height)
        self._scene_tracks: tuple[int, ...] = ()
        self._set_reach: int | None = None

    def grow_set(self, reach: int) -> None:
        """Let the set grow with the values read (`dominocam watch` without a set): each
        time the Scene is built, `config.set_max` becomes the smallest standard set
        (`dominocam.rules.tiles.SUPPORTED_SETS`) that holds the highest value read on a confirmed
        tile (each half's most likely value before the set limits it), never smaller than it was
        nor larger than `reach` (the largest set the reader reads)."""
        self._set_reach = reach

    # --- one frame ------------------------------------------------------------------------

    def update(
        self,
        detections: Sequence[Observation | PlainDetection],
        read: ReadFn | None,
        timestamp: float,
    ) -> TrackResult:
        """Take one frame's detections; return the stable Scene and the confirmed changes.

        Args:
            detections: the frame's boxes (objects with `corners` (4, 2) px, `score` and a
                `face` of "up"/"down"; others such as non-tile classes are ignored).
            read: reads half values of boxes of THIS frame (see `ReadFn`); None when there is
                no reader (face-up tiles then stay unread).
            timestamp: the frame's time in seconds (video position or wall clock).
        """
        cfg = self.config
        self._frame += 1
        boxes = [d for d in detections if getattr(d, "face", None) in ("up", "down")]
        det_corners = [geometry.order_corners(np.asarray(d.corners, np.float64)) for d in boxes]
        matches = self._associate(det_corners)
        matched_tracks: set[int] = set()
        matched_dets: set[int] = set()
        for ti, di in matches:
            track = self._tracks[ti]
            matched_tracks.add(ti)
            matched_dets.add(di)
            self._absorb(track, det_corners[di], boxes[di])
        for di, d in enumerate(boxes):
            if di in matched_dets:
                continue
            track = _Track(self._next_id, det_corners[di], {str(d.face): 1}, float(d.score))
            pre = getattr(d, "half_probs", None)
            if pre is not None:
                track.half_probs = np.asarray(pre, np.float64)
                track.read_corners = det_corners[di].copy()
                track.reads = 1
                track.read_frame = self._frame
                track.agree = cfg.agree_reads  # read by someone else: nothing to agree with
            self._next_id += 1
            self._tracks.append(track)
            matched_tracks.add(len(self._tracks) - 1)
        for ti, track in enumerate(self._tracks):
            if ti not in matched_tracks:
                track.misses += 1

        # Readings: due for tracks about to be confirmed, moved, or doubtfully read.
        due = [t for t in self._tracks if t.misses == 0 and self._needs_read(t)]
        reads = 0
        if due and read is not None:
            probs = read([t.corners.copy() for t in due])
            reads = len(due)
            for track, p in zip(due, probs, strict=True):
                p = np.asarray(p, np.float64)
                track.reads += 1
                track.read_frame = self._frame
                self._take_reading(track, p)

        # Confirm, drop and remove.
        events_pending: list[tuple[str, _Track]] = []
        keep: list[_Track] = []
        for track in self._tracks:
            if not track.confirmed:
                if track.misses > cfg.tentative_misses:
                    continue  # a passing false box
                readable = track.face == "down" or read is None or self._read_settled(track)
                needed = cfg.confirm_frames if track.face == "up" else cfg.confirm_down_frames
                if track.hits >= needed and track.misses == 0 and readable:
                    track.confirmed = True
                    events_pending.append(("added", track))
            elif track.misses >= cfg.remove_frames:
                events_pending.append(("removed", track))
                continue
            keep.append(track)
        self._tracks = keep
        reread = any(t.confirmed for t in due) and reads > 0
        if events_pending or reread or self._scene_dirty():
            before = {t.id: (t.shown_pips, t.guess) for t in self._tracks if t.confirmed}
            self._rebuild_scene()
            added = {t.id for kind, t in events_pending if kind == "added"}
            for t in self._tracks:
                old = before.get(t.id)
                if (
                    t.confirmed
                    and t.id not in added
                    and old is not None
                    and old != (None, None)
                    and old != (t.shown_pips, t.guess)
                ):
                    events_pending.append(("changed", t))
        events = tuple(self._event(kind, track, timestamp) for kind, track in events_pending)
        confirmed_ids = {t.id: t for t in self._tracks if t.confirmed}
        hidden = tuple(
            sid for sid, tid in enumerate(self._scene_tracks) if confirmed_ids[tid].misses > 0
        )
        tentative = np.array(
            [t.corners for t in self._tracks if not t.confirmed and t.misses == 0]
        ).reshape(-1, 4, 2)
        return TrackResult(self._scene, events, self._scene_tracks, hidden, tentative, reads)

    # --- state between processes -------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """Everything the tracker has learnt, as JSON values (floats exact), so that another
        process can go on from the next frame (`from_state`): a tournament table's frames
        are read by whichever worker is free. The config and calibration are not in it:
        the caller gives them again."""
        return {
            "width": self.width,
            "height": self.height,
            "next_id": self._next_id,
            "frame": self._frame,
            "tracks": [_track_state(t) for t in self._tracks],
            "scene": self._scene.to_dict(),
            "scene_corners": [t.corners.tolist() for t in self._scene.tiles],
            "scene_tracks": list(self._scene_tracks),
        }

    @classmethod
    def from_state(
        cls,
        state: dict[str, Any],
        config: TrackerConfig | None = None,
        calibration: Calibration | None = None,
    ) -> TableTracker:
        """The tracker `to_state` described, as if it had never left this process."""
        tracker = cls(state["width"], state["height"], config, calibration)
        tracker._next_id = int(state["next_id"])
        tracker._frame = int(state["frame"])
        tracker._tracks = [_track_from_state(t) for t in state["tracks"]]
        scene = Scene.from_dict(state["scene"])
        tiles = [
            replace(tile, corners=np.asarray(corners, np.float64))
            for tile, corners in zip(scene.tiles, state["scene_corners"], strict=True)
        ]
        tracker._scene = replace(scene, tiles=tiles)
        tracker._scene_tracks = tuple(int(i) for i in state["scene_tracks"])
        return tracker

    def update_scene(self, scene: Scene, timestamp: float) -> TrackResult:
        """Track an already read Scene (its tiles' readings are used; no reader is called).

        For sources that give whole Scenes (an injected scene provider, recorded JSON).
        """
        boxes = []
        for tile in scene.tiles:
            probs = tile.half_probs
            if probs is None and tile.pips is not None:
                conf = tile.pip_confidence or (1.0, 1.0)
                probs = _probs_from_pips(tile.pips, conf, self.config.set_max)
            boxes.append(PlainDetection(tile.corners, tile.face, tile.confidence, probs))
        return self.update(boxes, None, timestamp)

    # --- internals ------------------------------------------------------------------------

    def _associate(self, det_corners: list[np.ndarray]) -> list[tuple[int, int]]:
        from scipy.optimize import linear_sum_assignment

        cfg = self.config
        if not self._tracks or not det_corners:
            return []
        t_c = np.array([t.corners for t in self._tracks])
        d_c = np.array(det_corners)
        t_ctr, d_ctr = t_c.mean(axis=1), d_c.mean(axis=1)
        widths = np.array([max(_width(c), 1.0) for c in t_c])
        dist = np.linalg.norm(t_ctr[:, None] - d_ctr[None], axis=-1) / widths[:, None]
        t_ang = np.array([_axis_angle(c) for c in t_c])
        d_ang = np.array([_axis_angle(c) for c in d_c])
        ang = np.abs(t_ang[:, None] - d_ang[None]) % math.pi
        ang = np.degrees(np.minimum(ang, math.pi - ang))
        iou = geometry.probiou(geometry.corners_to_xywhr(t_c), geometry.corners_to_xywhr(d_c))
        ok = (dist <= cfg.max_centre_dist) & (ang <= cfg.max_angle_deg) & (iou >= cfg.min_iou)
        cost = dist + ang / cfg.max_angle_deg * 0.25 + (1 - iou) * 0.25
        # Confirmed tracks win ties against tentative ones.
        cost = cost + np.array([0.0 if t.confirmed else 0.05 for t in self._tracks])[:, None]
        cost = np.where(ok, cost, 1e6)
        rows, cols = linear_sum_assignment(cost)
        return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if ok[r, c]]

    def _absorb(self, track: _Track, corners: np.ndarray, det: Any) -> None:
        corners = _align(corners, track.corners)
        track.resized = track.resized + 1 if self._resized(track.corners, corners) else 0
        if track.confirmed and 0 < track.resized < self.config.resize_frames:
            # A tile does not change size on a fixed camera: the tile is there, the box is not
            # its own (a half-tile box read confidently as another tile; docs/tracking.md).
            track.hits += 1
            track.misses = 0
            return
        if self._moved(track.corners, corners):
            track.corners = corners  # a jump: follow it at once (it will be read again)
        else:
            a = self.config.smooth
            track.corners = (1 - a) * track.corners + a * corners
        track.hits += 1
        track.misses = 0
        track.score = max(track.score * 0.9, float(det.score))
        face = str(det.face)
        track.face_votes[face] = track.face_votes.get(face, 0) + 1

    def _resized(self, before: np.ndarray, after: np.ndarray) -> bool:
        limit = self.config.max_resize
        return any(
            abs(size(after) - size(before)) > limit * max(size(before), 1.0)
            for size in (_length, _width)
        )

    def _moved(self, before: np.ndarray, after: np.ndarray) -> bool:
        cfg = self.config
        shift = float(np.linalg.norm(before.mean(axis=0) - after.mean(axis=0)))
        turn = math.degrees(_angle_diff(_axis_angle(before), _axis_angle(after)))
        return shift > cfg.move_frac * max(_width(before), 1.0) or turn > cfg.move_deg

    def _needs_read(self, track: _Track) -> bool:
        cfg = self.config
        if track.face != "up":
            return False
        if track.half_probs is None or track.read_corners is None:
            return track.hits >= cfg.confirm_frames - 1 or track.confirmed
        if self._moved(track.read_corners, track.corners):
            track.reads = 0
            track.stale = True
            return True
        if not track.confirmed and track.agree < cfg.agree_reads:
            return True
        if self._confidence(track.half_probs) >= cfg.doubt:
            return False
        return track.reads < cfg.max_reads or self._frame - track.read_frame >= cfg.reread_every

    def _take_reading(self, track: _Track, new: np.ndarray) -> None:
        """Let a new reading replace the track's reading, or not; count reads that agree.

        * Of the same tile: the more confident of the two readings is kept, or the new one
          when the box moved since (it is made where the box is now).
        * Of another tile, for a tile not shown yet: the new one, and the count starts again
          (the latest view of a tile just set down is the least hidden).
        * Of another tile, for a shown tile: only once `agree_reads` reads in a row name that
          tile, and then only if the new reading is not doubtful and the box moved or the
          new reading is the more confident: a tile read while an arm passes over it keeps
          its values.
        """
        cfg = self.config
        if track.half_probs is None:
            self._accept(track, new, agree=1)
            return
        new_tile, new_conf = _tile_of(new, cfg.set_max)
        old_tile, old_conf = _tile_of(track.half_probs, cfg.set_max)
        more_confident = min(new_conf) > min(old_conf)
        if new_tile == old_tile:
            track.candidate = None
            track.agree += 1
            if track.stale or more_confident:
                self._accept(track, new, track.agree)
        elif not track.confirmed:
            self._accept(track, new, agree=1)
        else:
            agree = (
                track.candidate[1] + 1 if track.candidate and track.candidate[0] == new_tile else 1
            )
            track.candidate = (new_tile, agree)
            clear = min(new_conf) >= cfg.doubt
            if agree >= cfg.agree_reads and clear and (track.stale or more_confident):
                self._accept(track, new, agree)

    @staticmethod
    def _accept(track: _Track, reading: np.ndarray, agree: int) -> None:
        """`reading` becomes the track's, made where its box is now."""
        track.half_probs = reading
        track.read_corners = track.corners.copy()
        track.stale = False
        track.agree = agree
        track.candidate = None

    def _confidence(self, half_probs: np.ndarray) -> float:
        """The weaker half's probability of the best reading."""
        return min(_tile_of(half_probs, self.config.set_max)[1])

    def _read_settled(self, track: _Track) -> bool:
        """A reading confident enough to announce, or one that waited long enough."""
        cfg = self.config
        if track.half_probs is None:
            return False
        if track.hits >= cfg.confirm_frames + cfg.doubt_wait:
            return True
        return track.agree >= cfg.agree_reads and self._confidence(track.half_probs) >= cfg.doubt

    def _grown_set(self, confirmed: list[_Track]) -> int:
        """The set `grow_set` reads as: the smallest standard set holding every value read
        on the `confirmed` face-up tracks, at least the present one, at most the reach."""
        assert self._set_reach is not None
        read = [
            int(np.argmax(t.half_probs, axis=1).max())
            for t in confirmed
            if t.face == "up" and t.half_probs is not None
        ]
        highest = max([self.config.set_max, *read])
        fits = next((s for s in SUPPORTED_SETS if s >= highest), SUPPORTED_SETS[-1])
        return min(fits, max(self._set_reach, self.config.set_max))

    def _scene_dirty(self) -> bool:
        """A confirmed track moved since the Scene was built (drawn boxes follow the tile)."""
        confirmed = [t for t in self._tracks if t.confirmed]
        if tuple(t.id for t in confirmed) != self._scene_tracks:
            return True
        for sid, t in enumerate(confirmed):
            if t.read_corners is not None and not np.allclose(
                self._scene.tiles[sid].corners, t.read_corners
            ):
                return True
        return False

    def _rebuild_scene(self) -> None:
        cfg = self.config
        confirmed = [t for t in self._tracks if t.confirmed]
        tiles = []
        for sid, t in enumerate(confirmed):
            corners = t.read_corners if t.read_corners is not None else t.corners
            probs = t.half_probs if t.face == "up" else None
            tiles.append(SceneTile(sid, t.face, corners, min(1.0, t.score), half_probs=probs))
        if self._set_reach is not None:
            cfg = self.config = replace(cfg, set_max=self._grown_set(confirmed))
        decoded, warnings = joint_decode(tiles, cfg.set_max)
        if self.calibration is not None and self._calibration_applies(decoded):
            decoded = mark_doubtful(decoded, self.calibration)
        else:
            decoded = [
                replace(t, doubtful=True)
                if t.pip_confidence is not None and min(t.pip_confidence) < cfg.doubt
                else t
                for t in decoded
            ]
        scene = Scene(self.width, self.height, decoded, warnings=warnings)
        scene = layout_scene(scene, cfg.layout)
        self._scene = replace(scene, needs_review=any(t.doubtful for t in scene.tiles))
        self._scene_tracks = tuple(t.id for t in confirmed)
        for t, tile in zip(confirmed, self._scene.tiles, strict=True):
            if tile.pips is not None and tile.doubtful:
                t.guess = tile.pips
                t.shown_pips = None
            elif tile.pips is not None:
                t.shown_pips, t.guess = tile.pips, None

    def _calibration_applies(self, tiles: Sequence[SceneTile]) -> bool:
        """Whether every tile has the features the calibration needs: the live path boxes
        each frame with the detector alone, so a calibration fitted with the verifier's
        score gives way to the tracker's own rule (`TrackerConfig.doubt`)."""
        assert self.calibration is not None
        needs_verifier = "verifier" in self.calibration.features
        return not needs_verifier or all(t.verifier_score is not None for t in tiles)

    def _event(self, kind: str, track: _Track, timestamp: float) -> TableEvent:
        scene = self._scene
        pips = track.shown_pips if track.face == "up" else None
        line: int | None = None
        open_end: int | None = None
        doubtful = False
        if kind != "removed" and track.id in self._scene_tracks:
            sid = self._scene_tracks.index(track.id)
            pips = scene.tiles[sid].pips
            doubtful = scene.tiles[sid].doubtful
            if doubtful and pips is not None:
                pips = None  # never announced: a person checks it
            for j, ln in enumerate(scene.layout.lines):
                if ln.open_end is not None and ln.open_end.tile == sid:
                    line, open_end = j, ln.open_end.value
                    break
            if line is None:
                line = next((j for j, ln in enumerate(scene.layout.lines) if sid in ln.tiles), None)
        center = track.corners.mean(axis=0)
        place = place_of((float(center[0]), float(center[1])), self.width, self.height)
        text = event_text(kind, track, pips, doubtful, place, open_end, scene.layout.open_ends)
        return TableEvent(
            kind,
            self._frame,
            float(timestamp),
            track.id,
            track.face,
            pips,
            line,
            open_end,
            tuple(scene.layout.open_ends),
            text,
            doubtful,
        )


# The name `dominocam.server.camera` looks for.
Tracker = TableTracker


def _probs_from_pips(
    pips: tuple[int, int], confidence: tuple[float, float], set_max: int
) -> np.ndarray:
    """(2, set_max + 1) probabilities that put each half's confidence on its value."""
    probs = np.zeros((2, set_max + 1))
    for half, (value, conf) in enumerate(zip(pips, confidence, strict=True)):
        rest = (1.0 - conf) / set_max if set_max else 0.0
        probs[half] = rest
        probs[half, min(value, set_max)] = conf
    return probs


def track_frame(
    tracker: TableTracker,
    image: np.ndarray,
    detector: Any,
    reader: Any | None,
    timestamp: float,
    timings: dict[str, float] | None = None,
) -> TrackResult:
    """Detect the tiles of one frame and update the tracker, reading only boxes it asks for.

    Args:
        tracker: the source's tracker.
        image: BGR uint8 HxWx3 frame.
        detector: `dominocam.vision.detector.Detector` (or anything with `detect(image, timings)`).
        reader: `dominocam.vision.reader.Reader` (or anything with `read(image, corners)`), or None.
        timestamp: seconds.
        timings: when given, seconds of "detect" and "track" (reading included) are added.
    """
    t0 = perf_counter()
    detections = detector.detect(image, timings)
    t1 = perf_counter()

    def read(corners: list[np.ndarray]) -> np.ndarray:
        assert reader is not None
        return reader.read(image, corners)

    result = tracker.update(detections, read if reader is not None else None, timestamp)
    if timings is not None:
        timings["detect"] = timings.get("detect", 0.0) + (t1 - t0)
        timings["track"] = timings.get("track", 0.0) + (perf_counter() - t1)
    return result


def event_text(
    kind: str,
    track: _Track,
    pips: tuple[int, int] | None,
    doubtful: bool,
    place: str | None,
    open_end: int | None,
    open_ends: Sequence[int],
) -> Phrase:
    """The event's sentence for people ("6-4 played at the top right, open end now 4 (open
    ends: 4, 6)"): a `dominocam.rules.phrases.Phrase` of `dominocam.vision.messages`'
    templates, its English text with the code and parameters pages write in their language.
    `place` is where the tile lies in the frame (`dominocam.rules.places`; None: unknown), a
    player's way to find it, never a line's number; `open_end` the value it leaves free at
    the end of its line (None: it ends none)."""
    name: Any
    if pips is not None:
        name = [int(pips[0]), int(pips[1])]
    else:
        name = messages.TILE_FACE_DOWN if track.face == "down" else messages.TILE_UNREAD
    if doubtful and track.face == "up":
        maybe = track.guess or track.shown_pips
        name = (
            messages.TILE_NOT_SURE_MAYBE.format(maybe=[int(maybe[0]), int(maybe[1])])
            if maybe
            else messages.TILE_NOT_SURE
        )
    ends: Any = [int(v) for v in open_ends] or messages.NO_OPEN_ENDS
    where = place_phrase(place) if place is not None else None
    if kind == "added":
        up = track.face == "up"
        if where is None:
            text = (messages.EVENT_PLAYED if up else messages.EVENT_APPEARED).format(
                name=name, ends=ends
            )
        elif open_end is None:
            text = (messages.EVENT_PLAYED_AT if up else messages.EVENT_APPEARED_AT).format(
                name=name, place=where, ends=ends
            )
        else:
            template = messages.EVENT_PLAYED_AT_END if up else messages.EVENT_APPEARED_AT_END
            text = template.format(name=name, place=where, end=int(open_end), ends=ends)
    elif kind == "removed":
        text = messages.EVENT_REMOVED.format(name=name, ends=ends)
    elif where is not None:
        text = messages.EVENT_READS_AT.format(place=where, name=name, ends=ends)
    else:
        text = messages.EVENT_NOW_READS.format(track=track.id, name=name, ends=ends)
    return messages.EVENT_TO_CHECK.format(event=text) if doubtful else text
