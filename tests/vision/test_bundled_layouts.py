"""The committed models (detector, verifier, reader, calibration) read committed pictures:
a T-junction with the right free ends, from the picture alone (no variant named: `dominocam
read`'s layout kind `auto`). Pictures without any tile: test_bundled_not_tiles.py.

`tests/assets/layouts/spinner-t-s31-000.jpg` is a `dominocam synth` table (tests/assets/
README.md says how it was made): a double carrying three lines, a T-junction, with the truth
JSON the generator wrote beside it. Its free ends are the ends of the three lines and the
double's unplayed place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision import pipeline
from vision.image_io import load_image

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
