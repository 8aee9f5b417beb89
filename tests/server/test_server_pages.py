"""The HTML pages render, need the right credentials, and fetch nothing from the internet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from server_factories import ADMIN_TOKEN

from dominocam import server

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


def _tag(html: str, element_id: str) -> str:
    found = re.search(rf'<[a-z]+ [^>]*id="{element_id}"[^>]*>', html)
    assert found, element_id
    return found.group(0)


def test_conditional_buttons_start_hidden_and_hidden_wins(client, game) -> None:
    """Issue 19 point 2: buttons that only sometimes apply are rendered `hidden` (the pages'
    scripts show them when they apply) and the stylesheet lets `hidden` win over `display`."""
    _login(client)
    gid = game["game"]["id"]
    html = client.get(f"/games/{gid}").get_data(as_text=True)
    for element_id in ("camera-snapshot", "browser-camera", "new-round"):
        assert " hidden" in _tag(html, element_id), element_id
    css = client.get("/static/app.css").get_data(as_text=True)
    assert re.search(r"\[hidden\]\s*\{\s*display:\s*none\s*!important", css)


def test_phone_view_carries_the_scoreboard(client, game, links) -> None:
    """Issue 19 point 4: the phone page's view has the scoreboard with totals."""
    gid = game["game"]["id"]
    hands = {"Ana": [[1, 2]], "Ben": [[3, 3]], "Caro": [[0, 4]], "Dev": [[6, 6]]}
    for name, tiles in hands.items():
        r = client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
        assert r.status_code == 200
    r = client.post(
        f"/api/games/{gid}/rounds/current/domino",
        json={"player": "Ana", "confirm": True},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    assert r.status_code == 200, r.json
    view = client.get(f"/api/hand/{links['Ben']}").json
    assert view["round"]["status"] == "ended"
    board = view["scoreboard"]
    assert [row["number"] for row in board["rounds"]] == [1]
    assert board["totals"] == client.get(f"/api/games/{gid}/state").json["scoreboard"]["totals"]
    assert board["totals"]["Ana"] > 0
    html = client.get(f"/hand/{links['Ben']}").get_data(as_text=True)
    assert 'id="scoreboard"' in html and 'id="photo-card"' in html
