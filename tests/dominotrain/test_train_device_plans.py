"""The plans of `scripts/train-on-device.sh` that leave a model untrained take the committed
file for it, and the CPU plans share their sets. No training here (no `train` extra needed):
the stages that only copy or decide are called directly."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from dominotrain.device_run import (
    MODELS_DIR,
    PLANS,
    Run,
    detector_also,
    stage_export,
    stage_verifier,
    training_hours,
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cpu_detector_plan_renders_the_cpu_verifier_sets():
    """One rendering serves both CPU plans: the same sets, seeds and sizes."""
    assert PLANS["cpu-detector"].sets == PLANS["cpu-verifier"].sets
    assert PLANS["cpu-detector"].trains == ("detector",)


def test_cpu_detector_plan_gives_the_detector_all_the_time_left(tmp_path):
    plan = PLANS["cpu-detector"]
    run = Run(out=tmp_path, plan=plan, device="cpu", workers=2, minutes=60)
    hours = training_hours(run, "detector")
    assert hours == pytest.approx((60 - plan.after_minutes) / 60, abs=0.01)


def test_an_untrained_verifier_is_the_committed_one(tmp_path, capsys):
    run = Run(out=tmp_path, plan=PLANS["cpu-detector"], device="cpu", workers=1, minutes=1)
    record = stage_verifier(run)
    assert record == {
        "committed": str(MODELS_DIR / "verifier.onnx"),
        "sha256": sha256(MODELS_DIR / "verifier.onnx"),
    }
    assert not run.data("verifier-crops").exists()  # no crops cut, nothing trained
    assert not run.folder("runs", "verifier").exists()
    assert "verifier: not trained in plan cpu-detector" in capsys.readouterr().out


def test_export_copies_every_untrained_model_byte_for_byte(tmp_path):
    plan = replace(PLANS["cpu-detector"], name="nothing", trains=())
    run = Run(out=tmp_path, plan=plan, device="cpu", workers=1, minutes=1)
    found = stage_export(run)
    assert found == {kind: {"committed": True} for kind in ("detector", "reader", "verifier")}
    for kind in ("detector", "reader", "verifier"):
        candidate = run.candidates / f"{kind}.onnx"
        assert sha256(candidate) == sha256(MODELS_DIR / f"{kind}.onnx")


def test_replay_plan_adds_the_committed_detectors_own_pictures():
    """The replay plan is `cpu-detector` plus the committed detector's training set (seed 13,
    models/detector.md), and its detector learns from it beside the print scenes."""
    replay = PLANS["cpu-detector-replay"]
    assert replay.sets[: len(PLANS["cpu-detector"].sets)] == PLANS["cpu-detector"].sets
    added = replay.sets[-1]
    assert (added.name, added.count, added.seed, added.size) == ("replay", 1200, 13, "1280x720")
    assert "--count 1200 --seed 13 --size 1280x720" in (MODELS_DIR / "detector.md").read_text()
    assert detector_also(replay) == ["replay", "small", "closeup", "print"]
    assert detector_also(PLANS["cpu-detector"]) == ["small", "closeup", "print"]
