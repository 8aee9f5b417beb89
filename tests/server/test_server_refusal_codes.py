"""A refusal of the API carries a stable code and its parameters beside its message (issue
34): the message is in the request's language, the code and parameters are the same in every
language, so a program never reads the words (every kind: test_server_refusal_walk.py).
"""

from __future__ import annotations

import pytest
from server_factories import ADMIN


@pytest.mark.parametrize("language", ["en", "hu", "es"])
def test_an_unknown_game_is_refused_with_its_code(client, language) -> None:
    r = client.get("/api/games/99/state", headers={"Accept-Language": language})
    assert r.status_code == 404
    assert r.json["code"] == "no_game" and r.json["params"] == {"game_id": 99}
    if language == "en":
        assert r.json["error"] == "no game 99"
    else:
        assert "99" in r.json["error"] and "no game" not in r.json["error"]


def test_a_bad_game_and_a_round_still_open_are_refused_with_their_codes(client, game) -> None:
    r = client.post(
        "/api/games",
        json={"variant": "blok", "players": ["Ana", "Ben"]},
        headers={**ADMIN, "Accept-Language": "it"},
    )
    assert r.status_code == 400 and r.json["code"] == "unknown_variant"
    assert r.json["params"]["variant"] == "blok" and "block" in r.json["params"]["valid"]
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ana"]}, headers=ADMIN
    )
    assert r.status_code == 400
    assert (r.json["code"], r.json["params"]) == ("duplicate_player", {"name": "Ana"})
    gid = game["game"]["id"]
    r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    assert r.status_code == 409
    assert (r.json["code"], r.json["params"]) == ("round_still_open", {"round": 1})
    r = client.patch(
        f"/api/games/{gid}/rounds/current/table/tiles/5", json={"pips": [1, 2]}, headers=ADMIN
    )
    assert r.status_code == 409 and r.json["code"] == "no_table_photo"


def test_a_bad_body_and_a_missing_route_are_refused_with_their_codes(client) -> None:
    r = client.post("/api/games", data="x", headers={**ADMIN, "Content-Type": "text/plain"})
    assert r.status_code == 400 and r.json["code"] == "body_not_an_object"
    r = client.get("/api/no-such-thing")
    assert r.status_code == 404 and r.json["code"] == "not_found" and r.json["params"] == {}


def test_a_field_of_another_type_is_refused_with_the_field_and_the_type(
    client, game, links
) -> None:
    r = client.post(f"/api/hand/{links['Ana']}/declare", json={"cannot_play": "false"})
    assert r.status_code == 400
    assert (r.json["code"], r.json["params"]) == (
        "wrong_type",
        {"field": "cannot_play", "type": "boolean"},
    )
    r = client.post(f"/api/hand/{links['Ana']}/declare", json={})
    assert r.status_code == 400
    assert (r.json["code"], r.json["params"]["field"]) == ("missing_field", "cannot_play")
    r = client.get("/api/events/poll?since=x")
    assert r.status_code == 400
    assert r.json["params"] == {"field": "since", "type": "integer"}
