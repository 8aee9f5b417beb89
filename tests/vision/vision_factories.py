"""Helpers of the vision tests: a painted table in the reader double's code.

A module of its own (not conftest.py) so that tests import it by a name no other test folder
uses: `from conftest import` finds whichever conftest was imported first.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dominocam.vision import geometry
from dominocam.vision.detector import Detection

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
    boxes: np.ndarray,
    halves: list[tuple[int, int] | None],
    size: tuple[int, int] = (320, 240),
    levels: int = 13,
) -> np.ndarray:
    """Paint tiles: each half a solid colour whose red level encodes its value
    (`standin.value_level(value, levels)`); None paints a dark face-down tile."""
    from standin import value_level

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
            cv2.fillConvexPoly(
                image, np.round(poly).astype(np.int32), (60, 60, value_level(v, levels))
            )
    return image


def to_input_boxes(boxes: np.ndarray, image_shape: tuple[int, int], size: int) -> np.ndarray:
    """Boxes in image pixels -> boxes in the letterboxed network input."""
    _, transform = geometry.letterbox(np.zeros((*image_shape, 3), np.uint8), size)
    out = np.array(boxes, dtype=float, copy=True)
    out[:, :2] = transform.to_input(out[:, :2])
    out[:, 2:4] *= transform.scale_x
    return out


def tile_corners(cx: float, cy: float, angle: float = 0.0, length: float = 80.0) -> np.ndarray:
    """The ordered corners of a tile `length` px long centred at (cx, cy), turned by `angle`."""
    return geometry.order_corners(
        geometry.xywhr_to_corners(np.array([cx, cy, length, length / 2, angle]))
    )


def upright_detection(cx: float, cy: float, length: float, score: float = 0.9) -> Detection:
    """A face-up detection of a horizontal tile `length` px long, centred at (cx, cy)."""
    return Detection(tile_corners(cx, cy, length=length), score, 0, "tile_up")
