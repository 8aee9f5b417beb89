"""The calibrated tile probability and what follows from it (vision.confidence): hand-made
cases with the committed thresholds, joint decoding never hiding a doubt, the Scene's review."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision.confidence import (
    FEATURES,
    Calibration,
    Logistic,
    box_features,
    load_calibration,
    mark_doubtful,
    probabilities,
    reject_boxes,
    review_scene,
)
from dominocam.vision.decode import joint_decode
from dominocam.vision.layout import layout_scene
from dominocam.vision.scene import Scene, SceneTile

SQUARE = np.array([[0, 0], [20, 0], [20, 40], [0, 40]], float)


def committed() -> Calibration:
    calibration = load_calibration(required=True)
    assert calibration is not None
    return calibration


def by_detector_score(calibration: Calibration) -> Calibration:
    """The committed thresholds on models that are the detector's score itself (p = det), so
    that a hand-made box has exactly the probability its score says."""
    identity = Logistic(FEATURES, tuple(float(f == "det") for f in FEATURES), 0.0)
    return replace(calibration, tile=identity, right=identity)


def half(value: int, p: float, size: int = 13) -> np.ndarray:
    out = np.full(size, (1.0 - p) / (size - 1))
    out[value] = p
    return out


def up(tile_id: int, a: int, b: int, p: float = 0.99, det: float = 0.95, x: float = 0.0):
    return SceneTile(
        tile_id,
        "up",
        SQUARE + np.array([x or 60.0 * tile_id + 100, 100]),
        det,
        half_probs=np.stack([half(a, p), half(b, p)]),
    )


def test_the_committed_calibration_loads_and_its_thresholds_are_ordered():
    calibration = committed()
    assert 0 <= calibration.review_rejected <= calibration.reject_below <= 1
    assert calibration.reject_below < calibration.doubtful_below <= 1
    assert set(calibration.features) <= set(FEATURES) | {"verifier"}


def test_a_box_read_at_p_001_is_not_a_tile():
    calibration = by_detector_score(committed())
    tiles = [up(0, 3, 5, det=0.01), up(1, 2, 6, det=0.99)]
    kept, rejected, p_tile = reject_boxes(tiles, calibration, 12)
    assert [t.pips for t in joint_decode(kept, 12)[0]] == [(2, 6)]
    assert len(rejected) == 1 and rejected[0].pips == (3, 5)
    assert rejected[0].probability == pytest.approx(0.01) and p_tile == pytest.approx((0.01,))


def test_a_tile_at_p_06_is_doubtful_but_stays_a_tile():
    calibration = by_detector_score(committed())
    kept, rejected, _ = reject_boxes([up(0, 4, 4, det=0.6)], calibration, 12)
    assert rejected == []
    (tile,) = mark_doubtful(joint_decode(kept, 12)[0], calibration)
    assert tile.probability == pytest.approx(0.6) and tile.doubtful


def test_a_sure_tile_is_neither_rejected_nor_doubtful():
    calibration = by_detector_score(committed())
    (tile,) = mark_doubtful([replace(up(0, 1, 2, det=0.995), pips=(1, 2))], calibration)
    assert not tile.doubtful


def test_committed_models_reject_a_weak_box_read_near_zero_and_trust_a_clear_tile():
    calibration = committed()
    junk = SceneTile(0, "up", SQUARE, 0.3, (1, 3), (0.01, 0.02), verifier_score=0.05)
    # Every score near certain: the detector's, both halves' and the verifier's.
    clear = SceneTile(1, "up", SQUARE, 0.97, (2, 5), (0.9999, 0.9999), verifier_score=0.999)
    p_tile, p_right = probabilities([junk, clear], calibration)
    assert p_tile[0] < calibration.reject_below <= p_tile[1]
    assert p_right[1] >= calibration.doubtful_below > p_right[0]
    assert np.all(p_right <= p_tile)


def test_the_probability_rises_with_each_score():
    calibration = committed()
    base = box_features("up", 0.7, (0.7, 0.9), verifier=0.5)
    for name, better in (
        ("det", box_features("up", 0.9, (0.7, 0.9), verifier=0.5)),
        ("half_lo", box_features("up", 0.7, (0.9, 0.9), verifier=0.5)),
        ("verifier", box_features("up", 0.7, (0.7, 0.9), verifier=0.9)),
    ):
        low, high = calibration.right.predict([base, better])
        assert high > low, name


@pytest.mark.parametrize("seed", range(40))
def test_joint_decoding_never_leaves_a_tile_below_the_threshold_unmarked(seed: int):
    # Random reads with collisions (few distinct values) and touching halves: whatever the
    # decoder does, a tile whose probability ends below the threshold is marked doubtful,
    # and a reading moves only where its own (pooled) evidence is at least as strong.
    rng = np.random.default_rng(seed)
    calibration = committed()
    tiles = []
    for i in range(int(rng.integers(2, 7))):
        probs = rng.dirichlet(np.full(4, 0.5), size=2)  # values 0..3 only: reads collide
        padded = np.zeros((2, 13))
        padded[:, :4] = probs
        tiles.append(
            SceneTile(
                i,
                "up",
                SQUARE + 60 * i,
                float(rng.uniform(0.3, 1.0)),
                half_probs=padded,
                verifier_score=float(rng.uniform(0.05, 1.0)),
            )
        )
    singles = [joint_decode([t], 12)[0][0] for t in tiles]
    constraints = [((0, 1), (1, 0))] if rng.random() < 0.5 else []
    decoded, _ = joint_decode(tiles, 12, constraints)
    marked = mark_doubtful(decoded, calibration)
    for single, tile in zip(singles, marked, strict=True):
        assert tile.probability is not None
        if tile.probability < calibration.doubtful_below:
            assert tile.doubtful
        touched = any(tile.id == ref[0] for pair in constraints for ref in pair)
        if not touched:  # only the halves it touches can move a reading
            assert tile.pips == single.pips


def test_review_names_doubtful_tiles_cut_tiles_and_rejected_boxes_in_players_words():
    calibration = committed()
    cut = SceneTile(
        1, "up", SQUARE + np.array([0, 100]), 0.99, (2, 2), (0.99, 0.99), probability=0.99
    )
    doubtful = replace(
        up(0, 5, 6, p=0.55),
        pips=(5, 6),
        pip_confidence=(0.55, 0.55),
        probability=0.4,
        doubtful=True,
    )
    scene = Scene(640, 480, [doubtful, cut])
    from dominocam.vision.scene import RejectedBox

    scene = replace(scene, rejected=[RejectedBox(SQUARE + 300, 0.1, "up", (1, 1))])
    reviewed = review_scene(scene, calibration, 12, rejected_p_tile=[0.45])
    assert reviewed.needs_review
    text = "\n".join(reviewed.warnings)
    assert "Tile 5-6 (#0) may be misread (it could be" in text
    assert "cut by the edge of the picture" in text
    assert "may be one (p=0.45)" in text


def test_a_clear_scene_needs_no_review():
    calibration = committed()
    tiles = [
        SceneTile(
            i,
            "up",
            SQUARE + np.array([100 + 60 * i, 100]),
            0.99,
            (i, i + 1),
            (0.999, 0.999),
            probability=0.99,
        )
        for i in range(3)
    ]
    scene = layout_scene(Scene(640, 480, tiles))
    reviewed = review_scene(scene, calibration, 12, rejected_p_tile=[])
    assert not reviewed.needs_review and reviewed.warnings == scene.warnings


def test_a_layout_doubt_asks_for_a_review():
    calibration = committed()
    scene = Scene(640, 480, [SceneTile(0, "up", SQUARE + 100, 0.99, (1, 2), (0.99, 0.99))])
    scene = replace(scene, layout=replace(scene.layout, doubts=["a line may be broken"]))
    assert review_scene(scene, calibration, 12).needs_review


def test_a_missing_or_broken_calibration_file_is_a_clear_error(tmp_path):
    with pytest.raises(UserInputError, match="dominocam calibrate"):
        load_calibration(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(UserInputError, match="not a calibration file"):
        load_calibration(bad)


def test_a_calibration_that_needs_the_verifier_says_so():
    calibration = committed()
    with_verifier = Logistic(
        (*FEATURES, "verifier"), (1.0,) + (0.0,) * (len(FEATURES) - 1) + (1.0,), 0.0
    )
    needs = replace(calibration, tile=with_verifier)
    with pytest.raises(UserInputError, match="verifier"):
        probabilities([SceneTile(0, "down", SQUARE, 0.9)], needs)


def test_the_verifier_score_is_a_feature_when_the_calibration_has_it():
    calibration = committed()
    names = (*FEATURES, "verifier")
    only_verifier = Logistic(names, tuple(float(f == "verifier") for f in names), 0.0)
    uses = replace(calibration, tile=only_verifier, right=only_verifier)
    tiles = [
        SceneTile(0, "up", SQUARE, 0.9, (1, 2), (0.9, 0.9), verifier_score=0.1),
        SceneTile(1, "up", SQUARE + 50, 0.9, (3, 4), (0.9, 0.9), verifier_score=0.95),
    ]
    p_tile, _ = probabilities(tiles, uses)
    assert p_tile == pytest.approx([0.1, 0.95])
    assert SceneTile(0, "up", SQUARE, 0.9, verifier_score=0.5).to_dict()["verifier_score"] == 0.5


def _lying(tile_id: int, x: float, pips: tuple[int, int]) -> SceneTile:
    """A sure face-up tile lying along x, 80 px long, pips[0] at its left end."""
    corners = np.array([[x, 100], [x, 140], [x + 80, 140], [x + 80, 100]], float)
    return SceneTile(tile_id, "up", corners, 0.99, pips, (0.999, 0.999), probability=0.99)


@pytest.mark.parametrize(
    ("box_x", "asks"),
    [
        (241.0, True),  # 1 px past the open end 3: where a tile would be played
        (255.0, True),  # a gap of 15 px, under half a width
        (290.0, False),  # 50 px: room enough for a tile in between, no longer against it
    ],
)
def test_a_box_left_out_against_an_open_end_asks_for_a_review_whatever_its_p(box_x, asks):
    from dominocam.vision.scene import RejectedBox

    calibration = committed()
    scene = layout_scene(Scene(640, 480, [_lying(0, 80, (1, 2)), _lying(1, 160, (2, 3))]))
    assert sorted(scene.layout.open_ends) == [1, 3]
    box = np.array([[box_x, 100], [box_x, 140], [box_x + 80, 140], [box_x + 80, 100]], float)
    scene = replace(scene, rejected=[RejectedBox(box, 0.01, "up", (3, 5))])
    reviewed = review_scene(scene, calibration, 12, rejected_p_tile=[0.01])
    assert reviewed.needs_review is asks
    assert any("against the open end 3 of tile #1" in w for w in reviewed.warnings) is asks


def test_a_box_left_out_beside_a_line_asks_nothing():
    from dominocam.vision.scene import RejectedBox

    calibration = committed()
    scene = layout_scene(Scene(640, 480, [_lying(0, 80, (1, 2)), _lying(1, 160, (2, 3))]))
    beside = np.array([[160, 160], [160, 200], [240, 200], [240, 160]], float)  # below a tile
    scene = replace(scene, rejected=[RejectedBox(beside, 0.01, "up", (3, 5))])
    assert not review_scene(scene, calibration, 12, rejected_p_tile=[0.01]).needs_review


def test_a_double_left_out_crosswise_at_an_open_end_is_against_it():
    from dominocam.vision.layout import boxes_at_open_ends

    scene = layout_scene(Scene(640, 480, [_lying(0, 80, (1, 2)), _lying(1, 160, (2, 3))]))
    crosswise = np.array([[242, 80], [282, 80], [282, 160], [242, 160]], float)
    found = boxes_at_open_ends(scene, crosswise[None])
    assert [(i, end.value, end.tile) for i, end in found] == [(0, 3, 1)]
