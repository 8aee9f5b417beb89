"""The verifier's training: a short run on painted crops learns them and exports an ONNX file
that `dominocam.vision.verifier.Verifier` reads."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

pytestmark = [pytest.mark.train, pytest.mark.slow]


def _write_crops(folder, rng) -> None:
    """Tiles: a light upright bar on a dark table; not tiles: noise."""
    for split, count in (("train", 64), ("val", 16)):
        for label in ("tile", "not_tile"):
            (folder / split / label).mkdir(parents=True)
            for k in range(count):
                crop = rng.integers(0, 90, (64, 64, 3)).astype(np.uint8)
                if label == "tile":
                    crop[6:58, 19:45] = 230
                cv2.imwrite(str(folder / split / label / f"{k}.png"), crop)


def test_a_short_run_learns_painted_crops_and_exports_a_readable_verifier(tmp_path):
    pytest.importorskip("torch")
    from dominocam.vision.verifier import Verifier
    from dominotrain.verifier_train import train

    _write_crops(tmp_path / "crops", np.random.default_rng(0))
    record = train(tmp_path / "crops", tmp_path / "run", epochs=25, threads=1, seed=0, command="t")
    assert len(record["epochs"]) == 25 and record["counts"]["val"] == {"not_tile": 16, "tile": 16}
    assert record["epochs"][-1]["accuracy"] >= 0.9
    verifier = Verifier(tmp_path / "run" / "verifier.onnx", threads=1)
    image = np.full((200, 200, 3), 40, np.uint8)
    image[40:160, 85:115] = 230  # an upright light tile 120 px long
    box = np.array([[85.0, 40.0], [115.0, 40.0], [115.0, 160.0], [85.0, 160.0]])
    assert verifier.scores(image, [box])[0] > 0.5
