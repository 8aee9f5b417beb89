"""The real scenes read with and without each optional stage: the verifier, the close-up pass
and the far-tile pass (models/verifier.md, docs/decisions/2026-12-01-not-a-tile.md).

    .venv/bin/python -m studies.realval_passes [--realval ../shared/realval] \
        [--models DIR] [--no-verifier] [--no-closeups] [--no-far-tiles] [--threads 2]

Prints, for all 108 scenes, the first 42 (DomiBot, jmherzog) and the 66 added on 2026-12-01,
the count-based figures of `dominocam eval` (the same scoring, `score_scene_photo`), the
exact tile set (the face-up tiles read and the face-down count both right, no tile
invented), the photos without any tile that come back empty, and the median seconds per
photo, each with its Wilson interval. Nothing here is tuned: it only measures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from dominocam.measure.metrics import tile_key, wilson
from dominocam.measure.scoring import SetResult, scene_predictions, score_scene_photo
from dominocam.measure.truth import held_out, set_max
from dominocam.vision.image_io import load_image
from dominocam.vision.pipeline import VERIFIER_THRESHOLD, load_models, read_image

ROOT = Path(__file__).resolve().parents[1]


def exact_tile_set(label: dict, scene) -> bool:
    """Every face-up tile read right, the face-down count right, nothing invented (a tile
    labelled `excluded`, cut by the frame, may be found or not)."""
    truth = Counter(tile_key(p) for p in label.get("face_up", []))
    reads = Counter(tuple(t.pips) for t in scene.tiles if t.face == "up" and t.pips)
    unread = sum(1 for t in scene.tiles if t.face == "up" and not t.pips)
    down = sum(t.face == "down" for t in scene.tiles)
    extra = sum((reads - truth).values()) + unread + max(0, down - int(label.get("face_down", 0)))
    excluded = len(label.get("excluded") or [])
    return (
        not (truth - reads)
        and down >= int(label.get("face_down", 0))
        and extra <= excluded
        and (excluded > 0 or down == int(label.get("face_down", 0)))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--realval", default=str(ROOT.parent / "shared" / "realval"))
    parser.add_argument("--models", help="folder with detector.onnx, reader.onnx (verifier.onnx)")
    parser.add_argument("--no-verifier", action="store_true")
    parser.add_argument(
        "--verifier-threshold",
        type=float,
        help="leave out boxes the verifier scores below this (default VERIFIER_THRESHOLD)",
    )
    parser.add_argument("--no-closeups", action="store_true")
    parser.add_argument("--no-far-tiles", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    root = Path(args.realval)
    if not (root / "scenes" / "labels.json").is_file():
        print(f"dominocam: error: no scenes/labels.json under {root}", file=sys.stderr)
        return 2

    folder = Path(args.models) if args.models else None
    models = load_models(
        folder / "detector.onnx" if folder else None,
        folder / "reader.onnx" if folder else None,
        threads=args.threads,
    )
    if args.no_verifier:
        models.detector.verifier = None
    labels = json.loads((root / "scenes" / "labels.json").read_text())
    groups = {"all": SetResult("all"), "first42": SetResult("first42"), "new66": SetResult("new66")}
    extra = {g: Counter() for g in groups}
    seconds: list[float] = []
    for label in labels:
        image = load_image(root / "scenes" / label["image"])
        start = time.perf_counter()
        # The verifier's threshold alone, without the calibration: what this study weighs
        # against the product's reading (`dominocam.vision.reading.PhotoReader`).
        scene = read_image(
            image,
            models.detector,
            models.reader,
            set_max(label["set"]),
            closeups=not args.no_closeups,
            far_tiles=not args.no_far_tiles,
            verifier_threshold=(
                VERIFIER_THRESHOLD if args.verifier_threshold is None else args.verifier_threshold
            ),
        )
        seconds.append(time.perf_counter() - start)
        empty_truth = not label.get("face_up") and not int(label.get("face_down", 0))
        for g in ("all", "new66" if held_out(label) else "first42"):
            score_scene_photo(
                groups[g], label["image"], label, scene_predictions(scene), scene.layout.open_ends
            )
            extra[g]["photos"] += 1
            extra[g]["exact"] += exact_tile_set(label, scene)
            if empty_truth:
                extra[g]["no_tile"] += 1
                extra[g]["no_tile_empty"] += not scene.tiles
    out = {"options": vars(args), "median_s": statistics.median(seconds), "groups": {}}
    print(f"median {out['median_s'] * 1000:.0f} ms per photo; options {vars(args)}")
    for g, result in groups.items():
        figures = {name: (k, n) for name, (k, n) in result.counts.items()}
        figures["exact_tile_set"] = (extra[g]["exact"], extra[g]["photos"])
        figures["no_tile_photo_empty"] = (extra[g]["no_tile_empty"], extra[g]["no_tile"])
        out["groups"][g] = figures
        print(f"{g}:")
        for name, (k, n) in figures.items():
            lo, hi = wilson(k, n) if n else (0.0, 0.0)
            rate = k / n if n else float("nan")
            print(f"  {name:26s} {rate:.4f} [{lo:.4f}, {hi:.4f}] ({k}/{n})")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
