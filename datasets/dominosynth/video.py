"""A game being played, as a short synthetic video with its true event list.

One table is sampled as for a still picture (`render.build_scene`: camera, legal layout,
tiles, distractors, background), then replayed move by move: the table starts empty, and each
tile of the layout is brought in by a player's arm, in the order it was played, and set down
where the still picture has it. Between moves an arm sometimes reaches across the table
without playing (it hides tiles for a few frames), and the camera shakes slightly all along.

What is written (`write_video`), all deterministic for a seed:

* `video.mp4` (OpenCV mp4v) or, with `frames_dir=True`, `frames/000000.jpg ...`;
* `events.jsonl`: the true events, one JSON object per line, in frame order::

      {"frame": 17, "time_s": 1.7, "kind": "played", "id": 2, "tile": [4, 6],
       "halves": [6, 4], "line": 1, "line_kind": "main", "owner": null,
       "open_end": 4, "open_ends": [4, 3], "visible_frame": 20}

  `frame` is the frame the tile is set down (under the hand), `visible_frame` the first frame
  at which at least half of its face shows (null if never: a tile set down off camera);
  `open_end` is the value the tile leaves free at the end of its line (null for the first
  tile, which leaves two), `open_ends` every open end of the table after the move;
* `frames.jsonl`: per-frame truth: the shake, whether an arm is in the picture and every tile
  on the table with its corners (image pixels, vision.geometry order: half 0's end first),
  its halves in corner order, its sorted pips and its visible fraction;
* `video.json`: the card (seed, size, fps, frames, variant, configuration, command).

Pixels are only rendered when asked (`render_frames`); the truth alone (`plan_video`) costs a
few milliseconds per frame, so tracking can be measured over many seeds cheaply.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from dominosynth import __version__, render
from dominosynth.config import CONFIGS, SynthConfig
from dominosynth.play import line_start_value

# The still-picture configuration a video starts from: a layout on a table, no loose tiles or
# boneyard (every tile that appears is a move), a tracked camera that does not blur much.
VIDEO_CONFIG: SynthConfig = dataclasses.replace(
    CONFIGS["default"],
    name="video",
    kind_weights={"table": 1.0},
    variant_weights={"line": 0.4, "spinner": 0.3, "mexican": 0.15, "chicken": 0.15},
    layout_tiles=(6.0, 12.0),
    loose_tiles=(0.0, 0.0),
    boneyard_tiles=(0.0, 0.0),
    tile_px_log_table=(45.0, 80.0),
    tilt_deg=(0.0, 25.0),
    flat_view_p=0.5,
    distractors=(0.0, 2.0),
    arm_p=0.0,
    motion_blur_p=0.0,
    blur_p=0.2,
    noise_sigma=(0.5, 4.0),
)


@dataclass(frozen=True)
class VideoSpec:
    """How a game video is made.

    Attributes:
        width, height: frame size in pixels.
        fps: frames per second (timestamps are frame / fps).
        max_pip: the set (6, 9, 12 or 15).
        lead_in: frames of the empty table before the first move.
        tail: frames after the last move.
        move_gap: (low, high) frames between one move and the next (uniform integers).
        reach: (low, high) frames the arm takes to reach the spot before setting a tile down.
        withdraw: (low, high) frames the arm takes to leave after setting it down.
        pass_p: chance, between two moves, of an arm reaching across without playing.
        pass_frames: (low, high) frames such a pass lasts.
        shake_px: standard deviation of the camera's shake, pixels (a damped random walk).
        shake_deg: the same for its rotation, degrees.
        config: the still-picture configuration the table is sampled from.
    """

    width: int = 640
    height: int = 360
    fps: float = 10.0
    max_pip: int = 12
    lead_in: int = 5
    tail: int = 20
    move_gap: tuple[int, int] = (6, 12)
    reach: tuple[int, int] = (2, 4)
    withdraw: tuple[int, int] = (2, 4)
    pass_p: float = 0.35
    pass_frames: tuple[int, int] = (3, 8)
    shake_px: float = 1.0
    shake_deg: float = 0.15
    config: SynthConfig = field(default=VIDEO_CONFIG)

    def __post_init__(self) -> None:
        if not (64 <= self.width <= 8192 and 64 <= self.height <= 8192):
            raise ValueError(f"frame size {self.width}x{self.height} is outside 64..8192")
        if self.fps <= 0:
            raise ValueError("fps must be positive")
        for name in ("move_gap", "reach", "withdraw", "pass_frames"):
            lo, hi = getattr(self, name)
            if lo < 1 or hi < lo:
                raise ValueError(f"{name} must be (low, high) with 1 <= low <= high")
        if self.lead_in < 0 or self.tail < 0:
            raise ValueError("lead_in and tail must be >= 0")
        if not 0.0 <= self.pass_p <= 1.0:
            raise ValueError("pass_p must be in 0..1")
        if self.shake_px < 0 or self.shake_deg < 0:
            raise ValueError("shake must be >= 0")


@dataclass(frozen=True)
class Arm:
    """An arm in one frame: from `start` (outside the picture) to the hand at `end` (px)."""

    start: tuple[float, float]
    end: tuple[float, float]
    width: float
    skin: tuple[float, float, float]


@dataclass
class GameVideo:
    """A planned video: the table, what is on it and where the arm is, frame by frame.

    Attributes:
        seed: the seed it was planned from.
        spec: how it was made.
        scene: the still scene (dominosynth.render.RenderedScene) of the finished table.
        placed: frame at which each layout tile (by play order) is set down.
        arms: per frame, the arm in the picture or None.
        shakes: (frames, 3) dx, dy (pixels) and rotation (degrees) of the camera per frame.
        frames: per-frame truth (see the module docstring), shake applied.
        events: the true events (see the module docstring).
    """

    seed: int
    spec: VideoSpec
    scene: Any
    placed: list[int]
    arms: list[Arm | None]
    shakes: np.ndarray
    frames: list[dict[str, Any]]
    events: list[dict[str, Any]]

    @property
    def variant(self) -> str | None:
        return self.scene.variant

    @property
    def frame_count(self) -> int:
        return len(self.arms)


# A two-tile game at 320x180 in about 9 frames: small enough to run the real models on every
# frame in a few seconds (tests, a quick check of the live path).
TINY_GAME = VideoSpec(
    width=320,
    height=180,
    lead_in=0,
    move_gap=(1, 1),
    reach=(1, 1),
    withdraw=(1, 1),
    tail=5,
    pass_p=0.0,
    config=dataclasses.replace(VIDEO_CONFIG, layout_tiles=(2.0, 2.0), distractors=(0.0, 0.0)),
)


# --- geometry helpers ------------------------------------------------------------------------


def shake_matrix(dx: float, dy: float, deg: float, width: int, height: int) -> np.ndarray:
    """(2, 3) affine map of the shaken camera: a turn by `deg` about the centre, then (dx, dy)."""
    m = cv2.getRotationMatrix2D((width / 2 - 0.5, height / 2 - 0.5), deg, 1.0)
    m[:, 2] += (dx, dy)
    return m


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return pts @ m[:, :2].T + m[:, 2]


def arm_mask(arm: Arm, width: int, height: int) -> np.ndarray:
    """Soft float32 coverage (0..1) of an arm and hand in a (height, width) frame."""
    mask = np.zeros((height, width), np.uint8)
    start, end = np.asarray(arm.start), np.asarray(arm.end)
    d = end - start
    d = d / max(float(np.linalg.norm(d)), 1e-6)
    w = arm.width
    cv2.line(mask, _ipt(start), _ipt(end - d * w * 0.3), 255, max(2, int(w)))
    cv2.ellipse(
        mask,
        _ipt(end),
        (int(w * 0.7), int(w * 0.55)),
        math.degrees(math.atan2(d[1], d[0])),
        0,
        360,
        255,
        -1,
    )
    nrm = np.array([-d[1], d[0]])
    for k in range(4):
        base = end + d * w * 0.4 + nrm * w * (k - 1.5) * 0.28
        cv2.line(mask, _ipt(base), _ipt(base + d * w * 0.55), 255, max(2, int(w * 0.18)))
    return cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 1.2)


def _ipt(p: np.ndarray) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def _visible_fraction(corners: np.ndarray, covered: np.ndarray) -> float:
    """Share of a tile face (corners in unshaken image pixels) inside the frame and not under
    `covered` (a (height, width) bool mask)."""
    h, w = covered.shape
    area = 0.5 * abs(
        float(
            np.dot(corners[:, 0], np.roll(corners[:, 1], 1))
            - np.dot(corners[:, 1], np.roll(corners[:, 0], 1))
        )
    )
    if area < 1e-6:
        return 0.0
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    poly = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(poly, np.round((corners - [x0, y0]) * 16).astype(np.int32), 1, 8, 4)
    seen = int(np.count_nonzero(poly & ~covered[y0:y1, x0:x1]))
    return min(1.0, seen / area)


# --- planning --------------------------------------------------------------------------------


def _border_start(side: int, t: float, width: int, height: int) -> np.ndarray:
    """A point just outside the frame on a side (0 bottom, 1 left, 2 top, 3 right)."""
    return np.array(
        [
            (t * width, height + 30.0),
            (-30.0, t * height),
            (t * width, -30.0),
            (width + 30.0, t * height),
        ][side]
    )


def _open_ends_after(layout, k: int) -> list[int]:
    """Every open end of the simulated layout once tiles 0..k lie on the table."""
    ends: list[int] = []
    for j, ln in enumerate(layout.lines):
        if ln.tiles[0] > k:
            continue  # a toe of a double not yet played
        members = [u for u in ln.tiles[1:] if u <= k]
        if not members:
            ends.append(line_start_value(layout, j))
            continue
        last = members[-1]
        sprouted = layout.variant == "chicken" and any(
            other.tiles[0] == last for other in layout.lines if other is not ln
        )
        if layout.tiles[last].tile.is_double and sprouted:
            continue  # the double's free side carries its toes
        ends.append(layout.tiles[last].outer)
    return ends


def plan_video(seed: int, spec: VideoSpec = VideoSpec()) -> GameVideo:
    """Sample a table and the timeline of its game; compute every frame's truth (no pixels)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x71DE0]))
    scene = None
    for _ in range(20):  # a layout of at least two tiles (a video of one move says little)
        scene = render.build_scene(rng, spec.config, spec.width, spec.height, "table", spec.max_pip)
        if scene.layout is not None and len(scene.layout.tiles) >= 2:
            break
    assert scene is not None and scene.layout is not None
    cam = scene.camera
    w, h = spec.width, spec.height
    layout = scene.layout
    box_of_uid = {
        scene.tiles[b.tile].uid: b
        for b in scene.boxes
        if b.tile >= 0 and scene.tiles[b.tile].uid >= 0
    }
    corners_of = {uid: cam.project(b.face_corners()) for uid, b in box_of_uid.items()}
    tile_len_px = float(np.median([np.linalg.norm(c[3] - c[0]) for c in corners_of.values()]))
    skins = [(140, 170, 220), (100, 130, 190), (60, 90, 140), (40, 60, 95)]
    players = [(int(side), skins[int(rng.integers(len(skins)))]) for side in rng.permutation(4)]

    # The timeline: moves and passes, each an arm going in and out.
    placed: list[int] = []
    arm_plan: list[tuple[int, int, int, np.ndarray, np.ndarray, float, tuple]] = []
    frame = spec.lead_in
    for uid in range(len(layout.tiles)):
        side, skin = players[uid % len(players)]
        target = corners_of[uid].mean(axis=0)
        start = _border_start(side, float(rng.uniform(0.3, 0.7)), w, h)
        width = tile_len_px * float(rng.uniform(0.9, 1.3))
        reach = int(rng.integers(spec.reach[0], spec.reach[1] + 1))
        withdraw = int(rng.integers(spec.withdraw[0], spec.withdraw[1] + 1))
        put = frame + reach
        arm_plan.append((frame, put, put + withdraw, start, target, width, skin))
        placed.append(put)
        frame = put + int(rng.integers(spec.move_gap[0], spec.move_gap[1] + 1))
        if uid + 1 < len(layout.tiles) and rng.random() < spec.pass_p:
            # Someone reaches across the table (to the boneyard, for a drink): tiles hidden.
            side, skin = players[int(rng.integers(len(players)))]
            over = corners_of[int(rng.integers(uid + 1))].mean(axis=0)
            over = over + rng.normal(0, tile_len_px * 0.5, 2)
            length = int(rng.integers(spec.pass_frames[0], spec.pass_frames[1] + 1))
            t0 = placed[-1] + withdraw + 1
            if t0 + length + 2 < frame:
                start = _border_start(side, float(rng.uniform(0.2, 0.8)), w, h)
                mid = t0 + length // 2
                arm_plan.append((t0, mid, t0 + length, start, over, tile_len_px * 1.1, skin))
    total = frame + spec.tail
    arms: list[Arm | None] = [None] * total
    for t_in, t_at, t_out, start, target, width, skin in arm_plan:
        for f in range(t_in, min(t_out + 1, total)):
            if f <= t_at:
                s = (f - t_in + 1) / max(1, t_at - t_in + 1)
            else:
                s = 1.0 - (f - t_at) / max(1, t_out - t_at + 1)
            s = float(np.clip(s, 0.05, 1.0))
            end = start + (target - start) * s
            fl = (float(v) for v in skin)
            arms[f] = Arm(
                (float(start[0]), float(start[1])), (float(end[0]), float(end[1])), width, tuple(fl)
            )  # type: ignore[arg-type]

    # The camera's shake: a damped random walk.
    shakes = np.zeros((total, 3))
    for f in range(1, total):
        shakes[f, :2] = 0.7 * shakes[f - 1, :2] + rng.normal(0, spec.shake_px * 0.7, 2)
        shakes[f, 2] = 0.7 * shakes[f - 1, 2] + rng.normal(0, spec.shake_deg * 0.7)
    shakes[:, :2] = np.clip(shakes[:, :2], -3 * spec.shake_px, 3 * spec.shake_px)
    shakes[:, 2] = np.clip(shakes[:, 2], -3 * spec.shake_deg, 3 * spec.shake_deg)

    frames: list[dict[str, Any]] = []
    visible_from: dict[int, int] = {}
    for f in range(total):
        covered = np.zeros((h, w), bool)
        if arms[f] is not None:
            covered = arm_mask(arms[f], w, h) > 0.5
        m = shake_matrix(*shakes[f], w, h)
        tiles = []
        for uid in range(len(layout.tiles)):
            if placed[uid] > f:
                continue
            c = corners_of[uid]
            visible = _visible_fraction(c, covered)
            if visible >= 0.5 and uid not in visible_from:
                visible_from[uid] = f
            pt = layout.tiles[uid]
            shaken = _apply(m, c)
            tiles.append(
                {
                    "id": uid,
                    "pips": pt.tile.as_list(),
                    "halves": [pt.inner, pt.outer],
                    "corners": np.round(shaken, 2).tolist(),
                    "visible_fraction": round(visible, 3),
                    "cut_by_border": bool(
                        (shaken[:, 0] < -0.5).any()
                        or (shaken[:, 1] < -0.5).any()
                        or (shaken[:, 0] > w - 0.5).any()
                        or (shaken[:, 1] > h - 0.5).any()
                    ),
                }
            )
        frames.append(
            {
                "frame": f,
                "time_s": round(f / spec.fps, 4),
                "shake": [round(float(v), 3) for v in shakes[f]],
                "arm": arms[f] is not None,
                "tiles": tiles,
            }
        )

    events = []
    for uid, pt in enumerate(layout.tiles):
        ln = layout.lines[pt.line] if pt.line >= 0 else None
        events.append(
            {
                "frame": placed[uid],
                "time_s": round(placed[uid] / spec.fps, 4),
                "kind": "played",
                "id": uid,
                "tile": pt.tile.as_list(),
                "halves": [pt.inner, pt.outer],
                "line": pt.line if pt.line >= 0 else None,
                "line_kind": ln.kind if ln is not None else None,
                "owner": ln.owner if ln is not None else None,
                "open_end": pt.outer if uid > 0 else None,
                "open_ends": _open_ends_after(layout, uid),
                "visible_frame": visible_from.get(uid),
            }
        )
    return GameVideo(seed, spec, scene, placed, arms, shakes, frames, events)


# --- pixels ----------------------------------------------------------------------------------


def render_frames(video: GameVideo) -> Iterator[np.ndarray]:
    """The frames of a planned video, BGR uint8, in order (deterministic)."""
    spec, scene, cfg = video.spec, video.scene, video.spec.config
    w, h = spec.width, spec.height
    light_seed = np.random.SeedSequence([video.seed, 0x11647]).generate_state(2)
    noise_rng = np.random.default_rng(np.random.SeedSequence([video.seed, 0x0015E]))
    uid_of_box = [scene.tiles[b.tile].uid if b.tile >= 0 else -1 for b in scene.boxes]
    cache: tuple[int, Any] | None = None
    for f in range(video.frame_count):
        n_on = sum(1 for p in video.placed if p <= f)
        if cache is None or cache[0] != n_on:
            boxes = [
                b
                for b, uid in zip(scene.boxes, uid_of_box, strict=True)
                if uid < 0 or video.placed[uid] <= f
            ]
            still = dataclasses.replace(scene, boxes=boxes, arm=False)
            drawn = render.render(still, np.random.default_rng(light_seed[0]), cfg)
            cache = (n_on, drawn)
        drawn = cache[1]
        img = drawn.image
        arm = video.arms[f]
        if arm is not None:
            img = img.copy()
            soft = arm_mask(arm, w, h)
            shade = np.float32(0.75) + np.float32(0.3) * cv2.GaussianBlur(soft, (0, 0), 4.0)
            shadow = cv2.GaussianBlur(np.roll(soft, (6, 8), axis=(0, 1)), (0, 0), 6.0)
            img *= (1 - 0.4 * shadow * (1 - soft))[..., None]
            skin = np.asarray(arm.skin, np.float32)
            img[:] = img * (1 - soft[..., None]) + (skin * shade[..., None]) * soft[..., None]
        # The same light and exposure in every frame: the same seed for the camera effects.
        out = render.camera_effects(img, drawn.ids, np.random.default_rng(light_seed[1]), cfg)
        noise = noise_rng.normal(0.0, 1.5, out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise + 0.5, 0, 255).astype(np.uint8)
        m = shake_matrix(*video.shakes[f], w, h)
        yield cv2.warpAffine(out, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def write_video(
    out: str | Path,
    seed: int,
    spec: VideoSpec = VideoSpec(),
    *,
    frames_dir: bool = False,
    command: str | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Plan, render and write one game video with its truth under `out`; returns the card."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    video = plan_video(seed, spec)
    writer = None
    if frames_dir:
        (out / "frames").mkdir(exist_ok=True)
    else:
        writer = cv2.VideoWriter(
            str(out / "video.mp4"),
            cv2.VideoWriter_fourcc(*"mp4v"),
            spec.fps,
            (spec.width, spec.height),
        )
        if not writer.isOpened():
            raise RuntimeError("OpenCV cannot write mp4v video here; use frames_dir=True")
    try:
        bar = tqdm(total=video.frame_count, desc="video", unit="frame", disable=not progress)
        for f, image in enumerate(render_frames(video)):
            if writer is not None:
                writer.write(image)
            else:
                cv2.imwrite(
                    str(out / "frames" / f"{f:06d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90]
                )
            bar.update()
        bar.close()
    finally:
        if writer is not None:
            writer.release()
    (out / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in video.events))
    (out / "frames.jsonl").write_text("".join(json.dumps(fr) + "\n" for fr in video.frames))
    card = {
        "generator": "dominosynth video",
        "version": __version__,
        "command": command,
        "seed": seed,
        "size": [spec.width, spec.height],
        "fps": spec.fps,
        "frames": video.frame_count,
        "set": spec.max_pip,
        "variant": video.variant,
        "tiles": len(video.events),
        "video": "frames/" if frames_dir else "video.mp4",
        "config": {"name": spec.config.name, "values": spec.config.to_dict()},
    }
    (out / "video.json").write_text(json.dumps(card, indent=1) + "\n")
    return card


def read_truth(folder: str | Path) -> tuple[list[dict], list[dict], dict]:
    """(events, frames, card) of a video folder written by `write_video`."""
    folder = Path(folder)
    events = [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines() if x]
    frames = [json.loads(x) for x in (folder / "frames.jsonl").read_text().splitlines() if x]
    card = json.loads((folder / "video.json").read_text())
    return events, frames, card
