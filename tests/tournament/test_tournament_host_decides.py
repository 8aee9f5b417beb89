"""Issue 33 at a tournament table: the host decides, and no one else can.

* Point 2: tiles typed over a photo's pending reading leave an entry for the table's host
  alone (both lists), never in the public audit trail nor to another player, not even once
  the round ends; the host's review shows it with the hand (`replaced`).
* Point 4: only a ruling held for the table host locks the hands. A block check that stops
  and a refusal of the rules engine lock nothing, so no player can freeze the others; a
  stopped check still sends every confirmed hand to be confirmed again.
"""

from __future__ import annotations

import pytest
from tournament_factories import bearer

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament

# Open ends 5 and 4 on a double-6 block game.
TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}
READ = [[3, 4], [3, 6], [2, 3]]
TYPED = [[0, 1], [0, 0], [0, 2]]


def put_hand(client, token: str, tiles: list[list[int]]):
    return client.put("/api/hand", json={"tiles": tiles}, headers=bearer(token))


def read_photo(db, event_id: int, seat: int, tiles: list[list[int]]) -> None:
    """A worker's reading of a hand photo, stored as the worker stores it (pending)."""
    from dominocam.tournament import rounds, store

    player = store.seat_player(db, event_id, "t1", seat)
    assert rounds.store_pending_reading(db, event_id, player, tiles, {"tiles": []})


def table_round(client) -> dict:
    return client.get("/api/tables/t1").get_json()["rounds"][-1]


# --- point 2: typed tiles over a photo's reading -----------------------------------------------


def test_typed_tiles_over_a_photo_reading_are_kept_for_the_host_alone(make_event, web, db) -> None:
    """The issue's case: the photo reads 3-4 3-6 2-3 (pending), the player saves 0-1 0-0 0-2
    instead. The host's audit trail and review keep both lists; the public trail, the other
    player and the player's own view never show the entry, during or after the round."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    read_photo(db, tokens.event_id, 1, READ)
    assert client.get("/api/hand", headers=bearer(p["P1"])).get_json()["pending"] == READ
    assert put_hand(client, p["P1"], TYPED).status_code == 200

    trail = client.get("/api/tables/t1/audit", headers=host).get_json()["audit"]
    typed = [e for e in trail if e["action"] == "typed"]
    assert len(typed) == 1, trail  # today: none
    assert typed[0]["author"] == "P1"
    assert "3-4 3-6 2-3" in typed[0]["text"] and "0-1 0-0 0-2" in typed[0]["text"]
    review = client.get("/api/tables/t1/rounds/current/review", headers=host).get_json()
    hand = next(h for h in review["hands"] if h["name"] == "P1")
    assert [(r["source"], r["reading"], r["typed"]) for r in hand["replaced"]] == [
        ("photo", READ, TYPED)
    ]

    def unseen() -> None:
        for headers in ({}, bearer(p["P2"]), bearer(p["P1"])):
            body = client.get("/api/tables/t1/audit", headers=headers).get_data(as_text=True)
            assert '"typed"' not in body and "instead of the photo" not in body
            assert "3-4" not in body and "3-6" not in body
        assert "replaced" not in client.get("/api/hand", headers=bearer(p["P2"])).get_json()
        assert (
            client.get("/api/tables/t1/rounds/current/review", headers=bearer(p["P2"])).status_code
            == 403
        )

    unseen()
    # Confirming a reading as read, or a photo that agrees with the tiles, is no such entry.
    read_photo(db, tokens.event_id, 2, [[6, 6], [2, 2]])
    assert client.post("/api/hand/confirm", json={}, headers=bearer(p["P2"])).status_code == 200
    trail = client.get("/api/tables/t1/audit", headers=host).get_json()["audit"]
    assert [e["action"] for e in trail].count("typed") == 1
    # Once the round is scored, still the host's alone.
    ended = client.post(
        "/api/tables/t1/rounds/current/end",
        json={"ended_by": "block", "proposer": "P1", "layout": TABLE},
        headers=host,
    )
    assert ended.status_code == 200 and ended.get_json()["ended"], ended.get_json()
    unseen()
    trail = client.get("/api/tables/t1/audit", headers=host).get_json()["audit"]
    assert [e["action"] for e in trail].count("typed") == 1


def test_a_reading_corrected_at_confirmation_is_kept_for_the_host(make_event, web, db) -> None:
    """`POST /api/hand/confirm {"tiles"}` over a reading that differs: the same host-only
    entry (the reading and the tiles confirmed)."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    read_photo(db, tokens.event_id, 1, READ)
    me = bearer(tokens.players["P1"])
    assert client.post("/api/hand/confirm", json={"tiles": TYPED}, headers=me).status_code == 200
    review = client.get(
        "/api/tables/t1/rounds/current/review", headers=bearer(tokens.hosts["t1"])
    ).get_json()
    hand = next(h for h in review["hands"] if h["name"] == "P1")
    assert hand["tiles"] == TYPED
    assert [(r["source"], r["reading"], r["typed"]) for r in hand["replaced"]] == [
        ("photo", READ, TYPED)
    ]
    assert "typed" not in client.get("/api/tables/t1/audit").get_data(as_text=True)


# --- point 4: only a ruling held for the host locks ---------------------------------------------


def test_a_block_check_that_stops_locks_nothing(make_event, web) -> None:
    """P1 proposes a block that P2 can break (4-6 on the 4): the check stops, and the other
    player saves, declares and proposes as before; every hand is to be confirmed again."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": TABLE}, headers=host).status_code == 200
    )
    assert put_hand(client, p["P1"], [[0, 1]]).status_code == 200
    assert put_hand(client, p["P2"], [[4, 6], [2, 3]]).status_code == 200
    stopped = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert stopped.status_code == 200, stopped.get_json()
    assert stopped.get_json()["outcome"]["stopped"]["player"] == "P2"
    rnd = table_round(client)
    assert rnd["locked"] is None, rnd  # today: "P1 proposed a block"
    assert rnd["pending"] is None and rnd["to_confirm"] == ["P1", "P2"]
    assert client.get("/api/hand", headers=bearer(p["P2"])).get_json()["locked"] is None
    # P2 played 4-6: they correct their hand themselves; nobody waits for the host.
    assert put_hand(client, p["P2"], [[2, 3]]).status_code == 200
    declared = client.post("/api/hand/declare", json={"cannot_play": True}, headers=bearer(p["P2"]))
    assert declared.status_code == 200
    assert client.post("/api/hand/confirm", json={}, headers=bearer(p["P1"])).status_code == 200
    # Now nobody can play: the next proposal is held for the host, and that locks.
    held = client.post("/api/hand/propose", headers=bearer(p["P2"]))
    assert held.status_code == 200 and held.get_json()["held"] is True, held.get_json()
    assert table_round(client)["locked"] == "P2 proposed a block"
    assert put_hand(client, p["P1"], [[1, 1]]).status_code == 409
    actions = [e["action"] for e in client.get("/api/tables/t1/audit").get_json()["audit"]]
    assert actions.count("lock") == 1  # the held ruling's lock only


def test_a_refused_ruling_is_held_for_the_host_and_locks_the_hands(make_event, web) -> None:
    """The rules engine refuses the round (the host typed an open end the set does not
    have): the player hears only that a tile needs checking; the ruling waits for the host
    and the hands lock, as in single-table mode (`dominocam.rounds.operations.rule`). The host reads
    the engine's refusal, corrects the table and cancels; play goes on."""
    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    bad = {"lines": [{"name": "left", "open_end": 9}]}  # double-6: no 9
    assert client.put("/api/tables/t1/table", json={"layout": bad}, headers=host).status_code == 200
    assert put_hand(client, p["P1"], [[0, 1]]).status_code == 200
    assert put_hand(client, p["P2"], [[6, 6]]).status_code == 200
    refused = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert refused.status_code == 409
    assert refused.get_json()["error"].startswith("A tile needs checking")
    rnd = table_round(client)
    assert rnd["locked"] == "P1 proposed a block" and rnd["pending"] is not None, rnd
    assert rnd["checking"]
    # Nobody else rules, nor changes a hand, while the host checks.
    assert client.post("/api/hand/domino", headers=bearer(p["P2"])).status_code == 409
    assert put_hand(client, p["P2"], [[6, 6], [5, 5]]).status_code == 409
    # The host reads the engine's refusal in full; the public trail names the lock only.
    trail = client.get("/api/tables/t1/audit", headers=host).get_json()["audit"]
    assert any(e["action"] == "review" and "refused" in e["text"] for e in trail)
    public = client.get("/api/tables/t1/audit").get_json()["audit"]
    assert [e["action"] for e in public].count("lock") == 1
    assert "9" not in " ".join(e["text"] for e in public if e["action"] == "review")
    # The host corrects the table and cancels: play goes on, the hands unlock.
    good = {"lines": [{"name": "left", "open_end": 6}]}
    assert (
        client.put("/api/tables/t1/table", json={"layout": good}, headers=host).status_code == 200
    )
    cancel = {"reason": "the open end is a 6"}
    r = client.post("/api/tables/t1/rounds/current/cancel", json=cancel, headers=host)
    assert r.status_code == 200, r.get_json()
    rnd = table_round(client)
    assert rnd["locked"] is None and rnd["pending"] is None, rnd
    assert put_hand(client, p["P2"], [[6, 6], [5, 5]]).status_code == 200


def _released(gate, answers: dict, key: str, call, path: str, body: dict, token: str) -> None:
    """One side of a race: waits at `gate`, then sends its request."""
    gate.wait()
    answers[key] = call(path, json=body, headers=bearer(token))


def test_a_save_racing_a_proposal_lands_before_it_or_is_refused(make_event, web) -> None:
    """Point 3 kept: the proposal is judged and held in one transaction on the round's row.
    P1 proposes while P2 saves 4-6 (which breaks the block), 20 times at 20 tables, each pair
    released together: either the save lands first (200) and the check stops on it, or the
    proposal is held first and the save is refused (409), P2's hand as it was judged."""
    import threading

    tries = 20
    _, tokens = make_event(tables=tries)
    client = web(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.admin)
    outcomes = []
    for t in range(1, tries + 1):
        table, first, second = f"t{t}", p[f"P{2 * t - 1}"], p[f"P{2 * t}"]
        put = client.put(f"/api/tables/{table}/table", json={"layout": TABLE}, headers=host)
        assert put.status_code == 200
        assert put_hand(client, first, [[0, 1]]).status_code == 200
        assert put_hand(client, second, [[6, 6], [2, 3]]).status_code == 200
        gate = threading.Barrier(2)
        answers: dict[str, object] = {}

        calls = {
            "propose": (client.application.test_client().post, "/api/hand/propose", {}),
            "save": (client.application.test_client().put, "/api/hand", {"tiles": [[4, 6]]}),
        }
        tokens_of = {"propose": first, "save": second}
        threads = [
            threading.Thread(
                target=_released, args=(gate, answers, key, call, path, body, tokens_of[key])
            )
            for key, (call, path, body) in calls.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        proposed, saved = answers["propose"], answers["save"]
        assert proposed.status_code == 200, proposed.get_json()
        held = proposed.get_json()["held"]
        review = client.get(f"/api/tables/{table}/rounds/current/review", headers=host)
        hand = review.get_json()["hands"][1]["tiles"]
        rnd = client.get(f"/api/tables/{table}").get_json()["rounds"][-1]
        if held:
            assert saved.status_code == 409, saved.get_json()
            assert hand == [[6, 6], [2, 3]] and rnd["locked"] == f"P{2 * t - 1} proposed a block"
        else:
            assert saved.status_code == 200, saved.get_json()
            assert proposed.get_json()["outcome"]["stopped"]["player"] == f"P{2 * t}"
            assert hand == [[4, 6]] and rnd["locked"] is None
        outcomes.append(held)
    print(f"of {tries} races, the proposal was held first {sum(outcomes)} times")
