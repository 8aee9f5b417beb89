"""`dominocam eval`: the runtime (`vision`) measured on synthetic validation and real photos.

Runs exactly what `dominocam read` runs (`vision.pipeline.read_image`: ONNX detector, reader,
joint decoding) and scores it. Needs no torch and no matplotlib: tables, JSON, and PNG plots
drawn with OpenCV, so it runs in the runtime environment.

Sets and how each figure is defined (every figure is k of n with a Wilson 95% interval):

* `synthetic` (`--synthetic DIR`, the val split of `dominocam synth`): labelled boxes, so
  detection is scored box by box (one-to-one, rotated IoU >= 0.5 or each centre inside the
  other). Per-half and exact-tile accuracy over face-up tiles that were found; a face-up tile
  found as face down counts as wrongly read. Pip total and face-down count exact per photo.
* `synthetic_halves` (`--synthetic DIR`, its `reader/val/` crops): the reader alone on the half
  crops the generator wrote, as they are; its own accuracy, apart from detection.
* `synthetic_tiles` (`--synthetic DIR`): single-tile crops cut from the val pictures the way
  `realval/tiles` was made: a square around one fully visible face-up tile with no other
  tile reaching into it, 1.7..5 tile lengths wide, shrunk to 100x100 px (so the tile is
  20..60 px long). Scored like `realval_tiles`. It asks what the real crops ask (is a small
  low-resolution picture read?) on pictures nobody tunes on.
* `realval_scenes` (`realval/scenes`): labels list tile identities, not boxes. Detection is
  scored by counts per photo: hits = min(found, labelled); recall = sum hits / sum labelled,
  precision = sum hits / sum found. That is an upper bound: a missed tile plus a false box in
  the same photo reads as two hits. Reading is scored by pairing the read face-up tiles with
  the labelled ones (an assignment maximising exact tiles, then correct halves): per-half and
  exact-tile accuracy over the pairs (upper bounds too), exact tiles of all labelled end to
  end, exact pip total and face-down count per photo. `open_ends`: of the photos whose labels
  hold played lines, those whose rebuilt layout (`vision.layout`, as `read` rebuilds it) has
  exactly the labelled open ends (as a multiset), whatever the detector missed on the way.
* `realval_tiles` (`realval/tiles`): one tile per crop; the pipeline runs on the whole crop.
  Found = at least one face-up detection; the most confident one is read. Precision counts
  extra boxes as false. Half and tile accuracy over crops where the tile was found.
* `realval_halves` (`realval/halves`): the reader alone on each crop, resized to its input.
  The crops come with the divider at the top or the bottom, so the crop and its 180-degree
  turn are both classified and their probabilities averaged (a pip count does not change
  when turned; the reader was trained with the divider at the bottom).

The two reader-only sets open only the reader model (`SET_MODELS`): they run before any
detector exists. The set of a photo (double-6, double-12) is the user's setting in
`dominocam read --set`; here it comes from each label (`set` of a scene, the source of a tile
crop).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dominocam.errors import UserInputError
from measure.metrics import (
    LENGTH_METRICS,
    Rate,
    assign_reads,
    confusion_matrix,
    covers,
    halves_correct,
    length_group,
    length_groups,
    match_boxes,
    paired_halves,
    tile_key,
)
from vision.detector import CLOSEUP_BORDER, MAX_UPSCALE
from vision.geometry import box_length, frame_in_grey
from vision.overlaps import OVERLAP_THRESHOLD
from vision.pipeline import Models
from vision.reading import PhotoReader

if TYPE_CHECKING:
    from vision.confidence import Calibration
    from vision.detector import Detector
    from vision.reader import Reader

SETS = (
    "synthetic",
    "synthetic_halves",
    "synthetic_tiles",
    "realval_scenes",
    "realval_tiles",
    "realval_halves",
)
# The folder flag each set reads, and the models it runs: the reader-only sets never open the
# detector file, so they can be measured before any detector exists.
SET_FOLDER: dict[str, str] = {
    "synthetic": "synthetic",
    "synthetic_halves": "synthetic",
    "synthetic_tiles": "synthetic",
    "realval_scenes": "realval",
    "realval_tiles": "realval",
    "realval_halves": "realval",
}
SET_MODELS: dict[str, tuple[str, ...]] = {
    "synthetic": ("detector", "reader"),
    "synthetic_halves": ("reader",),
    "synthetic_tiles": ("detector", "reader"),
    "realval_scenes": ("detector", "reader"),
    "realval_tiles": ("detector", "reader"),
    "realval_halves": ("reader",),
}
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


@dataclass
class Prediction:
    """One tile as the runtime read it: face, sorted pips (None if unread), corners."""

    face: str
    pips: tuple[int, int] | None
    corners: np.ndarray
    confidence: float


@dataclass
class Failure:
    """One photo or crop that was not read right, for the gallery."""

    set: str
    path: str
    severity: float
    lines: list[str]
    predictions: list[Prediction] = field(default_factory=list)
    missed: list[np.ndarray] = field(default_factory=list)  # labelled boxes not found

    def to_dict(self) -> dict:
        return {"set": self.set, "path": self.path, "severity": self.severity, "lines": self.lines}


@dataclass
class SetResult:
    """Counts of one evaluated set; `metrics()` turns them into Rates."""

    name: str
    note: str = ""
    images: int = 0
    counts: dict[str, list[int]] = field(default_factory=dict)  # metric -> [k, n]
    halves: list[tuple[int, int]] = field(default_factory=list)  # (label, read) half pairs
    misreads: list[tuple[str, np.ndarray, str]] = field(default_factory=list)  # path, box, text
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    # tile length group (`metrics.length_group`) -> metric -> [k, n]; boxed sets only
    by_length: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    # (probability, read right) of every box the runtime judged (tiles and rejected boxes)
    # whose truth is known: the reliability diagram and the expected calibration error.
    calibration_points: list[tuple[float, bool]] = field(default_factory=list)
    # Parts of the set scored apart too (the real scenes: the first 42, the 66 added later).
    parts: dict[str, SetResult] = field(default_factory=dict)

    def add(self, metric: str, k: int, n: int) -> None:
        entry = self.counts.setdefault(metric, [0, 0])
        entry[0] += int(k)
        entry[1] += int(n)

    def add_by_length(self, length: float, metric: str, k: int, n: int) -> None:
        """Count k of n for `metric` in the group of a tile `length` px long."""
        entry = self.by_length.setdefault(length_group(length), {}).setdefault(metric, [0, 0])
        entry[0] += int(k)
        entry[1] += int(n)

    def metrics(self) -> dict[str, Rate]:
        return {m: Rate(k, n) for m, (k, n) in self.counts.items()}

    def length_metrics(self) -> dict[str, dict[str, Rate]]:
        """The by-length figures, shortest tiles first; groups with no tile are left out."""
        return {
            group: {m: Rate(k, n) for m, (k, n) in self.by_length[group].items()}
            for group in length_groups()
            if group in self.by_length
        }

    def to_dict(self) -> dict:
        return {
            "images": self.images,
            "note": self.note,
            "seconds": round(self.seconds, 2),
            "metrics": {m: r.to_dict() for m, r in self.metrics().items()},
            **(
                {
                    "by_tile_length": {
                        group: {m: r.to_dict() for m, r in rates.items()}
                        for group, rates in self.length_metrics().items()
                    }
                }
                if self.by_length
                else {}
            ),
            "confusion": confusion_matrix(self.halves).tolist(),
            "failures": [f.to_dict() for f in sorted(self.failures, key=lambda f: -f.severity)],
            **({"calibration": self.calibration()} if self.calibration_points else {}),
        }

    def calibration(self) -> dict:
        """Expected calibration error and the reliability bins of `calibration_points`."""
        from measure.calibrate import reliability_bins

        p = np.array([q for q, _ in self.calibration_points])
        y = np.array([float(r) for _, r in self.calibration_points])
        bins = reliability_bins(p, y)
        return {
            "boxes": len(p),
            "right": int(y.sum()),
            "ece": round(sum(b["n"] * b["gap"] for b in bins) / max(len(p), 1), 4),
            "bins": bins,
        }


# ----------------------------------------------------------------------------- scoring


def score_boxed_image(
    result: SetResult,
    path: str,
    truth: list[dict],
    predictions: list[Prediction],
    ignore: list[np.ndarray] = (),
    photo: tuple[bool, bool] | None = None,
    needs_review: bool | None = None,
) -> None:
    """Score one image whose tiles have boxes (synthetic truth) and record its failure.

    Args:
        truth: labelled tiles: {"face": "up"|"down", "pips": [a, b] | None, "corners": 4x2}.
        predictions: what the runtime read.
        ignore: labelled boxes not scored (too little visible): matching them is no error.
        photo: whether the photo's pip total and face-down count are scored (default: when
            no tile is ignored or only partly visible).
        needs_review: the Scene's `needs_review` (None: a reading without assessment); the
            selective figures count the photos without it.
    """
    labels = [np.asarray(t["corners"], dtype=float) for t in truth]
    matching = match_boxes(labels, [p.corners for p in predictions], ignore=ignore)
    result.images += 1
    result.add("detection_recall", len(matching.pairs), len(labels))
    result.add(
        "detection_precision", len(matching.pairs), len(matching.pairs) + len(matching.extra)
    )
    problems: list[str] = []
    _count_by_length(result, labels, predictions, matching)
    face_right = halves_ok = tiles_ok = up_found = 0
    for i, j, _ in matching.pairs:
        label, read = truth[i], predictions[j]
        face_right += label["face"] == read.face
        if label["face"] != read.face:
            problems.append(f"{_tile_text(label['pips'])} {label['face']} read as {read.face}")
        if label["face"] != "up" or not label.get("readable", True):
            continue
        up_found += 1
        got = halves_correct(label["pips"], read.pips)
        result.add_by_length(box_length(labels[i]), "half_accuracy", got, 2)
        halves_ok += got
        tiles_ok += got == 2
        if read.pips is not None:
            result.halves.extend(paired_halves(label["pips"], read.pips))
        if got < 2 and read.face == "up":
            text = f"{_tile_text(label['pips'])} read as {_tile_text(read.pips)}"
            problems.append(text)
            result.misreads.append((path, read.corners, text))
    labelled_up = sum(t["face"] == "up" and t.get("readable", True) for t in truth)
    result.add("face_accuracy", face_right, len(matching.pairs))
    result.add("half_accuracy", halves_ok, 2 * up_found)
    result.add("tile_accuracy", tiles_ok, up_found)
    result.add("tile_accuracy_end_to_end", tiles_ok, labelled_up)
    # Whole-photo figures only where every tile that counts is fully scored.
    true_total = sum(sum(t["pips"]) for t in truth if t["face"] == "up")
    read_total = sum(sum(p.pips) for p in predictions if p.pips is not None)
    true_down = sum(t["face"] == "down" for t in truth)
    read_down = sum(p.face == "down" for p in predictions)
    if photo is None:
        unreadable = any(t["face"] == "up" and not t.get("readable", True) for t in truth)
        photo = (not len(ignore) and not unreadable,) * 2
    if photo[0]:
        result.add("pip_total", true_total == read_total, 1)
    if photo[1]:
        result.add("face_down_count", true_down == read_down, 1)
    if photo[0] and photo[1]:
        # The exact tile set: every tile found, none invented, every face and value right.
        exact = (
            not matching.missed
            and not matching.extra
            and face_right == len(matching.pairs)
            and tiles_ok == up_found == labelled_up
        )
        add_photo_figures(result, exact, needs_review, not truth and not ignore, predictions)
    missed = [labels[i] for i in matching.missed]
    for i in matching.missed:
        problems.append(f"missed {_tile_text(truth[i]['pips'])} ({truth[i]['face']})")
    if matching.extra:
        problems.append(f"{len(matching.extra)} extra boxes")
    if problems or true_total != read_total:
        problems.insert(0, f"pip total {read_total} (true {true_total})")
        severity = len(problems) - 1 + (true_total != read_total)
        result.failures.append(Failure(result.name, path, severity, problems, predictions, missed))


def _count_by_length(result: SetResult, labels, predictions, matching) -> None:
    """Detection recall by the labelled tile's length and precision by the found box's."""
    found = {i for i, _, _ in matching.pairs}
    for i, corners in enumerate(labels):
        result.add_by_length(box_length(corners), "detection_recall", i in found, 1)
    for _, j, _ in matching.pairs:
        result.add_by_length(box_length(predictions[j].corners), "detection_precision", 1, 1)
    for j in matching.extra:
        result.add_by_length(box_length(predictions[j].corners), "detection_precision", 0, 1)


def score_scene_photo(
    result: SetResult,
    path: str,
    label: dict,
    predictions: list[Prediction],
    open_ends: Iterable[int] = (),
    needs_review: bool | None = None,
) -> None:
    """Score one real scene photo against its identity labels (no boxes; module docstring);
    `open_ends` are those of the layout rebuilt from the photo, `needs_review` the Scene's
    (None: a reading without assessment).

    The labels' `free_ends`, where present, are the truth for the open ends (a branching
    layout's `lines` start at the branch point, whose value is not free); elsewhere the
    `lines`' open ends are. The exact tile set: the face-up reads are the labelled face-up
    tiles (beyond them at most one read for each tile the label excludes as cut by the
    frame) and the face-down count is right."""
    truth_up = [tile_key(p) for p in label.get("face_up", [])]
    truth_down = int(label.get("face_down", 0))
    excluded = len(label.get("excluded", []) or [])
    read_tiles = [p for p in predictions if p.face == "up" and p.pips is not None]
    reads = [p.pips for p in read_tiles]
    found = len(predictions)
    labelled = len(truth_up) + truth_down
    hits = min(found, labelled)
    false = max(0, found - labelled - excluded)
    result.images += 1
    result.add("detection_recall", hits, labelled)
    result.add("detection_precision", hits, hits + false)
    pairs = assign_reads(truth_up, reads)
    halves_ok = sum(h for _, _, h in pairs)
    tiles_ok = sum(h == 2 for _, _, h in pairs)
    for i, j, _ in pairs:
        result.halves.extend(paired_halves(truth_up[i], reads[j]))
    result.add("half_accuracy", halves_ok, 2 * len(pairs))
    result.add("tile_accuracy", tiles_ok, len(pairs))
    result.add("tile_accuracy_end_to_end", tiles_ok, len(truth_up))
    true_total = sum(a + b for a, b in truth_up)
    read_total = sum(a + b for a, b in reads)
    if not excluded:
        result.add("pip_total", true_total == read_total, 1)
    read_down = sum(p.face == "down" for p in predictions)
    result.add("face_down_count", read_down == truth_down, 1)
    problems = []
    paired_reads = {j for _, j, _ in pairs}
    for i, j, h in pairs:
        if h < 2:
            text = f"{_tile_text(truth_up[i])} read as {_tile_text(reads[j])}"
            problems.append(text)
            result.misreads.append((path, read_tiles[j].corners, text))
    unread = len(truth_up) - len(pairs)
    if unread > 0:
        missing = sorted(set(range(len(truth_up))) - {i for i, _, _ in pairs})
        problems.append("not read: " + " ".join(_tile_text(truth_up[i]) for i in missing))
    extra = [reads[j] for j in range(len(reads)) if j not in paired_reads]
    if extra:
        problems.append("extra reads: " + " ".join(_tile_text(r) for r in extra))
    if read_down != truth_down:
        problems.append(f"face down {read_down} (true {truth_down})")
    if found != labelled:
        problems.append(f"{found} boxes for {labelled} tiles")
    covered = covers([tile_key(r) for r in reads], truth_up)
    extra_reads = len(reads) - len(truth_up)
    exact = read_down == truth_down and covered and (extra_reads == 0 or extra_reads <= excluded)
    empty = not truth_up and not truth_down  # realval README: the right answer is empty
    add_photo_figures(result, exact, needs_review, empty, predictions)
    if not exact:
        problems.append("tile set not exact")
    if "free_ends" in label:
        true_ends = sorted(int(v) for v in label.get("free_ends") or [])
    else:
        true_ends = sorted(v for line in label.get("lines") or [] for v in line["open_ends"])
    if true_ends:
        read_ends = sorted(open_ends)
        result.add("open_ends", read_ends == true_ends, 1)
        if read_ends != true_ends:
            problems.append(f"open ends {read_ends} (true {true_ends})")
    if problems or true_total != read_total:
        problems.insert(0, f"pip total {read_total} (true {true_total})")
        severity = len(problems) - 1 + (true_total != read_total)
        result.failures.append(Failure(result.name, path, severity, problems, predictions))


def add_photo_figures(
    result: SetResult,
    exact: bool,
    needs_review: bool | None,
    empty: bool,
    predictions: Sequence[Prediction],
) -> None:
    """The whole-photo figures: exact tile set; of a photo that shows no tile, whether the
    Scene is empty; and the selective ones, where the reading was assessed (the share of
    photos without `needs_review`, and the exact tile set among those)."""
    result.add("exact_tile_set", exact, 1)
    if empty:
        result.add("empty_scene", not predictions, 1)
    if needs_review is not None:
        result.add("no_review", not needs_review, 1)
        if not needs_review:
            result.add("exact_tile_set_without_review", exact, 1)


def score_tile_crop(
    result: SetResult, path: str, pips: tuple[int, int], predictions: list[Prediction]
) -> None:
    """Score one single-tile crop (module docstring)."""
    result.images += 1
    up = sorted((p for p in predictions if p.face == "up"), key=lambda p: -p.confidence)
    found = bool(up)
    result.add("detection_recall", found, 1)
    result.add("detection_precision", min(1, len(predictions)), len(predictions))
    problems = []
    if found:
        got = halves_correct(pips, up[0].pips)
        result.add("half_accuracy", got, 2)
        result.add("tile_accuracy", got == 2, 1)
        if up[0].pips is not None:
            result.halves.extend(paired_halves(pips, up[0].pips))
        if got < 2:
            text = f"{_tile_text(pips)} read as {_tile_text(up[0].pips)}"
            problems.append(text)
            result.misreads.append((path, up[0].corners, text))
        result.add("tile_accuracy_end_to_end", got == 2, 1)
    else:
        result.add("tile_accuracy_end_to_end", 0, 1)
        problems.append(f"{_tile_text(pips)} not found ({len(predictions)} boxes, none face up)")
    if len(predictions) > 1:
        problems.append(f"{len(predictions)} boxes for one tile")
    if problems:
        severity = len(problems) + (not found)
        result.failures.append(Failure(result.name, path, severity, problems, predictions))


def _tile_text(pips: Iterable[int] | None) -> str:
    return "unread" if pips is None else "{}-{}".format(*tile_key(list(pips)))


# ----------------------------------------------------------------------------- running


def _predictions(scene) -> list[Prediction]:
    return [
        Prediction(
            face=t.face,
            pips=tuple(t.pips) if t.pips is not None else None,
            corners=np.asarray(t.corners, dtype=float),
            confidence=float(t.confidence),
        )
        for t in scene.tiles
    ]


def _progress(items, desc: str, quiet: bool):
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="img", disable=quiet, leave=False)


def synthetic_truth(
    path: Path, min_visible: float = 0.5, min_readable: float = 0.97
) -> tuple[list[dict], list[np.ndarray], int, tuple[bool, bool]]:
    """Scored tiles, ignored boxes, the set's top value, and which photo totals are scored,
    from a `truth/NAME.json` of `dominocam synth`.

    A tile cut by the image border or less visible than `min_visible` (the generator's
    `min_visible_fraction`: it has no box in the training labels either) is not scored; a
    prediction on it is neither a hit nor a false box. A tile is scored for reading only when
    at least `min_readable` of it is visible (the generator's `reader_min_visible`): one half
    hidden under an arm cannot be read by anyone. The photo's pip total is scored when every
    face-up tile that shows at all is readable; its face-down count when every face-down tile
    that shows at all is scored (hidden tiles in a stack would make either a guess).
    """
    data = json.loads(path.read_text())
    tiles, ignore = [], []
    pip_total_scored = face_down_scored = True
    for tile in data.get("tiles", []):
        corners = np.asarray(tile["corners"], dtype=float)
        visible = float(tile.get("visible_fraction", 1.0))
        cut = bool(tile.get("cut_by_border"))
        up = tile.get("face", "up") == "up"
        shows = visible > 0.02
        if shows and up and (cut or visible < min_readable):
            pip_total_scored = False
        if shows and not up and (cut or visible < min_visible):
            face_down_scored = False
        if cut or visible < min_visible:
            ignore.append(corners)
            continue
        tiles.append(
            {
                "face": "up" if up else "down",
                "pips": tile_key(tile["pips"]) if up and tile.get("pips") is not None else None,
                "corners": corners,
                "readable": up and visible >= min_readable,
            }
        )
    return tiles, ignore, _set_max(data.get("set")), (pip_total_scored, face_down_scored)


def synthetic_visibility(root: Path) -> tuple[float, float]:
    """A `dominocam synth` set's `min_visible_fraction` and `reader_min_visible` (its
    card.json; the generator's defaults without one): what `synthetic_truth` scores."""
    card = json.loads((root / "card.json").read_text()) if (root / "card.json").is_file() else {}
    config = card.get("config") or {}
    config = config.get("values", config)
    return float(config.get("min_visible_fraction", 0.5)), float(
        config.get("reader_min_visible", 0.97)
    )


def eval_synthetic(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    """Score the val split of a `dominocam synth` folder."""
    from vision.image_io import load_image

    images_dir = root / "detector" / "images" / "val"
    truth_dir = root / "truth"
    if not images_dir.is_dir() or not truth_dir.is_dir():
        raise UserInputError(
            f"--synthetic {root}: expected detector/images/val/ and truth/ (a `dominocam synth` "
            "output folder)"
        )
    files = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    files = files[:limit] if limit else files
    min_visible, min_readable = synthetic_visibility(root)
    result = SetResult(
        "synthetic",
        note=f"{root} val split; reading scored on tiles >= {min_readable:.0%} visible, "
        "photo totals where every tile that counts is scored",
    )
    start = time.perf_counter()
    for path in _progress(files, "synthetic", quiet):
        truth_file = truth_dir / f"{path.stem}.json"
        if not truth_file.is_file():
            raise UserInputError(f"no truth file {truth_file} for {path}")
        truth, ignore, set_max, photo = synthetic_truth(truth_file, min_visible, min_readable)
        scene = models.photo_reader().read(load_image(path), "table", set_max)
        review = scene.needs_review if models.calibration is not None else None
        score_boxed_image(result, str(path), truth, _predictions(scene), ignore, photo, review)
        if models.calibration is not None:
            result.calibration_points += probability_points(scene, truth_file=truth_file)
    result.seconds = time.perf_counter() - start
    return result


# The side of a `synthetic_tiles` crop and how many tile lengths it spans: those of the
# single-tile crops of realval/tiles (100 px, tiles 20..60 px long).
TILE_CROP_PX = 100
TILE_CROP_SPAN = (1.7, 5.0)


def tile_crop_window(
    corners: np.ndarray, others: list[np.ndarray], image_shape: tuple[int, int], span: float
) -> tuple[int, int, int] | None:
    """The square (x0, y0, side) around the tile `corners` that spans `span` tile lengths,
    or None when it leaves the image, is smaller than a crop (a crop is only ever shrunk),
    or another tile (`others`, corner arrays) reaches into it."""
    length = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).max())
    side = round(length * span)
    cx, cy = corners.mean(axis=0)
    x0, y0 = round(cx - side / 2), round(cy - side / 2)
    height, width = image_shape
    if side < TILE_CROP_PX or x0 < 0 or y0 < 0 or x0 + side > width or y0 + side > height:
        return None
    for other in others:
        inside_x = (other[:, 0] > x0) & (other[:, 0] < x0 + side)
        inside_y = (other[:, 1] > y0) & (other[:, 1] < y0 + side)
        if (inside_x & inside_y).any():
            return None
    return x0, y0, side


def tile_crop_candidates(truth: dict) -> list[tuple[dict, np.ndarray, list[np.ndarray]]]:
    """The tiles of a synthetic `truth` a tile crop may be cut around (whole, face up, with
    known pips), each with its corners and those of every other tile shown (`others` of
    `tile_crop_window`)."""
    shown = [t for t in truth.get("tiles", []) if float(t.get("visible_fraction", 1)) > 0.02]
    candidates = []
    for tile in shown:
        whole = float(tile.get("visible_fraction", 1)) >= 0.97
        if tile.get("face") != "up" or tile.get("pips") is None or not whole:
            continue
        others = [np.asarray(t["corners"], dtype=float) for t in shown if t is not tile]
        candidates.append((tile, np.asarray(tile["corners"], dtype=float), others))
    return candidates


def random_crop_span(rng: np.random.Generator) -> float:
    """How many tile lengths a tile crop spans: log-uniform over `TILE_CROP_SPAN`."""
    return float(np.exp(rng.uniform(*np.log(TILE_CROP_SPAN))))


def synthetic_tile_crops(root: Path, limit: int | None):
    """Yield (crop file, 100x100 crop, true tile, set top value) for `synthetic_tiles`.

    The crops are also written to `root/tile_crops/` (the same every time: the span of each
    is seeded by its picture) so that failure galleries can show them.
    """
    import cv2

    from vision.image_io import load_image

    images_dir, truth_dir = root / "detector" / "images" / "val", root / "truth"
    if not images_dir.is_dir() or not truth_dir.is_dir():
        raise UserInputError(f"--synthetic {root}: expected detector/images/val/ and truth/")
    crops_dir = root / "tile_crops"
    crops_dir.mkdir(exist_ok=True)
    made = 0
    for path in sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        data = json.loads((truth_dir / f"{path.stem}.json").read_text())
        shape = (int(data["image"]["height"]), int(data["image"]["width"]))
        rng = np.random.default_rng(int(data["generator"]["index"]))
        image = None
        for tile, corners, others in tile_crop_candidates(data):
            window = tile_crop_window(corners, others, shape, random_crop_span(rng))
            if window is None:
                continue
            x0, y0, side = window
            image = load_image(path) if image is None else image
            crop = cv2.resize(
                image[y0 : y0 + side, x0 : x0 + side],
                (TILE_CROP_PX, TILE_CROP_PX),
                interpolation=cv2.INTER_AREA,
            )
            crop_path = crops_dir / f"{path.stem}_tile{tile['id']}.png"
            if not crop_path.is_file():
                cv2.imwrite(str(crop_path), crop)
            yield crop_path, crop, tile_key(tile["pips"]), _set_max(data.get("set"))
            made += 1
            if limit and made >= limit:
                return


def add_border(image: np.ndarray, fraction: float) -> np.ndarray:
    """`image` framed by a grey border `fraction` of its longer side wide on every side.

    A probe of scale: a close-up whose tile fills the frame becomes a tile on a plain table,
    as long in the detector's input as `1 / (1 + 2 * fraction)` of the input. (The runtime's
    close-up pass frames a picture with few boxes the same way, `vision.detector`.)
    """
    return frame_in_grey(image, fraction)[0] if fraction > 0 else image


def _border_note(border: float) -> str:
    return f", framed by a grey border {border:g} of the longer side" if border > 0 else ""


def eval_synthetic_tiles(
    models, root: Path, limit: int | None, quiet: bool, border: float = 0.0
) -> SetResult:
    """The pipeline on single-tile crops cut from the synthetic val pictures (module doc)."""

    note = f"{root} val tiles cut out, shrunk to 100 px{_border_note(border)}"
    result = SetResult("synthetic_tiles", note=note)
    start = time.perf_counter()
    crops = synthetic_tile_crops(root, limit)
    for path, crop, pips, set_max in _progress(crops, "synthetic tiles", quiet):
        image = add_border(crop, border)
        scene = models.photo_reader().read(image, "table", set_max)
        score_tile_crop(result, str(path), pips, _predictions(scene))
    result.seconds = time.perf_counter() - start
    return result


def _set_max(text: str | None, default: int = 12) -> int:
    digits = "".join(ch for ch in str(text or "") if ch.isdigit())
    return int(digits) if digits else default


def eval_realval_scenes(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    from vision.image_io import load_image

    labels = json.loads((root / "scenes" / "labels.json").read_text())
    labels = labels[:limit] if limit else labels
    result = SetResult("realval_scenes", note="identity labels, no boxes: count-based detection")
    start = time.perf_counter()
    for label in _progress(labels, "real scenes", quiet):
        path = root / "scenes" / label["image"]
        set_max = _set_max(label["set"])
        kind = "hand" if label.get("hand") else "table"  # a hand photo is read as one
        scene = models.photo_reader().read(load_image(path), kind, set_max)
        review = scene.needs_review if models.calibration is not None else None
        points = probability_points(scene, label=label) if models.calibration is not None else []
        part = result.parts.setdefault(
            scene_part(label),
            SetResult(f"realval_scenes_{scene_part(label)}", note=SCENE_PARTS[scene_part(label)]),
        )
        for target in (result, part):
            score_scene_photo(
                target, str(path), label, _predictions(scene), scene.layout.open_ends, review
            )
            target.calibration_points += points
    result.seconds = time.perf_counter() - start
    return result


# The parts of realval/scenes scored apart: the 42 photos the runtime was first measured and
# tuned on, and the 66 added later from three other sources (labels with `free_ends` or
# `hand`), which nothing was fitted or tuned on.
SCENE_PARTS = {
    "first42": "the first 42 photos (DomiBot, jmherzog): calibration fitted on them",
    "new66": "the 66 photos added later (Guix266, ljparrish, MikeyGBG): held out",
}


def scene_part(label: dict) -> str:
    """`first42` or `new66` for one label of realval/scenes (`SCENE_PARTS`)."""
    from measure.calibrate import HELD_OUT_SOURCES

    later = "free_ends" in label or "hand" in label
    return "new66" if later or label["image"].split("__")[0] in HELD_OUT_SOURCES else "first42"


def probability_points(
    scene, label: dict | None = None, truth_file: Path | None = None
) -> list[tuple[float, bool]]:
    """(probability, read right) of every box of an assessed Scene, its tiles and its
    rejected boxes, labelled as `dominocam calibrate` labels them (`measure.calibrate`)."""
    from measure.calibrate import label_real, label_synthetic
    from vision.scene import Scene, SceneTile

    boxes = [(t.probability, t.face, t.corners, t.pips) for t in scene.tiles]
    boxes += [(b.probability, b.face, b.corners, b.pips) for b in scene.rejected]
    boxes = [b for b in boxes if b[0] is not None]
    if not boxes:
        return []
    every = Scene(
        scene.width,
        scene.height,
        [
            SceneTile(i, face, corners, p, pips if face == "up" else None)
            for i, (p, face, corners, pips) in enumerate(boxes)
        ],
    )
    if truth_file is not None:
        photo = label_synthetic(every, truth_file, truth_file.name)
    else:
        assert label is not None
        photo = label_real(every, label)
    return [
        (b[0], bool(r.right))
        for b, r in zip(boxes, photo.boxes, strict=True)
        if r.right is not None
    ]


def eval_realval_tiles(
    models, root: Path, limit: int | None, quiet: bool, border: float = 0.0
) -> SetResult:
    from vision.image_io import load_image

    labels = json.loads((root / "tiles" / "labels.json").read_text())
    labels = labels[:limit] if limit else labels
    result = SetResult("realval_tiles", note=f"pipeline on each whole crop{_border_note(border)}")
    start = time.perf_counter()
    for label in _progress(labels, "real tiles", quiet):
        path = root / "tiles" / label["image"]
        set_max = 12 if "12" in str(label.get("note", "")) else 6
        image = add_border(load_image(path), border)
        scene = models.photo_reader().read(image, "table", set_max)
        score_tile_crop(result, str(path), tile_key(label["pips"]), _predictions(scene))
    result.seconds = time.perf_counter() - start
    return result


def classify_half_crops(reader, images: list[np.ndarray]) -> np.ndarray:
    """(N, V) probabilities of each crop and its 180-degree turn, averaged."""
    import cv2

    side = reader.side
    crops = np.stack([cv2.resize(im, (side, side), interpolation=cv2.INTER_AREA) for im in images])
    turned = np.ascontiguousarray(crops[:, ::-1, ::-1])
    probs = reader.classify(np.concatenate([crops, turned]))
    return (probs[: len(crops)] + probs[len(crops) :]) / 2


def score_halves(
    result: SetResult, paths: list[Path], truths: list[int], probs: np.ndarray
) -> None:
    """Score reader-only half crops: argmax of each row of `probs` against its label."""
    for path, truth, p in zip(paths, truths, probs, strict=True):
        read = int(np.argmax(p))
        result.images += 1
        result.add("half_accuracy", read == truth, 1)
        result.halves.append((truth, read))
        if read != truth:
            text = f"{truth} read as {read} (p={p[read]:.2f})"
            result.failures.append(Failure(result.name, str(path), 1.0 + float(p[read]), [text]))


def eval_realval_halves(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    from vision.image_io import load_image

    labels = json.loads((root / "halves" / "labels.json").read_text())
    labels = labels[:limit] if limit else labels
    result = SetResult("realval_halves", note="reader only; crop and its 180-degree turn averaged")
    start = time.perf_counter()
    paths = [root / "halves" / label["image"] for label in labels]
    images = [load_image(p) for p in _progress(paths, "real halves", quiet)]
    probs = classify_half_crops(models.reader, images) if images else np.zeros((0, 13))
    score_halves(result, paths, [int(label["pips"]) for label in labels], probs)
    result.seconds = time.perf_counter() - start
    return result


def eval_synthetic_halves(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    """The reader alone on the val half crops `dominocam synth` wrote (reader/val/<value>/);
    with a reader that has a `back` class and a set with reader/val/back/ crops, also how
    often a back is read as a back and a face as a back (`vision.reader.BACK_MIN`)."""
    import cv2

    from vision.reader import BACK_CLASS, BACK_MIN

    folder = root / "reader" / "val"
    if not folder.is_dir():
        raise UserInputError(f"--synthetic {root}: no reader/val/ folder")
    items = sorted(
        (p, int(p.parent.name)) for p in folder.glob("*/*.png") if p.parent.name.isdigit()
    )
    backs = sorted((folder / BACK_CLASS).glob("*.png")) if models.reader.has_back else []
    if limit:
        items = items[:: max(1, len(items) // limit)][:limit]
        backs = backs[:: max(1, len(backs) // limit)][:limit]
    result = SetResult("synthetic_halves", note=f"{folder}: reader only, crops as written")
    start = time.perf_counter()
    side = models.reader.side
    paths = [p for p, _ in items] + backs
    values, back = [], []
    for chunk in _progress(range(0, len(paths), 256), "synthetic halves", quiet):
        crops = [
            cv2.resize(cv2.imread(str(p)), (side, side), interpolation=cv2.INTER_AREA)
            for p in paths[chunk : chunk + 256]
        ]
        reads = models.reader.classify_halves(np.stack(crops))
        values.append(reads.values)
        back.append(reads.back)
    probs = np.concatenate(values) if values else np.zeros((0, 13))
    back_probs = np.concatenate(back) if back else np.zeros(0)
    faces = len(items)
    score_halves(result, paths[:faces], [v for _, v in items], probs[:faces])
    if backs:
        result.add("back_read_as_back", int((back_probs[faces:] >= BACK_MIN).sum()), len(backs))
        result.add("face_read_as_back", int((back_probs[:faces] >= BACK_MIN).sum()), faces)
    result.seconds = time.perf_counter() - start
    return result


@dataclass
class EvalModels:
    """The models the chosen sets run; one that no chosen set runs is None (never opened).
    `closeups` and `far_tiles`: whether `read_image` takes its second looks (at pictures
    with few boxes, and at photos whose tiles are small at the network input)."""

    detector: Detector | None = None
    reader: Reader | None = None
    closeups: bool = True
    far_tiles: bool = True
    calibration: Calibration | None = None
    calibration_path: Path | None = None

    @property
    def passes(self) -> dict[str, bool]:
        """The second looks, as `read_image` keywords."""
        return {"closeups": self.closeups, "far_tiles": self.far_tiles}

    def photo_reader(self) -> PhotoReader:
        """These models read as the product reads a photo (`vision.reading.PhotoReader`:
        `dominocam read`, the dashboard), with the second looks chosen and the calibration
        (None: without one, `--no-calibration`)."""
        assert self.detector is not None and self.reader is not None, "a set that reads photos"
        return PhotoReader(
            Models(self.detector, self.reader, self.calibration),
            closeups=self.closeups,
            far_tiles=self.far_tiles,
        )


# The labels file of each real set, inside the --realval folder.
REALVAL_LABELS = {
    "realval_scenes": "scenes/labels.json",
    "realval_tiles": "tiles/labels.json",
    "realval_halves": "halves/labels.json",
}


def sets_to_run(wanted: Iterable[str], synthetic: Path | None, realval: Path | None) -> list[str]:
    """The wanted sets whose folder was given, in `SETS` order."""
    given = {"synthetic": synthetic is not None, "realval": realval is not None}
    wanted = set(wanted)
    return [s for s in SETS if s in wanted and given[SET_FOLDER[s]]]


def load_eval_models(
    sets: Iterable[str],
    detector: str | None = None,
    reader: str | None = None,
    threads: int | None = None,
    conf: float | None = None,
    iou: float | None = None,
    overlap: float | None = OVERLAP_THRESHOLD,
    max_upscale: float | None = MAX_UPSCALE,
    closeup_border: float = CLOSEUP_BORDER,
) -> EvalModels:
    """Open only the models that `sets` run (`SET_MODELS`), with `dominocam read`'s defaults
    unless `conf` / `iou` (the detector's thresholds) are given; `overlap` is the detector's
    overlapping-box threshold (None keeps overlapping boxes), `max_upscale` how far it enlarges a
    small picture (None: to fill its input), `closeup_border` the close-up pass's frame.

    Raises:
        UserInputError: a needed model file is missing or unreadable.
    """
    from vision.detector import Detector
    from vision.onnx_model import MODEL_FILES, resolve_model_path
    from vision.reader import Reader
    from vision.verifier import Verifier

    kinds = {kind for s in sets for kind in SET_MODELS[s]}
    models = EvalModels()
    if "detector" in kinds:
        thresholds = {k: v for k, v in (("conf", conf), ("iou", iou)) if v is not None}
        detector_path = resolve_model_path("detector", detector)
        models.detector = Detector(
            detector_path,
            threads=threads,
            overlap=overlap,
            max_upscale=max_upscale,
            closeup_border=closeup_border,
            **thresholds,
        )
        # The verifier beside the detector, as `vision.pipeline.load_models` takes it.
        beside = detector_path.parent / MODEL_FILES["verifier"]
        if beside.is_file():
            models.detector.verifier = Verifier(beside, threads=threads)
    if "reader" in kinds:
        models.reader = Reader(resolve_model_path("reader", reader), threads=threads)
    return models


def run_eval(
    synthetic: Path | None,
    realval: Path | None,
    detector: str | None = None,
    reader: str | None = None,
    sets: Iterable[str] | None = None,
    limit: int | None = None,
    threads: int | None = None,
    quiet: bool = False,
    conf: float | None = None,
    iou: float | None = None,
    overlap: float | None = OVERLAP_THRESHOLD,
    max_upscale: float | None = MAX_UPSCALE,
    border: float = 0.0,
    closeup_border: float = CLOSEUP_BORDER,
    closeups: bool = True,
    far_tiles: bool = True,
    calibrated: bool = True,
    calibration: str | None = None,
) -> dict[str, SetResult]:
    """Evaluate the runtime on the chosen sets; returns the results by set name (a set's
    parts, such as the real scenes' first 42 and new 66, under their own names), and the
    `EvalModels` under "_models". `border` frames every tile crop (`add_border`);
    `calibrated` reads as the product does, with the committed calibration (or the file
    `calibration`), False without any."""
    wanted = set(sets or SETS)
    unknown = wanted - set(SETS)
    if unknown:
        raise UserInputError(f"unknown set(s) {sorted(unknown)}; valid: {list(SETS)}")
    if synthetic is None and realval is None:
        raise UserInputError("nothing to evaluate: give --synthetic DIR and/or --realval DIR")
    running = sets_to_run(wanted, synthetic, realval)
    for name in running:  # each real set reads its own labels
        labels = REALVAL_LABELS.get(name)
        if labels and not (Path(realval) / labels).is_file():  # type: ignore[arg-type]
            raise UserInputError(f"--realval {realval}: no {labels} there")
    if not running:
        flags = " and ".join(sorted({f"--{SET_FOLDER[s]} DIR" for s in wanted}))
        raise UserInputError(
            f"nothing to evaluate: set(s) {', '.join(sorted(wanted))} need {flags}"
        )
    models = load_eval_models(
        running, detector, reader, threads, conf, iou, overlap, max_upscale, closeup_border
    )
    models.closeups, models.far_tiles = closeups, far_tiles
    if calibrated and models.detector is not None:
        from vision.confidence import CALIBRATION_FILE, load_calibration

        # As `load_models`: the file given, else the one beside the detector, else none.
        beside = Path(models.detector.path).parent / CALIBRATION_FILE
        if calibration is not None or beside.is_file():
            models.calibration_path = Path(calibration or beside)
            models.calibration = load_calibration(models.calibration_path)
    evaluators = {
        "synthetic": (eval_synthetic, synthetic),
        "synthetic_halves": (eval_synthetic_halves, synthetic),
        "synthetic_tiles": (partial(eval_synthetic_tiles, border=border), synthetic),
        "realval_scenes": (eval_realval_scenes, realval),
        "realval_tiles": (partial(eval_realval_tiles, border=border), realval),
        "realval_halves": (eval_realval_halves, realval),
    }
    results: dict[str, SetResult] = {}
    for name in running:
        fn, root = evaluators[name]
        results[name] = fn(models, Path(root), limit, quiet)
        for part in sorted(results[name].parts):
            results[results[name].parts[part].name] = results[name].parts[part]
    results["_models"] = models  # type: ignore[assignment]
    return results


def describe_models(models: EvalModels) -> dict:
    """Paths, hashes and metadata of the evaluated models (those opened), for the JSON."""
    from vision.onnx_model import file_sha256

    out: dict[str, Any] = {}
    if models.calibration is not None:
        out["calibration"] = {
            "thresholds": models.calibration.to_dict()["thresholds"],
            "features": list(models.calibration.features),
        }
        if models.calibration_path is not None:
            path = models.calibration_path
            out["calibration"].update(path=str(path), sha256=file_sha256(path))
    verifier = getattr(models.detector, "verifier", None)
    if verifier is not None:
        path = Path(verifier.path)
        out["verifier"] = {"path": str(path), "sha256": file_sha256(path)}
    for kind in ("detector", "reader"):
        model = getattr(models, kind)
        if model is None:
            continue
        path = Path(model.path)
        out[kind] = {"path": str(path), "sha256": file_sha256(path), "bytes": path.stat().st_size}
        if kind == "detector":  # the thresholds change every detection figure
            out[kind].update(
                conf=model.conf,
                iou=model.iou,
                overlap=model.overlap,
                max_upscale=model.max_upscale,
                closeup_border=model.closeup_border,
                rect_input=model.rect_input,
                **models.passes,
            )
    return out


def format_table(results: dict[str, SetResult]) -> str:
    """The printed table: one block per set, one line per metric."""
    lines = []
    for name, result in results.items():
        lines.append(f"{name}: {result.images} images, {result.seconds:.1f} s ({result.note})")
        for metric, rate in result.metrics().items():
            lines.append(f"  {metric:<26} {rate}")
        if result.by_length:
            lines.append(f"  by tile length (px): {', '.join(LENGTH_METRICS)}")
            for group, rates in result.length_metrics().items():
                cells = [_short_rate(rates.get(m)) for m in LENGTH_METRICS]
                lines.append(f"    {group:<8} " + "  ".join(f"{c:<17}" for c in cells))
    return "\n".join(lines)


def _short_rate(rate: Rate | None) -> str:
    """'0.9660 (197/204)' or '-'."""
    return f"{rate.value:.4f} ({rate.k}/{rate.n})" if rate and rate.n else "-"
