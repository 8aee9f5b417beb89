"""The reader's second opinion on face up / face down
(`dominocam.vision.pipeline.backs_face_down`)."""

from __future__ import annotations

import numpy as np
from vision_factories import tile_corners

from dominocam.vision.pipeline import backs_face_down
from dominocam.vision.reader import BACK_MIN, BACK_SURE, HalfReads
from dominocam.vision.scene import SceneTile


def _tiles(faces: list[str]) -> list[SceneTile]:
    return [
        SceneTile(id=i, face=face, corners=tile_corners(60 + 100 * i, 60), confidence=0.9)
        for i, face in enumerate(faces)
    ]


def _reads(backs: list[tuple[float, float]]) -> HalfReads:
    values = np.full((len(backs), 2, 13), 1 / 13)
    return HalfReads(values, np.array(backs, dtype=float))


def test_a_face_up_box_with_a_back_on_both_halves_is_counted_face_down():
    tiles = _tiles(["up", "up", "down", "up"])
    up = [tiles[0], tiles[1], tiles[3]]
    for tile in up:
        tile.half_probs = np.full((2, 13), 1 / 13)
    out, warnings = backs_face_down(tiles, up, _reads([(0.9, 0.8), (0.1, 0.0), (0.7, 0.6)]))
    assert [t.face for t in out] == ["down", "up", "down", "down"]
    assert out[0].half_probs is None and out[3].half_probs is None
    assert out[1] is tiles[1] and out[2] is tiles[2]
    assert len(warnings) == 2 and warnings[0].startswith("tile 0:")
    assert "p>=0.80" in warnings[0] and "p>=0.60" in warnings[1]


def test_one_half_like_a_back_is_a_blank_face_and_stays_up():
    tiles = _tiles(["up"])
    out, warnings = backs_face_down(tiles, tiles, _reads([(0.99, BACK_MIN - 0.01)]))
    assert out == tiles and warnings == []


def test_a_reader_without_a_back_class_changes_nothing():
    tiles = _tiles(["up", "up"])
    out, warnings = backs_face_down(tiles, tiles, _reads([(0.0, 0.0), (0.0, 0.0)]))
    assert out is tiles and warnings == []


def test_a_tile_turned_on_a_weak_back_read_is_doubtful_and_on_a_sure_one_is_not():
    tiles = _tiles(["up", "up", "up"])
    weak, sure = BACK_SURE - 0.01, BACK_SURE
    out, _ = backs_face_down(tiles, tiles, _reads([(0.99, weak), (sure, 0.99), (1.0, 1.0)]))
    assert [t.face for t in out] == ["down", "down", "down"]
    # The detector saw a face and the reader a back, neither surely: a person decides.
    assert [t.doubtful for t in out] == [True, False, False]


def test_a_doubtful_tile_stays_doubtful_when_turned_on_a_sure_back_read():
    tiles = _tiles(["up"])
    tiles[0].doubtful = True
    out, _ = backs_face_down(tiles, tiles, _reads([(1.0, 1.0)]))
    assert out[0].face == "down" and out[0].doubtful


def test_calibration_keeps_the_doubt_of_a_weakly_turned_tile():
    from dominocam.vision.confidence import Calibration, Logistic, mark_doubtful

    tiles = _tiles(["up"])
    out, _ = backs_face_down(tiles, tiles, _reads([(0.6, 0.7)]))
    # A calibration sure of every box (p_right near 1) still leaves it doubtful.
    sure = Logistic(("det",), (0.0,), 10.0)
    calibration = Calibration(
        sure, sure, reject_below=0.5, doubtful_below=0.85, review_rejected=0.2
    )
    assessed = mark_doubtful(out, calibration)
    assert assessed[0].probability > 0.99 and assessed[0].doubtful
