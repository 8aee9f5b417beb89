"""Points per round, totals, and where the game stands by its variant's end rule
(`rules.Game` through `engine.game_progress`)."""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.i18n import _, format_number, ngettext
from dominocam.server import engine, storage
from dominocam.server.game.records import get_game, players
from dominocam.server.storage import loads


def _ended_rounds(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """The ended rounds in order: number, ended_by, winner, void and points per name."""
    points: dict[int, dict[str, int]] = {}
    for row in conn.execute(
        "SELECT s.round_id, s.name, s.points FROM scores s JOIN rounds r ON r.id = s.round_id "
        "WHERE r.game_id = ?",
        (game_id,),
    ):
        points.setdefault(row["round_id"], {})[row["name"]] = row["points"]
    ended = conn.execute(
        "SELECT id, number, ended_by, result FROM rounds WHERE game_id = ? AND status = 'ended' "
        "ORDER BY number",
        (game_id,),
    ).fetchall()
    out = []
    for r in ended:
        result = loads(r["result"], {}) or {}
        out.append(
            {
                "number": r["number"],
                "ended_by": r["ended_by"],
                "winner": result.get("winner"),
                "void": bool(result.get("void")),
                "points": points.get(r["id"], {}),
            }
        )
    return out


def game_progress(conn: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    """Where the game stands by its variant's end rule (`engine.game_progress`); None when its
    rounds do not fit the rule (a game that went on before games ended by themselves)."""
    game = get_game(conn, game_id)
    seats = [(p["name"], p["team"]) for p in players(conn, game_id)]
    rounds = [
        {
            "points": r["points"],
            "winner": r["winner"],
            "blocked": r["ended_by"] == "block",
            "void": r["void"],
        }
        for r in _ended_rounds(conn, game_id)
    ]
    try:
        return engine.game_progress(
            game["variant"], loads(game["rules"], {}), game["set_max"], seats, rounds
        )
    except ValueError:  # UserInputError and the like: never let it stop a round from ending
        return None


def finish_if_over(conn: sqlite3.Connection, game_id: int) -> None:
    """Mark the game finished when its variant says it is over (inside a transaction)."""
    progress = game_progress(conn, game_id)
    if progress is None or not progress["over"]:
        return
    conn.execute("UPDATE games SET status = 'finished' WHERE id = ?", (game_id,))
    storage.add_event(
        conn, game_id, "game", {"action": "finished", "by": "rules", "winners": progress["winners"]}
    )


def _names(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return _("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def final_result(
    progress: dict[str, Any] | None, set_max: int, status: str
) -> dict[str, Any] | None:
    """The game's final result once it is finished (None while it is played): the winners,
    whether the variant (`by: "rules"`) or the table (`"table"`) ended it, and a sentence
    (in the current language, dominocam.i18n: the state is computed per language)."""
    if status == "active":
        return None
    if progress is None:
        return {"winners": [], "by": "table", "text": _("The game is finished.")}
    lower = progress["lower_wins"]
    standings = progress["standings"]
    played = progress["rounds_played"]
    if progress["over"]:
        winners, by = progress["winners"], "rules"
        if progress["end"] == "descending-doubles":
            why = _(
                "all {rounds} rounds are played (one per double, {set}-{set} down to 0-0)"
            ).format(rounds=progress["planned_rounds"], set=set_max)
        else:
            why = _("the target of {target} points is reached").format(
                target=format_number(progress["target"])
            )
    else:
        best = standings[0][1] if standings and played else None
        winners = [name for name, total in standings if total == best] if played else []
        by = "table"
        why = ngettext(
            "the table ended it after {count} round",
            "the table ended it after {count} rounds",
            played,
        ).format(count=played)
    total = dict(standings).get(winners[0]) if winners else None
    params = {"why": why, "name": _names(winners) if winners else "", "total": total}
    if total is not None:
        params["total"] = format_number(total)
    if not winners:
        text = _("Finished: {why}, before any round was scored.").format(**params)
    elif len(winners) == 1:
        text = (
            _("Finished: {why}. {name} wins with the lowest total, {total}.")
            if lower
            else _("Finished: {why}. {name} wins with the highest total, {total}.")
        ).format(**params)
    else:
        text = (
            _("Finished: {why}. {name} tie for the lowest total, {total}.")
            if lower
            else _("Finished: {why}. {name} tie for the highest total, {total}.")
        ).format(**params)
    return {"winners": winners, "by": by, "text": text}


def scoreboard(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """Points per round and cumulative totals, keyed by player (or team) name, with how the
    game ends (`end`: the variant's rule, rounds played) and, once finished, `final`."""
    game = get_game(conn, game_id)
    ended = _ended_rounds(conn, game_id)
    columns = [p["name"] for p in players(conn, game_id)]
    for r in ended:
        columns += [name for name in r["points"] if name not in columns]
    totals = dict.fromkeys(columns, 0)
    for r in ended:
        for name, points in r["points"].items():
            totals[name] += points
    progress = game_progress(conn, game_id)
    end = None
    if progress is not None:
        end = {
            k: progress[k]
            for k in ("end", "planned_rounds", "target", "lower_wins", "rounds_played", "over")
        }
    return {
        "columns": columns,
        "rounds": [{k: r[k] for k in ("number", "ended_by", "winner", "points")} for r in ended],
        "totals": totals,
        "end": end,
        "final": final_result(progress, game["set_max"], game["status"]),
    }
