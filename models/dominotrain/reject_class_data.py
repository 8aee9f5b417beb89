"""A reject class in the reader, against the verifier: its training halves, and the measure
of both on the same boxes (issue 17: "a reject class in the reader or a small verifier on
the rectified crop. Measure which works better").

    python -m dominotrain.reject_class_data --synth SET [--synth SET ...] --out DIR
    python -m dominotrain.reject_class_data --compare READER.onnx --synth VAL_SET [...]

Building (`--out`): for every picture of each `dominocam synth` set (its own train / val
split), the reader's training halves that the generator wrote (`SET/reader/SPLIT/CLASS`) are
linked into `DIR/SPLIT/CLASS`, and the boxes that `dominotrain.verifier_data` takes as
`not_tile` (the committed detector's false boxes and tile-shaped boxes at random on
distractors, background and border) are cut the way the reader cuts a tile
(`dominocam.vision.geometry.rectify_tile`, then both halves) into `DIR/SPLIT/not_tile`. The reader
trained on it (`dominocam train reader --data DIR`) reads 13 pip values, a back and
`not_tile`.

Comparing (`--compare`): on the val pictures of the sets given, every box of the committed
detector that `verifier_data` would label (`tile`: IoU >= 0.5 with a fully boxed tile;
`not_tile`: IoU <= 0.1 with every tile) is scored by the committed verifier and by the
reader's reject class (a box's tile score: 1 - the larger of its two halves' `not_tile`
probability). It prints, for each, how many not-tile boxes are left out at the threshold
that keeps 0.99 of the tiles, and the area under the ROC curve. With `--realval`, the same
for every box the product boxes in the real scenes (read with every box kept), labelled as
`dominocam calibrate` labels them (measured only: nothing is chosen on them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from dominocam.measure.calibrate import label_real
from dominocam.measure.truth import set_max
from dominocam.vision import geometry
from dominocam.vision.classifier import as_probabilities, classifier_input, run_classifier
from dominocam.vision.image_io import load_image
from dominocam.vision.onnx_model import metadata, open_session, parse_names
from dominocam.vision.pipeline import detect_tiles, load_models, read_image
from dominotrain.verifier_data import RANDOM_NEGATIVES as RANDOM_BOXES
from dominotrain.verifier_data import label_detections, random_negatives, truth_boxes

REJECT_CLASS = "not_tile"
SIDE = 64
KEEP_TILES = 0.99


def labelled_boxes(
    truth: dict, detections: list[np.ndarray], rng: np.random.Generator, *, random: bool
) -> list[tuple[bool, np.ndarray]]:
    """(is_tile, corners) of the boxes of one picture that are clearly a tile or clearly not
    one (`verifier_data`'s rule); with `random`, tile-shaped boxes off the tiles too."""
    every_tile, boxed = truth_boxes(truth)
    out = label_detections(detections, every_tile, boxed)
    if random:
        out += [(False, b) for b in random_negatives(rng, truth, every_tile, RANDOM_BOXES)]
    return out


def half_crops(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(2, SIDE, SIDE, 3) the reader's two half crops of one box."""
    tile = geometry.rectify_tile(image, corners, SIDE)[None]
    return geometry.split_halves_many(tile)[0]


def _pictures(root: Path, split: str):
    for path in sorted((root / "detector" / "images" / split).glob("*.jpg")):
        truth = json.loads((root / "truth" / f"{path.stem}.json").read_text())
        yield path, truth, load_image(path)


def build(sets: list[Path], out: Path, threads: int, seed: int, reject_share: float) -> dict:
    """Write `out/{train,val}/{values, back, not_tile}/*.png`; returns the counts. Of the
    not-tile halves, at most `reject_share` times the largest other class are kept (drawn
    at random), so that the new class does not outnumber the pip values many times over."""
    models = load_models(threads=threads)
    rng = np.random.default_rng(seed)
    counts: dict[str, dict[str, int]] = {}
    for root in sets:
        for split in ("train", "val"):
            by_class = counts.setdefault(split, {})
            for folder in sorted((root / "reader" / split).iterdir()):
                (out / split / folder.name).mkdir(parents=True, exist_ok=True)
                for crop in folder.glob("*.png"):
                    target = out / split / folder.name / f"{root.name}_{crop.name}"
                    if not target.exists():
                        os.link(crop, target)
                    by_class[folder.name] = by_class.get(folder.name, 0) + 1
            (out / split / REJECT_CLASS).mkdir(parents=True, exist_ok=True)
            for path, truth, image in _pictures(root, split):
                detections = [d.corners for d in detect_tiles(image, models.detector)]
                boxes = labelled_boxes(truth, detections, rng, random=True)
                for k, (_, corners) in enumerate(b for b in boxes if not b[0]):
                    for h, crop in enumerate(half_crops(image, corners)):
                        name = f"{root.name}_{path.stem}_{k}_{h}.png"
                        cv2.imwrite(str(out / split / REJECT_CLASS / name), crop)
                        by_class[REJECT_CLASS] = by_class.get(REJECT_CLASS, 0) + 1
    for split, by_class in counts.items():
        cap = int(reject_share * max(n for k, n in by_class.items() if k != REJECT_CLASS))
        rejects = sorted((out / split / REJECT_CLASS).glob("*.png"))
        for extra in rng.permutation(len(rejects))[cap:]:
            rejects[int(extra)].unlink()
        by_class[REJECT_CLASS] = min(cap, len(rejects))
    (out / "counts.json").write_text(json.dumps(counts, indent=1) + "\n")
    return counts


def reject_scores(reader_path: Path, halves: np.ndarray, threads: int) -> np.ndarray:
    """(N,) a box's tile score by the reader's reject class, for (N, 2, s, s, 3) halves."""
    session = open_session(reader_path, threads)
    meta = metadata(session)
    names = parse_names(meta, reader_path)
    order = sorted(names)
    column = [i for i, k in enumerate(order) if names[k] == REJECT_CLASS]
    if not column:
        raise SystemExit(f"{reader_path}: no '{REJECT_CLASS}' class in {names}")
    spec = classifier_input(session, meta, reader_path, "reader", 128)
    flat = halves.reshape(-1, *halves.shape[2:])
    probs = as_probabilities(run_classifier(session, spec, flat))[:, column[0]]
    return 1.0 - probs.reshape(-1, 2).max(axis=1)


def separation(scores: np.ndarray, is_tile: np.ndarray) -> dict:
    """Not-tile boxes left out at the threshold keeping KEEP_TILES of the tiles, and AUC."""
    tiles, others = scores[is_tile], scores[~is_tile]
    threshold = float(np.sort(tiles)[int(np.floor((1 - KEEP_TILES) * len(tiles)))])
    ranks = np.argsort(np.argsort(np.concatenate([tiles, others]), kind="stable")) + 1
    auc = (ranks[: len(tiles)].sum() - len(tiles) * (len(tiles) + 1) / 2) / max(
        len(tiles) * len(others), 1
    )
    return {
        "tiles": len(tiles),
        "not_tiles": len(others),
        "threshold": round(threshold, 6),
        "tiles_kept": int((tiles >= threshold).sum()),
        "not_tiles_left_out": int((others < threshold).sum()),
        "auc": round(float(auc), 4),
    }


def _real_boxes(models, realval: Path):
    """(is_tile, verifier score, halves) of every box the product boxes in the real scenes,
    read with every box kept and labelled as `dominocam calibrate` labels them."""
    labels = json.loads((realval / "scenes" / "labels.json").read_text())
    for label in labels:
        image = load_image(realval / "scenes" / label["image"])
        # Without the calibration (not `dominocam.vision.reading.PhotoReader`): every box is kept
        # with its raw verifier score, to be labelled.
        scene = read_image(image, models.detector, models.reader, set_max(label["set"]))
        records = label_real(scene, label).boxes
        for tile, record in zip(scene.tiles, records, strict=True):
            if record.tile is not None and tile.verifier_score is not None:
                yield record.tile, tile.verifier_score, half_crops(image, tile.corners)


def compare(reader_path: Path, sets: list[Path], threads: int, realval: Path | None = None) -> dict:
    """The verifier and the reader's reject class on the same labelled boxes (docstring)."""
    models = load_models(threads=threads)
    assert models.detector.verifier is not None, "the committed verifier is needed"
    result: dict = {"sets": [str(s) for s in sets]}
    if realval is not None:
        real = list(_real_boxes(models, realval))
        is_real_tile = np.array([r[0] for r in real], dtype=bool)
        result["real_scenes"] = {
            "verifier": separation(np.array([r[1] for r in real]), is_real_tile),
            "reader_reject_class": separation(
                reject_scores(reader_path, np.stack([r[2] for r in real]), threads),
                is_real_tile,
            ),
        }
    rng = np.random.default_rng(0)
    labels: list[bool] = []
    verifier: list[float] = []
    halves: list[np.ndarray] = []
    for root in sets:
        for _path, truth, image in _pictures(root, "val"):
            detections = [d.corners for d in detect_tiles(image, models.detector)]
            boxes = labelled_boxes(truth, detections, rng, random=False)
            if not boxes:
                continue
            corners = [c for _, c in boxes]
            labels += [t for t, _ in boxes]
            verifier += models.detector.verifier.scores(image, corners).tolist()
            halves += [half_crops(image, c) for c in corners]
    is_tile = np.array(labels, dtype=bool)
    result["synthetic"] = {
        "verifier": separation(np.array(verifier), is_tile),
        "reader_reject_class": separation(
            reject_scores(reader_path, np.stack(halves), threads), is_tile
        ),
    }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominotrain.reject_class_data",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("--synth", action="append", default=[], help="a dominocam synth set")
    parser.add_argument("--out", help="where the reader's training halves go")
    parser.add_argument("--compare", help="a reader .onnx with a not_tile class")
    parser.add_argument(
        "--realval", help="with --compare: the real photos folder, whose scenes are measured too"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--reject-share",
        type=float,
        default=2.0,
        help="keep at most this many not-tile halves per half of the largest other class",
    )
    args = parser.parse_args(argv)
    sets = [Path(s) for s in args.synth]
    if not sets or not all((s / "truth").is_dir() for s in sets):
        print("dominocam: error: give --synth DIR, each a dominocam synth output", file=sys.stderr)
        return 2
    if args.compare:
        realval = Path(args.realval) if args.realval else None
        print(json.dumps(compare(Path(args.compare), sets, args.threads, realval), indent=1))
        return 0
    if not args.out:
        print("dominocam: error: give --out DIR or --compare READER.onnx", file=sys.stderr)
        return 2
    print(
        json.dumps(
            build(sets, Path(args.out), args.threads, args.seed, args.reject_share), indent=1
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
