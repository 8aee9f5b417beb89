"""How `dominocam eval` scores a reading: a set's counts (`SetResult`) and the scoring of one
picture against its labels, boxed (synthetic truth), by identity (a real scene's labels) or
as a single-tile crop. The figures are defined in `dominocam.measure.evaluate`'s docstring; the
functions work on plain data (`Prediction`s and labels), so studies that read a set their own
way score it the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from dominocam.measure.metrics import (
    Rate,
    assign_reads,
    confusion_matrix,
    covers,
    halves_correct,
    length_group,
    length_groups,
    match_boxes,
    paired_halves,
    reliability_bins,
    tile_key,
)
from dominocam.vision.geometry import box_length


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
        p = np.array([q for q, _ in self.calibration_points])
        y = np.array([float(r) for _, r in self.calibration_points])
        bins = reliability_bins(p, y)
        return {
            "boxes": len(p),
            "right": int(y.sum()),
            "ece": round(sum(b["n"] * b["gap"] for b in bins) / max(len(p), 1), 4),
            "bins": bins,
        }


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


def printed_read_as_tiles(
    truth: list[dict],
    printed: list[np.ndarray],
    predictions: list[Prediction],
    ignore: Sequence[np.ndarray] = (),
) -> list[tuple[int, int]]:
    """(printed domino, prediction) pairs: the printed dominoes that a read tile stands on.

    A read tile that matches a labelled tile (or one not scored, `ignore`) is that tile;
    the others are matched one to one with the printed dominoes (`match_boxes`: rotated IoU
    >= 0.5, or each centre inside the other box)."""
    labels = [np.asarray(t["corners"], dtype=float) for t in truth]
    real = match_boxes(labels, [p.corners for p in predictions], ignore=ignore)
    others = real.extra
    on_print = match_boxes(printed, [predictions[j].corners for j in others])
    return [(i, others[j]) for i, j, _ in on_print.pairs]


def score_print_image(
    result: SetResult,
    path: str,
    truth: list[dict],
    printed: list[np.ndarray],
    predictions: list[Prediction],
    doubtful: Sequence[bool],
    ignore: Sequence[np.ndarray] = (),
    photo: tuple[bool, bool] | None = None,
    needs_review: bool | None = None,
) -> None:
    """Score one picture of printed dominoes beside real tiles (`synthetic_print`).

    The real tiles are scored as `score_boxed_image` scores them (recall, precision, ...);
    on a picture that shows a printed domino, `no_printed_tile` counts whether none is among
    the read tiles, `no_printed_tile_undoubted` whether none is read as a tile without a
    doubt (`doubtful[j]`: the read tile j is doubtful, so a person is asked);
    `printed_read_as_tile` counts the printed dominoes read as tiles of those shown, and
    `printed_tile_doubtful` the doubtful ones among those read.
    """
    score_boxed_image(result, path, truth, predictions, list(ignore), photo, needs_review)
    if not len(printed):
        return
    pairs = printed_read_as_tiles(truth, printed, predictions, ignore)
    sure = [j for _, j in pairs if not doubtful[j]]
    result.add("no_printed_tile", not pairs, 1)
    result.add("no_printed_tile_undoubted", not sure, 1)
    result.add("printed_read_as_tile", len(pairs), len(printed))
    result.add("printed_tile_doubtful", len(pairs) - len(sure), len(pairs))
    if pairs:
        text = f"{len(pairs)} printed dominoes read as tiles ({len(pairs) - len(sure)} doubtful)"
        failure = next((f for f in result.failures if f.path == path), None)
        if failure is None:
            failure = Failure(result.name, path, 0.0, [], predictions, [])
            result.failures.append(failure)
        failure.lines.append(text)
        failure.severity += len(pairs)


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


def scene_predictions(scene) -> list[Prediction]:
    """The tiles of a Scene as `Prediction`s."""
    return [
        Prediction(
            face=t.face,
            pips=tuple(t.pips) if t.pips is not None else None,
            corners=np.asarray(t.corners, dtype=float),
            confidence=float(t.confidence),
        )
        for t in scene.tiles
    ]
