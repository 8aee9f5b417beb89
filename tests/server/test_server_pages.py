"""The HTML pages render, need the right credentials, and fetch nothing from the internet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from server_factories import ADMIN_TOKEN

import server

STATIC = Path(server.__file__).parent / "static"
TEMPLATES = Path(server.__file__).parent / "templates"


def _login(client) -> None:
    assert client.post("/login", data={"token": ADMIN_TOKEN}).status_code == 302


def test_public_pages(client, game, links) -> None:
    gid = game["game"]["id"]
    assert client.get("/").headers["Location"] == f"/games/{gid}"
    page = client.get(f"/games/{gid}")
    assert page.status_code == 200 and b"Block check" in page.data
    assert b"propose-block" not in page.data  # controls only for the admin
    hand = client.get(f"/hand/{links['Ana']}")
    assert hand.status_code == 200 and b"Ana's hand" in hand.data
    assert b'capture="environment"' in hand.data and b'name="viewport"' in hand.data
    overlay = client.get("/overlay?show=ends,scores&corner=tl")
    assert overlay.status_code == 200
    assert b'class="corner-tl"' in overlay.data and b'id="tiles-panel"' not in overlay.data
    assert client.get("/overlay?corner=zz").data.count(b"corner-br") == 1


def test_admin_pages_redirect_to_login(client, game) -> None:
    gid = game["game"]["id"]
    for path in ("/setup", f"/games/{gid}/correct", f"/games/{gid}/players"):
        r = client.get(path)
        assert r.status_code == 302 and "/login" in r.headers["Location"], path
    _login(client)
    for path in ("/setup", f"/games/{gid}/correct", f"/games/{gid}/players"):
        assert client.get(path).status_code == 200, path
    assert b"propose-block" in client.get(f"/games/{gid}").data


def test_empty_database_goes_to_setup(client) -> None:
    assert client.get("/").headers["Location"] == "/setup"


def test_html_errors_for_pages_json_for_api(client) -> None:
    r = client.get("/games/99")
    assert r.status_code == 404 and r.mimetype == "text/html"
    assert client.get("/hand/1.nope").status_code == 403


def test_demo_game_is_created_once(make_app) -> None:
    app = make_app(DEMO=True)
    client = app.test_client()
    state = client.get("/api/state").json
    assert state["game"]["name"].startswith("Demo")
    assert all(p["hand_submitted"] for p in state["players"])
    make_app(DEMO=True)
    assert len(client.get("/api/games").json["games"]) == 1


@pytest.mark.parametrize("path", sorted([*STATIC.iterdir(), *TEMPLATES.iterdir()]), ids=str)
def test_no_internet_assets(path: Path) -> None:
    text = path.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path
    assert "@import url(http" not in text and "cdn" not in text.lower()


def test_static_files_are_served(client) -> None:
    for name in ("app.css", "overlay.css", "common.js", "table.js", "hand.js", "overlay.js"):
        assert client.get(f"/static/{name}").status_code == 200


def test_config_layers_environment(monkeypatch, make_app) -> None:
    monkeypatch.setenv("DOMINOCAM_MAX_IMAGE_PIXELS", "1234")
    app = make_app()
    assert app.config["MAX_IMAGE_PIXELS"] == 1234
    assert make_app(MAX_IMAGE_PIXELS=99).config["MAX_IMAGE_PIXELS"] == 99
