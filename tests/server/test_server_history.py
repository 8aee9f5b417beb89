"""Issue 19 point 5: the round history (hands, ruling, audit trail of each ended round), the
game's CSV and JSON export (host only), the print view, and settings labelled in words."""

from __future__ import annotations

import csv
import io

from server_factories import ADMIN

HANDS_1 = {"Ana": [[1, 2]], "Ben": [[3, 3]], "Caro": [[0, 4]], "Dev": [[6, 6]]}
HANDS_2 = {"Ana": [[5, 5]], "Ben": [[2, 6], [4, 4]]}


def _play_round_one(client, gid: int, links: dict[str, str]) -> None:
    """Round 1: every hand in, Ben corrects his after confirming, Ana goes out."""
    for name, tiles in HANDS_1.items():
        r = client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
        assert r.status_code == 200
    client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": [[3, 3]]})
    client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": [[3, 4]]})
    r = client.post(
        f"/api/games/{gid}/rounds/current/domino",
        json={"player": "Ana", "confirm": True},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.json


def _start_round_two(client, gid: int, links: dict[str, str]) -> None:
    assert client.post(f"/api/games/{gid}/rounds", headers=ADMIN).status_code in (200, 201)
    for name, tiles in HANDS_2.items():
        r = client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
        assert r.status_code == 200


def test_the_previous_rounds_hands_stay_in_the_history(client, game, links) -> None:
    gid = game["game"]["id"]
    assert client.get(f"/api/games/{gid}/state").json["history"] == []
    _play_round_one(client, gid, links)
    _start_round_two(client, gid, links)
    state = client.get(f"/api/games/{gid}/state").json
    assert state["round"]["number"] == 2
    (first,) = state["history"]
    assert first["number"] == 1 and first["ended_by"] == "domino" and first["winner"] == "Ana"
    hands = {h["player"]: h["tiles"] for h in first["hands"]}
    # Ana went out: her hand is empty, as the ruling scored it.
    assert hands == {"Ana": [], "Ben": [[3, 4]], "Caro": [[0, 4]], "Dev": [[6, 6]]}
    assert {h["player"]: h["pip_total"] for h in first["hands"]}["Dev"] == 12
    assert first["points"] == state["scoreboard"]["rounds"][0]["points"]
    assert first["ruling"]["winner"] == "Ana"
    # The audit trail of round 1, in full now that it ended: Ben's change names the tiles.
    texts = [e["text"] for e in first["audit"]]
    assert any("3-3" in t and "3-4" in t for t in texts), texts
    # Secrecy: round 2 is open, none of its hands is anywhere in the state or a phone's view.
    body = client.get(f"/api/hand/{links['Caro']}").get_data(as_text=True).replace(" ", "")
    assert "[5,5]" not in body and "[2,6]" not in body and "[4,4]" not in body


def test_a_reopened_round_leaves_the_history(client, game, links) -> None:
    gid = game["game"]["id"]
    _play_round_one(client, gid, links)
    r = client.post(f"/api/games/{gid}/rounds/reopen", json={"reason": "recount"}, headers=ADMIN)
    assert r.status_code == 200, r.json
    assert client.get(f"/api/games/{gid}/state").json["history"] == []


def test_export_is_for_the_host_and_holds_ended_rounds_only(client, game, links) -> None:
    gid = game["game"]["id"]
    _play_round_one(client, gid, links)
    _start_round_two(client, gid, links)
    for path in ("export.json", "export.csv"):
        r = client.get(f"/api/games/{gid}/{path}")
        assert r.status_code == 401, path
        r = client.get(f"/api/games/{gid}/{path}", headers={"Authorization": "Bearer nope"})
        assert r.status_code in (401, 403), path
        r = client.get(f"/api/games/{gid}/{path}?token={links['Ana']}")
        assert r.status_code == 401, path
    r = client.get(f"/api/games/{gid}/export.json", headers=ADMIN)
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    data = r.json
    assert data["game"]["variant"] == "block" and [p["name"] for p in data["players"]] == list(
        HANDS_1
    )
    assert [rnd["number"] for rnd in data["rounds"]] == [1]
    assert data["scoreboard"]["totals"] == client.get(f"/api/games/{gid}/scoreboard").json["totals"]
    assert "[5,5]" not in r.get_data(as_text=True).replace(" ", "")

    r = client.get(f"/api/games/{gid}/export.csv", headers=ADMIN)
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert [(row["round"], row["player"]) for row in rows] == [("1", name) for name in HANDS_1]
    by_name = {row["player"]: row for row in rows}
    assert by_name["Ben"]["hand"] == "3-4" and by_name["Ben"]["pips"] == "7"
    assert by_name["Ana"]["winner"] == "Ana" and by_name["Ana"]["ended_by"] == "domino"
    points = data["rounds"][0]["points"]
    # A name the ruling gave no points to has an empty cell (the scoreboard counts it 0).
    assert {n: int(row["points"]) for n, row in by_name.items() if row["points"]} == points
    assert points["Ana"] > 0
    assert client.get("/api/games/999/export.csv", headers=ADMIN).status_code == 404


def test_print_view_shows_the_scoreboard_and_ended_hands(client, game, links) -> None:
    gid = game["game"]["id"]
    _play_round_one(client, gid, links)
    _start_round_two(client, gid, links)
    r = client.get(f"/games/{gid}/print")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    totals = client.get(f"/api/games/{gid}/scoreboard").json["totals"]
    assert f'data-total="Ana">{totals["Ana"]}<' in html
    assert 'data-round="1"' in html and 'data-round="2"' not in html
    assert "6-6" in html and "5-5" not in html and "2-6" not in html
    assert client.get("/games/999/print").status_code == 404


def test_settings_are_labelled_in_words_with_default_and_source(client) -> None:
    data = client.get("/api/variants").json
    schema = data["schema"]
    for key, setting in schema.items():
        assert setting["label"] and "_" not in setting["label"], key
    assert schema["block_winner"]["label"] == "Who wins a blocked round"
    assert schema["double_cover"]["label"].startswith("Tiles an open double needs")
    block = data["info"]["block"]
    assert block["settings"]["block_winner"] == "lowest-hand"
    assert "spaanszt" in block["sources"]["block_winner"]
