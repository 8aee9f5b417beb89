"""Tournament mode's refusals carry a stable code and typed parameters, as single-table
mode's (issue 34; tests/server/test_server_refusal_walk.py): the rules engine's, tokens',
tables', bodies', HTTP errors', and the services that cannot be reached. The last two need no
service running; the rest run on real Redis and PostgreSQL (`tournament`).
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

pytest.importorskip("redis", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import bearer

from dominocam.tournament.guard import GUESS_LIMIT


def refusal(response: Any, status: int) -> tuple[str, dict[str, Any]]:
    """The code and parameters of an error answer, after checking its status and shape."""
    assert response.status_code == status, response.get_json()
    body = response.get_json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body["code"], body["params"]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def unreachable_app(database_url: str, redis_url: str) -> Any:
    pytest.importorskip("psycopg")
    from dominocam.tournament.web import create_app

    return create_app(database_url, redis_url, 1, {"DATABASE_WAIT_S": 0.2})


def test_a_database_out_of_reach_is_refused_with_its_code() -> None:
    port = closed_port()
    app = unreachable_app(
        f"postgresql://nobody@127.0.0.1:{port}/none?connect_timeout=1", "redis://127.0.0.1:1/0"
    )
    try:
        r = app.test_client().get("/api/standings")
        assert refusal(r, 503) == ("database_unreachable", {})
    finally:
        app.extensions["dominocam.tournament"]["pool"].close(timeout=0)


def test_a_broker_out_of_reach_is_refused_with_its_code() -> None:
    port = closed_port()
    app = unreachable_app(
        f"postgresql://nobody@127.0.0.1:{port}/none?connect_timeout=1",
        f"redis://127.0.0.1:{closed_port()}/0",
    )
    try:
        r = app.test_client().get("/api/hand", headers=bearer("1.abcdefghijklmnopqrstuvwx"))
        assert refusal(r, 503) == ("broker_unreachable", {})
    finally:
        app.extensions["dominocam.tournament"]["pool"].close(timeout=0)


@pytest.mark.tournament
def test_tournament_refusals_carry_their_codes(make_event, web) -> None:
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    host, player = bearer(tokens.hosts["t1"]), bearer(tokens.players["P1"])
    admin = bearer(tokens.admin)
    # The rules engine's, passed through.
    r = client.put("/api/tables/t1/seats/1/hand", json={"tiles": [[7, 7]]}, headers=host)
    assert refusal(r, 400) == ("tile_above_set", {"tile": [7, 7], "set": 6})
    # Tokens.
    assert refusal(client.get("/api/hand"), 401) == ("no_token", {})
    assert refusal(client.get("/api/hand", headers=bearer("x")), 403) == ("wrong_token", {})
    r = client.post("/api/tables/t1/rounds/current/unlock", json={}, headers=player)
    assert refusal(r, 403) == ("host_required", {"table": "t1"})
    assert refusal(client.get("/api/hand", headers=host), 403) == ("player_link_required", {})
    # Tables, seats, bodies.
    r = client.post("/api/tables/zz/frames", data=b"\xff\xd8\xff", headers=admin)
    assert refusal(r, 404) == ("no_table", {"table": "zz"})
    r = client.put("/api/tables/t1/seats/9/hand", json={"tiles": []}, headers=host)
    assert refusal(r, 404) == ("no_seat", {"table": "t1", "seat": 9})
    r = client.post("/api/tables/t1/frames", data=b"GIF89a", headers=admin)
    assert refusal(r, 400) == ("not_a_jpeg", {})
    r = client.put("/api/hand", json=[1], headers=player)
    assert refusal(r, 400) == ("body_not_an_object", {})
    r = client.post("/api/tables/t1/rounds/current/end", json={"ended_by": "x"}, headers=host)
    assert refusal(r, 400) == ("unknown_ending", {"ended_by": "x", "valid": ["block", "domino"]})
    # HTTP errors.
    assert refusal(client.get("/api/nothing"), 404) == ("not_found", {})
    assert refusal(client.delete("/api/standings"), 405) == (
        "method_not_allowed",
        {"method": "DELETE"},
    )
    # Guessing past the limit, last: it shuts this address out for a minute.
    for _ in range(GUESS_LIMIT):
        client.get("/api/hand", headers=bearer("wrong"))
    r = client.get("/api/hand", headers=bearer("wrong"))
    code, params = refusal(r, 429)
    assert code == "too_many_guesses" and r.headers["Retry-After"] == str(params["retry_after"])
