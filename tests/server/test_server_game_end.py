"""A game ends by itself when its variant says so (rules.Game): Mexican Train after one round
per double, a target game when a total reaches the target; then no round can start."""

from __future__ import annotations

from typing import Any

from server_factories import ADMIN


def _create(client, variant: str, set_max: int, names: list[str], rules=None) -> dict[str, Any]:
    body = {"variant": variant, "set": set_max, "players": names, "rules": rules or {}}
    r = client.post("/api/games", json=body, headers=ADMIN)
    assert r.status_code == 201, r.json
    return r.json


def _domino(client, state: dict[str, Any], hands: dict[str, list], winner: str) -> dict:
    """Enter every hand at the table and end the round by `winner` going out."""
    gid = state["game"]["id"]
    base = f"/api/games/{gid}/rounds/current"
    for p in state["players"]:
        r = client.put(f"{base}/hands/{p['id']}", json={"tiles": hands[p["name"]]}, headers=ADMIN)
        assert r.status_code == 200, r.json
    r = client.post(f"{base}/domino", json={"player": winner, "confirm": True}, headers=ADMIN)
    assert r.status_code == 200, r.json
    return r.json["state"]


def test_mexican_train_ends_after_its_thirteenth_round(client) -> None:
    state = _create(client, "mexican-train", 12, ["Ana", "Ben", "Caro"])
    gid = state["game"]["id"]
    hands = {"Ana": [], "Ben": [[0, 1]], "Caro": [[2, 3]]}
    engines = []
    for number in range(1, 14):
        assert state["round"]["number"] == number
        engines.append(state["round"]["engine"])
        end = state["scoreboard"]["end"]
        assert (end["end"], end["planned_rounds"], end["lower_wins"]) == (
            "descending-doubles",
            13,
            True,
        )
        state = _domino(client, state, hands, "Ana")
        if number < 13:
            assert state["game"]["status"] == "active" and state["scoreboard"]["final"] is None
            r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
            assert r.status_code == 201, r.json
            state = r.json
    assert engines == list(range(12, -1, -1))  # 12-12 first, 0-0 last
    # Every player scores their own pips: the lowest total wins the game.
    assert state["game"]["status"] == "finished"
    board = state["scoreboard"]
    assert board["totals"] == {"Ana": 0, "Ben": 13, "Caro": 65}
    assert board["final"]["winners"] == ["Ana"] and board["final"]["by"] == "rules"
    assert "all 13 rounds" in board["final"]["text"] and "lowest total, 0" in board["final"]["text"]
    r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    assert r.status_code == 409
    assert r.json["error"].startswith("the game is over: ") and "Ana wins" in r.json["error"]
    # The overlay and the table page read the final scores from the public state.
    assert client.get("/api/state").json["scoreboard"]["final"]["winners"] == ["Ana"]
    assert client.get(f"/overlay?game={gid}").status_code == 200


def test_a_target_game_ends_when_a_total_reaches_the_target(client) -> None:
    state = _create(client, "block", 6, ["Ana", "Ben", "Caro"], rules={"target": 10})
    gid = state["game"]["id"]
    assert state["scoreboard"]["end"]["target"] == 10
    state = _domino(client, state, {"Ana": [], "Ben": [[1, 2]], "Caro": [[0, 1]]}, "Ana")
    assert state["game"]["status"] == "active"  # Ana has 4 of 10
    r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    state = _domino(client, r.json, {"Ana": [[6, 6]], "Ben": [], "Caro": [[0, 0]]}, "Ben")
    # Ben scores the others' pips: 12 >= 10. Points are won: the highest total wins.
    assert state["scoreboard"]["totals"] == {"Ana": 4, "Ben": 12, "Caro": 0}
    final = state["scoreboard"]["final"]
    assert state["game"]["status"] == "finished" and final["winners"] == ["Ben"]
    assert "target of 10 points" in final["text"] and "highest total, 12" in final["text"]
    r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    assert r.status_code == 409 and "target of 10 points" in r.json["error"]


def test_a_game_finished_by_the_table_names_the_leader(client) -> None:
    state = _create(client, "block", 6, ["Ana", "Ben"])
    gid = state["game"]["id"]
    final = client.post(f"/api/games/{gid}/finish", headers=ADMIN).json["scoreboard"]["final"]
    assert final == {
        "winners": [],
        "by": "table",
        "text": "Finished: the table ended it after 0 rounds, before any round was scored.",
    }
    r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    assert r.status_code == 409 and "the table ended it" in r.json["error"]
    assert client.post(f"/api/games/{gid}/finish").status_code == 401
