"""How `dominocam eval` scores photos and crops, on hand-made predictions (no models)."""

from __future__ import annotations

import numpy as np

from dominocam.measure.evaluate import format_table
from dominocam.measure.scoring import (
    Prediction,
    SetResult,
    score_boxed_image,
    score_scene_photo,
    score_tile_crop,
)
from dominocam.measure.truth import synthetic_truth


def box(cx, cy, w=40.0, h=20.0):
    return np.array(
        [
            [cx - w / 2, cy - h / 2],
            [cx + w / 2, cy - h / 2],
            [cx + w / 2, cy + h / 2],
            [cx - w / 2, cy + h / 2],
        ]
    )


def up(pips, cx=0.0, conf=0.9):
    return Prediction("up", tuple(sorted(pips)) if pips else None, box(cx, 0), conf)


def down(cx=0.0):
    return Prediction("down", None, box(cx, 0), 0.9)


def counts(result):
    return {m: (r.k, r.n) for m, r in result.metrics().items()}


def test_boxed_image_all_right():
    truth = [
        {"face": "up", "pips": (5, 10), "corners": box(0, 0)},
        {"face": "down", "pips": None, "corners": box(100, 0)},
    ]
    result = SetResult("synthetic")
    score_boxed_image(result, "a.jpg", truth, [up((10, 5), 1), down(101)])
    c = counts(result)
    assert c["detection_recall"] == (2, 2) and c["detection_precision"] == (2, 2)
    assert c["half_accuracy"] == (2, 2) and c["tile_accuracy"] == (1, 1)
    assert c["pip_total"] == (1, 1) and c["face_down_count"] == (1, 1)
    assert result.failures == []
    assert sorted(result.halves) == [(5, 5), (10, 10)]


def test_boxed_image_misread_missed_and_extra():
    truth = [
        {"face": "up", "pips": (5, 10), "corners": box(0, 0)},
        {"face": "up", "pips": (1, 1), "corners": box(100, 0)},
        {"face": "up", "pips": (2, 3), "corners": box(200, 0)},
    ]
    preds = [up((5, 11), 0), down(100), up((4, 4), 400)]
    result = SetResult("synthetic")
    score_boxed_image(result, "b.jpg", truth, preds)
    c = counts(result)
    assert c["detection_recall"] == (2, 3)
    assert c["detection_precision"] == (2, 3)
    assert c["face_accuracy"] == (1, 2)
    # tile 0: one half right; tile 1 found face down: both halves wrong; tile 2 missed
    assert c["half_accuracy"] == (1, 4)
    assert c["tile_accuracy"] == (0, 2)
    assert c["tile_accuracy_end_to_end"] == (0, 3)
    assert c["pip_total"] == (0, 1)
    assert c["face_down_count"] == (0, 1)
    (failure,) = result.failures
    assert failure.severity >= 4 and len(failure.missed) == 1


def test_boxed_image_breaks_figures_down_by_tile_length():
    truth = [
        {"face": "up", "pips": (5, 10), "corners": box(0, 0, w=25, h=12)},
        {"face": "up", "pips": (1, 1), "corners": box(100, 0, w=25, h=12)},
        {"face": "up", "pips": (2, 3), "corners": box(300, 0, w=130, h=65)},
    ]
    preds = [
        Prediction("up", (5, 9), box(0, 0, w=26, h=12), 0.9),
        Prediction("up", (2, 3), box(300, 0, w=128, h=64), 0.9),
        up((4, 4), 600),  # an extra 40x20 box: precision in 40-60
    ]
    result = SetResult("synthetic")
    score_boxed_image(result, "d.jpg", truth, preds)
    by = {
        group: {m: (r.k, r.n) for m, r in rates.items()}
        for group, rates in result.length_metrics().items()
    }
    assert list(by) == ["<30", "40-60", ">=120"]
    assert by["<30"] == {
        "detection_recall": (1, 2),
        "detection_precision": (1, 1),
        "half_accuracy": (1, 2),
    }
    assert by["40-60"] == {"detection_precision": (0, 1)}
    assert by[">=120"]["half_accuracy"] == (2, 2)
    # the groups add up to the whole
    for metric in ("detection_recall", "detection_precision", "half_accuracy"):
        k = sum(rates[metric][0] for rates in by.values() if metric in rates)
        n = sum(rates[metric][1] for rates in by.values() if metric in rates)
        assert (k, n) == counts(result)[metric]
    groups = result.to_dict()["by_tile_length"]
    assert groups["<30"]["detection_recall"]["k"] == 1
    assert "<30" in format_table({"synthetic": result})


def test_boxed_image_ignores_cut_tiles_and_skips_photo_totals():
    truth = [{"face": "up", "pips": (1, 2), "corners": box(0, 0), "readable": True}]
    result = SetResult("synthetic")
    score_boxed_image(
        result, "c.jpg", truth, [up((1, 2), 0), up((6, 6), 300)], ignore=[box(300, 0)]
    )
    c = counts(result)
    assert c["detection_precision"] == (1, 1)  # the box on the cut tile is no false positive
    assert "pip_total" not in c


def test_synthetic_truth_reads_generator_fields(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(
        '{"set": 12, "tiles": ['
        '{"face": "up", "pips": [3, 9], "corners": [[0,0],[1,0],[1,2],[0,2]],'
        ' "visible_fraction": 1.0, "cut_by_border": false},'
        '{"face": "up", "pips": [1, 2], "corners": [[0,0],[1,0],[1,2],[0,2]],'
        ' "visible_fraction": 0.8, "cut_by_border": false},'
        '{"face": "down", "pips": null, "corners": [[0,0],[1,0],[1,2],[0,2]],'
        ' "visible_fraction": 0.3, "cut_by_border": false},'
        '{"face": "up", "pips": [0, 0], "corners": [[0,0],[1,0],[1,2],[0,2]],'
        ' "visible_fraction": 1.0, "cut_by_border": true}]}'
    )
    tiles, ignore, set_max, photo = synthetic_truth(path)
    assert set_max == 12
    assert photo == (False, False)  # a cut face-up tile, a hidden face-down one
    assert [(t["pips"], t["readable"]) for t in tiles] == [((3, 9), True), ((1, 2), False)]
    assert len(ignore) == 2


def test_scene_photo_by_counts_and_identities():
    label = {"face_up": [[0, 6], [6, 6], [2, 3]], "face_down": 1, "excluded": []}
    preds = [up((0, 6)), up((6, 6)), up((2, 4)), down(), up((1, 1))]
    result = SetResult("realval_scenes")
    score_scene_photo(result, "s.jpg", label, preds)
    c = counts(result)
    assert c["detection_recall"] == (4, 4)
    assert c["detection_precision"] == (4, 5)
    assert c["tile_accuracy"] == (2, 3)
    assert c["half_accuracy"] == (5, 6)
    assert c["tile_accuracy_end_to_end"] == (2, 3)
    assert c["pip_total"] == (0, 1)
    assert c["face_down_count"] == (1, 1)
    assert any("extra reads: 1-1" in line for line in result.failures[0].lines)


def test_scene_photo_missing_tiles():
    label = {"face_up": [[1, 2], [3, 4]], "face_down": 0}
    result = SetResult("realval_scenes")
    score_scene_photo(result, "s.jpg", label, [up((1, 2))])
    c = counts(result)
    assert c["detection_recall"] == (1, 2) and c["detection_precision"] == (1, 1)
    assert c["half_accuracy"] == (2, 2)  # over the read tiles
    assert c["tile_accuracy_end_to_end"] == (1, 2)


def test_scene_photo_open_ends_only_where_lines_are_labelled():
    lines = [
        {"tiles": [[2, 3], [3, 5]], "open_ends": [2, 5]},
        {"tiles": [[1, 1]], "open_ends": [1, 1]},
    ]
    label = {"face_up": [[2, 3], [3, 5], [1, 1]], "face_down": 0, "lines": lines}
    preds = [up((2, 3)), up((3, 5)), up((1, 1))]
    right, wrong, none = (SetResult("realval_scenes") for _ in range(3))
    score_scene_photo(right, "s.jpg", label, preds, [5, 1, 2, 1])  # a multiset, any order
    score_scene_photo(wrong, "s.jpg", label, preds, [2, 5])
    score_scene_photo(none, "s.jpg", {**label, "lines": []}, preds, [2, 5])
    assert counts(right)["open_ends"] == (1, 1)
    assert counts(wrong)["open_ends"] == (0, 1)
    assert any("open ends [2, 5] (true [1, 1, 2, 5])" in x for x in wrong.failures[0].lines)
    assert "open_ends" not in counts(none)


def test_tile_crop_cases():
    result = SetResult("realval_tiles")
    score_tile_crop(result, "t1.jpg", (2, 5), [up((5, 2), conf=0.8), up((1, 1), 100, conf=0.3)])
    score_tile_crop(result, "t2.jpg", (0, 4), [])
    score_tile_crop(result, "t3.jpg", (3, 3), [up((3, 4))])
    c = counts(result)
    assert c["detection_recall"] == (2, 3)
    assert c["detection_precision"] == (2, 3)
    assert c["half_accuracy"] == (3, 4)
    assert c["tile_accuracy"] == (1, 2)
    assert c["tile_accuracy_end_to_end"] == (1, 3)
    assert len(result.failures) == 3
