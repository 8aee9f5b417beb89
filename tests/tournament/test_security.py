"""Security as single-table mode: links `ID.SECRET` with only their hash stored, guessing
limited per address across web processes (the counter is in Redis), every malformed token
a 4xx, and the same CSP and framing headers (overlays embeddable)."""

from __future__ import annotations

import pytest
from tournament_factories import bearer

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament


def test_links_are_id_dot_secret_and_the_database_cannot_recreate_one(db, make_event) -> None:
    from dominocam.tournament import store

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
    from dominocam.tournament.guard import GUESS_LIMIT

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


def test_json_fields_are_type_checked_as_in_single_table_mode(db, make_event, web) -> None:
    """`{"cannot_play": "false"}` and its kin are a 400 naming the field (issue 33, item 5)."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    player, host = bearer(tokens.players["P1"]), bearer(tokens.hosts["t1"])
    for body in ({"cannot_play": "false"}, {"cannot_play": 0}, {}):
        refused = client.post("/api/hand/declare", json=body, headers=player)
        assert refused.status_code == 400 and "'cannot_play'" in refused.get_json()["error"]
    declared = db.execute(
        "SELECT COUNT(*) AS n FROM hands h JOIN players p ON p.id = h.player_id "
        "WHERE p.event_id = %s AND h.declared_cannot_play",
        (tokens.event_id,),
    ).fetchone()
    assert declared["n"] == 0
    for method, path, body, field in [
        ("PUT", "/api/hand", {"tiles": "0-1"}, "'tiles'"),
        ("POST", "/api/hand/confirm", {"tiles": "0-1"}, "'tiles'"),
        ("PUT", "/api/tables/t1/table", {"boneyard": "3"}, "'boneyard'"),
        ("PUT", "/api/tables/t1/table", {"layout": [1]}, "'layout'"),
        ("POST", "/api/tables/t1/rounds/current/unlock", {"reason": 5}, "'reason'"),
        ("POST", "/api/tables/t1/rounds/current/cancel", {"reason": ["x"]}, "'reason'"),
        ("POST", "/api/tables/t1/rounds/current/block", {"proposer": 1}, "'proposer'"),
        ("POST", "/api/tables/t1/rounds/current/end", {"ended_by": ["block"]}, "'ended_by'"),
        ("PUT", "/api/tables/t1/seats/1/hand", {"tiles": [[0, 1]], "reason": 2}, "'reason'"),
    ]:
        headers = player if path.startswith("/api/hand") else host
        refused = client.open(path, method=method, json=body, headers=headers)
        assert refused.status_code == 400, (path, body, refused.get_json())
        assert field in refused.get_json()["error"], (path, refused.get_json())
    # `?confirm=` is yes or no: any other text is a 400, `false` does not confirm.
    refused = client.post(
        "/api/tables/t1/rounds/current/block?confirm=maybe", json={"proposer": "P1"}, headers=host
    )
    assert refused.status_code == 400 and "'confirm'" in refused.get_json()["error"]


def test_token_answers_are_never_stored(make_event, web) -> None:
    """Cache-Control: no-store on every answer to a player's, host's or director's token."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    for answer in (
        client.get("/api/hand", headers=bearer(tokens.players["P1"])),
        client.get("/api/hand", headers=bearer("1.wrongwrongwrongwrongwrong")),
        client.get("/api/tables/t1/audit", headers=bearer(tokens.hosts["t1"])),
        client.get(f"/hand/{tokens.players['P1']}"),
        client.get(f"/host/{tokens.hosts['t1']}"),
        client.get(f"/director/{tokens.admin}"),
    ):
        assert answer.headers.get("Cache-Control") == "no-store", answer.request.path
    assert client.get("/api/standings").headers.get("Cache-Control") != "no-store"


def test_numbers_past_64_bits_and_bodies_past_the_limit(make_event, web) -> None:
    """A seat past 64-bit integers is a 404, a `since` past them a 400, a body past the
    limit a JSON 413 (issue 33, item 11)."""
    from dominocam.tournament.web import MAX_BODY_BYTES

    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    host = bearer(tokens.hosts["t1"])
    seat = client.put(
        "/api/tables/t1/seats/99999999999999999999/hand", json={"tiles": []}, headers=host
    )
    assert seat.status_code == 404 and seat.is_json
    since = client.get("/api/tables/t1/events?since=99999999999999999999")
    assert since.status_code == 400 and since.is_json
    big = client.put(
        "/api/hand",
        data=b" " * (MAX_BODY_BYTES + 1),
        content_type="application/json",
        headers=bearer(tokens.players["P1"]),
    )
    assert big.status_code == 413 and big.is_json
