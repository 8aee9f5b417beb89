"""Pure numpy/OpenCV geometry shared by the runtime and the data generator.

Conventions (used everywhere in the project):
* Points are `(x, y)` in pixels of the image they refer to, x to the right, y down.
* A tile's `corners` is a float array of shape (4, 2) in a fixed order that says which half
  is which: corners[0] -> corners[1] is the short edge at the end of half 0, corners[2] ->
  corners[3] the short edge at the end of half 1. The divider bar therefore runs from the
  midpoint of corners[1]-corners[2] to the midpoint of corners[3]-corners[0].
* A rectified tile is upright: long axis vertical, half 0 on top, shape (2*S, S, channels).
* A half crop is square (S, S) with the divider along its bottom edge, so a classifier
  always sees a half the same way up whichever half of the tile it came from.
"""

from __future__ import annotations

import cv2
import numpy as np


def rectify_tile(image: np.ndarray, corners: np.ndarray, side: int = 64) -> np.ndarray:
    """Warp one tile out of `image` into an upright crop of shape (2*side, side[, C]).

    Args:
        image: the full-resolution photo, HxW or HxWxC, any dtype OpenCV can warp.
        corners: (4, 2) tile corners in image pixels, in the order of the module docstring.
        side: width of the output in pixels (the height is twice that).
    """
    src = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    # corners[0]..[1] are the top edge (half 0's end), [2]..[3] the bottom edge.
    dst = np.array(
        [[0, 0], [side - 1, 0], [side - 1, 2 * side - 1], [0, 2 * side - 1]], dtype=np.float32
    )
    matrix = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        image, matrix, (side, 2 * side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def split_halves(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split an upright tile crop into two square half crops, divider at the bottom of each.

    Half 0 is the top square as it is; half 1 is the bottom square turned 180 degrees.
    """
    side = tile.shape[1]
    top = tile[:side]
    bottom = tile[side : 2 * side]
    return top, np.ascontiguousarray(bottom[::-1, ::-1])
