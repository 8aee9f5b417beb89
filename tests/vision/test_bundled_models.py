"""The committed models (models/*.onnx) read committed pictures exactly.

Each picture in tests/assets/bundled/ is a `dominocam synth` image kept with the truth JSON
the generator wrote for it (tests/assets/README.md says how to make them). The test runs the
whole runtime (`dominocam.vision.pipeline`: detector, reader, joint decoding, layout) as `dominocam
read` does and asserts the face-up tiles, the face-down count and the open ends. A new model
that misreads one of them is a regression to look at before it is committed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dominocam.vision import pipeline
from dominocam.vision.image_io import load_image
from dominocam.vision.layout import game_layout_config

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "bundled"
PICTURES = sorted(ASSETS.glob("*.jpg"))
# Tiles less visible than this are cut by the frame: their reading is not asserted.
FULLY_VISIBLE = 0.97


@pytest.fixture(scope="module")
def models() -> pipeline.Models:
    return pipeline.load_models()


def truth_of(picture: Path) -> dict:
    return json.loads(picture.with_suffix(".json").read_text())


def test_there_are_pictures_to_read() -> None:
    assert len(PICTURES) >= 2, f"no committed pictures in {ASSETS}"


@pytest.mark.parametrize("picture", PICTURES, ids=[p.name for p in PICTURES])
def test_bundled_models_read_the_picture_exactly(models, picture: Path) -> None:
    truth = truth_of(picture)
    visible = [t for t in truth["tiles"] if t["visible_fraction"] >= FULLY_VISIBLE]
    assert len(visible) == len(truth["tiles"]), "pick pictures without tiles cut by the frame"
    assert truth.get("variant") == "line", "pick Block tables: one line, two open ends"
    # As `dominocam read` and the dashboard read: with the calibration, which leaves out
    # boxes that are probably not tiles (the detector alone boxes a dark patch at the top
    # edge of default-s22-003 as a face-down tile; the calibration gives it p < 0.5).
    scene = pipeline.read_image(
        load_image(picture),
        models.detector,
        models.reader,
        set_max=truth["set"],
        layout_config=game_layout_config("block"),
        calibration=models.calibration,
    )
    read_up = sorted(tuple(t.pips) for t in scene.tiles if t.face == "up" and t.pips)
    true_up = sorted(tuple(t["pips"]) for t in visible if t["face"] == "up")
    assert read_up == true_up
    assert scene.face_down == sum(t["face"] == "down" for t in visible)
    true_ends = sorted(line["open_end"]["value"] for line in truth["lines"] if line["open_end"])
    assert sorted(scene.layout.open_ends) == true_ends
