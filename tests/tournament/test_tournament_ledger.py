"""A tournament table consults the round's ledger before a ruling (issue 32), as single-table
mode does: a tile in two places or a boneyard count unknown in a game that draws holds the
ruling for the table host, who reads the problems tile by tile; players read only that the
host is checking; a round that adds up is ruled as before."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import bearer, event_data

pytestmark = pytest.mark.tournament

BLOCKED_TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}
# P1's and P2's own trains and the Mexican train, on ends nobody's tile matches.
BLOCKED_TRAINS = {
    "lines": [
        {"name": "P1", "owner": "P1", "open_end": 11},
        {"name": "P2", "owner": "P2", "open_end": 10},
        {"name": "mexican", "open_end": 9},
    ]
}


def put_hand(client, token: str, tiles: list[list[int]]):
    return client.put("/api/hand", json={"tiles": tiles}, headers=bearer(token))


def test_a_tile_on_the_table_and_in_a_hand_holds_the_ruling_for_the_host(
    db, make_event, web
) -> None:
    """6-6 is on the table camera's newest Scene and in P2's confirmed hand: P1's block waits
    for the host. P1, the public table and the public audit trail name no tile; the host
    reads which tile and whose hand."""
    from dominocam.rounds import ledger_words
    from dominocam.tournament import store

    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    scene = {
        "image": {"width": 640, "height": 360},
        "tiles": [{"pips": [6, 6], "face": "up"}],
        "layout": {"lines": [], "open_ends": [5, 4]},
        "needs_review": False,
    }
    store.store_scene(db, tokens.event_id, "t1", 1, scene, sent_at=0, read_s=0, worker="t")
    assert put_hand(client, p["P1"], [[0, 1]]).status_code == 200
    assert put_hand(client, p["P2"], [[6, 6], [2, 3]]).status_code == 200
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=host).status_code
        == 200
    )

    proposed = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert proposed.status_code == 409, proposed.get_json()
    assert proposed.get_json()["error"] == ledger_words.public_message(["does-not-add-up"])
    table = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["status"] == "open" and table["pending"] is not None
    assert "6-6" not in table["pending"]
    public_trail = client.get("/api/tables/t1/audit", headers=bearer(p["P1"])).get_json()
    assert "6-6" not in str(public_trail)

    host_trail = client.get("/api/tables/t1/audit", headers=host).get_json()["audit"]
    review = [e for e in host_trail if e["action"] == "review"]
    assert review and "6-6 is in two places: on the table and in P2's hand" in review[-1]["text"]
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert scored.status_code == 409 and "6-6 is in two places" in scored.get_json()["error"]
    assert client.get("/api/tables/t1").get_json()["rounds"][0]["status"] == "open"


def test_a_mexican_train_block_waits_for_the_boneyard_count_then_rules(make_event, web) -> None:
    """Mexican Train draws: a block is not ruled on a boneyard assumed empty. It waits for
    the host's count; once the host enters 0, the held block is scored."""
    from dominocam.rounds import ledger_words

    data = event_data(tables=1, variant="mexican-train")
    data["set"] = 12
    _, tokens = make_event(data)
    client = web(tokens.event_id)
    p = tokens.players
    assert put_hand(client, p["P1"], [[0, 1]]).status_code == 200
    assert put_hand(client, p["P2"], [[2, 3]]).status_code == 200
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": BLOCKED_TRAINS}, headers=host)
    ).status_code == 200

    proposed = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert proposed.status_code == 409, proposed.get_json()
    assert proposed.get_json()["error"] == ledger_words.public_message(["boneyard-unknown"])
    assert client.get("/api/tables/t1").get_json()["rounds"][0]["pending"] is not None
    waiting = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert waiting.status_code == 409 and "boneyard" in waiting.get_json()["error"]

    assert client.put("/api/tables/t1/table", json={"boneyard": 0}, headers=host).status_code == 200
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert scored.status_code == 200, scored.get_json()
    assert scored.get_json()["ended"] is True
    assert scored.get_json()["result"]["points"] == {"P1": 1, "P2": 5}


def test_a_round_that_adds_up_is_ruled_as_before_and_keeps_its_ledger(db, make_event, web) -> None:
    """No camera reading contradicts the hands: the block is held and scored as before, and
    the round's result keeps the ledger's verdict."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    host = bearer(tokens.hosts["t1"])
    client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=host)
    held = client.post("/api/hand/propose", headers=bearer(p["P1"])).get_json()
    assert held["held"] is True and held["ended"] is False, held
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host).get_json()
    assert scored["ended"] is True and scored["result"]["points"] == {"P1": 17}
    row = db.execute(
        "SELECT r.result FROM rounds r JOIN events e ON e.id = r.event_id "
        "WHERE e.id = %s AND r.table_id = 't1' AND r.number = 1",
        (tokens.event_id,),
    ).fetchone()
    assert row["result"]["ledger"]["adds_up"] is True
    # A block game never draws: the rules engine judges with the 14 tiles set aside
    # (`dominocam.rules.hold.judged_boneyard`), which nobody can draw from.
    assert row["result"]["state"]["boneyard"] == 14


# --- the table host resolves a held ruling (issue 32, as single-table mode) --------------------

CAMERA_SCENE = {
    "image": {"width": 640, "height": 360},
    "tiles": [{"pips": [6, 6], "face": "up"}],
    "layout": {"lines": [], "open_ends": [5, 4]},
    "needs_review": False,
}


# Block for two, double-6: 7 tiles each, 14 set aside. The camera reads 6-6 on the table;
# P1 holds 7 tiles, P2 played 6-6 and holds 6, but still lists it. No hand holds a 4 or a 5.
P1_HAND = [[0, 0], [0, 1], [0, 2], [0, 3], [0, 6], [1, 1], [1, 2]]
P2_HAND = [[1, 3], [1, 6], [2, 2], [2, 3], [2, 6], [3, 3]]
# The same count, other tiles: what P1 reads must not change.
P2_OTHER = [[1, 3], [1, 6], [2, 2], [2, 3], [3, 6], [3, 3]]


PROBLEMS = [
    "6-6 is in two places: on the table and in P2's hand.",
    "The table, the hands and the boneyard hold at least 29 tiles, more than the 28 of the set.",
]


def _claimed_round(db, make_event, web, p2_tiles: list[list[int]]):
    """One table: the camera reads 6-6 on the table, P2 claims it in a confirmed hand, P1
    proposes a block: held for the host's check. Returns (client, tokens)."""
    from dominocam.tournament import store

    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    store.store_scene(db, tokens.event_id, "t1", 1, CAMERA_SCENE, sent_at=0, read_s=0, worker="t")
    assert put_hand(client, p["P1"], P1_HAND).status_code == 200
    assert put_hand(client, p["P2"], [[6, 6], *p2_tiles]).status_code == 200
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=host).status_code
        == 200
    )
    assert client.post("/api/hand/propose", headers=bearer(p["P1"])).status_code == 409
    return client, tokens


def test_the_table_host_overrides_with_a_reason_kept_in_the_audit_trail_and_the_result(
    db, make_event, web
) -> None:
    """The host rules on their word: without a reason, or by anybody else, it is refused;
    the public audit trail shows that the host overrode (not why, not which tile) until the
    round ends; the round's result keeps the reason and the problems overridden."""
    client, tokens = _claimed_round(db, make_event, web, P2_HAND)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    path = "/api/tables/t1/rounds/current/ledger/override"
    reason = {"reason": "the camera saw the 6-6 from the next table"}
    assert client.post(path, json={}, headers=host).status_code == 400
    assert client.post(path, json=reason).status_code == 401
    assert client.post(path, json=reason, headers=bearer(p["P1"])).status_code == 403
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert scored.status_code == 409 and "does not add up" in scored.get_json()["error"]

    overridden = client.post(path, json=reason, headers=host)
    assert overridden.status_code == 200, overridden.get_json()  # today: 404
    review = client.get("/api/tables/t1/rounds/current/review", headers=host).get_json()
    assert review["ledger"]["override"] == {"reason": reason["reason"], "applies": True}
    assert review["ledger"]["waits"] == []
    public = client.get("/api/tables/t1/audit").get_json()["audit"]
    entry = next(e for e in public if e["action"] == "override")
    assert entry["text"] == "the host rules the round although it does not add up"
    assert entry["reason"] is None and "problems" not in entry["detail"]
    assert "6-6" not in str(public)

    scored = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert scored.status_code == 200, scored.get_json()
    assert scored.get_json()["ended"] is True
    assert scored.get_json()["result"]["points"] == {"P1": 46}  # P2's 6-6 and 34
    ended = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert ended["ledger"] == {
        "text": "Scored on the host's word, though the round did not add up: "
        "the camera saw the 6-6 from the next table",
        "closes": True,
        "overridden": True,
        "reason": reason["reason"],
        "problems": PROBLEMS,
    }
    row = db.execute(
        "SELECT result FROM rounds WHERE event_id = %s AND table_id = 't1' AND number = 1",
        (tokens.event_id,),
    ).fetchone()
    assert row["result"]["ledger"]["override"]["reason"] == reason["reason"]
    trail = client.get("/api/tables/t1/audit").get_json()["audit"]
    entry = next(e for e in trail if e["action"] == "override")
    assert entry["reason"] == reason["reason"]
    # The words of single-table mode's entry (translated where shown); the problems are in
    # its detail and in the round's result (`ledger` above), shown once the round has ended.
    assert entry["text"] == "the host rules the round although it does not add up"
    assert [p["code"] for p in entry["detail"]["problems"]]


def test_an_override_holds_only_for_the_problems_it_saw(db, make_event, web) -> None:
    """A new problem after the host's word needs a new look; a round that adds up has
    nothing to override."""
    client, tokens = _claimed_round(db, make_event, web, P2_HAND)
    host = bearer(tokens.hosts["t1"])
    path = "/api/tables/t1/rounds/current/ledger/override"
    assert client.post(path, json={"reason": "toy table"}, headers=host).status_code == 200
    # P1's hand now copies P2's 2-3: another problem.
    change = {"tiles": [*P1_HAND[:-1], [2, 3]], "reason": "recounted"}
    assert client.put("/api/tables/t1/seats/1/hand", json=change, headers=host).status_code == 200
    review = client.get("/api/tables/t1/rounds/current/review", headers=host).get_json()
    assert review["ledger"]["override"] == {"reason": "toy table", "applies": False}
    assert review["ledger"]["waits"] == ["does-not-add-up"]
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert scored.status_code == 409 and "2-3 is in two places" in scored.get_json()["error"]
    # The host fixes both hands: the round adds up, nothing to override, and it is scored.
    fixed = {"tiles": P1_HAND, "reason": "2-3 is P2's"}
    assert client.put("/api/tables/t1/seats/1/hand", json=fixed, headers=host).status_code == 200
    fixed = {"tiles": P2_HAND, "reason": "6-6 was played"}
    assert client.put("/api/tables/t1/seats/2/hand", json=fixed, headers=host).status_code == 200
    again = client.post(path, json={"reason": "x"}, headers=host)
    assert again.status_code == 409 and "nothing to override" in again.get_json()["error"]
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host).get_json()
    assert scored["ended"] is True and scored["result"]["points"] == {"P1": 34}
    ended = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert ended["ledger"]["overridden"] is False


def test_the_host_reads_the_held_rulings_ledger_tile_by_tile(db, make_event, web) -> None:
    """The host's panel: the set as cells (28 for double-6), each problem in words, why the
    ruling was held, every seat's hand and the boneyard's count as entered."""
    client, tokens = _claimed_round(db, make_event, web, P2_HAND)
    host = bearer(tokens.hosts["t1"])
    answer = client.get("/api/tables/t1/rounds/current/review", headers=host)
    assert answer.status_code == 200, answer.get_json()  # today: 404
    review = answer.get_json()
    ledger = review["ledger"]
    assert ledger["problems_shown"] == PROBLEMS
    assert not ledger["adds_up"] and ledger["waits"] == ["does-not-add-up"]
    assert ledger["waits_shown"][0].startswith("The round does not add up")
    assert len(ledger["cells"]) == 28
    assert next(c for c in ledger["cells"] if c["tile"] == [6, 6]) == {
        "tile": [6, 6],
        "kind": "twice",
        "players": ["P2"],
        "on_table": True,
        "problem": True,
    }
    assert next(c for c in ledger["cells"] if c["tile"] == [0, 1])["kind"] == "hand"
    assert review["held_for"] == ["does-not-add-up"]
    assert review["pending"]["proposer"] == "P1" and review["pending"]["waiting"] is True
    assert review["hands"] == [
        {"seat": 1, "name": "P1", "state": "confirmed", "tiles": P1_HAND, "replaced": []},
        {
            "seat": 2,
            "name": "P2",
            "state": "confirmed",
            "tiles": [[6, 6], *P2_HAND],
            "replaced": [],  # nothing typed over a reading or an earlier list
        },
    ]
    assert ledger["boneyard_entered"] == {"count": None, "source": None}
    assert ledger["override"] is None
    # The director reads it too; another table's host and the players do not.
    assert (
        client.get("/api/tables/t1/rounds/current/review", headers=bearer(tokens.admin)).status_code
        == 200
    )
    for token in tokens.players.values():
        refused = client.get("/api/tables/t1/rounds/current/review", headers=bearer(token))
        assert refused.status_code == 403 and "6-6" not in refused.get_data(as_text=True)


def _what_p1_reads(client, tokens) -> list[object]:
    """Everything P1's token (or anybody) can read of the table while the host checks."""
    me = bearer(tokens.players["P1"])
    host = "/api/tables/t1/rounds/current"
    answers: list[object] = []
    for method, path, body in (
        ("get", "/api/hand", None),
        ("get", "/api/tables/t1", None),
        ("get", "/api/tables/t1/audit", None),
        ("get", f"{host}/review", None),
        ("post", f"{host}/ledger/override", {"reason": "mine"}),
        ("post", f"{host}/score", None),
        ("post", "/api/hand/propose", None),
        ("post", "/api/hand/domino", None),
        ("get", f"/host/{tokens.players['P1']}", None),
    ):
        answer = getattr(client, method)(path, json=body, headers=me)
        data = answer.get_json() if answer.is_json else answer.get_data(as_text=True)
        answers.append((answer.status_code, _without_clock(data)))
    return answers


def _without_clock(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in ("at", "latest_seq")}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def test_players_read_only_that_the_table_host_is_checking(db, make_event, web) -> None:
    """While the host checks, a player reads that the host is checking, never which tile or
    whose hand: every answer to P1's token is the same whatever P2 holds, and none names
    the tile in two places."""
    from dominocam.rounds import ledger_words

    client_a, tokens_a = _claimed_round(db, make_event, web, P2_HAND)
    client_b, tokens_b = _claimed_round(db, make_event, web, P2_OTHER)
    seen_a = _what_p1_reads(client_a, tokens_a)
    seen_b = _what_p1_reads(client_b, tokens_b)
    assert seen_a == seen_b
    text = str(seen_a)  # the camera's 6-6 is public; where else it is, is not
    assert "two places" not in text and "in P2's hand" not in text and "29 tiles" not in text
    assert "does-not-add-up" not in text  # nor that it is more than counts not known
    checking = ledger_words.public_message(["does-not-add-up"])
    me = bearer(tokens_a.players["P1"])
    assert client_a.get("/api/hand", headers=me).get_json()["checking"] == checking  # today: no
    # P2's phone, and theirs alone, names their own tile that the table shows.
    p2 = client_a.get("/api/hand", headers=bearer(tokens_a.players["P2"])).get_json()
    assert p2["on_table"] == [[6, 6]]
    assert p2["on_table_text"] == "6-6 is now on the table: take it out of your hand and confirm."
    assert client_a.get("/api/hand", headers=me).get_json()["on_table"] == []
    table = client_a.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["checking"] == checking
    # The host reads the tile and the hand.
    host = bearer(tokens_a.hosts["t1"])
    review = client_a.get("/api/tables/t1/rounds/current/review", headers=host).get_json()
    assert "in P2's hand" in review["ledger"]["problems_shown"][0]


# --- play goes on: every hand to confirm again ----------------------------------------------------


def test_after_a_check_that_stops_every_hand_is_confirmed_again_before_the_next_ruling(
    make_event, web
) -> None:
    """The reported stale hands: a block check stops (P2 can play: a foul; nothing locks),
    play goes on at the table (P2 plays 2-5, P1 goes out). The host's domino is not scored
    on the hands as last confirmed: P2 confirms theirs again first."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    lines = {"lines": [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}]}
    assert (
        client.put("/api/tables/t1/table", json={"layout": lines}, headers=host).status_code == 200
    )
    assert put_hand(client, p["P1"], [[0, 1]]).status_code == 200
    assert put_hand(client, p["P2"], [[2, 5], [4, 4]]).status_code == 200
    stopped = client.post("/api/hand/propose", headers=bearer(p["P2"]))
    assert stopped.status_code == 200, stopped.get_json()
    assert stopped.get_json()["outcome"]["stopped"]["foul"] is True
    # Nothing locked: play goes on at once (no unlock to wait for).

    table = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["to_confirm"] == ["P1", "P2"] and table["locked"] is None
    assert client.get("/api/hand", headers=bearer(p["P2"])).get_json()["to_confirm"] is True
    domino = {"winner": "P1"}
    ruled = client.post("/api/tables/t1/rounds/current/domino?confirm=1", json=domino, headers=host)
    assert ruled.status_code == 409, ruled.get_json()  # today: scored, P1 +15 on stale hands
    assert ruled.get_json()["error"] == (
        "Play went on since the hands were confirmed: P2 confirms their hand again (as it "
        "is, or corrected) before a ruling."
    )
    table = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["status"] == "open" and table["locked"] is None  # refused before the lock
    proposed = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert proposed.status_code == 409 and "P1 and P2 confirm" in proposed.get_json()["error"]

    # P2 played 2-5: corrected and confirmed; the domino is scored on the hand as it is.
    assert put_hand(client, p["P2"], [[4, 4]]).status_code == 200
    assert client.get("/api/hand", headers=bearer(p["P2"])).get_json()["to_confirm"] is False
    ruled = client.post("/api/tables/t1/rounds/current/domino?confirm=1", json=domino, headers=host)
    assert ruled.status_code == 200, ruled.get_json()
    assert ruled.get_json()["result"]["points"] == {"P1": 8}


def test_a_reopened_round_has_every_hand_confirmed_again_as_it_is_or_by_the_host(
    make_event, web
) -> None:
    """The host reopens a scored round: its hands stay locked and each is to be confirmed
    again; an owner confirms theirs as it is (a change is the host's), and the host's next
    ruling waits until every hand is confirmed."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    assert put_hand(client, p["P1"], [[0, 1]]).status_code == 200
    assert put_hand(client, p["P2"], [[6, 6], [2, 3]]).status_code == 200
    end = {"ended_by": "block", "proposer": "P1", "layout": BLOCKED_TABLE}
    ended = client.post("/api/tables/t1/rounds/current/end", json=end, headers=host)
    assert ended.status_code == 200 and ended.get_json()["ended"], ended.get_json()
    reopen = {"reason": "P2 hid a tile"}
    assert (
        client.post("/api/tables/t1/rounds/last/reopen", json=reopen, headers=host).status_code
        == 200
    )

    table = client.get("/api/tables/t1").get_json()["rounds"][0]
    assert table["to_confirm"] == ["P1", "P2"] and table["locked"]
    ruled = client.post(
        "/api/tables/t1/rounds/current/block?confirm=1", json={"proposer": "P1"}, headers=host
    )
    assert ruled.status_code == 409 and "P1 and P2 confirm" in ruled.get_json()["error"]
    me = bearer(p["P1"])
    assert put_hand(client, p["P1"], [[1, 1]]).status_code == 409  # locked: a change is the host's
    assert client.post("/api/hand/confirm", json={}, headers=me).status_code == 200  # as it is
    assert client.get("/api/hand", headers=me).get_json()["to_confirm"] is False
    change = {"tiles": [[6, 6], [2, 3], [1, 3]], "reason": "the hidden 1-3"}
    assert client.put("/api/tables/t1/seats/2/hand", json=change, headers=host).status_code == 200
    ruled = client.post(
        "/api/tables/t1/rounds/current/block?confirm=1", json={"proposer": "P1"}, headers=host
    )
    assert ruled.status_code == 200 and ruled.get_json()["ended"], ruled.get_json()
    assert ruled.get_json()["result"]["points"] == {"P1": 21}


# --- the host's own ruling answers counts that do not close --------------------------------------


def test_the_hosts_own_ruling_answers_counts_that_do_not_close(make_event, web) -> None:
    """Without a camera reading not every count is known: the host's own ruling is given at
    once, and a player's proposal is held for the host as every player's ruling is (not
    refused): the host weighs the open counts when they score it."""
    _, tokens = make_event(tables=2)
    client = web(tokens.event_id)
    p = tokens.players
    for name, tiles in (("P1", [[0, 1]]), ("P2", [[6, 6]]), ("P3", [[0, 1]]), ("P4", [[6, 6]])):
        assert put_hand(client, p[name], tiles).status_code == 200
    end = {"ended_by": "block", "proposer": "P1", "layout": BLOCKED_TABLE}
    ruled = client.post("/api/tables/t1/rounds/current/end", json=end, headers=bearer(tokens.admin))
    assert ruled.status_code == 200, ruled.get_json()  # today: 409, counts open
    assert ruled.get_json()["result"]["points"] == {"P1": 12}

    host2 = bearer(tokens.hosts["t2"])
    assert (
        client.put(
            "/api/tables/t2/table", json={"layout": BLOCKED_TABLE}, headers=host2
        ).status_code
        == 200
    )
    proposed = client.post("/api/hand/propose", headers=bearer(p["P3"]))
    assert proposed.status_code == 200, proposed.get_json()
    assert proposed.get_json()["held"] and not proposed.get_json()["ended"]
    review = client.get("/api/tables/t2/rounds/current/review", headers=host2).get_json()
    assert review["ledger"]["waits"] == [] and not review["ledger"]["closes"]
    scored = client.post("/api/tables/t2/rounds/current/score", headers=host2)
    assert scored.status_code == 200 and scored.get_json()["ended"], scored.get_json()
