"""The verifier's training crops: which boxes are tiles, which are not, which are left out."""

from __future__ import annotations

import numpy as np

from dominotrain.verifier_data import (
    NEGATIVE_IOU,
    PRINTED_NEGATIVES,
    picture_crops,
    polygon_iou,
    printed_negatives,
    random_negatives,
    tile_box,
)


def _truth(tiles: list[np.ndarray], distractors: list[np.ndarray] = ()) -> dict:
    return {
        "image": {"width": 400, "height": 300},
        "tiles": [
            {"corners": t.tolist(), "visible_fraction": 1.0, "cut_by_border": False} for t in tiles
        ],
        "distractors": [{"kind": "card", "corners": d.tolist()} for d in distractors],
    }


def test_polygon_iou():
    a = tile_box(np.array([100.0, 100.0]), 80, 0.0)
    assert polygon_iou(a, a) == 1.0
    assert polygon_iou(a, a + 300) == 0.0
    half = tile_box(np.array([120.0, 100.0]), 80, 0.0)  # moved a quarter of its length
    assert 0.5 < polygon_iou(a, half) < 0.7


def test_a_box_on_a_tile_is_a_tile_one_far_from_any_is_not_and_one_between_is_left_out():
    tile = tile_box(np.array([100.0, 150.0]), 80, 0.3)
    image = np.zeros((300, 400, 3), np.uint8)
    on_it = tile + 1.0
    far = tile_box(np.array([320.0, 150.0]), 80, 0.0)
    between = tile_box(
        np.array([100.0, 150.0]) + 40 * np.array([np.cos(0.3), np.sin(0.3)]), 80, 0.3
    )

    def labels(detections):
        crops = picture_crops(image, _truth([tile]), detections, np.random.default_rng(0))
        assert all(crop.shape == (64, 64, 3) for _, crop in crops)
        return [label for label, _ in crops]

    none = labels([])  # the jittered truth box, and random boxes off the tile
    assert none.count("tile") == 1 and none.count("not_tile") >= 1
    assert labels([on_it]).count("tile") == 2
    assert labels([far]).count("not_tile") == none.count("not_tile") + 1
    assert labels([between]) == none


def test_random_negatives_overlap_no_tile():
    rng = np.random.default_rng(1)
    tiles = [tile_box(np.array([x, 150.0]), 80, 0.0) for x in (60.0, 200.0, 340.0)]
    card = tile_box(np.array([200.0, 60.0]), 90, np.pi / 2)
    boxes = random_negatives(rng, _truth(tiles, [card]), tiles, 6)
    assert boxes
    for box in boxes:
        assert all(polygon_iou(box, t) <= NEGATIVE_IOU for t in tiles)


def test_printed_dominoes_are_cut_as_not_tiles_near_where_they_lie():
    tile = tile_box(np.array([100.0, 150.0]), 80, 0.0)
    printed = [tile_box(np.array([x, 60.0]), 60, np.pi / 2) for x in (160.0, 220.0, 280.0)]
    truth = _truth([tile])
    truth["printed"] = [
        {"on": "print_board", "halves": [1, 2], "corners": p.tolist(), "cut_by_border": False}
        for p in printed
    ]
    truth["printed"].append(
        {"on": "print_board", "halves": [3, 4], "corners": (printed[0] - 200).tolist(),
         "cut_by_border": True}
    )  # fmt: skip
    boxes = printed_negatives(np.random.default_rng(0), truth, PRINTED_NEGATIVES)
    assert len(boxes) == 3  # the one cut by the border is left out
    for box in boxes:
        assert max(polygon_iou(box, p) for p in printed) > 0.6
    assert len(printed_negatives(np.random.default_rng(0), truth, 2)) == 2
    image = np.zeros((300, 400, 3), np.uint8)
    without = picture_crops(image, _truth([tile]), [], np.random.default_rng(0))
    with_print = picture_crops(image, truth, [], np.random.default_rng(0))
    labels = [label for label, _ in with_print]
    assert labels.count("not_tile") == [label for label, _ in without].count("not_tile") + 3
