"""The event's shared state in PostgreSQL (psycopg 3): seats, rounds, hands, Scenes, audit.

Every web process and every worker talks to the same database; nothing lives in a process.
Writes that a retried or duplicated task may repeat are idempotent: a Scene is keyed by
(event, table, frame sequence number) and written with `ON CONFLICT DO NOTHING`, and a
table's newest Scene only moves forward. Rounds are ruled by the `rules` package (the
blocked-game check and the variant's scoring); standings add its `rules.game.Game` totals
across tables (`tournament.standings`).

Hands are secret: `public_table` shows a hand's tile count while its round is open, the tiles
only once it has ended; `own_hand` answers a player about their own hand only.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from dominocam.errors import UserInputError
from rules.blocked import check
from rules.game import RoundResult
from rules.scoring import score_domino
from rules.state import parse_state
from rules.tiles import parse_tile
from tournament.config import EventConfig, parse_config


class RoundConflict(UserInputError):
    """The request is well formed but does not fit the round (HTTP 409): no open round,
    a hand missing, a round that is not blocked."""


SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id          serial PRIMARY KEY,
    name        text UNIQUE NOT NULL,
    config      jsonb NOT NULL,
    admin_hash  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS players (
    id          serial PRIMARY KEY,
    event_id    integer NOT NULL REFERENCES events ON DELETE CASCADE,
    name        text NOT NULL,
    team        text,
    token_hash  text UNIQUE NOT NULL,
    UNIQUE (event_id, name)
);
CREATE TABLE IF NOT EXISTS event_tables (
    event_id    integer NOT NULL REFERENCES events ON DELETE CASCADE,
    id          text NOT NULL,
    name        text NOT NULL,
    position    integer NOT NULL,
    latest_seq  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, id)
);
CREATE TABLE IF NOT EXISTS seats (
    event_id    integer NOT NULL,
    table_id    text NOT NULL,
    seat        integer NOT NULL,
    player_id   integer NOT NULL UNIQUE REFERENCES players ON DELETE CASCADE,
    PRIMARY KEY (event_id, table_id, seat),
    FOREIGN KEY (event_id, table_id) REFERENCES event_tables ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS rounds (
    id          serial PRIMARY KEY,
    event_id    integer NOT NULL,
    table_id    text NOT NULL,
    number      integer NOT NULL,
    status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'ended')),
    ended_by    text CHECK (ended_by IN ('block', 'domino')),
    result      jsonb,
    opened_at   timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz,
    UNIQUE (event_id, table_id, number),
    FOREIGN KEY (event_id, table_id) REFERENCES event_tables ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS hands (
    round_id     integer NOT NULL REFERENCES rounds ON DELETE CASCADE,
    player_id    integer NOT NULL REFERENCES players ON DELETE CASCADE,
    tiles        jsonb NOT NULL,
    submitted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (round_id, player_id)
);
CREATE TABLE IF NOT EXISTS scenes (
    event_id    integer NOT NULL,
    table_id    text NOT NULL,
    seq         bigint NOT NULL,
    scene       jsonb NOT NULL,
    sent_at     double precision NOT NULL,
    read_s      double precision NOT NULL,
    worker      text NOT NULL,
    stored_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, table_id, seq),
    FOREIGN KEY (event_id, table_id) REFERENCES event_tables ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS audit (
    id          bigserial PRIMARY KEY,
    event_id    integer NOT NULL REFERENCES events ON DELETE CASCADE,
    table_id    text,
    at          timestamptz NOT NULL DEFAULT now(),
    author      text NOT NULL,
    action      text NOT NULL,
    detail      jsonb NOT NULL
);
"""

# Serialises the schema's creation between processes starting at once.
SCHEMA_LOCK = 20_1201


def connect(url: str) -> psycopg.Connection[dict[str, Any]]:
    """A connection in autocommit mode that returns rows as dicts.

    Raises:
        UserInputError: the database cannot be reached (the message names the URL's host).
    """
    try:
        return psycopg.connect(url, autocommit=True, row_factory=dict_row, connect_timeout=10)
    except psycopg.OperationalError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "refused"
        raise UserInputError(f"cannot reach PostgreSQL at {_safe_url(url)}: {first}") from error


def _safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':', 1)[0]}@{host}"
    return url


def migrate(conn: psycopg.Connection[Any]) -> None:
    """Create the tables when missing (idempotent, safe with several processes at once)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        conn.execute(SCHEMA)


def hash_token(token: str) -> str:
    """The stored form of a token: the database alone cannot recreate the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class EventTokens:
    """The tokens of a newly created event, shown once: the admin's and each player's."""

    event_id: int
    admin: str | None
    players: Mapping[str, str]


def load_event(conn: psycopg.Connection[Any], config: EventConfig) -> EventTokens:
    """Create the event of `config` (its players, tables, seats and each table's round 1).

    An event already in the database under the same name and configuration is reused (its
    tokens are not shown again); the same name with another configuration is refused.

    Raises:
        UserInputError: an event of that name exists with another configuration.
    """
    migrate(conn)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        row = conn.execute(
            "SELECT id, config FROM events WHERE name = %s", (config.name,)
        ).fetchone()
        if row is not None:
            if row["config"] != config.to_json():
                raise UserInputError(
                    f"event {config.name!r} already exists with other tables, seats or rules; "
                    "give the new configuration another event name"
                )
            return EventTokens(row["id"], None, {})
        admin = secrets.token_urlsafe(24)
        event_id = conn.execute(
            "INSERT INTO events (name, config, admin_hash) VALUES (%s, %s, %s) RETURNING id",
            (config.name, Jsonb(config.to_json()), hash_token(admin)),
        ).fetchone()["id"]
        tokens: dict[str, str] = {}
        player_ids: dict[str, int] = {}
        for player in config.players:
            tokens[player.name] = secrets.token_urlsafe(24)
            player_ids[player.name] = conn.execute(
                "INSERT INTO players (event_id, name, team, token_hash) "
                "VALUES (%s, %s, %s, %s) RETURNING id",
                (event_id, player.name, player.team, hash_token(tokens[player.name])),
            ).fetchone()["id"]
        for position, table in enumerate(config.tables, start=1):
            conn.execute(
                "INSERT INTO event_tables (event_id, id, name, position) VALUES (%s, %s, %s, %s)",
                (event_id, table.id, table.name, position),
            )
            for seat, name in enumerate(table.seats, start=1):
                conn.execute(
                    "INSERT INTO seats (event_id, table_id, seat, player_id) "
                    "VALUES (%s, %s, %s, %s)",
                    (event_id, table.id, seat, player_ids[name]),
                )
            conn.execute(
                "INSERT INTO rounds (event_id, table_id, number) VALUES (%s, %s, 1)",
                (event_id, table.id),
            )
        _audit(conn, event_id, None, "setup", "event created", {"tables": len(config.tables)})
    return EventTokens(event_id, admin, tokens)


def event_config(conn: psycopg.Connection[Any], event_id: int) -> EventConfig:
    row = conn.execute("SELECT config FROM events WHERE id = %s", (event_id,)).fetchone()
    if row is None:
        raise UserInputError(f"no event {event_id}")
    return parse_config(row["config"])


def event_id_by_name(conn: psycopg.Connection[Any], name: str) -> int:
    row = conn.execute("SELECT id FROM events WHERE name = %s", (name,)).fetchone()
    if row is None:
        raise UserInputError(f"no event called {name!r} in the database")
    return int(row["id"])


def is_admin(conn: psycopg.Connection[Any], event_id: int, token: str) -> bool:
    row = conn.execute("SELECT admin_hash FROM events WHERE id = %s", (event_id,)).fetchone()
    return row is not None and secrets.compare_digest(row["admin_hash"], hash_token(token))


def _audit(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str | None,
    author: str,
    action: str,
    detail: Mapping[str, object],
) -> None:
    conn.execute(
        "INSERT INTO audit (event_id, table_id, author, action, detail) "
        "VALUES (%s, %s, %s, %s, %s)",
        (event_id, table_id, author, action, Jsonb(dict(detail))),
    )


# --- Scenes --------------------------------------------------------------------------------


def store_scene(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str,
    seq: int,
    scene: Mapping[str, object],
    *,
    sent_at: float,
    read_s: float,
    worker: str,
) -> bool:
    """Store the Scene read from frame `seq` of a table; False when it was already stored.

    The table's newest Scene moves only forward, so a slow worker finishing an older frame
    after a faster one never puts the table back in time.
    """
    with conn.transaction():
        inserted = conn.execute(
            "INSERT INTO scenes (event_id, table_id, seq, scene, sent_at, read_s, worker) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING seq",
            (event_id, table_id, seq, Jsonb(dict(scene)), sent_at, read_s, worker),
        ).fetchone()
        if inserted is None:
            return False
        conn.execute(
            "UPDATE event_tables SET latest_seq = %s "
            "WHERE event_id = %s AND id = %s AND latest_seq < %s",
            (seq, event_id, table_id, seq),
        )
    return True


def latest_scene(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, after: int = 0
) -> dict[str, Any] | None:
    """The table's newest Scene as `{"seq", "scene"}`, or None (none yet, or none after `after`)."""
    return conn.execute(
        "SELECT s.seq, s.scene FROM event_tables t JOIN scenes s "
        "ON s.event_id = t.event_id AND s.table_id = t.id AND s.seq = t.latest_seq "
        "WHERE t.event_id = %s AND t.id = %s AND t.latest_seq > %s",
        (event_id, table_id, after),
    ).fetchone()


# --- rounds and hands ------------------------------------------------------------------------


def _open_round(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> dict[str, Any]:
    """The table's open round, locked for this transaction."""
    row = conn.execute(
        "SELECT id, number FROM rounds WHERE event_id = %s AND table_id = %s AND status = 'open' "
        "FOR UPDATE",
        (event_id, table_id),
    ).fetchone()
    if row is None:
        raise RoundConflict(f"table {table_id} has no open round (its game is over)")
    return row


def player_by_token(conn: psycopg.Connection[Any], event_id: int, token: str) -> dict[str, Any]:
    """The player whose link carries `token` (with their table and seat).

    Raises:
        UserInputError: no player of the event has that token.
    """
    row = conn.execute(
        "SELECT p.id, p.name, p.team, s.table_id, s.seat FROM players p "
        "JOIN seats s ON s.player_id = p.id WHERE p.event_id = %s AND p.token_hash = %s",
        (event_id, hash_token(token)),
    ).fetchone()
    if row is None:
        raise PermissionError("this player link is not valid for the event")
    return row


def submit_hand(
    conn: psycopg.Connection[Any], event_id: int, token: str, tiles: Sequence[object]
) -> dict[str, Any]:
    """Store the hand of the player whose link carries `token`, for their table's open round.

    Returns:
        `{"table", "round", "tiles": count}` (the tiles themselves are never echoed to others).

    Raises:
        PermissionError: the token is not a player's of this event.
        UserInputError: a tile is not of the event's set, or a tile appears twice.
    """
    config = event_config(conn, event_id)
    player = player_by_token(conn, event_id, token)
    if not isinstance(tiles, list | tuple):
        raise UserInputError("tiles must be a list of [a, b] pairs")
    parsed = [parse_tile(t, config.max_pip) for t in tiles]
    if len(set(parsed)) != len(parsed):
        raise UserInputError("a tile appears twice in the hand")
    with conn.transaction():
        current = _open_round(conn, event_id, player["table_id"])
        conn.execute(
            "INSERT INTO hands (round_id, player_id, tiles) VALUES (%s, %s, %s) "
            "ON CONFLICT (round_id, player_id) DO UPDATE SET tiles = EXCLUDED.tiles, "
            "submitted_at = now()",
            (current["id"], player["id"], Jsonb([t.as_list() for t in parsed])),
        )
        _audit(
            conn,
            event_id,
            player["table_id"],
            player["name"],
            "hand",
            {"round": current["number"], "tiles": len(parsed)},
        )
    return {"table": player["table_id"], "round": current["number"], "tiles": len(parsed)}


def own_hand(conn: psycopg.Connection[Any], event_id: int, token: str) -> dict[str, Any]:
    """The player's own hand in their table's latest round (nobody else's)."""
    player = player_by_token(conn, event_id, token)
    row = conn.execute(
        "SELECT r.number, h.tiles FROM rounds r LEFT JOIN hands h "
        "ON h.round_id = r.id AND h.player_id = %s "
        "WHERE r.event_id = %s AND r.table_id = %s ORDER BY r.number DESC LIMIT 1",
        (player["id"], event_id, player["table_id"]),
    ).fetchone()
    return {
        "name": player["name"],
        "table": player["table_id"],
        "round": row["number"],
        "hand": row["tiles"],
    }


def end_round(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str,
    *,
    ended_by: str,
    layout: Mapping[str, object] | None = None,
    boneyard: int = 0,
    proposer: str | None = None,
    winner: str | None = None,
    author: str = "admin",
) -> dict[str, Any]:
    """Rule on the table's open round from its hands and the given table, and end it.

    The game state is built from the seats (clockwise, with their teams), every player's
    stored hand, `layout` and `boneyard`, and judged by the rules engine: `block` must be a
    blocked round (`rules.blocked.check`), `domino` is scored with `rules.scoring.score_domino`
    for `winner`. The next round opens unless the table's game is over.

    Returns:
        `{"round", "result" (RoundResult JSON), "verdict" (block only), "next_round"}`.

    Raises:
        UserInputError: a hand is missing, the state is invalid, the round is not blocked,
            or the table's game is over.
    """
    from tournament.standings import table_game

    if ended_by not in ("block", "domino"):
        raise UserInputError("ended_by must be block or domino")
    config = event_config(conn, event_id)
    try:
        table = config.table(table_id)
    except KeyError:
        raise UserInputError(f"no table {table_id!r} in the event") from None
    with conn.transaction():
        current = _open_round(conn, event_id, table_id)
        hands = {
            row["name"]: row["tiles"]
            for row in conn.execute(
                "SELECT p.name, h.tiles FROM hands h JOIN players p ON p.id = h.player_id "
                "WHERE h.round_id = %s",
                (current["id"],),
            )
        }
        missing = [name for name in table.seats if name not in hands]
        if missing:
            raise RoundConflict(f"hands missing for {', '.join(missing)}")
        state_json: dict[str, Any] = {
            "variant": config.variant_name,
            "rules": dict(config.rules),
            "set": config.max_pip,
            "players": [
                {
                    "name": name,
                    "hand": hands[name],
                    **({"team": config.player(name).team} if config.player(name).team else {}),
                }
                for name in table.seats
            ],
            "layout": dict(layout or {"lines": []}),
            "boneyard": boneyard,
        }
        if proposer is not None:
            state_json["proposer"] = proposer
        state = parse_state(state_json)
        game = table_game(conn, event_id, table_id, config)
        verdict_json: dict[str, object] | None = None
        if ended_by == "block":
            verdict = check(state)
            if not verdict.blocked:
                raise RoundConflict("the round is not blocked: a player can still play or draw")
            result = RoundResult.from_verdict(verdict, engine=game.next_engine())
            verdict_json = verdict.to_json()
        else:
            if winner is None:
                raise UserInputError("a domino names its winner")
            result = RoundResult.from_score(
                score_domino(state, winner), blocked=False, engine=game.next_engine()
            )
        game = game.record(result)
        conn.execute(
            "UPDATE rounds SET status = 'ended', ended_by = %s, result = %s, ended_at = now() "
            "WHERE id = %s",
            (
                ended_by,
                Jsonb({"round": result.to_json(), "verdict": verdict_json, "state": state_json}),
                current["id"],
            ),
        )
        next_round = None
        if not game.is_over:
            next_round = current["number"] + 1
            conn.execute(
                "INSERT INTO rounds (event_id, table_id, number) VALUES (%s, %s, %s)",
                (event_id, table_id, next_round),
            )
        _audit(
            conn,
            event_id,
            table_id,
            author,
            "round-ended",
            {"round": current["number"], "ended_by": ended_by, "points": dict(result.points)},
        )
    return {
        "round": current["number"],
        "result": result.to_json(),
        "verdict": verdict_json,
        "next_round": next_round,
    }


def reopen_last_round(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str,
    *,
    reason: str,
    author: str = "admin",
) -> dict[str, Any]:
    """Undo the table's last ended round: it is open again (its hands kept, its result
    removed, so the standings lose its points), and the round opened after it goes.

    Raises:
        UserInputError: no reason given.
        RoundConflict: no round has ended, or the next round already has hands.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise UserInputError("say why the round is reopened (reason)")
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, number, status, result FROM rounds WHERE event_id = %s AND table_id = %s "
            "ORDER BY number DESC LIMIT 2 FOR UPDATE",
            (event_id, table_id),
        ).fetchall()
        ended = next((r for r in rows if r["status"] == "ended"), None)
        if ended is None:
            raise RoundConflict(f"table {table_id} has no ended round to reopen")
        later = [r for r in rows if r["number"] > ended["number"]]
        for row in later:
            has_hands = conn.execute(
                "SELECT 1 FROM hands WHERE round_id = %s LIMIT 1", (row["id"],)
            ).fetchone()
            if has_hands:
                raise RoundConflict(f"round {row['number']} already has hands; it cannot be undone")
            conn.execute("DELETE FROM rounds WHERE id = %s", (row["id"],))
        conn.execute(
            "UPDATE rounds SET status = 'open', ended_by = NULL, result = NULL, ended_at = NULL "
            "WHERE id = %s",
            (ended["id"],),
        )
        _audit(
            conn,
            event_id,
            table_id,
            author,
            "round-reopened",
            {
                "round": ended["number"],
                "reason": reason.strip(),
                "points_removed": ended["result"]["round"]["points"],
            },
        )
    return {"round": ended["number"], "status": "open"}


def audit_trail(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> list[dict]:
    """The table's audit trail, oldest first: who did what when (hands as tile counts)."""
    return [
        {
            "at": row["at"].isoformat(),
            "author": row["author"],
            "action": row["action"],
            "detail": row["detail"],
        }
        for row in conn.execute(
            "SELECT at, author, action, detail FROM audit WHERE event_id = %s AND table_id = %s "
            "ORDER BY id",
            (event_id, table_id),
        )
    ]


def public_table(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> dict[str, Any]:
    """What anyone may see of a table: seats, each hand's tile count while its round is
    open, every ended round with its hands and result, and the newest Scene's sequence."""
    config = event_config(conn, event_id)
    try:
        table = config.table(table_id)
    except KeyError:
        raise UserInputError(f"no table {table_id!r} in the event") from None
    rounds = []
    for row in conn.execute(
        "SELECT id, number, status, ended_by, result FROM rounds "
        "WHERE event_id = %s AND table_id = %s ORDER BY number",
        (event_id, table_id),
    ).fetchall():
        counts = {
            h["name"]: len(h["tiles"])
            for h in conn.execute(
                "SELECT p.name, h.tiles FROM hands h JOIN players p ON p.id = h.player_id "
                "WHERE h.round_id = %s",
                (row["id"],),
            )
        }
        entry: dict[str, Any] = {
            "number": row["number"],
            "status": row["status"],
            "tiles": {name: counts.get(name) for name in table.seats},
        }
        if row["status"] == "ended":
            state = row["result"]["state"]
            entry["ended_by"] = row["ended_by"]
            entry["hands"] = {p["name"]: p["hand"] for p in state["players"]}
            entry["result"] = row["result"]["round"]
        rounds.append(entry)
    latest = conn.execute(
        "SELECT latest_seq FROM event_tables WHERE event_id = %s AND id = %s",
        (event_id, table_id),
    ).fetchone()
    return {
        "id": table.id,
        "name": table.name,
        "seats": [
            {"seat": i, "name": name, "team": config.player(name).team}
            for i, name in enumerate(table.seats, start=1)
        ],
        "rounds": rounds,
        "latest_seq": latest["latest_seq"],
    }


def dumps(data: object) -> str:
    """Compact JSON for Redis messages and SSE."""
    return json.dumps(data, separators=(",", ":"))
