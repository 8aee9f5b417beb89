"""dominocam.vision.overlaps: of the boxes NMS keeps, the most confident set that does not
overlap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from vision_factories import tile_corners

from dominocam.vision import geometry, overlaps


def _scores(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64)


def test_a_box_straddling_two_touching_tiles_goes_even_when_it_is_the_most_confident():
    # Tiles A and B end to end; S spans the right half of A and the left half of B.
    boxes = np.stack([tile_corners(100, 100), tile_corners(180, 100), tile_corners(140, 100)])
    assert overlaps.keep_apart(boxes, _scores(0.9, 0.8, 0.95)).tolist() == [0, 1]


def test_a_line_of_tiles_beats_the_boxes_straddling_them():
    # Tiles at 20, 100, 180 and the two straddlers between them, each straddler more
    # confident than the tile it half covers on one side.
    boxes = np.stack([tile_corners(x, 100) for x in (20, 100, 180, 60, 140)])
    assert overlaps.keep_apart(boxes, _scores(0.6, 0.5, 0.6, 0.7, 0.7)).tolist() == [0, 1, 2]


def test_a_weak_box_around_several_tiles_goes_and_the_tiles_stay():
    # Four tiles found with confidence, and one weak box drawn around all of them (a real
    # photo of six loose tiles gave this, DomiBot 20230412_194615).
    tiles = [tile_corners(x, y) for x in (100, 200) for y in (100, 160)]
    around = tile_corners(150, 130, length=260)
    boxes = np.stack([*tiles, around])
    kept = overlaps.keep_apart(boxes, _scores(0.95, 0.93, 0.97, 0.96, 0.27))
    assert kept.tolist() == [0, 1, 2, 3]


def test_of_two_boxes_on_one_tile_the_better_stays():
    boxes = np.stack([tile_corners(100, 100), tile_corners(101, 100.5, 0.02)])
    assert overlaps.keep_apart(boxes, _scores(0.6, 0.9)).tolist() == [1]


@pytest.mark.parametrize("angle", [0.0, 0.4, math.pi / 2, 2.5])
def test_touching_tiles_and_a_slightly_overlapping_one_are_all_kept(angle):
    # Two tiles side by side along their long edges, one lying a fifth over the second
    # (a loose boneyard pile), and a loose tile far away.
    step = np.array([-math.sin(angle), math.cos(angle)])
    centres = [np.array([200.0, 200.0]) + k * step for k in (0.0, 40.0, 72.0)]
    boxes = np.stack([*(tile_corners(*c, angle) for c in centres), tile_corners(500, 400)])
    kept = overlaps.keep_apart(boxes, _scores(0.5, 0.9, 0.7, 0.8))
    assert kept.tolist() == [0, 1, 2, 3]


def test_a_tile_half_under_another_is_given_up():
    # The documented limit: a tile lying half under another conflicts with it like a straddler.
    boxes = np.stack([tile_corners(100, 100), tile_corners(140, 100)])
    assert overlaps.keep_apart(boxes, _scores(0.9, 0.8)).tolist() == [0]


def test_no_boxes_and_one_box():
    assert overlaps.keep_apart(np.zeros((0, 4, 2)), _scores()).tolist() == []
    assert overlaps.keep_apart(tile_corners(0, 0)[None], _scores(0.4)).tolist() == [0]


def test_overlap_shares_of_a_half_inside_its_tile():
    # The tile is 80x40; its left half the 40x40 square centred at (80, 100).
    half = geometry.order_corners(geometry.xywhr_to_corners(np.array([80, 100, 40, 40, 0.0])))
    share = overlaps.overlap_shares(np.stack([tile_corners(100, 100), half]))
    assert share[1, 0] == pytest.approx(1.0)
    assert share[0, 1] == pytest.approx(0.5)
    assert share[0, 0] == share[1, 1] == 0.0


def test_far_apart_boxes_share_nothing():
    share = overlaps.overlap_shares(np.stack([tile_corners(0, 0), tile_corners(500, 0)]))
    assert not share.any()


def _brute_force_best(conflicts: np.ndarray, weights: np.ndarray) -> float:
    n, best = len(weights), 0.0
    for chosen in itertools.product((False, True), repeat=n):
        idx = np.flatnonzero(chosen)
        if not conflicts[np.ix_(idx, idx)].any():
            best = max(best, float(weights[idx].sum()))
    return best


def _random_graph(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    upper = np.triu(rng.random((n, n)) < p, 1)
    return upper | upper.T


@pytest.mark.parametrize("seed", range(30))
def test_the_set_is_independent_and_as_heavy_as_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    conflicts = _random_graph(rng, n, float(rng.uniform(0.1, 0.7)))
    weights = rng.uniform(0.25, 1.0, n)
    chosen = overlaps.max_weight_independent_set(conflicts, weights)
    assert not conflicts[np.ix_(chosen, chosen)].any()
    assert weights[chosen].sum() == pytest.approx(_brute_force_best(conflicts, weights))


def test_past_the_budget_the_set_is_still_independent():
    rng = np.random.default_rng(1)
    conflicts = _random_graph(rng, 40, 0.3)
    weights = rng.uniform(0.25, 1.0, 40)
    chosen = overlaps.max_weight_independent_set(conflicts, weights, budget=0)
    assert len(chosen) > 0
    assert not conflicts[np.ix_(chosen, chosen)].any()


def test_a_long_line_is_solved_exactly_within_the_budget():
    # A line of 200 tiles with a straddler between each pair: a path of 399 boxes, whose best
    # set a dynamic programme over the path gives.
    n = 399
    conflicts = np.zeros((n, n), dtype=bool)
    conflicts[np.arange(n - 1), np.arange(1, n)] = True
    conflicts |= conflicts.T
    weights = np.random.default_rng(0).uniform(0.25, 1.0, n)
    best = [0.0, float(weights[0])]  # best[i + 1]: the best total of boxes 0..i
    for w in weights[1:]:
        best.append(max(best[-1], best[-2] + float(w)))
    chosen = overlaps.max_weight_independent_set(conflicts, weights, budget=2000)
    assert not conflicts[np.ix_(chosen, chosen)].any()
    assert weights[chosen].sum() == pytest.approx(best[-1])
