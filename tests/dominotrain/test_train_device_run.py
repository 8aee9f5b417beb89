"""`scripts/train-on-device.sh` end to end on the CPU with the tiny plan (a few small pictures,
one epoch each), in a Python that lacks what the GPU machine lacks (polars, flask, babel, ...),
then run again (every stage skipped), then `dominotrain.keep` refusing the candidates.

Needs the `train` extra (ultralytics, torch, onnx): skipped without it; `make test-slow` runs
it. A few minutes on two CPU cores; no speed is asserted.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dominocam.measure.keep_gates import KEEP_GATES
from dominotrain.device_run import CANDIDATE_FILES, REPORT, STAGES

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
# The Python packages the project uses that the GPU machine does not have (docs/training.md,
# "On a GPU machine"): an import of any of them fails, as it would there.
NOT_ON_THE_DEVICE = ("polars", "flask", "flask_babel", "babel", "segno", "platformdirs", "waitress")


@pytest.fixture(scope="module")
def device_like(train_extra, tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("device-like")
    (folder / "sitecustomize.py").write_text(
        "import sys\n"
        f"for name in {NOT_ON_THE_DEVICE!r}:\n"
        "    sys.modules[name] = None  # import fails as if not installed\n"
    )
    return {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(folder)}


def tree_hashes(folder: Path) -> dict[str, str]:
    """The models and their cards in `folder` (not the code or the README beside them)."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.suffix in {".onnx", ".json", ".md", ".pt"} and p.name != "README.md"
    }


@pytest.fixture(scope="module")
def tiny_run(device_like, train_on_device, tmp_path_factory):
    out = tmp_path_factory.mktemp("device-run") / "out"
    models_before = tree_hashes(ROOT / "models")
    done = train_on_device(out, "tiny", device_like)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out, done, models_before


def test_layout_report_and_models_untouched(tiny_run):
    import onnxruntime as ort

    out, done, models_before = tiny_run
    candidates = out / "candidates"
    assert sorted(p.name for p in candidates.iterdir()) == sorted([*CANDIDATE_FILES, REPORT])
    for stage in STAGES:
        record = json.loads((out / "stages" / f"{stage}.json").read_text())
        assert record["seconds"] >= 0 and record["settings"]["plan"] == "tiny"
        assert f"{stage}: done in" in done.stdout
    log = (out / "train-on-device.log").read_text()
    assert "all stages done" in log and "eval: start" in log
    # settings and font in the output folder, never in the project or ~/.config
    assert (out / ".yolo" / "Ultralytics" / "Arial.ttf").is_file()

    shapes = {"detector.onnx": (1, 3, 64, 64), "reader.onnx": (2, 3, 32, 32)}
    shapes["verifier.onnx"] = (2, 3, 64, 64)
    for name, shape in shapes.items():
        session = ort.InferenceSession(str(candidates / name), providers=["CPUExecutionProvider"])
        spec = session.get_inputs()[0]
        (result, *_) = session.run(None, {spec.name: np.zeros(shape, np.float32)})
        assert result.shape[0] == shape[0] and np.isfinite(result).all()
    reader_meta = ort.InferenceSession(str(candidates / "reader.onnx")).get_modelmeta()
    card = json.loads(reader_meta.custom_metadata_map["data_card"])
    assert card["training_command"].startswith("dominocam train reader")
    assert card["training"]["pretrained"].endswith("base/reader.pt")  # from the committed one

    report = json.loads((candidates / REPORT).read_text())
    for name in CANDIDATE_FILES:
        digest = hashlib.sha256((candidates / name).read_bytes()).hexdigest()
        assert report["files"][name]["sha256"] == digest
    assert set(report["stage_seconds"]) == set(STAGES)
    sets = report["eval"]["sets"]
    assert {"synthetic", "synthetic_halves", "synthetic_print"} <= set(sets)
    assert sets["synthetic"]["metrics"]["detection_recall"]["n"] > 0
    # the print scenes' gate is decided on the device, from its hold-out print set
    assert sets["synthetic_print"]["metrics"]["no_printed_tile"]["n"] > 0
    assert (
        report["eval"]["models"]["detector"]["sha256"] == report["files"]["detector.onnx"]["sha256"]
    )
    gates = report["issue36_gates"]
    assert [row["gate"] for row in gates["gates"]] == [gate.name for gate in KEEP_GATES]
    # no real photos and no bench on the device: those gates are not measured, none holds
    assert gates["all_hold"] is False
    assert tree_hashes(ROOT / "models") == models_before


def test_second_run_skips_every_stage(tiny_run, device_like, train_on_device):
    out, _, _ = tiny_run
    before = (out / "candidates" / "detector.onnx").read_bytes()
    again = train_on_device(out, "tiny", device_like, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    for stage in STAGES:
        assert f"{stage}: done before" in again.stdout
    assert "start" not in "".join(line for line in again.stdout.splitlines() if "] " in line)
    assert (out / "candidates" / "detector.onnx").read_bytes() == before


def test_keep_refuses_candidates_whose_gates_are_not_measured(tiny_run, tmp_path):
    out, _, _ = tiny_run
    models = tmp_path / "models"
    models.mkdir()
    for name in CANDIDATE_FILES:
        (models / name).write_bytes((ROOT / "models" / name).read_bytes())
    before = tree_hashes(models)
    done = subprocess.run(
        [
            "bash",
            str(ROOT / "scripts" / "keep-candidate-models.sh"),
            str(out / "candidates"),
            "--models",
            str(models),
            "--work",
            str(tmp_path / "keep"),
            "--no-bench",
        ],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not measured" in done.stdout and "left as they are" in done.stdout
    assert tree_hashes(models) == before
    checked = json.loads((tmp_path / "keep" / "keep.json").read_text())["issue36_gates"]
    assert checked["all_hold"] is False


def test_verifier_rebuilt_from_its_onnx_gives_its_output(device_like):
    import onnxruntime as ort
    import torch

    from dominotrain.verifier_train import recover_from_onnx

    crops = (np.random.default_rng(0).random((96, 64, 64, 3)) * 255).astype(np.uint8)
    network = recover_from_onnx(ROOT / "models" / "verifier.onnx", crops).eval()
    x = crops[:8].astype(np.float32).transpose(0, 3, 1, 2) / 255.0
    with torch.no_grad():
        ours = torch.softmax(network(torch.from_numpy(x)), dim=1).numpy()
    session = ort.InferenceSession(str(ROOT / "models" / "verifier.onnx"))
    (theirs,) = session.run(None, {"images": x})
    assert np.abs(ours - theirs).max() < 1e-4
    # the BatchNorms hold the crops' statistics, not mean 0 and variance 1
    assert float(network.features[0][1].running_var.mean()) != pytest.approx(1.0, abs=1e-3)


def test_keep_measures_the_real_figures_and_the_speed_here(tiny_run, realval_dir, tmp_path):
    out, _, _ = tiny_run
    models = tmp_path / "models"
    shutil.copytree(ROOT / "models", models, ignore=shutil.ignore_patterns("dominotrain", "*.py"))
    before = tree_hashes(models)
    done = subprocess.run(
        [
            "bash",
            str(ROOT / "scripts" / "keep-candidate-models.sh"),
            str(out / "candidates"),
            "--realval",
            str(realval_dir),
            "--models",
            str(models),
            "--work",
            str(tmp_path / "keep"),
            "--bench-runs",
            "3",
        ],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    checked = json.loads((tmp_path / "keep" / "keep.json").read_text())["issue36_gates"]
    unmeasured = [row["set"] for row in checked["gates"] if row["holds"] is None]
    assert unmeasured == []  # the print scenes measured there, the rest here
    tiles = [row for row in checked["gates"] if row["set"] == "realval_tiles"]
    assert all(row["baseline"]["n"] == row["n"] > 0 for row in tiles)
    assert tree_hashes(models) == before
