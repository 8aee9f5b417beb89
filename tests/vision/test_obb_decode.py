"""Decoding a hand-built raw OBB output, and the Detector through onnxruntime."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision import geometry
from dominocam.vision.detector import Detection, Detector, decode_obb_output


def _raw(columns: list[list[float]]) -> np.ndarray:
    """Columns of (cx, cy, w, h, score_up, score_down, angle) -> (1, 7, A)."""
    return np.array(columns, dtype=np.float32).T[None]


def test_decode_threshold_nms_and_order():
    raw = _raw(
        [
            [100, 100, 80, 40, 0.9, 0.01, 0.2],  # tile A
            [101, 100, 80, 40, 0.7, 0.02, 0.21],  # duplicate of A
            [300, 100, 80, 40, 0.02, 0.8, 2.0],  # tile B, face down, angle past pi/2
            [500, 500, 30, 30, 0.1, 0.2, 0.0],  # below threshold
        ]
    )
    boxes, scores, classes = decode_obb_output(raw, 2, 0.25, 0.7)
    assert scores.tolist() == pytest.approx([0.9, 0.8])
    assert classes.tolist() == [0, 1]
    assert np.allclose(boxes[0], [100, 100, 80, 40, 0.2], atol=1e-5)
    # 2.0 rad >= pi/2: regularised to w/h swapped and angle 2.0 - pi/2.
    assert np.allclose(boxes[1], [300, 100, 40, 80, 2.0 - math.pi / 2], atol=1e-5)


def test_decode_class_aware_keeps_up_and_down_on_one_spot_agnostic_does_not():
    raw = _raw([[100, 100, 80, 40, 0.9, 0.0, 0.0], [100, 100, 80, 40, 0.0, 0.6, 0.0]])
    assert len(decode_obb_output(raw, 2, agnostic=True)[1]) == 1
    assert len(decode_obb_output(raw, 2, agnostic=False)[1]) == 2


def test_decode_touching_line_of_tiles_stays_separate():
    cols = [[40 + 80 * k, 100, 80, 40, 0.9 - 0.05 * k, 0.0, 0.0] for k in range(6)]
    boxes, _, _ = decode_obb_output(_raw(cols), 2, 0.25, 0.7)
    assert sorted(boxes[:, 0].round().tolist()) == [40, 120, 200, 280, 360, 440]


def test_decode_empty_and_max_det():
    raw = _raw([[10, 10, 5, 5, 0.1, 0.1, 0.0]])
    boxes, scores, classes = decode_obb_output(raw, 2)
    assert boxes.shape == (0, 5) and scores.shape == (0,) and classes.shape == (0,)
    many = _raw([[20 * k, 0, 10, 5, 0.9, 0, 0] for k in range(50)])
    assert len(decode_obb_output(many, 2, max_det=7)[1]) == 7


def test_decode_rejects_wrong_shape():
    with pytest.raises(ValueError, match="raw OBB output"):
        decode_obb_output(np.zeros((1, 6, 10)), 2)


def test_detection_validates_and_maps_face():
    d = Detection(np.zeros((4, 2)), 0.5, 1, "tile_down")
    assert d.face == "down"
    assert Detection(np.zeros((4, 2)), 0.5, 2, "hand").face is None
    with pytest.raises(ValueError):
        Detection(np.zeros((3, 2)), 0.5, 0, "tile_up")


# ---------------------------------------------------------------------------- via onnxruntime


def test_detector_maps_boxes_back_to_the_image(painted_table, double_models):
    detector = Detector(double_models / "detector.onnx", threads=1)
    assert detector.names == {0: "tile_up", 1: "tile_down"}
    assert detector.imgsz == (160, 160) and detector.stride == 32
    found = detector.detect(painted_table.image)
    assert len(found) == len(painted_table.boxes)  # duplicates suppressed
    truth = painted_table.corners
    for det in found:
        match = np.argmin([np.abs(det.corners.mean(0) - t.mean(0)).sum() for t in truth])
        expected = truth[match]
        # Same rectangle within a pixel (the letterbox scale is 0.5 here).
        same = min(np.abs(det.corners - np.roll(expected, k, axis=0)).max() for k in range(4))
        assert same < 1.0
        assert det.face == ("down" if painted_table.halves[match] is None else "up")
        assert geometry.polygon_area(det.corners) > 0
        assert np.linalg.norm(det.corners[1] - det.corners[0]) < np.linalg.norm(
            det.corners[2] - det.corners[1]
        )


def test_detector_timings_and_preprocess(painted_table, double_models):
    detector = Detector(double_models / "detector.onnx", threads=1)
    timings: dict[str, float] = {}
    detector.detect(painted_table.image, timings)
    assert set(timings) == {"preprocess", "forward", "postprocess"}
    tensor, transform = detector.preprocess(painted_table.image)
    assert tensor.shape == (1, 3, 160, 160) and tensor.dtype == np.float32
    assert tensor.min() >= 0.0 and tensor.max() <= 1.0
    assert transform.pad_y == 20 and transform.pad_x == 0
    # Padding is 114/255 and the channels are RGB (the felt is BGR (40, 90, 30)).
    assert tensor[0, :, 0, 0] == pytest.approx([114 / 255] * 3, abs=1e-6)
    assert tensor[0, :, 80, 2] == pytest.approx([30 / 255, 90 / 255, 40 / 255], abs=0.02)


def test_detector_rejects_a_non_tile_model(tmp_path: Path):
    from standin import raw_from_boxes, write_detector

    path = write_detector(
        tmp_path / "d.onnx", raw_from_boxes(np.zeros((0, 5)), [], []), names={0: "car", 1: "dog"}
    )
    with pytest.raises(UserInputError, match="tile_up"):
        Detector(path)


def test_detector_unreadable_file_is_a_user_error(tmp_path: Path):
    bad = tmp_path / "detector.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(UserInputError, match="cannot load ONNX model"):
        Detector(bad)


@pytest.mark.parametrize("max_upscale, scale", [(None, 4.0), (2.0, 2.0), (1.0, 1.0)])
def test_detector_enlarges_a_small_picture_at_most_max_upscale(double_models, max_upscale, scale):
    detector = Detector(double_models / "detector.onnx", threads=1, max_upscale=max_upscale)
    tensor, transform = detector.preprocess(np.full((40, 40, 3), 200, np.uint8))
    assert tensor.shape == (1, 3, 160, 160)
    assert transform.scale_x == pytest.approx(scale)
    assert transform.pad_x == (160 - round(40 * scale)) // 2
