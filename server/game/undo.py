"""The host's corrections after the fact: reopen the last round, correct a round's score,
delete a game, rename and reorder players between rounds. Each is kept in the audit trail.

The scoreboard is always computed from the `scores` of the ended rounds, and a corrected
score is written both there and into the round's result, so the scoreboard and the rounds it
shows agree (`scoreboard.scoreboard`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.errors import Refused
from dominocam.i18n import _
from dominocam.rounds import operations, wording
from dominocam.rounds.lifecycle import Conflict
from dominocam.server import storage
from dominocam.server.game import audit
from dominocam.server.game.records import get_game, get_round, player_by_id, players
from dominocam.server.game.round_store import SqliteRoundStore
from dominocam.server.game.scoreboard import finish_if_over
from dominocam.server.storage import dumps, loads, transaction

MAX_NAME = 40


def _between_rounds(conn: sqlite3.Connection, game_id: int, what: str) -> None:
    store = SqliteRoundStore(conn, game_id)
    rnd = store.latest_round()
    if rnd.status == "open" and store.touched(rnd):
        raise Conflict(
            _("{what} only between rounds: round {number} is under way").format(
                what=what, number=rnd.number
            ),
            "round_under_way",
            round=rnd.number,
        )


def reopen_last_round(conn: sqlite3.Connection, game_id: int, reason: object) -> int:
    """Reopen the latest ended round (`dominocam.rounds.operations.reopen_last_round`): its score
    leaves the scoreboard, its hands stay locked (the host corrects them with a reason) and it is
    ruled and scored again. Returns the reopened round's number."""
    get_game(conn, game_id)
    return operations.reopen_last_round(SqliteRoundStore(conn, game_id), reason)


def _points(conn: sqlite3.Connection, round_id: int) -> dict[str, int]:
    return {
        row["name"]: row["points"]
        for row in conn.execute("SELECT name, points FROM scores WHERE round_id = ?", (round_id,))
    }


def _points_text(points: dict[str, int]) -> str:
    """A round's points as the audit trail stores them ("Ana 12, Ben 0"; NO_POINTS when
    nobody scored, shown in the reader's language)."""
    return ", ".join(f"{name} {n}" for name, n in points.items()) or wording.NO_POINTS


def _parse_points(raw: object, allowed: list[str]) -> dict[str, int]:
    if not isinstance(raw, dict) or not raw:
        raise Refused(_("'points' must be an object {{name: points}}").format(), "bad_points")
    points: dict[str, int] = {}
    for name, value in raw.items():
        if name not in allowed:
            raise Refused(
                _("unknown name {name!r} in points; valid: {allowed}").format(
                    name=name, allowed=", ".join(allowed)
                ),
                "unknown_player",
                name=name,
                players=list(allowed),
            )
        if not isinstance(value, int) or isinstance(value, bool):
            raise Refused(
                _("{name}'s points must be a whole number, got {value!r}").format(
                    name=name, value=value
                ),
                "bad_points",
                name=name,
            )
        points[name] = value
    return points


def correct_score(
    conn: sqlite3.Connection, game_id: int, number: int, raw_points: object, reason: object
) -> dict[str, int]:
    """Replace an ended round's points (`{name: points}`, names of players or teams) and
    keep the rules' points in the round's result as `rules_points`. Returns the new points."""
    why = audit.require_reason(reason, _("correcting a score"))
    with transaction(conn):
        get_game(conn, game_id)
        rnd = get_round(conn, game_id, number)
        if rnd["status"] != "ended":
            raise Conflict(
                _("round {number} is not over: only an ended round's score is corrected").format(
                    number=number
                ),
                "round_not_over",
                round=number,
            )
        seats = players(conn, game_id)
        allowed = [p["name"] for p in seats] + sorted({p["team"] for p in seats if p["team"]})
        points = _parse_points(raw_points, allowed)
        before = _points(conn, rnd["id"])
        conn.execute("DELETE FROM scores WHERE round_id = ?", (rnd["id"],))
        by_name = {p["name"]: p["id"] for p in seats}
        for name, value in points.items():
            conn.execute(
                "INSERT INTO scores (round_id, name, player_id, points) VALUES (?, ?, ?, ?)",
                (rnd["id"], name, by_name.get(name), value),
            )
        result = loads(rnd["result"], {}) or {}
        result.setdefault("rules_points", result.get("points") or {})
        result["points"] = points
        result["corrected"] = {"reason": why, "points_before": before}
        conn.execute("UPDATE rounds SET result = ? WHERE id = ?", (dumps(result), rnd["id"]))
        audit.record(
            conn,
            game_id,
            None,
            "score",
            audit.HOST,
            wording.HOST_CORRECTED.format(
                number=number, before=_points_text(before), after=_points_text(points)
            ),
            reason=why,
            detail={"round": number, "before": before, "after": points},
        )
        storage.add_event(conn, game_id, "round", {"action": "score-corrected", "round": number})
        if get_game(conn, game_id)["status"] == "active":
            finish_if_over(conn, game_id)
    return points


def delete_game(conn: sqlite3.Connection, game_id: int) -> None:
    """Delete a game with its players, rounds, hands, scores and audit trail."""
    with transaction(conn):
        get_game(conn, game_id)
        conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        storage.add_event(conn, game_id, "game", {"action": "deleted"})


def _renamed(value: Any, old: str, new: str) -> Any:
    """`value` (parsed JSON) with every string and key equal to `old` replaced by `new`
    (names are unique in a game, so an equal string is that player)."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, dict):
        return {(new if k == old else k): _renamed(v, old, new) for k, v in value.items()}
    return value


def rename_player(conn: sqlite3.Connection, game_id: int, player_id: int, name: object) -> None:
    """Rename a player between rounds; past rounds, scores and rulings follow the new name."""
    new = str(name or "").strip()[:MAX_NAME]
    if not new:
        raise Refused(_("send the new 'name' (text)"), "player_without_name")
    with transaction(conn):
        player = player_by_id(conn, game_id, player_id)
        old = player["name"]
        if new == old:
            return
        _between_rounds(conn, game_id, _("players are renamed"))
        if any(p["name"] == new for p in players(conn, game_id)):
            raise Refused(
                _("two players are called {new!r}; names must differ").format(new=new),
                "duplicate_player",
                name=new,
            )
        conn.execute("UPDATE players SET name = ? WHERE id = ?", (new, player_id))
        conn.execute("UPDATE scores SET name = ? WHERE player_id = ?", (new, player_id))
        rounds = conn.execute(
            "SELECT id, result, layout, pending_end FROM rounds WHERE game_id = ?", (game_id,)
        ).fetchall()
        for r in rounds:
            conn.execute(
                "UPDATE rounds SET result = ?, layout = ?, pending_end = ? WHERE id = ?",
                (
                    *(
                        None if r[k] is None else dumps(_renamed(loads(r[k]), old, new))
                        for k in ("result", "layout", "pending_end")
                    ),
                    r["id"],
                ),
            )
            for c in conn.execute(
                "SELECT id, proposer, verdict, outcome FROM block_checks WHERE round_id = ?",
                (r["id"],),
            ).fetchall():
                conn.execute(
                    "UPDATE block_checks SET proposer = ?, verdict = ?, outcome = ? WHERE id = ?",
                    (
                        new if c["proposer"] == old else c["proposer"],
                        dumps(_renamed(loads(c["verdict"]), old, new)),
                        dumps(_renamed(loads(c["outcome"]), old, new)),
                        c["id"],
                    ),
                )
        # Past entries keep their words; their author and player follow the new name.
        for a in conn.execute(
            "SELECT id, author, detail FROM audit WHERE game_id = ?", (game_id,)
        ).fetchall():
            conn.execute(
                "UPDATE audit SET author = ?, detail = ? WHERE id = ?",
                (
                    new if a["author"] == old else a["author"],
                    dumps(_renamed(loads(a["detail"]), old, new)),
                    a["id"],
                ),
            )
        audit.record(
            conn, game_id, None, "rename", audit.HOST, wording.HOST_RENAMED.format(old=old, new=new)
        )
        storage.add_event(conn, game_id, "game", {"action": "renamed"})


def reorder_players(conn: sqlite3.Connection, game_id: int, order: object) -> None:
    """New clockwise seat order between rounds: `order` lists every player id once."""
    with transaction(conn):
        seats = players(conn, game_id)
        ids = sorted(p["id"] for p in seats)
        if (
            not isinstance(order, list)
            or any(not isinstance(i, int) or isinstance(i, bool) for i in order)
            or sorted(order) != ids
        ):
            raise Refused(
                _("'players' must list every player id once in the new seat order: {ids}").format(
                    ids=ids
                ),
                "bad_seat_order",
                ids=ids,
            )
        _between_rounds(conn, game_id, _("seats change"))
        # Two steps: the (game, seat) pairs are unique at every moment.
        conn.execute("UPDATE players SET seat = seat + 1000 WHERE game_id = ?", (game_id,))
        for seat, player_id in enumerate(order):
            conn.execute("UPDATE players SET seat = ? WHERE id = ?", (seat, player_id))
        names = {p["id"]: p["name"] for p in seats}
        audit.record(
            conn,
            game_id,
            None,
            "reorder",
            audit.HOST,
            wording.HOST_CHANGED_SEATS.format(names=", ".join(names[i] for i in order)),
        )
        storage.add_event(conn, game_id, "game", {"action": "seats"})
