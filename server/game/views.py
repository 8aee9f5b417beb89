"""What the pages show: the public state (tile counts only until the round ends) and a
player's own view (their hand added, nobody else's)."""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.rounds.scene_state import hand_tiles
from dominocam.rules import phrases
from dominocam.rules.places import line_words, place_text
from dominocam.rules.variants import get_variant
from dominocam.server import storage
from dominocam.server.game import audit, history, review
from dominocam.server.game.camera_events import latest_table_events
from dominocam.server.game.games import usual_deal
from dominocam.server.game.records import get_game, get_round, lock_reason, players, round_hands
from dominocam.server.game.rulings import public_outcome
from dominocam.server.game.scoreboard import scoreboard
from dominocam.server.setup_words import variant_title
from dominocam.server.storage import loads


def public_state(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The game as anybody at the table (or the overlay) may see it.

    Before the round ends: tile counts only, never tiles. After it ends: hands, pip totals,
    winner, ties and points.
    """
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = round_hands(conn, rnd["id"])
    ended = rnd["status"] == "ended"
    result = loads(rnd["result"], None) if ended else None
    changes = _hand_changes(conn, rnd["id"])
    roster = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        tiles = loads(row["tiles"], []) if row else []
        submitted = bool(row and row["confirmed_at"] is not None)
        entry: dict[str, Any] = {
            "id": p["id"],
            "name": p["name"],
            "seat": p["seat"],
            "team": p["team"],
            "tiles": len(tiles) if submitted else None,
            "hand_submitted": submitted,
            "hand_status": _hand_status(row),
            # Changes of the confirmed hand (the audit trail says by whom, when).
            "hand_changes": changes.get(p["name"], 0),
            "declared_cannot_play": bool(row and row["declared_cannot_play"]),
        }
        if ended:
            entry["hand"] = tiles
            totals = (result or {}).get("pip_totals") or (result or {}).get("totals") or {}
            entry["pip_total"] = totals.get(p["name"], sum(a + b for a, b in tiles))
        roster.append(entry)
    scene = loads(rnd["table_scene"], None)
    checks = conn.execute(
        "SELECT id, proposer, outcome, verdict, created_at FROM block_checks WHERE round_id = ? "
        "ORDER BY id DESC LIMIT 5",
        (rnd["id"],),
    ).fetchall()
    lines = [dict(line, **_line_words(line)) for line in loads(rnd["layout"], [])]
    draws = get_variant(game["variant"], loads(game["rules"], {})).undealt == "boneyard"
    return {
        "version": storage.last_event_id(conn),
        "game": {
            "id": game["id"],
            "name": game["name"],
            "variant": game["variant"],
            # The variant by its name in the reader's language (pages show this, not the code).
            "variant_title": variant_title(game["variant"]),
            "rules": loads(game["rules"], {}),
            "set": game["set_max"],
            "status": game["status"],
            "teams": any(p["team"] for p in roster),
            # Players draw from a boneyard (else the undealt tiles sit out all round).
            "draws": draws,
            # Tiles dealt to each player: the table's, else the variant's (null: no row).
            "deal": game["deal"]
            or usual_deal(game["variant"], loads(game["rules"], {}), len(roster)),
        },
        "players": roster,
        "round": {
            "number": rnd["number"],
            "status": rnd["status"],
            "engine": rnd["engine"],
            # The host's count (null: nobody entered one; never 0 by default).
            "boneyard": rnd["boneyard"] if rnd["boneyard_source"] else None,
            "boneyard_source": rnd["boneyard_source"],
            "lines": lines,
            "open_ends": [line["open_end"] for line in lines],
            "table": {
                "image": (
                    f"/api/games/{game_id}/rounds/{rnd['number']}/table/image"
                    if rnd["table_image"]
                    else None
                ),
                "scene": scene,
                # Its warnings in the page's language (the Scene keeps them in English).
                "warnings_shown": review.shown_warnings(scene),
                "face_down": (scene or {}).get("face_down", 0),
                # The live camera's latest confirmed changes, newest first.
                "events": latest_table_events(conn, rnd),
            },
            "lines_by_hand": bool(rnd["lines_by_hand"]),
            # Which tile stopped a check is told to that player only until the round ends.
            "block_checks": [
                dict(
                    _outcome_words(
                        loads(c["outcome"], {})
                        if ended
                        else public_outcome(loads(c["outcome"], {})),
                        loads(c["verdict"], {}),
                    ),
                    id=c["id"],
                    time=c["created_at"],
                )
                for c in checks
            ],
            "locked": (
                {
                    "at": rnd["locked_at"],
                    "by": rnd["locked_by"],
                    # The stored reason in the reader's language.
                    "by_shown": phrases.said(lock_reason(rnd) or ""),
                }
                if rnd["locked_at"]
                else None
            ),
            "pending_end": loads(rnd["pending_end"], None),
            "review": review.public_review(rnd),
            "ended_by": rnd["ended_by"],
            "result": result,
        },
        "scoreboard": scoreboard(conn, game_id),
        "audit": audit.entries(conn, game_id),
        # Ended rounds only, with every hand: nothing of a round still open.
        "history": history.round_history(conn, game_id),
    }


def _line_words(line: dict[str, Any]) -> dict[str, Any]:
    """A round's line in the reader's words: `shown` names it as players see it ("the 5 at
    the top right", "Ana's train", "“left” (open end 5)", "the line ending in 5");
    `place_shown` says where its open end lies on the table photo ("at the top right"), or is
    None; `name_shown` is the name a person typed, or None for a line nobody named (its `name`
    is then an id, "line 2", for programs only)."""
    place = line.get("place")
    typed = line.get("name") if line.get("named", True) else None
    return {
        "shown": line_words(line.get("open_end"), place=place, owner=line.get("owner"), name=typed),
        "place_shown": place_text(place) if place else None,
        "name_shown": typed,
    }


def end_shown(name: str | None, verdict: dict[str, Any]) -> str | None:
    """The open end called `name` in a stored verdict (its `open_ends`), in words; a name the
    software made (`named` false) is never shown."""
    if name is None:
        return None
    end = next((e for e in verdict.get("open_ends") or [] if e.get("line") == name), None)
    if end is None:
        moves: list[dict[str, Any]] = verdict.get("playable") or []
        move = next((m for m in moves if m.get("line") == name), {})
        return line_words(move.get("end"))
    return line_words(
        end.get("value"),
        place=end.get("place"),
        owner=end.get("owner"),
        kind=end.get("kind") or "line",
        name=name if end.get("named", True) else None,
    )


def _outcome_words(outcome: dict[str, Any], verdict: dict[str, Any]) -> dict[str, Any]:
    """A block check's outcome with the line where the check stopped in words
    (`stopped.line_shown`), when the outcome names it."""
    stopped = outcome.get("stopped")
    if stopped and stopped.get("line") is not None:
        outcome = dict(
            outcome, stopped=dict(stopped, line_shown=end_shown(stopped["line"], verdict))
        )
    return outcome


def _hand_status(row: sqlite3.Row | None) -> str:
    """none | unconfirmed (a photo read, not confirmed) | confirmed (the hand is in) |
    to-confirm (confirmed before play went on: its owner confirms it again)."""
    if row is not None and row["confirmed_at"] is not None:
        return "to-confirm" if row["to_confirm"] else "confirmed"
    if row is not None and (row["pending"] is not None or row["pending_image"] is not None):
        return "unconfirmed"
    return "none"


def _hand_changes(conn: sqlite3.Connection, round_id: int) -> dict[str, int]:
    rows = conn.execute(
        "SELECT json_extract(detail, '$.player') AS player, COUNT(*) AS n FROM audit "
        "WHERE round_id = ? AND action = 'hand' GROUP BY player",
        (round_id,),
    ).fetchall()
    return {row["player"]: row["n"] for row in rows}


def _my_play(conn: sqlite3.Connection, rnd: sqlite3.Row, name: str) -> dict[str, Any] | None:
    """The tile and line a block check found this player can play (for them alone)."""
    row = conn.execute(
        "SELECT outcome, verdict FROM block_checks WHERE round_id = ? ORDER BY id DESC LIMIT 1",
        (rnd["id"],),
    ).fetchone()
    stopped = (loads(row["outcome"], {}) if row else {}).get("stopped") or {}
    if rnd["status"] != "open" or stopped.get("player") != name:
        return None
    line = stopped.get("line")
    return {
        "tile": stopped.get("tile"),
        "line": line,
        # Where, as the player sees it ("the 5 at the top right"), never "line 2".
        "line_shown": end_shown(line, loads(row["verdict"], {})),
    }


def _photo_replaced(
    conn: sqlite3.Connection, rnd: sqlite3.Row, row: sqlite3.Row | None, name: str, tiles: list
) -> str | None:
    """Who made this confirmed hand differ from its photo's reading: "host" (the host
    changed it), "player" (its owner corrected the reading), or None when the reading is
    the hand. The phone then shows the photo without its old reading, and says why."""
    scene = loads(row["scene"], None) if row is not None and row["image"] else None
    if scene is None or sorted(map(sorted, hand_tiles(scene))) == sorted(map(sorted, tiles)):
        return None
    last = conn.execute(
        "SELECT author FROM audit WHERE round_id = ? AND action = 'hand' "
        "AND json_extract(detail, '$.player') = ? ORDER BY id DESC LIMIT 1",
        (rnd["id"], name),
    ).fetchone()
    return "host" if last is not None and last["author"] == audit.HOST else "player"


def player_view(conn: sqlite3.Connection, player: sqlite3.Row) -> dict[str, Any]:
    """The public state plus this player's own hand (and nobody else's)."""
    state = public_state(conn, player["game_id"])
    rnd = get_round(conn, player["game_id"])
    row = conn.execute(
        "SELECT * FROM hands WHERE round_id = ? AND player_id = ?", (rnd["id"], player["id"])
    ).fetchone()
    confirmed = bool(row and row["confirmed_at"] is not None)
    tiles = loads(row["tiles"], []) if confirmed else []
    pending = None
    if row is not None and (row["pending"] is not None or row["pending_image"] is not None):
        pending = {"tiles": loads(row["pending"], None), "scene": loads(row["pending_scene"], None)}
    scene = pending["scene"] if pending else (loads(row["scene"], None) if row else None)
    state["me"] = {
        "id": player["id"],
        "name": player["name"],
        "team": player["team"],
        # The confirmed hand: the one the rulings use.
        "hand": tiles,
        "pip_total": sum(a + b for a, b in tiles),
        "confirmed": confirmed,
        # A photo read (or kept unread) that waits for this player's confirmation.
        "pending": pending,
        "scene": scene,
        "warnings_shown": review.shown_warnings(scene),
        "has_photo": bool(row and (row["pending_image"] or row["image"])),
        # The confirmed photo's reading no longer is the hand (changed since): by whom.
        "photo_replaced": None
        if pending
        else _photo_replaced(conn, rnd, row, player["name"], tiles),
        "declared_cannot_play": bool(row and row["declared_cannot_play"]),
        "can_play": _my_play(conn, rnd, player["name"]),
        # Of this hand alone: tiles the table photo shows, and whether to confirm it again.
        **review.player_notices(rnd, row),
    }
    return state
