"""`studies.hand_drops`: the missed tiles of a hand reading and the trade-off of asking about
the boxes left out, threshold by threshold."""

from __future__ import annotations

import numpy as np

from dominocam.vision.scene import Scene, SceneTile
from studies.hand_drops import NEEDLESS, USEFUL, missed_tiles, real_tally, synthetic_tally


def square(x: float, y: float, side: float = 40.0) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], float)


def test_a_labelled_tile_no_kept_tile_matches_is_missed() -> None:
    scene = Scene(640, 480, [SceneTile(0, "up", square(100, 100), 0.9, (1, 2), (0.9, 0.9))])
    labels = [{"corners": square(102, 100)}, {"corners": square(300, 100)}]
    assert [t["corners"][0, 0] for t in missed_tiles(scene, labels)] == [300]


def test_each_threshold_counts_useful_and_needless_questions_and_silent_pictures() -> None:
    records = [
        # a missed tile under a box of p 0.15, nothing else asks
        {"missed": 1, "others": False, "boxes": [(0.15, USEFUL)]},
        # no missed tile, one needless box of p 0.3
        {"missed": 0, "others": False, "boxes": [(0.3, NEEDLESS)]},
        # a missed tile no box lies on, but the picture asks anyway
        {"missed": 1, "others": True, "boxes": []},
    ]
    out = synthetic_tally(records)
    assert (out["missed_tiles"], out["missed_under_a_left_out_box"]) == (2, 1)
    at_01, at_02 = out["by_threshold"]["0.1"], out["by_threshold"]["0.2"]
    assert (at_01["useful_questions"], at_01["needless_questions"]) == (1, 1)
    assert at_01["silent_pictures_with_a_missed_tile"] == 0
    assert at_02["silent_pictures_with_a_missed_tile"] == 1  # the 0.15 box asks no more
    assert at_02["pictures_asked_only_by_needless_questions"] == 1
    assert at_02["no_review"] == 1


def test_real_photos_count_the_photos_a_box_alone_sends_to_review() -> None:
    records = [
        {"hand": True, "exact": True, "others": False, "boxes": [(0.12, NEEDLESS)]},
        {"hand": False, "exact": False, "others": True, "boxes": [(0.5, "unknown")]},
    ]
    out = real_tally(records)["by_threshold"]
    assert out["0.1"]["photos_asked_only_by_a_box"] == 1
    assert out["0.1"]["hand_photos_asked_only_by_a_box"] == 1
    assert out["0.15"]["photos_asked_only_by_a_box"] == 0
    assert out["0.1"]["questions"] == 2
