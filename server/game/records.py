"""Looking up games, players, rounds and hands, and the errors every module raises.

`NotFound` becomes HTTP 404 and `Conflict` (`dominocam.rounds.lifecycle`, both modes') HTTP 409
(`server.__init__`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.errors import Refused
from dominocam.i18n import _
from dominocam.rounds.lifecycle import Conflict
from dominocam.rules import phrases
from dominocam.server.storage import loads

__all__ = ["Conflict", "NotFound", "Refused"]


class NotFound(Refused):
    """An unknown game, round or player: HTTP 404."""


def get_game(conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise NotFound(_("no game {game_id}").format(game_id=game_id), "no_game", game_id=game_id)
    return row


def current_game_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute(
        "SELECT id FROM games ORDER BY status = 'active' DESC, id DESC LIMIT 1"
    ).fetchone()
    return None if row is None else int(row[0])


def players(conn: sqlite3.Connection, game_id: int) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM players WHERE game_id = ? ORDER BY seat", (game_id,)
    ).fetchall()


def get_round(conn: sqlite3.Connection, game_id: int, number: int | None = None) -> sqlite3.Row:
    """A round by number, or the latest one."""
    if number is None:
        row = conn.execute(
            "SELECT * FROM rounds WHERE game_id = ? ORDER BY number DESC LIMIT 1", (game_id,)
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT * FROM rounds WHERE game_id = ? AND number = ?", (game_id, number)
        ).fetchone()
    if row is None:
        raise NotFound(
            f"game {game_id} has no round {number or ''}".rstrip(),
            "no_round",
            game_id=game_id,
            round=number,
        )
    return row


def open_round(conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
    """The latest round, which must still be open."""
    rnd = get_round(conn, game_id)
    if rnd["status"] != "open":
        raise Conflict(
            _("round {number} has ended; start a new round first").format(number=rnd["number"]),
            "round_ended",
            round=rnd["number"],
        )
    return rnd


def lock_reason(rnd: Any) -> str | None:
    """Why the round's hands are locked (None while they are not): the stored English
    `locked_by` as a `dominocam.rules.phrases.Phrase` with its code and parameters (`locked_words`),
    or as plain text for a lock stored before them."""
    if not rnd["locked_at"]:
        return None
    return phrases.stored(str(rnd["locked_by"] or ""), loads(rnd["locked_words"], None))


def round_hands(conn: sqlite3.Connection, round_id: int) -> dict[int, sqlite3.Row]:
    return {
        row["player_id"]: row
        for row in conn.execute("SELECT * FROM hands WHERE round_id = ?", (round_id,))
    }


def list_games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [
        {
            "id": row["id"],
            "name": row["name"],
            "variant": row["variant"],
            "set": row["set_max"],
            "status": row["status"],
        }
        for row in conn.execute("SELECT * FROM games ORDER BY id DESC")
    ]


def player_by_id(conn: sqlite3.Connection, game_id: int, player_id: int) -> sqlite3.Row:
    row = conn.execute(
        "SELECT * FROM players WHERE id = ? AND game_id = ?", (player_id, game_id)
    ).fetchone()
    if row is None:
        raise NotFound(
            _("game {game_id} has no player {player_id}").format(
                game_id=game_id, player_id=player_id
            ),
            "no_player",
            game_id=game_id,
            player_id=player_id,
        )
    return row


def player_by_name(conn: sqlite3.Connection, game_id: int, name: object) -> sqlite3.Row:
    row = conn.execute(
        "SELECT * FROM players WHERE name = ? AND game_id = ?", (str(name), game_id)
    ).fetchone()
    if row is None:
        known = ", ".join(p["name"] for p in players(conn, game_id))
        raise Refused(
            _("unknown player {name!r}; players: {known}").format(name=name, known=known),
            "unknown_player",
            name=str(name),
        )
    return row
