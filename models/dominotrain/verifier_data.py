"""The verifier's training crops, cut from `dominocam synth` sets (models/verifier.md).

    python -m dominotrain.verifier_data --synth runs/data/negatives-s31-n300 --out DIR
    python -m dominotrain.verifier_data --measure models/verifier.onnx --crops DIR/val

For every picture of a set (its own train / val split), the committed detector's boxes are
cut with `dominocam.vision.verifier.verifier_crop` the way the runtime cuts them:

* `tile`: a box that overlaps a tile of the truth (face up or down, at least half visible)
  by IoU >= `POSITIVE_IOU`, and the truth box of each such tile with jittered corners (the
  detector's boxes are a little off; a tile it missed still teaches what a tile is);
* `not_tile`: a box that overlaps no tile of the truth by more than `NEGATIVE_IOU` (the
  detector's false positives: what the verifier is for), and tile-shaped boxes at random
  on the distractors of the truth, on the background and on the picture's border, and the
  truth box of printed dominoes (a print set's `printed`: a board's track, a box lid; at
  most `PRINTED_NEGATIVES` a picture) with jittered corners: flat print is not a tile.

Boxes in between are left out: neither clearly a tile nor clearly not one.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
from pathlib import Path

import cv2
import numpy as np

from dominocam.vision.image_io import load_image
from dominocam.vision.pipeline import detect_tiles, load_models
from dominocam.vision.verifier import NOT_TILE_CLASS, TILE_CLASS, Verifier, verifier_crop
from dominosynth.config import MIN_VISIBLE_FRACTION

POSITIVE_IOU = 0.5
NEGATIVE_IOU = 0.1
RANDOM_NEGATIVES = 4  # tile-shaped boxes per picture on distractors and background
PRINTED_NEGATIVES = 6  # printed dominoes per picture, cut as `not_tile`
SIDE = 64


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two convex quadrilaterals (4, 2)."""
    a32, b32 = np.asarray(a, np.float32), np.asarray(b, np.float32)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    union = cv2.contourArea(a32) + cv2.contourArea(b32) - inter
    return float(inter / union) if union > 0 else 0.0


def tile_box(centre: np.ndarray, length: float, angle: float) -> np.ndarray:
    """The (4, 2) corners of a 2:1 box in the tile order of `dominocam.vision.geometry`."""
    down = np.array([np.cos(angle), np.sin(angle)])
    right = np.array([-down[1], down[0]])
    h, w = length / 2, length / 4
    return np.array(
        [
            centre - h * down - w * right,
            centre - h * down + w * right,
            centre + h * down + w * right,
            centre + h * down - w * right,
        ]
    )


def jitter(rng: np.random.Generator, corners: np.ndarray) -> np.ndarray:
    c = np.asarray(corners, np.float64)
    width = float(np.linalg.norm(c[1] - c[0]))
    centre = c.mean(axis=0)
    c = centre + (c - centre) * rng.uniform(0.92, 1.08)
    return c + rng.normal(0, 0.04 * width, 2) + rng.normal(0, 0.02 * width, (4, 2))


def random_negatives(
    rng: np.random.Generator, truth: dict, tiles: list[np.ndarray], count: int
) -> list[np.ndarray]:
    """Tile-shaped boxes that overlap no tile: on distractors, then anywhere, some on the
    picture's border (where a dark patch is not a tile's back)."""
    w, h = truth["image"]["width"], truth["image"]["height"]
    lengths = [float(np.linalg.norm(t[2] + t[3] - t[0] - t[1]) / 2) for t in tiles]
    typical = float(np.median(lengths)) if lengths else float(rng.uniform(30, 200))
    objects = [np.asarray(d["corners"], np.float64) for d in truth.get("distractors", [])]
    out: list[np.ndarray] = []
    for _ in range(count * 5):
        if len(out) >= count:
            break
        length = typical * float(rng.uniform(0.6, 1.6))
        pick = rng.random()
        if objects and pick < 0.5:
            obj = objects[int(rng.integers(len(objects)))]
            t = rng.uniform(0, 1, 2)
            centre = obj[0] + t[0] * (obj[1] - obj[0]) + t[1] * (obj[3] - obj[0])
        elif pick < 0.7:  # on the border, partly outside
            side = int(rng.integers(4))
            s = float(rng.uniform(0, 1))
            centre = np.array([(s * w, 0), (s * w, h), (0, s * h), (w, s * h)][side], float)
        else:
            centre = rng.uniform([0, 0], [w, h])
        box = tile_box(centre, length, float(rng.uniform(-np.pi, np.pi)))
        if all(polygon_iou(box, t) <= NEGATIVE_IOU for t in tiles):
            out.append(box)
    return out


def truth_boxes(truth: dict) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The corners of every tile of a picture's truth, and of those fully boxed (at least
    half visible, not cut by the border): the ones a detector's box should stand for."""
    every_tile = [np.asarray(t["corners"], np.float64) for t in truth["tiles"]]
    boxed = [
        np.asarray(t["corners"], np.float64)
        for t in truth["tiles"]
        if t["visible_fraction"] >= MIN_VISIBLE_FRACTION and not t["cut_by_border"]
    ]
    return every_tile, boxed


def label_detections(
    detections: list[np.ndarray], every_tile: list[np.ndarray], boxed: list[np.ndarray]
) -> list[tuple[bool, np.ndarray]]:
    """(is_tile, corners) of the detections that are clearly a tile (IoU >= POSITIVE_IOU
    with a boxed tile) or clearly not one (IoU <= NEGATIVE_IOU with every tile); the boxes
    in between are left out."""
    out = []
    for d in detections:
        if max((polygon_iou(d, t) for t in boxed), default=0.0) >= POSITIVE_IOU:
            out.append((True, d))
        elif max((polygon_iou(d, t) for t in every_tile), default=0.0) <= NEGATIVE_IOU:
            out.append((False, d))
    return out


def picture_crops(image, truth, detections, rng) -> list[tuple[str, np.ndarray]]:
    """(class, crop) pairs of one picture (module docstring)."""
    every_tile, boxed = truth_boxes(truth)
    out = [
        (TILE_CLASS if is_tile else NOT_TILE_CLASS, verifier_crop(image, d, SIDE))
        for is_tile, d in label_detections(detections, every_tile, boxed)
    ]
    for t in boxed:
        out.append((TILE_CLASS, verifier_crop(image, jitter(rng, t), SIDE)))
    for box in random_negatives(rng, truth, every_tile, RANDOM_NEGATIVES):
        out.append((NOT_TILE_CLASS, verifier_crop(image, box, SIDE)))
    for box in printed_negatives(rng, truth, PRINTED_NEGATIVES):
        out.append((NOT_TILE_CLASS, verifier_crop(image, box, SIDE)))
    return out


def printed_negatives(rng: np.random.Generator, truth: dict, count: int) -> list[np.ndarray]:
    """Up to `count` printed dominoes of the truth (`printed`, wholly in the picture), their
    corners jittered as a detector's box would be."""
    printed = [
        np.asarray(p["corners"], np.float64)
        for p in truth.get("printed", [])
        if not p.get("cut_by_border")
    ]
    if not printed:
        return []
    chosen = rng.permutation(len(printed))[:count]
    return [jitter(rng, printed[int(k)]) for k in chosen]


def build(sets: list[Path], out: Path, threads: int, seed: int, workers: int = 1) -> dict:
    """Write `out/{train,val}/{tile,not_tile}/*.png`; returns the counts.

    With `workers` > 1 the pictures are shared out among that many processes (each opens the
    models with `threads` threads), and each picture draws its random boxes from its own
    generator, seeded by `seed` and its place in the job list: the same crops whatever the
    number of workers, though not those of one worker, which draws them all from one."""
    jobs = [
        (str(root), split, str(path))
        for root in sets
        for split in ("train", "val")
        for path in sorted((root / "detector" / "images" / split).glob("*.jpg"))
    ]
    for split in ("train", "val"):
        for label in (TILE_CLASS, NOT_TILE_CLASS):
            (out / split / label).mkdir(parents=True, exist_ok=True)
    counts: dict[str, dict[str, int]] = {}
    if workers > 1:
        work = [(str(out), seed, number, threads, job) for number, job in enumerate(jobs)]
        with mp.get_context("spawn").Pool(workers) as pool:
            for split, found in pool.imap_unordered(_picture_job, work, chunksize=4):
                _add_counts(counts, split, found)
    else:
        models = load_models(threads=threads)
        rng = np.random.default_rng(seed)
        for root, split, path in jobs:
            found = _write_picture(Path(out), Path(root), split, Path(path), models, rng)
            _add_counts(counts, split, found)
    (out / "counts.json").write_text(json.dumps(counts, indent=1) + "\n")
    return counts


_WORKER_MODELS: dict = {}


def _picture_job(args) -> tuple[str, dict[str, int]]:
    """One picture in a worker process (`build` with workers): its split and crop counts."""
    out, seed, number, threads, (root, split, path) = args
    if threads not in _WORKER_MODELS:
        cv2.setNumThreads(1)
        _WORKER_MODELS[threads] = load_models(threads=threads)
    rng = np.random.default_rng([seed, number])
    found = _write_picture(Path(out), Path(root), split, Path(path), _WORKER_MODELS[threads], rng)
    return split, found


def _write_picture(out: Path, root: Path, split: str, path: Path, models, rng) -> dict[str, int]:
    """Cut and write the crops of one picture; returns how many of each class."""
    truth = json.loads((root / "truth" / f"{path.stem}.json").read_text())
    image = load_image(path)
    detections = [d.corners for d in detect_tiles(image, models.detector)]
    found = {TILE_CLASS: 0, NOT_TILE_CLASS: 0}
    for k, (label, crop) in enumerate(picture_crops(image, truth, detections, rng)):
        name = f"{root.name}_{path.stem}_{k}.png"
        cv2.imwrite(str(out / split / label / name), crop)
        found[label] += 1
    return found


def _add_counts(counts: dict[str, dict[str, int]], split: str, found: dict[str, int]) -> None:
    by_split = counts.setdefault(split, {TILE_CLASS: 0, NOT_TILE_CLASS: 0})
    for label, number in found.items():
        by_split[label] += number


def measure(
    model: Path, folder: Path, threshold: float, threads: int, keep_tiles: float | None = None
) -> dict:
    """The verifier `model` on the crops `folder/{tile,not_tile}/*.png`: how many of each
    class it scores at `threshold` or more (a tile kept) and below (left out). With
    `keep_tiles`, the threshold is instead the highest one that keeps that share of the
    tile crops (chosen on these crops, reported as `threshold`)."""
    verifier = Verifier(model, threads=threads)
    scores = {}
    for label in (TILE_CLASS, NOT_TILE_CLASS):
        files = sorted((folder / label).glob("*.png"))
        crops = np.stack([cv2.imread(str(f)) for f in files]) if files else np.zeros((0,))
        scores[label] = verifier.classify(crops) if len(files) else np.zeros(0)
    if keep_tiles is not None and len(scores[TILE_CLASS]):
        ranked = np.sort(scores[TILE_CLASS])
        threshold = float(ranked[int(np.floor((1 - keep_tiles) * len(ranked)))])
    result: dict = {"threshold": round(threshold, 6)}
    for label, s in scores.items():
        kept = int((s >= threshold).sum())
        result[label] = {"crops": len(s), "kept": kept, "left_out": len(s) - kept}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dominotrain.verifier_data")
    parser.add_argument("--synth", action="append", default=[], help="a dominocam synth set")
    parser.add_argument("--out", help="where the crops go")
    parser.add_argument("--measure", help="a verifier .onnx to score the crops of --crops with")
    parser.add_argument("--crops", help="a split folder of crops (e.g. OUT/val) for --measure")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument(
        "--keep-tiles", type=float, help="choose the threshold that keeps this share of tiles"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=int, default=1, help="processes that cut pictures (default 1)"
    )
    args = parser.parse_args(argv)
    if args.measure:
        if not args.crops or not Path(args.crops).is_dir():
            print("dominocam: error: --measure needs --crops FOLDER", file=sys.stderr)
            return 2
        found = measure(
            Path(args.measure), Path(args.crops), args.threshold, args.threads, args.keep_tiles
        )
        print(json.dumps(found))
        return 0
    if not args.synth or not args.out:
        print("dominocam: error: give --synth DIR (one or more) and --out DIR", file=sys.stderr)
        return 2
    sets = [Path(s) for s in args.synth]
    for s in sets:
        if not (s / "truth").is_dir():
            print(f"dominocam: error: {s} is not a dominocam synth output", file=sys.stderr)
            return 2
    print(json.dumps(build(sets, Path(args.out), args.threads, args.seed, args.workers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
