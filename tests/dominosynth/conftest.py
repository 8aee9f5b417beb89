"""Small factories for the synthetic data engine's tests."""

from __future__ import annotations

import numpy as np
import pytest

from dominosynth.config import CONFIGS, SynthConfig
from dominosynth.generate import Job, make_sample


def sample(
    index: int,
    *,
    seed: int = 7,
    config: str | SynthConfig = "default",
    kind: str = "table",
    size: tuple[int, int] = (640, 360),
    max_pip: int = 12,
):
    """(jpeg, decoded image, truth, id map, scene, rng) of one rendered picture."""
    cfg = CONFIGS[config] if isinstance(config, str) else config
    job = Job("/nonexistent", index, seed, size[0], size[1], kind, max_pip, "train", cfg)
    return make_sample(job)


@pytest.fixture(scope="session")
def render_sample():
    """The `sample` factory."""
    return sample


@pytest.fixture(scope="session")
def mask_has():
    """The `inside_mask` helper."""
    return inside_mask


@pytest.fixture(scope="session")
def table_samples():
    """A dozen table pictures (all variants come up) rendered once for the session."""
    return [sample(i, seed=11) for i in range(12)]


def inside_mask(ids: np.ndarray, point: np.ndarray, value: int, radius: int = 1) -> bool:
    """True when a pixel of `ids` within `radius` of `point` equals `value`."""
    x, y = round(point[0]), round(point[1])
    h, w = ids.shape
    if not (0 <= x < w and 0 <= y < h):
        return False
    win = ids[
        max(0, y - radius) : min(h, y + radius + 1), max(0, x - radius) : min(w, x + radius + 1)
    ]
    return bool((win == value).any())
