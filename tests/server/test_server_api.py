"""The game night through the JSON API: setup, table, hands (secret), block check, scoring."""

from __future__ import annotations

import json

import pytest
from server_factories import ADMIN, confirm_again, jpeg_bytes, propose_and_score

from dominocam.server import engine, storage


def _gid(game) -> int:
    return game["game"]["id"]


def _layout(client, gid, lines, boneyard=0):
    r = client.put(
        f"/api/games/{gid}/rounds/current/layout",
        json={"lines": lines, "boneyard": boneyard},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.json
    return r.json


def _hand(client, token, tiles):
    r = client.put(f"/api/hand/{token}/tiles", json={"tiles": tiles})
    assert r.status_code == 200, r.json
    return r.json


def test_public_endpoints(client, game) -> None:
    assert client.get("/api/health").json["schema_version"] == storage.SCHEMA_VERSION
    variants = client.get("/api/variants").json
    assert "block" in variants["variants"] and "mexican-train" in variants["variants"]
    assert variants["schema"]["tie"]["kind"] == "choice"
    assert client.get("/api/games").json["current"] == _gid(game)
    state = client.get("/api/state").json
    assert [p["name"] for p in state["players"]] == ["Ana", "Ben", "Caro", "Dev"]
    assert [p["seat"] for p in state["players"]] == [0, 1, 2, 3]
    assert state["round"]["number"] == 1 and state["round"]["status"] == "open"
    unchanged = client.get(f"/api/state?since={state['version']}").json
    assert unchanged == {"changed": False, "version": state["version"]}
    assert client.get(f"/api/games/{_gid(game)}/scoreboard").json["totals"]["Ana"] == 0
    assert client.get("/api/games/999/state").status_code == 404
    assert client.get("/api/nope").status_code == 404


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"variant": "blok", "players": ["A", "B"]}, "unknown variant"),
        ({"variant": "block", "set": 7, "players": ["A", "B"]}, "double-7"),
        ({"variant": "block", "players": ["A"]}, "2 to 10 players"),
        ({"variant": "block", "players": ["A", "A"]}, "two players are called"),
        ({"variant": "block", "players": ["A", ""]}, "needs a name"),
        ({"variant": "block", "players": ["A", "B"], "rules": {"tie": "coin"}}, "tie"),
        ({"variant": "block", "players": ["A", "B"], "rules": {"nonsense": 1}}, "nonsense"),
    ],
)
def test_bad_game_setup_is_400(client, spec, words) -> None:
    r = client.post("/api/games", json=spec, headers=ADMIN)
    assert r.status_code == 400, r.json
    assert words in r.json["error"]
    assert client.get("/api/games").json["games"] == []


def test_not_json_is_400(client, game) -> None:
    r = client.post("/api/games", data="x", headers=ADMIN)
    assert r.status_code == 400 and "JSON" in r.json["error"]


def test_teams_and_settings(client) -> None:
    r = client.post(
        "/api/games",
        json={
            "variant": "partnership",
            "players": [
                {"name": "A", "team": "N"},
                {"name": "B", "team": "E"},
                {"name": "C", "team": "N"},
                {"name": "D", "team": "E"},
            ],
            "rules": {"tie": "split"},
        },
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    assert r.json["game"]["teams"] and r.json["game"]["rules"] == {"tie": "split"}
    gid = r.json["game"]["id"]
    r = client.patch(f"/api/games/{gid}", json={"rules": {"tie": "no-score"}}, headers=ADMIN)
    assert r.json["game"]["rules"] == {"tie": "no-score"}


def test_mexican_train_rounds_show_the_engine_double(client) -> None:
    r = client.post(
        "/api/games",
        json={"variant": "mexican-train", "set": 12, "players": ["A", "B", "C"]},
        headers=ADMIN,
    )
    assert r.json["round"]["engine"] == 12


def test_hands_are_secret_until_the_round_ends(client, game, links) -> None:
    gid = _gid(game)
    _layout(client, gid, [{"name": "main", "open_end": 3}])
    _hand(client, links["Ana"], [[1, 2], [4, 4]])
    view = client.get(f"/api/hand/{links['Ben']}").json
    assert view["me"]["hand"] == []
    text = json.dumps(client.get("/api/state").json)
    assert "[1, 2]" not in text.replace(",", ", ") and "4, 4" not in text.replace(",", ", ")
    ana = next(p for p in view["players"] if p["name"] == "Ana")
    assert ana["tiles"] == 2 and "hand" not in ana and "pip_total" not in ana
    # The admin's table entry is write-only too.
    pid = ana["id"]
    r = client.put(
        f"/api/games/{gid}/rounds/current/hands/{pid}", json={"tiles": [[0, 1]]}, headers=ADMIN
    )
    assert r.json == {"player": "Ana", "tiles": 1}
    assert client.get(f"/api/hand/{links['Ana']}").json["me"]["hand"] == [[0, 1]]
    sse = client.get(f"/api/events?game={gid}&max_s=0.01")
    assert b"[0,1]" not in sse.data and b"event: state" in sse.data


def test_bad_hands_are_400(client, game, links) -> None:
    for tiles, words in [
        ([[1, 7]], "above 6"),
        ([[1, 2], [2, 1]], "twice"),
        ("1-2", "list"),
        ([["a", 1]], "cannot read"),
    ]:
        r = client.put(f"/api/hand/{links['Ana']}/tiles", json={"tiles": tiles})
        assert r.status_code == 400 and words in r.json["error"], (tiles, r.json)


def test_block_check_needs_every_hand(client, game, links) -> None:
    _hand(client, links["Ana"], [[1, 2]])
    r = client.post(
        f"/api/games/{_gid(game)}/rounds/current/block-check",
        json={"proposer": "Ana"},
        headers=ADMIN,
    )
    assert r.status_code == 409 and "Ben" in r.json["error"]
    r = client.post(
        f"/api/games/{_gid(game)}/rounds/current/block-check",
        json={"proposer": "Zoe"},
        headers=ADMIN,
    )
    assert r.status_code == 400 and "unknown player" in r.json["error"]


def test_block_check_stops_at_the_first_player_who_can_play(client, game, links) -> None:
    gid = _gid(game)
    _layout(client, gid, [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}])
    _hand(client, links["Ana"], [[0, 1]])
    _hand(client, links["Ben"], [[1, 1]])
    _hand(client, links["Caro"], [[2, 5], [4, 4]])
    _hand(client, links["Dev"], [[3, 6]])
    client.post(f"/api/hand/{links['Caro']}/declare", json={"cannot_play": True})
    r = client.post(f"/api/hand/{links['Ben']}/block-check")
    assert r.status_code == 200, r.json
    outcome = r.json["outcome"]
    assert not outcome["blocked"]
    assert [s["player"] for s in outcome["steps"]] == ["Ben", "Caro"]
    # Ben hears who stopped the check and that it was a foul, not which tile Caro holds.
    assert outcome["stopped"] == {"player": "Caro", "foul": True, "foul_by": "declared"}
    state = r.json["view"]
    assert state["round"]["status"] == "open"
    assert "[3,6]" not in json.dumps(state, separators=(",", ":"))
    assert "[2,5]" not in json.dumps(state, separators=(",", ":"))
    stopped = state["round"]["block_checks"][0]["stopped"]
    assert stopped == {"player": "Caro", "foul": True, "foul_by": "declared"}
    assert state["me"]["can_play"] is None
    # Caro alone is told what she can play.
    caro = client.get(f"/api/hand/{links['Caro']}").json
    assert caro["me"]["can_play"] == {
        "tile": [2, 5],
        "line": "right",
        "line_shown": "“right” (open end 5)",
    }


def test_a_foul_is_worded_as_the_player_acted(client, game, links) -> None:
    """Issue 19 point 6: a proposer who can still play only proposed ("proposed"); a player
    who said "cannot play" declared it ("declared"), proposer or not."""
    gid = _gid(game)
    _layout(client, gid, [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}])
    _hand(client, links["Ana"], [[0, 1]])
    _hand(client, links["Ben"], [[1, 1]])
    _hand(client, links["Caro"], [[2, 5], [4, 4]])
    _hand(client, links["Dev"], [[0, 0]])
    r = client.post(f"/api/hand/{links['Caro']}/block-check")
    assert r.json["outcome"]["stopped"] == {"player": "Caro", "foul": True, "foul_by": "proposed"}
    # A check that stops locks nothing (issue 33): play goes on at once, and each hand is
    # confirmed again before the next ruling.
    assert r.json["view"]["round"]["locked"] is None
    confirm_again(client, links)
    client.post(f"/api/hand/{links['Caro']}/declare", json={"cannot_play": True})
    r = client.post(f"/api/hand/{links['Caro']}/block-check")
    assert r.json["outcome"]["stopped"] == {"player": "Caro", "foul": True, "foul_by": "declared"}
    confirm_again(client, links)  # stopped again: play went on
    r = client.post(f"/api/hand/{links['Ana']}/block-check")
    assert r.json["outcome"]["stopped"] == {"player": "Caro", "foul": True, "foul_by": "declared"}


def test_confirmed_block_ends_the_round_and_scores(client, game, links) -> None:
    gid = _gid(game)
    _layout(client, gid, [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}])
    for name, tiles in {
        "Ana": [[0, 1], [6, 6]],
        "Ben": [[1, 1], [0, 6]],
        "Caro": [[2, 4], [4, 4]],
        "Dev": [[0, 2], [1, 6]],
    }.items():
        _hand(client, links[name], tiles)
    r = client.post(
        f"/api/games/{gid}/rounds/current/block-check",
        json={"proposer": "Caro", "confirm": True},
        headers=ADMIN,
    )
    outcome, state = r.json["outcome"], r.json["state"]
    assert outcome["blocked"] and [s["player"] for s in outcome["steps"]] == [
        "Caro",
        "Dev",
        "Ana",
        "Ben",
    ]
    assert state["round"]["status"] == "ended" and state["round"]["ended_by"] == "block"
    result = state["round"]["result"]
    assert result["winner"] == "Ben" and result["points"] == {"Ben": 36}
    totals = {p["name"]: p["pip_total"] for p in state["players"]}
    assert totals == {"Ana": 13, "Ben": 8, "Caro": 14, "Dev": 9}
    assert next(p for p in state["players"] if p["name"] == "Dev")["hand"] == [[0, 2], [1, 6]]
    assert state["scoreboard"]["totals"]["Ben"] == 36
    # The round is over: no more changes, a second check is a conflict.
    r = client.post(f"/api/hand/{links['Ana']}/block-check")
    assert r.status_code == 409
    assert client.put(f"/api/hand/{links['Ana']}/tiles", json={"tiles": []}).status_code == 409
    # Next round: scores carry over, hands start empty.
    r = client.post(f"/api/games/{gid}/rounds", headers=ADMIN)
    assert r.status_code == 201 and r.json["round"]["number"] == 2
    assert r.json["scoreboard"]["totals"]["Ben"] == 36
    assert all(p["tiles"] is None for p in r.json["players"])
    assert client.post(f"/api/games/{gid}/rounds", headers=ADMIN).status_code == 409


def test_tie_is_reported(client, game, links) -> None:
    gid = _gid(game)
    _layout(client, gid, [{"name": "main", "open_end": 3}])
    for name, tiles in {
        "Ana": [[0, 2]],
        "Ben": [[1, 1]],
        "Caro": [[2, 2]],
        "Dev": [[4, 4]],
    }.items():
        _hand(client, links[name], tiles)
    r = propose_and_score(client, gid, links["Ana"])
    result = r.json["state"]["round"]["result"]
    assert sorted(result["tied"]) == ["Ana", "Ben"] and result["winner"] is None


def test_round_ends_by_domino(client, game, links) -> None:
    gid = _gid(game)
    _layout(client, gid, [{"name": "main", "open_end": 3}])
    for name, tiles in {"Ana": [], "Ben": [[1, 1]], "Caro": [[2, 2]], "Dev": [[4, 6]]}.items():
        _hand(client, links[name], tiles)
    r = client.post(
        f"/api/games/{gid}/rounds/current/domino",
        json={"player": "Ana", "confirm": True},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.json
    state = r.json["state"]
    assert state["round"]["ended_by"] == "domino"
    assert state["round"]["result"]["winner"] == "Ana"
    assert state["scoreboard"]["totals"]["Ana"] == 2 + 4 + 10


def test_domino_empties_a_stale_hand_and_rejects_unknown_players(client, game, links) -> None:
    for name, tiles in {
        "Ana": [[2, 3]],
        "Ben": [[1, 1]],
        "Caro": [[2, 4]],
        "Dev": [[5, 5]],
    }.items():
        _hand(client, links[name], tiles)
    url = f"/api/games/{_gid(game)}/rounds/current/domino"
    assert client.post(url, json={"player": "Zoe"}, headers=ADMIN).status_code == 400
    # Ben's saved hand is from before he went out: the table's word ends the round.
    r = client.post(url, json={"player": "Ben", "confirm": True}, headers=ADMIN)
    assert r.status_code == 200, r.json
    ben = next(p for p in r.json["state"]["players"] if p["name"] == "Ben")
    assert ben["hand"] == [] and r.json["state"]["round"]["result"]["winner"] == "Ben"


def test_table_upload_read_correct_and_open_ends_follow(client, game) -> None:
    gid = _gid(game)
    base = f"/api/games/{gid}/rounds/current"
    r = client.post(f"{base}/table", data=jpeg_bytes(), content_type="image/jpeg", headers=ADMIN)
    assert r.status_code == 201, r.json
    rnd = r.json["state"]["round"]
    assert rnd["open_ends"] == [0, 5] and rnd["table"]["face_down"] == 1
    # Fix tile 1 (read 3-5, really 3-6): the open end follows.
    r = client.patch(f"{base}/table/tiles/1", json={"pips": [6, 3]}, headers=ADMIN)
    assert r.status_code == 200
    assert r.json["round"]["open_ends"] == [0, 6]
    tile = r.json["round"]["table"]["scene"]["tiles"][1]
    assert tile["pips"] == [3, 6] and tile["corrected"]
    assert (
        client.patch(f"{base}/table/tiles/1", json={"pips": [3, 9]}, headers=ADMIN).status_code
        == 400
    )
    assert (
        client.patch(f"{base}/table/tiles/42", json={"pips": [1, 2]}, headers=ADMIN).status_code
        == 404
    )
    # Delete the false face-down tile, add a missed one.
    r = client.delete(f"{base}/table/tiles/2", headers=ADMIN)
    assert r.json["round"]["table"]["face_down"] == 0
    r = client.post(f"{base}/table/tiles", json={"pips": [2, 2]}, headers=ADMIN)
    assert r.status_code == 201 and r.json["id"] == 3
    # Manual lines replace what the photo gave; the rules check uses them.
    state = _layout(
        client, gid, [{"name": "main", "open_end": 4, "owner": "Ana", "marked": True}], 3
    )
    assert state["round"]["lines"] == [
        {"name": "main", "open_end": 4, "owner": "Ana", "marked": True,
         "shown": "Ana's train", "place_shown": None, "name_shown": "main"}
    ]  # fmt: skip
    assert state["round"]["boneyard"] == 3


def test_bad_layouts_are_400(client, game) -> None:
    gid = _gid(game)
    url = f"/api/games/{gid}/rounds/current/layout"
    for body, words in [
        ({"lines": [{"name": "x", "open_end": 7}]}, "0..6"),
        ({"lines": [{"open_end": 1, "owner": "Zoe"}]}, "owner"),
        ({"lines": "3"}, "list"),
        ({"lines": [], "boneyard": -1}, "boneyard"),
    ]:
        r = client.put(url, json=body, headers=ADMIN)
        assert r.status_code == 400 and words in r.json["error"], (body, r.json)


def test_upload_without_models_stores_the_photo_and_says_so(
    make_app, monkeypatch, tmp_path
) -> None:
    # No model files where the runtime looks (the repository's bundled ones are hidden).
    monkeypatch.setenv("DOMINOCAM_MODELS", str(tmp_path))
    monkeypatch.setattr(engine, "_reader_cache", {})
    app = make_app(SCENE_PROVIDER=None)
    client = app.test_client()
    gid = client.post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    ).json["game"]["id"]
    assert not client.get("/api/health").json["models"]["available"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 503
    assert r.json["stored"] and "by hand" in r.json["error"]
    assert r.json["state"]["round"]["table"]["image"]
    assert client.get(r.json["state"]["round"]["table"]["image"]).status_code == 200
    token = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"][0]["token"]
    r = client.post(f"/api/hand/{token}/photo", data=jpeg_bytes(), content_type="image/jpeg")
    assert r.status_code == 503 and r.json["view"]["me"]["has_photo"]


def test_hand_photo_is_read_and_private(client, game, links) -> None:
    r = client.post(
        f"/api/hand/{links['Ana']}/photo",
        data={"photo": (__import__("io").BytesIO(jpeg_bytes()), "hand.jpg")},
    )
    assert r.status_code == 201, r.json
    # The reading waits for Ana's confirmation: her hand is not in yet.
    assert r.json["view"]["me"]["pending"]["tiles"] == [[1, 2], [0, 0]]
    assert r.json["view"]["me"]["hand"] == [] and not r.json["view"]["me"]["confirmed"]
    r = client.post(f"/api/hand/{links['Ana']}/confirm")
    assert r.json["me"]["hand"] == [[1, 2], [0, 0]] and r.json["me"]["pip_total"] == 3
    assert client.get(f"/api/hand/{links['Ana']}/image").status_code == 200
    assert client.get(f"/api/hand/{links['Ben']}/image").status_code == 404


def test_events_poll_and_sse(client, game, links) -> None:
    first = client.get("/api/events/poll?since=0").json
    assert first["events"][0]["type"] == "game"
    _hand(client, links["Ana"], [[1, 2]])
    later = client.get(f"/api/events/poll?since={first['version']}").json["events"]
    assert later[-1]["type"] == "hand" and later[-1]["payload"] == {"player": "Ana", "count": 1}
    r = client.get("/api/events?max_s=0.05")
    assert r.mimetype == "text/event-stream"
    text = r.get_data(as_text=True)
    assert text.startswith("retry:") and "event: state" in text
    data = json.loads(text.split("data: ", 1)[1].split("\n", 1)[0])
    assert data["players"][0]["tiles"] == 1


def test_finish_game(client, game) -> None:
    r = client.post(f"/api/games/{_gid(game)}/finish", headers=ADMIN)
    assert r.json["game"]["status"] == "finished"
    assert client.post(f"/api/games/{_gid(game)}/rounds", headers=ADMIN).status_code == 409


def test_camera_endpoints_without_camera(client, game) -> None:
    assert client.get("/api/camera").json["state"] == "off"
    assert client.get("/api/camera/frame.jpg").status_code == 503
    r = client.post(f"/api/games/{_gid(game)}/rounds/current/table/camera", headers=ADMIN)
    assert r.status_code == 503 and "camera" in r.json["error"]


@pytest.mark.parametrize(
    ("variant", "kind"),
    [
        ("block", "line"),
        ("all-fives", "spinner"),
        ("mexican-train", "mexican"),
        ("chicken-foot", "chicken"),
    ],
)
def test_a_table_photo_is_laid_out_as_the_games_variant(make_app, variant, kind) -> None:
    # The bundled models read the photo; the game's variant picks the layout kind.
    client = make_app(SCENE_PROVIDER=None).test_client()
    body = {"variant": variant, "set": 12, "players": ["A", "B", "C"]}
    gid = client.post("/api/games", json=body, headers=ADMIN).json["game"]["id"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    assert r.json["scene"]["layout"]["kind"] == kind
