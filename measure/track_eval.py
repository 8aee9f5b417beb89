"""Measuring the tracker on synthetic game videos: events found, their delay, false events.

The detector is not what is measured here, the tracker is: each frame's detections are
made from the video's exact truth (`dominosynth.video`) through a simulated detector with
the faults a real one has (`DetectorNoise`: missed boxes, jittered corners, false boxes that
last a frame or two, tiles under an arm not seen, a tile misread now and then and doubtful
when it is partly hidden). The tracker's events are then matched to the true ones:

* a true move is found when an "added" event names the same tile (a set holds each tile
  once); its delay is the event's frame minus the first frame at which the tile was at least
  half visible (`visible_frame`), and minus the frame it was set down (`frame`, hidden under
  the hand, so always larger);
* every other event (an "added" of a tile not played or already found, any "removed" or
  "changed": no tile ever leaves these tables) is a false event;
* for found moves that leave an open end, whether the tracker's open end value is right.

Each event also gets a row (`EventRow`): every true move found, missed or never visible, and
every tracker event with why it is false (`FALSE_REASONS`), so that two runs (two readers, two
tracker settings) can be compared event by event (`dominocam track-eval --events PATH`).

Recall and precision carry Wilson 95 % intervals (`dominocam.measure.metrics.wilson`).

    dominocam track-eval --seeds 0-9
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.measure.metrics import wilson
from dominocam.vision import geometry
from dominocam.vision.layout import KINDS
from dominocam.vision.track import PlainDetection, TableTracker, TrackerConfig, track_frame
from dominosynth.video import VideoSpec, plan_video, render_frames


@dataclass(frozen=True)
class DetectorNoise:
    """The faults of the simulated detector and reader.

    Attributes:
        min_visible: a tile less visible than this (under an arm, off the picture) is not
            detected.
        miss_p: chance of missing a visible tile in a frame.
        jitter_px: standard deviation of each corner's jitter, pixels.
        false_per_frame: mean number of new false boxes per frame (Poisson).
        false_frames: (low, high) frames a false box lasts (uniform integers).
        misread_p: chance that a read half gets a wrong value (confidently).
        doubtful_below: a tile read while less visible than this gets a doubtful, possibly
            wrong reading (the reader sees the hand's fingers).
        face_flip_p: chance a visible face-up tile is boxed as face down in a frame.
    """

    min_visible: float = 0.5
    miss_p: float = 0.05
    jitter_px: float = 1.0
    false_per_frame: float = 0.08
    false_frames: tuple[int, int] = (1, 2)
    misread_p: float = 0.01
    doubtful_below: float = 0.95
    face_flip_p: float = 0.01

    def __post_init__(self) -> None:
        for name in ("min_visible", "miss_p", "misread_p", "doubtful_below", "face_flip_p"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise ValueError(f"DetectorNoise.{name} must be in 0..1")
        if self.jitter_px < 0 or self.false_per_frame < 0:
            raise ValueError("DetectorNoise.jitter_px and false_per_frame must be >= 0")
        lo, hi = self.false_frames
        if lo < 1 or hi < lo:
            raise ValueError("DetectorNoise.false_frames must be (low, high), 1 <= low <= high")


NO_NOISE = DetectorNoise(
    min_visible=0.5,
    miss_p=0.0,
    jitter_px=0.0,
    false_per_frame=0.0,
    misread_p=0.0,
    doubtful_below=0.0,
    face_flip_p=0.0,
)


class SimulatedFrames:
    """Detections and a reader made from a video's per-frame truth, with `DetectorNoise`.

    A class because the false boxes live over several frames. `frame(f)` returns the boxes of
    frame f and a `read` function bound to that frame; `reads` counts the boxes read.
    """

    def __init__(
        self, frames: Sequence[dict], noise: DetectorNoise, seed: int, set_max: int = 12
    ) -> None:
        self.frames = frames
        self.noise = noise
        self.set_max = set_max
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, 0x7E57]))
        self._false: list[tuple[np.ndarray, int]] = []  # (corners, last frame)
        self.reads = 0

    def _tile_px(self, truth: dict) -> float:
        sizes = [
            np.linalg.norm(np.subtract(t["corners"][1], t["corners"][0])) for t in truth["tiles"]
        ]
        return float(np.median(sizes)) if sizes else 30.0

    def frame(
        self, f: int
    ) -> tuple[list[PlainDetection], Callable[[list[np.ndarray]], np.ndarray]]:
        noise, rng = self.noise, self.rng
        truth = self.frames[f]
        boxes: list[PlainDetection] = []
        for t in truth["tiles"]:
            if t["visible_fraction"] < noise.min_visible or rng.random() < noise.miss_p:
                continue
            c = np.asarray(t["corners"], np.float64) + rng.normal(0, noise.jitter_px, (4, 2))
            face = "down" if rng.random() < noise.face_flip_p else "up"
            boxes.append(
                PlainDetection(geometry.order_corners(c), face, float(rng.uniform(0.5, 0.99)))
            )
        width = self._tile_px(truth)
        h, w = 360.0, 640.0
        if truth["tiles"]:
            allc = np.array([t["corners"] for t in truth["tiles"]]).reshape(-1, 2)
            w, h = float(allc[:, 0].max()) + width, float(allc[:, 1].max()) + width
        for _ in range(int(rng.poisson(noise.false_per_frame))):
            centre = rng.uniform([0, 0], [w, h])
            box = np.array([*centre, 2 * width, width, rng.uniform(0, np.pi)])
            last = f + int(rng.integers(noise.false_frames[0], noise.false_frames[1] + 1)) - 1
            self._false.append((geometry.order_corners(geometry.xywhr_to_corners(box)), last))
        self._false = [(c, last) for c, last in self._false if last >= f]
        for c, _last in self._false:
            jittered = c + rng.normal(0, noise.jitter_px, (4, 2))
            boxes.append(
                PlainDetection(geometry.order_corners(jittered), "up", float(rng.uniform(0.3, 0.6)))
            )
        return boxes, lambda corners: self._read(truth, corners)

    def _read(self, truth: dict, corners: list[np.ndarray]) -> np.ndarray:
        """(N, 2, V) readings of boxes: the truth tile under each box, with reader faults."""
        noise, rng, v = self.noise, self.rng, self.set_max + 1
        out = np.full((len(corners), 2, v), 1e-3)
        tiles = truth["tiles"]
        centres = np.array([np.mean(t["corners"], axis=0) for t in tiles]).reshape(-1, 2)
        for i, c in enumerate(corners):
            self.reads += 1
            c = np.asarray(c, np.float64)
            if not tiles:
                out[i] = rng.dirichlet(np.ones(v), 2)
                continue
            k = int(np.argmin(np.linalg.norm(centres - c.mean(axis=0), axis=1)))
            t = tiles[k]
            tc = np.asarray(t["corners"], np.float64)
            if np.linalg.norm(centres[k] - c.mean(axis=0)) > np.linalg.norm(tc[1] - tc[0]):
                out[i] = rng.dirichlet(np.ones(v), 2)  # a false box: noise
                continue
            # Which truth half lies at this box's half 0 end.
            end0 = (c[0] + c[1]) / 2
            d0 = np.linalg.norm((tc[0] + tc[1]) / 2 - end0)
            d1 = np.linalg.norm((tc[2] + tc[3]) / 2 - end0)
            halves = t["halves"] if d0 <= d1 else t["halves"][::-1]
            doubtful = t["visible_fraction"] < noise.doubtful_below
            for half, value in enumerate(halves):
                if rng.random() < noise.misread_p or (doubtful and rng.random() < 0.5):
                    value = int(rng.integers(v))
                conf = float(rng.uniform(0.3, 0.55)) if doubtful else float(rng.uniform(0.9, 0.99))
                out[i, half] = (1 - conf) / (v - 1)
                out[i, half, value] = conf
        return out


# Why a tracker event is not a true move, in the order they are tested.
FALSE_REASONS: dict[str, str] = {
    "removed": "a tile was removed (no tile ever leaves these tables)",
    "changed": "a tile's reading changed (re-read differently, or re-assigned)",
    "unread": "added without pips (face down, or not read)",
    "not_in_game": "added with pips of a tile never played (a misread or a false box)",
    "already_found": "added again: this tile's move was already found",
    "before_set_down": "added before the tile was set down (another tile misread as it)",
}
# A doubtful tile shown for a person to check (`TableEvent.doubtful`): neither a move nor a
# false one; its move is the event that later announces its values.
TO_CHECK = "to_check"
# What became of a true move.
TRUTH_OUTCOMES = ("found", "missed", "never_visible")


@dataclass(frozen=True)
class EventRow:
    """One event of one video: a true move and what became of it, or a tracker event.

    Attributes:
        seed: the video's seed.
        source: "truth" (a move of the game) or "tracker" (an event the tracker emitted).
        outcome: for a true move one of `TRUTH_OUTCOMES`; for a tracker event "move" when it
            is the move found, else its key in `FALSE_REASONS`.
        frame: the frame the tile was set down (truth) or the event's frame (tracker).
        tile: the true tile, or the pips the tracker gave (None when unread).
        open_end: the true open end after the move, or the tracker's.
        visible_frame: (truth) the first frame the tile was at least half visible.
        found_frame: (truth) the frame of the tracker event that found it.
        found_open_end: (truth) the open end that tracker event gave.
        text: (tracker) the event's sentence.
    """

    seed: int
    source: str
    outcome: str
    frame: int
    tile: tuple[int, int] | None
    open_end: int | None = None
    visible_frame: int | None = None
    found_frame: int | None = None
    found_open_end: int | None = None
    text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row["tile"] = list(self.tile) if self.tile is not None else None
        return row


@dataclass(frozen=True)
class VideoResult:
    """The matching of one video's events (`rows`: each event, see `EventRow`)."""

    seed: int
    variant: str | None
    frames: int
    true_events: int
    observable: int
    found: int
    tracker_events: int
    false_events: int
    delays_visible: tuple[int, ...]
    delays_placed: tuple[int, ...]
    open_end_checked: int
    open_end_right: int
    reads: int
    tiles: int
    rows: tuple[EventRow, ...] = ()


def false_reason(event: dict, by_tile: dict[tuple, dict], found: dict[tuple, dict]) -> str | None:
    """Why a tracker event (as a dict) is not a true move (a key of `FALSE_REASONS`), or None
    when it is the move of a played tile not found before."""
    if event["kind"] != "added":
        return event["kind"]
    if event.get("pips") is None:
        return "unread"
    key = tuple(event["pips"])
    if key not in by_tile:
        return "not_in_game"
    if key in found:
        return "already_found"
    if event["frame"] < by_tile[key]["frame"]:
        return "before_set_down"
    return None


def match_events(truth_events: Sequence[dict], events: Sequence[Any]) -> dict[str, Any]:
    """Match tracker events (TableEvent or their dicts) to the true ones (see module doc).

    Returns the counts, the delays, and `rows`: one `EventRow` (seed 0; `evaluate_seed` sets
    it) per true move, in game order, then one per tracker event, in frame order.
    """
    as_dicts = [e.to_dict() if hasattr(e, "to_dict") else dict(e) for e in events]
    by_tile = {tuple(e["tile"]): e for e in truth_events}
    found: dict[tuple[int, int], dict] = {}
    tracker_rows = []
    to_check: set[int] = set()  # tracks shown as tiles to check, their values not announced
    for e in as_dicts:
        if e["kind"] == "added" and e.get("doubtful"):
            # A tile shown for a person to check is no claimed move; the move is claimed
            # when its values are announced (the "changed" event once it reads surely).
            to_check.add(e["track"])
            tracker_rows.append(
                EventRow(0, "tracker", TO_CHECK, e["frame"], None, None, text=e.get("text"))
            )
            continue
        if e["kind"] == "changed" and e.get("track") in to_check and e.get("pips") is not None:
            to_check.discard(e["track"])
            e = {**e, "kind": "added"}
        reason = false_reason(e, by_tile, found)
        pips = tuple(e["pips"]) if e.get("pips") is not None else None
        if reason is None:
            found[pips] = e
        tracker_rows.append(
            EventRow(
                0,
                "tracker",
                reason or "move",
                e["frame"],
                pips,
                e.get("open_end"),
                text=e.get("text"),
            )
        )
    false = sum(row.outcome not in ("move", TO_CHECK) for row in tracker_rows)
    truth_rows = [_truth_row(t, found.get(tuple(t["tile"]))) for t in truth_events]
    delays_visible, delays_placed = [], []
    checked = right = 0
    for key, e in found.items():
        t = by_tile[key]
        delays_placed.append(e["frame"] - t["frame"])
        if t.get("visible_frame") is not None:
            delays_visible.append(e["frame"] - t["visible_frame"])
        if t.get("open_end") is not None:
            checked += 1
            right += int(e.get("open_end") == t["open_end"])
    return {
        "found": len(found),
        "false": false,
        "delays_visible": delays_visible,
        "delays_placed": delays_placed,
        "open_end_checked": checked,
        "open_end_right": right,
        "rows": truth_rows + tracker_rows,
    }


def _truth_row(truth: dict, found: dict | None) -> EventRow:
    """The row of one true move, given the tracker event that found it (or None)."""
    if found is not None:
        outcome = "found"
    else:
        outcome = "missed" if truth.get("visible_frame") is not None else "never_visible"
    return EventRow(
        0,
        "truth",
        outcome,
        truth["frame"],
        tuple(truth["tile"]),
        truth.get("open_end"),
        visible_frame=truth.get("visible_frame"),
        found_frame=found["frame"] if found else None,
        found_open_end=found.get("open_end") if found else None,
    )


def _game_config(config: TrackerConfig, variant: str | None) -> TrackerConfig:
    """The tracker told the game's layout kind (the dashboard knows it from the game setup)."""
    if variant in KINDS and config.layout.kind != variant:
        return dataclasses.replace(config, layout=dataclasses.replace(config.layout, kind=variant))
    return config


def evaluate_seed(
    seed: int,
    config: TrackerConfig | None = None,
    noise: DetectorNoise = DetectorNoise(),
    spec: Any = None,
    models: Any = None,
) -> VideoResult:
    """Plan one synthetic video, track it and match its events to the truth.

    Without `models` no pixels are drawn: detections come from the truth through the simulated
    detector (`noise`). With `models` (`dominocam.vision.pipeline.Models`) every frame is rendered
    and goes through the real detector and reader (`dominocam.vision.track.track_frame`), so the
    figures are those of the whole live path; `reads` then counts the tiles read.
    """
    spec = spec or VideoSpec()
    video = plan_video(seed, spec)
    config = _game_config(config or TrackerConfig(), video.variant)
    calibration = getattr(models, "calibration", None) if models is not None else None
    tracker = TableTracker(spec.width, spec.height, config, calibration=calibration)
    events = []
    if models is None:
        sim = SimulatedFrames(video.frames, noise, seed, spec.max_pip)
        for f in range(video.frame_count):
            boxes, read = sim.frame(f)
            events.extend(tracker.update(boxes, read, f / spec.fps).events)
        reads = sim.reads
    else:
        counting = _CountingReader(models.reader)
        # `track_frame` itself, not `dominocam.vision.reading.PhotoReader.track`: the reader is
        # wrapped to count its reads, and the layout is the video's variant's (`_game_config`).
        for f, frame in enumerate(render_frames(video)):
            result = track_frame(tracker, frame, models.detector, counting, f / spec.fps)
            events.extend(result.events)
        reads = counting.tiles
    m = match_events(video.events, events)
    observable = sum(1 for e in video.events if e["visible_frame"] is not None)
    return VideoResult(
        seed,
        video.variant,
        video.frame_count,
        len(video.events),
        observable,
        m["found"],
        sum(not (e.kind == "added" and e.doubtful) for e in events),  # claimed changes
        m["false"],
        tuple(m["delays_visible"]),
        tuple(m["delays_placed"]),
        m["open_end_checked"],
        m["open_end_right"],
        reads,
        len(video.events),
        tuple(dataclasses.replace(row, seed=seed) for row in m["rows"]),
    )


class _CountingReader:
    """The real reader, counting the tiles it is asked to read."""

    def __init__(self, reader: Any) -> None:
        self.reader, self.tiles = reader, 0

    def read(self, image: np.ndarray, corners: list[np.ndarray]) -> np.ndarray:
        self.tiles += len(corners)
        return self.reader.read(image, corners)


def summarise(results: Sequence[VideoResult]) -> dict[str, Any]:
    """Totals over videos, with Wilson intervals and delay quantiles (frames)."""

    def interval(k: int, n: int) -> list[float] | None:
        return [round(v, 4) for v in wilson(k, n)] if n else None

    observable = sum(r.observable for r in results)
    found = sum(r.found for r in results)
    events = sum(r.tracker_events for r in results)
    false = sum(r.false_events for r in results)
    true_pos = events - false
    dv = [d for r in results for d in r.delays_visible]
    dp = [d for r in results for d in r.delays_placed]
    checked = sum(r.open_end_checked for r in results)
    right = sum(r.open_end_right for r in results)
    frames = sum(r.frames for r in results)
    rows = [row for r in results for row in r.rows]
    false_by_reason = {
        reason: n
        for reason in FALSE_REASONS
        if (n := sum(row.source == "tracker" and row.outcome == reason for row in rows))
    }

    def q(values: list[int], p: float) -> float | None:
        return float(np.percentile(values, p)) if values else None

    return {
        "videos": len(results),
        "frames": frames,
        "true_events": sum(r.true_events for r in results),
        "observable_events": observable,
        "found": found,
        "recall": round(found / observable, 4) if observable else None,
        "recall_ci95": interval(found, observable),
        "tracker_events": events,
        "false_events": false,
        "precision": round(true_pos / events, 4) if events else None,
        "precision_ci95": interval(true_pos, events),
        "false_events_per_1000_frames": round(1000 * false / frames, 2) if frames else None,
        "false_events_by_reason": false_by_reason,
        "missed_moves": sorted(
            [r.seed, list(row.tile)]
            for r in results
            for row in r.rows
            if row.source == "truth" and row.outcome == "missed"
        ),
        "delay_frames_from_visible": {
            "median": q(dv, 50),
            "p90": q(dv, 90),
            "max": max(dv, default=None),
        },
        "delay_frames_from_placed": {
            "median": q(dp, 50),
            "p90": q(dp, 90),
            "max": max(dp, default=None),
        },
        "open_end_right": right,
        "open_end_checked": checked,
        "open_end_accuracy": round(right / checked, 4) if checked else None,
        "open_end_ci95": interval(right, checked),
        "reads_per_tile": round(
            sum(r.reads for r in results) / max(1, sum(r.tiles for r in results)), 3
        ),
    }


def format_table(summary: dict[str, Any], results: Sequence[VideoResult]) -> str:
    """A plain-text table: one row per video, then the totals."""
    rows = [
        f"{'seed':>5} {'variant':>8} {'frames':>6} {'moves':>5} {'found':>5} {'false':>5} "
        f"{'delay med':>9} {'reads/tile':>10}"
    ]
    for r in results:
        med = f"{np.median(r.delays_visible):.1f}" if r.delays_visible else "-"
        rows.append(
            f"{r.seed:>5} {r.variant or '-':>8} {r.frames:>6} {r.observable:>5} {r.found:>5} "
            f"{r.false_events:>5} {med:>9} {r.reads / max(1, r.tiles):>10.2f}"
        )
    s = summary

    def ci(v: list[float] | None) -> str:
        return f"[{v[0]:.3f}, {v[1]:.3f}]" if v else "-"

    dv, dp = s["delay_frames_from_visible"], s["delay_frames_from_placed"]
    rows += [
        "",
        f"events found (recall): {s['found']}/{s['observable_events']} = {s['recall']} "
        f"95% CI {ci(s['recall_ci95'])}",
        f"precision: {s['tracker_events'] - s['false_events']}/{s['tracker_events']} = "
        f"{s['precision']} 95% CI {ci(s['precision_ci95'])}",
        f"false events: {s['false_events']} ({s['false_events_per_1000_frames']} per 1000 frames)"
        + _by_reason(s.get("false_events_by_reason") or {}),
        "moves missed (seed: tile): "
        + (", ".join(f"{seed}: {a}-{b}" for seed, (a, b) in s["missed_moves"]) or "none"),
        f"delay from first visible frame: median {dv['median']}, p90 {dv['p90']}, max {dv['max']}",
        f"delay from set-down frame: median {dp['median']}, p90 {dp['p90']}, max {dp['max']}",
        f"open end right: {s['open_end_right']}/{s['open_end_checked']} = "
        f"{s['open_end_accuracy']} 95% CI {ci(s['open_end_ci95'])}",
        f"reader calls per tile: {s['reads_per_tile']}",
    ]
    return "\n".join(rows)


def _by_reason(counts: dict[str, int]) -> str:
    """': 12 changed, 3 not_in_game' (or '' without false events)."""
    return ": " + ", ".join(f"{n} {reason}" for reason, n in counts.items()) if counts else ""


def write_rows(results: Sequence[VideoResult], path: str | Path) -> Path:
    """Every event row of `results` as JSON lines (`EventRow.to_dict`) at `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(row.to_dict()) + "\n" for r in results for row in r.rows]
    path.write_text("".join(lines))
    return path


def read_rows(path: str | Path) -> list[EventRow]:
    """The rows of a file written by `write_rows`; UserInputError when it is not one."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise UserInputError(f"cannot read event rows {path}: {error}") from error
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            row["tile"] = tuple(row["tile"]) if row.get("tile") is not None else None
            rows.append(EventRow(**row))
        except (ValueError, TypeError, KeyError) as error:
            raise UserInputError(
                f"{path}:{number} is not an event row of `dominocam track-eval --events` ({error})"
            ) from None
    return rows


def compare_rows(
    before: Sequence[EventRow], after: Sequence[EventRow]
) -> tuple[list[EventRow], list[EventRow]]:
    """(rows only in `before`, rows only in `after`): two runs' events that differ, matched on
    seed, source, frame, tile and outcome; each list in seed and frame order."""

    def key(row: EventRow) -> tuple:
        return (row.seed, row.frame, row.source, row.tile or (), row.outcome)

    before_keys, after_keys = {key(r) for r in before}, {key(r) for r in after}
    only_before = sorted((r for r in before if key(r) not in after_keys), key=key)
    only_after = sorted((r for r in after if key(r) not in before_keys), key=key)
    return only_before, only_after


def format_comparison(only_before: Sequence[EventRow], only_after: Sequence[EventRow]) -> str:
    """The rows of `compare_rows`, one line each, '-' for before and '+' for after."""

    def line(sign: str, row: EventRow) -> str:
        tile = f"{row.tile[0]}-{row.tile[1]}" if row.tile else "unread"
        what = row.text if row.source == "tracker" else f"true move {tile}"
        return f"{sign} seed {row.seed:>3} frame {row.frame:>4} {row.outcome:<16} {what}"

    merged = sorted(
        [("-", r) for r in only_before] + [("+", r) for r in only_after],
        key=lambda pair: (pair[1].seed, pair[1].frame, pair[0]),
    )
    if not merged:
        return "the two runs have the same events"
    head = f"{len(only_before)} rows only before (-), {len(only_after)} only after (+)"
    return "\n".join([head] + [line(sign, row) for sign, row in merged])


def parse_seeds(text: str) -> list[int]:
    """'0-9' or '1,5,7' or '3' -> seeds."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            if "-" in part.strip()[1:]:
                lo, hi = part.split("-", 1)
                seeds.extend(range(int(lo), int(hi) + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise UserInputError(f"--seeds must look like 0-9 or 1,4,7, got {text!r}") from None
    if not seeds:
        raise UserInputError("--seeds is empty")
    return seeds


def run(
    seeds: Sequence[int],
    config: TrackerConfig | None = None,
    noise: DetectorNoise = DetectorNoise(),
    models: Any = None,
    progress: Callable[[Sequence[int]], Any] = lambda seeds: seeds,
) -> tuple[dict[str, Any], list[VideoResult]]:
    """Evaluate every seed (with `models`: on rendered frames through the real models);
    (summary with the settings, per-video results)."""
    config = config or TrackerConfig()
    results = [evaluate_seed(s, config, noise, models=models) for s in progress(seeds)]
    summary = summarise(results)
    summary["tracker_config"] = asdict(config)
    summary["noise"] = asdict(noise)
    summary["seeds"] = list(seeds)
    return summary, results
