"""Joint decoding: collisions in one set, values above the set, adjacency, warnings."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dominocam.vision.decode import joint_decode, set_tiles
from dominocam.vision.scene import SceneTile

SQUARE = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], float)


def half(dist: dict[int, float], size: int = 13) -> np.ndarray:
    """A probability vector over 0..size-1 with the given masses (rest spread evenly)."""
    p = np.zeros(size)
    for v, m in dist.items():
        p[v] = m
    rest = 1.0 - p.sum()
    others = [v for v in range(size) if v not in dist]
    p[others] = rest / len(others)
    return p


def up(tile_id: int, h0: dict[int, float], h1: dict[int, float], size: int = 13) -> SceneTile:
    corners = SQUARE + np.array([30 * tile_id, 0])
    return SceneTile(
        id=tile_id,
        face="up",
        corners=corners,
        confidence=0.9,
        half_probs=np.stack([half(h0, size), half(h1, size)]),
    )


def test_set_tiles_counts():
    assert [len(set_tiles(n)) for n in (6, 9, 12, 15)] == [28, 55, 91, 136]


def test_independent_reads_when_no_collision():
    tiles = [up(0, {3: 0.9}, {7: 0.8}), up(1, {5: 0.95}, {5: 0.9})]
    out, warnings = joint_decode(tiles, 12)
    assert [t.pips for t in out] == [(3, 7), (5, 5)]
    assert warnings == []
    assert out[0].pip_confidence == pytest.approx((0.9, 0.8))


def test_collision_the_less_likely_read_keeps_its_reading_and_becomes_doubtful():
    # Both read as 6-4; tile 1 is less sure and its second choice for one half is 8. The set
    # allows one 4-6, but 4-8 is less likely for tile 1 than its own 4-6: it is not moved.
    tiles = [
        up(0, {6: 0.95}, {4: 0.95}),
        up(1, {6: 0.6, 8: 0.35}, {4: 0.9}),
    ]
    out, warnings = joint_decode(tiles, 12)
    assert [t.pips for t in out] == [(4, 6), (4, 6)]
    assert [t.doubtful for t in out] == [False, True]
    assert len(warnings) == 1
    assert "tiles 0 and 1 are both read 4-6" in warnings[0]
    assert "tile 1 may be misread (it could be 4-8" in warnings[0]


def test_collision_never_turns_a_doubtful_read_into_a_confident_wrong_one():
    # The case of the issue: "12-12 (p=0.40) changed to 5-11 (p=0.00)".
    tiles = [up(0, {12: 0.99}, {12: 0.99}), up(1, {12: 0.63, 5: 0.01}, {12: 0.63, 11: 0.01})]
    out, warnings = joint_decode(tiles, 12)
    assert out[1].pips == (12, 12) and out[1].doubtful
    assert not any("changed to" in w for w in warnings)


def test_collision_chain_marks_doubtful_instead_of_moving():
    # 0 is surely 1-2. 1 reads 1-2 or else 2-3; 2 reads 2-3 or else 2-4. The assignment would
    # give 2-3 to tile 1 and push tile 2 to 2-4, each less likely than its own reading: tile 1
    # keeps 1-2 as doubtful, and tile 2, whose 2-3 nobody else now has, keeps it plainly.
    tiles = [
        up(0, {1: 0.99}, {2: 0.99}),
        up(1, {1: 0.6, 3: 0.39}, {2: 0.99}),
        up(2, {3: 0.6, 4: 0.39}, {2: 0.99}),
    ]
    out, warnings = joint_decode(tiles, 12)
    assert [t.pips for t in out] == [(1, 2), (1, 2), (2, 3)]
    assert [t.doubtful for t in out] == [False, True, False]
    assert len(warnings) == 1 and "it could be 2-3" in warnings[0]


def test_value_above_the_set_is_impossible():
    tiles = [up(0, {13: 0.7, 12: 0.25}, {2: 0.9}, size=16)]
    out, warnings = joint_decode(tiles, 12)
    assert out[0].pips == (2, 12)
    assert any("more than a double-12 set" in w for w in warnings)


def test_smaller_reader_vocabulary_is_padded():
    tiles = [up(0, {3: 0.9}, {6: 0.9}, size=7)]
    out, _ = joint_decode(tiles, 12)
    assert out[0].pips == (3, 6)


def test_orientation_turns_corners_so_half0_shows_the_smaller_value():
    tile = up(0, {9: 0.9}, {2: 0.9})
    out, _ = joint_decode([tile], 12)
    assert out[0].pips == (2, 9)
    assert np.allclose(out[0].corners, np.roll(tile.corners, -2, axis=0))
    assert np.argmax(out[0].half_probs[0]) == 2  # probabilities follow the corners
    assert out[0].pip_confidence == pytest.approx((0.9, 0.9))
    # Decoding again is stable (same corners, same pips).
    again, _ = joint_decode(out, 12)
    assert again[0].pips == (2, 9) and np.allclose(again[0].corners, out[0].corners)


def test_face_down_and_unread_tiles_pass_through():
    down = SceneTile(id=0, face="down", corners=SQUARE, confidence=0.8)
    unread = SceneTile(id=1, face="up", corners=SQUARE, confidence=0.8)
    out, warnings = joint_decode([down, unread], 12)
    assert out[0].pips is None and out[1].pips is None and warnings == []


def test_more_tiles_than_the_set_reads_independently_with_a_warning():
    tiles = [up(i, {0: 0.9}, {0: 0.9}) for i in range(29)]
    out, warnings = joint_decode(tiles, 6)
    assert all(t.pips == (0, 0) for t in out)
    assert any("double-6 set has only 28" in w for w in warnings)


def test_adjacency_hook_corrects_a_doubtful_half():
    # Tile 0's half 1 is surely 5. Tile 1's half 0 touches it; alone it reads 6 (0.55)
    # rather than 5 (0.4): the pooled evidence makes it 5.
    tiles = [up(0, {2: 0.9}, {5: 0.95}), up(1, {6: 0.55, 5: 0.4}, {9: 0.9})]
    alone, _ = joint_decode(tiles, 12)
    assert alone[1].pips == (6, 9)
    out, warnings = joint_decode(tiles, 12, adjacency_constraints=[((0, 1), (1, 0))])
    assert out[1].pips == (5, 9)
    assert out[0].pips == (2, 5)
    assert len(warnings) == 1 and "tile 1" in warnings[0] and "must match tile 0" in warnings[0]
    # The warning shows the evidence that moved it: on its own 5-9 is the less likely read,
    # with the half it touches the likelier.
    assert warnings[0].startswith("tile 1 read 6-9 (p=0.50) changed to 5-9: a touching half")
    pooled = re.search(r"5-9 is the likelier \(p=([\d.]+) against ([\d.]+) for 6-9\)", warnings[0])
    assert pooled is not None and float(pooled[1]) > float(pooled[2])


def test_adjacency_rejects_unknown_halves():
    tiles = [up(0, {2: 0.9}, {5: 0.95})]
    with pytest.raises(ValueError, match="unknown half"):
        joint_decode(tiles, 12, adjacency_constraints=[((0, 1), (7, 0))])


def test_all_zero_probabilities_do_not_crash():
    tile = SceneTile(id=0, face="up", corners=SQUARE, confidence=0.5, half_probs=np.zeros((2, 13)))
    out, _ = joint_decode([tile], 12)
    assert out[0].pips is not None
