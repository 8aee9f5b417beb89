"""What the pages show: the public state (tile counts only until the round ends) and a
player's own view (their hand added, nobody else's)."""

from __future__ import annotations

import sqlite3
from typing import Any

from server import storage
from server.game.camera_events import latest_table_events
from server.game.records import get_game, get_round, hands, players
from server.game.scoreboard import scoreboard
from server.storage import loads


def public_state(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The game as anybody at the table (or the overlay) may see it.

    Before the round ends: tile counts only, never tiles. After it ends: hands, pip totals,
    winner, ties and points.
    """
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = hands(conn, rnd["id"])
    ended = rnd["status"] == "ended"
    result = loads(rnd["result"], None) if ended else None
    roster = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        tiles = loads(row["tiles"], []) if row else []
        submitted = bool(row and row["submitted"])
        entry: dict[str, Any] = {
            "id": p["id"],
            "name": p["name"],
            "seat": p["seat"],
            "team": p["team"],
            "tiles": len(tiles) if submitted else None,
            "hand_submitted": submitted,
            "declared_cannot_play": bool(row and row["declared_cannot_play"]),
        }
        if ended:
            entry["hand"] = tiles
            totals = (result or {}).get("pip_totals") or (result or {}).get("totals") or {}
            entry["pip_total"] = totals.get(p["name"], sum(a + b for a, b in tiles))
        roster.append(entry)
    scene = loads(rnd["table_scene"], None)
    checks = conn.execute(
        "SELECT id, proposer, outcome, created_at FROM block_checks WHERE round_id = ? "
        "ORDER BY id DESC LIMIT 5",
        (rnd["id"],),
    ).fetchall()
    lines = loads(rnd["layout"], [])
    return {
        "version": storage.last_event_id(conn),
        "game": {
            "id": game["id"],
            "name": game["name"],
            "variant": game["variant"],
            "rules": loads(game["rules"], {}),
            "set": game["set_max"],
            "status": game["status"],
            "teams": any(p["team"] for p in roster),
        },
        "players": roster,
        "round": {
            "number": rnd["number"],
            "status": rnd["status"],
            "engine": rnd["engine"],
            "boneyard": rnd["boneyard"],
            "lines": lines,
            "open_ends": [line["open_end"] for line in lines],
            "table": {
                "image": (
                    f"/api/games/{game_id}/rounds/{rnd['number']}/table/image"
                    if rnd["table_image"]
                    else None
                ),
                "scene": scene,
                "face_down": (scene or {}).get("face_down", 0),
                # The live camera's latest confirmed changes, newest first.
                "events": latest_table_events(conn, rnd),
            },
            "lines_by_hand": bool(rnd["lines_by_hand"]),
            "block_checks": [
                dict(loads(c["outcome"], {}), id=c["id"], time=c["created_at"]) for c in checks
            ],
            "ended_by": rnd["ended_by"],
            "result": result,
        },
        "scoreboard": scoreboard(conn, game_id),
    }


def player_view(conn: sqlite3.Connection, player: sqlite3.Row) -> dict[str, Any]:
    """The public state plus this player's own hand (and nobody else's)."""
    state = public_state(conn, player["game_id"])
    rnd = get_round(conn, player["game_id"])
    row = conn.execute(
        "SELECT * FROM hands WHERE round_id = ? AND player_id = ?", (rnd["id"], player["id"])
    ).fetchone()
    tiles = loads(row["tiles"], []) if row else []
    scene = loads(row["scene"], None) if row else None
    state["me"] = {
        "id": player["id"],
        "name": player["name"],
        "team": player["team"],
        "hand": tiles,
        "pip_total": sum(a + b for a, b in tiles),
        "scene": scene,
        "has_photo": bool(row and row["image"]),
        "declared_cannot_play": bool(row and row["declared_cannot_play"]),
    }
    return state
