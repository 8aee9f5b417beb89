"""`studies.verifier_contrast`: how far a tile read right stands out from the table around it,
and the doubts counted by that."""

from __future__ import annotations

import numpy as np

from dominocam.vision.scene import SceneTile
from studies.verifier_contrast import (
    RightTile,
    by_standout,
    format_report,
    right_tiles,
    standout,
)

BOX = np.array([[40, 20], [80, 20], [80, 100], [40, 100]], float)


def painted(tile: int, table: int) -> np.ndarray:
    """A grey picture: `table` everywhere, `tile` inside BOX."""
    image = np.full((120, 120, 3), table, np.uint8)
    image[20:100, 40:80] = tile
    return image


def test_a_tile_lighter_than_its_table_stands_out_by_the_difference() -> None:
    assert standout(painted(220, 60)[..., 0].astype(np.float32), BOX) == 160
    assert standout(painted(200, 240)[..., 0].astype(np.float32), BOX) == -40
    assert standout(painted(200, 200)[..., 0].astype(np.float32), BOX) == 0


def test_a_box_beyond_the_picture_has_no_standout() -> None:
    assert standout(np.zeros((50, 50), np.float32), BOX + 500) is None


def test_only_tiles_read_right_are_kept() -> None:
    right = SceneTile(0, "up", BOX, 0.9, pips=(2, 3), doubtful=True, verifier_score=0.5)
    wrong = SceneTile(1, "up", BOX, 0.9, pips=(3, 3), verifier_score=0.99)
    unlabelled = SceneTile(2, "up", BOX, 0.9, pips=(1, 1), verifier_score=0.99)
    pairs = [((2, 3), right), ((2, 3), wrong), (None, unlabelled)]
    tiles = right_tiles(painted(220, 60), "a.jpg", pairs)
    assert tiles == [RightTile("a.jpg", 160.0, 0.5, True)]


def test_tiles_are_counted_in_their_bin() -> None:
    tiles = [
        RightTile("a", -5.0, 0.5, True),
        RightTile("a", 10.0, 0.99, False),
        RightTile("b", 100.0, 0.999, False),
        RightTile("b", 120.0, 0.9, True),
    ]
    rows = {tuple(r["standout"]): r for r in by_standout(tiles)}
    assert rows[(-256.0, 0.0)]["doubtful"]["k"] == 1 and rows[(-256.0, 0.0)]["tiles"] == 1
    assert rows[(0.0, 20.0)]["verifier_unsure"]["k"] == 0
    assert rows[(80.0, 256.0)]["tiles"] == 2
    assert rows[(80.0, 256.0)]["verifier_unsure"]["k"] == 1
    assert rows[(20.0, 40.0)]["tiles"] == 0
    report = format_report({"s": by_standout(tiles)})
    assert "1/1 1.00" in report and "-" in report
    assert "all: 2 of 4 doubtful, 2 of them with the verifier unsure" in report
