"""The event's web app is built as single-table mode's (flaskr): configuration layered as
defaults, `DOMINOCAM_*` environment, the arguments, a test dict; pages from autoescaped Jinja
templates (tournament/templates)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from tournament_factories import bearer

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament

MARKUP = "<i>x</i>"


@pytest.fixture
def app_of(urls: dict[str, str]) -> Any:
    """`app_of(event_id, **test_config)`: the event's app on the real services."""
    from dominocam.tournament.web import create_app

    apps: list[Any] = []

    def make(event_id: int, **test_config: Any) -> Any:
        app = create_app(urls["database"], urls["redis"], event_id, test_config or None)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["dominocam.tournament"]["pool"].close()


def test_configuration_is_layered_environment_then_arguments_then_test_dict(
    make_event, app_of, monkeypatch
) -> None:
    _, tokens = make_event(tables=1)
    host = bearer(tokens.hosts["t1"])
    monkeypatch.setenv("DOMINOCAM_PUBLIC_URL", "http://10.0.0.4:5000")
    # The event's database is the argument's, whatever the environment says.
    monkeypatch.setenv("DOMINOCAM_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    client = app_of(tokens.event_id).test_client()
    assert client.get("/api/health").status_code == 200
    link = client.post("/api/tables/t1/seats/1/link", headers=host).get_json()["link"]
    assert link.startswith("http://10.0.0.4:5000/hand/")

    app = app_of(tokens.event_id, PUBLIC_URL="https://club.example/")
    assert app.config["EVENT_ID"] == tokens.event_id
    link = app.test_client().post("/api/tables/t1/seats/1/link", headers=host).get_json()["link"]
    assert link.startswith("https://club.example/hand/")


def test_names_with_markup_show_as_text_on_every_page(make_event, app_of) -> None:
    data = {
        "event": f"{MARKUP} {uuid.uuid4().hex[:8]}",
        "variant": "block",
        "set": 6,
        "players": [{"name": MARKUP, "team": MARKUP}, {"name": "P2", "team": "Blue"}],
        "tables": [{"id": "t1", "name": MARKUP, "seats": [MARKUP, "P2"]}],
    }
    _, tokens = make_event(data)
    client = app_of(tokens.event_id).test_client()
    for path in ("/", f"/director/{tokens.admin}"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        text = answer.get_data(as_text=True)
        assert "&lt;i&gt;x&lt;/i&gt;" in text, path
        assert MARKUP not in text, path
    standings = client.get("/").get_data(as_text=True)
    # the title, the heading, the player, their team (players, teams) and the table
    assert standings.count("&lt;i&gt;x&lt;/i&gt;") == 6
    assert "<title>&lt;i&gt;x&lt;/i&gt;" in standings
