"""Which detector nodes `dominotrain.quantize` leaves in float, on a graph named as an
ultralytics OBB export names its nodes (no torch needed: the graph is built with onnx)."""

from __future__ import annotations

import onnx
import pytest
from onnx import helper

from dominotrain.quantize import KEEP_FLOAT, float_nodes

NODES = [
    ("/model.0/conv/Conv", "Conv"),
    ("/model.0/act/Sigmoid", "Sigmoid"),
    ("/model.1/conv/Conv", "Conv"),
    ("/model.22/cv2.0/cv2.0.0/conv/Conv", "Conv"),
    ("/model.22/cv2.0/cv2.0.2/Conv", "Conv"),
    ("/model.22/cv3.1/cv3.1.2/Conv", "Conv"),
    ("/model.22/cv4.2/cv4.2.1/conv/Conv", "Conv"),
    ("/model.22/cv4.2/cv4.2.2/Conv", "Conv"),
    ("/model.22/Concat", "Concat"),
    ("/model.22/dfl/conv/Conv", "Conv"),
    ("/model.22/Sigmoid", "Sigmoid"),
]


def graph() -> onnx.ModelProto:
    nodes = [
        helper.make_node(op, [f"in{i}"], [f"out{i}"], name=name)
        for i, (name, op) in enumerate(NODES)
    ]
    return helper.make_model(helper.make_graph(nodes, "detector", [], []))


def test_decode_keeps_the_head_nodes_outside_its_branches_float() -> None:
    assert sorted(float_nodes(graph(), "decode")) == [
        "/model.22/Concat",
        "/model.22/Sigmoid",
        "/model.22/dfl/conv/Conv",
    ]


def test_head_also_keeps_the_first_and_each_branch_s_last_convolution_float() -> None:
    kept = set(float_nodes(graph(), "head"))
    assert kept - set(float_nodes(graph(), "decode")) == {
        "/model.0/conv/Conv",
        "/model.22/cv2.0/cv2.0.2/Conv",
        "/model.22/cv3.1/cv3.1.2/Conv",
        "/model.22/cv4.2/cv4.2.2/Conv",
    }
    # The backbone and the branches' inner convolutions are quantised.
    assert not kept & {
        "/model.1/conv/Conv",
        "/model.22/cv2.0/cv2.0.0/conv/Conv",
        "/model.22/cv4.2/cv4.2.1/conv/Conv",
    }


def test_an_unknown_choice_is_refused() -> None:
    assert KEEP_FLOAT == ("decode", "head")
    with pytest.raises(ValueError, match="keep must be one of"):
        float_nodes(graph(), "everything")
