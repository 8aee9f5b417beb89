"""The event's shared state in PostgreSQL (psycopg 3): seats, rounds, hands, Scenes, audit.

Every web process and every worker talks to the same database; nothing lives in a process.
Writes that a retried or duplicated task may repeat are idempotent: a Scene is keyed by
(event, table, frame sequence number) and written with `ON CONFLICT DO NOTHING`, and a
table's newest Scene only moves forward. A table's rounds (the hand lifecycle, rulings,
undo, the audit trail) are `dominocam.tournament.rounds`; standings add each table's
`dominocam.rules.game.Game` totals across tables (`dominocam.tournament.standings`).

Links are stored as their SHA-256 only: a player's `ID.SECRET`, a table host's `hN.SECRET`,
the event director's admin token. Hands are secret: `public_table` shows a confirmed hand's
tile count while its round is open, the tiles only once it has ended.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from dominocam.errors import Refused, UserInputError
from dominocam.i18n import _
from dominocam.rounds.ledger_words import checking, ledger_entry
from dominocam.rounds.lifecycle import Conflict, public_outcome
from dominocam.rules import phrases
from dominocam.tournament.config import EventConfig, parse_config

# A player's link token: their ASCII id, a dot, the url-safe secret (as single-table mode);
# a table host's: `h` and the table's position, a dot, the secret.
PLAYER_TOKEN = re.compile(r"[0-9]{1,9}\.[A-Za-z0-9_-]{16,64}")
HOST_TOKEN = re.compile(r"h[0-9]{1,4}\.[A-Za-z0-9_-]{16,64}")
# Longest admin token looked at (ours are 32 characters): longer ones are simply wrong.
MAX_ADMIN_TOKEN = 256


class RoundConflict(Conflict):
    """The request is well formed but does not fit the round (HTTP 409): no open round,
    a hand missing, hands locked, a ruling waiting, a round that is not blocked."""


@dataclass(frozen=True)
class Player:
    """A seated player of the event."""

    id: int
    name: str
    team: str | None
    table_id: str
    seat: int


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
-- The single-table hand lifecycle (rounds.lifecycle), per table: a pending reading
-- until the owner confirms, the lock, a ruling held until the host confirms it.
ALTER TABLE hands ALTER COLUMN tiles DROP NOT NULL;
ALTER TABLE hands ADD COLUMN IF NOT EXISTS pending jsonb;
ALTER TABLE hands ADD COLUMN IF NOT EXISTS pending_scene jsonb;
ALTER TABLE hands ADD COLUMN IF NOT EXISTS confirmed_at timestamptz;
ALTER TABLE hands ADD COLUMN IF NOT EXISTS declared_cannot_play boolean NOT NULL DEFAULT false;
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS locked_at timestamptz;
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS locked_by text;
-- `locked_by`'s code and parameters (`dominocam.rules.phrases.to_json`): shown in the reader's
-- language (`lock_reason`); NULL for a lock stored before them.
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS locked_words jsonb;
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS pending_end jsonb;
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS last_check jsonb;
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS layout jsonb;
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS boneyard integer;
-- Where the boneyard count comes from (`dominocam.rounds.ledger.boneyard_report`): NULL
-- until the table host enters it ('entered'); a count without a source is not trusted.
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS boneyard_source text;
-- The table host's word on a round that does not add up (`dominocam.rounds.ledger.Override`,
-- JSON {"problems", "reason"}): it holds while the ledger's problems stay those it saw.
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS ledger_override jsonb;
-- Play went on since the hand was confirmed (the host unlocked the hands, or reopened the
-- round): its owner confirms it again, as it is or corrected, before the next ruling.
ALTER TABLE hands ADD COLUMN IF NOT EXISTS to_confirm boolean NOT NULL DEFAULT false;
ALTER TABLE audit ADD COLUMN IF NOT EXISTS round_id integer REFERENCES rounds ON DELETE SET NULL;
ALTER TABLE audit ADD COLUMN IF NOT EXISTS reason text;
-- Each table's host link (`h<position>.SECRET`), stored as its SHA-256 only.
ALTER TABLE event_tables ADD COLUMN IF NOT EXISTS host_hash text;
CREATE INDEX IF NOT EXISTS scenes_stored_at ON scenes (stored_at);
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
    """The tokens of a newly created event, shown once: the admin's (the event director),
    each player's link and each table host's link (by table id)."""

    event_id: int
    admin: str | None
    players: Mapping[str, str]
    hosts: Mapping[str, str] = field(default_factory=dict)


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
        hosts: dict[str, str] = {}
        player_ids: dict[str, int] = {}
        for player in config.players:
            player_ids[player.name] = conn.execute(
                "INSERT INTO players (event_id, name, team, token_hash) "
                "VALUES (%s, %s, %s, %s) RETURNING id",
                (event_id, player.name, player.team, f"unset-{secrets.token_hex(16)}"),
            ).fetchone()["id"]
            tokens[player.name] = _new_player_link(conn, player_ids[player.name])
        for position, table in enumerate(config.tables, start=1):
            hosts[table.id] = f"h{position}.{secrets.token_urlsafe(18)}"
            conn.execute(
                "INSERT INTO event_tables (event_id, id, name, position, host_hash) "
                "VALUES (%s, %s, %s, %s, %s)",
                (event_id, table.id, table.name, position, hash_token(hosts[table.id])),
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
    return EventTokens(event_id, admin, tokens, hosts)


def _new_player_link(conn: psycopg.Connection[Any], player_id: int) -> str:
    token = f"{player_id}.{secrets.token_urlsafe(18)}"
    conn.execute("UPDATE players SET token_hash = %s WHERE id = %s", (hash_token(token), player_id))
    return token


def new_player_link(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, seat: int
) -> dict[str, Any]:
    """A new link for the player in `seat` of a table, revoking the old one (only its hash
    is kept, so an old link cannot be shown again: the host makes a new one).

    Raises:
        UserInputError: no such seat at the table.
    """
    with conn.transaction():
        player = seat_player(conn, event_id, table_id, seat)
        if player is None:
            raise Refused(
                _("table {table} has no seat {seat}").format(table=table_id, seat=seat),
                "no_seat",
                table=table_id,
                seat=seat,
            )
        return {"seat": seat, "name": player.name, "token": _new_player_link(conn, player.id)}


def seat_player(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, seat: int
) -> Player | None:
    """The player in `seat` of a table, or None when the table has no such seat."""
    row = conn.execute(
        "SELECT p.id, p.name, p.team FROM seats s JOIN players p ON p.id = s.player_id "
        "WHERE s.event_id = %s AND s.table_id = %s AND s.seat = %s",
        (event_id, table_id, seat),
    ).fetchone()
    return None if row is None else Player(row["id"], row["name"], row["team"], table_id, seat)


def new_host_link(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> str:
    """A new host link for a table (the event director makes it), revoking the old one."""
    with conn.transaction():
        row = conn.execute(
            "SELECT position FROM event_tables WHERE event_id = %s AND id = %s FOR UPDATE",
            (event_id, table_id),
        ).fetchone()
        if row is None:
            raise Refused(
                _("no table {table} in the event").format(table=repr(table_id)),
                "no_table",
                table=table_id,
            )
        token = f"h{row['position']}.{secrets.token_urlsafe(18)}"
        conn.execute(
            "UPDATE event_tables SET host_hash = %s WHERE event_id = %s AND id = %s",
            (hash_token(token), event_id, table_id),
        )
    return token


def event_config(conn: psycopg.Connection[Any], event_id: int) -> EventConfig:
    row = conn.execute("SELECT config FROM events WHERE id = %s", (event_id,)).fetchone()
    if row is None:
        raise Refused(f"no event {event_id}", "no_event", event_id=event_id)
    return parse_config(row["config"])


def event_id_by_name(conn: psycopg.Connection[Any], name: str) -> int:
    row = conn.execute("SELECT id FROM events WHERE name = %s", (name,)).fetchone()
    if row is None:
        raise UserInputError(f"no event called {name!r} in the database")
    return int(row["id"])


def is_admin(conn: psycopg.Connection[Any], event_id: int, token: str) -> bool:
    if len(token) > MAX_ADMIN_TOKEN or not token.isascii():
        return False
    row = conn.execute("SELECT admin_hash FROM events WHERE id = %s", (event_id,)).fetchone()
    return row is not None and secrets.compare_digest(row["admin_hash"], hash_token(token))


def host_table(conn: psycopg.Connection[Any], event_id: int, token: str) -> str | None:
    """The table whose host link carries `token`, or None (malformed, forged, revoked)."""
    if not HOST_TOKEN.fullmatch(token):
        return None
    row = conn.execute(
        "SELECT id, host_hash FROM event_tables WHERE event_id = %s AND position = %s",
        (event_id, int(token[1:].partition(".")[0])),
    ).fetchone()
    if row is None or not secrets.compare_digest(row["host_hash"] or "", hash_token(token)):
        return None
    return str(row["id"])


def player_by_token(conn: psycopg.Connection[Any], event_id: int, token: str) -> Player | None:
    """The seated player whose link carries `token`, or None (malformed, forged, revoked:
    any text, Unicode digits or a megabyte of it, is simply not a link)."""
    if not PLAYER_TOKEN.fullmatch(token):
        return None
    row = conn.execute(
        "SELECT p.id, p.name, p.team, p.token_hash, s.table_id, s.seat FROM players p "
        "JOIN seats s ON s.player_id = p.id WHERE p.event_id = %s AND p.id = %s",
        (event_id, int(token.partition(".")[0])),
    ).fetchone()
    if row is None or not secrets.compare_digest(row["token_hash"], hash_token(token)):
        return None
    return Player(row["id"], row["name"], row["team"], row["table_id"], row["seat"])


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


# --- what anyone may see ------------------------------------------------------------------


def public_table(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> dict[str, Any]:
    """What anyone may see of a table: seats; per round each confirmed hand's tile count
    while the round is open (a photo awaiting its owner's confirmation counts as no hand),
    whose hands are to be confirmed again (play went on), whether the hands are locked, the
    ruling held for the host, whether the table host is checking the round (`checking`: no
    tile, no hand) and the last block check (who stopped it, not with which tile); every
    ended round with its hands, result and ledger; the newest Scene's sequence."""
    config = event_config(conn, event_id)
    try:
        table = config.table(table_id)
    except KeyError:
        raise Refused(
            _("no table {table} in the event").format(table=repr(table_id)),
            "no_table",
            table=table_id,
        ) from None
    rounds = []
    for row in conn.execute(
        "SELECT id, number, status, ended_by, result, locked_at, locked_by, locked_words, "
        "pending_end, last_check FROM rounds WHERE event_id = %s AND table_id = %s ORDER BY number",
        (event_id, table_id),
    ).fetchall():
        confirmed = conn.execute(
            "SELECT p.name, h.tiles, h.to_confirm FROM hands h JOIN players p "
            "ON p.id = h.player_id WHERE h.round_id = %s AND h.confirmed_at IS NOT NULL",
            (row["id"],),
        ).fetchall()
        counts = {h["name"]: len(h["tiles"]) for h in confirmed}
        again = {h["name"] for h in confirmed if h["to_confirm"]}
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
            entry["ledger"] = ledger_entry(row["result"].get("ledger"), config.max_pip)
        else:
            entry["to_confirm"] = [name for name in table.seats if name in again]
            # Stored English, with the sentence's code beside it (pages write it in their
            # reader's language: `dominocam.tournament.web.services.shown_table`).
            entry["locked"] = lock_reason(row)
            entry["locked_words"] = phrases.to_json(entry["locked"])
            entry["pending"] = held_text(row["pending_end"])
            entry["pending_words"] = phrases.to_json(entry["pending"])
            entry["checking"] = checking(row["pending_end"])
            entry["last_check"] = (
                None if row["last_check"] is None else public_outcome(row["last_check"])
            )
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


def held_text(pending: Mapping[str, Any] | None) -> str | None:
    """A held ruling's text as its `dominocam.rules.phrases.Phrase` (its `words`), shown in the
    reader's language; as stored when it has no words."""
    if pending is None:
        return None
    return phrases.stored(str(pending["text"]), pending.get("words"))


def lock_reason(rnd: Mapping[str, Any]) -> str | None:
    """Why a round's hands are locked (None while they are not): the stored English
    `locked_by` as a `dominocam.rules.phrases.Phrase` with its code and parameters
    (`locked_words`), or as plain text for a lock stored before them (as
    `dominocam.server.game.records.lock_reason`)."""
    if rnd["locked_at"] is None:
        return None
    return phrases.stored(str(rnd["locked_by"] or ""), rnd.get("locked_words"))


def locked_words(reason: str | None) -> Jsonb | None:
    """`rounds.locked_words` for a lock's reason (None to unlock, or for plain text)."""
    words = phrases.to_json(reason)
    return None if words is None else Jsonb(words)


def dumps(data: object) -> str:
    """Compact JSON for Redis messages and SSE."""
    return json.dumps(data, separators=(",", ":"))
