"""Players' hands for the open round: tiles, the photo they were read from, declarations."""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.errors import UserInputError
from rules.tiles import Tile, parse_tile
from server import storage
from server.game.records import get_game, open_round
from server.storage import dumps, now, transaction


def parse_hand(raw: object, set_max: int) -> list[list[int]]:
    if not isinstance(raw, list):
        raise UserInputError("'tiles' must be a list of [a, b] pairs")
    tiles = [parse_tile(t, set_max) for t in raw]
    seen: set[Tile] = set()
    for tile in tiles:
        if tile in seen:
            raise UserInputError(f"tile {tile} is listed twice; a set has each tile once")
        seen.add(tile)
    return [t.as_list() for t in tiles]


def set_hand(
    conn: sqlite3.Connection,
    player: sqlite3.Row,
    tiles: object,
    scene: dict[str, Any] | None = None,
    image_name: str | None = None,
) -> list[list[int]]:
    """Store a player's hand for the open round (tiles corrected by the player or the table)."""
    game = get_game(conn, player["game_id"])
    parsed = parse_hand(tiles, game["set_max"])
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        old = conn.execute(
            "SELECT * FROM hands WHERE round_id = ? AND player_id = ?", (rnd["id"], player["id"])
        ).fetchone()
        scene_json = dumps(scene) if scene is not None else (old["scene"] if old else None)
        image = image_name or (old["image"] if old else None)
        conn.execute(
            "INSERT INTO hands (round_id, player_id, tiles, scene, image, submitted, updated_at) "
            "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT(round_id, player_id) DO UPDATE SET "
            "tiles = excluded.tiles, scene = excluded.scene, image = excluded.image, "
            "submitted = 1, updated_at = excluded.updated_at",
            (rnd["id"], player["id"], dumps(parsed), scene_json, image, now()),
        )
        storage.add_event(
            conn, player["game_id"], "hand", {"player": player["name"], "count": len(parsed)}
        )
    return parsed


def attach_hand_photo(conn: sqlite3.Connection, player: sqlite3.Row, image_name: str) -> None:
    """Keep a hand photo that could not be read (no model); the tiles are entered by hand."""
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        conn.execute(
            "INSERT INTO hands (round_id, player_id, image, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(round_id, player_id) DO UPDATE SET image = excluded.image",
            (rnd["id"], player["id"], image_name, now()),
        )
        storage.add_event(conn, player["game_id"], "hand", {"player": player["name"], "photo": 1})


def declare_cannot_play(conn: sqlite3.Connection, player: sqlite3.Row, value: bool) -> None:
    """Record the player's declaration; a false "cannot play" is a foul at the block check."""
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        conn.execute(
            "INSERT INTO hands (round_id, player_id, declared_cannot_play, updated_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(round_id, player_id) DO UPDATE SET "
            "declared_cannot_play = excluded.declared_cannot_play",
            (rnd["id"], player["id"], int(value), now()),
        )
        storage.add_event(
            conn, player["game_id"], "declare", {"player": player["name"], "cannot_play": value}
        )
