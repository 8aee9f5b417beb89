"""Fixtures for the vision runtime: a painted table and ONNX test doubles of the models."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import geometry

DETECTOR_SIZE = 160
READER_SIDE = 32


@dataclass
class PaintedTable:
    """A 320x240 BGR image with tiles whose halves are painted in the reader double's code."""

    image: np.ndarray
    boxes: np.ndarray  # (N, 5) xywhr in image pixels
    halves: list[tuple[int, int] | None]  # values in corner order (order_corners), None = down
    scores: np.ndarray

    @property
    def corners(self) -> np.ndarray:
        return geometry.order_corners(geometry.xywhr_to_corners(self.boxes))


def paint_table(
    boxes: np.ndarray, halves: list[tuple[int, int] | None], size: tuple[int, int] = (320, 240)
) -> np.ndarray:
    """Paint tiles: each half a solid colour whose red level encodes its value."""
    from onnx_doubles import value_level

    width, height = size
    image = np.full((height, width, 3), (40, 90, 30), np.uint8)
    for box, values in zip(boxes, halves, strict=True):
        c = geometry.order_corners(geometry.xywhr_to_corners(np.asarray(box, dtype=float)))
        if values is None:
            cv2.fillConvexPoly(image, np.round(c).astype(np.int32), (30, 30, 30))
            continue
        m12, m30 = (c[1] + c[2]) / 2, (c[3] + c[0]) / 2
        for poly, v in (
            (np.array([c[0], c[1], m12, m30]), values[0]),
            (np.array([m30, m12, c[2], c[3]]), values[1]),
        ):
            cv2.fillConvexPoly(image, np.round(poly).astype(np.int32), (60, 60, value_level(v)))
    return image


def to_input_boxes(boxes: np.ndarray, image_shape: tuple[int, int], size: int) -> np.ndarray:
    """Boxes in image pixels -> boxes in the letterboxed network input."""
    _, transform = geometry.letterbox(np.zeros((*image_shape, 3), np.uint8), size)
    out = np.array(boxes, dtype=float, copy=True)
    out[:, :2] = transform.to_input(out[:, :2])
    out[:, 2:4] *= transform.scale_x
    return out


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
    """A models folder with detector.onnx and reader.onnx doubles for `painted_table`."""
    from onnx_doubles import raw_from_boxes, write_detector, write_reader

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
