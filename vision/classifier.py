"""Running a square-input image classifier exported to ONNX (the reader and the verifier).

Both networks take (N, 3, s, s) float32 RGB in 0..1 and give (N, classes) scores; this module
holds what they share: the input's side and names from the session, the crops turned into
the network's input, the run in batches (padded when the export fixed the batch size), and
scores turned into probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.vision.onnx_model import parse_imgsz


@dataclass(frozen=True)
class ClassifierInput:
    """How to feed one classifier session.

    Attributes:
        side: the square input's side in pixels.
        input_name, output_name: the session's input and first output.
        fixed_batch: the batch size the export fixed, None when the batch is dynamic.
        max_batch: the most crops sent in one run.
    """

    side: int
    input_name: str
    output_name: str
    fixed_batch: int | None
    max_batch: int


def classifier_input(
    session: Any, meta: dict[str, str], path: Path, what: str, max_batch: int
) -> ClassifierInput:
    """The input of `session` (metadata `meta` of the file `path`), which must be square;
    `what` names the model in the error ("reader", "verifier")."""
    height, width = parse_imgsz(meta, path)
    if height != width:
        raise UserInputError(f"{path}: {what} input must be square, imgsz is {height}x{width}")
    inp = session.get_inputs()[0]
    batch = inp.shape[0] if inp.shape else None
    fixed = batch if isinstance(batch, int) and batch > 0 else None
    return ClassifierInput(
        side=height,
        input_name=inp.name,
        output_name=session.get_outputs()[0].name,
        fixed_batch=fixed,
        max_batch=fixed or max(1, int(max_batch)),
    )


def network_input(crops: np.ndarray) -> np.ndarray:
    """(M, s, s, 3) BGR uint8 -> (M, 3, s, s) C-contiguous float32 RGB in 0..1.

    Written in one strided pass into a preallocated array, then scaled in place: the same
    float32 values as `astype` then multiply, without the two temporary copies.
    """
    batch = np.empty((len(crops), 3, *crops.shape[1:3]), dtype=np.float32)
    batch[...] = crops.transpose(0, 3, 1, 2)[:, ::-1]
    batch *= 1.0 / 255.0
    return batch


def run_classifier(session: Any, spec: ClassifierInput, crops: np.ndarray) -> np.ndarray:
    """(M, s, s, 3) BGR uint8 crops -> the network's raw (M, classes) scores as float64."""
    batch = network_input(crops)
    outputs = []
    for start in range(0, len(batch), spec.max_batch):
        chunk = batch[start : start + spec.max_batch]
        count = len(chunk)
        if spec.fixed_batch and count < spec.fixed_batch:
            pad = np.zeros((spec.fixed_batch - count, *chunk.shape[1:]), dtype=np.float32)
            chunk = np.concatenate([chunk, pad])
        outputs.append(session.run([spec.output_name], {spec.input_name: chunk})[0][:count])
    return np.concatenate(outputs).astype(np.float64)


def as_probabilities(scores: np.ndarray) -> np.ndarray:
    """Rows that already are probabilities stay; logits get a softmax."""
    sums = scores.sum(axis=1)
    if scores.size and (scores.min() >= 0) and np.allclose(sums, 1.0, atol=1e-3):
        return scores
    shifted = scores - scores.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)
