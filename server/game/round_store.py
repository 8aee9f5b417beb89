"""A single-table game's rounds in SQLite, as the round's operations take them
(`rounds.store.RoundStore`, `rounds.operations`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rounds.ledger import RoundFacts
from rounds.lifecycle import AuditEntry
from rounds.store import HandRow, RoundRow
from rules import phrases
from server import storage
from server.game import audit, review
from server.game.records import get_game, get_round, lock_reason, open_round
from server.storage import dumps, loads, now


class SqliteRoundStore:
    """The rounds of game `game_id` (`rounds.store.RoundStore`)."""

    def __init__(self, conn: sqlite3.Connection, game_id: int) -> None:
        self.conn = conn
        self.game_id = game_id
        self._rows: dict[int, sqlite3.Row] = {}

    @property
    def set_max(self) -> int:
        return int(get_game(self.conn, self.game_id)["set_max"])

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with storage.transaction(self.conn) as conn:
            yield conn

    def _row(self, row: sqlite3.Row) -> RoundRow:
        self._rows[row["id"]] = row
        return RoundRow(
            id=row["id"],
            number=row["number"],
            status=row["status"],
            locked_by=lock_reason(row),
            pending_end=loads(row["pending_end"], None),
        )

    def open_round(self) -> RoundRow:
        return self._row(open_round(self.conn, self.game_id))

    def latest_round(self) -> RoundRow:
        return self._row(get_round(self.conn, self.game_id))

    def _player_id(self, player: str) -> int:
        row = self.conn.execute(
            "SELECT id FROM players WHERE game_id = ? AND name = ?", (self.game_id, player)
        ).fetchone()
        return int(row["id"])

    def _hand_row(self, rnd: RoundRow, player: str) -> sqlite3.Row | None:
        return self.conn.execute(
            "SELECT * FROM hands WHERE round_id = ? AND player_id = ?",
            (rnd.id, self._player_id(player)),
        ).fetchone()

    def hand(self, rnd: RoundRow, player: str) -> HandRow | None:
        row = self._hand_row(rnd, player)
        if row is None:
            return None
        return HandRow(
            tiles=loads(row["tiles"], []) if row["confirmed_at"] is not None else None,
            pending=loads(row["pending"], None),
            to_confirm=bool(row["to_confirm"]),
        )

    def save_confirmed_hand(self, rnd: RoundRow, player: str, tiles: list[list[int]]) -> None:
        """The photo the hand was confirmed from stays with it (its Scene and image)."""
        row = self._hand_row(rnd, player)
        from_photo = row is not None and row["pending_image"] is not None
        scene = row["pending_scene"] if from_photo else (row["scene"] if row else None)
        image = row["pending_image"] if from_photo else (row["image"] if row else None)
        self.conn.execute(
            "INSERT INTO hands (round_id, player_id, tiles, scene, image, submitted, "
            "confirmed_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?) "
            "ON CONFLICT(round_id, player_id) DO UPDATE SET tiles = excluded.tiles, "
            "scene = excluded.scene, image = excluded.image, submitted = 1, "
            "confirmed_at = excluded.confirmed_at, updated_at = excluded.updated_at, "
            "pending = NULL, pending_scene = NULL, pending_image = NULL, to_confirm = 0",
            (rnd.id, self._player_id(player), dumps(tiles), scene, image, now(), now()),
        )

    def hands_to_confirm(self, rnd: RoundRow) -> None:
        self.conn.execute(
            "UPDATE hands SET to_confirm = 1 WHERE round_id = ? AND confirmed_at IS NOT NULL",
            (rnd.id,),
        )

    def set_lock(self, rnd: RoundRow, locked_by: str | None) -> None:
        if locked_by is None:
            self.conn.execute(
                "UPDATE rounds SET locked_at = NULL, locked_by = NULL, locked_words = NULL "
                "WHERE id = ?",
                (rnd.id,),
            )
        else:
            self.conn.execute(
                "UPDATE rounds SET locked_at = COALESCE(locked_at, ?), locked_by = ?, "
                "locked_words = ? WHERE id = ?",
                # Beside the English, its code and parameters (`records.lock_reason`).
                (now(), locked_by, dumps(phrases.to_json(locked_by)), rnd.id),
            )

    def set_pending_end(self, rnd: RoundRow, pending: Mapping[str, Any] | None) -> None:
        if pending is None:
            # The host's check of the held ruling goes with it (`review.host_check`).
            self.conn.execute(
                "UPDATE rounds SET pending_end = NULL, host_check = NULL WHERE id = ?", (rnd.id,)
            )
        else:
            self.conn.execute(
                "UPDATE rounds SET pending_end = ? WHERE id = ?", (dumps(dict(pending)), rnd.id)
            )

    def set_override(self, rnd: RoundRow, override: Mapping[str, Any] | None) -> None:
        self.conn.execute(
            "UPDATE rounds SET ledger_override = ? WHERE id = ?",
            (None if override is None else dumps(dict(override)), rnd.id),
        )

    def facts(self, rnd: RoundRow) -> RoundFacts:
        row = self.conn.execute("SELECT * FROM rounds WHERE id = ?", (rnd.id,)).fetchone()
        return review.facts(self.conn, self.game_id, row)

    def touched(self, rnd: RoundRow) -> bool:
        row = self._rows.get(rnd.id)
        if row is None:
            row = self.conn.execute("SELECT * FROM rounds WHERE id = ?", (rnd.id,)).fetchone()
        if row["table_image"] or row["table_scene"] or row["locked_at"]:
            return True
        return any(
            self.conn.execute(f"SELECT 1 FROM {table} WHERE round_id = ?", (rnd.id,)).fetchone()
            for table in ("hands", "block_checks", "table_events")
        )

    def delete_round(self, rnd: RoundRow) -> None:
        self.conn.execute("DELETE FROM rounds WHERE id = ?", (rnd.id,))

    def reopen(self, rnd: RoundRow) -> dict[str, int]:
        points = {
            row["name"]: row["points"]
            for row in self.conn.execute(
                "SELECT name, points FROM scores WHERE round_id = ?", (rnd.id,)
            )
        }
        self.conn.execute("DELETE FROM scores WHERE round_id = ?", (rnd.id,))
        self.conn.execute(
            "UPDATE rounds SET status = 'open', ended_by = NULL, result = NULL, ended_at = NULL, "
            "pending_end = NULL, host_check = NULL WHERE id = ?",
            (rnd.id,),
        )
        self.conn.execute(
            "UPDATE games SET status = 'active' WHERE id = ? AND status <> 'active'",
            (self.game_id,),
        )
        return points

    def record(self, rnd: RoundRow | None, entry: AuditEntry) -> None:
        audit.record_entry(self.conn, self.game_id, None if rnd is None else rnd.id, entry)

    def changed(self, what: str, data: Mapping[str, Any]) -> None:
        storage.add_event(self.conn, self.game_id, what, dict(data))
