"""The pip reader: an ultralytics classification model on half crops, run with onnxruntime.

Each face-up tile is rectified from the ORIGINAL full-resolution image (never the letterboxed
detector input), split into two square halves with the divider at the bottom
(`geometry.split_halves_many`), and all halves of all tiles go through the network in one
batched call (in chunks of the model's fixed batch size when it has one).

A reader may also have a class `back` (`BACK_CLASS`): the half of a tile lying face down.
Its probability is reported apart (`HalfReads.back`), and the pip values are the
probabilities given that the crop shows a face. The pipeline uses it as a second opinion on
the detector's face up / face down (`dominocam.vision.pipeline`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dominocam.errors import UserInputError
from dominocam.vision import geometry
from dominocam.vision.classifier import as_probabilities, classifier_input, run_classifier
from dominocam.vision.onnx_model import metadata, open_session, parse_names

# The class of a half crop cut from a face-down tile (the generator writes such crops).
BACK_CLASS = "back"
# A tile shows its back when both its halves read as a back with at least this probability
# (`shows_back`); one half is not enough, a blank face half can look like a plain back.
BACK_MIN = 0.5
# Turning a tile the detector saw face up face down is sure only when both halves read as a
# back at this probability or more; under it the two models disagree and the tile is
# doubtful (`dominocam.vision.pipeline.backs_face_down`), for a person to look at. Chosen on two
# dominosynth 0.3.0 sets no committed model was trained on (v4-synth-s75 and rj-synth-s51,
# train splits; `python -m studies.turned_backs`): of 182 tiles turned under 0.9, 68 truly
# lay face up or were no tile (1 in 3; 37 of them not doubtful, so counted wrong without a
# word); of 110 turned at 0.9 or more, 2 (1 in 55). `doubtful_below` 0.85 tolerates about
# 1 in 7 in a tile's reading (docs/decisions/2026-12-01-looking-at-the-gap.md).
BACK_SURE = 0.9


@dataclass(frozen=True)
class HalfReads:
    """What the reader sees in half crops.

    Attributes:
        values: (..., V) probabilities of pip values 0..V-1, given that the crop shows a face.
        back: (...) probability that the crop shows a tile's back; zeros for a reader without
            a `back` class.
    """

    values: np.ndarray
    back: np.ndarray


def shows_back(back: np.ndarray) -> np.ndarray:
    """(..., 2) back probabilities of a tile's two halves -> (...) bool: the tile shows its
    back (both halves at `BACK_MIN` or more)."""
    return np.asarray(back, dtype=np.float64).min(axis=-1) >= BACK_MIN


class Reader:
    """An ONNX half-crop classifier; classes are pip counts ("0".."12", maybe up to "15"),
    and maybe `back` (`BACK_CLASS`).

    Args:
        path: the .onnx file (ultralytics classify export: input [N, 3, s, s] RGB 0..1,
            output [N, classes] probabilities; metadata `names` and `imgsz`).
        threads: onnxruntime intra-op threads; None for all cores.
        max_batch: the most halves sent in one call when the batch size is dynamic.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, threads: int | None = None, max_batch: int = 128
    ) -> None:
        self.path = Path(path)
        self.session = open_session(self.path, threads)
        meta = metadata(self.session)
        names = parse_names(meta, self.path)
        order = sorted(names)
        # Output columns of the pip values, and of the back class when there is one.
        self.value_columns = np.array([i for i, k in enumerate(order) if names[k] != BACK_CLASS])
        backs = [i for i, k in enumerate(order) if names[k] == BACK_CLASS]
        self.back_column = backs[0] if backs else None
        try:
            self.class_values = np.array(
                [int(names[order[i]]) for i in self.value_columns], dtype=np.int64
            )
        except ValueError as error:
            raise UserInputError(
                f"{self.path}: reader classes must be pip counts like '0'..'12' (and maybe "
                f"'{BACK_CLASS}'), got {names}"
            ) from error
        if not len(self.class_values):
            raise UserInputError(f"{self.path}: no pip-count class in {names}")
        if (self.class_values < 0).any():
            raise UserInputError(f"{self.path}: negative pip count in class names {names}")
        self.num_values = int(self.class_values.max()) + 1
        self.input = classifier_input(self.session, meta, self.path, "reader", max_batch)
        self.side = self.input.side
        self.fixed_batch = self.input.fixed_batch

    def crops(self, image: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
        """Half crops of tiles: (N, 2, s, s, 3) uint8 BGR, half 0 then half 1 of each tile.

        Args:
            image: the original BGR uint8 image, HxWx3.
            corners: N (4, 2) corner arrays in the tile convention of `dominocam.vision.geometry`.
        """
        tiles = np.empty((len(corners), 2 * self.side, self.side, 3), dtype=np.uint8)
        for i, c in enumerate(corners):
            tiles[i] = geometry.rectify_tile(image, c, self.side)
        return geometry.split_halves_many(tiles)

    @property
    def has_back(self) -> bool:
        """Whether the network tells a tile's back from its faces."""
        return self.back_column is not None

    def classify(self, crops: np.ndarray) -> np.ndarray:
        """(M, s, s, 3) BGR uint8 crops -> (M, V) probabilities of pip values 0..V-1."""
        return self.classify_halves(crops).values

    def classify_halves(self, crops: np.ndarray) -> HalfReads:
        """(M, s, s, 3) BGR uint8 crops -> their pip values (M, V) and back probability (M,)."""
        if len(crops) == 0:
            return HalfReads(np.zeros((0, self.num_values)), np.zeros(0))
        scores = run_classifier(self.session, self.input, crops)
        classes = len(self.class_values) + self.has_back
        if scores.shape[1] != classes:
            raise UserInputError(
                f"{self.path}: output has {scores.shape[1]} classes but metadata names {classes}"
            )
        probs = as_probabilities(scores)
        back = probs[:, self.back_column] if self.has_back else np.zeros(len(probs))
        faces = probs[:, self.value_columns]
        # Given a face: renormalised over the pip values (a sure back leaves them uniform).
        total = faces.sum(axis=1, keepdims=True)
        faces = np.where(total > 1e-12, faces / np.maximum(total, 1e-12), 1.0 / faces.shape[1])
        by_value = np.zeros((len(probs), self.num_values))
        np.add.at(by_value.T, self.class_values, faces.T)
        return HalfReads(by_value, back)

    def read(self, image: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
        """Read both halves of each tile: (N, 2, V) probabilities of pip values 0..V-1.

        Half 0 is the end at corners[0]-corners[1], half 1 the other end.
        """
        return self.read_halves(image, corners).values

    def read_halves(self, image: np.ndarray, corners: Sequence[np.ndarray]) -> HalfReads:
        """`read`, with the probability that each half is a tile's back: values (N, 2, V),
        back (N, 2)."""
        if len(corners) == 0:
            return HalfReads(np.zeros((0, 2, self.num_values)), np.zeros((0, 2)))
        crops = self.crops(image, corners)
        reads = self.classify_halves(crops.reshape(-1, self.side, self.side, 3))
        return HalfReads(
            reads.values.reshape(len(corners), 2, self.num_values),
            reads.back.reshape(len(corners), 2),
        )
