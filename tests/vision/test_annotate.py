"""The annotated picture: doubtful tiles in red, rejected boxes dashed and grey."""

from __future__ import annotations

import numpy as np

from dominocam.vision.annotate import DOUBT_COLOUR, REJECTED_COLOUR, UP_COLOUR, annotate
from dominocam.vision.scene import RejectedBox, Scene, SceneTile


def box(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 40, y], [x + 40, y + 120], [x, y + 120]], float)


def edge_pixels(image: np.ndarray, corners: np.ndarray, colour: tuple[int, int, int]) -> float:
    """Share of the points along the box's left edge drawn in `colour`."""
    x = int(corners[0, 0])
    ys = range(int(corners[0, 1]) + 2, int(corners[3, 1]) - 2)
    hits = [np.abs(image[y, x].astype(int) - colour).max() < 40 for y in ys]
    return float(np.mean(hits))


def test_rejected_boxes_are_dashed_grey_and_doubtful_tiles_red():
    sure = SceneTile(0, "up", box(20, 40), 0.99, (1, 2), (0.99, 0.99), probability=0.99)
    doubtful = SceneTile(
        1, "up", box(120, 40), 0.9, (3, 4), (0.6, 0.9), probability=0.5, doubtful=True
    )
    rejected = RejectedBox(box(220, 40), 0.03, "up", (0, 5))
    scene = Scene(320, 200, [sure, doubtful], needs_review=True, rejected=[rejected])
    out = annotate(np.zeros((200, 320, 3), np.uint8), scene)
    assert edge_pixels(out, sure.corners, UP_COLOUR) > 0.8
    assert edge_pixels(out, doubtful.corners, DOUBT_COLOUR) > 0.8
    dashed = edge_pixels(out, rejected.corners, REJECTED_COLOUR)
    assert 0.3 < dashed < 0.7  # drawn, but in dashes


def test_a_scene_without_probabilities_keeps_the_old_doubt_rule():
    weak = SceneTile(0, "up", box(20, 40), 0.99, (1, 2), (0.5, 0.99))
    out = annotate(np.zeros((200, 320, 3), np.uint8), Scene(320, 200, [weak]))
    assert edge_pixels(out, weak.corners, DOUBT_COLOUR) > 0.8
