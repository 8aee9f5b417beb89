"""The layout's hook into joint decoding through `read_image`, with tiny ONNX doubles of the
models (tests/helpers/standin.py): a doubtful half touching a sure one is corrected
only on a table photo, and only where the two can agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from vision_factories import DETECTOR_SIZE, to_input_boxes

from dominocam.vision.pipeline import load_models, read_image

SIZE = (320, 240)
# Two tiles in line, 4 px apart: A = 3|1 at x 60..140, B = ?|5 at x 144..224 (80 x 40 px).
BOXES = np.array([[100.0, 120.0, 80.0, 40.0, 0.0], [184.0, 120.0, 80.0, 40.0, 0.0]])


def level_between(low: int, high: int, t: float, num_values: int = 13) -> int:
    """A red level a fraction `t` of the way from value `low`'s level to `high`'s."""
    from standin import value_level

    return round(
        value_level(low, num_values)
        + t * (value_level(high, num_values) - value_level(low, num_values))
    )


def paint(doubtful_level: int) -> np.ndarray:
    from standin import value_level

    image = np.full((SIZE[1], SIZE[0], 3), (40, 90, 30), np.uint8)
    for x0, x1, level in (
        (60, 100, value_level(3)),
        (100, 140, value_level(1)),
        (144, 184, doubtful_level),
        (184, 224, value_level(5)),
    ):
        image[100:140, x0:x1] = (60, 60, level)  # BGR: red carries the value
    return image


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("onnx")
    from standin import raw_from_boxes, write_detector, write_reader

    folder: Path = tmp_path_factory.mktemp("layout_models")
    boxes = to_input_boxes(BOXES, (SIZE[1], SIZE[0]), DETECTOR_SIZE)
    raw = raw_from_boxes(boxes, np.array([0, 0]), np.array([0.95, 0.9]))
    write_detector(folder / "detector.onnx", raw, imgsz=DETECTOR_SIZE)
    write_reader(folder / "reader.onnx", side=32)
    return load_models(folder / "detector.onnx", folder / "reader.onnx", threads=1)


def pips(scene) -> list[tuple[int, int]]:
    return sorted(t.pips for t in scene.tiles if t.face == "up")


def test_a_doubtful_half_that_fits_its_neighbour_is_corrected_on_a_table(models) -> None:
    image = paint(level_between(1, 2, 0.55))  # reads 2 (p ~ 0.77), 1 is the runner-up
    hand = read_image(image, models.detector, models.reader, 12, with_layout=False, closeups=False)
    assert pips(hand) == [(1, 3), (2, 5)]  # a hand: each tile read on its own
    table = read_image(image, models.detector, models.reader, 12, closeups=False)
    assert pips(table) == [(1, 3), (1, 5)]
    assert any("touching half" in w for w in table.warnings)
    assert sorted(table.layout.open_ends) == [3, 5]


def test_a_sure_read_is_never_forced_to_match(models) -> None:
    from standin import value_level

    image = paint(value_level(2))  # B's half is a sure 2 against A's sure 1
    table = read_image(image, models.detector, models.reader, 12, closeups=False)
    assert pips(table) == [(1, 3), (2, 5)]
    assert table.layout.open_ends == []  # two loose tiles side by side, not a line
    assert any("touch with halves" in w for w in table.warnings)
