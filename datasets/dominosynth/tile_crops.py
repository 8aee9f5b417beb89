"""Pictures of one tile cut out of a synthetic picture and shrunk: the crop geometry that
`dominocam eval` (its `synthetic_tiles` set, `dominocam.measure.evaluate`) and the detector's
training crops (`dominotrain.crop_data`) share, so that what is measured is what is trained on.

A crop is a square around one whole face-up tile with no other tile reaching into it,
`TILE_CROP_SPAN` tile lengths wide, shrunk to `TILE_CROP_PX`: the single-tile crops of the
real photos' `tiles` set (100 px, tiles 20..60 px long) were made that way. Only numpy and
OpenCV; the runtime never cuts such crops, it only reads them.
"""

from __future__ import annotations

import cv2
import numpy as np

from dominosynth.config import READER_MIN_VISIBLE, SHOWN

# The side of a crop and how many tile lengths it spans: those of the real tile crops.
TILE_CROP_PX = 100
TILE_CROP_SPAN = (1.7, 5.0)


def tile_crop_window(
    corners: np.ndarray, others: list[np.ndarray], image_shape: tuple[int, int], span: float
) -> tuple[int, int, int] | None:
    """The square (x0, y0, side) around the tile `corners` that spans `span` tile lengths,
    or None when it leaves the image, is smaller than a crop (a crop is only ever shrunk),
    or another tile (`others`, corner arrays) reaches into it."""
    length = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).max())
    side = round(length * span)
    cx, cy = corners.mean(axis=0)
    x0, y0 = round(cx - side / 2), round(cy - side / 2)
    height, width = image_shape
    if side < TILE_CROP_PX or x0 < 0 or y0 < 0 or x0 + side > width or y0 + side > height:
        return None
    for other in others:
        inside_x = (other[:, 0] > x0) & (other[:, 0] < x0 + side)
        inside_y = (other[:, 1] > y0) & (other[:, 1] < y0 + side)
        if (inside_x & inside_y).any():
            return None
    return x0, y0, side


def tile_crop_candidates(truth: dict) -> list[tuple[dict, np.ndarray, list[np.ndarray]]]:
    """The tiles of a synthetic `truth` a tile crop may be cut around (whole, face up, with
    known pips), each with its corners and those of every other tile shown (`others` of
    `tile_crop_window`)."""
    shown = [t for t in truth.get("tiles", []) if float(t.get("visible_fraction", 1)) > SHOWN]
    candidates = []
    for tile in shown:
        whole = float(tile.get("visible_fraction", 1)) >= READER_MIN_VISIBLE
        if tile.get("face") != "up" or tile.get("pips") is None or not whole:
            continue
        others = [np.asarray(t["corners"], dtype=float) for t in shown if t is not tile]
        candidates.append((tile, np.asarray(tile["corners"], dtype=float), others))
    return candidates


def random_crop_span(rng: np.random.Generator) -> float:
    """How many tile lengths a tile crop spans: log-uniform over `TILE_CROP_SPAN`."""
    return float(np.exp(rng.uniform(*np.log(TILE_CROP_SPAN))))


def shrink_window(image: np.ndarray, window: tuple[int, int, int]) -> np.ndarray:
    """The square `window` (x0, y0, side) of `image` shrunk to `TILE_CROP_PX` a side."""
    x0, y0, side = window
    return cv2.resize(
        image[y0 : y0 + side, x0 : x0 + side],
        (TILE_CROP_PX, TILE_CROP_PX),
        interpolation=cv2.INTER_AREA,
    )
