"""`dominocam eval` opens only the models the chosen sets run: the reader-only sets work with
no detector file at all (a reader double reads painted half crops)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import dominocam.cli
from dominocam.errors import UserInputError
from dominotrain.evaluate import SET_MODELS, SETS, run_eval, sets_to_run

pytest.importorskip("onnx")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from onnx_doubles import value_level, write_reader

HALF_VALUES = (0, 3, 7, 12)


def painted_half(value: int, side: int = 40) -> np.ndarray:
    """A BGR half crop whose red level the reader double reads as `value`."""
    return np.full((side, side, 3), (60, 60, value_level(value)), np.uint8)


@pytest.fixture
def reader_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder holding reader.onnx and no detector.onnx, made the default."""
    folder = tmp_path / "models"
    folder.mkdir()
    write_reader(folder / "reader.onnx", side=32)
    monkeypatch.setenv("DOMINOCAM_MODELS", str(folder))
    return folder


@pytest.fixture
def realval(tmp_path: Path) -> Path:
    """A realval folder with half crops only (no scenes/, no tiles/)."""
    root = tmp_path / "realval"
    (root / "halves").mkdir(parents=True)
    labels = []
    for value in HALF_VALUES:
        name = f"half_{value}.png"
        cv2.imwrite(str(root / "halves" / name), painted_half(value))
        labels.append({"image": name, "pips": value})
    (root / "halves" / "labels.json").write_text(json.dumps(labels))
    return root


@pytest.fixture
def synthetic(tmp_path: Path) -> Path:
    """A synth folder with reader/val/<value>/ crops only."""
    root = tmp_path / "synth"
    for value in HALF_VALUES:
        folder = root / "reader" / "val" / str(value)
        folder.mkdir(parents=True)
        cv2.imwrite(str(folder / "a.png"), painted_half(value, 64))
    return root


def test_every_set_says_which_models_it_runs() -> None:
    assert set(SET_MODELS) == set(SETS)
    assert SET_MODELS["realval_halves"] == SET_MODELS["synthetic_halves"] == ("reader",)


def test_sets_run_only_where_their_folder_is_given(tmp_path: Path) -> None:
    assert sets_to_run(SETS, None, tmp_path) == [
        "realval_scenes",
        "realval_tiles",
        "realval_halves",
    ]
    assert sets_to_run(["realval_halves", "synthetic"], tmp_path, None) == ["synthetic"]


def test_reader_sets_need_no_detector(reader_only, realval, synthetic) -> None:
    results = run_eval(synthetic, realval, sets=["realval_halves", "synthetic_halves"], quiet=True)
    models = results.pop("_models")
    assert models.detector is None and models.reader is not None
    assert list(results) == ["synthetic_halves", "realval_halves"]
    for result in results.values():
        rate = result.metrics()["half_accuracy"]
        assert (rate.k, rate.n) == (len(HALF_VALUES), len(HALF_VALUES))


def test_a_set_that_detects_still_demands_the_detector(reader_only, realval) -> None:
    (realval / "scenes").mkdir()
    (realval / "scenes" / "labels.json").write_text("[]")
    with pytest.raises(UserInputError, match="detector model not found"):
        run_eval(None, realval, sets=["realval_halves", "realval_scenes"], quiet=True)


def test_sets_without_their_folder_are_a_clear_error(reader_only, synthetic) -> None:
    with pytest.raises(UserInputError, match="need --realval DIR"):
        run_eval(synthetic, None, sets=["realval_halves"], quiet=True)


def test_eval_command_on_reader_sets_reports_only_the_reader(
    reader_only, realval, tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(dominocam.cli, "COMMAND_MODULES", ("dominotrain.cli",))
    out = tmp_path / "eval"
    code = dominocam.cli.main(
        ["eval", "--realval", str(realval), "--sets", "realval_halves", "--out", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / "eval.json").read_text())
    assert list(report["models"]) == ["reader"]
    assert list(report["sets"]) == ["realval_halves"]


def test_detector_thresholds_reach_the_detector_and_the_report() -> None:
    from dominotrain.evaluate import describe_models, load_eval_models

    models = load_eval_models(["realval_scenes"], conf=0.4, iou=0.3)
    assert (models.detector.conf, models.detector.iou) == (0.4, 0.3)
    assert describe_models(models)["detector"]["iou"] == 0.3


@pytest.mark.parametrize("flag", ["--conf", "--iou"])
def test_a_threshold_outside_0_1_is_refused(flag, realval, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        dominocam.cli.main(["eval", "--realval", str(realval), flag, "1.5"])
    assert stop.value.code == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_a_real_set_without_its_labels_is_a_clear_error(reader_only, realval) -> None:
    with pytest.raises(UserInputError, match=r"no tiles/labels\.json there"):
        run_eval(None, realval, sets=["realval_tiles"], quiet=True)
