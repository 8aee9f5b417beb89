"""The committed detector rebuilt as a trainable checkpoint (dominotrain.from_onnx).

Needs the `train` extra (ultralytics, torch): skipped without it; `make test-slow` runs it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.train

MODELS = Path(__file__).resolve().parents[2] / "models"
ASSETS = Path(__file__).resolve().parents[1] / "assets"


@pytest.fixture(scope="module")
def from_onnx():
    for module in ("ultralytics", "torch", "onnx"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the train extra)")
    from dominotrain import from_onnx as module
    from dominotrain.offline import setup

    setup()
    return module


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    """Pictures for the BatchNorm statistics: the committed test pictures."""
    folder = tmp_path_factory.mktemp("pictures")
    found = sorted(p for p in ASSETS.rglob("*") if p.suffix.lower() in (".jpg", ".png"))
    if len(found) < 2:
        pytest.skip("no committed pictures under tests/assets")
    for index, picture in enumerate(found[:8]):
        (folder / f"{index}{picture.suffix}").write_bytes(picture.read_bytes())
    return folder


def test_the_rebuilt_detector_gives_the_onnx_output(from_onnx, pictures, tmp_path):
    result = from_onnx.recover(
        MODELS / "detector.onnx", "yolov8n-obb.yaml", pictures, tmp_path / "d.pt", pictures=8
    )
    assert result.checkpoint.is_file()
    # float32 through ~60 layers: agreement to a few parts in a million of the output range
    assert result.max_abs_difference <= 1e-4 * result.output_scale


def test_training_mode_keeps_what_the_model_learnt(from_onnx, pictures, tmp_path):
    """The BatchNorms carry the convolutions' own statistics, so normalising a batch by its
    own statistics (train mode) changes the output little; with mean 0 and variance 1 it
    would not."""
    import torch

    result = from_onnx.recover(
        MODELS / "detector.onnx", "yolov8n-obb.yaml", pictures, tmp_path / "d.pt", pictures=8
    )
    network = torch.load(result.checkpoint, map_location="cpu", weights_only=False)["model"]
    files = from_onnx.training_pictures(pictures, 8)
    batch = np.stack([from_onnx.network_input(p, 640) for p in files])
    evaluated = from_onnx.network_output(network, batch)
    network.train()
    with torch.no_grad():
        network.model[-1].training = False  # the head's decoded output, as in eval
        trained_mode = network(torch.from_numpy(batch))
    trained_mode = trained_mode[0] if isinstance(trained_mode, (tuple, list)) else trained_mode
    scores_eval = evaluated[:, 4:6].max(axis=1)
    scores_train = trained_mode.numpy()[:, 4:6].max(axis=1)
    # the strongest detections stay where they were, at about the same score
    assert np.abs(scores_eval.max(axis=1) - scores_train.max(axis=1)).max() < 0.15


def test_a_wrong_architecture_is_refused(from_onnx, pictures, tmp_path):
    from dominocam.errors import UserInputError

    with pytest.raises(UserInputError, match="no place in the network"):
        from_onnx.recover(
            MODELS / "detector.onnx", "yolov8s-obb.yaml", pictures, tmp_path / "d.pt", pictures=2
        )


def test_the_rebuilt_reader_gives_the_onnx_output(from_onnx, pictures, tmp_path):
    result = from_onnx.recover(
        MODELS / "reader.onnx",
        str(MODELS / "dominotrain" / "yolov8-cls-narrow.yaml"),
        pictures,
        tmp_path / "r.pt",
        pictures=8,
    )
    # softmax probabilities: the same to float32 precision
    assert result.max_abs_difference < 1e-4
