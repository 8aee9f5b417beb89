"""Every JSON field of the single-table API is of its JSON type or the request is a 400 that
names it (issue 33, item 5): `"false"` never stands for true, `6.0` never for 6."""

from __future__ import annotations

import pytest
from server_factories import ADMIN


def _gid(game) -> int:
    return game["game"]["id"]


def _player_id(client, game, name: str) -> int:
    state = client.get(f"/api/games/{_gid(game)}/state").json
    return next(p["id"] for p in state["players"] if p["name"] == name)


def _declared(client, game, name: str) -> bool:
    state = client.get(f"/api/games/{_gid(game)}/state").json
    return next(p["declared_cannot_play"] for p in state["players"] if p["name"] == name)


@pytest.mark.parametrize("sent", ["false", "true", 0, 1, None, [], {}])
def test_cannot_play_must_be_a_json_boolean(client, game, links, sent) -> None:
    r = client.post(f"/api/hand/{links['Ana']}/declare", json={"cannot_play": sent})
    assert r.status_code == 400, r.json
    assert "'cannot_play' must be true or false" in r.json["error"], r.json
    assert not _declared(client, game, "Ana")
    # Leaving it out is no declaration either.
    assert client.post(f"/api/hand/{links['Ana']}/declare", json={}).status_code == 400
    assert not _declared(client, game, "Ana")
    r = client.post(f"/api/hand/{links['Ana']}/declare", json={"cannot_play": True})
    assert r.status_code == 200 and _declared(client, game, "Ana")
    r = client.post(f"/api/hand/{links['Ana']}/declare", json={"cannot_play": False})
    assert r.status_code == 200 and not _declared(client, game, "Ana")


def _bodies(gid: int, ana: int) -> list[tuple[str, str, dict, str]]:
    """(method, path, body, the field named in the 400) for every admin endpoint's body."""
    base = f"/api/games/{gid}"
    current = f"{base}/rounds/current"
    players = ["A", "B"]
    return [
        ("POST", "/api/games", {"variant": "block", "players": players, "set": 6.0}, "'set'"),
        ("POST", "/api/games", {"variant": "block", "players": players, "set": "6"}, "'set'"),
        ("POST", "/api/games", {"variant": "block", "players": [{"name": 5}, "B"]}, "'name'"),
        (
            "POST",
            "/api/games",
            {"variant": "block", "players": ["A", {"name": "B", "team": 2}]},
            "'team'",
        ),
        ("POST", "/api/games", {"variant": "block", "players": players, "name": 7}, "'name'"),
        ("POST", "/api/games", {"variant": "block", "players": players, "rules": "x"}, "'rules'"),
        ("PATCH", base, {"rules": {"target": "100"}}, "target"),
        ("PATCH", base, {"rules": {"tie": True}}, "tie"),
        ("PATCH", f"{base}/players/{ana}", {"name": 42}, "'name'"),
        ("PUT", f"{base}/players/order", {"players": "1,2"}, "'players'"),
        ("PUT", f"{current}/layout", {"lines": [{"open_end": 1, "marked": "false"}]}, "'marked'"),
        (
            "PUT",
            f"{current}/layout",
            {"lines": [{"open_end": 1, "open_double": 0}]},
            "'open_double'",
        ),
        ("PUT", f"{current}/layout", {"lines": [{"name": 3, "open_end": 1}]}, "'name'"),
        ("PUT", f"{current}/layout", {"lines": [], "boneyard": "3"}, "'boneyard'"),
        ("PUT", f"{current}/boneyard", {"boneyard": 2.0}, "'boneyard'"),
        ("PUT", f"{current}/boneyard", {"boneyard": True}, "'boneyard'"),
        (
            "POST",
            f"{current}/table/tiles",
            {"pips": [1, 2], "corners": [["a", "b"]] * 4},
            "'corners'",
        ),
        ("POST", f"{current}/table/tiles", {"pips": "1-2"}, "'pips'"),
        ("PUT", f"{current}/hands/{ana}", {"tiles": [[1, 2]], "reason": 5}, "'reason'"),
        ("PUT", f"{current}/hands/{ana}", {"tiles": "1-2"}, "'tiles'"),
        ("POST", f"{current}/block-check", {"proposer": 1}, "'proposer'"),
        ("POST", f"{current}/block-check", {"proposer": "Ana", "confirm": "true"}, "'confirm'"),
        ("POST", f"{current}/domino", {"player": ["Ana"]}, "'player'"),
        ("POST", f"{current}/cancel", {"reason": ["because"]}, "'reason'"),
        ("POST", f"{current}/unlock", {"reason": 12}, "'reason'"),
        ("POST", f"{base}/rounds/reopen", {"reason": {"why": 1}}, "'reason'"),
        ("PATCH", f"{base}/rounds/1/score", {"points": [1], "reason": "x"}, "'points'"),
        ("POST", "/api/login", {"token": 123}, "'token'"),
    ]


def test_every_admin_body_field_is_type_checked(client, game) -> None:
    gid = _gid(game)
    before = client.get(f"/api/games/{gid}/state").json
    games_before = client.get("/api/games").json["games"]
    for method, path, body, field in _bodies(gid, _player_id(client, game, "Ana")):
        r = client.open(path, method=method, json=body, headers=ADMIN)
        assert r.status_code == 400, (method, path, body, r.status_code, r.json)
        assert field in r.json["error"], (body, r.json)
    after = client.get(f"/api/games/{gid}/state").json
    assert after["players"] == before["players"] and after["round"] == before["round"]
    assert after["game"] == before["game"]
    assert client.get("/api/games").json["games"] == games_before


def test_player_body_fields_are_type_checked(client, game, links) -> None:
    hand = f"/api/hand/{links['Ana']}"
    r = client.put(f"{hand}/tiles", json={"tiles": "1-2 0-0"})
    assert r.status_code == 400 and "'tiles'" in r.json["error"]
    r = client.post(f"{hand}/block-check", json={"confirm": 1})
    assert r.status_code == 400 and "'confirm'" in r.json["error"]
    me = client.get(hand).json["me"]
    assert me["hand"] == [] and not me["confirmed"]


def test_a_number_json_cannot_send_back_is_refused(client, game) -> None:
    """Python's json reads NaN and Infinity; stored, they would break every page's JSON."""
    r = client.post(
        f"/api/games/{_gid(game)}/rounds/current/table/tiles",
        data='{"pips": [1, 2], "corners": [[0, 0], [1, 0], [1, Infinity], [0, 1]]}',
        content_type="application/json",
        headers=ADMIN,
    )
    assert r.status_code == 400 and "'corners'" in r.json["error"]


def test_a_good_body_still_works(client, game) -> None:
    gid = _gid(game)
    body = {"lines": [{"name": "main", "open_end": 1, "marked": False}], "boneyard": None}
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json=body, headers=ADMIN)
    assert r.status_code == 200, r.json
    assert r.json["round"]["lines"] == [
        {"name": "main", "open_end": 1, "marked": False,
         "shown": "“main” (open end 1)", "place_shown": None, "name_shown": "main"}
    ]  # fmt: skip
    r = client.patch(f"/api/games/{gid}", json={"rules": {"target": 150}}, headers=ADMIN)
    assert r.status_code == 200 and r.json["game"]["rules"] == {"target": 150}


def test_the_refusal_comes_in_the_requests_language(client, game, links) -> None:
    r = client.post(
        f"/api/hand/{links['Ana']}/declare",
        json={"cannot_play": "false"},
        headers={"Accept-Language": "es"},
    )
    assert r.status_code == 400
    assert r.json["error"] == (
        "'cannot_play' debe ser true o false (un booleano JSON, sin comillas), se recibió \"false\""
    )
