"""Reader and full pipeline through onnxruntime with tiny ONNX doubles of the models."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision.detector import Detector
from dominocam.vision.onnx_model import resolve_model_path
from dominocam.vision.pipeline import STAGES, load_models, read_image
from dominocam.vision.reader import BACK_CLASS, Reader
from dominocam.vision.scene import Scene


def test_reader_reads_each_half_in_corner_order(painted_table, double_models):
    reader = Reader(double_models / "reader.onnx", threads=1)
    assert reader.side == 32 and reader.num_values == 13 and reader.fixed_batch is None
    up = [(c, h) for c, h in zip(painted_table.corners, painted_table.halves, strict=True) if h]
    probs = reader.read(painted_table.image, [c for c, _ in up])
    assert probs.shape == (len(up), 2, 13)
    assert np.allclose(probs.sum(axis=2), 1.0)
    assert [tuple(p.argmax(axis=1)) for p in probs] == [h for _, h in up]


def test_reader_with_fixed_batch_and_shuffled_classes(painted_table, tmp_path: Path):
    from standin import write_reader

    order = [3, 0, 12, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11]
    path = write_reader(tmp_path / "r.onnx", side=32, dynamic_batch=False, class_order=order)
    reader = Reader(path)
    assert reader.fixed_batch == 1
    probs = reader.read(painted_table.image, painted_table.corners[:2])
    assert [tuple(p.argmax(axis=1)) for p in probs] == painted_table.halves[:2]
    assert reader.read(painted_table.image, []).shape == (0, 2, 13)


def test_reader_with_a_back_class_reports_backs_apart(tmp_path: Path):
    from standin import value_level, write_reader

    # ultralytics sorts class folders as strings: 0, 1, 10, 11, 12, 2, ..., 9, back.
    order: list[int | str] = [0, 1, 10, 11, 12, *range(2, 10), BACK_CLASS]
    reader = Reader(write_reader(tmp_path / "r.onnx", class_order=order, levels=14))
    assert reader.has_back and reader.num_values == 13
    crops = np.zeros((3, 32, 32, 3), np.uint8)
    for crop, level in zip(crops, (5, 13, 12), strict=True):
        crop[..., 2] = value_level(level, 14)  # BGR: red is the last channel; 13 is the back
    reads = reader.classify_halves(crops)
    assert reads.values.shape == (3, 13) and np.allclose(reads.values.sum(axis=1), 1.0)
    assert reads.values[0].argmax() == 5 and reads.values[2].argmax() == 12
    assert reads.back[1] > 0.99 and reads.back[0] < 0.01 and reads.back[2] < 0.01
    assert np.array_equal(reader.classify(crops), reads.values)


def test_reader_without_a_back_class_sees_no_backs(painted_table, double_models):
    reader = Reader(double_models / "reader.onnx", threads=1)
    assert not reader.has_back
    reads = reader.read_halves(painted_table.image, painted_table.corners[:2])
    assert reads.back.shape == (2, 2) and not reads.back.any()
    assert np.array_equal(reads.values, reader.read(painted_table.image, painted_table.corners[:2]))


def test_read_image_counts_a_face_up_box_showing_backs_face_down(painted_table, tmp_path: Path):
    from standin import raw_from_boxes, write_detector, write_reader
    from vision_factories import DETECTOR_SIZE, READER_SIDE, paint_table, to_input_boxes

    # The painted table, but its second tile (called face up by the detector) shows a back.
    halves = [(3, 7), (13, 13), None, (5, 5), (9, 1)]
    image = paint_table(painted_table.boxes, halves, levels=14)
    boxes = to_input_boxes(painted_table.boxes, image.shape[:2], DETECTOR_SIZE)
    classes = np.array([0 if h is not None else 1 for h in halves])
    raw = raw_from_boxes(boxes, classes, painted_table.scores)
    detector = Detector(write_detector(tmp_path / "d.onnx", raw, imgsz=DETECTOR_SIZE))
    order: list[int | str] = [*range(13), BACK_CLASS]
    reader = Reader(
        write_reader(tmp_path / "r.onnx", side=READER_SIDE, class_order=order, levels=14)
    )
    scene = read_image(image, detector, reader, 12, closeups=False)
    assert scene.face_down == 2
    assert sorted(t.pips for t in scene.tiles if t.face == "up") == [(1, 9), (3, 7), (5, 5)]
    turned = [w for w in scene.warnings if "reader sees a tile's back" in w]
    assert len(turned) == 1 and "counted face down" in turned[0]


def test_read_image_end_to_end(painted_table, double_models):
    models = load_models(double_models / "detector.onnx", double_models / "reader.onnx", threads=1)
    timings: dict[str, float] = {}
    scene = read_image(
        painted_table.image, models.detector, models.reader, 12, timings=timings, closeups=False
    )
    assert set(timings) == set(STAGES)
    assert (scene.width, scene.height) == (320, 240)
    expected = sorted(tuple(sorted(h)) for h in painted_table.halves if h)
    assert sorted(t.pips for t in scene.tiles if t.face == "up") == expected
    assert scene.face_down == 1
    assert scene.pip_total == sum(a + b for a, b in expected)
    assert [t.id for t in scene.tiles] == list(range(len(scene.tiles)))
    # corners[0]-[1] bound the half showing pips[0]: re-reading in that order agrees.
    ups = [t for t in scene.tiles if t.face == "up"]
    probs = models.reader.read(painted_table.image, [t.corners for t in ups])
    assert [tuple(p.argmax(axis=1)) for p in probs] == [t.pips for t in ups]
    assert Scene.from_json(scene.to_json()).to_json() == scene.to_json()


def test_read_image_without_tiles_is_an_empty_scene(double_models, tmp_path: Path):
    from standin import raw_from_boxes, write_detector

    path = write_detector(
        tmp_path / "empty.onnx", raw_from_boxes(np.zeros((0, 5)), [], []), imgsz=64
    )
    image = np.full((100, 50, 3), 128, np.uint8)
    scene = read_image(image, Detector(path), Reader(double_models / "reader.onnx"), 12)
    assert scene.tiles == [] and scene.warnings == [] and scene.pip_total == 0


def test_read_image_warns_about_cut_tiles_and_missing_reader(double_models):
    from standin import raw_from_boxes, write_detector
    from vision_factories import paint_table, to_input_boxes

    boxes = np.array([[20, 60, 80, 40, 0.0], [150, 60, 60, 30, 0.4]])  # first crosses x = 0
    image = paint_table(boxes, [(2, 3), (4, 4)])
    lb = to_input_boxes(boxes, image.shape[:2], 160)
    path = write_detector(
        double_models.parent / "cut" / "detector.onnx",
        raw_from_boxes(lb, np.array([0, 0]), np.array([0.9, 0.9])),
    )
    detector = Detector(path)
    scene = read_image(image, detector, Reader(double_models / "reader.onnx"), 12)
    assert any("cut by the image border" in w for w in scene.warnings)
    unread = read_image(image, detector, None, 12)
    assert all(t.pips is None for t in unread.tiles)
    assert any("no reader model" in w for w in unread.warnings)


def test_read_image_adjacency_hook_is_called(painted_table, double_models):
    models = load_models(double_models / "detector.onnx", double_models / "reader.onnx")
    seen: list[int] = []

    def hook(scene: Scene) -> list:
        seen.append(len(scene.tiles))
        return []

    read_image(
        painted_table.image, models.detector, models.reader, 12, adjacency=hook, closeups=False
    )
    assert seen == [5]


def test_read_image_rejects_non_bgr(double_models, painted_table):
    models = load_models(double_models / "detector.onnx", double_models / "reader.onnx")
    with pytest.raises(ValueError, match="BGR uint8"):
        read_image(painted_table.image[..., 0], models.detector, models.reader)


def test_missing_models_say_how_to_get_them(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("DOMINOCAM_MODELS", str(tmp_path))
    with pytest.raises(UserInputError, match=r"detector model not found.*dominocam train"):
        resolve_model_path("detector")
    with pytest.raises(UserInputError, match=re.escape("--reader /no/such.onnx")):
        resolve_model_path("reader", "/no/such.onnx")
    (tmp_path / "reader.onnx").write_bytes(b"x")
    assert resolve_model_path("reader") == tmp_path / "reader.onnx"


def test_default_models_dir_is_the_repository_models_folder(monkeypatch):
    from dominocam.vision.onnx_model import default_models_dir

    monkeypatch.delenv("DOMINOCAM_MODELS", raising=False)
    assert default_models_dir() == Path(__file__).resolve().parents[2] / "models"


def test_read_image_with_a_calibration_rejects_flags_and_asks_for_review(
    painted_table, double_models
):
    # The detector's scores of the painted table are 0.95 .. 0.75; with models that are the
    # score itself and a threshold of 0.8 for "not a tile", the 0.75 box leaves the tiles.
    from dataclasses import replace

    from dominocam.vision.confidence import FEATURES, Calibration, Logistic

    identity = Logistic(FEATURES, tuple(float(f == "det") for f in FEATURES), 0.0)
    calibration = Calibration(identity, identity, 0.8, 0.9, 0.5)
    models = load_models(double_models / "detector.onnx", double_models / "reader.onnx", threads=1)
    plain = read_image(painted_table.image, models.detector, models.reader, 12, closeups=False)
    scene = read_image(
        painted_table.image,
        models.detector,
        models.reader,
        12,
        closeups=False,
        calibration=calibration,
    )
    assert len(scene.tiles) == len(plain.tiles) - 1 and len(scene.rejected) == 1
    assert scene.rejected[0].probability == pytest.approx(0.75, abs=1e-3)
    assert [t.id for t in scene.tiles] == list(range(len(scene.tiles)))
    assert all(t.probability is not None for t in scene.tiles)
    assert [t.doubtful for t in scene.tiles] == [t.confidence < 0.9 for t in scene.tiles]
    assert scene.needs_review and any("please check it" in w for w in scene.warnings)
    # The rejected box is never counted, and an unassessed reading has none of this.
    assert scene.pip_total <= plain.pip_total
    assert plain.rejected == [] and not plain.needs_review
    assert all(t.probability is None and not t.doubtful for t in plain.tiles)
    none = replace(calibration, reject_below=0.0, review_rejected=0.0, doubtful_below=0.0)
    clear = read_image(
        painted_table.image, models.detector, models.reader, 12, closeups=False, calibration=none
    )
    assert len(clear.tiles) == len(plain.tiles) and clear.rejected == []


def test_a_dynamic_shape_detector_gets_the_tight_rectangle_and_boxes_map_back(
    painted_table, tmp_path: Path
):
    from standin import raw_from_boxes, write_detector
    from vision_factories import DETECTOR_SIZE

    from dominocam.vision import geometry

    shape = painted_table.image.shape[:2]  # 240 x 320: 4:3
    rect = geometry.rect_input_shape(shape, (DETECTOR_SIZE, DETECTOR_SIZE), 32)
    assert rect == (128, 160)
    _, transform = geometry.letterbox(painted_table.image, rect)
    boxes = np.array(painted_table.boxes, dtype=float, copy=True)
    boxes[:, :2] = transform.to_input(boxes[:, :2])
    boxes[:, 2:4] *= transform.scale_x
    classes = np.array([0 if h is not None else 1 for h in painted_table.halves])
    raw = raw_from_boxes(boxes, classes, painted_table.scores)
    path = write_detector(tmp_path / "d.onnx", raw, imgsz=DETECTOR_SIZE, dynamic=True)
    detector = Detector(path)
    assert detector.rect_input
    tensor, _ = detector.preprocess(painted_table.image)
    assert tensor.shape == (1, 3, 128, 160)
    detections = detector.detect(painted_table.image)
    found = sorted(tuple(np.round(d.corners.mean(axis=0)).astype(int)) for d in detections)
    assert found == sorted(tuple(np.round(b[:2]).astype(int)) for b in painted_table.boxes)
    # A fixed-input detector keeps the whole square.
    square = Detector(write_detector(tmp_path / "s.onnx", raw, imgsz=DETECTOR_SIZE))
    assert not square.rect_input
    assert square.preprocess(painted_table.image)[0].shape == (1, 3, DETECTOR_SIZE, DETECTOR_SIZE)
