"""Read a measuring set as `dominocam read` does: the committed models and calibration on
every picture, each with its own set's top value. Shared by the tools that count what the
product says (`studies.review_reasons`, `studies.turned_backs`, `studies.set_down`).

The reading is `dominocam.vision.pipeline.read_image` with the options of
`dominocam.vision.reading.PhotoReader` for a table photo of no known game, not the reader
itself: a study may change one of them (`read_options`: `studies.set_down` turns a layout
rule off) to weigh it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from dominocam.measure.truth import set_max
from dominocam.vision.image_io import load_image
from dominocam.vision.pipeline import load_models, read_image


def real_scenes(root: Path, models, **read_options) -> Iterator[tuple[dict, object]]:
    """(label, Scene) for each photo of `root/scenes/labels.json` (the realval layout);
    `read_options` go to `read_image` (a `layout_config`, say)."""
    for label in json.loads((root / "scenes" / "labels.json").read_text()):
        image = load_image(root / "scenes" / label["image"])
        scene = read_image(
            image,
            models.detector,
            models.reader,
            set_max(label["set"]),
            calibration=models.calibration,
            **read_options,
        )
        yield label, scene


def synthetic_scenes(
    root: Path, models, split: str = "val", **read_options
) -> Iterator[tuple[Path, dict, object]]:
    """(truth file, truth, Scene) for each picture of one split of a `dominocam synth` set;
    `read_options` go to `read_image`."""
    for path in sorted((root / "detector" / "images" / split).glob("*.jpg")):
        truth_file = root / "truth" / f"{path.stem}.json"
        truth = json.loads(truth_file.read_text())
        scene = read_image(
            load_image(path),
            models.detector,
            models.reader,
            set_max(truth.get("set")),
            calibration=models.calibration,
            **read_options,
        )
        yield truth_file, truth, scene


def covering_label(corners: np.ndarray, truth_tiles: Sequence[dict]) -> dict | None:
    """The labelled tile (a `truth/NAME.json` tile) that covers most of the box `corners`, or
    None when none covers more than half of it (the box holds no tile)."""
    box = np.asarray(corners, dtype=np.float32)
    area = cv2.contourArea(box)
    best, found = 0.0, None
    for tile in truth_tiles:
        label = np.asarray(tile["corners"], dtype=np.float32)
        shared, _ = cv2.intersectConvexConvex(box, label)
        if shared > best:
            best, found = shared, tile
    return found if best > 0.5 * area else None


def tally_sets(
    parser: argparse.ArgumentParser,
    argv: list[str] | None,
    synthetic: Callable[[Path, str, object], Iterable],
    real: Callable[[Path, object], Iterable],
    tally: Callable[[Iterable], list[dict]],
    realval_help: str = "the real photos folder (its scenes/)",
) -> tuple[dict[str, list[dict]], bool]:
    """The command line the counting tools share: add `--synthetic DIR[:SPLIT]`
    (repeatable; val unless named), `--realval`, `--threads` and `--json` to `parser`, parse
    `argv`, open the committed models, and `tally` what `synthetic(folder, split, models)`
    and `real(root, models)` yield for each set. Returns ({set: tally}, whether `--json`)."""
    parser.add_argument(
        "--synthetic",
        action="append",
        default=[],
        metavar="DIR[:SPLIT]",
        help="a dominocam synth output folder and its split (default val); repeatable",
    )
    parser.add_argument("--realval", help=realval_help)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = parser.parse_args(argv)
    if not args.synthetic and not args.realval:
        parser.error("give --synthetic DIR[:SPLIT] and/or --realval DIR")

    models = load_models(threads=args.threads)
    found = {}
    for spec in args.synthetic:
        folder, _, split = spec.partition(":")
        found[spec] = tally(synthetic(Path(folder), split or "val", models))
    if args.realval:
        found["real scenes (no boxes labelled)"] = tally(real(Path(args.realval), models))
    return found, args.json
