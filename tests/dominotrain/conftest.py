"""What the tests of `scripts/train-on-device.sh` share: the skip without the `train` extra, and
the script run into an output folder with one of its plans."""

from __future__ import annotations

import importlib.util
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def train_extra() -> None:
    """Skip the module's tests without the `train` extra (ultralytics, torch, onnx)."""
    for module in ("ultralytics", "torch", "onnx"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the train extra)")


@pytest.fixture(scope="session")
def train_on_device() -> Callable[..., subprocess.CompletedProcess[str]]:
    """`train_on_device(out, plan, env, timeout=1800)`: the script run into `out`."""

    def run(
        out: Path, plan: str, env: dict[str, str], timeout: float = 1800
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(ROOT / "scripts" / "train-on-device.sh"), str(out), "--plan", plan],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run
