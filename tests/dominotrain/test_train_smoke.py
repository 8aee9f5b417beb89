"""Training smoke test: a handful of synthetic images, one short epoch of each model, export,
then onnxruntime and the torch-free runtime load and run the exported files.

Needs the `train` extra (ultralytics, torch): skipped without it; `make test-slow` and CI run
it. About two minutes on two CPU cores.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

import dominocam.cli

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def cli():
    # find_spec, not importorskip: ultralytics must first be imported by dominotrain.offline,
    # which points its settings at the project and keeps it offline
    for module in ("ultralytics", "torch", "onnx"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the train extra)")
    saved = dominocam.cli.COMMAND_MODULES
    dominocam.cli.COMMAND_MODULES = ("dominotrain.cli",)
    yield lambda *args: dominocam.cli.main([str(a) for a in args])
    dominocam.cli.COMMAND_MODULES = saved


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Six tiny images from `dominocam synth` (in a subprocess, as a user runs it); drawn
    tiles when the generator is not usable in this checkout."""
    root = tmp_path_factory.mktemp("smoke") / "synth"
    code = (
        "import sys, dominocam.cli as c; c.COMMAND_MODULES = ('dominosynth.cli',); "
        "sys.exit(c.main(sys.argv[1:]))"
    )
    args = [
        "synth",
        "--out",
        str(root),
        "--count",
        "6",
        "--seed",
        "3",
        "--size",
        "320x240",
        "--val-fraction",
        "0.34",
        "--quiet",
    ]
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path_factory.getbasetemp(),
    )
    if done.returncode != 0:
        from train_factories import write_synth_like

        write_synth_like(root, images=8)
    return root


def test_train_export_and_run(cli, data, tmp_path_factory):
    import onnxruntime as ort

    work = tmp_path_factory.mktemp("runs")
    runs, models = work / "runs", work / "models"
    assert (
        cli(
            "train",
            "detector",
            "--data",
            data,
            "--epochs",
            1,
            "--imgsz",
            160,
            "--batch",
            4,
            "--runs-dir",
            runs,
            "--name",
            "smoke",
        )
        == 0
    )
    assert (
        cli(
            "train",
            "reader",
            "--data",
            data,
            "--epochs",
            1,
            "--imgsz",
            32,
            "--batch",
            16,
            "--runs-dir",
            runs,
            "--name",
            "smoke",
        )
        == 0
    )
    for kind in ("detector", "reader"):
        run_dir = runs / kind / "smoke"
        assert (run_dir / "weights" / "last.pt").is_file()
        assert (run_dir / "train.log").stat().st_size > 0
        record = json.loads((run_dir / "dominotrain.json").read_text())
        assert record["command"].startswith(f"dominocam train {kind}")
        assert (
            cli("export", kind, "--weights", run_dir / "weights" / "best.pt", "--out", models) == 0
        )
        assert (models / f"{kind}.onnx").is_file() and (models / f"{kind}.md").is_file()

    # a finished run is not silently retrained or resumed
    assert (
        cli("train", "reader", "--data", data, "--epochs", 1, "--runs-dir", runs, "--name", "smoke")
        == 2
    )

    detector = ort.InferenceSession(str(models / "detector.onnx"))
    meta = detector.get_modelmeta().custom_metadata_map
    assert {"names", "imgsz", "stride", "task", "data_card"} <= set(meta)
    card = json.loads(meta["data_card"])
    assert card["training_command"].startswith("dominocam train detector")
    (out,) = detector.run(None, {"images": np.zeros((1, 3, 160, 160), np.float32)})
    assert out.shape[:2] == (1, 4 + 2 + 1)
    # Height and width are dynamic: a 16:9 frame is read at 160x96, not the whole square.
    (wide,) = detector.run(None, {"images": np.zeros((1, 3, 96, 160), np.float32)})
    assert wide.shape[:2] == (1, 4 + 2 + 1) and wide.shape[2] < out.shape[2]

    reader = ort.InferenceSession(str(models / "reader.onnx"))
    name = reader.get_inputs()[0].name
    (probs,) = reader.run(None, {name: np.random.rand(80, 3, 32, 32).astype(np.float32)})
    assert probs.shape == (80, 14)  # pip counts 0..12 and the back of a face-down tile
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-4)

    # and the torch-free runtime reads a picture with them (no accuracy asked of one epoch)
    from dominocam.vision.pipeline import load_models, read_image

    loaded = load_models(models / "detector.onnx", models / "reader.onnx")
    assert loaded.reader.has_back
    scene = read_image(np.full((240, 320, 3), 90, np.uint8), loaded.detector, loaded.reader)
    assert scene.width == 320
