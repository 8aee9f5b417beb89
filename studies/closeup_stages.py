"""Where a tile of a close-up is lost: the stages of a read, one after another, on pictures
of one tile or a few big ones (issue 36, point 4).

    python -m studies.closeup_stages --realval ../shared/realval \\
        [--synthetic runs/data/synth-closeup-s69-n300] [--limit N] [--threads 2] [--json]

For each labelled tile it asks, stage by stage, whether a face-up box of the reading lies
on it (its centre inside the label; on a real crop, which holds one tile, any face-up box):

* `first look`: the detector on the picture itself (`Detector.detect`);
* `close-up pass`: with the second look framed by grey (`read_image(closeups=True,
  far_tiles=False)`, no calibration): also the reader, which may turn a box face down;
* `windows`: with the look in windows as well (no calibration);
* `product`: what `dominocam read` gives (`PhotoReader.read`, the calibration on).

A tile found at one stage and lost at the next was dropped by that stage; the counts of
each such drop are printed, with the boxes the calibration left out (their `p_tile` is not
kept by the Scene, so their `probability`, the calibrated p_right, is shown). It only
measures. It imports no `measure` module but `dominocam.measure.metrics`, so it runs as a file on an
older checkout too (`PYTHONPATH=<old tree> python measure/closeup_stages.py ...`).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from dominocam.measure.metrics import wilson
from dominocam.vision.image_io import load_image

STAGES: tuple[str, ...] = ("first look", "close-up pass", "windows", "product")


def _found(up_corners: list[np.ndarray], label: np.ndarray | None) -> bool:
    """A face-up box lies on the label (its centre inside it); any box without a label."""
    if label is None:
        return bool(up_corners)
    import cv2

    contour = np.asarray(label, dtype=np.float32).reshape(-1, 1, 2)
    return any(
        cv2.pointPolygonTest(contour, tuple(map(float, c.mean(axis=0))), False) >= 0
        for c in up_corners
    )


def stage_boxes(image: np.ndarray, models, set_max: int) -> tuple[list[list[np.ndarray]], list]:
    """The face-up boxes of each of `STAGES`, and the product Scene's rejected boxes."""
    from dominocam.vision.pipeline import read_image

    first = [d.corners for d in models.detector.detect(image) if d.face == "up"]
    out = [first]
    for far in (False, True):
        scene = read_image(
            image,
            models.detector,
            models.reader,
            set_max,
            closeups=True,
            far_tiles=far,
            calibration=None,
        )
        out.append([t.corners for t in scene.tiles if t.face == "up"])
    scene = read_image(
        image, models.detector, models.reader, set_max, calibration=models.calibration
    )
    out.append([t.corners for t in scene.tiles if t.face == "up"])
    return out, list(scene.rejected)


def run(items, models) -> dict:
    """Tally the stages over (name, image, set_max, labels) items; labels None: one tile."""
    found: Counter = Counter()
    drops: Counter = Counter()
    dropped: list[dict] = []
    tiles = 0
    for name, image, set_max, labels in items:
        boxes, rejected = stage_boxes(image, models, set_max)
        for label in labels if labels is not None else [None]:
            tiles += 1
            seen = [_found(b, label) for b in boxes]
            for stage, hit in zip(STAGES, seen, strict=True):
                found[stage] += hit
            for k in range(1, len(STAGES)):
                if seen[k - 1] and not seen[k]:
                    drops[STAGES[k]] += 1
                    dropped.append(
                        {
                            "picture": name,
                            "stage": STAGES[k],
                            "rejected": [
                                {"face": r.face, "probability": round(r.probability, 3)}
                                for r in rejected
                            ],
                        }
                    )
            if not seen[0] and seen[-1]:
                drops["found by a second look"] += 1
    return {"tiles": tiles, "found": dict(found), "dropped": dict(drops), "pictures": dropped}


def real_items(root: Path, limit: int | None):
    labels = json.loads((root / "tiles" / "labels.json").read_text())
    for label in labels[:limit] if limit else labels:
        set_max = 12 if "12" in str(label.get("note", "")) else 6
        yield label["image"], load_image(root / "tiles" / label["image"]), set_max, None


def synthetic_items(folder: Path, limit: int | None, split: str = "val"):
    paths = sorted((folder / "detector" / "images" / split).glob("*.jpg"))
    for path in paths[:limit] if limit else paths:
        truth = json.loads((folder / "truth" / f"{path.stem}.json").read_text())
        labels = [
            np.asarray(t["corners"], dtype=float)
            for t in truth.get("tiles", [])
            if t.get("face", "up") == "up"
            and not t.get("cut_by_border")
            and float(t.get("visible_fraction", 1.0)) >= 0.97
        ]
        top = truth.get("set")
        set_max = int(str(top).rsplit("-", 1)[-1]) if top else 12
        yield path.name, load_image(path), set_max, labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.closeup_stages", description=__doc__)
    parser.add_argument("--realval", help="the realval folder (its tiles/)")
    parser.add_argument("--synthetic", action="append", default=[], help="a synth set (val)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from dominocam.vision.pipeline import load_models

    models = load_models(threads=args.threads)
    sets = {}
    if args.realval:
        sets["realval_tiles"] = run(real_items(Path(args.realval), args.limit), models)
    for folder in args.synthetic:
        sets[Path(folder).name] = run(synthetic_items(Path(folder), args.limit), models)
    if args.json:
        print(json.dumps(sets, indent=1))
        return 0
    for name, result in sets.items():
        n = result["tiles"]
        print(f"{name}: {n} tiles")
        for stage in STAGES:
            k = result["found"].get(stage, 0)
            lo, hi = wilson(k, n) if n else (0.0, 0.0)
            print(f"  {stage:14s} {k}/{n} = {k / max(n, 1):.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"  dropped by: {result['dropped']}")
        for row in result["pictures"]:
            print(f"    {row['picture']}: {row['stage']}; rejected {row['rejected']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
