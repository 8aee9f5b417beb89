"""`studies.boxes_at_ends`: what lies under a box left out against an open end, and the
tally by picture."""

from __future__ import annotations

import numpy as np

from dominocam.vision.scene import Scene, SceneTile
from studies.boxes_at_ends import MISSED, NO_TILE, TILE_KEPT, UNKNOWN, AtEnd, tally, under_box


def square(x: float, y: float, side: float = 40.0) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], float)


def test_under_a_box_lies_a_missed_tile_a_kept_one_or_none() -> None:
    scene = Scene(640, 480, [SceneTile(0, "up", square(100, 100), 0.9, (1, 2), (0.9, 0.9))])
    labels = [{"corners": square(100, 100).tolist()}, {"corners": square(300, 100).tolist()}]
    assert under_box(square(102, 100), labels, scene) == TILE_KEPT
    assert under_box(square(300, 102), labels, scene) == MISSED
    assert under_box(square(500, 400), labels, scene) == NO_TILE
    assert under_box(square(500, 400), None, scene) == UNKNOWN


def test_tally_counts_pictures_boxes_and_the_only_reason() -> None:
    (row,) = tally(
        [
            AtEnd("a", (MISSED, NO_TILE), only_reason=True),
            AtEnd("b", (NO_TILE,), only_reason=False),
        ]
    )
    assert row == {
        "pictures": 2,
        "pictures_with_a_missed_tile": 1,
        "boxes": {MISSED: 1, NO_TILE: 2},
        "only_reason": ["a"],
    }
