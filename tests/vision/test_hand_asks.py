"""A box the calibration leaves out of a hand photo asks for a review from
`dominocam.vision.settings.HAND_REVIEW_REJECTED` on (issue 36, point 2): a hand has no open end to
say which box matters, and a tile dropped from it changes the count. Read through
`dominocam.vision.reading.PhotoReader` with ONNX doubles of the models
(tests/vision/conftest.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dominocam.vision.confidence import FEATURES, Calibration, Logistic, load_calibration
from dominocam.vision.pipeline import Models, load_models
from dominocam.vision.reading import PhotoReader
from dominocam.vision.settings import HAND_REVIEW_REJECTED


def by_detector_score(reject_below: float, review_rejected: float) -> Calibration:
    """p_tile = p_right = the detector's score, so that each painted box has the
    probability its score says (0.95, 0.9, 0.85, 0.8, 0.75)."""
    committed = load_calibration(required=True)
    assert committed is not None
    identity = Logistic(FEATURES, tuple(float(f == "det") for f in FEATURES), 0.0)
    return replace(
        committed,
        tile=identity,
        right=identity,
        reject_below=reject_below,
        doubtful_below=reject_below,
        review_rejected=review_rejected,
    )


def box_questions(scene) -> list[str]:
    return [w for w in scene.warnings if getattr(w, "code", None) == "box_may_be_a_tile"]


@pytest.fixture(scope="module")
def painted_reader(double_models) -> PhotoReader:
    loaded = load_models(double_models / "detector.onnx", double_models / "reader.onnx", threads=1)
    # Boxes under 0.88 are left out: the three of 0.85, 0.8 and 0.75. The calibration's own
    # threshold (0.87) would ask about none of them.
    calibration = by_detector_score(reject_below=0.88, review_rejected=0.87)
    models = Models(loaded.detector, loaded.reader, calibration)
    return PhotoReader(models, closeups=False, far_tiles=False)


def test_a_box_left_out_of_a_hand_asks_from_the_hand_threshold(painted_table, painted_reader):
    assert HAND_REVIEW_REJECTED <= 0.75  # every left-out box of the painting lies above it
    hand = painted_reader.read(painted_table.image, "hand", 12)
    assert len(hand.tiles) == 2 and len(hand.rejected) == 3
    assert len(box_questions(hand)) == 3
    assert hand.needs_review


def test_a_table_photo_keeps_the_calibrations_threshold(painted_table, painted_reader):
    table = painted_reader.read(painted_table.image, "table", 12)
    assert len(table.rejected) == 3
    assert box_questions(table) == []


def test_the_hand_threshold_lets_a_left_out_box_ask():
    committed = load_calibration(required=True)
    assert committed is not None
    assert 0.0 <= HAND_REVIEW_REJECTED < committed.reject_below
