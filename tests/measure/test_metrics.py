"""Metric functions of `dominocam eval` on hand-made cases (no torch, no models)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dominocam.measure.metrics import (
    Rate,
    assign_reads,
    boxes_match,
    confusion_matrix,
    covers,
    halves_correct,
    length_group,
    length_groups,
    linear_assignment,
    match_boxes,
    multiset_hits,
    paired_halves,
    point_in_convex,
    polygon_iou,
    tile_key,
    wilson,
)


def box(cx: float, cy: float, w: float, h: float, angle_deg: float = 0.0) -> np.ndarray:
    a = np.deg2rad(angle_deg)
    u, v = np.array([np.cos(a), np.sin(a)]) * w / 2, np.array([-np.sin(a), np.cos(a)]) * h / 2
    c = np.array([cx, cy])
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),  # textbook values of the Wilson score interval
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (97, 100, 0.9155, 0.9897),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_known_values(k, n, low, high):
    lo, hi = wilson(k, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_contains_the_estimate_and_narrows_with_n():
    for n in (5, 50, 500):
        lo, hi = wilson(n // 2, n)
        assert lo <= (n // 2) / n <= hi
    assert np.diff(wilson(500, 1000)) < np.diff(wilson(5, 10))


@pytest.mark.parametrize(("k", "n"), [(1, 0), (-1, 3), (4, 3)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError):
        wilson(k, n)


def test_rate_json_and_text():
    rate = Rate(97, 100)
    assert rate.to_dict()["value"] == 0.97
    assert rate.to_dict()["low"] == pytest.approx(0.9155, abs=1e-4)
    assert "(97/100)" in str(rate)
    assert Rate(0, 0).to_dict() == {"value": None, "k": 0, "n": 0, "low": None, "high": None}
    assert (Rate(1, 2) + Rate(3, 4)) == Rate(4, 6)
    with pytest.raises(ValueError):
        Rate(3, 2)


@pytest.mark.parametrize("angle", [0, 30, 90, 135, 200, 290])
def test_polygon_iou_identical_and_disjoint_at_any_angle(angle):
    a = box(50, 50, 40, 20, angle)
    assert polygon_iou(a, a) == pytest.approx(1.0)
    assert polygon_iou(a, a[::-1]) == pytest.approx(1.0)  # corner order does not matter
    assert polygon_iou(a, box(200, 50, 40, 20, angle)) == 0.0


def test_polygon_iou_half_shift_and_cross():
    a = box(0, 0, 4, 2)
    assert polygon_iou(a, box(2, 0, 4, 2)) == pytest.approx(1 / 3)  # 4 / (8 + 8 - 4)
    # the same rectangle turned 90 degrees: 2x2 overlap, union 8 + 8 - 4
    assert polygon_iou(a, box(0, 0, 4, 2, 90)) == pytest.approx(4 / 12)


def test_point_in_convex():
    a = box(0, 0, 4, 2, 45)
    assert point_in_convex((0, 0), a)
    assert not point_in_convex((3, 0), a)


def test_boxes_match_by_centre_when_iou_is_low():
    label = box(100, 100, 40, 20)
    thin = box(100, 100, 40, 6)  # IoU 0.3 but the same tile
    ok, iou = boxes_match(label, thin)
    assert ok and iou < 0.5
    ok, _ = boxes_match(label, box(130, 100, 40, 20))
    assert not ok


def test_match_boxes_one_to_one_and_ignore():
    labels = [box(0, 0, 40, 20), box(100, 0, 40, 20)]
    preds = [box(101, 1, 40, 20), box(1, 0, 40, 20), box(2, 1, 40, 20), box(300, 0, 40, 20)]
    m = match_boxes(labels, preds)
    assert [(i, j) for i, j, _ in m.pairs] == [(0, 1), (1, 0)]
    assert m.missed == []
    assert m.extra == [2, 3]  # a duplicate of tile 0 and a box on nothing
    m = match_boxes(labels, preds, ignore=[box(300, 0, 40, 20)])
    assert m.extra == [2]
    m = match_boxes(labels, [])
    assert m.missed == [0, 1] and m.pairs == []


@pytest.mark.parametrize(
    ("label", "read", "expected"),
    [
        ((5, 10), (5, 10), 2),
        ((5, 10), (10, 5), 2),
        ((5, 10), (5, 9), 1),
        ((5, 10), (9, 5), 1),
        ((3, 3), (3, 4), 1),
        ((3, 3), (4, 4), 0),
        ((5, 10), None, 0),
    ],
)
def test_halves_correct(label, read, expected):
    assert halves_correct(label, read) == expected


def test_paired_halves_follow_the_better_pairing():
    assert paired_halves((5, 10), (10, 4)) == [(5, 4), (10, 10)]
    assert paired_halves((2, 7), (2, 7)) == [(2, 2), (7, 7)]


def test_tile_key_and_multiset_hits():
    assert tile_key([9, 2]) == (2, 9)
    assert multiset_hits([(6, 6), (6, 6), (1, 2)], [(6, 6), (2, 1), (3, 4)]) == 2


def test_linear_assignment_matches_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(200):
        r, c = (int(v) for v in rng.integers(1, 6, 2))
        score = rng.integers(0, 5, (r, c)).astype(float)
        pairs = linear_assignment(score)
        assert len(pairs) == min(r, c)
        assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
        total = sum(score[i, j] for i, j in pairs)
        if r <= c:
            best = max(
                sum(score[i, p[i]] for i in range(r)) for p in itertools.permutations(range(c), r)
            )
        else:
            best = max(
                sum(score[p[j], j] for j in range(c)) for p in itertools.permutations(range(r), c)
            )
        assert total == best
    assert linear_assignment(np.zeros((0, 3))) == []


def test_assign_reads_prefers_exact_tiles_then_halves():
    labels = [(1, 2), (1, 3)]
    reads = [(1, 3), (1, 4)]
    pairs = assign_reads(labels, reads)
    # (1,3)->(1,3) exact; (1,2)->(1,4) one half: 3 halves of 4
    assert sorted(pairs) == [(0, 1, 1), (1, 0, 2)]
    assert assign_reads(labels, []) == []


def test_confusion_matrix_counts_and_ignores_out_of_range():
    m = confusion_matrix([(1, 1), (1, 2), (12, 12), (13, 0)])
    assert m.shape == (13, 13)
    assert m[1, 1] == 1 and m[1, 2] == 1 and m[12, 12] == 1 and m.sum() == 3


@pytest.mark.parametrize(
    "length, group",
    [(0, "<30"), (29.9, "<30"), (30, "30-40"), (59.5, "40-60"), (119.9, "80-120"), (500, ">=120")],
)
def test_length_group_edges(length, group):
    assert length_group(length) == group
    assert group in length_groups()


def test_length_groups_run_from_short_to_long():
    assert length_groups((10, 20)) == ["<10", "10-20", ">=20"]
    assert length_group(15, (10, 20)) == "10-20"


def test_covers_counts_each_tile_of_the_truth():
    assert covers([(1, 2), (6, 6), (6, 6)], [(6, 6), (1, 2)])
    assert not covers([(6, 6), (1, 2)], [(6, 6), (6, 6)])  # the double is needed twice
    assert covers([(3, 4)], [])
