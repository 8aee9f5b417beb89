"""Why face-down tiles are doubted (issue 36, point 3): every face-down tile of a reading,
the reason it is doubtful, and what lies under it.

    python -m studies.facedown_doubts --synthetic runs/data/synth-s41-n300 \\
        [--synthetic DIR[:SPLIT]] [--realval ../shared/realval] [--json]

Each picture is read as `dominocam read` reads a table photo (`studies.product_reads`). For
each face-down tile of the Scene:

* how it came face down: the detector's class `tile_down`, or a face-up box the reader
  turned (`dominocam.vision.pipeline.backs_face_down`; its weaker half's back probability);
* why it is doubtful: `turned on a weak back` (under `dominocam.vision.reader.BACK_SURE`: the two
  models disagree), `calibration` (its `probability` under `doubtful_below`), both, or not;
* the features behind the probability: the detector's score, the verifier's score, the
  box's length against the median tile of the picture, whether it touches the border, and
  each feature's share of the logit of `p_right`;
* what lies under it: synthetic, the labelled tile covering the box (face down, face up)
  or no tile; real (labels of counts), a photo labelled with no face-down tile holds none
  (`no tile face down`), else the most probable boxes up to the count are face-down tiles.

A doubt on a real face-down tile is needless; one on a box that is no face-down tile is
the doubt doing its job. It only measures.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from dominocam.vision.confidence import feature_matrix, logit

FACE_DOWN, FACE_UP, NO_TILE = "a face-down tile", "a face-up tile", "no tile"
NO_TILE_DOWN = "no tile face down"


def _turned(scene) -> dict[int, float]:
    """Tile id -> the back probability of the tiles the reader turned face down (the
    warnings' codes, `dominocam.vision.notes`)."""
    return {
        int(w.params["tile"]): float(w.params["p"])
        for w in scene.warnings
        if getattr(w, "code", None) == "back_both_halves"
    }


def facedown_rows(scene, calibration) -> list[dict]:
    """One row per face-down tile of an assessed Scene (module docstring)."""
    from dominocam.vision.geometry import boxes_cut_by_border
    from dominocam.vision.reader import BACK_SURE

    down = [t for t in scene.tiles if t.face == "down"]
    if not down:
        return []
    lengths = {t.id: float(np.linalg.norm(t.corners[0] - t.corners[3])) for t in scene.tiles}
    median = float(np.median(list(lengths.values())))
    turned = _turned(scene)
    cut = boxes_cut_by_border(np.array([t.corners for t in down]), scene.width, scene.height)
    right = calibration.right
    x = feature_matrix(
        ["down"] * len(down),
        [t.confidence for t in down],
        [None] * len(down),
        [False] * len(down),
        [t.verifier_score for t in down],
        right.features,
    )
    rows = []
    for tile, features, is_cut in zip(down, x, cut, strict=True):
        weak = tile.id in turned and turned[tile.id] < BACK_SURE
        low = tile.probability is not None and tile.probability < calibration.doubtful_below
        reason = (
            "turned on a weak back and calibration"
            if weak and low
            else "turned on a weak back"
            if weak
            else "calibration"
            if low
            else "not doubtful"
        )
        terms = {
            f: float(w * v) for f, w, v in zip(right.features, right.weights, features, strict=True)
        }
        rows.append(
            {
                "id": tile.id,
                "corners": tile.corners,
                "doubtful": tile.doubtful,
                "reason": reason,
                "turned": tile.id in turned,
                "back": turned.get(tile.id),
                "det": tile.confidence,
                "verifier": tile.verifier_score,
                "probability": tile.probability,
                "length": lengths[tile.id],
                "relative_length": lengths[tile.id] / median if median else 1.0,
                "cut": bool(is_cut),
                "logit_terms": {
                    "bias": right.bias,
                    "detector (det + down_det)": terms.get("det", 0.0) + terms.get("down_det", 0.0),
                    "verifier": terms.get("verifier", 0.0),
                },
                "logit_needed": float(logit(calibration.doubtful_below)),
            }
        )
    return rows


def synthetic_rows(folder: Path, split: str, models) -> Iterator[dict]:
    from studies.product_reads import covering_label, synthetic_scenes

    for truth_file, truth, scene in synthetic_scenes(folder, models, split):
        for row in facedown_rows(scene, models.calibration):
            label = covering_label(row["corners"], truth.get("tiles") or [])
            under = (
                NO_TILE
                if label is None
                else (FACE_DOWN if label.get("face", "up") == "down" else FACE_UP)
            )
            yield {**row, "picture": truth_file.stem, "under": under}


def real_rows(root: Path, models) -> Iterator[dict]:
    from studies.product_reads import real_scenes

    for label, scene in real_scenes(root, models):
        rows = facedown_rows(scene, models.calibration)
        rows.sort(key=lambda r: -(r["probability"] or 0.0))
        count = int(label.get("face_down", 0))
        for k, row in enumerate(rows):
            under = NO_TILE_DOWN if count == 0 else (FACE_DOWN if k < count else NO_TILE)
            yield {**row, "picture": label["image"], "under": under}


def tally(rows: list[dict]) -> dict:
    """Counts of reasons by what lies under the tile, and the feature medians of each."""
    counts: dict[str, Counter] = defaultdict(Counter)
    values: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        counts[row["under"]][row["reason"]] += 1
        values[(row["under"], row["reason"])].append(row)
    medians = {}
    for (under, reason), group in sorted(values.items()):

        def med(key: str, group=group) -> float:
            return round(float(np.median([g[key] for g in group if g[key] is not None] or [0])), 3)

        medians[f"{under} / {reason}"] = {
            "n": len(group),
            "det": med("det"),
            "verifier": med("verifier"),
            "probability": med("probability"),
            "relative_length": med("relative_length"),
            "turned": sum(g["turned"] for g in group),
            "cut": sum(g["cut"] for g in group),
            "pictures": sorted({g["picture"] for g in group})[:8],
        }
    return {
        "tiles": len(rows),
        "reasons": {k: dict(v) for k, v in counts.items()},
        "medians": medians,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.facedown_doubts", description=__doc__)
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
        found[spec] = tally(list(synthetic_rows(Path(folder), split or "val", models)))
    if args.realval:
        found["real scenes"] = tally(list(real_rows(Path(args.realval), models)))
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    for name, result in found.items():
        print(f"{name}: {result['tiles']} face-down tiles")
        for under, reasons in result["reasons"].items():
            print(f"  on {under}: " + ", ".join(f"{v} {k}" for k, v in reasons.items()))
        for key, row in result["medians"].items():
            print(f"    {key}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
