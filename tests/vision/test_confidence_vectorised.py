"""The one-pass forms of `dominocam.vision.confidence` give what their definitions give box by box:
`best_readings` what `joint_decode` gives each box decoded alone, `feature_matrix` the rows
of `box_features` (which `dominocam calibrate` fits on)."""

from __future__ import annotations

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision.confidence import (
    BETA_FEATURES,
    FEATURES,
    best_readings,
    box_features,
    feature_matrix,
)
from dominocam.vision.decode import joint_decode
from dominocam.vision.scene import SceneTile

SQUARE = np.array([[0, 0], [20, 0], [20, 40], [0, 40]], float)


def random_half_probs(rng: np.random.Generator, values: int) -> np.ndarray:
    """(2, values) half probabilities, often sure, sometimes flat, sometimes all zero."""
    sharp = rng.choice([0.3, 1.0, 8.0])
    probs = rng.dirichlet(np.full(values, 1.0 / sharp), size=2)
    if rng.random() < 0.05:
        probs[rng.integers(2)] = 0.0
    return probs


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("set_max", "values"), [(6, 7), (6, 13), (12, 13), (12, 16)])
def test_best_readings_are_each_box_decoded_alone(seed: int, set_max: int, values: int) -> None:
    rng = np.random.default_rng(seed)
    halves = [random_half_probs(rng, values) for _ in range(int(rng.integers(1, 12)))]
    readings, confidence = best_readings(halves, set_max)
    for probs, reading, pair in zip(halves, readings, confidence, strict=True):
        probe = SceneTile(0, "up", SQUARE, 1.0, half_probs=probs)
        (alone,), _ = joint_decode([probe], set_max)
        assert reading == alone.pips
        assert pair.tolist() == sorted(alone.pip_confidence)


def test_best_readings_of_no_box_are_empty() -> None:
    readings, confidence = best_readings([], 12)
    assert readings == [] and confidence.shape == (0, 2)


@pytest.mark.parametrize("seed", range(10))
def test_feature_matrix_holds_the_box_features_rows(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 15))
    faces = [str(rng.choice(["up", "down"])) for _ in range(n)]
    scores = rng.uniform(0, 1, n).tolist()
    scores[0] = 1.0  # a score of exactly 1 is clipped, not infinite
    pips = [
        (float(rng.uniform()), float(rng.uniform()))
        if face == "up" and rng.random() < 0.8
        else None
        for face in faces
    ]
    twice = [bool(rng.random() < 0.3) and face == "up" for face in faces]
    verifiers = rng.uniform(0, 1, n).tolist()
    features = (*FEATURES, "verifier", *BETA_FEATURES, "verifier_low", "verifier_high")
    matrix = feature_matrix(faces, scores, pips, twice, verifiers, features)
    for row, args in zip(
        matrix, zip(faces, scores, pips, twice, verifiers, strict=True), strict=True
    ):
        face, score, pair, repeated, verifier = args
        expected = box_features(face, score, pair, twice=repeated, verifier=verifier)
        assert row.tolist() == pytest.approx([expected[f] for f in features], abs=1e-12)


def test_feature_matrix_needs_a_verifier_score_where_the_calibration_uses_one() -> None:
    with pytest.raises(UserInputError, match="verifier"):
        feature_matrix(["up"], [0.9], [(0.9, 0.9)], [False], [None], (*FEATURES, "verifier"))


def test_the_sides_of_each_score_add_up_to_its_logit() -> None:
    """ln p + -ln(1 - p) is the logit: a fit on the sides can fit whatever one on the logits
    fits (beta calibration)."""
    row = box_features("up", 0.8, (0.3, 0.99), twice=True, verifier=1.0)
    for name in ("det", "half_lo", "half_hi", "verifier"):
        assert row[f"{name}_low"] + row[f"{name}_high"] == pytest.approx(row[name])
    assert row["half_lo_low"] == pytest.approx(np.log(0.3))
    assert row["half_lo_high"] == pytest.approx(-np.log(0.7))
    assert row["down_det_low"] == row["down_det_high"] == 0.0
    down = box_features("down", 0.6, None, verifier=0.5)
    assert down["det_low"] == down["half_lo_low"] == down["half_hi_high"] == 0.0
    assert down["down_det_low"] + down["down_det_high"] == pytest.approx(down["down_det"])
    unread = box_features("up", 0.9, None)
    assert unread["half_lo_low"] + unread["half_lo_high"] == pytest.approx(unread["half_lo"])
    assert "verifier_low" not in unread
