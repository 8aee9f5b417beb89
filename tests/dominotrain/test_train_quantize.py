"""dominotrain.quantize: the reader's convolutions in 8 bits, run by the torch-free runtime."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dominocam.errors import UserInputError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from dominotrain.quantize import calibration_crops, quantize_reader  # noqa: E402
from vision.reader import Reader  # noqa: E402

SIDE = 16
VALUES = 13


def _conv_reader(path: Path) -> Path:
    """A tiny classifier with the reader's contract: two convolutions, pooling, a linear
    layer and a softmax, random weights, ultralytics' metadata."""
    rng = np.random.default_rng(0)
    weights = {
        "w1": rng.normal(0, 0.5, (8, 3, 3, 3)).astype(np.float32),
        "b1": rng.normal(0, 0.1, 8).astype(np.float32),
        "w2": rng.normal(0, 0.3, (8, 8, 3, 3)).astype(np.float32),
        "b2": rng.normal(0, 0.1, 8).astype(np.float32),
        "fc": rng.normal(0, 1.0, (8, VALUES)).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["images", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="first"),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="second"),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "fc"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "conv_reader",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["N", 3, SIDE, SIDE])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["N", VALUES])],
        initializer=[numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    meta = {
        "names": repr({i: str(i) for i in range(VALUES)}),
        "imgsz": repr([SIDE, SIDE]),
        "task": "classify",
    }
    for key, value in meta.items():
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(path))
    return path


def _crop_folder(root: Path, count: int = 40) -> Path:
    rng = np.random.default_rng(1)
    for i in range(count):
        folder = root / "reader" / "train" / str(i % VALUES)
        folder.mkdir(parents=True, exist_ok=True)
        crop = rng.integers(0, 256, (SIDE * 2, SIDE * 2, 3), dtype=np.uint8)
        cv2.imwrite(str(folder / f"{i:04d}.png"), crop)
    return root


def test_calibration_crops_are_drawn_from_the_reader_folder_at_the_reader_size(tmp_path):
    data = _crop_folder(tmp_path / "data")
    crops = calibration_crops(data, SIDE, count=25)
    assert crops.shape == (25, SIDE, SIDE, 3) and crops.dtype == np.uint8
    assert np.array_equal(crops, calibration_crops(data, SIDE, count=25))  # seeded


def test_a_folder_without_half_crops_is_a_clear_error(tmp_path):
    with pytest.raises(UserInputError, match="no half crops"):
        calibration_crops(tmp_path, SIDE)


def test_the_quantized_reader_reads_like_the_float_one_and_keeps_its_metadata(tmp_path):
    source = _conv_reader(tmp_path / "reader.onnx")
    crops = calibration_crops(_crop_folder(tmp_path / "data"), SIDE)
    target = tmp_path / "int8" / "reader.onnx"
    target.parent.mkdir()
    record = quantize_reader(source, target, crops, "data")

    model = onnx.load(str(target))
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["task"] == "classify" and meta["imgsz"] == repr([SIDE, SIDE])
    assert json.loads(meta["quantized"]) == record
    assert record["float"] == ["first"] and record["calibration"]["crops"] == 32  # full batches
    # The second convolution's weights are stored as int8; the first one's stay float.
    int8_weights = [t.name for t in model.graph.initializer if t.data_type == TensorProto.INT8]
    assert any("w2" in name for name in int8_weights)
    assert not any("w1" in name for name in int8_weights)

    floating, quantized = Reader(source), Reader(target)
    expected, found = floating.classify(crops), quantized.classify(crops)
    assert found.shape == expected.shape == (len(crops), VALUES)
    assert np.allclose(found.sum(axis=1), 1.0, atol=1e-4)
    assert np.abs(found - expected).max() < 0.05
    assert (found.argmax(axis=1) == expected.argmax(axis=1)).mean() >= 0.95
