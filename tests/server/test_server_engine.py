"""The real vision runtime behind the API: a rendered photo uploaded with the bundled models
(no stand-in reader) is stored exactly as `dominocam.vision.pipeline.read_image` reads the
same bytes."""

from __future__ import annotations

from server_factories import ADMIN, rendered_photo, runtime_scene

from dominocam.rounds.scene_state import hand_tiles, layout_lines


def _block_game(client) -> dict:
    body = {"name": "Real photos", "variant": "block", "set": 6, "players": ["Ana", "Ben"]}
    r = client.post("/api/games", json=body, headers=ADMIN)
    assert r.status_code == 201, r.json
    return r.json


def test_a_table_photo_is_stored_as_the_vision_runtime_reads_it(make_app) -> None:
    client = make_app().test_client()  # no SCENE_PROVIDER: the bundled models read it
    gid = _block_game(client)["game"]["id"]
    photo = rendered_photo("table", 0)
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=photo,
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    expected = runtime_scene(photo, "table", 6, "block", players=2)
    assert expected["tiles"], "the bundled models read no tile on a clean rendered table"
    assert r.json["scene"] == expected
    state = client.get(f"/api/games/{gid}/state").json
    assert state["round"]["table"]["scene"] == expected
    assert state["round"]["table"]["face_down"] == expected["face_down"]
    # The stored lines (with the place of each open end), without the words the state adds
    # for people (`shown`, `place_shown`, `name_shown`).
    said = ("place_shown", "shown", "name_shown")
    stored = [{k: v for k, v in line.items() if k not in said} for line in state["round"]["lines"]]
    assert stored == layout_lines(expected)
    assert state["round"]["open_ends"] == [line["open_end"] for line in layout_lines(expected)]
    image = client.get(state["round"]["table"]["image"])
    assert image.status_code == 200 and image.data == photo


def test_a_hand_photo_is_stored_as_the_vision_runtime_reads_it(make_app) -> None:
    client = make_app().test_client()
    gid = _block_game(client)["game"]["id"]
    token = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"][0]["token"]
    photo = rendered_photo("hand", 1)
    r = client.post(f"/api/hand/{token}/photo", data=photo, content_type="image/jpeg")
    assert r.status_code == 201, r.json
    expected = runtime_scene(photo, "hand", 6)
    assert r.json["scene"] == expected
    me = client.get(f"/api/hand/{token}").json["me"]
    assert me["scene"] == expected
    assert me["pending"]["tiles"] == hand_tiles(expected) and me["hand"] == []
    # The player confirms the reading as read: it is then the hand.
    me = client.post(f"/api/hand/{token}/confirm").json["me"]
    assert me["hand"] == hand_tiles(expected) and me["scene"] == expected
    assert me["pip_total"] == sum(a + b for a, b in hand_tiles(expected))
