"""SQLite storage: games, players, rounds, hands, block checks, scores and the event log.

One connection per request (Flask `g`), opened with `check_same_thread=False` off and WAL on,
so that a killed server loses nothing that was committed. The schema is versioned: the
`schema_version` table holds the number of migrations applied, and `MIGRATIONS` lists them in
order; `migrate()` applies the missing ones in one transaction each.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dominocam.errors import Refused

# Each entry is the SQL of one schema version; never edit one that has shipped, append instead.
MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema.
    """
    CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE games (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        name       TEXT NOT NULL,
        variant    TEXT NOT NULL,
        rules      TEXT NOT NULL DEFAULT '{}',      -- JSON: overrides of the variant's settings
        set_max    INTEGER NOT NULL,
        status     TEXT NOT NULL DEFAULT 'active',  -- active | finished
        created_at REAL NOT NULL
    );
    CREATE TABLE players (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL,                    -- 0.. in clockwise order
        name    TEXT NOT NULL,
        team    TEXT,
        salt    TEXT NOT NULL,                       -- rotating it revokes the player's link
        UNIQUE (game_id, seat),
        UNIQUE (game_id, name)
    );
    CREATE TABLE rounds (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        number      INTEGER NOT NULL,
        status      TEXT NOT NULL DEFAULT 'open',    -- open | ended
        engine      INTEGER,                         -- Mexican Train: the round's engine double
        boneyard    INTEGER NOT NULL DEFAULT 0,      -- drawable tiles left
        layout      TEXT NOT NULL DEFAULT '[]',      -- JSON: rules-engine lines (name, open_end..)
        table_scene TEXT,                            -- JSON: the Scene of the table, corrected
        table_image TEXT,                            -- file name under the upload folder
        ended_by    TEXT,                            -- block | domino
        result      TEXT,                            -- JSON: verdict or domino scoring
        started_at  REAL NOT NULL,
        ended_at    REAL,
        UNIQUE (game_id, number)
    );
    CREATE TABLE hands (
        round_id    INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        player_id   INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        tiles       TEXT NOT NULL DEFAULT '[]',      -- JSON list of [a, b], corrected
        scene       TEXT,                            -- JSON: the Scene read from the photo
        image       TEXT,
        submitted   INTEGER NOT NULL DEFAULT 0,      -- 1 once tiles were saved (even none)
        declared_cannot_play INTEGER NOT NULL DEFAULT 0,
        updated_at  REAL NOT NULL,
        PRIMARY KEY (round_id, player_id)
    );
    CREATE TABLE block_checks (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id   INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        proposer   TEXT NOT NULL,
        verdict    TEXT NOT NULL,                    -- JSON: the rules engine's verdict
        outcome    TEXT NOT NULL,                    -- JSON: what the dashboard shows
        created_at REAL NOT NULL
    );
    CREATE TABLE scores (
        round_id  INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        name      TEXT NOT NULL,                     -- a player, or a team in team variants
        player_id INTEGER REFERENCES players(id) ON DELETE CASCADE,
        points    INTEGER NOT NULL,
        PRIMARY KEY (round_id, name)
    );
    CREATE TABLE events (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id    INTEGER,
        type       TEXT NOT NULL,
        payload    TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL
    );
    """,
    # 2: the live camera's confirmed changes of the table (vision.track), kept per round, and
    # whether the round's lines were entered by hand (the camera then leaves them alone).
    """
    CREATE TABLE table_events (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id   INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        kind       TEXT NOT NULL,                    -- added | removed | changed
        track      INTEGER NOT NULL,                 -- the tracker's id of the tile
        text       TEXT NOT NULL,                    -- one sentence for people
        event      TEXT NOT NULL,                    -- JSON: TableEvent.to_dict() + kept
        created_at REAL NOT NULL
    );
    CREATE INDEX table_events_by_round ON table_events (round_id, id);
    ALTER TABLE rounds ADD COLUMN lines_by_hand INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: hands confirmed by their owner, then locked; rulings confirmed before scoring; the
    # host's table check; and the audit trail of every change after confirmation.
    """
    ALTER TABLE hands ADD COLUMN confirmed_at REAL;      -- when the owner (or host) confirmed
    ALTER TABLE hands ADD COLUMN pending TEXT;           -- JSON tiles of a new photo, unconfirmed
    ALTER TABLE hands ADD COLUMN pending_scene TEXT;     -- JSON: the Scene of that photo
    ALTER TABLE hands ADD COLUMN pending_image TEXT;     -- that photo, under the upload folder
    UPDATE hands SET confirmed_at = updated_at WHERE submitted = 1;
    ALTER TABLE rounds ADD COLUMN locked_at REAL;        -- hands locked (block proposed, domino)
    ALTER TABLE rounds ADD COLUMN locked_by TEXT;        -- why, in words
    ALTER TABLE rounds ADD COLUMN pending_end TEXT;      -- JSON: a ruling awaiting confirmation
    ALTER TABLE rounds ADD COLUMN table_checked TEXT;    -- JSON: the doubts the host checked
    ALTER TABLE rounds ADD COLUMN hands_to_check INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE audit (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id    INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        round_id   INTEGER REFERENCES rounds(id) ON DELETE CASCADE,
        action     TEXT NOT NULL,                    -- hand, lock, unlock, score, reopen, ...
        author     TEXT NOT NULL,                    -- a player's name, or "host"
        reason     TEXT,
        detail     TEXT NOT NULL DEFAULT '{}',       -- JSON: before/after (may hold tiles)
        created_at REAL NOT NULL
    );
    CREATE INDEX audit_by_game ON audit (game_id, id);
    """,
    # 4: player links stored as hashes (the file alone cannot recreate a link; `salt` is no
    # longer used: links made before this version stop working, "Player links" makes new
    # ones), and server-side admin sessions that logout and --reset-token revoke.
    """
    ALTER TABLE players ADD COLUMN link_hash TEXT;       -- sha256 of the link's token
    CREATE TABLE admin_sessions (
        id_hash    TEXT PRIMARY KEY,                  -- sha256 of the id in the cookie
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    """,
    # 5: the round's ledger (issue 32). The boneyard's count is not known until the host
    # enters it (a nonzero count stored before was entered; a 0 may be the old default, so
    # it is not known); a hand confirmed before play went on again is confirmed again before
    # the next ruling; a ruling held for the host's check (the public table says only that),
    # the host's override of a round that does not add up, and the tiles the table deals each
    # player when not the variant's (rule books differ by a tile or two).
    """
    ALTER TABLE rounds ADD COLUMN boneyard_source TEXT;  -- entered | counted; NULL: not known
    UPDATE rounds SET boneyard_source = 'entered' WHERE boneyard <> 0;
    ALTER TABLE rounds ADD COLUMN host_check TEXT;       -- JSON {"reasons"}: held for the host
    UPDATE rounds SET host_check = '{"reasons":["rules-refused"]}'
        WHERE hands_to_check = 1 AND status = 'open';
    ALTER TABLE rounds ADD COLUMN ledger_override TEXT;  -- JSON {"problems", "reason"}
    ALTER TABLE hands ADD COLUMN to_confirm INTEGER NOT NULL DEFAULT 0;  -- play went on since
    ALTER TABLE games ADD COLUMN deal INTEGER;           -- tiles dealt each; NULL: the variant's
    """,
    # 6: player links derived from the server's link key (server.auth), so that the page can
    # show them again after a restart. A link made before (only its hash in link_hash) keeps
    # working until "New link" replaces it.
    """
    ALTER TABLE players ADD COLUMN link_secret TEXT;     -- random; the key file makes the link
    ALTER TABLE players ADD COLUMN link_counter INTEGER NOT NULL DEFAULT 0;  -- "New link": +1
    """,
    # 7: the lock's reason as data (issue 34): beside `locked_by`'s English, the code and
    # parameters of its sentence (`dominocam.rules.phrases.to_json`), which pages write in their
    # reader's language. A lock stored before shows its English.
    """
    ALTER TABLE rounds ADD COLUMN locked_words TEXT;     -- JSON {"code", "params"} of locked_by
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseTooNew(RuntimeError):
    """The database was written by a newer DominoCam: the dashboard does not start (the
    command line says so; no request is answered). Code `database_too_new`, params
    `{"version", "supported"}`, as a refusal (`dominocam.errors.Refused`) has them."""

    code = "database_too_new"

    def __init__(self, message: str, **params: int) -> None:
        super().__init__(message)
        self.params = params


def database_path(url_or_path: str) -> str:
    """The SQLite file for `--db`: a path, `sqlite:///relative`, `sqlite:////absolute`, or
    `:memory:`."""
    if url_or_path.startswith("sqlite:///"):
        return url_or_path[len("sqlite:///") :] or ":memory:"
    if "://" in url_or_path:
        raise Refused(
            f"unsupported database URL {url_or_path!r}; use a file path or sqlite:///PATH",
            "unsupported_database_url",
            url=url_or_path[:80],
        )
    return url_or_path


def connect(path: str) -> sqlite3.Connection:
    """A connection with foreign keys, WAL journaling and rows addressable by name.

    A new database file is created readable by its owner only (0600); SQLite gives its WAL
    and shared-memory files the database file's permissions."""
    if path != ":memory:":
        Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
    return conn


def restrict_to_owner(path: str) -> None:
    """Make an existing database (and its WAL and shared-memory files) owner-only: it holds
    the admin token's hash, the signing key and the players' hands."""
    if path == ":memory:":
        return
    for name in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal"):
        if os.path.exists(name):
            os.chmod(name, 0o600)


def schema_version(conn: sqlite3.Connection) -> int:
    """The number of migrations applied (0 for an empty database)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, migrations: tuple[str, ...] = MIGRATIONS) -> int:
    """Apply the migrations the database lacks; return the resulting version.

    Raises:
        RuntimeError: the database was written by a newer DominoCam (more migrations).
    """
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    version = schema_version(conn)
    if version > len(migrations):
        raise DatabaseTooNew(
            f"the database has schema version {version}, newer than this DominoCam "
            f"({len(migrations)}); upgrade DominoCam or use another --db",
            version=version,
            supported=len(migrations),
        )
    for number in range(version, len(migrations)):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split_sql(migrations[number]):
                conn.execute(statement)
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number + 1,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(migrations)


def _split_sql(script: str) -> Iterator[str]:
    """The statements of a migration (executescript would commit behind our back).

    `--` comments are dropped (migrations must not put `--` or `;` inside string literals).
    """
    text = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
    buffer = ""
    for piece in text.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \n\t;"):
                yield buffer.strip()
            buffer = ""


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def now() -> float:
    return time.time()


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def loads(text: str | None, default: Any = None) -> Any:
    return default if text is None else json.loads(text)


# --- settings ---------------------------------------------------------------------------------


def get_setting(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_setting(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def setting_or_create(conn: sqlite3.Connection, key: str, make: Callable[[], str]) -> str:
    """The stored value of `key`, created with `make()` on first use (race-free)."""
    with transaction(conn):
        value = get_setting(conn, key)
        if value is None:
            value = make()
            set_setting(conn, key, value)
    return value


# --- events -----------------------------------------------------------------------------------


def add_event(
    conn: sqlite3.Connection, game_id: int | None, type_: str, payload: dict | None = None
) -> int:
    cur = conn.execute(
        "INSERT INTO events (game_id, type, payload, created_at) VALUES (?, ?, ?, ?)",
        (game_id, type_, dumps(payload or {}), now()),
    )
    return int(cur.lastrowid or 0)


def last_event_id(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT MAX(id) FROM events").fetchone()
    return int(row[0] or 0)


def events_since(
    conn: sqlite3.Connection, since: int, game_id: int | None = None, limit: int = 200
) -> list[dict]:
    sql = "SELECT id, game_id, type, payload, created_at FROM events WHERE id > ?"
    args: list[Any] = [since]
    if game_id is not None:
        sql += " AND (game_id = ? OR game_id IS NULL)"
        args.append(game_id)
    sql += " ORDER BY id LIMIT ?"
    args.append(limit)
    return [
        {
            "id": row["id"],
            "game_id": row["game_id"],
            "type": row["type"],
            "payload": loads(row["payload"], {}),
            "time": row["created_at"],
        }
        for row in conn.execute(sql, args)
    ]
