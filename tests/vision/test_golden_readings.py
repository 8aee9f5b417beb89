"""The pipeline reads a fixed set of pictures exactly as it did when the golden readings
were written (tests/helpers/golden_readings.py): a change made for speed must not change a
reading. Faces, pips, doubts, warnings, layout and rejected boxes must be equal, every
probability and score within 2e-3 and every corner within 0.05 px (what OpenCV's releases
move them by; golden_readings.TOLERANCE says more)."""

from __future__ import annotations

import json

import golden_readings
import pytest

from vision.pipeline import load_models


@pytest.fixture(scope="module")
def models():
    return load_models(threads=2)


@pytest.fixture(scope="module")
def golden(models) -> dict:
    golden = json.loads(golden_readings.GOLDEN.read_text())
    if golden["models"] != golden_readings.model_hashes(models):
        pytest.skip(
            "the models differ from those the golden readings were written with: run "
            "`.venv/bin/python tests/helpers/golden_readings.py --write` with the old code, "
            "or after checking the new models' readings"
        )
    return golden


def test_the_golden_pictures_run_every_pass(models) -> None:
    from vision.pipeline import detect_tiles

    sources = {
        d.source
        for picture in golden_readings.pictures()
        for d in detect_tiles(picture.image, models.detector)
    }
    assert sources == {"photo", "closeup", "window"}


@pytest.mark.parametrize("name", [p.name for p in golden_readings.pictures()])
def test_the_pipeline_reads_as_the_golden_readings(models, golden, name: str) -> None:
    picture = next(p for p in golden_readings.pictures() if p.name == name)
    found = golden_readings.read_all_of(models, [picture])[name]
    assert golden_readings.differences(golden["readings"][name], found) == []


def test_differences_sees_a_changed_pip_and_a_moved_probability() -> None:
    reading = {"tiles": [{"pips": [1, 2], "probability": 0.5}]}
    assert golden_readings.differences(reading, reading) == []
    assert golden_readings.differences(reading, {"tiles": [{"pips": [1, 3], "probability": 0.5}]})
    moved = {"tiles": [{"pips": [1, 2], "probability": 0.5 + 2 * golden_readings.TOLERANCE}]}
    assert golden_readings.differences(reading, moved)
    close = {"tiles": [{"pips": [1, 2], "probability": 0.5 + golden_readings.TOLERANCE / 2}]}
    assert golden_readings.differences(reading, close) == []


def test_differences_allows_corners_their_pixel_tolerance_only() -> None:
    reading = {"tiles": [{"corners": [[100.0, 20.0]], "probability": 0.5}]}
    nudged = {"tiles": [{"corners": [[100.01, 20.0]], "probability": 0.5}]}
    assert golden_readings.differences(reading, nudged) == []
    shifted = {"tiles": [{"corners": [[100.5, 20.0]], "probability": 0.5}]}
    assert golden_readings.differences(reading, shifted)


def test_the_golden_file_text_parses_back_to_the_readings_rounded() -> None:
    golden = {"models": {"detector": "ab"}, "readings": {"a": {"p": [0.123456789012345, 1]}}}
    back = json.loads(golden_readings.as_text(golden))
    assert back == {"models": {"detector": "ab"}, "readings": {"a": {"p": [0.123456789, 1]}}}
    assert golden_readings.differences(golden, back) == []
