"""Every kind of refusal the API gives carries a stable code and its typed parameters (issue
34): the rules engine's, authentication's, uploads', HTTP errors', a missing engine or
camera, event streams, a busy database. One real request per kind through the app, then a
guard that no error handler answers `code: null`.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from server_factories import ADMIN, jpeg_bytes

from dominocam.rules.variants import SETTINGS
from dominocam.server import engine, storage

CODE = re.compile(r"[a-z][a-z0-9_]*")


def refusal(response: Any, status: int) -> tuple[str, dict[str, Any]]:
    """The code and parameters of an error answer, after checking its status and shape."""
    assert response.status_code == status, response.json
    body = response.json
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    assert isinstance(body["params"], dict)
    return body["code"], body["params"]


def new_game(client: Any, **spec: Any) -> Any:
    body = {"variant": "block", "set": 6, "players": ["Ana", "Ben", "Caro", "Dev"], **spec}
    return client.post("/api/games", json=body, headers=ADMIN)


# --- the rules engine's refusals, passed through -------------------------------------------


def test_the_rules_engines_refusals_carry_their_codes(client, game, links) -> None:
    r = new_game(client, rules={"tie": "bogus"})
    code, params = refusal(r, 400)
    assert (code, params["setting"], params["value"]) == ("bad_setting", "tie", "bogus")
    assert params["kind"] == "choice" and params["choices"] == list(SETTINGS["tie"].choices)

    code, params = refusal(new_game(client, rules={"tiee": "split"}), 400)
    assert code == "unknown_setting" and params["setting"] == "tiee"
    assert "tie" in params["valid"]

    code, params = refusal(new_game(client, deal=8), 400)
    assert (code, params) == (
        "deal_too_big",
        {"deal": 8, "players": 4, "needed": 32, "set_size": 28, "set": 6},
    )

    r = client.put(f"/api/hand/{links['Ana']}/tiles", json={"tiles": [[7, 7]]})
    assert refusal(r, 400) == ("tile_above_set", {"tile": [7, 7], "set": 6})
    r = client.put(f"/api/hand/{links['Ana']}/tiles", json={"tiles": [[1, 2, 3]]})
    assert refusal(r, 400) == ("unreadable_tile", {"tile": "[1, 2, 3]"})


def test_a_rules_refusal_has_the_same_code_in_every_language(client, game) -> None:
    answers = [
        client.post(
            "/api/games",
            json={"variant": "block", "players": ["A", "B"], "rules": {"tie": 3}},
            headers={**ADMIN, "Accept-Language": language},
        )
        for language in ("en", "hu", "vi")
    ]
    assert {a.json["code"] for a in answers} == {"bad_setting"}
    assert all(a.json["params"]["value"] == 3 for a in answers)


# --- authentication ------------------------------------------------------------------------


def test_authentication_refusals_carry_their_codes(client, game) -> None:
    gid = game["game"]["id"]
    assert refusal(client.get(f"/api/games/{gid}/players"), 401) == ("admin_required", {})
    r = client.get(f"/api/games/{gid}/players", headers={"Authorization": "Bearer nope"})
    assert refusal(r, 403) == ("wrong_admin_token", {})
    assert refusal(client.get("/api/hand/1.not-a-real-secret-at-all"), 403) == (
        "bad_player_link",
        {},
    )
    assert refusal(client.post("/api/login", json={"token": "nope"}), 403) == ("wrong_login", {})
    # A session cookie writes only with the anti-forgery header.
    assert client.post("/api/login", json={"token": ADMIN["Authorization"][7:]}).status_code == 200
    r = client.post(f"/api/games/{gid}/finish")
    assert refusal(r, 403) == ("csrf_header_missing", {"header": "X-DominoCam"})


def test_guessing_past_the_limit_says_how_long_to_wait(make_app) -> None:
    client = make_app(GUESS_LIMIT=2).test_client()
    for _ in range(2):
        assert client.post("/api/login", json={"token": "nope"}).status_code == 403
    r = client.post("/api/login", json={"token": "nope"})
    code, params = refusal(r, 429)
    assert code == "too_many_guesses" and isinstance(params["retry_after"], int)
    assert r.headers["Retry-After"] == str(params["retry_after"])


# --- uploads and HTTP errors ---------------------------------------------------------------


def upload_table(client: Any, gid: int, data: bytes) -> Any:
    return client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=data,
        content_type="image/jpeg",
        headers=ADMIN,
    )


def test_upload_refusals_carry_their_codes(make_app, app, client, game) -> None:
    gid = game["game"]["id"]
    assert refusal(upload_table(client, gid, b"hello, not a photo"), 415) == ("not_an_image", {})
    assert refusal(upload_table(client, gid, b""), 400) == ("empty_file", {})
    cut = jpeg_bytes()[:-2]  # no end marker
    assert refusal(upload_table(client, gid, cut), 400) == ("truncated_image", {"format": "jpeg"})

    small = make_app(MAX_IMAGE_PIXELS=100).test_client()
    gid = new_game(small).json["game"]["id"]
    assert refusal(upload_table(small, gid, jpeg_bytes(160, 120)), 413) == (
        "image_too_large",
        {"width": 160, "height": 120, "limit_pixels": 100},
    )

    full = make_app(PHOTO_BYTES_PER_GAME=10).test_client()
    gid = new_game(full).json["game"]["id"]
    assert refusal(upload_table(full, gid, jpeg_bytes()), 507) == (
        "game_photo_space_used",
        {"limit_bytes": 10},
    )


def test_http_errors_carry_their_codes(make_app, client) -> None:
    assert refusal(client.get("/api/no-such-thing"), 404) == ("not_found", {})
    r = client.delete("/api/games", headers=ADMIN)
    assert refusal(r, 405) == ("method_not_allowed", {"method": "DELETE"})
    limited = make_app(MAX_CONTENT_LENGTH=1024 * 1024).test_client()
    gid = new_game(limited).json["game"]["id"]
    r = upload_table(limited, gid, b"\xff" * (1024 * 1024 + 1))
    assert refusal(r, 413) == ("too_large", {"megabytes": 1})


# --- what is not installed, streams, the database ------------------------------------------


def test_no_camera_and_no_model_carry_their_codes(make_app, client, game, monkeypatch, tmp_path):
    gid = game["game"]["id"]
    assert refusal(client.get("/api/camera/frame.jpg"), 503) == ("no_camera_frame", {})
    r = client.post(f"/api/games/{gid}/rounds/current/table/camera", headers=ADMIN)
    assert refusal(r, 503) == ("no_camera", {})
    # No model files where the runtime looks: the photo is kept, the refusal says why.
    monkeypatch.setenv("DOMINOCAM_MODELS", str(tmp_path))
    monkeypatch.setattr(engine, "_reader_cache", {})
    bare = make_app(SCENE_PROVIDER=None).test_client()
    gid = new_game(bare).json["game"]["id"]
    r = upload_table(bare, gid, jpeg_bytes())
    assert refusal(r, 503) == ("no_model", {}) and r.json["stored"]


def test_streams_past_the_limit_carry_their_codes(make_app, game) -> None:
    gid = game["game"]["id"]
    client = make_app(SSE_MAX_PER_CLIENT=0).test_client()
    r = client.get(f"/api/events?game={gid}")
    assert refusal(r, 429) == ("too_many_streams_here", {"limit": 0})
    client = make_app(SSE_MAX_STREAMS=0).test_client()
    r = client.get(f"/api/events?game={gid}")
    assert refusal(r, 503) == ("too_many_streams", {"limit": 0})


def test_a_busy_database_and_a_number_too_large_carry_their_codes(make_app, tmp_path) -> None:
    app = make_app()
    database = app.config["DATABASE"]

    # Real failures raised where a view would meet them: another program holds the
    # database (SQLITE_BUSY past the wait), a number too large for SQLite's integers.
    def busy() -> Any:
        sqlite3.connect(database, timeout=0).execute("BEGIN EXCLUSIVE")
        return "unreachable"

    def overflow() -> Any:
        sqlite3.connect(":memory:").execute("SELECT ?", (10**30,))
        return "unreachable"

    app.add_url_rule("/api/test-busy", view_func=busy)
    app.add_url_rule("/api/test-overflow", view_func=overflow)
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        r = app.test_client().get("/api/test-busy")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert refusal(r, 503) == ("database_busy", {})
    r = app.test_client().get("/api/test-overflow")
    assert refusal(r, 400) == ("number_too_large", {})


def test_a_database_from_a_newer_version_says_so_with_its_code(tmp_path) -> None:
    conn = storage.connect(str(tmp_path / "a.db"))
    storage.migrate(conn)
    conn.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(storage.DatabaseTooNew, match="newer") as raised:
        storage.migrate(conn)
    assert raised.value.code == "database_too_new"
    assert raised.value.params == {"version": 99, "supported": storage.SCHEMA_VERSION}


# --- the guard: no handler answers code null -----------------------------------------------

Request = Callable[[Any, int, dict[str, str]], Any]

REQUESTS: dict[str, Request] = {
    # UserInputError: the game's checks, the rules engine's, a body's types.
    "unknown game": lambda c, g, t: c.get("/api/games/99/state"),
    "not a game id": lambda c, g, t: c.get("/api/games/current-ish/state"),
    "bad variant": lambda c, g, t: new_game(c, variant="blok"),
    "bad setting": lambda c, g, t: new_game(c, rules={"points": "lots"}),
    "bad rules": lambda c, g, t: new_game(c, rules=[1]),
    "deal too big": lambda c, g, t: new_game(c, deal=99),
    "bad tile": lambda c, g, t: c.put(f"/api/hand/{t['Ana']}/tiles", json={"tiles": [[0, 9]]}),
    "tiles twice": lambda c, g, t: c.put(
        f"/api/hand/{t['Ana']}/tiles", json={"tiles": [[1, 2], [2, 1]]}
    ),
    "wrong type": lambda c, g, t: c.post(f"/api/hand/{t['Ana']}/declare", json={"x": 1}),
    "bad points": lambda c, g, t: c.patch(
        f"/api/games/{g}/rounds/1/score", json={"points": [], "reason": "x"}, headers=ADMIN
    ),
    "bad seats": lambda c, g, t: c.put(
        f"/api/games/{g}/players/order", json={"players": [1]}, headers=ADMIN
    ),
    "no table photo": lambda c, g, t: c.get(f"/api/games/{g}/rounds/1/table/image"),
    "no hand photo": lambda c, g, t: c.get(f"/api/hand/{t['Ana']}/image"),
    "hand missing": lambda c, g, t: c.post(
        f"/api/games/{g}/rounds/current/block-check", json={"proposer": "Ana"}, headers=ADMIN
    ),
    # AuthError
    "no token": lambda c, g, t: c.post(f"/api/games/{g}/finish"),
    "wrong token": lambda c, g, t: c.post(
        f"/api/games/{g}/finish", headers={"Authorization": "Bearer x"}
    ),
    "wrong link": lambda c, g, t: c.get("/api/hand/nope"),
    # UploadError
    "not an image": lambda c, g, t: upload_table(c, g, b"GIF89a"),
    "damaged jpeg": lambda c, g, t: upload_table(c, g, b"\xff\xd8\xff\x00\x00\x00\x00"),
    "no photo body": lambda c, g, t: c.post(
        f"/api/hand/{t['Ana']}/photo", data="x", content_type="text/plain"
    ),
    # HTTPException
    "no route": lambda c, g, t: c.get("/api/nothing/here"),
    "no method": lambda c, g, t: c.put("/api/health"),
    # EngineUnavailable
    "no camera": lambda c, g, t: c.get("/api/camera/stream"),
    # The host check (DNS rebinding), before any route.
    "other host": lambda c, g, t: c.get("/api/health", headers={"Host": "evil.example"}),
}


@pytest.mark.parametrize("name", list(REQUESTS))
def test_no_error_handler_answers_without_a_code(client, game, links, name) -> None:
    r = REQUESTS[name](client, game["game"]["id"], links)
    assert r.status_code >= 400, (name, r.status_code)
    body = r.json
    assert body["status"] == r.status_code
    assert isinstance(body["code"], str) and CODE.fullmatch(body["code"]), (name, body)
    assert isinstance(body["params"], dict)
