"""The reader's reject-class experiment: which boxes it labels, the reader's half crops of a
box, and the separation figures that compare it with the verifier."""

from __future__ import annotations

import numpy as np
import pytest

from dominotrain.reject_class_data import SIDE, half_crops, labelled_boxes, separation
from dominotrain.verifier_data import tile_box


def _truth(tiles: list[np.ndarray]) -> dict:
    return {
        "image": {"width": 400, "height": 300},
        "tiles": [
            {"corners": t.tolist(), "visible_fraction": 1.0, "cut_by_border": False} for t in tiles
        ],
        "distractors": [],
    }


def test_boxes_are_labelled_as_the_verifiers_crops_are_and_random_ones_only_on_request():
    tile = tile_box(np.array([100.0, 150.0]), 80, 0.3)
    far = tile_box(np.array([320.0, 150.0]), 80, 0.0)
    between = tile + 40 * np.array([np.cos(0.3), np.sin(0.3)])
    rng = np.random.default_rng(0)
    boxes = labelled_boxes(_truth([tile]), [tile + 1.0, far, between], rng, random=False)
    assert [is_tile for is_tile, _ in boxes] == [True, False]
    with_random = labelled_boxes(_truth([tile]), [tile + 1.0], rng, random=True)
    assert with_random[0][0] and len(with_random) > 1
    assert not any(is_tile for is_tile, _ in with_random[1:])


def test_a_box_gives_the_readers_two_half_crops():
    image = np.zeros((300, 400, 3), np.uint8)
    image[:, :200] = 255  # the box below straddles the edge: one half white, one black
    box = np.array([[160.0, 130.0], [160.0, 170.0], [240.0, 170.0], [240.0, 130.0]])
    halves = half_crops(image, box)
    assert halves.shape == (2, SIDE, SIDE, 3)
    assert {int(halves[0].mean() > 127), int(halves[1].mean() > 127)} == {0, 1}


def test_separation_counts_what_a_threshold_keeping_99_percent_of_tiles_leaves_out():
    tiles = np.linspace(0.5, 1.0, 100)  # the threshold keeping 99 of them: 0.505
    others = np.array([0.1, 0.2, 0.3, 0.504, 0.6])
    found = separation(np.concatenate([tiles, others]), np.arange(105) < 100)
    assert found["tiles_kept"] == 99 and found["not_tiles_left_out"] == 4
    assert found["auc"] == pytest.approx(1 - 21 / 500)  # 0.6 ranks above 20 tiles, 0.504 above 1


def test_a_perfect_score_has_an_auc_of_one():
    scores = np.array([0.9, 0.8, 0.1, 0.2])
    assert separation(scores, np.array([True, True, False, False]))["auc"] == 1.0
