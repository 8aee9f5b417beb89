"""Fixtures for the dashboard tests: an app on a temporary database, clients, a game, links."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from server_factories import ADMIN, ADMIN_TOKEN, fake_scene

from dominocam.server import create_app


@pytest.fixture
def make_app(tmp_path) -> Callable[..., Any]:
    def make(**config: Any) -> Any:
        base = {
            "TESTING": True,
            "DATABASE": str(tmp_path / "dominocam.sqlite3"),
            "UPLOAD_FOLDER": str(tmp_path / "uploads"),
            "ADMIN_TOKEN": ADMIN_TOKEN,
            "SECRET_KEY": "test-secret",
            "SSE_POLL_S": 0.05,
            # Each stream a server may hold is a thread: tests need few.
            "SSE_MAX_STREAMS": 60,
            # Tests send many wrong tokens on purpose from one address; the guessing limit
            # has its own tests (test_server_security.py), which set it low.
            "GUESS_LIMIT": 100_000,
        }
        base.update(config)
        return create_app(base)

    return make


@pytest.fixture
def app(make_app):
    return make_app(SCENE_PROVIDER=fake_scene)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def game(client) -> dict[str, Any]:
    """A block game, double-6, four players; returns the public state."""
    r = client.post(
        "/api/games",
        json={
            "name": "Test",
            "variant": "block",
            "set": 6,
            "players": ["Ana", "Ben", "Caro", "Dev"],
        },
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    return r.json


@pytest.fixture
def links(client, game) -> dict[str, str]:
    """Player name -> link token."""
    r = client.get(f"/api/games/{game['game']['id']}/players", headers=ADMIN)
    return {p["name"]: p["token"] for p in r.json["players"]}
