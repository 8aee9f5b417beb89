"""Rulings on the open round with the rules engine: the block check and the end by domino,
and the game state they judge (it holds every hand: never shown before the round ends)."""

from __future__ import annotations

import sqlite3
from typing import Any

from server import engine, storage
from server.game.records import (
    Conflict,
    get_game,
    get_round,
    hands,
    open_round,
    player_by_name,
    players,
)
from server.game.scoreboard import finish_if_over
from server.storage import dumps, loads, now, transaction


def rules_state(
    conn: sqlite3.Connection,
    game_id: int,
    proposer: str | None = None,
    allow_missing: bool = False,
    empty_hand: str | None = None,
) -> dict[str, Any]:
    """The DESIGN.md game-state dict of the latest round, for the rules engine."""
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = hands(conn, rnd["id"])
    roster = []
    missing = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        if p["name"] == empty_hand:
            tiles: list = []
        elif row is None or not row["submitted"]:
            if not allow_missing:
                missing.append(p["name"])
            tiles = []
        else:
            tiles = loads(row["tiles"], [])
        entry: dict[str, Any] = {"name": p["name"], "hand": tiles}
        if row is not None and row["declared_cannot_play"]:
            entry["declared_cannot_play"] = True
        if p["team"]:
            entry["team"] = p["team"]
        roster.append(entry)
    if missing:
        raise Conflict(
            f"no hand yet for {', '.join(missing)}: each player sends a photo from their link "
            "or the table enters the tiles"
        )
    state: dict[str, Any] = {
        "variant": game["variant"],
        "rules": loads(game["rules"], {}),
        "set": game["set_max"],
        "players": roster,
        "layout": {"lines": loads(rnd["layout"], [])},
        "boneyard": rnd["boneyard"],
    }
    if proposer is not None:
        state["proposer"] = proposer
    return state


def game_state_for_rules(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The state the rules engine would judge now (admin only: it holds every hand)."""
    return rules_state(conn, game_id, allow_missing=True)


def block_check(conn: sqlite3.Connection, game_id: int, proposer_name: object) -> dict[str, Any]:
    """Run the clockwise verification from `proposer_name` with the rules engine.

    A confirmed block ends the round: hands revealed, totals, winner, ties and points written
    to the scoreboard. Otherwise the outcome names the first player who can play, the tile and
    the line, and whether that player had declared "cannot play" (a foul).
    """
    proposer = player_by_name(conn, game_id, proposer_name)
    open_round(conn, game_id)
    state = rules_state(conn, game_id, proposer=proposer["name"])
    verdict = engine.check(state)
    outcome = _outcome(conn, game_id, proposer["name"], verdict)
    with transaction(conn):
        rnd = open_round(conn, game_id)
        cur = conn.execute(
            "INSERT INTO block_checks (round_id, proposer, verdict, outcome, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (rnd["id"], proposer["name"], dumps(verdict), dumps(outcome), now()),
        )
        outcome["id"] = int(cur.lastrowid or 0)
        if verdict.get("blocked"):
            _end_round(conn, game_id, rnd, "block", verdict)
        storage.add_event(conn, game_id, "block_check", {"outcome": outcome})
    return outcome


def _outcome(
    conn: sqlite3.Connection, game_id: int, proposer: str, verdict: dict[str, Any]
) -> dict[str, Any]:
    """What may be shown to everybody: the confirmations in turn and where they stopped."""
    steps = [
        {
            "player": s.get("player"),
            "can_play": bool(s.get("can_play")),
            "declared": bool(s.get("declared")),
            "foul": bool(s.get("foul")),
        }
        for s in verdict.get("verification") or []
    ]
    stopped = None
    if not verdict.get("blocked"):
        first = next((s for s in steps if s["can_play"]), None)
        if first is not None:
            # Only the first playable tile of the player who stopped the check is shown.
            move = next(
                (m for m in verdict.get("playable") or [] if m.get("player") == first["player"]),
                {},
            )
            rnd = get_round(conn, game_id)
            declared = conn.execute(
                "SELECT h.declared_cannot_play FROM hands h JOIN players p ON p.id = h.player_id "
                "WHERE h.round_id = ? AND p.name = ?",
                (rnd["id"], first["player"]),
            ).fetchone()
            stopped = {
                "player": first["player"],
                "tile": move.get("tile"),
                "line": move.get("line"),
                "foul": first["foul"] or bool(declared and declared[0]),
            }
        else:
            stopped = {"player": None, "tile": None, "line": None, "foul": False}
    return {
        "proposer": proposer,
        "blocked": bool(verdict.get("blocked")),
        "conditions": verdict.get("conditions") or {},
        "steps": steps,
        "stopped": stopped,
        "boneyard_reason": (
            None
            if (verdict.get("conditions") or {}).get("boneyard_exhausted", True)
            else "tiles can still be drawn from the boneyard"
        ),
    }


def end_by_domino(conn: sqlite3.Connection, game_id: int, winner_name: object) -> dict[str, Any]:
    """End the round because `winner_name` played their last tile; score it per the variant."""
    winner = player_by_name(conn, game_id, winner_name)
    open_round(conn, game_id)
    state = rules_state(conn, game_id, empty_hand=winner["name"])
    result = engine.score_domino(state, winner["name"])
    with transaction(conn):
        rnd = open_round(conn, game_id)
        conn.execute(
            "UPDATE hands SET tiles = '[]' WHERE round_id = ? AND player_id = ?",
            (rnd["id"], winner["id"]),
        )
        _end_round(conn, game_id, rnd, "domino", result)
    return result


def _end_round(
    conn: sqlite3.Connection,
    game_id: int,
    rnd: sqlite3.Row,
    ended_by: str,
    result: dict[str, Any],
) -> None:
    conn.execute(
        "UPDATE rounds SET status = 'ended', ended_by = ?, result = ?, ended_at = ? WHERE id = ?",
        (ended_by, dumps(result), now(), rnd["id"]),
    )
    by_name = {p["name"]: p["id"] for p in players(conn, game_id)}
    for name, points in (result.get("points") or {}).items():
        conn.execute(
            "INSERT OR REPLACE INTO scores (round_id, name, player_id, points) VALUES (?, ?, ?, ?)",
            (rnd["id"], name, by_name.get(name), int(points)),
        )
    storage.add_event(
        conn,
        game_id,
        "round",
        {"action": "ended", "round": rnd["number"], "by": ended_by, "winner": result.get("winner")},
    )
    finish_if_over(conn, game_id)
