"""Read a measuring set as `dominocam read` does: the committed models and calibration on
every picture, each with its own set's top value. Shared by the tools that count what the
product says (`measure.review_reasons`, `measure.turned_backs`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def real_scenes(root: Path, models) -> Iterator[tuple[dict, object]]:
    """(label, Scene) for each photo of `root/scenes/labels.json` (the realval layout)."""
    from measure.evaluate import _set_max
    from vision.image_io import load_image
    from vision.pipeline import read_image

    for label in json.loads((root / "scenes" / "labels.json").read_text()):
        image = load_image(root / "scenes" / label["image"])
        scene = read_image(
            image,
            models.detector,
            models.reader,
            _set_max(label["set"]),
            calibration=models.calibration,
        )
        yield label, scene


def synthetic_scenes(root: Path, models, split: str = "val") -> Iterator[tuple[dict, object]]:
    """(truth, Scene) for each picture of one split of a `dominocam synth` set."""
    from measure.evaluate import _set_max
    from vision.image_io import load_image
    from vision.pipeline import read_image

    for path in sorted((root / "detector" / "images" / split).glob("*.jpg")):
        truth = json.loads((root / "truth" / f"{path.stem}.json").read_text())
        scene = read_image(
            load_image(path),
            models.detector,
            models.reader,
            _set_max(truth.get("set")),
            calibration=models.calibration,
        )
        yield truth, scene
