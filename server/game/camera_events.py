"""The live camera's confirmed changes, stored per round (people's corrections standing:
`dominocam.server.table_scene`). Tile values on the table are public; nothing here touches a
hand."""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.rules import phrases
from dominocam.server import storage, table_scene
from dominocam.server.game.records import get_game, get_round
from dominocam.server.game.table import layout_from_scene
from dominocam.server.storage import dumps, loads, now, transaction
from dominocam.vision import messages

# How many camera events the public state carries (the dashboard and the overlay show them).
LATEST_TABLE_EVENTS = 8


def record_camera_update(
    conn: sqlite3.Connection,
    game_id: int,
    scene: dict[str, Any],
    events: list[dict[str, Any]],
    image_name: str | None,
) -> list[dict[str, Any]]:
    """Store the camera's confirmed changes and its table (a frame and its Scene) in the round.

    The camera's table replaces the round's table Scene as an uploaded photo does, except that
    people's corrections stand (`dominocam.server.table_scene`) and lines entered by hand are kept.

    Args:
        scene: the tracker's Scene dict; each tile carries its `track`. events:
        `dominocam.vision.track.TableEvent.to_dict()` of the changes confirmed since the last call.
        image_name: the frame the Scene was read from, under the game's upload folder.

    Returns:
        The events as stored (with `id`, `round` and `time`), or [] when the game has no open
        round (between rounds the table is being cleared: there is nothing to tie them to).
    """
    with transaction(conn):
        if get_game(conn, game_id)["status"] != "active":
            return []
        rnd = get_round(conn, game_id)
        if rnd["status"] != "open":
            return []
        merged = table_scene.merge_camera_scene(loads(rnd["table_scene"]), scene)
        stored = []
        for raw in events:
            event = dict(raw)
            kept = merged.kept.get(int(event["track"]))
            if kept is not None and event["kind"] != "removed":
                event["kept"] = kept
                before = phrases.from_json(event.get("words") or {}, str(event["text"]))
                stands = (
                    messages.EVENT_DELETION_STANDS.format(event=before or event["text"])
                    if kept == table_scene.DELETED
                    else messages.EVENT_CORRECTION_STANDS.format(
                        event=before or event["text"], kept=kept
                    )
                )
                event["text"], event["words"] = str(stands), phrases.to_json(stands)
            created = now()
            cur = conn.execute(
                "INSERT INTO table_events (round_id, kind, track, text, event, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    rnd["id"],
                    event["kind"],
                    int(event["track"]),
                    event["text"],
                    dumps(event),
                    created,
                ),
            )
            stored.append(
                dict(event, id=int(cur.lastrowid or 0), round=rnd["number"], time=created)
            )
        updates: dict[str, Any] = {"table_scene": dumps(merged.scene), "table_image": image_name}
        if not rnd["lines_by_hand"]:
            updates["layout"] = dumps(layout_from_scene(merged.scene))
        sets = ", ".join(f"{k} = ?" for k in updates)
        conn.execute(f"UPDATE rounds SET {sets} WHERE id = ?", (*updates.values(), rnd["id"]))
        storage.add_event(
            conn,
            game_id,
            "camera",
            {
                "events": [
                    {"id": e["id"], "kind": e["kind"], "text": e["text"], "words": e.get("words")}
                    for e in stored
                ]
            },
        )
    return stored


def _table_event(row: sqlite3.Row, number: int) -> dict[str, Any]:
    """A stored event as pages show it: `text` as stored (English), `shown` in the reader's
    language, written from its `words` (code and parameters; an event stored without them
    shows its text)."""
    event = loads(row["event"], {})
    return dict(
        event,
        id=row["id"],
        round=number,
        time=row["created_at"],
        shown=phrases.said(str(event.get("text", "")), event.get("words")),
    )


def table_events(
    conn: sqlite3.Connection,
    game_id: int,
    number: int | None = None,
    since: int = 0,
    limit: int = 100,
) -> dict[str, Any]:
    """The camera's events of a round (the latest round by default) after event id `since`,
    oldest first. Tile values on the table are public; nothing here touches a hand."""
    rnd = get_round(conn, game_id, number)
    rows = conn.execute(
        "SELECT * FROM table_events WHERE round_id = ? AND id > ? ORDER BY id LIMIT ?",
        (rnd["id"], since, max(1, min(limit, 500))),
    ).fetchall()
    return {"round": rnd["number"], "events": [_table_event(r, rnd["number"]) for r in rows]}


def latest_table_events(conn: sqlite3.Connection, rnd: sqlite3.Row) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT * FROM table_events WHERE round_id = ? ORDER BY id DESC LIMIT ?",
        (rnd["id"], LATEST_TABLE_EVENTS),
    ).fetchall()
    return [_table_event(r, rnd["number"]) for r in rows]
