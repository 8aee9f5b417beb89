"""Tiny ONNX graphs standing in for the trained MODELS (never for the runtime code), for the
tests (`from standin import ...`: tests/helpers is on pytest's path) and the study
`python -m studies.overhead`. Not part of the product: needs `onnx` (dev extra).

* `write_detector`: an OBB "detector" whose output is a fixed raw tensor
  `[1, 4 + nc + 1, A]` (plus 0 x the input, so the input is really consumed), with the
  metadata an ultralytics export carries.
* `write_reader`: a real, tiny classifier: softmax of a linear function of each crop's mean
  colour, so a half painted red level `value_level(v)` reads as v. It checks the crop
  pipeline (rectification, half order, RGB channel order, batching) end to end.
* `write_verifier`: a tile-or-not classifier: a crop is a tile when its mean red is high.
* `raw_from_boxes`: the raw output tensor for given boxes in network-input pixels.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def _save(graph: onnx.GraphProto, path: Path, meta: dict[str, str]) -> Path:
    model = helper.make_model(graph, opset_imports=OPSET)
    model.ir_version = 8
    for key, value in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path


def raw_from_boxes(
    boxes: np.ndarray,
    classes: np.ndarray,
    scores: np.ndarray,
    num_classes: int = 2,
    anchors: int = 200,
    seed: int = 0,
) -> np.ndarray:
    """A raw OBB output (1, 4 + nc + 1, anchors) with the given boxes and low-score noise.

    Args:
        boxes: (N, 5) cx, cy, w, h, angle (radians) in network-input pixels.
        classes: (N,) class index per box.
        scores: (N,) score per box.
    """
    rng = np.random.default_rng(seed)
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 5)
    raw = np.zeros((4 + num_classes + 1, anchors), dtype=np.float32)
    # Background anchors: random boxes with scores below any sane threshold.
    raw[0:2] = rng.uniform(0, 100, size=(2, anchors))
    raw[2:4] = rng.uniform(5, 40, size=(2, anchors))
    raw[4 : 4 + num_classes] = rng.uniform(0, 0.05, size=(num_classes, anchors))
    raw[-1] = rng.uniform(-np.pi / 4, 3 * np.pi / 4, size=anchors)
    if len(boxes) > anchors:
        raise ValueError("more boxes than anchors")
    for k, (box, cls, score) in enumerate(zip(boxes, classes, scores, strict=True)):
        raw[0:4, k] = box[:4]
        raw[-1, k] = box[4]
        raw[4 : 4 + num_classes, k] = 0.01
        raw[4 + int(cls), k] = score
    return raw[None]


def write_detector(
    path: Path,
    raw: np.ndarray,
    names: dict[int, str] | None = None,
    imgsz: int = 160,
    stride: int = 32,
    *,
    dynamic: bool = False,
) -> Path:
    """An ONNX 'detector' emitting `raw` for any input of shape (1, 3, imgsz, imgsz), or
    with `dynamic` for any (1, 3, height, width), as `dominocam export` writes detectors."""
    names = names or {0: "tile_up", 1: "tile_down"}
    raw = np.asarray(raw, dtype=np.float32)
    nodes = [
        helper.make_node("ReduceSum", ["images"], ["total"], keepdims=0),
        helper.make_node("Mul", ["total", "zero"], ["nothing"]),
        helper.make_node("Add", ["raw", "nothing"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "detector_double",
        [
            helper.make_tensor_value_info(
                "images",
                TensorProto.FLOAT,
                [1, 3, "height", "width"] if dynamic else [1, 3, imgsz, imgsz],
            )
        ],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(raw.shape))],
        initializer=[
            numpy_helper.from_array(raw, "raw"),
            numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero"),
        ],
    )
    meta = {
        "names": repr(names),
        "imgsz": repr([imgsz, imgsz]),
        "stride": repr(stride),
        "task": "obb",
        "data_card": json.dumps({"name": "test double"}),
    }
    return _save(graph, path, meta)


def value_level(value: int, num_values: int = 13) -> int:
    """The red level (0..255) that the reader double reads as `value`."""
    return round((value + 0.5) / num_values * 255)


def write_reader(
    path: Path,
    side: int = 32,
    num_values: int = 13,
    *,
    dynamic_batch: bool = True,
    class_order: list[int | str] | None = None,
    levels: int | None = None,
) -> Path:
    """An ONNX classifier reading a crop's mean red level as a pip count (or a tile's back).

    logit_k = alpha * (c_k * r - c_k^2 / 2) with c_k the level of class k: the softmax peaks
    at the class whose level is nearest the crop's mean red r (input channel 0, RGB order).
    Value v has level `value_level(v, levels)`; the class "back" (`BACK_CLASS`) has the level
    of value `num_values`, so give `levels=num_values + 1` with it.
    """
    from dominocam.vision.reader import BACK_CLASS

    order = class_order or list(range(num_values))
    levels = levels or num_values
    steps = [num_values if v == BACK_CLASS else int(v) for v in order]
    centres = np.array([(v + 0.5) / levels for v in steps], dtype=np.float32)
    alpha = 4000.0
    weight = np.zeros((3, len(order)), dtype=np.float32)
    weight[0] = alpha * centres
    bias = (-alpha * centres**2 / 2).astype(np.float32)
    batch = "N" if dynamic_batch else 1
    graph = _mean_colour_classifier("reader_double", side, batch, weight, bias)
    meta = {
        "names": repr({i: str(v) for i, v in enumerate(order)}),
        "imgsz": repr([side, side]),
        "task": "classify",
    }
    return _save(graph, path, meta)


def _mean_colour_classifier(
    name: str, side: int, batch: int | str, weight: np.ndarray, bias: np.ndarray
) -> Any:
    """A graph (batch, 3, side, side) -> (batch, classes): softmax of the mean colour times
    `weight` (3, classes) plus `bias` (classes,), the shape of both classifier doubles."""
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "weight"], ["logits0"]),
        helper.make_node("Add", ["logits0", "bias"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    classes = weight.shape[1]
    return helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [batch, 3, side, side])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [batch, classes])],
        initializer=[
            numpy_helper.from_array(weight, "weight"),
            numpy_helper.from_array(bias, "bias"),
        ],
    )


def write_verifier(
    path: Path, side: int = 32, *, names: tuple[str, str] = ("not_tile", "tile")
) -> Path:
    """An ONNX tile-or-not classifier double: a crop whose mean red (RGB channel 0) is above
    one half is a tile (softmax of +-alpha * (r - 0.5)); `names` are the two classes in
    output order."""
    alpha = 40.0
    weight = np.zeros((3, 2), dtype=np.float32)
    sign = np.array([1.0 if n == "tile" else -1.0 for n in names], dtype=np.float32)
    weight[0] = alpha * sign
    bias = (-alpha * 0.5 * sign).astype(np.float32)
    graph = _mean_colour_classifier("verifier_double", side, "N", weight, bias)
    meta = {
        "names": repr(dict(enumerate(names))),
        "imgsz": repr([side, side]),
        "task": "classify",
    }
    return _save(graph, path, meta)
