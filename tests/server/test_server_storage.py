"""The versioned schema and the database location."""

from __future__ import annotations

import pytest
from server_factories import old_database

from dominocam.errors import UserInputError
from dominocam.server import storage


def test_migrate_is_idempotent_and_versioned(tmp_path) -> None:
    conn = storage.connect(str(tmp_path / "a.db"))
    assert storage.schema_version(conn) == 0
    assert storage.migrate(conn) == storage.SCHEMA_VERSION
    assert storage.migrate(conn) == storage.SCHEMA_VERSION
    assert storage.schema_version(conn) == storage.SCHEMA_VERSION
    # A later migration applies on top of the shipped ones.
    extra = (*storage.MIGRATIONS, "ALTER TABLE games ADD COLUMN venue TEXT;")
    assert storage.migrate(conn, extra) == storage.SCHEMA_VERSION + 1
    conn.execute("SELECT venue FROM games")


def test_a_newer_database_is_refused(tmp_path) -> None:
    conn = storage.connect(str(tmp_path / "a.db"))
    storage.migrate(conn)
    conn.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(RuntimeError, match="newer"):
        storage.migrate(conn)


def test_failed_migration_rolls_back(tmp_path) -> None:
    conn = storage.connect(str(tmp_path / "a.db"))
    storage.migrate(conn)
    broken = (*storage.MIGRATIONS, "CREATE TABLE t (x INT); SELECT nonsense FROM nowhere;")
    with pytest.raises(Exception, match="nowhere"):
        storage.migrate(conn, broken)
    assert storage.schema_version(conn) == storage.SCHEMA_VERSION
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 't'").fetchone() is None


def test_database_path() -> None:
    assert storage.database_path("sqlite:///x/y.db") == "x/y.db"
    assert storage.database_path("sqlite:////abs/y.db") == "/abs/y.db"
    assert storage.database_path("plain.db") == "plain.db"
    with pytest.raises(UserInputError, match="unsupported"):
        storage.database_path("postgres://host/db")


def test_a_first_schema_database_opens_and_upgrades(tmp_path) -> None:
    """A database written before camera events (schema 1) keeps its games and gains them."""
    from dominocam.server import create_app

    path = tmp_path / "old.sqlite3"
    conn = old_database(path, 1)
    conn.close()

    app = create_app(
        {"TESTING": True, "DATABASE": str(path), "ADMIN_TOKEN": "t", "SECRET_KEY": "k"}
    )
    client = app.test_client()
    assert client.get("/api/health").json["schema_version"] == storage.SCHEMA_VERSION == 7
    rnd = client.get("/api/games/1/state").json["round"]
    # As stored, with the words the state adds for players (a line typed by hand: its name).
    assert [(line["name"], line["open_end"]) for line in rnd["lines"]] == [("main", 3)]
    assert not rnd["lines_by_hand"]
    assert rnd["table"]["events"] == []
    assert client.get("/api/games/1/rounds/current/table/events").json["events"] == []


def test_a_fourth_schema_database_keeps_its_rounds_with_a_boneyard_not_known(tmp_path) -> None:
    """Schema 5 (the round's ledger): a boneyard of 0 stored before may be the old default,
    so it becomes "not known" (a draw game's block waits for the host's count); a nonzero one
    was entered; a round whose hands were flagged still waits for the host; hands stay
    confirmed."""
    from dominocam.server import create_app

    path = tmp_path / "old.sqlite3"
    conn = old_database(path, 4)
    conn.execute(
        "INSERT INTO games (name, variant, rules, set_max, created_at) "
        "VALUES ('Draw night', 'draw', '{}', 6, 0)"
    )
    for seat, name in enumerate(("Caro", "Dev")):
        conn.execute(
            "INSERT INTO players (game_id, seat, name, salt) VALUES (2, ?, ?, 'salt')",
            (seat, name),
        )
    conn.execute(
        "INSERT INTO rounds (game_id, number, boneyard, hands_to_check, started_at) "
        "VALUES (2, 1, 5, 1, 0)"
    )
    conn.execute(
        "INSERT INTO hands (round_id, player_id, tiles, submitted, confirmed_at, updated_at) "
        "VALUES (1, 1, '[[1, 2]]', 1, 0, 0)"
    )
    conn.close()

    app = create_app(
        {"TESTING": True, "DATABASE": str(path), "ADMIN_TOKEN": "t", "SECRET_KEY": "k"}
    )
    client = app.test_client()
    block = client.get("/api/games/1/state").json
    assert block["round"]["boneyard"] is None and block["round"]["boneyard_source"] is None
    assert block["players"][0]["hand_status"] == "confirmed"
    assert not block["round"]["review"]["host_checking"]
    draw = client.get("/api/games/2/state").json["round"]
    assert draw["boneyard"] == 5 and draw["boneyard_source"] == "entered"
    assert draw["review"]["host_checking"]
