"""Fixtures for the vision runtime: a painted table and ONNX test doubles of the models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from vision_factories import DETECTOR_SIZE, READER_SIDE, PaintedTable, paint_table, to_input_boxes


@pytest.fixture(scope="session")
def painted_table() -> PaintedTable:
    pytest.importorskip("onnx")
    boxes = np.array(
        [
            [80, 60, 80, 40, 0.3],
            [200, 110, 60, 30, 1.2],
            [265, 205, 50, 25, 0.0],
            [60, 170, 70, 35, 2.0],
            [150, 190, 64, 32, np.pi / 2],
        ]
    )
    halves = [(3, 7), (12, 0), None, (5, 5), (9, 1)]
    scores = np.array([0.95, 0.9, 0.85, 0.8, 0.75])
    return PaintedTable(paint_table(boxes, halves), boxes, halves, scores)


@pytest.fixture(scope="session")
def double_models(painted_table: PaintedTable, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder with detector.onnx and reader.onnx doubles for `painted_table`.

    The detector double emits the same input-pixel boxes for any picture, so the close-up
    pass of `read_image` (the picture framed by grey) would map them back twice as large;
    tests of the painted table read it with `closeups=False` / `--no-closeups`.
    """
    from standin import raw_from_boxes, write_detector, write_reader

    folder = tmp_path_factory.mktemp("models")
    lb = to_input_boxes(painted_table.boxes, painted_table.image.shape[:2], DETECTOR_SIZE)
    # Each tile also gets two slightly worse duplicates that NMS must remove.
    jitter = lb.copy()
    jitter[:, :2] += 1.0
    jitter2 = lb.copy()
    jitter2[:, 4] += 0.05
    all_boxes = np.concatenate([lb, jitter, jitter2])
    classes = np.array([0 if h is not None else 1 for h in painted_table.halves] * 3)
    scores = np.concatenate(
        [painted_table.scores, painted_table.scores - 0.1, painted_table.scores - 0.2]
    )
    raw = raw_from_boxes(all_boxes, classes, scores)
    write_detector(folder / "detector.onnx", raw, imgsz=DETECTOR_SIZE)
    write_reader(folder / "reader.onnx", side=READER_SIDE)
    return folder
