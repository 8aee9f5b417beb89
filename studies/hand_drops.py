"""Tiles dropped from hand photos, and what asking about the boxes left out would catch
(issue 36, point 2): the trade-off behind `dominocam.vision.settings.HAND_REVIEW_REJECTED`.

    python -m studies.hand_drops --synthetic runs/data/hands-s73-n200:train \\
        [--synthetic runs/data/hands-s73-n200] [--realval ../shared/realval] [--json]

Each picture is read as a hand photo (`read_image` as `PhotoReader.read(image, "hand")`
calls it: no layout), with every box the calibration leaves out kept with its `p_tile`.
Then, for each candidate threshold t, a left-out box with `p_tile >= t` asks:

* synthetic (boxes labelled): a labelled tile is missed when no kept tile matches it (as
  `dominocam eval` matches boxes: rotated IoU 0.5, or each centre inside the other); a
  question is *useful* when its box lies on a missed tile, else *needless* (no tile there,
  or a tile already kept). Per t: the missed tiles a question lies on, the pictures with a
  missed tile that still ask for no review at all (*silent*), and the pictures that ask
  only because of needless questions;
* real (`scenes/labels.json`, labels of tiles, not boxes): every photo read as a hand. A
  question on a photo whose tile set is already exact is needless; per t, the photos it
  sends to review that nothing else did, all photos and those labelled `hand` apart.

It only measures; the threshold is chosen on the synthetic train split and shown on the
val split and on the real photos beside it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from dominocam.measure.metrics import boxes_match, match_boxes
from dominocam.measure.truth import set_max as _set_max
from dominocam.measure.truth import synthetic_truth
from dominocam.vision.image_io import load_image

GRID: tuple[float, ...] = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
USEFUL, NEEDLESS = "useful", "needless"


def read_hand(image: np.ndarray, models, set_max: int):
    """(Scene, p_tile of each rejected box) of a hand photo read as the product reads it, with
    no box question in its warnings (`review_rejected` 0 asks about every box, then those
    questions are taken out, so that each threshold can be applied afterwards)."""
    import dominocam.vision.pipeline as pipeline
    from dominocam.vision.pipeline import read_image

    captured: list[tuple[float, ...]] = []
    review = pipeline.review_scene

    def capture(scene, calibration, set_max, rejected_p_tile=(), *args, **kwargs):
        captured.append(tuple(rejected_p_tile))
        return review(scene, calibration, set_max, rejected_p_tile, *args, **kwargs)

    calibration = replace(models.calibration, review_rejected=0.0)
    pipeline.review_scene = capture
    try:
        scene = read_image(
            image,
            models.detector,
            models.reader,
            set_max,
            with_layout=False,
            calibration=calibration,
        )
    finally:
        pipeline.review_scene = review
    from studies.review_reasons import REVIEW_REASONS

    others = [
        w
        for w in scene.warnings
        if getattr(w, "code", None) in REVIEW_REASONS - {"box_may_be_a_tile"}
    ]
    scene = replace(scene, needs_review=bool(others))
    return scene, captured[0]


def missed_tiles(scene, scored: list[dict]) -> list[dict]:
    """The labelled tiles no kept tile matches, matched one to one as `dominocam eval`
    matches boxes (rotated IoU 0.5, or each centre inside the other)."""
    found = match_boxes([t["corners"] for t in scored], [t.corners for t in scene.tiles])
    return [scored[i] for i in found.missed]


def synthetic_pictures(folder: Path, split: str, models) -> Iterator[dict]:
    """One record per picture: missed tiles, and each left-out box's p_tile and kind."""
    for path in sorted((folder / "detector" / "images" / split).glob("*.jpg")):
        truth_file = folder / "truth" / f"{path.stem}.json"
        scored, _, set_max, _ = synthetic_truth(truth_file)
        scene, p_tiles = read_hand(load_image(path), models, set_max)
        missed = missed_tiles(scene, scored)
        boxes = []
        for box, p in zip(scene.rejected, p_tiles, strict=True):
            on_missed = any(boxes_match(t["corners"], box.corners)[0] for t in missed)
            boxes.append((p, USEFUL if on_missed else NEEDLESS))
        yield {
            "picture": path.name,
            "missed": len(missed),
            "others": scene.needs_review,
            "boxes": boxes,
        }


def real_pictures(root: Path, models) -> Iterator[dict]:
    """One record per real photo read as a hand: whether its tile set is exact, whether
    other reasons ask, each left-out box's p_tile."""
    from studies.realval_passes import exact_tile_set

    for label in json.loads((root / "scenes" / "labels.json").read_text()):
        image = load_image(root / "scenes" / label["image"])
        scene, p_tiles = read_hand(image, models, _set_max(label["set"]))
        exact = exact_tile_set(label, scene)
        kind = NEEDLESS if exact else "unknown"
        yield {
            "picture": label["image"],
            "hand": bool(label.get("hand")),
            "exact": exact,
            "others": scene.needs_review,
            "boxes": [(p, kind) for p in p_tiles],
        }


def synthetic_tally(records: list[dict]) -> dict:
    """Per threshold (module docstring), over the synthetic records."""
    with_missed = [r for r in records if r["missed"]]
    out = {
        "pictures": len(records),
        "missed_tiles": sum(r["missed"] for r in records),
        "pictures_with_a_missed_tile": len(with_missed),
        "missed_under_a_left_out_box": sum(
            sum(k == USEFUL for _, k in r["boxes"]) for r in records
        ),
        "by_threshold": {},
    }
    for t in GRID:
        asks = [any(p >= t for p, _ in r["boxes"]) for r in records]
        useful = sum(sum(p >= t and k == USEFUL for p, k in r["boxes"]) for r in records)
        needless = sum(sum(p >= t and k == NEEDLESS for p, k in r["boxes"]) for r in records)
        silent = sum(
            1 for r, a in zip(records, asks, strict=True) if r["missed"] and not (a or r["others"])
        )
        only_needless = sum(
            1
            for r in records
            if not r["others"]
            and not any(p >= t and k == USEFUL for p, k in r["boxes"])
            and any(p >= t and k == NEEDLESS for p, k in r["boxes"])
        )
        no_review = sum(1 for r, a in zip(records, asks, strict=True) if not (a or r["others"]))
        out["by_threshold"][str(t)] = {
            "useful_questions": useful,
            "needless_questions": needless,
            "silent_pictures_with_a_missed_tile": silent,
            "pictures_asked_only_by_needless_questions": only_needless,
            "no_review": no_review,
        }
    return out


def real_tally(records: list[dict]) -> dict:
    """Per threshold, the photos the questions alone send to review, exact ones apart."""
    out: dict = {"photos": len(records), "hand_photos": sum(r["hand"] for r in records)}
    out["by_threshold"] = {}
    for t in GRID:
        alone = [r for r in records if not r["others"] and any(p >= t for p, _ in r["boxes"])]
        out["by_threshold"][str(t)] = {
            "photos_asked_only_by_a_box": len(alone),
            "of_them_exact (needless)": sum(r["exact"] for r in alone),
            "hand_photos_asked_only_by_a_box": sum(r["hand"] for r in alone),
            "questions": sum(sum(p >= t for p, _ in r["boxes"]) for r in records),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.hand_drops", description=__doc__)
    parser.add_argument("--synthetic", action="append", default=[], metavar="DIR[:SPLIT]")
    parser.add_argument("--realval")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from dominocam.vision.pipeline import load_models

    models = load_models(threads=args.threads)
    found = {}
    for spec in args.synthetic:
        folder, _, split = spec.partition(":")
        found[spec] = synthetic_tally(
            list(synthetic_pictures(Path(folder), split or "val", models))
        )
    if args.realval:
        found["real scenes read as hands"] = real_tally(
            list(real_pictures(Path(args.realval), models))
        )
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    for name, result in found.items():
        rows = result.pop("by_threshold")
        print(f"{name}: {json.dumps(result)}")
        for t, row in rows.items():
            print(f"  p_tile >= {t}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
