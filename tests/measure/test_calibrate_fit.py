"""What `dominocam calibrate` fits on (measure.calibrate): synthetic folders only, each
weighing alike, never the real photos of ../shared/realval (their README forbids it)."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.measure import calibrate


def box(source: str, tile: bool = True) -> calibrate.BoxRecord:
    return calibrate.BoxRecord(
        source, "a.jpg", "up", 0.9, (0.9, 0.9), (1, 2), False, False, tile, tile, 0.9
    )


def arguments(tmp_path: Path, **given) -> argparse.Namespace:
    values = {
        "synthetic": [tmp_path / "holdout"],
        "split": "train",
        "realval": None,
        "out": tmp_path / "calibration.json",
        "cache": tmp_path / "boxes.json",
        "refresh": False,
        "limit": None,
        "quiet": True,
    }
    return argparse.Namespace(**{**values, **given})


def test_each_folder_weighs_alike_however_many_boxes_it_holds():
    boxes = [box("holdout")] * 90 + [box("holdout_closeup")] * 10
    weights = calibrate.source_weights(boxes)
    assert weights[:90].sum() == pytest.approx(weights[90:].sum())
    assert weights.mean() == pytest.approx(1.0)


def test_asking_to_fit_on_the_real_photos_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(UserInputError, match=r"never fitted on.*dominocam eval --realval"):
        calibrate.run(arguments(tmp_path, realval=tmp_path / "realval"))
    assert not (tmp_path / "calibration.json").exists()


def test_the_command_line_still_knows_the_old_option_to_say_so(tmp_path, capsys):
    from dominocam.cli import main

    assert main(["calibrate", "--realval", str(tmp_path)]) == 2
    assert "never fitted on" in capsys.readouterr().err


def test_a_cache_holding_real_boxes_is_not_fitted_on(tmp_path):
    real_box = box(calibrate.REAL)
    real = calibrate.PhotoRecord(calibrate.REAL, "r.jpg", [real_box], False, -1, [], 0, 0)
    synthetic = calibrate.PhotoRecord("holdout", "s.jpg", [box("holdout")], False, 0, [], 0, 0)
    calibrate.save_photos(tmp_path / "boxes.json", [synthetic, real])
    with pytest.raises(UserInputError, match=r"real photos.*--refresh"):
        calibrate.run(arguments(tmp_path))
    assert not (tmp_path / "calibration.json").exists()


def test_every_synthetic_box_is_labelled_with_its_folder(tmp_path, monkeypatch):
    """collect_boxes names each picture's source by its folder, which the weights use."""
    seen = []

    def label(scene, truth, image, source):
        seen.append((truth.parent.parent.name, source))
        return calibrate.PhotoRecord(source, image, [], False, 0, [], 0, 0)

    for name in ("holdout", "holdout_small"):
        (tmp_path / name / "detector" / "images" / "train").mkdir(parents=True)
        (tmp_path / name / "truth").mkdir()
        (tmp_path / name / "detector" / "images" / "train" / "a.png").write_bytes(b"")
        (tmp_path / name / "truth" / "a.json").write_text('{"set": 6}')
    monkeypatch.setattr(calibrate, "label_synthetic", label)
    monkeypatch.setattr(calibrate, "load_image", lambda path: np.zeros((8, 8, 3), np.uint8))
    monkeypatch.setattr("dominocam.vision.pipeline.load_models", lambda: _Models())
    monkeypatch.setattr("dominocam.vision.pipeline.read_image", lambda *a: None)
    photos = calibrate.collect_boxes([tmp_path / "holdout", tmp_path / "holdout_small"], quiet=True)
    assert [p.source for p in photos] == ["holdout", "holdout_small"]
    assert seen == [("holdout", "holdout"), ("holdout_small", "holdout_small")]


class _Models:
    detector = None
    reader = None
