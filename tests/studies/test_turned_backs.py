"""`studies.turned_backs`: the tiles the reader turned face down, matched to the labels and
counted by how sure the back read was."""

from __future__ import annotations

import numpy as np

from dominocam.vision import messages
from dominocam.vision.notes import note
from dominocam.vision.scene import Scene, SceneTile
from studies.turned_backs import NO_TILE, Turned, tally, truth_face, turned_tiles


def square(x: float, y: float, side: float = 40.0) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])


def test_the_labelled_tile_covering_most_of_the_box_gives_its_face() -> None:
    labels = [
        {"corners": square(0, 0).tolist(), "face": "up"},
        {"corners": square(30, 0).tolist(), "face": "down"},
    ]
    assert truth_face(square(25, 0), labels) == "down"  # 25 of its 40 px over the second
    assert truth_face(square(5, 0), labels) == "up"
    assert truth_face(square(200, 200), labels) == NO_TILE
    assert truth_face(square(8, 0), [labels[1]]) == NO_TILE  # 18 of its 40 px: under half


def test_turned_tiles_come_from_the_warning_with_their_back_read_and_doubt() -> None:
    tiles = [
        SceneTile(0, "down", square(0, 0), 0.9, doubtful=True),
        SceneTile(1, "down", square(100, 0), 0.9),
        SceneTile(2, "up", square(200, 0), 0.9, pips=(1, 2)),
    ]
    warnings = [
        note(messages.BACK_BOTH_HALVES, tile=0, p=0.61),
        note(messages.BACK_BOTH_HALVES, tile=1, p=0.97),
        note(messages.CUT_BY_BORDER, tile=2),
    ]
    scene = Scene(640, 480, tiles, warnings=warnings)
    labels = [{"corners": square(0, 0).tolist(), "face": "up"}]
    assert turned_tiles(scene, labels) == [Turned(0.61, "up", True), Turned(0.97, NO_TILE, False)]
    assert [t.truth for t in turned_tiles(scene, None)] == [None, None]


def test_tally_counts_wrong_turns_nothing_asks_about_by_band() -> None:
    turned = [
        Turned(0.6, "up", False),  # wrong, and nobody is asked
        Turned(0.65, "up", True),  # wrong, but doubtful
        Turned(0.8, "down", False),
        Turned(0.95, NO_TILE, False),
        Turned(1.0, "down", False),
    ]
    rows = {tuple(r["band"]): r for r in tally(turned)}
    assert rows[(0.5, 0.7)] == {
        "band": [0.5, 0.7],
        "turned": 2,
        "face_down": 0,
        "wrong_not_doubtful": 1,
        "doubtful": 1,
    }
    assert rows[(0.7, 0.9)]["face_down"] == 1 and rows[(0.7, 0.9)]["wrong_not_doubtful"] == 0
    assert rows[(0.9, 0.99)]["wrong_not_doubtful"] == 1
    assert rows[(0.99, 1.0)]["turned"] == 1 and rows[(0.99, 1.0)]["face_down"] == 1
