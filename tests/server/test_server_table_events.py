"""The live camera's confirmed changes in the game: stored per round, listed by the API, pushed
over SSE, and merged with people's corrections (server.table_scene's rule).

Frames go through the real tracking path (`dominocam.server.camera.tracking_reader`: vision.track's
TableTracker and vision.layout); only the pixels-to-tiles step is scripted (`TableScript`).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest
from server_factories import ADMIN, TableScript, jpeg_bytes

from dominocam.server.camera import tracking_reader

FRAME = np.zeros((200, 600, 3), np.uint8)
A, B, C, D = ((0, 3), 40.0), ((3, 5), 124.0), ((5, 6), 208.0), ((2, 2), 320.0)


class Table:
    """An app whose camera frames show `script.tiles`; `frames(n)` feeds n of them."""

    def __init__(self, make_app: Any) -> None:
        self.script = TableScript()
        self.app = make_app(SCENE_PROVIDER=self.script)
        self.client = self.app.test_client()
        ticks = itertools.count()
        # One inference a second: a tile is confirmed at its 2nd frame, removed after 3 unseen.
        self.reader = tracking_reader(self.app, 1.0, clock=lambda: float(next(ticks)))
        r = self.client.post(
            "/api/games", json={"variant": "block", "players": ["Ana", "Ben"]}, headers=ADMIN
        )
        assert r.status_code == 201, r.json
        self.gid = r.json["game"]["id"]
        self.base = f"/api/games/{self.gid}/rounds/current"

    def frames(self, n: int, frame: np.ndarray = FRAME) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for _ in range(n):
            out = self.reader(frame)
        return out

    def put(self, **tiles: tuple[tuple[int, int], float]) -> None:
        self.script.tiles = dict(tiles)

    def state(self) -> dict[str, Any]:
        return self.client.get(f"/api/games/{self.gid}/state").json

    def tile(self, pips: list[int]) -> dict[str, Any]:
        tiles = self.state()["round"]["table"]["scene"]["tiles"]
        return next(t for t in tiles if t["pips"] == pips)


@pytest.fixture
def table(make_app) -> Table:
    return Table(make_app)


def test_confirmed_changes_reach_the_store_the_api_the_state_and_the_stream(table) -> None:
    table.put(a=A, b=B)
    table.frames(1)
    assert table.client.get(f"{table.base}/table/events").json["events"] == []  # not confirmed
    table.frames(1)
    r = table.client.get(f"{table.base}/table/events")  # public: no credentials
    assert r.status_code == 200 and r.json["round"] == 1
    events = r.json["events"]
    assert [e["kind"] for e in events] == ["added", "added"]
    assert sorted(e["pips"] for e in events) == [[0, 3], [3, 5]]
    assert any("3-5 played" in e["text"] for e in events)
    # The camera's table is the round's table, as an uploaded photo's would be.
    state = table.state()
    rnd = state["round"]
    assert sorted(rnd["open_ends"]) == [0, 5]
    assert [e["id"] for e in rnd["table"]["events"]] == [events[1]["id"], events[0]["id"]]
    assert {t["track"] for t in rnd["table"]["scene"]["tiles"]} == {0, 1}
    image = table.client.get(rnd["table"]["image"])
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    # The event log and the SSE stream carry them to the pages.
    log = table.client.get("/api/events/poll?since=0").json["events"]
    assert log[-1]["type"] == "camera" and len(log[-1]["payload"]["events"]) == 2
    text = table.client.get(f"/api/events?game={table.gid}&max_s=0.05").get_data(as_text=True)
    pushed = json.loads(text.split("data: ", 1)[1].split("\n", 1)[0])
    assert [e["text"] for e in pushed["round"]["table"]["events"]] == [
        e["text"] for e in reversed(events)
    ]
    # `since` and the round number select; a later frame without changes stores nothing.
    table.frames(2)
    since = table.client.get(f"{table.base}/table/events?since={events[0]['id']}").json
    assert [e["id"] for e in since["events"]] == [events[1]["id"]]
    by_number = table.client.get(f"/api/games/{table.gid}/rounds/1/table/events?limit=1").json
    assert [e["id"] for e in by_number["events"]] == [events[0]["id"]]


def test_events_endpoint_errors_and_no_secrets(table) -> None:
    assert table.client.get("/api/games/99/rounds/current/table/events").status_code == 404
    r = table.client.get(f"/api/games/{table.gid}/rounds/7/table/events")
    assert r.status_code == 404 and "round 7" in r.json["error"]
    # A wrong admin token changes nothing on a public endpoint (and gives no more).
    r = table.client.get(
        f"{table.base}/table/events", headers={"Authorization": "Bearer wrong-token"}
    )
    assert r.status_code == 200 and r.json == {"round": 1, "events": []}
    token = table.client.get(f"/api/games/{table.gid}/players", headers=ADMIN).json["players"]
    table.client.put(f"/api/hand/{token[0]['token']}/tiles", json={"tiles": [[6, 6]]})
    table.put(a=A)
    table.frames(2)
    body = table.client.get(f"{table.base}/table/events").get_data(as_text=True)
    assert "6, 6" not in body and "6-6" not in body and "hand" not in body


def test_no_open_round_no_events(table) -> None:
    r = table.client.post(f"{table.base}/domino", json={"player": "Ana"}, headers=ADMIN)
    assert r.status_code == 409  # hands missing: the round stays open
    for name, tiles in (("Ana", []), ("Ben", [[1, 1]])):
        pid = next(p["id"] for p in table.state()["players"] if p["name"] == name)
        table.client.put(f"{table.base}/hands/{pid}", json={"tiles": tiles}, headers=ADMIN)
    r = table.client.post(
        f"{table.base}/domino", json={"player": "Ana", "confirm": True}, headers=ADMIN
    )
    assert r.status_code == 200, r.json
    table.put(a=A)
    out = table.frames(2)
    assert out["events"]  # the tracker saw it ...
    assert table.client.get(f"{table.base}/table/events").json["events"] == []  # ... not stored
    assert table.state()["round"]["table"]["scene"] is None


def test_a_corrected_value_stands_until_the_tile_leaves_the_table(table) -> None:
    table.put(a=A, b=B)
    table.frames(2)
    tile_b = table.tile([3, 5])
    r = table.client.patch(
        f"{table.base}/table/tiles/{tile_b['id']}", json={"pips": [3, 6]}, headers=ADMIN
    )
    assert r.status_code == 200 and sorted(r.json["round"]["open_ends"]) == [0, 6]
    # The camera goes on (a tile played elsewhere): the correction stands.
    table.put(a=A, b=B, d=D)
    table.frames(2)
    fixed = table.tile([3, 6])
    assert fixed["corrected"] and fixed["track"] == tile_b["track"]
    assert sorted(table.state()["round"]["open_ends"]) == [0, 6]
    # The tile leaves the table: the correction goes with it; back again, it is read afresh.
    table.put(a=A, d=D)
    table.frames(3)
    kinds = [e["kind"] for e in table.client.get(f"{table.base}/table/events").json["events"]]
    assert kinds[-1] == "removed"
    assert [t["pips"] for t in table.state()["round"]["table"]["scene"]["tiles"]] == [
        [0, 3],
        [2, 2],
    ]
    table.put(a=A, b=B, d=D)
    table.frames(2)
    again = table.tile([3, 5])
    assert not again.get("corrected") and again["track"] != tile_b["track"]


def test_deleted_tiles_stay_deleted_and_added_ones_stay_until_seen(table) -> None:
    table.put(a=A, b=B, d=D)
    table.frames(2)
    false_tile = table.tile([2, 2])
    r = table.client.delete(f"{table.base}/table/tiles/{false_tile['id']}", headers=ADMIN)
    assert r.status_code == 200
    r = table.client.post(f"{table.base}/table/tiles", json={"pips": [5, 6]}, headers=ADMIN)
    assert r.status_code == 201
    # A change elsewhere: the deleted tile does not come back, the added one stays.
    table.put(a=A, b=B, d=D, e=((1, 1), 440.0))
    table.frames(2)
    pips = [t["pips"] for t in table.state()["round"]["table"]["scene"]["tiles"]]
    assert [2, 2] not in pips and [5, 6] in pips and [1, 1] in pips
    # The camera now reads the added tile itself: it replaces the hand-made one.
    table.put(a=A, b=B, c=C, d=D, e=((1, 1), 440.0))
    table.frames(2)
    tiles = table.state()["round"]["table"]["scene"]["tiles"]
    assert [t["pips"] for t in tiles].count([5, 6]) == 1
    assert next(t for t in tiles if t["pips"] == [5, 6]).get("track") is not None


def test_lines_entered_by_hand_are_kept(table) -> None:
    table.put(a=A)
    table.frames(2)
    lines = [{"name": "main", "open_end": 4}]
    r = table.client.put(f"{table.base}/layout", json={"lines": lines}, headers=ADMIN)
    assert r.json["round"]["lines_by_hand"]
    table.put(a=A, b=B)
    table.frames(2)
    rnd = table.state()["round"]
    kept = [{"name": line["name"], "open_end": line["open_end"]} for line in rnd["lines"]]
    assert kept == lines and len(rnd["table"]["scene"]["tiles"]) == 2
    # A correction makes the lines follow the table again.
    tile = table.tile([3, 5])
    table.client.patch(
        f"{table.base}/table/tiles/{tile['id']}", json={"pips": [3, 5]}, headers=ADMIN
    )
    rnd = table.state()["round"]
    assert not rnd["lines_by_hand"] and sorted(rnd["open_ends"]) == [0, 5]


def test_corrections_on_a_photo_carry_over_or_are_flagged(table) -> None:
    # A photo of the camera's own frame size: its correction is carried to the camera's tile.
    table.put(a=A, b=B)
    photo = jpeg_bytes(600, 200)
    r = table.client.post(
        f"{table.base}/table", data=photo, content_type="image/jpeg", headers=ADMIN
    )
    assert r.status_code == 201
    tile_b = next(t for t in r.json["scene"]["tiles"] if t["pips"] == [3, 5])
    table.client.patch(
        f"{table.base}/table/tiles/{tile_b['id']}", json={"pips": [3, 6]}, headers=ADMIN
    )
    table.frames(2)
    events = table.client.get(f"{table.base}/table/events").json["events"]
    kept = [e for e in events if e.get("kept")]
    assert [e["kept"] for e in kept] == ["3-6"] and "correction stands" in kept[0]["text"]
    assert table.tile([3, 6])["corrected"]
    # A photo of another size: nobody can tell which tile was meant, and the page says so.
    r = table.client.post(
        f"{table.base}/table", data=jpeg_bytes(), content_type="image/jpeg", headers=ADMIN
    )
    tile_a = next(t for t in r.json["scene"]["tiles"] if t["pips"] == [0, 3])
    table.client.patch(
        f"{table.base}/table/tiles/{tile_a['id']}", json={"pips": [0, 4]}, headers=ADMIN
    )
    table.put(a=A, b=B, d=D)
    table.frames(2)
    warnings = table.state()["round"]["table"]["scene"]["warnings"]
    assert any("cannot match" in w and "0-4" in w for w in warnings)
