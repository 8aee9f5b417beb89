"""`scripts/train-on-device.sh --plan tiny-verifier`: the verifier alone, as the CPU plan
`cpu-verifier` trains it, end to end with a few small pictures and one epoch.

The committed detector and reader must come out as the candidates byte for byte (nothing of
theirs trained), a verifier is trained from the committed one, and the calibration of these
plans never fits on the real photos. Needs the `train` extra (ultralytics, torch, onnx):
skipped without it; `make test-slow` runs it. A few minutes on two CPU cores.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from dominotrain.device_run import PLANS, REPORT, STAGES, Run, calibration_args

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def verifier_run(train_extra, train_on_device, tmp_path_factory):
    out = tmp_path_factory.mktemp("verifier-run") / "out"
    models_before = {p.name: sha256(p) for p in (ROOT / "models").glob("*.onnx")}
    done = train_on_device(out, "tiny-verifier", {**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out, done, models_before


def test_committed_detector_and_reader_are_the_candidates(verifier_run):
    out, done, models_before = verifier_run
    candidates = out / "candidates"
    for kind in ("detector", "reader"):
        assert (candidates / f"{kind}.onnx").read_bytes() == (
            ROOT / "models" / f"{kind}.onnx"
        ).read_bytes()
        record = json.loads((out / "stages" / f"{kind}.json").read_text())
        assert record["sha256"] == models_before[f"{kind}.onnx"]
        assert not (out / "runs" / kind).exists()  # no training of it started
        assert f"{kind}: not trained in plan tiny-verifier" in done.stdout
    assert not (out / "base").exists()  # nothing rebuilt to fine-tune from
    report = json.loads((candidates / REPORT).read_text())
    assert report["plan"]["trains"] == ["verifier"]
    assert set(report["stage_seconds"]) == set(STAGES)
    models = report["eval"]["models"]
    assert models["detector"]["sha256"] == models_before["detector.onnx"]
    # the run never writes models/
    assert {p.name: sha256(p) for p in (ROOT / "models").glob("*.onnx")} == models_before


def test_a_verifier_is_trained_from_the_committed_one(verifier_run):
    import onnxruntime as ort

    out, _, models_before = verifier_run
    verifier = out / "candidates" / "verifier.onnx"
    assert sha256(verifier) != models_before["verifier.onnx"]
    record = json.loads((out / "stages" / "verifier.json").read_text())
    assert record["last_epoch"]["epoch"] == 1
    counts = json.loads((out / "data" / "verifier-crops" / "counts.json").read_text())
    assert counts  # crops were cut from the plan's sets
    session = ort.InferenceSession(str(verifier), providers=["CPUExecutionProvider"])
    (probabilities,) = session.run(None, {"images": np.zeros((3, 3, 64, 64), np.float32)})
    assert probabilities.shape == (3, 2) and np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)


def test_no_plan_calibrates_on_the_real_photos(tmp_path):
    """The real photos measure transfer only (their README): given --realval, every plan
    fits the calibration on synthetic pictures alone."""
    realval = tmp_path / "realval"
    for plan in PLANS.values():
        run = Run(out=tmp_path, plan=plan, device="cpu", workers=1, minutes=1, realval=realval)
        args = calibration_args(run)
        assert args.realval is None, plan.name
        assert all(realval not in Path(folder).parents for folder in args.synthetic)
        # ...on a hold-out set of every kind of picture, each rendered by the plan itself
        rendered = {spec.name for spec in plan.sets}
        assert {Path(folder).name for folder in args.synthetic} <= rendered, plan.name
        assert {"holdout_small", "holdout_closeup"} <= rendered, plan.name
