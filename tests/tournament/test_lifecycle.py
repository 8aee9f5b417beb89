"""A tournament table keeps single-table mode's promises: a photo is pending until its owner
confirms it, proposing locks the hands of that table only, a change after the lock needs the
table's host (or the event director) and is audited, a ruling is scored only once the host
confirms it, and undo changes the standings."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import bearer, wait_until

pytestmark = pytest.mark.tournament

BLOCKED_TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}


def put_hand(client, token: str, tiles: list[list[int]]):
    return client.put("/api/hand", json={"tiles": tiles}, headers=bearer(token))


def totals(client) -> dict[str, int]:
    return {e["name"]: e["total"] for e in client.get("/api/standings").get_json()["players"]}


def test_a_photo_is_pending_until_its_owner_confirms(make_event, web, workers, game_frames):
    """A worker reads a hand photo into a pending reading: the player sees it, nobody else
    does, the round cannot be ruled on with it, and a new photo of a confirmed hand never
    replaces it by itself; the owner's confirmation makes it the hand."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    me = bearer(tokens.players["P1"])
    workers.start("w1")
    workers.wait_ready(["w1"])

    sent = client.post("/api/hand/photo", data=game_frames[-1], headers=me)
    assert sent.status_code == 202, sent.get_json()
    view = wait_until(
        lambda: (v := client.get("/api/hand", headers=me).get_json())["pending"] is not None and v,
        60,
        "the photo's reading",
    )
    reading = view["pending"]
    assert view["hand"] is None  # pending is not the hand
    assert client.get("/api/tables/t1").get_json()["rounds"][0]["tiles"]["P1"] is None
    assert put_hand(client, tokens.players["P2"], [[6, 6]]).status_code == 200
    ruled = client.post(
        "/api/tables/t1/rounds/current/end",
        json={"ended_by": "block", "proposer": "P2", "layout": BLOCKED_TABLE},
        headers=bearer(tokens.hosts["t1"]),
    )
    assert ruled.status_code == 409 and "no confirmed hand yet for P1" in ruled.get_json()["error"]

    confirmed = client.post("/api/hand/confirm", json={}, headers=me)
    assert confirmed.status_code == 200, confirmed.get_json()
    view = client.get("/api/hand", headers=me).get_json()
    assert view["hand"] == reading and view["pending"] is None
    assert client.get("/api/tables/t1").get_json()["rounds"][0]["tiles"]["P1"] == len(reading)

    # A new photo of the confirmed hand is pending again; discarding it keeps the hand.
    client.post("/api/hand/photo", data=game_frames[0], headers=me)
    wait_until(
        lambda: client.get("/api/hand", headers=me).get_json()["pending"] is not None,
        60,
        "the second reading",
    )
    assert client.get("/api/hand", headers=me).get_json()["hand"] == reading
    assert client.post("/api/hand/discard", headers=me).status_code == 200
    view = client.get("/api/hand", headers=me).get_json()
    assert view["hand"] == reading and view["pending"] is None


def test_proposing_locks_every_hand_at_that_table_only(make_event, web) -> None:
    """P1 proposes a block at table 1: every hand there locks (a change, a photo, a
    declaration are refused), while table 2 plays on."""
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    for name, tiles in (("P1", [[0, 1]]), ("P2", [[6, 6], [2, 3]]), ("P3", [[1, 1]])):
        assert put_hand(client, p[name], tiles).status_code == 200
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=host).status_code
        == 200
    )
    proposed = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert proposed.status_code == 200, proposed.get_json()
    assert proposed.get_json()["held"] is True

    for token in (p["P1"], p["P2"]):
        refused = put_hand(client, token, [[3, 3]])
        assert refused.status_code == 409 and "locked" in refused.get_json()["error"]
        # The same code as single-table mode's, the lock's reason as its sentence's code.
        assert refused.get_json()["code"] == "hands_locked"
        assert refused.get_json()["params"]["reason"]["params"] == {"name": "P1"}
    photo = client.post("/api/hand/photo", data=b"\xff\xd8\xff\xe0", headers=bearer(p["P2"]))
    assert photo.status_code == 409 and photo.get_json()["code"] == "hands_locked"
    declare = client.post("/api/hand/declare", json={"cannot_play": True}, headers=bearer(p["P2"]))
    assert declare.status_code == 409 and declare.get_json()["code"] == "hands_locked"
    assert client.get("/api/hand", headers=bearer(p["P2"])).get_json()["locked"] == (
        "P1 proposed a block"
    )
    table2 = client.get("/api/tables/t2").get_json()["rounds"][0]
    assert table2["locked"] is None
    assert put_hand(client, p["P3"], [[2, 2]]).status_code == 200
    assert put_hand(client, p["P4"], [[0, 0]]).status_code == 200


def test_a_change_after_the_lock_needs_the_table_host_and_is_audited(make_event, web) -> None:
    """After the lock only table 1's host or the event director changes a hand there, with
    a reason; another table's host and the players are refused. The audit trail shows the
    change at once without its tiles, and with them once the round ends."""
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=bearer(tokens.admin))
    client.post("/api/hand/propose", headers=bearer(p["P2"]))
    change = {"tiles": [[6, 6], [2, 3], [1, 3]], "reason": "a tile was hidden"}
    path = "/api/tables/t1/seats/2/hand"
    assert client.put(path, json=change, headers=bearer(tokens.hosts["t2"])).status_code == 403
    assert client.put(path, json=change, headers=bearer(p["P2"])).status_code == 403
    assert client.put(path, json=change, headers=bearer(p["P1"])).status_code == 403
    no_reason = client.put(path, json={"tiles": [[1, 3]]}, headers=bearer(tokens.hosts["t1"]))
    assert no_reason.status_code == 400
    assert client.put(path, json=change, headers=bearer(tokens.hosts["t1"])).status_code == 200
    by_director = {"tiles": [[6, 6], [2, 3], [1, 2]], "reason": "the director looked"}
    assert client.put(path, json=by_director, headers=bearer(tokens.admin)).status_code == 200

    open_trail = client.get("/api/tables/t1/audit").get_json()["audit"]
    changes = [e for e in open_trail if e["action"] == "hand" and e["author"] == "host"]
    assert [e["text"] for e in changes] == [
        "the host changed P2's confirmed hand (2 tiles, now 3)",
        "the host changed P2's confirmed hand (3 tiles, now 3)",
    ]
    assert all(e["reason"] is None and "before" not in e["detail"] for e in changes)
    assert client.get("/api/tables/t2/audit").get_json()["audit"] == []

    scored = client.post("/api/tables/t1/rounds/current/score", headers=bearer(tokens.admin))
    assert scored.get_json()["ended"] is True, scored.get_json()
    trail = client.get("/api/tables/t1/audit").get_json()["audit"]
    changes = [e for e in trail if e["action"] == "hand" and e["author"] == "host"]
    assert changes[0]["text"] == (
        "the host changed P2's confirmed hand: 6-6 2-3 (17 pips) became 6-6 2-3 1-3 (21 pips)"
    )
    assert [e["reason"] for e in changes] == ["a tile was hidden", "the director looked"]
    assert scored.get_json()["result"]["points"] == {"P1": 20}


def test_a_ruling_is_not_scored_until_the_host_confirms_and_undo_changes_the_standings(
    make_event, web
) -> None:
    """A proposed block and a called domino wait for the host: the standings do not move
    until "score"; a cancelled ruling scores nothing; reopening the last round takes its
    points out of the standings."""
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    host1, host2 = bearer(tokens.hosts["t1"]), bearer(tokens.hosts["t2"])
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=host1)
    held = client.post("/api/hand/propose", headers=bearer(p["P1"])).get_json()
    assert held["held"] is True and held["ended"] is False
    assert totals(client)["P1"] == 0
    table = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["status"] == "open"
    assert table["pending"].startswith("Blocked: every player confirmed P1's block.")
    assert "hands" not in table
    assert client.post("/api/tables/t1/rounds/current/score", headers=host2).status_code == 403
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host1).get_json()
    assert scored["ended"] is True and scored["result"]["points"] == {"P1": 17}
    assert totals(client)["P1"] == 17

    # Table 2: a domino called, then cancelled by the host: nothing is scored.
    put_hand(client, p["P3"], [[1, 1]])
    put_hand(client, p["P4"], [[5, 6]])
    called = client.post("/api/hand/domino", headers=bearer(p["P3"])).get_json()
    assert called["held"] is True
    no_reason = client.post("/api/tables/t2/rounds/current/cancel", json={}, headers=host2)
    assert no_reason.status_code == 400
    cancel = {"reason": "P3 still had a tile"}
    assert (
        client.post("/api/tables/t2/rounds/current/cancel", json=cancel, headers=host2).status_code
        == 200
    )
    unscored = client.post("/api/tables/t2/rounds/current/score", headers=host2)
    assert (unscored.status_code, unscored.get_json()["code"]) == (409, "no_ruling_waiting")
    assert totals(client)["P3"] == 0

    # Undo table 1's round: P1's 17 points leave the standings.
    reopened = client.post(
        "/api/tables/t1/rounds/last/reopen", json={"reason": "miscounted"}, headers=host1
    )
    assert reopened.get_json() == {"round": 1, "status": "open"}
    assert totals(client)["P1"] == 0
    assert [r["status"] for r in client.get("/api/tables/t1").get_json()["rounds"]] == ["open"]


def test_a_ruling_uses_the_cameras_open_ends_unless_the_reading_is_doubtful(
    db, make_event, web
) -> None:
    """With no lines typed by the host, a block check judges the open ends of the table
    camera's newest Scene; a Scene the reading doubts is refused until the host types them."""
    from dominocam.tournament import store

    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    for table, seq, doubtful in (("t1", 1, False), ("t2", 1, True)):
        scene = {
            "image": {"width": 640, "height": 360},
            "tiles": [],
            "layout": {"lines": [], "open_ends": [5, 4]},
            "needs_review": doubtful,
        }
        store.store_scene(db, tokens.event_id, table, seq, scene, sent_at=0, read_s=0, worker="t")
    for name, tiles in (
        ("P1", [[0, 1]]),
        ("P2", [[6, 6], [2, 3]]),
        ("P3", [[0, 1]]),
        ("P4", [[6, 6]]),
    ):
        assert put_hand(client, p[name], tiles).status_code == 200
    blocked = client.post("/api/hand/propose", headers=bearer(p["P1"])).get_json()
    assert blocked["held"] is True, blocked  # 0-1 and 6-6, 2-3 play on neither 5 nor 4
    doubtful = client.post("/api/hand/propose", headers=bearer(p["P3"]))
    assert doubtful.status_code == 409 and "open ends" in doubtful.get_json()["error"]
    host = bearer(tokens.hosts["t2"])
    assert (
        client.put("/api/tables/t2/table", json={"layout": BLOCKED_TABLE}, headers=host).status_code
        == 200
    )
    assert client.post("/api/hand/propose", headers=bearer(p["P3"])).get_json()["held"] is True
