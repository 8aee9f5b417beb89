"""The host fixes a locked hand after reopening a round (issue 33, item 6): the correction
screen has a reason field beside each hand, and the API refuses a change without one, in
words a host reads, in the host's language."""

from __future__ import annotations

from server_factories import ADMIN

from dominocam.server import storage

HANDS = {"Ana": [[0, 1], [6, 6]], "Ben": [[1, 1], [0, 6]], "Caro": [[2, 4], [4, 4]],
         "Dev": [[0, 2], [1, 6]]}  # fmt: skip


def reopened_round(client, gid: int, links: dict[str, str]) -> dict:
    """Round 1 played, ended by the host's domino, then reopened: the hands stay locked."""
    base = f"/api/games/{gid}/rounds/current"
    lines = [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}]
    client.put(f"{base}/layout", json={"lines": lines}, headers=ADMIN)
    for name, tiles in HANDS.items():
        assert (
            client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles}).status_code == 200
        )
    r = client.post(f"{base}/domino", json={"player": "Ana", "confirm": True}, headers=ADMIN)
    assert r.status_code == 200 and r.json["state"]["round"]["status"] == "ended", r.json
    r = client.post(f"/api/games/{gid}/rounds/reopen", json={"reason": "recount"}, headers=ADMIN)
    assert r.status_code == 200 and r.json["round"]["locked"], r.json
    return r.json


def test_the_host_fixes_a_locked_hand_with_a_reason(app, client, game, links) -> None:
    gid = game["game"]["id"]
    state = reopened_round(client, gid, links)
    dev = next(p["id"] for p in state["players"] if p["name"] == "Dev")
    url = f"/api/games/{gid}/rounds/current/hands/{dev}"
    # The page has a place for it: a hands card beside the ledger (its forms are built by
    # correct.js, one per player, each with a reason field).
    page = client.get(f"/games/{gid}/correct", headers=ADMIN).get_data(as_text=True)
    assert 'id="hands-card"' in page and 'id="hand-fixes"' in page
    # Without a reason: refused, nothing changed.
    r = client.put(url, json={"tiles": [[0, 2], [1, 4]]}, headers=ADMIN)
    assert r.status_code == 400 and "reason" in r.json["error"]
    assert client.get(url, headers=ADMIN).json["tiles"] == [[0, 2], [1, 6]]
    r = client.put(url, json={"tiles": [[0, 2], [1, 4]], "reason": "  "}, headers=ADMIN)
    assert r.status_code == 400
    # In the host's language.
    r = client.put(url, json={"tiles": [[0, 2], [1, 4]]},
                   headers={**ADMIN, "Accept-Language": "es"})  # fmt: skip
    assert r.status_code == 400 and "changing a locked hand" not in r.json["error"]
    # With one: saved, and the audit trail keeps why.
    r = client.put(url, json={"tiles": [[0, 2], [1, 4]], "reason": "1-6 was a 1-4"},
                   headers=ADMIN)  # fmt: skip
    assert r.status_code == 200 and r.json == {"player": "Dev", "tiles": 2}
    assert client.get(url, headers=ADMIN).json["tiles"] == [[0, 2], [1, 4]]
    conn = storage.connect(app.config["DATABASE"])
    try:
        entry = conn.execute("SELECT * FROM audit WHERE action = 'hand'").fetchone()
    finally:
        conn.close()
    assert entry["reason"] == "1-6 was a 1-4" and entry["author"] == "host"
    # The table sees that the host changed Dev's hand; the reason waits for the round's end.
    audit = client.get(f"/api/games/{gid}/state").json["audit"]
    assert any(e["action"] == "hand" and e["reason"] is None for e in audit)
