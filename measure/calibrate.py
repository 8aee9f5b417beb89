"""`dominocam calibrate`: fit the tile probability (`dominocam.vision.confidence`) and choose its
thresholds, on synthetic pictures only.

    dominocam calibrate --synthetic runs/data/holdout --synthetic runs/data/holdout_print ...

Never on the real photos of `../shared/realval`: their README forbids training on them, and
a calibration is fitted (two logistic models and a threshold chosen on their output), so a
fit on them would turn the measure of transfer into a measure of the fit. `dominocam eval
--realval` measures the calibration there.

Steps:

1. *Boxes* (`collect_boxes`): the pipeline as `dominocam read` runs it, without any
   calibration, on each synthetic folder's split (`--split`, default `train`: the val split
   stays for `dominocam eval`). Each box becomes a `BoxRecord`: its features
   (`dominocam.vision.confidence.box_features`) and two labels, `tile` (a real tile) and
   `right` (a real tile read right), from the picture's truth: boxes are matched one to one
   to the labelled ones (rotated IoU >= 0.5); a box on a tile that is cut by the border or
   partly hidden is not used. (`label_real` labels real scenes the same way for `dominocam
   eval`, which only measures.)
2. *Fit* (`fit_logistic`): two logistic regressions (Newton's method, an L2 penalty,
   `--l2`), `p_tile` on `tile` and `p_right` on `right`, each folder's boxes weighing as much
   as another's (`source_weights`), on the scores' logits or their sides (`--features`,
   `fit_features`).
3. *Thresholds* (`choose_thresholds`), once, on the same boxes (docs/reading-confidence.md):
   * `reject_below` 0.5: a box less likely a tile than not is not one.
   * `doubtful_below`: the lowest of `DOUBT_GRID` at which, of the fit photos that would
     not need a review, at least `SELECTIVE_TARGET` keep no misread or false tile: the
     issue's selective gate, met on the fit data with the least review asked, for the
     errors a doubt can flag. A tile the detector never boxed, or one the calibration left
     out, holds no kept box to doubt: no value of `doubtful_below` changes it (the
     rejection's thresholds answer for the second), so such a photo does not push the
     value up; the exact tile set among the photos without review is printed beside.
   * `review_rejected` 0.2: a rejected box that is still one in five a tile is shown for a
     look (the price of a missed tile in a ruling is higher than a tap).

The boxes are cached (`--cache`, JSON lines) so that refitting needs no network pass.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.measure.metrics import (
    assign_reads,
    boxes_match,
    covers,
    expected_calibration_error,
    match_boxes,
    tile_key,
)
from dominocam.measure.truth import set_max, synthetic_truth
from dominocam.vision.image_io import IMAGE_SUFFIXES, load_image

DOUBT_GRID: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99)
SELECTIVE_TARGET = 0.99
REJECT_BELOW = 0.5
REVIEW_REJECTED = 0.2
REAL = "real"  # the source of a real photo's boxes (`label_real`)
L2 = 1e-2


@dataclass
class BoxRecord:
    """One box of one picture, as the fit sees it.

    Attributes:
        source: the synthetic folder's name (`dominocam synth --out`), or "real".
        image: the picture's file name.
        face: "up" or "down" as read.
        confidence: the detector's score.
        pip_confidence: the halves' probabilities of the decoded reading (face up).
        pips: the decoded reading (face up), a <= b.
        twice: another box of the picture has the same reading.
        cut: the box touches the image border.
        tile: the box is a real tile (None: not used).
        right: the box is a real tile read right (None: not used).
    """

    source: str
    image: str
    face: str
    confidence: float
    pip_confidence: tuple[float, float] | None
    pips: tuple[int, int] | None
    twice: bool
    cut: bool
    tile: bool | None
    right: bool | None
    verifier: float | None = None


@dataclass
class PhotoRecord:
    """One picture: its boxes, whether its layout had doubts, and the truth needed to say
    whether a set of kept boxes is its exact tile set."""

    source: str
    image: str
    boxes: list[BoxRecord]
    layout_doubts: bool
    missed: int  # labelled tiles no box stands for (synthetic), or -1 when unknown (real)
    truth_up: list[tuple[int, int]]
    truth_down: int
    excluded: int


def box_row(record: BoxRecord) -> dict[str, float]:
    """The feature row of one box (`box_features`: every feature a fit may name)."""
    from dominocam.vision.confidence import box_features

    return box_features(
        record.face,
        record.confidence,
        record.pip_confidence,
        twice=record.twice,
        verifier=record.verifier,
    )


def _records_of_scene(scene: Any, source: str, image: str) -> list[BoxRecord]:
    from dominocam.vision.geometry import box_cut_by_border

    counts: dict[tuple[int, int], int] = {}
    for t in scene.tiles:
        if t.face == "up" and t.pips is not None:
            counts[t.pips] = counts.get(t.pips, 0) + 1
    return [
        BoxRecord(
            source,
            image,
            t.face,
            float(t.confidence),
            tuple(float(p) for p in t.pip_confidence) if t.pip_confidence is not None else None,
            tuple(t.pips) if t.pips is not None else None,
            t.face == "up" and t.pips is not None and counts[t.pips] > 1,
            bool(box_cut_by_border(t.corners, scene.width, scene.height)),
            None,
            None,
            t.verifier_score,
        )
        for t in scene.tiles
    ]


def label_synthetic(
    scene: Any, truth_file: Path, image: str, source: str = "synthetic"
) -> PhotoRecord:
    """Label the boxes of one synthetic picture against its `truth/NAME.json`; `source`
    names the folder it comes from (the fit weighs each folder alike)."""
    truth, ignore, _top, _photo = synthetic_truth(truth_file)
    records = _records_of_scene(scene, source, image)
    corners = [t.corners for t in scene.tiles]
    matching = match_boxes([t["corners"] for t in truth], corners, ignore=ignore)
    for i, j, _ in matching.pairs:
        label, record = truth[i], records[j]
        if label["face"] == "up" and not label["readable"]:
            continue  # partly hidden: nobody could read it
        record.tile = True
        record.right = record.face == label["face"] and (
            label["face"] == "down" or record.pips == label["pips"]
        )
    for j in matching.extra:
        records[j].tile = records[j].right = False
    # A box on an ignored tile that the matching still counted as extra is left unused.
    for record, box in zip(records, corners, strict=True):
        if record.tile is False and any(boxes_match(b, box)[0] for b in ignore):
            record.tile = record.right = None
    return PhotoRecord(
        source,
        image,
        records,
        bool(scene.layout.doubts),
        len(matching.missed),
        [],
        0,
        0,
    )


def label_real(scene: Any, label: dict[str, Any]) -> PhotoRecord:
    """Label the boxes of one real scene photo against its identity labels, for `dominocam
    eval` (never fitted on).

    The labels name tiles, not boxes. The face-up reads are paired with the labelled tiles
    (`assign_reads`): a read paired with its exact tile is `right`, one paired with another
    tile is a misread `tile`; a read left over is not a tile, unless the label excludes a
    tile cut by the frame and the box touches the border (not used). The face-down boxes,
    most confident first, are tiles up to the labelled count. This is the most favourable
    reading of the evidence; it can call a false box that read some missed tile's value a
    misread tile.
    """
    records = _records_of_scene(scene, REAL, label["image"])
    truth_up = [tile_key(p) for p in label.get("face_up", [])]
    truth_down = int(label.get("face_down", 0))
    excluded = len(label.get("excluded") or [])
    up = [k for k, r in enumerate(records) if r.face == "up" and r.pips is not None]
    pairs = assign_reads(truth_up, [records[k].pips for k in up])
    paired = set()
    for _i, j, halves in pairs:
        record = records[up[j]]
        record.tile, record.right = True, halves == 2
        paired.add(up[j])
    spare = excluded
    leftovers = [k for k, r in enumerate(records) if r.face == "up" and k not in paired]
    downs = sorted(
        (k for k, r in enumerate(records) if r.face == "down"),
        key=lambda k: -records[k].confidence,
    )
    for rank, k in enumerate(downs):
        if rank < truth_down:
            records[k].tile = records[k].right = True
        else:
            leftovers.append(k)
    for k in sorted(leftovers, key=lambda k: -records[k].confidence):
        if records[k].cut and spare > 0:
            spare -= 1  # probably the excluded tile cut by the frame: not used
            continue
        records[k].tile = records[k].right = False
    return PhotoRecord(
        REAL,
        label["image"],
        records,
        bool(scene.layout.doubts),
        -1,
        truth_up,
        truth_down,
        excluded,
    )


def collect_boxes(
    synthetic: Sequence[Path],
    split: str = "train",
    limit: int | None = None,
    quiet: bool = False,
) -> list[PhotoRecord]:
    """Run the pipeline (no calibration) on the fit pictures and label every box."""
    from tqdm import tqdm

    from dominocam.vision.pipeline import load_models, read_image

    models = load_models()
    jobs: list[tuple[str, Path, Path]] = []
    for folder in synthetic:
        images = folder / "detector" / "images" / split
        if not images.is_dir() or not (folder / "truth").is_dir():
            raise UserInputError(
                f"--synthetic {folder}: expected detector/images/{split}/ and truth/ "
                "(a `dominocam synth` output folder)"
            )
        files = sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        jobs += [(folder.name, p, folder / "truth" / f"{p.stem}.json") for p in files[:limit]]
    photos: list[PhotoRecord] = []
    for source, path, truth in tqdm(jobs, desc="calibrate: reading", unit="img", disable=quiet):
        top = set_max(json.loads(truth.read_text()).get("set"))
        # Not the product's reading (`dominocam.vision.reading.PhotoReader`): the calibration is
        # fitted here, so the photos are read without one, every box kept with its raw scores.
        scene = read_image(load_image(path), models.detector, models.reader, top)
        photos.append(label_synthetic(scene, truth, path.name, source))
    return photos


# --- the fit ------------------------------------------------------------------------------


def fit_logistic(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, l2: float = L2
) -> tuple[np.ndarray, float]:
    """Weighted logistic regression by Newton's method: (coefficients, bias).

    Args:
        x: (n, d) features; y: (n,) 0/1 labels; weights: (n,) sample weights (default 1).
        l2: penalty on the coefficients (not the bias), per unit of total weight.
    """
    n, d = x.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    design = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2 * w.sum())
    penalty[-1] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        grad = design.T @ (w * (p - y)) + penalty * beta
        hess = (design * (w * p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def labelled_boxes(photos: Iterable[PhotoRecord], label: str) -> list[BoxRecord]:
    return [b for p in photos for b in p.boxes if getattr(b, label) is not None]


def source_weights(boxes: Sequence[BoxRecord]) -> np.ndarray:
    """Each source's boxes together weigh as much as another's, the mean weight 1: each
    kind of picture (a table, print beside tiles, a close-up...) counts alike, however many
    boxes its pictures hold."""
    sources = sorted({b.source for b in boxes})
    counts = {s: sum(b.source == s for b in boxes) for s in sources}
    raw = np.array([1.0 / counts[b.source] for b in boxes])
    return raw * len(boxes) / raw.sum()


def fit_features(kind: str, with_verifier: bool) -> tuple[str, ...]:
    """The features a fit names: the logits (`FEATURES`) or their sides (`BETA_FEATURES`),
    and the verifier's score in the same form when every box has one (the models ran it)."""
    from dominocam.vision.confidence import BETA_FEATURES, FEATURES

    if kind == "beta":
        return BETA_FEATURES + (("verifier_low", "verifier_high") if with_verifier else ())
    return FEATURES + (("verifier",) if with_verifier else ())


def fit_model(
    photos: Sequence[PhotoRecord], label: str, features: Sequence[str], l2: float = L2
) -> Any:
    from dominocam.vision.confidence import Logistic

    boxes = labelled_boxes(photos, label)
    if len(boxes) < 10 or len({getattr(b, label) for b in boxes}) < 2:
        raise UserInputError(f"too few labelled boxes to fit p_{label} ({len(boxes)})")
    x = np.array([[box_row(b)[f] for f in features] for b in boxes])
    y = np.array([float(getattr(b, label)) for b in boxes])
    coef, bias = fit_logistic(x, y, source_weights(boxes), l2)
    return Logistic(tuple(features), tuple(float(c) for c in coef), bias)


# --- thresholds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PhotoOutcome:
    """What a fit photo would come to under a calibration.

    Attributes:
        review: it needs a review.
        exact: its exact tile set is read.
        misread: a kept box is not a tile or is read wrong, what a doubt could flag (on a
            real photo, whose labels name tiles and not boxes: not `exact`).
    """

    review: bool
    exact: bool
    misread: bool


def _photo_outcome(photo: PhotoRecord, calibration: Any) -> PhotoOutcome:
    """One fit photo under `calibration`, simulated on its cached boxes (no second network
    pass: the layout's doubts are those without rejection)."""
    from dominocam.vision.confidence import box_features

    if not photo.boxes:
        review = photo.layout_doubts
        if photo.source != REAL:
            return PhotoOutcome(review, photo.missed == 0, False)
        empty = not photo.truth_up and photo.truth_down == 0
        return PhotoOutcome(review, empty, not empty)
    rows = [box_row(b) for b in photo.boxes]
    p_tile = calibration.tile.predict(rows)
    kept = [b for b, p in zip(photo.boxes, p_tile, strict=True) if p >= calibration.reject_below]
    rejected_p = [p for p in p_tile if p < calibration.reject_below]
    counts: dict[tuple[int, int], int] = {}
    for b in kept:
        if b.face == "up" and b.pips is not None:
            counts[b.pips] = counts.get(b.pips, 0) + 1
    rows = [
        box_features(
            b.face,
            b.confidence,
            b.pip_confidence,
            twice=counts.get(b.pips, 0) > 1,
            verifier=b.verifier,
        )
        for b in kept
    ]
    p_right = np.minimum(calibration.right.predict(rows), calibration.tile.predict(rows))
    review = (
        photo.layout_doubts
        or any(p < calibration.doubtful_below for p in p_right)
        or any(counts.get(b.pips, 0) > 1 for b in kept if b.face == "up")
        or any(b.cut for b in kept)
        or any(p >= calibration.review_rejected for p in rejected_p)
    )
    if photo.source != REAL:
        wrong = any(b.tile is False or b.right is False for b in kept)
        lost = any(b.tile for b in photo.boxes if b not in kept)
        return PhotoOutcome(review, not wrong and not lost and photo.missed == 0, wrong)
    ups = sorted(tuple(b.pips) for b in kept if b.face == "up" and b.pips is not None)
    downs = sum(b.face == "down" for b in kept)
    truth = sorted(photo.truth_up)
    extra = len(ups) - len(truth)
    exact = downs == photo.truth_down and (
        ups == truth or (0 < extra <= photo.excluded and covers(ups, truth))
    )
    return PhotoOutcome(review, exact, not exact)


def choose_thresholds(photos: Sequence[PhotoRecord], tile: Any, right: Any) -> tuple[Any, dict]:
    """The calibration with `doubtful_below` chosen on the fit photos (module docstring),
    and the selective figures for each value of the grid."""
    from dominocam.vision.confidence import Calibration

    base = Calibration(tile, right, REJECT_BELOW, DOUBT_GRID[0], REVIEW_REJECTED)
    table = {}
    chosen = None
    for value in DOUBT_GRID:
        calibration = replace(base, doubtful_below=value)
        outcomes = [_photo_outcome(p, calibration) for p in photos]
        clear = [o for o in outcomes if not o.review]
        read_right = sum(not o.misread for o in clear)
        table[str(value)] = {
            "clear_photos": len(clear),
            "clear_read_right": read_right,
            "clear_exact": sum(o.exact for o in clear),
            "photos": len(outcomes),
        }
        if chosen is None and read_right >= SELECTIVE_TARGET * len(clear):
            chosen = value
    value = chosen if chosen is not None else DOUBT_GRID[-1]
    return replace(base, doubtful_below=value), table


# --- the command ---------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `calibrate` to the `dominocam` parser."""
    parser = subparsers.add_parser(
        "calibrate",
        help="fit the tile probability and its thresholds (models/calibration.json)",
        description=(
            "Read the synthetic pictures of each --synthetic folder (its --split) with the "
            "committed models, label every box, fit the calibrated tile probability (each "
            "folder weighing alike) and choose the thresholds that act on it "
            "(docs/reading-confidence.md). Never on real photos: `dominocam eval --realval` "
            "measures the calibration there."
        ),
    )
    parser.add_argument(
        "--synthetic",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a `dominocam synth` folder; repeat for several",
    )
    parser.add_argument("--split", default="train", help="its split to fit on (default train)")
    parser.add_argument(
        "--features",
        choices=("logit", "beta"),
        default="logit",
        help="each score as its logit (default), or as ln p and -ln(1 - p) with a slope each "
        "(beta calibration; dominocam.vision.confidence)",
    )
    parser.add_argument(
        "--l2",
        type=float,
        default=L2,
        help=f"the fit's penalty on each slope, per unit of weight (default {L2})",
    )
    # Gone: a fit on the real photos (their README forbids it); said, not just unknown.
    parser.add_argument("--realval", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--out", type=Path, default=None, help="calibration file (default models/calibration.json)"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path("runs/calibrate/boxes.json"),
        help="labelled boxes, reused when present (default runs/calibrate/boxes.json)",
    )
    parser.add_argument("--refresh", action="store_true", help="read the pictures again")
    parser.add_argument("--limit", type=int, default=None, help="at most N pictures per folder")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def save_photos(path: Path, photos: Sequence[PhotoRecord]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(p) for p in photos]))


def load_photos(path: Path) -> list[PhotoRecord]:
    out = []
    for data in json.loads(path.read_text()):
        boxes = []
        for b in data.pop("boxes"):
            b["pip_confidence"] = tuple(b["pip_confidence"]) if b["pip_confidence"] else None
            b["pips"] = tuple(b["pips"]) if b["pips"] else None
            boxes.append(BoxRecord(**b))
        data["truth_up"] = [tuple(t) for t in data["truth_up"]]
        out.append(PhotoRecord(boxes=boxes, **data))
    return out


def run(args: argparse.Namespace) -> int:
    from dominocam.vision.confidence import calibration_path

    if args.realval is not None:
        raise UserInputError(
            "--realval: the real photos are never fitted on (their README: never train on "
            "them); fit on --synthetic folders and measure with `dominocam eval --realval`"
        )
    if not args.synthetic:
        raise UserInputError("give --synthetic DIR (repeat for several folders) to fit on")
    if args.limit is not None and args.limit < 1:
        raise UserInputError("--limit must be >= 1")
    start = time.perf_counter()
    if args.cache.is_file() and not args.refresh:
        photos = load_photos(args.cache)
        if any(p.source == REAL for p in photos):
            raise UserInputError(
                f"{args.cache} holds boxes of real photos (an older fit): --refresh reads the "
                "synthetic folders again"
            )
        print(f"boxes from {args.cache} (--refresh reads the pictures again)")
    else:
        photos = collect_boxes(args.synthetic, args.split, args.limit, args.quiet)
        save_photos(args.cache, photos)
    every = [b for p in photos for b in p.boxes]
    features = fit_features(
        args.features, bool(every) and all(b.verifier is not None for b in every)
    )
    tile = fit_model(photos, "tile", features, args.l2)
    right = fit_model(photos, "right", features, args.l2)
    calibration, table = choose_thresholds(photos, tile, right)
    fit: dict[str, Any] = {"command": "dominocam calibrate", "sources": {}, "doubt_grid": table}
    for source in sorted({p.source for p in photos}):
        mine = [p for p in photos if p.source == source]
        boxes = labelled_boxes(mine, "right")
        p = calibration.right.predict([box_row(b) for b in boxes])
        y = np.array([float(b.right) for b in boxes])
        fit["sources"][source] = {
            "photos": len(mine),
            "boxes": len(boxes),
            "right": int(y.sum()),
            "ece": round(expected_calibration_error(p, y), 4),
        }
    fit["features"], fit["l2"] = args.features, args.l2
    fit["synthetic_folders"] = [str(folder) for folder in args.synthetic]
    fit["synthetic_split"] = args.split
    calibration = type(calibration)(**{**calibration.__dict__, "fit": fit})
    out = calibration_path(args.out)
    calibration.save(out)
    for source, figures in fit["sources"].items():
        print(
            f"{source}: {figures['photos']} photos, {figures['boxes']} boxes, "
            f"{figures['right']} right, ECE of p_right on the fit boxes {figures['ece']:.3f}"
        )
    print(
        f"thresholds: reject_below {calibration.reject_below}, doubtful_below "
        f"{calibration.doubtful_below}, review_rejected {calibration.review_rejected}"
    )
    for value, row in table.items():
        print(
            f"  doubtful_below {value}: of {row['clear_photos']} photos without review (of "
            f"{row['photos']}), {row['clear_read_right']} keep no misread or false tile, "
            f"{row['clear_exact']} have their exact tile set"
        )
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
    return 0
