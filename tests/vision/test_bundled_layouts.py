"""The committed models (detector, verifier, reader, calibration) read committed pictures:
a T-junction with the right free ends, from the picture alone (no variant named: `dominocam
read`'s layout kind `auto`), and a Block table with one tile of its line painted over, for
the look at the gap before "a tile may be missing". Pictures without any tile:
test_bundled_not_tiles.py.

`tests/assets/layouts/spinner-t-s31-000.jpg` is a `dominocam synth` table (tests/assets/
README.md says how it was made): a double carrying three lines, a T-junction, with the truth
JSON the generator wrote beside it. Its free ends are the ends of the three lines and the
double's unplayed place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dominocam.vision import pipeline
from dominocam.vision.image_io import load_image

PICTURE = Path(__file__).resolve().parents[1] / "assets" / "layouts" / "spinner-t-s31-000.jpg"


@pytest.fixture(scope="module")
def scene():
    models = pipeline.load_models()
    truth = json.loads(PICTURE.with_suffix(".json").read_text())
    return truth, pipeline.read_image(
        load_image(PICTURE),
        models.detector,
        models.reader,
        set_max=truth["set"],
        calibration=models.calibration,
    )


def test_the_picture_is_a_t_junction() -> None:
    truth = json.loads(PICTURE.with_suffix(".json").read_text())
    played = [line for line in truth["lines"] if len(line["tiles"]) > 1]
    roots = {line["tiles"][0] for line in played}
    assert len(played) == 3 and len(roots) == 1, "three lines from one tile: a T"
    assert all(t["visible_fraction"] >= 0.97 for t in truth["tiles"])


def test_a_t_junction_gives_the_right_free_ends(scene) -> None:
    truth, read = scene
    true_up = sorted(tuple(t["pips"]) for t in truth["tiles"] if t["face"] == "up")
    assert sorted(t.pips for t in read.tiles if t.face == "up") == true_up
    true_ends = sorted(line["open_end"]["value"] for line in truth["lines"] if line["open_end"])
    assert len(true_ends) == 4
    assert sorted(read.layout.open_ends) == true_ends
    assert read.layout.kind == "auto"


def test_a_clear_t_junction_needs_no_review(scene) -> None:
    _, read = scene
    assert not read.needs_review and read.rejected == []
    assert all(t.probability is not None and not t.doubtful for t in read.tiles)


# --- the look at a gap where a tile may be missing (vision.layout.GAP_MAY_HOLD_TILE) --------

BLOCK_TABLE = Path(__file__).resolve().parents[1] / "assets" / "bundled" / "default-s22-003.jpg"
# The truth id of a tile in the middle of the table's straight line: painted over, the tiles
# past it lie beyond the line's open end, in line, a tile's room away.
ERASED = 3


def _erase(image, corners):
    """`image` with the tile at `corners` (grown a little: its outline and shadow too)
    painted over by the table around it."""
    import cv2
    import numpy as np

    c = np.asarray(corners, dtype=np.float64)
    grown = c.mean(axis=0) + (c - c.mean(axis=0)) * 1.3
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [grown.astype(np.int32)], 255)
    return cv2.inpaint(image, mask, 9, cv2.INPAINT_TELEA)


@pytest.fixture(scope="module")
def erased_table():
    models = pipeline.load_models()
    truth = json.loads(BLOCK_TABLE.with_suffix(".json").read_text())
    original = load_image(BLOCK_TABLE)
    image = _erase(original, truth["tiles"][ERASED]["corners"])
    read = pipeline.read_image(
        image, models.detector, models.reader, set_max=6, calibration=models.calibration
    )
    return models, truth, original, image, read


def test_a_tile_beyond_an_open_end_over_bare_table_raises_no_doubt(erased_table) -> None:
    from dominocam.vision.layout import AUTO, LayoutConfig, layout_scene

    _, truth, _, _, read = erased_table
    true_up = sorted(
        tuple(t["pips"]) for i, t in enumerate(truth["tiles"]) if t["face"] == "up" and i != ERASED
    )
    assert sorted(t.pips for t in read.tiles if t.face == "up") == true_up
    assert not any("beyond the open end" in d for d in read.layout.doubts)
    assert not any("beyond the open end" in w for w in read.warnings)
    # The same tiles without the look at the gap (a Scene JSON laid out again): the
    # geometry alone says a tile may be missing there, so the look is what settled it.
    blind = layout_scene(read, LayoutConfig(kind=AUTO))
    assert any("beyond the open end" in d for d in blind.layout.doubts)


def test_the_look_at_the_gap_sees_a_tile_that_lies_there(erased_table) -> None:
    from dominocam.vision.layout import AUTO, GAP_MAY_HOLD_TILE, LayoutConfig, layout_scene

    models, _, original, image, read = erased_table
    gaps = []

    def record(boxes):
        gaps.append(boxes)
        return 1.0

    layout_scene(read, LayoutConfig(kind=AUTO), record)
    assert len(gaps) == 1
    # Bare table in the painted photo; in the original the painted tile lies in that very
    # gap, and the look sees it: had the detector missed it, the doubt would stand.
    assert pipeline.gap_check_of(image, models.detector)(gaps[0]) < GAP_MAY_HOLD_TILE
    assert pipeline.gap_check_of(original, models.detector)(gaps[0]) >= GAP_MAY_HOLD_TILE
