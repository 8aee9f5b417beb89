"""A table reading that says it is unsure is not ruled on silently: the block check and the
domino answer 409 with a player-facing message until the host has checked or corrected the
reading; rejected boxes can be restored as tiles; Scenes without the new keys behave as
before."""

from __future__ import annotations

from typing import Any

import pytest
from server_factories import ADMIN, fake_scene, hands_beside_fake_table, jpeg_bytes

WARNING = "Tile 3-5 may be misread (it could be 3-6): please check it"


class UnsureReader:
    """`fake_scene` with the reading's doubts (issue 17's keys) switched on or off."""

    def __init__(self) -> None:
        self.unsure = True

    def __call__(self, pixels: Any, kind: str, set_max: int) -> dict[str, Any]:
        scene = fake_scene(pixels, kind, set_max)
        if kind == "table" and self.unsure:
            for tile in scene["tiles"]:
                tile["probability"] = 0.55 if tile["id"] == 1 else 0.97
                tile["doubtful"] = tile["id"] == 1
            scene["needs_review"] = True
            scene["warnings"] = [WARNING]
            scene["rejected"] = [
                {
                    "corners": [[300, 10], [340, 10], [340, 30], [300, 30]],
                    "probability": 0.3,
                    "face": "up",
                    "pips": [6, 6],
                }
            ]
        return scene


@pytest.fixture
def reader() -> UnsureReader:
    return UnsureReader()


@pytest.fixture
def app(make_app, reader):
    return make_app(SCENE_PROVIDER=reader)


def _ready(client, game, links) -> str:
    """A table photo and every hand in; returns the round's base URL."""
    base = f"/api/games/{game['game']['id']}/rounds/current"
    r = client.post(f"{base}/table", data=jpeg_bytes(), content_type="image/jpeg", headers=ADMIN)
    assert r.status_code == 201
    # Hands that add up with the photo's tiles: the round's ledger lets the rulings go on.
    for name, tiles in hands_beside_fake_table().items():
        assert (
            client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles}).status_code == 200
        )
    return base


def test_a_doubtful_table_reading_stops_the_rulings_until_the_host_checks_it(
    client, game, links
) -> None:
    base = _ready(client, game, links)
    r = client.post(f"/api/hand/{links['Ana']}/block-check")
    assert r.status_code == 409
    assert "table reading needs checking" in r.json["error"] and WARNING in r.json["error"]
    r = client.post(f"{base}/domino", json={"player": "Ana", "confirm": True}, headers=ADMIN)
    assert r.status_code == 409 and "table reading" in r.json["error"]
    state = client.get("/api/state").json
    assert state["round"]["review"]["table"] and state["round"]["status"] == "open"
    tiles = state["round"]["table"]["scene"]["tiles"]
    assert [t["doubtful"] for t in tiles] == [False, True, False]  # the table page marks it
    # Only the host says the reading is checked.
    assert client.post(f"{base}/table/checked").status_code == 401
    r = client.post(f"{base}/table/checked", headers=ADMIN)
    assert r.status_code == 200 and not r.json["round"]["review"]["table"]
    r = client.post(f"/api/hand/{links['Ana']}/block-check")
    assert r.status_code == 200, r.json


def test_a_new_photo_needs_a_new_check(client, game, links) -> None:
    base = _ready(client, game, links)
    client.post(f"{base}/table/checked", headers=ADMIN)
    client.post(f"{base}/table", data=jpeg_bytes(), content_type="image/jpeg", headers=ADMIN)
    assert client.post(f"/api/hand/{links['Ana']}/block-check").status_code == 409


def test_correcting_the_doubtful_tile_settles_it(client, game, links) -> None:
    base = _ready(client, game, links)
    r = client.patch(f"{base}/table/tiles/1", json={"pips": [3, 6]}, headers=ADMIN)
    tile = r.json["round"]["table"]["scene"]["tiles"][1]
    assert tile["pips"] == [3, 6] and tile["corrected"] and not tile["doubtful"]
    review = client.get(f"{base}/review", headers=ADMIN).json
    assert review["doubtful"] == [] and review["needs_review"]  # the Scene still says so
    client.post(f"{base}/table/checked", headers=ADMIN)
    assert client.post(f"/api/hand/{links['Ana']}/block-check").status_code == 200


def test_a_rejected_box_is_restored_as_a_tile(client, game, links) -> None:
    base = _ready(client, game, links)
    review = client.get(f"{base}/review", headers=ADMIN).json
    assert review["rejected"][0]["pips"] == [6, 6]
    assert client.post(f"{base}/table/rejected/0/restore").status_code == 401
    assert client.post(f"{base}/table/rejected/5/restore", headers=ADMIN).status_code == 404
    r = client.post(f"{base}/table/rejected/0/restore", headers=ADMIN)
    assert r.status_code == 201, r.json
    scene = r.json["state"]["round"]["table"]["scene"]
    restored = next(t for t in scene["tiles"] if t["id"] == r.json["id"])
    assert restored["pips"] == [6, 6] and restored["restored"] and restored["corners"]
    assert scene["rejected"] == []
    assert scene["pip_total"] == 3 + 8 + 12


def test_scenes_without_the_new_keys_are_ruled_as_before(client, game, links, reader) -> None:
    reader.unsure = False
    _ready(client, game, links)
    r = client.post(f"/api/hand/{links['Ana']}/block-check")
    assert r.status_code == 200, r.json
    assert not client.get("/api/state").json["round"]["review"]["table"]
