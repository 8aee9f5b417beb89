"""The boxes left out that lie against an open end (`dominocam.vision.layout.boxes_at_open_ends`):
how often a tile the kept boxes missed lies there, and on how many pictures that reason is
the only one for a review. `AGAINST_OPEN_END` was measured with it on the calibration's fit
pictures:

    python -m studies.boxes_at_ends --synthetic runs/data/synth-s41-n300:train \\
        --synthetic runs/data/negatives-s43-n80:train

A labelled tile is missed when no tile of the Scene has its centre inside it. Real photos
label tiles, not boxes, so on them only the counts of boxes and pictures are given.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dominocam.vision import geometry
from dominocam.vision.layout import boxes_at_open_ends
from dominocam.vision.notes import Note
from studies.product_reads import covering_label, real_scenes, synthetic_scenes, tally_sets
from studies.review_reasons import REVIEW_REASONS

MISSED, TILE_KEPT, NO_TILE, UNKNOWN = "a missed tile", "a tile kept", "no tile", "unknown"


@dataclass(frozen=True)
class AtEnd:
    """One picture with boxes left out against an open end.

    Attributes:
        picture: the picture's file name.
        boxes: what lies under each such box (`MISSED`, `TILE_KEPT`, `NO_TILE`, `UNKNOWN`).
        only_reason: whether these boxes are the picture's only reason for a review.
    """

    picture: str
    boxes: tuple[str, ...]
    only_reason: bool


def under_box(corners: np.ndarray, truth_tiles: list[dict] | None, scene) -> str:
    """What lies under a box left out: a labelled tile no kept box covers, one a kept box
    covers, or no tile (`UNKNOWN` without box labels)."""
    if truth_tiles is None:
        return UNKNOWN
    label = covering_label(corners, truth_tiles)
    if label is None:
        return NO_TILE
    centres = np.array([t.corners.mean(axis=0) for t in scene.tiles]).reshape(-1, 1, 2)
    inside = geometry.points_inside_boxes(centres, np.array([label["corners"]], dtype=float))
    return TILE_KEPT if np.asarray(inside).any() else MISSED


def at_ends(scene, truth_tiles: list[dict] | None, picture: str) -> AtEnd | None:
    """The picture's boxes left out against an open end, or None without any."""
    if not scene.rejected:
        return None
    found = boxes_at_open_ends(scene, np.array([b.corners for b in scene.rejected]))
    if not found:
        return None
    boxes = tuple(under_box(scene.rejected[i].corners, truth_tiles, scene) for i, _ in found)
    others = [
        w
        for w in scene.warnings
        if isinstance(w, Note) and w.code != "box_at_open_end" and w.code in REVIEW_REASONS
    ]
    return AtEnd(picture, boxes, only_reason=not others)


def synthetic_at_ends(folder: Path, split: str, models) -> Iterator[AtEnd]:
    """The pictures of one split of a `dominocam synth` set with such boxes."""
    for truth_file, truth, scene in synthetic_scenes(folder, models, split):
        found = at_ends(scene, truth.get("tiles") or [], truth_file.stem)
        if found is not None:
            yield found


def real_at_ends(root: Path, models) -> Iterator[AtEnd]:
    """The real photos of `root/scenes/labels.json` with such boxes."""
    for label, scene in real_scenes(root, models):
        found = at_ends(scene, None, label["image"])
        if found is not None:
            yield found


def tally(found: Iterable[AtEnd]) -> list[dict]:
    """Pictures and boxes by what lies under the box, and the pictures where these boxes
    are the only reason for a review."""
    pictures, only, boxes, with_missed = [], [], {}, 0
    for f in found:
        pictures.append(f.picture)
        only += [f.picture] if f.only_reason else []
        with_missed += MISSED in f.boxes
        for kind in f.boxes:
            boxes[kind] = boxes.get(kind, 0) + 1
    return [
        {
            "pictures": len(pictures),
            "pictures_with_a_missed_tile": with_missed,
            "boxes": boxes,
            "only_reason": only,
        }
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.boxes_at_ends",
        description=(
            "Read sets as `dominocam read` does and count the boxes left out against an open "
            "end: what lies under them, and where they alone ask for a review."
        ),
    )
    found, as_json = tally_sets(parser, argv, synthetic_at_ends, real_at_ends, tally)
    if as_json:
        print(json.dumps(found, indent=1))
        return 0
    for name, (row,) in found.items():
        kinds = ", ".join(f"{v} on {k}" for k, v in sorted(row["boxes"].items())) or "none"
        print(f"{name}: {row['pictures']} pictures, {row['pictures_with_a_missed_tile']} with a")
        print(f"  missed tile there; boxes: {kinds}")
        print(f"  the only reason for a review on: {' '.join(row['only_reason']) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
