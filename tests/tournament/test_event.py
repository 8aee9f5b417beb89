"""The event across tables: rounds ruled by the rules engine, standings, secret hands."""

from __future__ import annotations

import random
import re

import pytest
from tournament_factories import bearer

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament

# Open ends 5 and 4 on a double-6 block game: the hands below cannot play on them.
BLOCKED_TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}


def put_hand(client, token: str, tiles: list[list[int]]) -> None:
    response = client.put("/api/hand", json={"tiles": tiles}, headers=bearer(token))
    assert response.status_code == 200, response.get_json()


# Who proposes a block when a test does not say: the table's first seat.
FIRST_SEAT = {"t1": "P1", "t2": "P3"}


def end(client, admin: str, table: str, **body) -> dict:
    """The host rules on the round and confirms at once; it must end."""
    if body.get("ended_by") == "block":
        body.setdefault("proposer", FIRST_SEAT[table])
    response = client.post(
        f"/api/tables/{table}/rounds/current/end", json=body, headers=bearer(admin)
    )
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["ended"], response.get_json()
    return response.get_json()


def test_standings_across_tables(make_event, web) -> None:
    """Rounds at two tables, blocked and domino, add up per player and per team."""
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    # Table 1, round 1: P1 (Red) holds 1 pip, P2 (Blue) 17: blocked, P1 takes 17.
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    first = end(client, tokens.admin, "t1", ended_by="block", layout=BLOCKED_TABLE)
    assert first["result"]["points"] == {"P1": 17}
    assert first["next_round"] == 2
    # Table 2, round 1: P4 (Blue) holds 0 pips, P3 (Red) 16: P4 takes 16.
    put_hand(client, p["P3"], [[6, 6], [2, 2]])
    put_hand(client, p["P4"], [[0, 0]])
    end(client, tokens.admin, "t2", ended_by="block", layout=BLOCKED_TABLE)
    # Table 1, round 2: P2 holds 3 pips, P1 6: P2 takes 6.
    put_hand(client, p["P1"], [[3, 3]])
    put_hand(client, p["P2"], [[1, 2]])
    end(client, tokens.admin, "t1", ended_by="block", layout=BLOCKED_TABLE)
    # Table 2, round 2: P3 goes out (domino), P4 still holds 5-6: P3 takes 11.
    put_hand(client, p["P3"], [])
    put_hand(client, p["P4"], [[5, 6]])
    end(client, tokens.admin, "t2", ended_by="domino", winner="P3", layout=BLOCKED_TABLE)

    standings = client.get("/api/standings").get_json()
    assert standings["lower_wins"] is False
    assert [(e["rank"], e["name"], e["total"]) for e in standings["players"]] == [
        (1, "P1", 17),
        (2, "P4", 16),
        (3, "P3", 11),
        (4, "P2", 6),
    ]
    assert [(e["name"], e["total"]) for e in standings["teams"]] == [("Red", 28), ("Blue", 22)]
    assert {t["id"]: t["rounds"] for t in standings["tables"]} == {"t1": 2, "t2": 2}
    page = client.get("/").get_data(as_text=True)
    assert page.index("P1") < page.index("P4") < page.index("P3") < page.index("P2")


def test_lower_wins_and_a_round_that_is_not_blocked(make_event, web) -> None:
    """Under penalty scoring every player scores their own pips and the lowest leads; a
    round the rules engine does not find blocked stays open, scores nothing and locks
    nothing."""
    from tournament_factories import event_data

    data = event_data(tables=2)
    data["rules"] = {"points": "penalty"}
    _, tokens = make_event(data)
    client = web(tokens.event_id)
    p = tokens.players
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[4, 6]])  # 6-4 plays on the 4
    checked = client.post(
        "/api/tables/t1/rounds/current/end",
        json={"ended_by": "block", "layout": BLOCKED_TABLE, "proposer": "P1"},
        headers=bearer(tokens.admin),
    ).get_json()
    assert checked["ended"] is False
    assert checked["outcome"]["stopped"] == {"player": "P2", "foul": False, "foul_by": None}
    assert client.get("/api/standings").get_json()["players"][0]["total"] == 0
    # A check that stops locks nothing: play goes on, and each hand is confirmed again
    # (P2's corrected, P1's as it is) before the next ruling.
    table = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["locked"] is None and table["to_confirm"] == ["P1", "P2"]
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    assert client.post("/api/hand/confirm", json={}, headers=bearer(p["P1"])).status_code == 200
    end(client, tokens.admin, "t1", ended_by="block", layout=BLOCKED_TABLE)
    put_hand(client, p["P3"], [[2, 2]])
    put_hand(client, p["P4"], [[0, 0], [1, 1]])
    end(client, tokens.admin, "t2", ended_by="block", layout=BLOCKED_TABLE)
    standings = client.get("/api/standings").get_json()
    assert standings["lower_wins"] is True
    assert [(e["name"], e["total"]) for e in standings["players"]] == [
        ("P1", 1),
        ("P4", 2),
        ("P3", 4),
        ("P2", 17),
    ]
    assert [(e["name"], e["total"]) for e in standings["teams"]] == [("Red", 5), ("Blue", 19)]


def tile_patterns(tiles: list[list[int]]) -> list[re.Pattern[str]]:
    """Every way a tile could be written in an answer: [a, b], [b, a], a-b, b-a."""
    found = []
    for a, b in tiles:
        for x, y in ((a, b), (b, a)):
            found.append(re.compile(rf"\[\s*{x}\s*,\s*{y}\s*\]"))
            found.append(re.compile(rf"(?<!\d){x}-{y}(?!\d)"))
    return found


def test_no_hand_visible_across_tables_or_before_the_round_ends(make_event, web) -> None:
    """Random hands at two tables; everything that no token or a player's token can read
    (pages, tables, standings, streams, errors) shows no tile of another player's hand
    while that hand's round is open; once a table's round ends its hands show, the other
    table's still do not."""
    rng = random.Random(20)
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    pool = [[a, b] for a in range(7) for b in range(a, 7)]
    rng.shuffle(pool)
    hands = {
        name: sorted(pool[i * 5 : i * 5 + 5]) for i, name in enumerate(["P1", "P2", "P3", "P4"])
    }
    for name, tiles in hands.items():
        put_hand(client, p[name], tiles)

    def answers(as_player: str | None) -> list[str]:
        headers = bearer(p[as_player]) if as_player else {}
        texts = []
        for path in (
            "/",
            "/overlay",
            "/tables/t1/overlay",
            "/api/event",
            "/api/standings",
            "/api/tables/t1",
            "/api/tables/t2",
            "/api/tables/t1/audit",
            "/api/tables/t2/audit",
        ):
            answer = client.get(path, headers=headers)
            assert answer.status_code == 200, path
            texts.append(answer.get_data(as_text=True))
        for table in ("t1", "t2"):
            stream = client.get(f"/api/tables/{table}/events", headers=headers, buffered=False)
            texts.append(next(stream.response).decode())  # the snapshot: state, Scene
            stream.close()
        if as_player:
            texts.append(client.get("/api/hand", headers=headers).get_data(as_text=True))
            texts.append(client.get(f"/hand/{p[as_player]}").get_data(as_text=True))
            # Errors a player can provoke: a tile twice, a tile off the set, ending a round.
            for body in ({"tiles": [[1, 2], [2, 1]]}, {"tiles": [[1, 9]]}):
                texts.append(
                    client.put("/api/hand", json=body, headers=headers).get_data(as_text=True)
                )
            texts.append(
                client.post(
                    "/api/tables/t2/rounds/current/end",
                    json={"ended_by": "block"},
                    headers=headers,
                ).get_data(as_text=True)
            )
            # The lifecycle's errors: nothing pending to confirm or discard, a host's page
            # and a host's action refused to a player.
            for path in ("/api/hand/confirm", "/api/hand/discard"):
                texts.append(client.post(path, json={}, headers=headers).get_data(as_text=True))
            texts.append(client.get(f"/host/{p[as_player]}").get_data(as_text=True))
            texts.append(
                client.put(
                    "/api/tables/t1/seats/1/hand", json={"tiles": [[0, 0]]}, headers=headers
                ).get_data(as_text=True)
            )
        return texts

    def leaks(texts: list[str], secret: list[str]) -> list[str]:
        return [
            f"{name}'s {pattern.pattern}"
            for name in secret
            for pattern in tile_patterns(hands[name])
            for text in texts
            if pattern.search(text)
        ]

    assert leaks(answers(None), list(hands)) == []
    for me in hands:
        others = [name for name in hands if name != me]
        assert leaks(answers(me), others) == [], me
    own = client.get("/api/hand", headers=bearer(p["P1"])).get_json()
    assert own["hand"] == hands["P1"]

    # Table 1's round ends: new hands from tiles no other hand holds, and open ends neither
    # can play on. Its hands then show; table 2's still do not.
    spare = pool[20:]
    hands["P1"], hands["P2"] = [spare[0]], [spare[1]]
    free = [v for v in range(7) if v not in (*spare[0], *spare[1])]
    layout = {
        "lines": [{"name": "left", "open_end": free[0]}, {"name": "right", "open_end": free[1]}]
    }
    put_hand(client, p["P1"], hands["P1"])
    put_hand(client, p["P2"], hands["P2"])
    end(client, tokens.admin, "t1", ended_by="block", layout=layout)
    table1 = client.get("/api/tables/t1").get_json()
    assert table1["rounds"][0]["hands"] == {"P1": [spare[0]], "P2": [spare[1]]}
    assert table1["rounds"][1]["status"] == "open" and "hands" not in table1["rounds"][1]
    assert leaks(answers(None), ["P3", "P4"]) == []
    assert leaks(answers("P1"), ["P3", "P4"]) == []

    # Table 2: a tile held twice (P4's hand gets one of P3's). P3 proposes: the rules
    # engine refuses, and the players hear only that a tile needs checking; the answer, the
    # table, its audit trail and its stream name neither hand's tiles.
    own = {name: list(hands[name]) for name in ("P3", "P4")}  # before they share a tile
    hands["P4"] = [*hands["P4"], hands["P3"][0]]
    put_hand(client, p["P4"], hands["P4"])
    refused = client.post("/api/hand/propose", headers=bearer(p["P3"]))
    assert refused.status_code == 409
    assert refused.get_json()["error"].startswith("A tile needs checking")
    assert leaks([refused.get_data(as_text=True), *answers(None)], ["P3", "P4"]) == []
    # Each player's view shows their own hand, so the shared tile is not the other's secret.
    shared = own["P3"][0]
    hands.update(P3=own["P3"][1:], P4=own["P4"])
    assert leaks(answers("P3"), ["P4"]) == []
    assert leaks(answers("P4"), ["P3"]) == []
    assert shared in client.get("/api/hand", headers=bearer(p["P4"])).get_json()["hand"]
    # The host of table 2 (only) reads which tile it is, as single-table mode's review.
    trail = client.get("/api/tables/t2/audit", headers=bearer(tokens.hosts["t2"])).get_json()
    refusal = [e["text"] for e in trail["audit"] if e["action"] == "review"]
    assert refusal and any(pattern.search(refusal[0]) for pattern in tile_patterns([shared]))
    other_host = client.get("/api/tables/t2/audit", headers=bearer(tokens.hosts["t1"]))
    assert leaks([other_host.get_data(as_text=True)], ["P3", "P4"]) == []


def test_unknown_tables_and_bad_tokens_get_json_errors(make_event, web) -> None:
    """404 for a table not in the event, 401 without a token, 403 with a wrong one or a
    player's token on an admin endpoint, 400 for a body that is not what it must be."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    cases = [
        (client.get("/api/tables/t9"), 404),
        (client.get("/tables/t9/overlay"), 404),
        (client.post("/api/tables/t1/frames", data=b"\xff\xd8\xff"), 401),
        (client.post("/api/tables/t1/frames", data=b"x", headers=bearer("nope")), 403),
        (
            client.post(
                "/api/tables/t1/rounds/current/end",
                json={"ended_by": "block"},
                headers=bearer(tokens.players["P1"]),
            ),
            403,
        ),
        (client.post("/api/tables/t1/frames", data=b"GIF89a", headers=bearer(tokens.admin)), 400),
        (client.put("/api/hand", json={"tiles": [[1, 2]]}, headers=bearer("nope")), 403),
        (client.put("/api/hand", data="[]", headers=bearer(tokens.players["P1"])), 400),
        (
            client.post(
                "/api/tables/t1/rounds/current/end",
                json={"ended_by": "block", "proposer": "P1"},
                headers=bearer(tokens.admin),
            ),
            409,  # no hands yet
        ),
    ]
    for answer, status in cases:
        body = answer.get_json()
        assert answer.status_code == status, (status, body)
        assert body["status"] == status and body["error"]


def test_undo_the_last_round_with_a_reason_in_the_audit_trail(make_event, web) -> None:
    """The host reopens a table's last round: its points leave the standings, the round
    opened after it goes, and the audit trail says who did what, with the reason."""
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    end(client, tokens.admin, "t1", ended_by="block", layout=BLOCKED_TABLE)
    assert client.get("/api/standings").get_json()["players"][0] == {
        "rank": 1,
        "name": "P1",
        "total": 17,
        "table": "t1",
        "team": "Red",
    }
    no_reason = client.post(
        "/api/tables/t1/rounds/last/reopen", json={}, headers=bearer(tokens.admin)
    )
    assert no_reason.status_code == 400
    reopened = client.post(
        "/api/tables/t1/rounds/last/reopen",
        json={"reason": "P2 had a tile under the table"},
        headers=bearer(tokens.admin),
    )
    assert reopened.get_json() == {"round": 1, "status": "open"}
    standings = client.get("/api/standings").get_json()
    assert {e["name"]: e["total"] for e in standings["players"]}["P1"] == 0
    table = client.get("/api/tables/t1").get_json()
    assert [(r["number"], r["status"]) for r in table["rounds"]] == [(1, "open")]
    assert "hands" not in table["rounds"][0]  # open again: secret again
    # The reopened round's hands stay locked: P2 cannot change theirs, the table's host can,
    # with a reason; the change is in the audit trail (tiles named once the round ends).
    refused = client.put("/api/hand", json={"tiles": [[1, 1]]}, headers=bearer(p["P2"]))
    assert refused.status_code == 409
    host = bearer(tokens.hosts["t1"])
    no_reason = client.put("/api/tables/t1/seats/2/hand", json={"tiles": [[3, 3]]}, headers=host)
    assert no_reason.status_code == 400 and "reason" in no_reason.get_json()["error"]
    changed = client.put(
        "/api/tables/t1/seats/2/hand",
        json={"tiles": [[6, 6], [2, 3], [3, 3]], "reason": "the tile under the table"},
        headers=host,
    )
    assert changed.status_code == 200, changed.get_json()
    while_open = client.get("/api/tables/t1/audit").get_json()["audit"]
    assert while_open[-1]["text"] == "the host changed P2's confirmed hand (2 tiles, now 3)"
    assert while_open[-1]["reason"] is None  # a reason may name a tile: shown at the end
    # P1 confirms their hand again, as it is (also while locked), before the next ruling.
    assert client.post("/api/hand/confirm", json={}, headers=bearer(p["P1"])).status_code == 200
    again = end(client, tokens.hosts["t1"], "t1", ended_by="block", layout=BLOCKED_TABLE)
    assert again["result"]["points"] == {"P1": 23}
    trail = client.get("/api/tables/t1/audit").get_json()["audit"]
    actions = [(e["author"], e["action"]) for e in trail]
    # As in single-table mode: the audit trail keeps changes (a hand confirmed for the first
    # time, or again as it is, is none), and the reopening's words are the same.
    assert actions == [
        ("host", "lock"),
        ("host", "round-ended"),
        ("host", "reopen"),
        ("host", "hand"),
        ("host", "round-ended"),
    ]
    assert trail[2]["reason"] == "P2 had a tile under the table"
    assert trail[2]["text"] == "the host reopened round 1 (its points P1 17 left the scoreboard)"
    assert trail[2]["detail"]["points_before"] == {"P1": 17}
    assert trail[3]["text"] == (
        "the host changed P2's confirmed hand: 6-6 2-3 (17 pips) became 6-6 2-3 3-3 (23 pips)"
    )
    assert trail[3]["reason"] == "the tile under the table"


def test_an_unreachable_broker_gets_503_not_a_traceback(make_event, urls) -> None:
    """Redis away (here: a port nothing listens on): the API says so with 503 JSON."""
    from tournament_factories import free_port

    from dominocam.tournament.web import create_app

    _, tokens = make_event(tables=1)
    app = create_app(urls["database"], f"redis://127.0.0.1:{free_port()}/0", tokens.event_id)
    try:
        client = app.test_client()
        for answer in (
            client.get("/api/health"),
            client.get("/api/tables/t1"),
            client.post(
                "/api/tables/t1/frames", data=b"\xff\xd8\xff\xe0", headers=bearer(tokens.admin)
            ),
        ):
            assert answer.status_code == 503
            assert "broker cannot be reached" in answer.get_json()["error"]
        assert client.get("/api/standings").status_code == 200  # the database still answers
    finally:
        app.extensions["dominocam.tournament"]["pool"].close()


def test_partnership_pairs_score_once_per_round_and_stay_per_table(make_event, web) -> None:
    """Partnership without teams in the file: seats 1-3 and 2-4 of each table are pairs of
    that table; the winning pair's points count once for the pair and for each partner."""
    names = ["N1", "E1", "S1", "W1", "N2", "E2", "S2", "W2"]
    _, tokens = make_event(
        {
            "event": "partnership-test-" + tokens_suffix(),
            "variant": "partnership",
            "players": names,
            "tables": [{"id": "t1", "seats": names[:4]}, {"id": "t2", "seats": names[4:]}],
        }
    )
    client = web(tokens.event_id)
    p = tokens.players
    for name, tiles in (
        ("N1", [[6, 6], [1, 2]]),
        ("E1", [[0, 2]]),
        ("S1", [[5, 5]]),
        ("W1", [[1, 1], [0, 0]]),
    ):
        put_hand(client, p[name], tiles)
    ends = {"lines": [{"name": "left", "open_end": 4}, {"name": "right", "open_end": 3}]}
    outcome = end(client, tokens.admin, "t1", ended_by="block", layout=ends, proposer="E1")
    assert outcome["result"]["points"] == {"B": 25}
    standings = client.get("/api/standings").get_json()
    totals = {e["name"]: e["total"] for e in standings["players"]}
    assert totals == {"E1": 25, "W1": 25, "N1": 0, "S1": 0, "N2": 0, "E2": 0, "S2": 0, "W2": 0}
    teams = {e["name"]: e["total"] for e in standings["teams"]}
    assert teams == {"t1 B": 25, "t1 A": 0, "t2 A": 0, "t2 B": 0}


def tokens_suffix() -> str:
    import uuid

    return uuid.uuid4().hex[:8]
