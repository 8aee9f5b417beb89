"""`dominocam eval` opens only the models the chosen sets run: the reader-only sets work with
no detector file at all (a reader double reads painted half crops)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import dominocam.cli
from dominocam.errors import UserInputError
from dominocam.measure.evaluate import SET_MODELS, SETS, run_eval, sets_to_run

pytest.importorskip("onnx")
from standin import value_level, write_reader

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


def test_synthetic_halves_count_backs_with_a_back_aware_reader(
    tmp_path: Path, synthetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Levels of 14 steps: values 0..12, then the back (`write_reader`).
    folder = tmp_path / "back_models"
    folder.mkdir()
    write_reader(folder / "reader.onnx", side=32, class_order=[*range(13), "back"], levels=14)
    monkeypatch.setenv("DOMINOCAM_MODELS", str(folder))
    for value in HALF_VALUES:  # repaint the face crops in 14 levels
        crop = np.full((64, 64, 3), (60, 60, value_level(value, 14)), np.uint8)
        cv2.imwrite(str(synthetic / "reader" / "val" / str(value) / "a.png"), crop)
    (synthetic / "reader" / "val" / "back").mkdir()
    for name, level in (("a", 13), ("b", 13), ("c", 2)):  # two backs, one read as a face
        crop = np.full((64, 64, 3), (60, 60, value_level(level, 14)), np.uint8)
        cv2.imwrite(str(synthetic / "reader" / "val" / "back" / f"{name}.png"), crop)
    result = run_eval(synthetic, None, sets=["synthetic_halves"], quiet=True)["synthetic_halves"]
    metrics = result.metrics()
    assert (metrics["half_accuracy"].k, metrics["half_accuracy"].n) == (4, 4)
    assert (metrics["back_read_as_back"].k, metrics["back_read_as_back"].n) == (2, 3)
    assert (metrics["face_read_as_back"].k, metrics["face_read_as_back"].n) == (0, 4)


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
    monkeypatch.setattr(dominocam.cli, "COMMAND_MODULES", ("dominocam.measure.cli",))
    out = tmp_path / "eval"
    code = dominocam.cli.main(
        ["eval", "--realval", str(realval), "--sets", "realval_halves", "--out", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / "eval.json").read_text())
    assert list(report["models"]) == ["reader"]
    assert list(report["sets"]) == ["realval_halves"]


def test_detector_thresholds_reach_the_detector_and_the_report() -> None:
    from dominocam.measure.evaluate import describe_models, load_eval_models

    models = load_eval_models(["realval_scenes"], conf=0.4, iou=0.3)
    assert (models.detector.conf, models.detector.iou) == (0.4, 0.3)
    assert describe_models(models)["detector"]["iou"] == 0.3


@pytest.mark.parametrize("flag", ["--conf", "--iou"])
def test_a_threshold_outside_0_1_is_refused(flag, realval, capsys) -> None:
    assert dominocam.cli.main(["eval", "--realval", str(realval), flag, "1.5"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_a_real_set_without_its_labels_is_a_clear_error(reader_only, realval) -> None:
    with pytest.raises(UserInputError, match=r"no tiles/labels\.json there"):
        run_eval(None, realval, sets=["realval_tiles"], quiet=True)


def test_max_upscale_reaches_the_detector_and_the_report() -> None:
    from dominocam.measure.evaluate import describe_models, load_eval_models
    from dominocam.vision.detector import MAX_UPSCALE

    assert load_eval_models(["realval_scenes"]).detector.max_upscale == MAX_UPSCALE
    models = load_eval_models(["realval_scenes"], max_upscale=None)
    assert models.detector.max_upscale is None
    assert describe_models(models)["detector"]["max_upscale"] is None


def test_the_report_names_every_model_read_with_and_the_close_up_frame() -> None:
    from dominocam.measure.evaluate import describe_models, load_eval_models
    from dominocam.vision.confidence import load_calibration
    from dominocam.vision.onnx_model import file_sha256

    models = load_eval_models(["realval_scenes"], closeup_border=0.25)
    assert models.detector.closeup_border == 0.25
    models.calibration_path = Path(models.detector.path).parent / "calibration.json"
    models.calibration = load_calibration(models.calibration_path)
    report = describe_models(models)
    assert report["detector"]["closeup_border"] == 0.25
    assert report["detector"]["rect_input"] is models.detector.rect_input
    verifier = Path(models.detector.verifier.path)
    assert report["verifier"] == {"path": str(verifier), "sha256": file_sha256(verifier)}
    assert report["calibration"]["sha256"] == file_sha256(models.calibration_path)


@pytest.mark.parametrize(
    "given, chosen", [(None, 2.0), ("none", None), ("NONE", None), ("1", 1.0), ("3.5", 3.5)]
)
def test_max_upscale_flag(given, chosen) -> None:
    from dominocam.measure.cli import chosen_upscale, upscale

    assert chosen_upscale(None if given is None else upscale(given), 2.0) == chosen


@pytest.mark.parametrize("value", ["0.5", "big"])
def test_a_max_upscale_below_1_is_refused(value, realval, capsys) -> None:
    assert dominocam.cli.main(["eval", "--realval", str(realval), "--max-upscale", value]) == 2
    assert "--max-upscale" in capsys.readouterr().err


def test_add_border_frames_the_picture_in_grey() -> None:
    from dominocam.measure.evaluate import add_border

    image = np.full((60, 100, 3), 200, np.uint8)
    framed = add_border(image, 0.5)  # 50 px: half the longer side
    assert framed.shape == (160, 200, 3)
    assert (framed[50:110, 50:150] == 200).all()
    assert (framed[:50] == 114).all() and (framed[:, :50] == 114).all()
    assert add_border(image, 0.0) is image
    assert add_border(np.zeros((10, 20), np.uint8), 0.25).shape == (20, 30)


def test_border_and_closeups_reach_every_real_tile_crop(tmp_path: Path, monkeypatch) -> None:
    from dominocam.measure.evaluate import describe_models
    from dominocam.vision.scene import Scene

    root = tmp_path / "realval"
    (root / "tiles").mkdir(parents=True)
    cv2.imwrite(str(root / "tiles" / "a.png"), np.full((60, 100, 3), 200, np.uint8))
    (root / "tiles" / "labels.json").write_text(json.dumps([{"image": "a.png", "pips": [1, 2]}]))
    seen = []

    def fake_read(image, *args, closeups=True, **kwargs):
        seen.append((image.shape, closeups))
        return Scene(image.shape[1], image.shape[0])

    monkeypatch.setattr("dominocam.vision.reading.read_image", fake_read)  # under PhotoReader.read
    results = run_eval(None, root, sets=["realval_tiles"], quiet=True, border=0.5)
    assert seen == [((160, 200, 3), True)]
    assert "grey border 0.5" in results["realval_tiles"].note
    # --no-closeups: one pass per picture, as `dominocam read --no-closeups`, and reported
    results = run_eval(None, root, sets=["realval_tiles"], quiet=True, closeups=False)
    assert seen[-1] == ((60, 100, 3), False)
    assert describe_models(results["_models"])["detector"]["closeups"] is False


@pytest.mark.parametrize("value", ["-0.1", "3", "wide"])
def test_a_border_outside_0_2_is_refused(value, realval, capsys) -> None:
    assert dominocam.cli.main(["eval", "--realval", str(realval), "--border", value]) == 2
    assert "--border" in capsys.readouterr().err


# ----------------------------------------------------------------- synthetic tile crops


def _square(cx: float, cy: float, half_w: float, half_h: float) -> np.ndarray:
    return np.array(
        [
            [cx - half_w, cy - half_h],
            [cx + half_w, cy - half_h],
            [cx + half_w, cy + half_h],
            [cx - half_w, cy + half_h],
        ],
        dtype=float,
    )


def test_synthetic_tile_crops_cut_whole_lone_face_up_tiles(tmp_path: Path) -> None:
    from dominocam.measure.evaluate import synthetic_tile_crops
    from dominosynth.tile_crops import TILE_CROP_PX

    root = tmp_path / "synth"
    (root / "detector" / "images" / "val").mkdir(parents=True)
    (root / "truth").mkdir()
    cv2.imwrite(str(root / "detector" / "images" / "val" / "000001.jpg"), np.zeros((720, 1280, 3)))

    def tile(id_, cx, face="up", visible=1.0):
        return {
            "id": id_,
            "face": face,
            "pips": [2, 5] if face == "up" else None,
            "corners": _square(cx, 360, 30, 60).tolist(),
            "visible_fraction": visible,
        }

    truth = {
        "image": {"width": 1280, "height": 720},
        "set": "double-6",
        "generator": {"index": 1},
        "tiles": [tile(0, 200), tile(1, 640, face="down"), tile(2, 1000, visible=0.6)],
    }
    (root / "truth" / "000001.json").write_text(json.dumps(truth))
    crops = list(synthetic_tile_crops(root, None))
    assert len(crops) == 1  # the face-down and the half-hidden tile are not cut out
    path, crop, pips, set_max = crops[0]
    assert crop.shape == (TILE_CROP_PX, TILE_CROP_PX, 3)
    assert (pips, set_max) == ((2, 5), 6)
    assert path.is_file() and path.parent == root / "tile_crops"
