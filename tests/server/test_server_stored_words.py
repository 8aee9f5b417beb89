"""The live camera's events, the audit trail and the lock's reason are stored with their code
and parameters beside their English (issue 34): the API and the pages show them in the
reader's language with no English word left, and a row stored before codes shows its text.

Through the real app: camera frames go through the real tracker (`dominocam.server.camera`), only
the pixels-to-tiles step is scripted (`TableScript`); the block is proposed through the API.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import numpy as np
import pytest
from server_factories import ADMIN, TableScript, ThreadedServer, old_database

from dominocam.server.camera import store_camera_events, tracking_reader
from dominocam.server.db import get_db
from dominocam.vision.track import TableEvent, _Track, event_text

TRANSLATED = ("hu", "it", "vi", "es")
LOCALES = {"hu": "hu-HU", "it": "it-IT", "vi": "vi-VN", "es": "es-ES"}
FRAME = np.zeros((200, 600, 3), np.uint8)
A, B = ((0, 3), 40.0), ((3, 5), 124.0)
HANDS = {"Ana": [[1, 2]], "Ben": [[3, 3]], "Caro": [[4, 5]], "Dev": [[6, 6]]}
NAMES = {"Ana", "Ben", "Bob", "Caro", "Dev"}


def english_words(text: str) -> set[str]:
    """The English words of a stored sentence (its names and values left out)."""
    return {w.lower() for w in re.findall(r"[A-Za-z']{3,}", text) if w not in NAMES}


def assert_no_english(shown: str, english: str) -> None:
    assert shown != english
    left = [
        w for w in english_words(english) if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", shown, re.I)
    ]
    assert not left, (left, shown)


def _camera_app(make_app: Any) -> tuple[Any, Any, Any, TableScript, int]:
    script = TableScript()
    app = make_app(SCENE_PROVIDER=script)
    client = app.test_client()
    ticks = itertools.count()
    reader = tracking_reader(app, 1.0, clock=lambda: float(next(ticks)))
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben"]}, headers=ADMIN
    )
    assert r.status_code == 201, r.json
    return app, client, reader, script, r.json["game"]["id"]


def _camera_events(app: Any, client: Any, reader: Any, script: TableScript, gid: int) -> None:
    """0-3 and 3-5 played; a person corrects the 3-5 to 3-6; then the camera reads that tile
    as 3-4 (the change the tracker announces when a moved tile reads differently): the
    correction stands, and the stored event says so."""
    base = f"/api/games/{gid}/rounds/current"
    script.tiles = {"a": A, "b": B}
    for _ in range(2):
        reader(FRAME)
    tiles = client.get(f"/api/games/{gid}/state").json["round"]["table"]["scene"]["tiles"]
    tile_b = next(t for t in tiles if t["pips"] == [3, 5])
    r = client.patch(f"{base}/table/tiles/{tile_b['id']}", json={"pips": [3, 6]}, headers=ADMIN)
    assert r.status_code == 200, r.json
    out = reader(FRAME)
    seen = _Track(tile_b["track"], np.zeros((4, 2)), {"up": 1}, 0.9)
    text = event_text("changed", seen, (3, 4), False, None, None, [0, 4])
    changed = TableEvent("changed", 9, 9.0, seen.id, "up", (3, 4), None, None, (0, 4), text)
    with app.app_context():
        store_camera_events(app, get_db(), gid, FRAME, out, [changed.to_dict()])


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_camera_event_is_shown_in_the_language_without_english(make_app, language) -> None:
    app, client, reader, script, gid = _camera_app(make_app)
    base = f"/api/games/{gid}/rounds/current"
    _camera_events(app, client, reader, script, gid)
    headers = {"Accept-Language": language}
    events = client.get(f"{base}/table/events", headers=headers).json["events"]
    stands = [e for e in events if "correction stands" in e["text"]]
    assert stands, [e["text"] for e in events]
    for event in events:
        # Stored as it happened, in English, with its code and parameters beside.
        assert event["words"]["code"].startswith("event_"), event
        assert_no_english(event["shown"], event["text"])
        for value in re.findall(r"\d+-\d+", event["text"]):
            assert value in event["shown"], (value, event["shown"])
    assert stands[-1]["words"]["code"] == "event_correction_stands"
    assert stands[-1]["words"]["params"]["kept"] == "3-6"
    assert stands[-1]["text"] == (
        "tile #1 now reads 3-4 (open ends: 0, 4); a person's correction stands: 3-6"
    )
    # The state the dashboard and the overlay draw from says the same.
    state = client.get(f"/api/state?game={gid}", headers=headers).json
    latest = state["round"]["table"]["events"][0]
    assert latest["shown"] == stands[-1]["shown"]


def _block(client: Any, gid: int, links: dict[str, str]) -> None:
    layout = {"lines": [{"name": "main", "open_end": 0}, {"name": "side", "open_end": 0}]}
    r = client.put(
        f"/api/games/{gid}/rounds/current/layout", json={**layout, "boneyard": 0}, headers=ADMIN
    )
    assert r.status_code == 200, r.json
    for name, tiles in HANDS.items():
        r = client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles})
        assert r.status_code == 200, r.json
    r = client.post(
        f"/api/games/{gid}/rounds/current/block-check",
        json={"proposer": "Ana", "confirm": True},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.json


@pytest.mark.parametrize("language", TRANSLATED)
def test_audit_lines_and_the_lock_are_shown_in_the_language_without_english(
    client, game, links, language
) -> None:
    gid = game["game"]["id"]
    _block(client, gid, links)
    r = client.post(f"/api/games/{gid}/rounds/reopen", json={"reason": "x"}, headers=ADMIN)
    assert r.status_code == 200, r.json
    headers = {"Accept-Language": language}
    state = client.get(f"/api/state?game={gid}", headers=headers).json
    entries = {e["action"]: e for e in state["audit"]}
    lock = entries["lock"]
    assert lock["text"] == "hands locked: Ana proposed a block"  # stored as it happened
    assert lock["words"] == {
        "code": "hands_locked",
        "params": {"text": {"code": "proposed_a_block", "params": {"name": "Ana"}}},
    }
    for action in ("lock", "reopen"):
        assert_no_english(entries[action]["shown"], entries[action]["text"])
    # The reopened round's lock keeps the block's reason, with its code (rounds.locked_words).
    locked = state["round"]["locked"]
    assert locked["by"] == "Ana proposed a block"
    assert_no_english(locked["by_shown"], locked["by"])
    # A player's refused change names the lock's reason in the player's language too.
    r = client.put(f"/api/hand/{links['Ben']}/tiles", json={"tiles": [[0, 0]]}, headers=headers)
    assert r.status_code == 409
    assert locked["by_shown"] in r.json["error"]


def test_rows_stored_before_codes_show_their_text(tmp_path) -> None:
    """A database of schema 6 (before codes): its camera event, audit line and lock have no
    code; they show their stored English in every language, and the lock gains its column."""
    from dominocam.server import create_app, storage

    path = tmp_path / "old.sqlite3"
    conn = old_database(path, 6)
    event_text = "6-4 played on line 2, open end now 4 (open ends: 4, 6)"
    event = {"kind": "added", "track": 0, "text": event_text, "pips": [4, 6]}
    conn.execute(
        "INSERT INTO table_events (round_id, kind, track, text, event, created_at) "
        "VALUES (1, 'added', 0, ?, ?, 1)",
        (event_text, json.dumps(event)),
    )
    audit_text = "the host renamed Bob to Ben"
    conn.execute(
        "INSERT INTO audit (game_id, round_id, action, author, reason, detail, created_at) "
        "VALUES (1, NULL, 'rename', 'host', NULL, ?, 1)",
        (json.dumps({"text": audit_text, "public_text": audit_text}),),
    )
    conn.execute("UPDATE rounds SET locked_at = 1, locked_by = 'Ana called domino'")
    conn.commit()
    conn.close()
    app = create_app(
        {"TESTING": True, "DATABASE": str(path), "ADMIN_TOKEN": "t", "SECRET_KEY": "k"}
    )
    client = app.test_client()
    assert client.get("/api/health").json["schema_version"] == storage.SCHEMA_VERSION
    for language in ("en", *TRANSLATED):
        state = client.get("/api/state?game=1", headers={"Accept-Language": language}).json
        [shown_event] = state["round"]["table"]["events"]
        assert shown_event["shown"] == event_text
        [entry] = state["audit"]
        assert entry["shown"] == audit_text and entry["words"] is None
        assert state["round"]["locked"]["by_shown"] == "Ana called domino"


@pytest.mark.slow
def test_the_table_page_shows_a_camera_event_and_an_audit_line_without_english(
    browser, make_app
) -> None:
    """The table page in hu, it, vi and es: its camera list and its audit trail show the
    stored sentences in the page's language, no English word left."""
    from playwright.sync_api import expect

    app, client, reader, script, gid = _camera_app(make_app)
    ben = next(p for p in client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
               if p["name"] == "Ben")  # fmt: skip
    r = client.patch(f"/api/games/{gid}/players/{ben['id']}", json={"name": "Bob"}, headers=ADMIN)
    assert r.status_code == 200, r.json
    _camera_events(app, client, reader, script, gid)
    state = client.get(f"/api/state?game={gid}").json
    events = {e["id"]: e["text"] for e in state["round"]["table"]["events"]}
    renamed = next(e["text"] for e in state["audit"] if e["action"] == "rename")
    assert len(events) == 3 and renamed == "the host renamed Ben to Bob"
    assert any("correction stands" in text for text in events.values())
    server = ThreadedServer(app)
    errors: list[str] = []
    try:
        for language in TRANSLATED:
            page = browser.new_context(locale=LOCALES[language]).new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.url}/games/{gid}")
            expect(page.locator("html")).to_have_attribute("lang", language)
            items = page.locator("#table-events li")
            expect(items).to_have_count(3, timeout=10000)
            for i in range(3):
                item = items.nth(i)
                english = events[int(item.get_attribute("data-event") or 0)]
                assert_no_english(item.inner_text(), english)
            audit = page.locator("#audit li")
            expect(audit.first).to_be_visible()
            assert_no_english(audit.first.inner_text(), renamed)
            assert "Ben" in audit.first.inner_text() and "Bob" in audit.first.inner_text()
            page.context.close()
    finally:
        server.close()
    assert not errors, errors
