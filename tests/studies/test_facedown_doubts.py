"""`studies.facedown_doubts`: the reason a face-down tile is doubtful, and the tally."""

from __future__ import annotations

import numpy as np

from dominocam.vision import messages
from dominocam.vision.confidence import load_calibration
from dominocam.vision.notes import note
from dominocam.vision.scene import Scene, SceneTile
from studies.facedown_doubts import FACE_DOWN, NO_TILE, facedown_rows, tally


def square(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 20, y], [x + 20, y + 40], [x, y + 40]], float)


def test_a_turned_tile_on_a_weak_back_and_a_low_probability_are_told_apart() -> None:
    calibration = load_calibration(required=True)
    assert calibration is not None
    tiles = [
        SceneTile(0, "down", square(100, 100), 0.95, probability=0.99, verifier_score=0.99),
        SceneTile(
            1, "down", square(200, 100), 0.6, probability=0.6, doubtful=True, verifier_score=0.9
        ),
        SceneTile(
            2, "down", square(300, 100), 0.9, probability=0.95, doubtful=True, verifier_score=0.99
        ),
    ]
    turned = note(messages.BACK_BOTH_HALVES, tile=2, p=0.6)
    scene = Scene(640, 480, tiles, warnings=[turned])
    rows = facedown_rows(scene, calibration)
    assert [r["reason"] for r in rows] == [
        "not doubtful",
        "calibration",
        "turned on a weak back",
    ]
    assert rows[2]["turned"] and rows[2]["back"] == 0.6
    out = tally(
        [{**r, "picture": "p", "under": FACE_DOWN} for r in rows[:2]]
        + [{**rows[2], "picture": "q", "under": NO_TILE}]
    )
    assert out["reasons"] == {
        FACE_DOWN: {"not doubtful": 1, "calibration": 1},
        NO_TILE: {"turned on a weak back": 1},
    }
