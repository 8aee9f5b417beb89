"""The committed models read a picture without any tile as an empty Scene.

tests/assets/not-tiles/ holds `dominocam synth` pictures with no tile at all, only what must
not be taken for one: a game board with a printed domino track and its grid, printed
dominoes on paper, lettering (tests/assets/README.md says how they were made). Without the
verifier the detector boxes printed dominoes there; with the calibrated probability (the
verifier's score one of its inputs) nothing is left.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dominocam.vision import pipeline
from dominocam.vision.image_io import load_image

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "not-tiles"
PICTURES = sorted(ASSETS.glob("*.jpg"))


@pytest.fixture(scope="module")
def models() -> pipeline.Models:
    return pipeline.load_models()


def test_there_are_pictures_without_tiles() -> None:
    assert PICTURES, f"no committed pictures in {ASSETS}"


@pytest.mark.parametrize("picture", PICTURES, ids=[p.name for p in PICTURES])
def test_a_picture_without_tiles_reads_as_an_empty_scene(models, picture: Path) -> None:
    # As `dominocam read` reads: the calibrated tile probability decides (the verifier's
    # score alone keeps a printed 6-6 at VERIFIER_THRESHOLD); what it leaves out is kept,
    # drawn apart, for a person to restore.
    truth = json.loads(picture.with_suffix(".json").read_text())
    assert truth["empty"] and not truth["tiles"], "pick pictures without any tile"
    assert models.verifier is not None, "models/verifier.onnx is committed beside the detector"
    scene = pipeline.read_image(
        load_image(picture),
        models.detector,
        models.reader,
        truth["set"],
        calibration=models.calibration,
    )
    assert scene.tiles == [] and scene.pip_total == 0 and scene.face_down == 0
    assert scene.rejected, "the boxes left out are kept for the correction screen"
