"""Standings across the tables of an event, by the variant's rule.

Each table plays one `dominocam.rules.game.Game` (the variant's `game_end`, `target` and `points`);
its rounds are the ended rounds stored in PostgreSQL. The event's standings add them up:

* per player: the points of the player's scoring unit at their table (the player, or their
  partnership when the variant scores teams);
* per team (the players' `team` in the event file): the points of its players when players
  score, or of the team itself when teams score (counted once per round, not per member);
  a partnership variant's default pairs, when the file gives no teams, are each table's own
  ("t1 A": seats 1 and 3 of table t1).

Ranks follow the variant: the highest total first, or the lowest when lower wins
(penalty scoring, Mexican Train, Chicken Foot). Equal totals share a rank.
"""

from __future__ import annotations

from typing import Any

import psycopg

from dominocam.rules.game import Game, RoundResult
from dominocam.rules.tiles import Tile
from dominocam.tournament.config import EventConfig, TableConfig


def scoring_units(config: EventConfig, table: TableConfig) -> dict[str, str]:
    """Each seated player's scoring unit: themself, or their team when the variant scores
    teams (the four-seat default pairs seats 1-3 and 2-4, as `GameState.teams` does)."""
    if not config.variant.team_scoring:
        return {name: name for name in table.seats}
    teams = [config.player(name).team for name in table.seats]
    if all(team is not None for team in teams):
        return dict(zip(table.seats, teams, strict=True))  # type: ignore[arg-type]
    return {name: "A" if i % 2 == 0 else "B" for i, name in enumerate(table.seats)}


def table_game(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, config: EventConfig
) -> Game:
    """The table's game so far: its ended rounds recorded in order."""
    table = config.table(table_id)
    units = tuple(dict.fromkeys(scoring_units(config, table).values()))
    game = Game(config.variant, units, config.max_pip)
    for row in conn.execute(
        "SELECT result FROM rounds WHERE event_id = %s AND table_id = %s AND status = 'ended' "
        "ORDER BY number",
        (event_id, table_id),
    ):
        game = game.record(_round_result(row["result"]["round"]))
    return game


def _round_result(data: dict[str, Any]) -> RoundResult:
    engine = data.get("engine")
    return RoundResult(
        points=dict(data.get("points", {})),
        winner=data.get("winner"),
        blocked=bool(data.get("blocked", True)),
        engine=None if engine is None else Tile.of(*engine),
        void=bool(data.get("void", False)),
    )


def _ranked(totals: dict[str, int], lower_wins: bool) -> list[dict[str, Any]]:
    order = sorted(totals.items(), key=lambda item: (item[1] if lower_wins else -item[1], item[0]))
    ranked: list[dict[str, Any]] = []
    for index, (name, total) in enumerate(order):
        rank = ranked[-1]["rank"] if ranked and ranked[-1]["total"] == total else index + 1
        ranked.append({"rank": rank, "name": name, "total": total})
    return ranked


def event_standings(
    conn: psycopg.Connection[Any], event_id: int, config: EventConfig
) -> dict[str, Any]:
    """The event's standings: per player, per team, and each table's game.

    Returns:
        `{"event", "variant", "lower_wins", "players": [{"rank", "name", "total", "table",
        "team"}], "teams": [{"rank", "name", "total"}], "tables": [{"id", "name",
        "rounds", "totals", "over", "winners"}]}`. Only ended rounds count, so nothing here
        depends on a hand still in play.
    """
    player_totals: dict[str, int] = {}
    team_totals: dict[str, int] = {}
    tables: list[dict[str, Any]] = []
    lower_wins = False
    team_scoring = config.variant.team_scoring
    for table in config.tables:
        game = table_game(conn, event_id, table.id, config)
        lower_wins = game.lower_wins
        totals = game.totals()
        units = scoring_units(config, table)
        for name in table.seats:
            player_totals[name] = totals[units[name]]
            team = config.player(name).team
            if team is not None and not team_scoring:
                team_totals[team] = team_totals.get(team, 0) + totals[units[name]]
        if team_scoring:
            named = all(config.player(name).team for name in table.seats)
            for unit, total in totals.items():
                # Default pairs (no teams in the file) are this table's own: "t1 A".
                team = unit if named else f"{table.id} {unit}"
                team_totals[team] = team_totals.get(team, 0) + total
        tables.append(
            {
                "id": table.id,
                "name": table.name,
                "rounds": len(game.rounds),
                "totals": totals,
                "over": game.is_over,
                "winners": list(game.winners()),
            }
        )
    players = _ranked(player_totals, lower_wins)
    table_of = {name: t.id for t in config.tables for name in t.seats}
    for entry in players:
        entry["table"] = table_of[entry["name"]]
        entry["team"] = config.player(entry["name"]).team
    return {
        "event": config.name,
        "variant": config.variant_name,
        "lower_wins": lower_wins,
        "players": players,
        "teams": _ranked(team_totals, lower_wins),
        "tables": tables,
    }
