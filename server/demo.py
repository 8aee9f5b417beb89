"""The demo game `dominocam serve` creates on an empty database: it works without a camera
or models (lines and hands entered by hand), so a new table can try every screen at once."""

from __future__ import annotations

import sqlite3

from dominocam.server import game

DEMO_GAME = {
    "name": "Demo: block game, double-6",
    "variant": "block",
    "set": 6,
    "players": ["Ana", "Ben", "Caro", "Dev"],
}
# A blocked round: open ends 3 and 5 and nobody holds a 3 or a 5; Ben has the lowest count.
DEMO_LINES = [{"name": "left", "open_end": 3}, {"name": "right", "open_end": 5}]
DEMO_HANDS = {
    "Ana": [[0, 1], [6, 6]],
    "Ben": [[1, 1], [0, 6]],
    "Caro": [[2, 4], [4, 4]],
    "Dev": [[0, 2], [1, 6]],
}


def ensure_demo_game(conn: sqlite3.Connection) -> int | None:
    """Create the demo game when the database has no game at all; its id, or None."""
    if game.current_game_id(conn) is not None:
        return None
    gid = game.create_game(conn, dict(DEMO_GAME))
    game.set_layout(conn, gid, DEMO_LINES, boneyard=0)
    for player in game.players(conn, gid):
        game.set_hand(conn, player, DEMO_HANDS[player["name"]])
    return gid
