"""A single-table game's rounds in SQLite, as the round's operations take them
(`dominocam.rounds.store.RoundStore`, `dominocam.rounds.operations`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from dominocam.i18n import _
from dominocam.rounds.ledger import RoundFacts
from dominocam.rounds.lifecycle import AuditEntry, Conflict
from dominocam.rounds.store import HandRow, Judged, RoundRow
from dominocam.rules import phrases
from dominocam.server import engine, storage
from dominocam.server.game import audit, review
from dominocam.server.game.records import (
    get_game,
    get_round,
    lock_reason,
    open_round,
    players,
    round_hands,
)
from dominocam.server.game.scoreboard import finish_if_over
from dominocam.server.storage import dumps, loads, now


def rules_state(
    conn: sqlite3.Connection,
    game_id: int,
    proposer: str | None = None,
    allow_missing: bool = False,
    empty_hand: str | None = None,
) -> dict[str, Any]:
    """The game-state dict (docs/design.md) of the latest round, for the rules engine.

    Raises:
        Conflict: a player has no confirmed hand (unless `allow_missing`).
    """
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = round_hands(conn, rnd["id"])
    roster = []
    missing = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        if p["name"] == empty_hand:
            tiles: list = []
        elif row is None or row["confirmed_at"] is None:
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
            _(
                "no confirmed hand yet for {missing}: each player sends a photo from their link "
                "and confirms the tiles, or the table enters them"
            ).format(missing=", ".join(missing)),
            "hands_missing",
            players=missing,
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


class SqliteRoundStore:
    """The rounds of game `game_id` (`dominocam.rounds.store.RoundStore`)."""

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
            pending_photo=row["pending_image"],
        )

    def drop_pending(self, rnd: RoundRow, player: str) -> None:
        self.conn.execute(
            "UPDATE hands SET pending = NULL, pending_scene = NULL, pending_image = NULL "
            "WHERE round_id = ? AND player_id = ?",
            (rnd.id, self._player_id(player)),
        )

    def declare(self, rnd: RoundRow, player: str, cannot_play: bool) -> None:
        self.conn.execute(
            "INSERT INTO hands (round_id, player_id, declared_cannot_play, updated_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(round_id, player_id) DO UPDATE SET "
            "declared_cannot_play = excluded.declared_cannot_play",
            (rnd.id, self._player_id(player), int(cannot_play), now()),
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

    # --- for the rulings ----------------------------------------------------------------

    def _fresh(self, rnd: RoundRow) -> sqlite3.Row:
        return self.conn.execute("SELECT * FROM rounds WHERE id = ?", (rnd.id,)).fetchone()

    def rules_state(
        self, rnd: RoundRow, *, proposer: str | None = None, empty_hand: str | None = None
    ) -> dict[str, Any]:
        return rules_state(self.conn, self.game_id, proposer=proposer, empty_hand=empty_hand)

    def refuse_doubtful_table(self, rnd: RoundRow) -> None:
        """The host checks the table's reading (`review.mark_table_checked`) or corrects it."""
        review.refuse_unchecked(self.conn, self.game_id, self._fresh(rnd))

    def host_checking(self, rnd: RoundRow) -> list[str]:
        return review.host_check(self._fresh(rnd))

    def set_host_check(self, rnd: RoundRow, reasons: list[str] | None) -> None:
        """Kept in `host_check` too (`review.host_check`: the public review's flag)."""
        self.conn.execute(
            "UPDATE rounds SET host_check = ? WHERE id = ?",
            (None if reasons is None else dumps({"reasons": list(reasons)}), rnd.id),
        )

    def last_decision(self, rnd: RoundRow) -> str | None:
        row = self.conn.execute(
            "SELECT action FROM audit WHERE round_id = ? AND action IN ('cancel', 'unlock', "
            "'lock') ORDER BY id DESC LIMIT 1",
            (rnd.id,),
        ).fetchone()
        return None if row is None else str(row["action"])

    def record_check(
        self, rnd: RoundRow, proposer: str, verdict: Mapping[str, Any], outcome: Mapping[str, Any]
    ) -> int | None:
        cur = self.conn.execute(
            "INSERT INTO block_checks (round_id, proposer, verdict, outcome, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (rnd.id, proposer, dumps(dict(verdict)), dumps(dict(outcome)), now()),
        )
        return int(cur.lastrowid or 0)

    def end_round(self, rnd: RoundRow, judged: Judged) -> dict[str, Any]:
        """Returns the round's result as stored: the verdict (a block) or the domino's score,
        with the ledger it was ruled by."""
        if judged.by == "domino":
            self.conn.execute(
                "UPDATE hands SET tiles = '[]' WHERE round_id = ? AND player_id = ?",
                (rnd.id, self._player_id(judged.who)),
            )
        value = judged.value.to_json() if judged.by == "block" else engine.plain(judged.value)
        result = dict(value, ledger=judged.go.to_dict())
        self.conn.execute(
            "UPDATE rounds SET status = 'ended', ended_by = ?, result = ?, ended_at = ?, "
            "pending_end = NULL, host_check = NULL WHERE id = ?",
            (judged.by, dumps(result), now(), rnd.id),
        )
        by_name = {p["name"]: p["id"] for p in players(self.conn, self.game_id)}
        for name, points in (result.get("points") or {}).items():
            self.conn.execute(
                "INSERT OR REPLACE INTO scores (round_id, name, player_id, points) "
                "VALUES (?, ?, ?, ?)",
                (rnd.id, name, by_name.get(name), int(points)),
            )
        self.changed(
            "round",
            {
                "action": "ended",
                "round": rnd.number,
                "by": judged.by,
                "winner": result.get("winner"),
            },
        )
        finish_if_over(self.conn, self.game_id)
        return result
