"""The PNGs of `dominocam eval`, drawn with OpenCV from hand-made results."""

from __future__ import annotations

import cv2
import numpy as np
from train_factories import make_scene

from dominocam.measure.metrics import Rate
from dominocam.measure.plots import draw_by_length, draw_confusion, write_plots
from dominocam.measure.scoring import Failure, Prediction, SetResult


def test_confusion_picture():
    matrix = np.eye(13, dtype=int) * 5
    matrix[3, 8] = 2
    picture = draw_confusion(matrix, "test")
    assert picture.ndim == 3 and picture.shape[0] > 13 * 40


def test_write_plots_for_a_set(tmp_path):
    image, tiles = make_scene(np.random.default_rng(0))
    path = tmp_path / "scene.png"
    cv2.imwrite(str(path), image)
    result = SetResult("synthetic")
    result.halves = [(1, 1), (2, 3)]
    corners = tiles[0]["corners"]
    result.failures.append(
        Failure(
            "synthetic",
            str(path),
            2.0,
            ["pip total 3 (true 4)", "2-2 read as 2-3"],
            [Prediction("up", (2, 3), corners, 0.9)],
            [tiles[1]["corners"]],
        )
    )
    result.failures.append(Failure("synthetic", str(tmp_path / "gone.png"), 1.0, ["missing"]))
    result.misreads.append((str(path), corners, "2-2 read as 2-3"))
    result.add_by_length(25.0, "detection_recall", 1, 1)
    written = write_plots({"synthetic": result}, tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names == [
        "by_length_synthetic.png",
        "confusion_synthetic.png",
        "failures_synthetic.png",
        "misreads_synthetic.png",
    ]
    for p in written:
        assert cv2.imread(str(p)) is not None


def test_by_length_bars_reach_their_values():
    rates = {
        "<30": {"detection_recall": Rate(1, 4), "half_accuracy": Rate(0, 0)},
        ">=120": {"detection_recall": Rate(100, 100), "detection_precision": Rate(90, 100)},
    }
    picture = draw_by_length(rates, "test", floor=0.5, group_px=150, plot_px=300)
    assert picture.shape[1] == 50 + 2 * 150 + 20
    bottom, top = 70 + 300 - 1, 70 + 1
    recall_blue = (200, 120, 40)
    # a full bar in the second group reaches the top; the 0.25 bar of the first stays a stub
    second = picture[:, 50 + 150 + 15 + 5]
    assert (second[top] == recall_blue).all() and (second[bottom] == recall_blue).all()
    first = picture[:, 50 + 15 + 5]
    assert not (first[top + 50] == recall_blue).all()
