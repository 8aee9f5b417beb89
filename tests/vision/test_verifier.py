"""The tile-or-not stage: crops at full resolution, the ONNX classifier, and the pipeline's
use of its score."""

from __future__ import annotations

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision.verifier import CONTEXT, Verifier, verifier_crop

onnx = pytest.importorskip("onnx")
from standin import write_verifier  # noqa: E402


def _upright_box(cx: float, cy: float, length: float) -> np.ndarray:
    """corners[0]-corners[1] the top short edge, clockwise on screen."""
    w, h = length / 4, length / 2
    return np.array([[cx - w, cy - h], [cx + w, cy - h], [cx + w, cy + h], [cx - w, cy + h]])


def test_a_crop_is_square_turned_with_the_box_and_shows_some_table_around_it():
    image = np.zeros((200, 300, 3), np.uint8)
    image[20:60, 100:120] = (0, 0, 255)  # red at the end of corners[0]-corners[1]
    box = _upright_box(110, 80, 80)  # from y=40 to y=120
    crop = verifier_crop(image, box, side=32)
    assert crop.shape == (32, 32, 3)
    top, bottom = crop[:8, 12:20, 2].mean(), crop[-8:, 12:20, 2].mean()
    assert top > 150 and bottom < 20
    # The same box with its corners named from the other end: the red end is at the bottom.
    turned = verifier_crop(image, box[[2, 3, 0, 1]], side=32)
    assert turned[-8:, 12:20, 2].mean() > 150 and turned[:8, 12:20, 2].mean() < 20
    # The crop spans the box's length plus CONTEXT: the tile's width is about half of it.
    assert CONTEXT > 0


def test_beyond_the_border_a_crop_repeats_the_edge_not_a_flat_grey():
    image = np.full((100, 100, 3), 30, np.uint8)
    crop = verifier_crop(image, _upright_box(5, 50, 60), side=32)
    assert (crop == 30).all()


def test_the_verifier_scores_red_boxes_as_tiles_in_batches(tmp_path):
    path = write_verifier(tmp_path / "verifier.onnx", side=16)
    image = np.zeros((100, 300, 3), np.uint8)
    image[:, :100] = (0, 0, 250)  # red on the left third
    boxes = [_upright_box(50, 50, 40), _upright_box(250, 50, 40), _upright_box(50, 50, 30)]
    scores = Verifier(path, threads=1).scores(image, boxes)
    assert scores.shape == (3,)
    assert scores[0] > 0.99 and scores[2] > 0.99 and scores[1] < 0.01
    one_by_one = Verifier(path, threads=1, max_batch=1).scores(image, boxes)
    np.testing.assert_allclose(one_by_one, scores, atol=1e-6)
    assert Verifier(path, threads=1).scores(image, []).shape == (0,)


def test_the_class_order_of_the_model_is_read_from_its_names(tmp_path):
    path = write_verifier(tmp_path / "v.onnx", side=16, names=("tile", "not_tile"))
    image = np.zeros((60, 60, 3), np.uint8)
    image[..., 2] = 250
    assert Verifier(path, threads=1).scores(image, [_upright_box(30, 30, 40)])[0] > 0.99


def test_a_model_with_other_classes_is_refused_with_a_message(tmp_path):
    path = write_verifier(tmp_path / "v.onnx", names=("cat", "dog"))
    with pytest.raises(UserInputError, match="'tile' and 'not_tile'"):
        Verifier(path)


class _ScoresByPosition:
    """A verifier whose score of a box is set by the box's centre: boxes left of `x` are not
    tiles (0.1), the others are (0.9)."""

    def __init__(self, x: float) -> None:
        self.x = x

    def scores(self, image, corners):
        return np.array([0.01 if np.mean(c[:, 0]) < self.x else 0.9 for c in corners])


def test_the_pipeline_scores_every_box_and_leaves_out_what_is_not_a_tile(
    painted_table, double_models
):
    from dominocam.vision.pipeline import VERIFIER_THRESHOLD, load_models, read_image

    models = load_models(double_models / "detector.onnx", double_models / "reader.onnx", threads=1)
    everything = read_image(painted_table.image, models.detector, models.reader, 12, closeups=False)
    assert all(t.verifier_score is None for t in everything.tiles)  # no verifier: all kept
    models.detector.verifier = _ScoresByPosition(x=100)
    try:
        rejected: list = []
        scene = read_image(
            painted_table.image,
            models.detector,
            models.reader,
            12,
            closeups=False,
            verifier_threshold=VERIFIER_THRESHOLD,
            rejected=rejected,
        )
        kept = read_image(
            painted_table.image,
            models.detector,
            models.reader,
            12,
            closeups=False,
            verifier_threshold=None,
        )
    finally:
        models.detector.verifier = None
    left = [t for t in everything.tiles if t.center[0] < 100]
    assert left, "the painted table has tiles on its left"
    assert len(scene.tiles) == len(everything.tiles) - len(left)
    assert len(rejected) == len(left)
    assert all(d.verifier_score < VERIFIER_THRESHOLD for d in rejected)
    assert all(t.center[0] >= 100 and t.verifier_score == 0.9 for t in scene.tiles)
    assert scene.to_dict()["tiles"][0]["verifier_score"] == 0.9
    assert len(kept.tiles) == len(everything.tiles)  # None keeps every box, scored
    assert sorted(t.verifier_score for t in kept.tiles)[0] == 0.01


def test_the_crops_of_many_boxes_are_each_box_s_crop(tmp_path):
    verifier = Verifier(write_verifier(tmp_path / "verifier.onnx", side=16), threads=1)
    rng = np.random.default_rng(5)
    image = rng.integers(0, 255, size=(120, 200, 3), dtype=np.uint8)
    boxes = [rng.uniform(-30, 230, size=(4, 2)) for _ in range(12)]
    boxes += [np.full((4, 2), 40.0), _upright_box(100, 60, 200)]  # no length; shrunk a lot
    crops = verifier.crops(image, boxes)
    for crop, box in zip(crops, boxes, strict=True):
        np.testing.assert_array_equal(crop, verifier_crop(image, box, 16))
    assert verifier.crops(image, []).shape == (0, 16, 16, 3)
