"""The PNGs of `dominocam eval`, drawn with OpenCV from hand-made results."""

from __future__ import annotations

import cv2
import numpy as np
from train_factories import make_scene

from dominotrain.evaluate import Failure, Prediction, SetResult
from dominotrain.plots import draw_confusion, write_plots


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
    written = write_plots({"synthetic": result}, tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names == ["confusion_synthetic.png", "failures_synthetic.png", "misreads_synthetic.png"]
    for p in written:
        assert cv2.imread(str(p)) is not None
