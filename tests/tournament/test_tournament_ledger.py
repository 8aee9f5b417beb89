"""A tournament table consults the round's ledger before a ruling (issue 32), as single-table
mode does: a tile in two places or a boneyard count unknown in a game that draws holds the
ruling for the table host, who reads the problems tile by tile; players read only that the
host is checking; a round that adds up is ruled as before."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import event_data

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


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def put_hand(client, token: str, tiles: list[list[int]]):
    return client.put("/api/hand", json={"tiles": tiles}, headers=bearer(token))


def test_a_tile_on_the_table_and_in_a_hand_holds_the_ruling_for_the_host(
    db, make_event, web
) -> None:
    """6-6 is on the table camera's newest Scene and in P2's confirmed hand: P1's block waits
    for the host. P1, the public table and the public audit trail name no tile; the host
    reads which tile and whose hand."""
    from server.game import ledger_words
    from tournament import store

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
    from server.game import ledger_words

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
    """No camera reading contradicts the hands: the block waits for the host (a player's
    proposal, and not every count is known without a camera reading), whose "score" rules
    it as before; the round's result keeps the ledger's verdict."""
    from server.game import ledger_words

    _, tokens = make_event(tables=1)
    client = web(tokens.event_id)
    p = tokens.players
    put_hand(client, p["P1"], [[0, 1]])
    put_hand(client, p["P2"], [[6, 6], [2, 3]])
    host = bearer(tokens.hosts["t1"])
    client.put("/api/tables/t1/table", json={"layout": BLOCKED_TABLE}, headers=host)
    held = client.post("/api/hand/propose", headers=bearer(p["P1"]))
    assert held.status_code == 409, held.get_json()
    assert held.get_json()["error"] == ledger_words.public_message(["counts-open"])
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host).get_json()
    assert scored["ended"] is True and scored["result"]["points"] == {"P1": 17}
    row = db.execute(
        "SELECT r.result FROM rounds r JOIN events e ON e.id = r.event_id "
        "WHERE e.id = %s AND r.table_id = 't1' AND r.number = 1",
        (tokens.event_id,),
    ).fetchone()
    assert row["result"]["ledger"]["adds_up"] is True
    # A block game never draws: the rules engine judges with the 14 tiles set aside
    # (`rules.hold.judged_boneyard`), which nobody can draw from.
    assert row["result"]["state"]["boneyard"] == 14
