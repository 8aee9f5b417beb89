"""`dominocam.vision.reading.PhotoReader`, the one way the product reads a picture, and the
detector's thresholds defined once (`dominocam.vision.settings`)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from dominocam.vision.layout import AUTO, LayoutConfig
from dominocam.vision.reading import Game, PhotoReader, table_layout, tracker_config
from dominocam.vision.settings import DETECTOR_CONF, NMS_IOU

ROOT = Path(__file__).resolve().parents[2]
# Every first-party package of the product and its tools.
SOURCES = ("vision", "server", "dominocam", "tournament", "measure", "datasets", "models")
# A confidence threshold given 0.25 or an IoU threshold given 0.7 as a number:
# `conf: float = 0.25`, `DEFAULT_CONF = 0.25`, `iou_threshold=0.7`.
THRESHOLD = re.compile(
    r"\b\w*(conf\w*\s*(:[^=\n]*)?=\s*0?\.25|iou\w*\s*(:[^=\n]*)?=\s*0?\.7)(?![\d.])",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def reader() -> PhotoReader:
    return PhotoReader.load(threads=2)


def test_the_detector_thresholds_are_written_once() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if THRESHOLD.search(line)
    ]
    assert found == [
        f"vision/settings.py:{_line('DETECTOR_CONF =')}: DETECTOR_CONF = {DETECTOR_CONF}",
        f"vision/settings.py:{_line('NMS_IOU =')}: NMS_IOU = {NMS_IOU}",
    ]


def _line(start: str) -> int:
    lines = (ROOT / "vision" / "settings.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(start))


def test_the_models_are_loaded_with_the_thresholds(reader: PhotoReader) -> None:
    detector = reader.models.detector
    assert (detector.conf, detector.iou) == (DETECTOR_CONF, NMS_IOU)
    assert reader.models.verifier is not None and reader.models.calibration is not None


def test_an_unknown_kind_of_photo_is_refused_with_the_valid_ones(reader: PhotoReader) -> None:
    with pytest.raises(ValueError, match=r"'board'.*table, hand"):
        reader.read(np.zeros((64, 64, 3), np.uint8), "board")


def test_a_table_photo_is_laid_out_as_its_game_or_as_any_kind() -> None:
    game = Game("mexican-train", 4, 12)
    assert table_layout(game) == LayoutConfig(
        kind="mexican", trains=5, hub_value=12, lone_root=True
    )
    assert table_layout(None) == LayoutConfig(kind=AUTO)


def test_a_camera_is_laid_out_as_a_table_photo_of_its_game() -> None:
    game = Game("all-fives", 2)
    assert tracker_config(2.0, 9, game).layout == table_layout(game)
    assert tracker_config(2.0, 9, game).set_max == 9
    # No game known: a line game whose first tile is the root.
    assert tracker_config(2.0, 12).layout == LayoutConfig(lone_root=True)


def test_a_camera_tracker_gets_the_calibration(reader: PhotoReader) -> None:
    config = tracker_config(1.0, 12)
    tracker = reader.tracker(640, 360, config)
    assert tracker.calibration is reader.models.calibration
    again = reader.tracker(640, 360, config, tracker.to_state())
    assert again.calibration is reader.models.calibration


@pytest.mark.parametrize(("players", "engine"), [(0, None), (2, -1)])
def test_a_game_refuses_impossible_values(players: int, engine: int | None) -> None:
    with pytest.raises(ValueError):
        Game("block", players, engine)
