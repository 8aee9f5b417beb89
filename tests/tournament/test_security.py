"""Security as single-table mode: links `ID.SECRET` with only their hash stored, guessing
limited per address across web processes (the counter is in Redis), every malformed token
a 4xx, and the same CSP and framing headers (overlays embeddable)."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_links_are_id_dot_secret_and_the_database_cannot_recreate_one(db, make_event) -> None:
    from tournament import store

    _, tokens = make_event(tables=2)
    for name, token in tokens.players.items():
        assert store.PLAYER_TOKEN.fullmatch(token), token
        player = store.player_by_token(db, tokens.event_id, token)
        assert player is not None and player.name == name
    for token in tokens.hosts.values():
        assert store.HOST_TOKEN.fullmatch(token), token
    rows = [
        str(row)
        for table in ("events", "players", "event_tables", "audit")
        for row in db.execute(f"SELECT * FROM {table}").fetchall()
    ]
    secrets = [tokens.admin, *tokens.players.values(), *tokens.hosts.values()]
    for secret in secrets:
        part = secret.rpartition(".")[2]
        assert not any(part in row for row in rows), "a token is stored in the clear"


def test_a_new_seat_link_revokes_the_old_one(make_event, web) -> None:
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    old = tokens.players["P2"]
    made = client.post("/api/tables/t1/seats/2/link", headers=bearer(tokens.hosts["t1"]))
    assert made.status_code == 200, made.get_json()
    body = made.get_json()
    assert body["name"] == "P2" and body["qr"].startswith("<svg")
    new = body["link"].rsplit("/hand/", 1)[1]
    assert client.get("/api/hand", headers=bearer(old)).status_code == 403
    assert client.get("/api/hand", headers=bearer(new)).get_json()["name"] == "P2"
    # A player cannot make links; another table's host neither.
    assert client.post("/api/tables/t1/seats/2/link", headers=bearer(new)).status_code == 403


def test_guessing_gets_429_past_the_limit_in_every_web_process(make_event, web) -> None:
    """20 wrong tokens from one address, sent to two web processes of the event, use up
    the limit: the 21st gets 429 with Retry-After at either, a right token too."""
    from tournament.guard import GUESS_LIMIT

    _, tokens = make_event(tables=1)
    first, second = web(tokens.event_id), web(tokens.event_id)
    for i in range(GUESS_LIMIT):
        client = first if i % 2 else second
        wrong = client.get("/api/hand", headers=bearer(f"{i + 1}.{'x' * 24}"))
        assert wrong.status_code == 403
    for client in (first, second):
        refused = client.get("/api/hand", headers=bearer(tokens.players["P1"]))
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert "too many wrong tokens" in refused.get_json()["error"]
    page = first.get(f"/host/{tokens.hosts['t1']}")
    assert page.status_code == 429
    assert first.get("/api/standings").status_code == 200  # public answers still flow


def test_every_malformed_token_gets_a_4xx(make_event, web) -> None:
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    for token in ("١٢٣.abcdefghijklmnopqrstuvwx", "1." + "a" * 100_000, "h1.short", "../..", "x"):
        for answer in (
            client.get("/api/hand", headers=bearer(token)),
            client.get(f"/host/{token}"),
            client.get(f"/director/{token}"),
            client.post("/api/tables/t1/rounds/current/score", headers=bearer(token)),
        ):
            assert 400 <= answer.status_code < 500, (token[:20], answer.status_code)
            assert answer.is_json


def test_pages_refuse_frames_and_the_overlays_allow_them(make_event, web) -> None:
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    for path in ("/", f"/hand/{tokens.players['P1']}", f"/host/{tokens.hosts['t1']}",
                 f"/director/{tokens.admin}", "/api/standings"):  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == 200, path
        policy = answer.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert "<script>" not in answer.get_data(as_text=True)  # no inline script
    for path in ("/overlay", "/tables/t1/overlay"):
        answer = client.get(path)
        assert "frame-ancestors *" in answer.headers["Content-Security-Policy"]
        assert "X-Frame-Options" not in answer.headers
    assert client.get("/static/host.js").status_code == 200
