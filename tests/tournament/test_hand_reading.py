"""A hand photo reads the same in tournament mode as on the dashboard: the worker's reading
(`dominocam.tournament.worker.hand_reading`) and the dashboard's upload both go through
`dominocam.vision.reading.PhotoReader`, so a tournament hand gets the verifier and the calibration
too (a box that is probably not a tile is left out, tiles carry their probability) and no
layout.

No Redis or PostgreSQL is needed: the worker's reading is tested without its services. The
tests are marked `tournament` only because `dominocam.tournament.worker` needs that extra (Celery).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("celery", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament

ASSETS = Path(__file__).resolve().parents[1] / "assets"
# Printed dominoes on paper, a game board's printed track: no tile at all
# (tests/assets/README.md); the detector boxes the printed dominoes.
PRINTED = ASSETS / "not-tiles" / "empty-s23-000.jpg"
ADMIN_TOKEN = "test-admin-token"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
SET_MAX = 6


@pytest.fixture(scope="module")
def reader() -> Any:
    from dominocam.vision.reading import PhotoReader

    return PhotoReader.load(threads=2)


def rendered_hand(index: int) -> bytes:
    """A 1280x720 JPEG of 3 to 6 tiles held in a hand, rendered by dominosynth (its `clean`
    look), as a phone sends it."""
    from dominosynth.config import CONFIGS
    from dominosynth.generate import Job, make_sample

    config = dataclasses.replace(
        CONFIGS["clean"], name="hand-tests", variant_weights={"line": 1.0}, hand_tiles=(3, 6)
    )
    return make_sample(Job("/nonexistent", index, 11, 1280, 720, "hand", SET_MAX, "val", config))[0]


def dashboard_reading(tmp_path: Path, photo: bytes) -> tuple[list[list[int]], dict[str, Any]]:
    """(tiles, Scene JSON) of `photo` uploaded as Ana's hand photo to a single-table
    dashboard reading with the bundled models (no stand-in)."""
    from dominocam.server import create_app

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "dominocam.sqlite3"),
            "UPLOAD_FOLDER": str(tmp_path / "uploads"),
            "ADMIN_TOKEN": ADMIN_TOKEN,
            "SECRET_KEY": "test-secret",
        }
    )
    client = app.test_client()
    body = {"variant": "block", "set": SET_MAX, "players": ["Ana", "Ben"]}
    created = client.post("/api/games", json=body, headers=ADMIN)
    assert created.status_code == 201, created.json
    gid = created.json["game"]["id"]
    token = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"][0]["token"]
    answer = client.post(f"/api/hand/{token}/photo", data=photo, content_type="image/jpeg")
    assert answer.status_code == 201, answer.json
    me = client.get(f"/api/hand/{token}").json["me"]
    return me["pending"]["tiles"], answer.json["scene"]


@pytest.mark.parametrize("photo", ["rendered hand", "printed dominoes"])
def test_a_hand_photo_reads_the_same_in_tournament_mode_and_on_the_dashboard(
    reader, tmp_path: Path, photo: str
) -> None:
    from dominocam.tournament.worker import hand_reading

    data = rendered_hand(1) if photo == "rendered hand" else PRINTED.read_bytes()
    tiles, scene = hand_reading(reader, data, SET_MAX, "Ana")
    assert (tiles, scene) == dashboard_reading(tmp_path, data)
    assert scene["tiles"] or scene["rejected"], "the photo shows something to compare"


def test_a_tournament_hand_photo_gets_the_verifier_and_the_calibration(reader) -> None:
    """The worker read hand photos with neither (and laid them out as a table), so boxes of
    printed dominoes counted as tiles of the hand, and no tile was ever doubted."""
    from dominocam.tournament.worker import hand_reading

    tiles, scene = hand_reading(reader, PRINTED.read_bytes(), SET_MAX, "Ana")
    assert tiles == [] and scene["tiles"] == [] and scene["pip_total"] == 0
    assert scene["rejected"], "the boxes left out are kept for the correction screen"

    tiles, scene = hand_reading(reader, rendered_hand(1), SET_MAX, "Ana")
    assert tiles, "the bundled models read the tiles of a clean rendered hand"
    assert all("probability" in tile for tile in scene["tiles"]), "calibrated tiles"
    assert all(tile["verifier_score"] is not None for tile in scene["tiles"])
    assert scene["layout"]["lines"] == [], "a hand is not laid out as a table"

    # The tiles the calibration doubts (tiles photographed on a table, read as a hand: a 1-2
    # that could be 2-6, two backs) are marked, and the reading goes to a person.
    photo = (ASSETS / "bundled" / "clean-s21-002.jpg").read_bytes()
    _, scene = hand_reading(reader, photo, SET_MAX, "Ana")
    doubtful = {tile["id"] for tile in scene["tiles"] if tile["doubtful"]}
    threshold = reader.models.calibration.doubtful_below
    assert doubtful == {t["id"] for t in scene["tiles"] if t["probability"] < threshold}
    assert doubtful and scene["needs_review"]
