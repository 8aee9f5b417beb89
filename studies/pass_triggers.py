"""How often the close-up and far-tile passes run, and what that costs in detector passes.

    .venv/bin/python -m studies.pass_triggers [--realval ../shared/realval] \
        [--synthetic runs/data/synth-s41-n300] [--tiles 200] [--threads 2]

For every picture of the real scenes, the synthetic val split and the first `--tiles` real tile
crops, the committed detector looks once, then each pass's trigger is applied as
`dominocam.vision.pipeline.detect_tiles` applies it: the close-up pass when the first look has at
most `CLOSEUP_MAX_BOXES` boxes (counting the big boxes it adds), the far-tile pass when the tiles
are too small at the input (`needs_slices`) and the windows would enlarge them enough
(`SLICE_MIN_ZOOM`). Prints the counts and the detector passes per picture (one, plus one per
close-up, plus four per far-tile pass). It only measures.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from dominocam.vision.image_io import IMAGE_SUFFIXES, load_image

ROOT = Path(__file__).resolve().parents[1]


def count(files: list[Path], detector) -> Counter:
    """The trigger counts over `files` (see the module docstring)."""
    from dominocam.vision.detector import (
        CLOSEUP_MAX_BOXES,
        SLICE_MIN_ZOOM,
        frame_for_closeups,
        input_scale,
        merge_closeups,
        needs_slices,
        slice_windows,
    )

    counts: Counter = Counter()
    for path in files:
        image = load_image(path)
        shape = image.shape[:2]
        found = detector.detect(image)
        counts["pictures"] += 1
        if len(found) <= CLOSEUP_MAX_BOXES:
            counts["closeup_runs"] += 1
            framed, pad = frame_for_closeups(image, detector.closeup_border)
            found = merge_closeups(found, detector.detect(framed), pad, shape)
            counts["closeup_boxes_added"] += sum(d.source == "closeup" for d in found)
        scale = input_scale(shape, detector.imgsz, detector.max_upscale)
        x0, y0, x1, y1 = slice_windows(shape)[0]
        zoom = input_scale((y1 - y0, x1 - x0), detector.imgsz, detector.max_upscale) / scale
        if zoom >= SLICE_MIN_ZOOM and needs_slices(found, scale):
            counts["far_tile_runs"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.pass_triggers")
    parser.add_argument("--realval", default=str(ROOT.parent / "shared" / "realval"))
    parser.add_argument("--synthetic", help="a `dominocam synth` folder (its val split)")
    parser.add_argument("--tiles", type=int, default=200, help="real tile crops to count")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    realval = Path(args.realval)
    sets = {
        "real scenes": sorted(
            p for p in (realval / "scenes").glob("*") if p.suffix.lower() in IMAGE_SUFFIXES
        ),
        "real tile crops": sorted(
            p for p in (realval / "tiles").glob("*") if p.suffix.lower() in IMAGE_SUFFIXES
        )[: args.tiles],
    }
    if args.synthetic:
        sets["synthetic val"] = sorted(
            (Path(args.synthetic) / "detector" / "images" / "val").glob("*.jpg")
        )
    if not any(sets.values()):
        print(f"dominocam: error: no pictures under {realval} or --synthetic", file=sys.stderr)
        return 2
    from dominocam.vision.pipeline import load_models

    detector = load_models(threads=args.threads).detector
    for name, files in sets.items():
        if not files:
            continue
        c = count(files, detector)
        passes = (c["pictures"] + c["closeup_runs"] + 4 * c["far_tile_runs"]) / c["pictures"]
        print(
            f"{name}: {c['pictures']} pictures, close-up pass {c['closeup_runs']} "
            f"(adds {c['closeup_boxes_added']} boxes), far-tile pass {c['far_tile_runs']}, "
            f"{passes:.2f} detector passes per picture"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
