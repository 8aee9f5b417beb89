"""Admin token (hashed, shown once), session cookie with anti-forgery header, player links."""

from __future__ import annotations

import pytest
from server_factories import ADMIN, ADMIN_TOKEN

from dominocam.server import auth, storage

CONTROL_ENDPOINTS = [
    ("post", "/api/games", {"variant": "block", "players": ["A", "B"]}),
    ("patch", "/api/games/{gid}", {"rules": {}}),
    ("post", "/api/games/{gid}/finish", None),
    ("get", "/api/games/{gid}/players", None),
    ("get", "/api/games/{gid}/players/1/qr.svg", None),
    ("post", "/api/games/{gid}/players/1/rotate-link", None),
    ("post", "/api/games/{gid}/rounds", None),
    ("put", "/api/games/{gid}/rounds/current/layout", {"lines": []}),
    ("put", "/api/games/{gid}/rounds/current/boneyard", {"boneyard": 0}),
    ("post", "/api/games/{gid}/rounds/current/table", None),
    ("post", "/api/games/{gid}/rounds/current/table/camera", None),
    ("post", "/api/games/{gid}/rounds/current/table/tiles", {"pips": [1, 2]}),
    ("patch", "/api/games/{gid}/rounds/current/table/tiles/0", {"pips": [1, 2]}),
    ("delete", "/api/games/{gid}/rounds/current/table/tiles/0", None),
    ("put", "/api/games/{gid}/rounds/current/hands/1", {"tiles": []}),
    ("post", "/api/games/{gid}/rounds/current/block-check", {"proposer": "Ana"}),
    ("post", "/api/games/{gid}/rounds/current/domino", {"player": "Ana"}),
]


@pytest.mark.parametrize(("method", "path", "body"), CONTROL_ENDPOINTS)
def test_control_endpoints_need_the_admin_token(client, game, method, path, body) -> None:
    url = path.format(gid=game["game"]["id"])
    call = getattr(client, method)
    r = call(url, json=body)
    assert r.status_code == 401, (url, r.json)
    assert "admin token" in r.json["error"]
    r = call(url, json=body, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403


def test_token_is_stored_hashed_and_shown_once(make_app, tmp_path) -> None:
    app = make_app(ADMIN_TOKEN=None)
    token = app.extensions["dominocam.new_admin_token"]
    assert len(token) >= 30
    conn = storage.connect(app.config["DATABASE"])
    stored = storage.get_setting(conn, auth.ADMIN_HASH_KEY)
    assert stored.startswith("scrypt$") and token not in stored
    assert token not in (tmp_path / "dominocam.sqlite3").read_bytes().decode("latin-1")
    # A second start keeps it and does not show it again.
    again = make_app(ADMIN_TOKEN=None)
    assert "dominocam.new_admin_token" not in again.extensions
    r = again.test_client().get(
        "/api/games/1/players", headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 404  # authorised, but there is no game 1


def test_session_cookie_needs_the_forgery_header_for_writes(client) -> None:
    assert client.get("/api/whoami").json == {"admin": False}
    assert client.post("/api/login", json={"token": "nope"}).status_code == 403
    assert client.post("/api/login", json={"token": ADMIN_TOKEN}).status_code == 200
    assert client.get("/api/whoami").json == {"admin": True}
    body = {"variant": "block", "players": ["A", "B"]}
    r = client.post("/api/games", json=body)
    assert r.status_code == 403 and "X-DominoCam" in r.json["error"]
    assert client.post("/api/games", json=body, headers={"X-DominoCam": "1"}).status_code == 201
    client.post("/api/logout")
    assert client.post("/api/games", json=body, headers={"X-DominoCam": "1"}).status_code == 401


def test_login_page_sets_the_cookie(client) -> None:
    r = client.post("/login", data={"token": "bad"})
    assert r.status_code == 403 and b"wrong" in r.data
    r = client.post("/login", data={"token": ADMIN_TOKEN, "next": "/setup"})
    assert r.status_code == 302 and r.headers["Location"] == "/setup"
    assert client.get("/setup").status_code == 200
    r = client.post("/login", data={"token": ADMIN_TOKEN, "next": "//evil.example"})
    assert r.headers["Location"] == "/"


def test_player_link_is_valid_for_that_player_and_game_only(client, game, links) -> None:
    other = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Zed"]}, headers=ADMIN
    ).json
    other_links = {
        p["name"]: p["token"]
        for p in client.get(f"/api/games/{other['game']['id']}/players", headers=ADMIN).json[
            "players"
        ]
    }
    assert client.get(f"/api/hand/{links['Ana']}").json["me"]["name"] == "Ana"
    assert client.get(f"/api/hand/{other_links['Ana']}").json["game"]["id"] == other["game"]["id"]
    # A forged token: another player's id with Ana's MAC.
    mac = links["Ana"].split(".")[1]
    ben_id = links["Ben"].split(".")[0]
    for forged in (f"{ben_id}.{mac}", f"{other_links['Ana'].split('.')[0]}.{mac}", "x", "1."):
        r = client.get(f"/api/hand/{forged}")
        assert r.status_code == 403, forged
    assert client.get(f"/hand/{ben_id}.{mac}").status_code == 403


def test_rotating_a_link_revokes_it(client, game, links) -> None:
    gid = game["game"]["id"]
    pid = links["Ben"].split(".")[0]
    r = client.post(f"/api/games/{gid}/players/{pid}/rotate-link", headers=ADMIN)
    new = {p["name"]: p["token"] for p in r.json["players"]}
    assert new["Ben"] != links["Ben"] and new["Ana"] == links["Ana"]
    assert client.get(f"/api/hand/{links['Ben']}").status_code == 403
    assert client.get(f"/api/hand/{new['Ben']}").status_code == 200


def test_qr_code_is_svg_of_the_link(client, game, links) -> None:
    gid = game["game"]["id"]
    pid = links["Ana"].split(".")[0]
    r = client.get(f"/api/games/{gid}/players/{pid}/qr.svg", headers=ADMIN)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert r.data.lstrip().startswith(b"<svg")


def test_admin_flag_in_request_does_not_leak(client, game) -> None:
    r = client.get(f"/api/games/{game['game']['id']}/players", headers=ADMIN)
    assert r.status_code == 200
