"""A hand's life through the API: photo, reading, the owner's confirmation, the lock when a
block is proposed or a domino called, the host's changes with a reason, and the audit trail
shown to everybody when the round ends."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from server_factories import ADMIN, fake_scene, jpeg_bytes, old_database, propose_and_score

from dominocam.server import create_app, storage


class Reader:
    """The stand-in reader of `fake_scene`, with hand photos showing `hand`."""

    def __init__(self) -> None:
        self.hand: list[list[int]] = [[1, 2], [0, 0]]

    def __call__(self, pixels: Any, kind: str, set_max: int) -> dict[str, Any]:
        scene = fake_scene(pixels, kind, set_max)
        if kind == "hand":
            scene["tiles"] = [
                {"id": i, "face": "up", "pips": t, "confidence": 0.9}
                for i, t in enumerate(self.hand)
            ]
        return scene


@pytest.fixture
def reader() -> Reader:
    return Reader()


@pytest.fixture
def app(make_app, reader):
    return make_app(SCENE_PROVIDER=reader)


def _photo(client, token: str):
    return client.post(
        f"/api/hand/{token}/photo", data={"photo": (io.BytesIO(jpeg_bytes()), "hand.jpg")}
    )


def _save(client, token: str, tiles) -> dict:
    r = client.put(f"/api/hand/{token}/tiles", json={"tiles": tiles})
    assert r.status_code == 200, r.json
    return r.json


def _players(client, gid: int) -> dict[str, dict]:
    return {p["name"]: p for p in client.get(f"/api/games/{gid}/state").json["players"]}


def test_a_photo_does_not_submit_the_hand_before_its_owner_confirms(client, game, links) -> None:
    """Today's failure: a photo upload submitted the hand before its owner had checked it."""
    gid = game["game"]["id"]
    r = _photo(client, links["Ana"])
    assert r.status_code == 201
    me = r.json["view"]["me"]
    assert me["pending"]["tiles"] == [[1, 2], [0, 0]] and me["hand"] == [] and not me["confirmed"]
    ana = _players(client, gid)["Ana"]
    assert not ana["hand_submitted"] and ana["hand_status"] == "unconfirmed"
    assert ana["tiles"] is None
    # The block check waits for Ana's confirmation.
    for name in ("Ben", "Caro", "Dev"):
        _save(client, links[name], [[6, 6]] if name == "Ben" else [])
    r = client.post(f"/api/hand/{links['Ben']}/block-check")
    assert r.status_code == 409 and "Ana" in r.json["error"]
    # Ana corrects the reading (the 0-0 was a 0-4) and saves: now it is in.
    me = _save(client, links["Ana"], [[1, 2], [0, 4]])["me"]
    assert me["confirmed"] and me["pending"] is None and me["hand"] == [[1, 2], [0, 4]]
    assert _players(client, gid)["Ana"]["hand_status"] == "confirmed"


def test_a_new_photo_never_silently_replaces_a_confirmed_hand(client, game, links, reader) -> None:
    """Today's failure: a 1-tile hand became 22 tiles read off a table photo."""
    _save(client, links["Ana"], [[3, 4]])
    reader.hand = [[a, b] for a in range(7) for b in range(a, 7)][:22]
    r = _photo(client, links["Ana"])
    assert r.status_code == 201
    me = r.json["view"]["me"]
    assert me["hand"] == [[3, 4]] and len(me["pending"]["tiles"]) == 22
    assert _players(client, game["game"]["id"])["Ana"]["tiles"] == 1
    # Dropping the new reading keeps the confirmed hand; confirming it would replace it.
    me = client.delete(f"/api/hand/{links['Ana']}/pending").json["me"]
    assert me["hand"] == [[3, 4]] and me["pending"] is None
    _photo(client, links["Ana"])
    me = client.post(f"/api/hand/{links['Ana']}/confirm").json["me"]
    assert len(me["hand"]) == 22 and me["pending"] is None
    assert client.post(f"/api/hand/{links['Ana']}/confirm").status_code == 409


def _table(client, gid: int, hands: dict[str, list], links) -> None:
    lines = [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}]
    r = client.put(f"/api/games/{gid}/rounds/current/layout", json={"lines": lines}, headers=ADMIN)
    assert r.status_code == 200
    for name, tiles in hands.items():
        _save(client, links[name], tiles)


BLOCKED = {"Ana": [[0, 1], [6, 6]], "Ben": [[1, 1], [0, 6]], "Caro": [[2, 4], [4, 4]],
           "Dev": [[0, 2], [1, 6]]}  # fmt: skip


def test_a_change_just_before_proposing_is_in_the_audit_trail(client, game, links) -> None:
    """Today's failure: a player changed a submitted hand from 14 pips to 0 just before
    proposing, and won, and nobody could see it."""
    gid = game["game"]["id"]
    _table(client, gid, BLOCKED, links)
    _save(client, links["Caro"], [[0, 0]])  # 14 pips became 0
    state = client.get(f"/api/games/{gid}/state").json
    assert _players(client, gid)["Caro"]["hand_changes"] == 1
    # While the round is open everybody sees that Caro changed her hand, not the tiles.
    entry = next(e for e in state["audit"] if e["action"] == "hand")
    assert entry["author"] == "Caro" and entry["round"] == 1 and entry["time"] > 0
    assert "2-4" not in entry["text"] and "14" not in entry["text"]
    state = propose_and_score(client, gid, links["Caro"]).json["state"]
    assert state["round"]["status"] == "ended"
    # Now the trail shows everybody what changed, and when.
    entry = next(e for e in state["audit"] if e["action"] == "hand")
    assert "2-4 4-4 (14 pips) became 0-0 (0 pips)" in entry["text"]
    assert client.get("/api/state").json["audit"] == state["audit"]


def test_a_block_held_for_the_host_locks_every_hand(client, game, links) -> None:
    """Only a ruling held for the host's decision locks (a check that stops locks nothing:
    test_server_host_decides)."""
    gid = game["game"]["id"]
    _table(client, gid, BLOCKED, links)
    r = client.post(f"/api/hand/{links['Ben']}/block-check")
    assert r.status_code == 200 and r.json["outcome"]["awaiting_confirmation"]
    assert r.json["view"]["round"]["locked"]["by"] == "Ben proposed a block"
    for name in ("Ana", "Ben"):
        r = client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": [[5, 5]]})
        assert r.status_code == 409 and "locked" in r.json["error"]
    assert _photo(client, links["Ana"]).status_code == 409
    r = client.post(f"/api/hand/{links['Ana']}/declare", json={"cannot_play": True})
    assert r.status_code == 409
    # Only the host changes a hand now, and only with a reason.
    url = f"/api/games/{gid}/rounds/current/hands/{_players(client, gid)['Ana']['id']}"
    r = client.put(url, json={"tiles": [[0, 1]]}, headers=ADMIN)
    assert r.status_code == 400 and "reason" in r.json["error"]
    r = client.put(url, json={"tiles": [[0, 1]], "reason": "Ana played 6-6"}, headers=ADMIN)
    assert r.status_code == 200
    entry = client.get("/api/state").json["audit"][0]
    assert entry["author"] == "host" and entry["reason"] is None  # shown at the round's end
    # The host unlocks for play to go on.
    assert (
        client.post(f"/api/games/{gid}/rounds/current/unlock", json={}, headers=ADMIN).status_code
        == 400
    )
    r = client.post(
        f"/api/games/{gid}/rounds/current/unlock", json={"reason": "play on"}, headers=ADMIN
    )
    assert r.status_code == 200 and r.json["round"]["locked"] is None
    _save(client, links["Ana"], [[0, 1]])


def test_calling_domino_locks_the_hands(client, game, links) -> None:
    gid = game["game"]["id"]
    _table(client, gid, BLOCKED, links)
    r = client.post(f"/api/games/{gid}/rounds/current/domino", json={"player": "Ana"},
                    headers=ADMIN)  # fmt: skip
    assert r.status_code == 200 and "pending" in r.json["result"]
    assert r.json["state"]["round"]["locked"]["by"] == "Ana called domino"
    assert client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": []}).status_code == 409


def test_a_schema_2_database_mid_round_keeps_its_hands(tmp_path) -> None:
    """A database written before confirmation and locks: its submitted hands count as
    confirmed and the round carries on."""
    path = tmp_path / "old.sqlite3"
    conn = old_database(path, 2)
    for pid, tiles in ((1, "[[1,1]]"), (2, "[[2,2],[0,0]]")):
        conn.execute(
            "INSERT INTO hands (round_id, player_id, tiles, submitted, updated_at) "
            "VALUES (1, ?, ?, 1, 5)",
            (pid, tiles),
        )
    conn.close()
    app = create_app({"TESTING": True, "DATABASE": str(path), "ADMIN_TOKEN": "t",
                      "SECRET_KEY": "k"})  # fmt: skip
    client = app.test_client()
    assert client.get("/api/health").json["schema_version"] == storage.SCHEMA_VERSION
    players = client.get("/api/games/1/state").json["players"]
    assert [p["hand_status"] for p in players] == ["confirmed", "confirmed"]
    assert [p["tiles"] for p in players] == [1, 2]
    auth = {"Authorization": "Bearer t"}
    r = client.post(
        "/api/games/1/rounds/current/block-check",
        json={"proposer": "Ana", "confirm": True},
        headers=auth,
    )
    assert r.status_code == 200 and r.json["outcome"]["blocked"]
    assert r.json["state"]["round"]["result"]["winner"] == "Ana"
    assert json.dumps(r.json["state"]["audit"])  # the trail exists (a lock entry)
