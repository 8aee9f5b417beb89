"""The game's round history and its export: each ended round with every hand, the ruling and
the audit trail.

Only ended rounds are listed (hands are secret until their round ends; a reopened round
leaves the history until it ends again). The CSV has one row per player per round.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from typing import Any

from dominocam.rounds import ledger_words
from dominocam.server.game import audit
from dominocam.server.game.records import get_game, players, round_hands
from dominocam.server.game.scoreboard import scoreboard
from dominocam.server.storage import loads

CSV_COLUMNS = (
    "game",
    "variant",
    "round",
    "engine",
    "ended_by",
    "winner",
    "player",
    "team",
    "seat",
    "hand",
    "pips",
    "points",
)


def _tile_text(tiles: list[list[int]]) -> str:
    return " ".join(f"{a}-{b}" for a, b in tiles)


def _round_entry(conn: sqlite3.Connection, game_id: int, rnd: sqlite3.Row) -> dict[str, Any]:
    result = loads(rnd["result"], {}) or {}
    held = round_hands(conn, rnd["id"])
    totals = result.get("pip_totals") or result.get("totals") or {}
    points = {
        row["name"]: row["points"]
        for row in conn.execute("SELECT name, points FROM scores WHERE round_id = ?", (rnd["id"],))
    }
    hands = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        confirmed = row is not None and row["confirmed_at"] is not None
        tiles = loads(row["tiles"], []) if confirmed and row is not None else None
        hands.append(
            {
                "player": p["name"],
                "team": p["team"],
                "seat": p["seat"],
                # None: no hand was confirmed for this player in this round.
                "tiles": tiles,
                "pip_total": totals.get(p["name"], sum(a + b for a, b in tiles or [])),
                "points": points.get(p["name"]),
            }
        )
    checks = conn.execute(
        "SELECT id, proposer, outcome, created_at FROM block_checks WHERE round_id = ? ORDER BY id",
        (rnd["id"],),
    ).fetchall()
    return {
        "number": rnd["number"],
        "engine": rnd["engine"],
        "started_at": rnd["started_at"],
        "ended_at": rnd["ended_at"],
        "ended_by": rnd["ended_by"],
        "winner": result.get("winner"),
        "tied": result.get("tied") or [],
        # Points by scoreboard column (a player, or a team in team variants).
        "points": points,
        "hands": hands,
        "ruling": result,
        # Every tile of the set accounted for, or what the host overrode and why (words).
        "ledger": ledger_words.ledger_entry(
            result.get("ledger"), get_game(conn, game_id)["set_max"]
        ),
        "block_checks": [
            dict(loads(c["outcome"], {}), id=c["id"], time=c["created_at"]) for c in checks
        ],
        "audit": audit.round_entries(conn, rnd["id"]),
    }


def round_history(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """Every ended round of the game, oldest first (see the module's docstring)."""
    rounds = conn.execute(
        "SELECT * FROM rounds WHERE game_id = ? AND status = 'ended' ORDER BY number",
        (game_id,),
    ).fetchall()
    return [_round_entry(conn, game_id, rnd) for rnd in rounds]


def export_json(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The whole game for the host: settings, players, the scoreboard and every ended round."""
    game = get_game(conn, game_id)
    return {
        "game": {
            "id": game["id"],
            "name": game["name"],
            "variant": game["variant"],
            "set": game["set_max"],
            "rules": loads(game["rules"], {}),
            "status": game["status"],
        },
        "players": [
            {"name": p["name"], "team": p["team"], "seat": p["seat"]}
            for p in players(conn, game_id)
        ],
        "scoreboard": scoreboard(conn, game_id),
        "rounds": round_history(conn, game_id),
    }


def export_csv(conn: sqlite3.Connection, game_id: int) -> str:
    """One row per player per ended round (`CSV_COLUMNS`)."""
    game = get_game(conn, game_id)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rnd in round_history(conn, game_id):
        for hand in rnd["hands"]:
            points = rnd["points"].get(hand["player"])
            if points is None and hand["team"]:
                points = rnd["points"].get(hand["team"])
            writer.writerow(
                [
                    game["name"],
                    game["variant"],
                    rnd["number"],
                    "" if rnd["engine"] is None else rnd["engine"],
                    rnd["ended_by"] or "",
                    rnd["winner"] or "",
                    hand["player"],
                    hand["team"] or "",
                    hand["seat"] + 1,
                    "" if hand["tiles"] is None else _tile_text(hand["tiles"]),
                    hand["pip_total"],
                    "" if points is None else points,
                ]
            )
    return out.getvalue()
