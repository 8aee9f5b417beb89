"""The tile-or-not stage: a small classifier on each detected box, at full resolution.

The detector sees the photo shrunk to its input and boxes what looks like a tile there: wood grain,
a board's grid, a printed domino, lettering. The verifier looks again at each box cut from the
ORIGINAL photo (`verifier_crop`): a square aligned with the box, as wide as the box is long plus
`CONTEXT` of margin, so that the tile's edges, thickness and shadow are in view (a printed domino
has none). Its score is the probability that the box holds a real tile (face up or down);
`dominocam.vision.pipeline` puts it on every tile (`SceneTile.verifier_score`) for the calibration
to use.

The model is an ultralytics classification network exported to ONNX (models/verifier.md):
input [N, 3, s, s] RGB 0..1, output [N, 2] probabilities, metadata `names` with the classes
`tile` and `not_tile`, and `imgsz`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from dominocam.errors import UserInputError
from dominocam.vision.classifier import as_probabilities, classifier_input, run_classifier
from dominocam.vision.onnx_model import metadata, open_session, parse_names

TILE_CLASS = "tile"
NOT_TILE_CLASS = "not_tile"
# The crop's side is the box's length times (1 + CONTEXT): a little of the table around the
# tile, enough to show its edges and the side faces of a tilted tile.
CONTEXT = 0.2


def crop_frames(corners: np.ndarray) -> np.ndarray:
    """Where `verifier_crop` takes each box's crop from, for N boxes at once: (N, 3, 2)
    float32 source points of the crop's top-left, top-right and bottom-right corners, a
    square as wide as the box's length plus `CONTEXT`."""
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    centre = c.mean(axis=1)
    top, bottom = (c[:, 0] + c[:, 1]) / 2, (c[:, 2] + c[:, 3]) / 2
    length = np.linalg.norm(bottom - top, axis=1)
    flat = length < 1e-6
    # A box without length (degenerate corners): its extent, looked at upright.
    extent = np.maximum(np.maximum(np.ptp(c[:, :, 0], axis=1), np.ptp(c[:, :, 1], axis=1)), 1.0)
    length = np.where(flat, extent, length)
    down = np.where(
        flat[:, None], [0.0, 1.0], (bottom - top) / np.where(flat, 1.0, length)[:, None]
    )
    right = np.stack([-down[:, 1], down[:, 0]], axis=1)  # screen x of the crop, clockwise of down
    half = (length * (1 + CONTEXT) / 2)[:, None]
    src = np.stack(
        [
            centre - half * right - half * down,
            centre + half * right - half * down,
            centre + half * right + half * down,
        ],
        axis=1,
    ).astype(np.float32)
    return src


def verifier_crop(image: np.ndarray, corners: np.ndarray, side: int = 64) -> np.ndarray:
    """A square (side, side, 3) crop of `image` centred on the box `corners`, turned so that
    the box's long axis is vertical (corners[0]-corners[1] at the top), the box's length
    plus `CONTEXT` across. Pixels beyond the image repeat its edge: a flat colour would
    tell the network "at the border", which says nothing about a tile."""
    return _warp(image, crop_frames(corners)[0], side)


def _warp(image: np.ndarray, src: np.ndarray, side: int) -> np.ndarray:
    dst = np.array([[0, 0], [side, 0], [side, side]], dtype=np.float32) - 0.5
    warp = cv2.getAffineTransform(src, dst)
    # Bilinear at every size: OpenCV's warps have no area filter (they take INTER_AREA as
    # INTER_LINEAR), so a large box is sampled, not averaged. The verifier was trained on
    # crops cut this way; a true area filter would show it a softer crop than it learned.
    return cv2.warpAffine(
        image, warp, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


class Verifier:
    """An ONNX classifier telling a real tile's box from one that holds something else.

    Args:
        path: the .onnx file (see the module docstring).
        threads: onnxruntime intra-op threads; None for all cores.
        max_batch: the most crops sent in one call when the batch size is dynamic.

    Raises:
        UserInputError: the file is missing or its classes are not `tile` and `not_tile`.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, threads: int | None = None, max_batch: int = 64
    ) -> None:
        self.path = Path(path)
        self.session = open_session(self.path, threads)
        meta = metadata(self.session)
        names = parse_names(meta, self.path)
        order = sorted(names)
        columns = {names[k]: i for i, k in enumerate(order)}
        if set(columns) != {TILE_CLASS, NOT_TILE_CLASS}:
            raise UserInputError(
                f"{self.path}: a verifier's classes must be {TILE_CLASS!r} and "
                f"{NOT_TILE_CLASS!r}, got {sorted(columns)}"
            )
        self.tile_column = columns[TILE_CLASS]
        self.input = classifier_input(self.session, meta, self.path, "verifier", max_batch)
        self.side = self.input.side

    def crops(self, image: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
        """(N, s, s, 3) uint8 BGR crops of the boxes (`verifier_crop`)."""
        out = np.empty((len(corners), self.side, self.side, 3), dtype=np.uint8)
        if len(corners):
            src = crop_frames(np.asarray(corners))
            for i in range(len(out)):
                out[i] = _warp(image, src[i], self.side)
        return out

    def classify(self, crops: np.ndarray) -> np.ndarray:
        """(N, s, s, 3) uint8 BGR crops -> (N,) probability that each holds a tile."""
        if len(crops) == 0:
            return np.zeros(0)
        scores = run_classifier(self.session, self.input, crops)
        if scores.shape[1] != 2:
            raise UserInputError(f"{self.path}: output has {scores.shape[1]} classes, not 2")
        return as_probabilities(scores)[:, self.tile_column]

    def scores(self, image: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
        """(N,) probability that each box of `corners` (in `image`, full resolution) holds a
        real tile."""
        return self.classify(self.crops(image, corners))
