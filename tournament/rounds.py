"""A tournament table's round in PostgreSQL, by the single-table rules: the round's
operations (`dominocam.rounds.operations`) run on `PgRoundStore`, and the functions here are their
thin wrappers for the web app (a `lifecycle.Conflict` becomes a `RoundConflict`).

The same lifecycle as `dominocam serve`, with the event's database behind it:

* a hand photo's reading is *pending* (`store_pending_reading`, written by a worker) until
  its owner confirms it as read or corrected (`confirm_hand`); only then is the hand in;
* a ruling held for the table host (a block that holds, a domino called, either held by
  the round's ledger or because the rules engine refused the round's state) *locks* every
  hand of that table's round (the other tables are untouched); after that only the table's
  host or the event director changes a hand, with a reason, and the change is in the audit
  trail. A refused ruling or a block check that stops locks nothing (`rule`);
* tiles typed over a photo's pending reading leave an entry for the table's host alone
  (`lifecycle.HOST_ONLY`: `audit_trail` shows it to the host only, `host_review` as
  `replaced`);
* a ruling that ends the round is *held* (`rounds.pending_end`) until the host confirms it
  (`score_pending`): the standings count only confirmed rounds; `cancel_pending` drops it,
  `unlock_hands` lets play go on, `reopen_last_round` undoes the last round;
* before a block check or a domino is held or scored, the round's ledger
  (`dominocam.rounds.ledger`, issue 32) counts the table camera's newest Scene, the hands
  and the boneyard against the set: a ruling that waits (a tile in two places, the
  boneyard's count unknown in a game that draws) is held for the table host, who reads the
  problems tile by tile (`host_review`: the set as cells, each problem in words) and
  corrects a hand, enters the boneyard's count or rules on their word with a reason
  (`override_ledger`); players read only `ledger_words.public_message`;
* after play goes on (a block check stops, the host unlocks the hands, or reopens a round)
  every confirmed hand
  is to be confirmed again by its owner (`hands.to_confirm`) before the next ruling;
* the audit trail keeps two texts per entry: `public_text` (no tile, no pip total) shown at
  once, `text` shown once the entry's round has ended (`lifecycle.shown_entry`).

Each function runs in one transaction and locks the table's open round row (`FOR UPDATE`),
so two web processes acting on one table at once are serialised by PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from dominocam.errors import Refused, UserInputError
from dominocam.i18n import _
from dominocam.rounds import ledger_words, lifecycle, operations
from dominocam.rounds.ledger import (
    HandState,
    Override,
    RoundFacts,
    SeatHand,
    on_table,
    round_facts,
    table_report,
)
from dominocam.rounds.lifecycle import HOST, AuditEntry
from dominocam.rounds.scene_state import state_layout
from dominocam.rounds.store import HandRow, Judged, RoundRow
from dominocam.rules import phrases
from dominocam.rules.game import RoundResult
from dominocam.rules.tiles import Tile
from dominocam.server.game.review import doubt_signature
from dominocam.tournament import store
from dominocam.tournament.config import EventConfig
from dominocam.tournament.standings import table_game
from dominocam.tournament.store import (
    Player,
    RoundConflict,
    event_config,
    latest_scene,
    lock_reason,
)


class HeldForHost(RoundConflict):
    """The round's ledger holds the ruling for the table host (`_hold_for_host`): the round
    changed (a ruling now waits), though the request is refused."""


def _conflict(error: UserInputError) -> RoundConflict:
    return RoundConflict(str(error), getattr(error, "code", None), **getattr(error, "params", {}))


def record(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str | None,
    round_id: int | None,
    entry: AuditEntry,
) -> None:
    """Add an audit entry (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO audit (event_id, table_id, round_id, author, action, reason, detail) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (
            event_id,
            table_id,
            round_id,
            entry.author,
            entry.action,
            entry.reason,
            Jsonb(
                {
                    **entry.detail,
                    "text": entry.text,
                    "public_text": entry.public_text,
                    # Beside the English, each text's code and parameters
                    # (`dominocam.rules.phrases`).
                    "words": phrases.to_json(entry.text),
                    "public_words": phrases.to_json(entry.public_text),
                }
            ),
        ),
    )


def _note(
    action: str, author: str, text: str, reason: str | None = None, **detail: Any
) -> AuditEntry:
    """An entry whose text names no tile (shown to everybody at once)."""
    return AuditEntry(action, author, text, text, reason, dict(detail))


def open_round(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> dict[str, Any]:
    """The table's open round, locked for this transaction."""
    row = conn.execute(
        "SELECT * FROM rounds WHERE event_id = %s AND table_id = %s AND status = 'open' FOR UPDATE",
        (event_id, table_id),
    ).fetchone()
    if row is None:
        raise RoundConflict(
            _("table {table} has no open round (its game is over)").format(table=table_id),
            "no_open_round",
            table=table_id,
        )
    return row


def _hand(conn: psycopg.Connection[Any], round_id: int, player_id: int) -> dict[str, Any] | None:
    return conn.execute(
        "SELECT * FROM hands WHERE round_id = %s AND player_id = %s", (round_id, player_id)
    ).fetchone()


@contextmanager
def _as_round_conflict() -> Iterator[None]:
    """The round's operations' `Conflict` as this app's `RoundConflict` (HTTP 409)."""
    try:
        yield
    except RoundConflict:
        raise
    except operations.HeldForHost as error:
        raise HeldForHost(str(error), error.code, **error.params) from None
    except lifecycle.Conflict as error:
        raise RoundConflict(str(error), error.code, **error.params) from None


def _row(rnd: Mapping[str, Any]) -> RoundRow:
    return RoundRow(
        id=rnd["id"],
        number=rnd["number"],
        status=rnd["status"],
        locked_by=lock_reason(rnd),
        pending_end=rnd["pending_end"],
    )


class PgRoundStore:
    """One tournament table's rounds in PostgreSQL (`dominocam.rounds.store.RoundStore`). Each
    operation's transaction holds the table's round row (`FOR UPDATE`), so two web processes
    acting on one table at once are serialised by PostgreSQL."""

    def __init__(
        self,
        conn: psycopg.Connection[Any],
        event_id: int,
        table_id: str,
        config: EventConfig | None = None,
    ) -> None:
        self.conn = conn
        self.event_id = event_id
        self.table_id = table_id
        self._config = config

    @property
    def config(self) -> EventConfig:
        if self._config is None:
            self._config = event_config(self.conn, self.event_id)
        return self._config

    @property
    def set_max(self) -> int:
        return self.config.max_pip

    def transaction(self) -> AbstractContextManager[object]:
        return self.conn.transaction()

    def open_round(self) -> RoundRow:
        return _row(open_round(self.conn, self.event_id, self.table_id))

    def latest_round(self) -> RoundRow:
        row = self.conn.execute(
            "SELECT * FROM rounds WHERE event_id = %s AND table_id = %s "
            "ORDER BY number DESC LIMIT 1 FOR UPDATE",
            (self.event_id, self.table_id),
        ).fetchone()
        if row is None:
            raise RoundConflict(
                _("table {table} has no round").format(table=self.table_id),
                "no_round",
                table=self.table_id,
            )
        return _row(row)

    def _player_id(self, player: str) -> int:
        row = self.conn.execute(
            "SELECT id FROM players WHERE event_id = %s AND name = %s", (self.event_id, player)
        ).fetchone()
        return int(row["id"])

    def hand(self, rnd: RoundRow, player: str) -> HandRow | None:
        row = _hand(self.conn, rnd.id, self._player_id(player))
        if row is None:
            return None
        confirmed = row["confirmed_at"] is not None
        return HandRow(
            tiles=row["tiles"] if confirmed else None,
            pending=row["pending"],
            to_confirm=bool(row["to_confirm"]),
        )

    def save_confirmed_hand(self, rnd: RoundRow, player: str, tiles: list[list[int]]) -> None:
        self.conn.execute(
            "INSERT INTO hands (round_id, player_id, tiles, confirmed_at) "
            "VALUES (%s, %s, %s, now()) ON CONFLICT (round_id, player_id) DO UPDATE SET "
            "tiles = EXCLUDED.tiles, confirmed_at = now(), submitted_at = now(), "
            "pending = NULL, pending_scene = NULL, to_confirm = false",
            (rnd.id, self._player_id(player), Jsonb(tiles)),
        )

    def drop_pending(self, rnd: RoundRow, player: str) -> None:
        self.conn.execute(
            "UPDATE hands SET pending = NULL, pending_scene = NULL "
            "WHERE round_id = %s AND player_id = %s",
            (rnd.id, self._player_id(player)),
        )

    def declare(self, rnd: RoundRow, player: str, cannot_play: bool) -> None:
        self.conn.execute(
            "INSERT INTO hands (round_id, player_id, declared_cannot_play) VALUES (%s, %s, %s) "
            "ON CONFLICT (round_id, player_id) DO UPDATE SET "
            "declared_cannot_play = EXCLUDED.declared_cannot_play",
            (rnd.id, self._player_id(player), cannot_play),
        )

    def hands_to_confirm(self, rnd: RoundRow) -> None:
        self.conn.execute(
            "UPDATE hands SET to_confirm = true WHERE round_id = %s AND confirmed_at IS NOT NULL",
            (rnd.id,),
        )

    def set_lock(self, rnd: RoundRow, locked_by: str | None) -> None:
        if locked_by is None:
            self.conn.execute(
                "UPDATE rounds SET locked_at = NULL, locked_by = NULL, locked_words = NULL "
                "WHERE id = %s",
                (rnd.id,),
            )
        else:
            self.conn.execute(
                "UPDATE rounds SET locked_at = COALESCE(locked_at, now()), locked_by = %s, "
                "locked_words = %s WHERE id = %s",
                # Beside the English, its code and parameters (`lock_reason`).
                (locked_by, store.locked_words(locked_by), rnd.id),
            )

    def set_pending_end(self, rnd: RoundRow, pending: Mapping[str, Any] | None) -> None:
        """The held ruling's text keeps its code and parameters beside it (`words`)."""
        stored = None if pending is None else dict(pending)
        if stored is not None and phrases.to_json(stored.get("text")) is not None:
            stored["words"] = phrases.to_json(stored["text"])
        self.conn.execute(
            "UPDATE rounds SET pending_end = %s WHERE id = %s",
            (None if stored is None else Jsonb(stored), rnd.id),
        )

    def set_override(self, rnd: RoundRow, override: Mapping[str, Any] | None) -> None:
        self.conn.execute(
            "UPDATE rounds SET ledger_override = %s WHERE id = %s",
            (None if override is None else Jsonb(dict(override)), rnd.id),
        )

    def facts(self, rnd: RoundRow) -> RoundFacts:
        row = self.conn.execute("SELECT * FROM rounds WHERE id = %s", (rnd.id,)).fetchone()
        return _facts(self.conn, self.config, self.table_id, row)

    def touched(self, rnd: RoundRow) -> bool:
        if rnd.locked_by:
            return True
        found = self.conn.execute(
            "SELECT 1 FROM hands WHERE round_id = %s LIMIT 1", (rnd.id,)
        ).fetchone()
        return found is not None

    def delete_round(self, rnd: RoundRow) -> None:
        self.conn.execute("DELETE FROM rounds WHERE id = %s", (rnd.id,))

    def reopen(self, rnd: RoundRow) -> dict[str, int]:
        row = self.conn.execute("SELECT result FROM rounds WHERE id = %s", (rnd.id,)).fetchone()
        points = dict(((row["result"] or {}).get("round") or {}).get("points") or {})
        self.conn.execute(
            "UPDATE rounds SET status = 'open', ended_by = NULL, result = NULL, "
            "ended_at = NULL, pending_end = NULL WHERE id = %s",
            (rnd.id,),
        )
        return points

    def record(self, rnd: RoundRow | None, entry: AuditEntry) -> None:
        record(self.conn, self.event_id, self.table_id, None if rnd is None else rnd.id, entry)

    def changed(self, what: str, data: Mapping[str, Any]) -> None:
        """Nothing here: the web process publishes what changed once it answers."""

    # --- for the rulings ----------------------------------------------------------------

    def _fresh(self, rnd: RoundRow) -> dict[str, Any]:
        return self.conn.execute("SELECT * FROM rounds WHERE id = %s", (rnd.id,)).fetchone()

    def rules_state(
        self, rnd: RoundRow, *, proposer: str | None = None, empty_hand: str | None = None
    ) -> dict[str, Any]:
        row = self._fresh(rnd)
        return _state(
            self.conn, self.config, self.table_id, row, proposer=proposer, empty_hand=empty_hand
        )

    def refuse_doubtful_table(self, rnd: RoundRow) -> None:
        _refuse_doubtful_table(self.conn, self._fresh(rnd))

    def host_checking(self, rnd: RoundRow) -> list[str]:
        """Kept in the held ruling (`pending_end`: `waiting`, `reasons`)."""
        pending = rnd.pending_end or {}
        return list(pending.get("reasons") or []) if pending.get("waiting") else []

    def set_host_check(self, rnd: RoundRow, reasons: list[str] | None) -> None:
        """Nothing apart: the held ruling keeps its reasons."""

    def last_decision(self, rnd: RoundRow) -> str | None:
        row = self.conn.execute(
            "SELECT action FROM audit WHERE round_id = %s AND action IN ('cancel', 'unlock', "
            "'lock') ORDER BY id DESC LIMIT 1",
            (rnd.id,),
        ).fetchone()
        return None if row is None else str(row["action"])

    def record_check(
        self, rnd: RoundRow, proposer: str, verdict: Mapping[str, Any], outcome: Mapping[str, Any]
    ) -> int | None:
        """The last check that stopped is the table's `last_check` (its public outcome)."""
        if not verdict.get("blocked"):
            self.conn.execute(
                "UPDATE rounds SET last_check = %s WHERE id = %s", (Jsonb(dict(outcome)), rnd.id)
            )
        return None

    def end_round(self, rnd: RoundRow, judged: Judged) -> dict[str, Any]:
        return _end(self.conn, self.event_id, self.config, self.table_id, rnd, judged)


# --- a player's hand --------------------------------------------------------------------------


def store_pending_reading(
    conn: psycopg.Connection[Any],
    event_id: int,
    player: Player,
    tiles: list[list[int]],
    scene: Mapping[str, Any],
) -> bool:
    """Keep a hand photo's reading, pending its owner's confirmation (a confirmed hand stays
    as it is). False when the hands locked meanwhile: the reading is dropped."""
    with conn.transaction():
        rnd = open_round(conn, event_id, player.table_id)
        if lock_reason(rnd):
            return False
        conn.execute(
            "INSERT INTO hands (round_id, player_id, pending, pending_scene) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (round_id, player_id) DO UPDATE SET "
            "pending = EXCLUDED.pending, pending_scene = EXCLUDED.pending_scene",
            (rnd["id"], player.id, Jsonb(tiles), Jsonb(dict(scene))),
        )
    return True


def refuse_photo_when_locked(conn: psycopg.Connection[Any], event_id: int, player: Player) -> None:
    """A photo is refused at once once the hands are locked, before it is sent to read
    (`dominocam.rounds.operations.refuse_photo_when_locked`)."""
    with _as_round_conflict():
        operations.refuse_photo_when_locked(PgRoundStore(conn, event_id, player.table_id))


def confirm_hand(
    conn: psycopg.Connection[Any],
    event_id: int,
    config: EventConfig,
    player: Player,
    tiles: object = None,
    *,
    author: str,
    reason: object = None,
) -> dict[str, Any]:
    """Confirm `player`'s hand (`dominocam.rounds.operations.confirm_hand`): `tiles` given (typed or
    corrected), or the pending reading.

    Args:
        author: the player's name (their own link) or `HOST` (the table's host or the
            event director).

    Returns:
        `{"table", "round", "tiles": count}` (the tiles are never echoed to others).

    Raises:
        RoundConflict: locked and not the host, nothing to confirm, no open round.
        UserInputError: bad tiles, a locked hand changed without a reason.
    """
    with _as_round_conflict():
        confirmed = operations.confirm_hand(
            PgRoundStore(conn, event_id, player.table_id, config),
            player.name,
            tiles,
            author=author,
            reason=reason,
        )
    return {"table": player.table_id, "round": confirmed.round, "tiles": len(confirmed.tiles)}


def discard_pending(conn: psycopg.Connection[Any], event_id: int, player: Player) -> None:
    """Drop the photo's reading and keep the confirmed hand
    (`dominocam.rounds.operations.discard_pending`)."""
    with _as_round_conflict():
        operations.discard_pending(PgRoundStore(conn, event_id, player.table_id), player.name)


def declare_cannot_play(
    conn: psycopg.Connection[Any], event_id: int, player: Player, value: bool
) -> None:
    """The player says they cannot play (`dominocam.rounds.operations.declare_cannot_play`; a false
    declaration is a foul at the block check)."""
    with _as_round_conflict():
        operations.declare_cannot_play(
            PgRoundStore(conn, event_id, player.table_id), player.name, value
        )


def own_hand(conn: psycopg.Connection[Any], event_id: int, player: Player) -> dict[str, Any]:
    """The player's own hand in their table's latest round: confirmed tiles, the pending
    reading, whether the hands are locked, whether to confirm it again (play went on), which
    of its tiles the table camera's newest Scene shows face up (`on_table`: the owner takes
    them out and confirms; told to the owner alone), and whether the table host is checking
    the round (`checking`: no tile, no hand)."""
    row = conn.execute(
        "SELECT r.number, r.status, r.locked_at, r.locked_by, r.locked_words, r.pending_end, "
        "h.tiles, "
        "h.pending, h.confirmed_at, h.to_confirm FROM rounds r LEFT JOIN hands h "
        "ON h.round_id = r.id AND h.player_id = %s "
        "WHERE r.event_id = %s AND r.table_id = %s ORDER BY r.number DESC LIMIT 1",
        (player.id, event_id, player.table_id),
    ).fetchone()
    if row is None:
        raise RoundConflict(
            _("table {table} has no round").format(table=player.table_id),
            "no_round",
            table=player.table_id,
        )
    hand = row["tiles"] if row["confirmed_at"] is not None else None
    shown: tuple[Tile, ...] = ()
    newest = latest_scene(conn, event_id, player.table_id) if row["status"] == "open" else None
    if hand and newest is not None:
        shown = on_table([Tile.of(a, b) for a, b in hand], table_report(newest["scene"]))
    return {
        "name": player.name,
        "table": player.table_id,
        "round": row["number"],
        "status": row["status"],
        "hand": hand,
        "pending": row["pending"],
        "locked": lock_reason(row),
        "to_confirm": bool(
            row["status"] == "open" and row["confirmed_at"] is not None and row["to_confirm"]
        ),
        "on_table": [tile.as_list() for tile in shown],
        "on_table_text": ledger_words.owner_on_table(shown) if shown else None,
        "checking": ledger_words.checking(row["pending_end"]) if row["status"] == "open" else None,
    }


# --- rulings ----------------------------------------------------------------------------------


def _state(
    conn: psycopg.Connection[Any],
    config: EventConfig,
    table_id: str,
    rnd: Mapping[str, Any],
    *,
    proposer: str | None = None,
    empty_hand: str | None = None,
) -> dict[str, Any]:
    """The game state of the round for the rules engine (it holds every hand: never shown
    before the round ends). Every seat needs a confirmed hand."""
    table = config.table(table_id)
    rows = {
        row["name"]: row
        for row in conn.execute(
            "SELECT p.name, h.tiles, h.confirmed_at, h.declared_cannot_play FROM hands h "
            "JOIN players p ON p.id = h.player_id WHERE h.round_id = %s",
            (rnd["id"],),
        )
    }
    missing = [
        n
        for n in table.seats
        if n != empty_hand and (n not in rows or rows[n]["confirmed_at"] is None)
    ]
    if missing:
        raise RoundConflict(
            _(
                "no confirmed hand yet for {names}: each player sends a photo from their link "
                "and confirms the tiles, or the host enters them"
            ).format(names=", ".join(missing)),
            "hands_missing",
            players=missing,
        )
    players = []
    for name in table.seats:
        entry: dict[str, Any] = {
            "name": name,
            "hand": [] if name == empty_hand else rows[name]["tiles"],
        }
        if name in rows and rows[name]["declared_cannot_play"]:
            entry["declared_cannot_play"] = True
        team = config.player(name).team
        if team:
            entry["team"] = team
        players.append(entry)
    state: dict[str, Any] = {
        "variant": config.variant_name,
        "rules": dict(config.rules),
        "set": config.max_pip,
        "players": players,
        "layout": dict(rnd["layout"] or _camera_layout(conn, rnd["event_id"], table_id)),
        # "boneyard" is the ledger's (`_ledger_boneyard`): never 0 by default.
    }
    if proposer is not None:
        state["proposer"] = proposer
    return state


def _camera_layout(conn: psycopg.Connection[Any], event_id: int, table_id: str) -> dict[str, Any]:
    """The played lines from the table camera's newest Scene, for a round whose lines the
    host has not typed (`set_table`); a doubtful one refuses the ruling first
    (`_refuse_doubtful_table`)."""
    newest = latest_scene(conn, event_id, table_id)
    if newest is None:
        return {"lines": []}
    return state_layout(newest["scene"])


def _refuse_doubtful_table(conn: psycopg.Connection[Any], rnd: Mapping[str, Any]) -> None:
    """A ruling waits while the lines it would judge come from a doubtful camera reading
    (`needs_review`, or a tile `doubtful`: `review.doubt_signature`, as single-table mode):
    the host types the open ends (`set_table`), which the rulings then judge by.

    Raises:
        RoundConflict: code "table_needs_check".
    """
    if rnd["layout"] is not None:
        return
    newest = latest_scene(conn, rnd["event_id"], rnd["table_id"])
    if newest is not None and doubt_signature(newest["scene"]) is not None:
        raise RoundConflict(
            _(
                "the camera's reading of the table is doubtful: the host types the open ends "
                "(PUT /api/tables/ID/table) before a ruling"
            ),
            "table_needs_check",
        )


def _facts(
    conn: psycopg.Connection[Any], config: EventConfig, table_id: str, rnd: Mapping[str, Any]
) -> RoundFacts:
    """The round as the ledger takes it (`round_ledger.round_facts`): the table camera's
    newest Scene, each seat's hand, the boneyard with its source. A Scene that read no tile
    at all is not a reading of the table (no ruling comes before a tile is played)."""
    rows = {
        row["name"]: row
        for row in conn.execute(
            "SELECT p.name, h.tiles, h.pending, h.confirmed_at, h.to_confirm FROM hands h "
            "JOIN players p ON p.id = h.player_id WHERE h.round_id = %s",
            (rnd["id"],),
        )
    }
    hands = []
    for name in config.table(table_id).seats:
        row = rows.get(name)
        if row is not None and row["confirmed_at"] is not None:
            confirmed = HandState.TO_CONFIRM if row["to_confirm"] else HandState.CONFIRMED
            state, tiles = confirmed, row["tiles"] or []
        elif row is not None and row["pending"] is not None:
            state, tiles = HandState.PENDING, row["pending"]
        else:
            state, tiles = HandState.NONE, []
        hands.append(SeatHand(name, state, tuple(Tile.of(a, b) for a, b in tiles)))
    newest = latest_scene(conn, rnd["event_id"], table_id)
    scene = newest["scene"] if newest is not None and newest["scene"].get("tiles") else None
    stored = rnd["ledger_override"]
    return round_facts(
        variant=config.variant_name,
        rules=dict(config.rules),
        max_pip=config.max_pip,
        table_scene=scene,
        hands=hands,
        boneyard=rnd["boneyard"],
        boneyard_source=rnd["boneyard_source"],
        override=None if stored is None else Override(stored["problems"], stored["reason"]),
    )


def _went_out(rnd: Mapping[str, Any]) -> str | None:
    """The player a held domino says went out (their hand counts as empty)."""
    pending = rnd["pending_end"] or {}
    return pending.get("player") if pending.get("by") == "domino" else None


def set_table(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str,
    layout: object,
    boneyard: object,
) -> None:
    """Store the round's played lines and boneyard count for the rulings (validated by the
    rules engine when it judges). A count stored here is the host's (`boneyard_source`
    'entered'): the round's ledger trusts it for condition 2 of a block."""
    if layout is not None and not isinstance(layout, dict):
        raise Refused(
            'layout must be an object {"lines": [...]}', "wrong_type", field="layout", type="object"
        )
    if boneyard is not None and (
        not isinstance(boneyard, int) or isinstance(boneyard, bool) or boneyard < 0
    ):
        raise Refused(_("boneyard must be a whole number >= 0"), "bad_boneyard")
    with conn.transaction():
        rnd = open_round(conn, event_id, table_id)
        conn.execute(
            "UPDATE rounds SET layout = COALESCE(%s, layout), boneyard = COALESCE(%s, boneyard), "
            "boneyard_source = CASE WHEN %s::integer IS NULL THEN boneyard_source "
            "ELSE 'entered' END WHERE id = %s",
            (None if layout is None else Jsonb(layout), boneyard, boneyard, rnd["id"]),
        )


def rule(
    conn: psycopg.Connection[Any],
    event_id: int,
    config: EventConfig,
    table_id: str,
    *,
    by: str,
    who: str,
    author: str,
    confirm: bool = False,
) -> dict[str, Any]:
    """A block proposed by `who`, or domino called by `who` (`dominocam.rounds.operations.rule`, as
    in single-table mode): judged, then held for the table host (which locks the table's hands) or,
    when the host rules with `confirm`, scored (`_end`). A block check that stops locks nothing;
    play goes on.

    Returns:
        `{"by", "ended": bool, "held": bool, "outcome" (block), "pending" (held),
        "round", "result", "next_round" (scored)}`.

    Raises:
        RoundConflict: refused (a hand missing or to be confirmed again, another ruling
            waiting, the host checking, the table's reading doubtful, no open round).
        HeldForHost: held for the table host (the hands are then locked).
    """
    if who not in config.table(table_id).seats:
        raise Refused(
            _("{name} does not sit at table {table}").format(name=repr(who), table=table_id),
            "not_at_table",
            name=who,
            table=table_id,
        )
    try:
        lifecycle.lock_reason(by, who)  # 'block' or 'domino'
    except UserInputError as error:
        raise _conflict(error) from None
    with _as_round_conflict():
        ruled = operations.rule(
            PgRoundStore(conn, event_id, table_id, config), by, who, author=author, confirm=confirm
        )
    answer: dict[str, Any] = {"by": by, "ended": ruled.ended, "held": ruled.held}
    if ruled.outcome is not None:
        answer["outcome"] = lifecycle.public_outcome(ruled.outcome)
    if ruled.pending is not None:
        # Its text's code and parameters beside it, as stored (`PgRoundStore.set_pending_end`).
        answer["pending"] = dict(ruled.pending, words=phrases.to_json(ruled.pending["text"]))
    if ruled.result is not None:
        answer.update(ruled.result)
    return answer


def score_pending(
    conn: psycopg.Connection[Any], event_id: int, config: EventConfig, table_id: str
) -> dict[str, Any]:
    """The host confirms the held ruling (`dominocam.rounds.operations.score_held_ruling`): judged
    again on the hands as they are now (the host may have corrected one) and, if it still
    ends the round, scored; a block that no longer holds is dropped and the hands released."""

    def confirmed(by: str, who: str) -> dict[str, Any]:
        return rule(conn, event_id, config, table_id, by=by, who=who, author=HOST, confirm=True)

    with _as_round_conflict():
        return operations.score_held_ruling(
            PgRoundStore(conn, event_id, table_id, config),
            confirmed,
            lambda answer: bool(answer["ended"]),
        )


def _end(
    conn: psycopg.Connection[Any],
    event_id: int,
    config: EventConfig,
    table_id: str,
    rnd: RoundRow,
    ruling: Judged,
) -> dict[str, Any]:
    """Score the round into the table's game (the variant's end: target, descending
    doubles) and open the next round unless the game is over (inside the ruling's
    transaction). Returns `{"round", "result", "next_round"}`."""
    by, judged, author = ruling.by, ruling.value, ruling.author
    state_json, go = ruling.state, ruling.go
    game = table_game(conn, event_id, table_id, config)
    if by == "block":
        result = RoundResult.from_verdict(judged, engine=game.next_engine())
    else:
        result = RoundResult.from_score(judged, blocked=False, engine=game.next_engine())
    game = game.record(result)
    conn.execute(
        "UPDATE rounds SET status = 'ended', ended_by = %s, result = %s, ended_at = now(), "
        "pending_end = NULL WHERE id = %s",
        (
            by,
            Jsonb(
                {
                    "round": result.to_json(),
                    "verdict": judged.to_json() if by == "block" else None,
                    "state": state_json,
                    "ledger": go.to_dict(),
                }
            ),
            rnd.id,
        ),
    )
    next_round = None
    if not game.is_over:
        next_round = rnd.number + 1
        conn.execute(
            "INSERT INTO rounds (event_id, table_id, number) VALUES (%s, %s, %s)",
            (event_id, table_id, next_round),
        )
    record(
        conn,
        event_id,
        table_id,
        rnd.id,
        _note(
            "round-ended",
            author,
            f"round {rnd.number} scored ({by}): "
            + (", ".join(f"{k} {v}" for k, v in result.points.items()) or "no points"),
            round=rnd.number,
            ended_by=by,
            points=dict(result.points),
        ),
    )
    return {"round": rnd.number, "result": result.to_json(), "next_round": next_round}


def cancel_pending(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, reason: object
) -> None:
    """The host drops a held ruling (`dominocam.rounds.operations.cancel_ruling`): the hands are
    released and every hand is confirmed again before a new ruling."""
    with _as_round_conflict():
        operations.cancel_ruling(PgRoundStore(conn, event_id, table_id), reason)


def unlock_hands(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, reason: object
) -> None:
    """The host lets play go on (`dominocam.rounds.operations.unlock_hands`)."""
    with _as_round_conflict():
        operations.unlock_hands(PgRoundStore(conn, event_id, table_id), reason)


def override_ledger(
    conn: psycopg.Connection[Any],
    event_id: int,
    config: EventConfig,
    table_id: str,
    reason: object,
) -> dict[str, Any]:
    """The table host rules the round although it does not add up
    (`dominocam.rounds.operations.override_ledger`); then "score" scores the held ruling
    (`score_pending`), or the host rules again."""
    with _as_round_conflict():
        done = operations.override_ledger(PgRoundStore(conn, event_id, table_id, config), reason)
    return {"table": table_id, **done}


def host_review(
    conn: psycopg.Connection[Any], event_id: int, config: EventConfig, table_id: str
) -> dict[str, Any]:
    """The round's ledger for the table host (host only: it names hands' tiles), as single-
    table mode's correction screen has it: the set as cells (`round_ledger.cells`), each
    problem in words, what a ruling the host gives now waits for, why the held ruling was
    held, the host's override, the boneyard's count as entered, and every seat's hand."""
    rnd = conn.execute(
        "SELECT * FROM rounds WHERE event_id = %s AND table_id = %s AND status = 'open'",
        (event_id, table_id),
    ).fetchone()
    if rnd is None:
        raise RoundConflict(
            _("table {table} has no open round (its game is over)").format(table=table_id),
            "no_open_round",
            table=table_id,
        )
    facts = _facts(conn, config, table_id, rnd)
    pending = rnd["pending_end"]
    held_for = list(pending.get("reasons") or []) if pending and pending.get("waiting") else []
    return {
        "table": table_id,
        "round": rnd["number"],
        "pending": pending,
        "held_for": held_for,
        "held_for_shown": ledger_words.wait_text(held_for),
        "ledger": ledger_words.host_ledger(
            facts, _went_out(rnd), rnd["boneyard"], rnd["boneyard_source"]
        ),
        "hands": [
            {
                "seat": seat,
                "name": hand.player,
                "state": str(hand.state),
                "tiles": [tile.as_list() for tile in hand.tiles],
                "replaced": replaced_readings(conn, rnd["id"], hand.player),
            }
            for seat, hand in enumerate(facts.hands, start=1)
        ],
    }


def replaced_readings(
    conn: psycopg.Connection[Any], round_id: int, player_name: str
) -> list[dict[str, Any]]:
    """What was typed over this hand's photo readings or earlier confirmed lists this round,
    oldest first (`lifecycle.replaced_entry`; the host's view alone: it names tiles)."""
    rows = conn.execute(
        "SELECT action, author, detail, at FROM audit WHERE round_id = %s "
        "AND (action = %s OR (action = 'hand' AND detail ? 'after')) "
        "AND detail->>'player' = %s ORDER BY id",
        (round_id, lifecycle.TYPED_OVER_READING, player_name),
    ).fetchall()
    return [
        lifecycle.replaced_entry(
            row["action"], row["author"], row["at"].isoformat(), dict(row["detail"])
        )
        for row in rows
    ]


def reopen_last_round(
    conn: psycopg.Connection[Any],
    event_id: int,
    table_id: str,
    *,
    reason: object,
    author: str = HOST,
) -> dict[str, Any]:
    """Undo the table's last ended round (`dominocam.rounds.operations.reopen_last_round`): open
    again with its hands kept and locked, its points out of the standings; a round opened after it
    goes if nothing happened in it yet. Returns `{"round", "status": "open"}`."""
    with _as_round_conflict():
        number = operations.reopen_last_round(
            PgRoundStore(conn, event_id, table_id), reason, author=author
        )
    return {"round": number, "status": "open"}


# An audit entry's details for the host until its round has ended: a hand's tiles, the
# ledger's problems, and why a ruling waits (the public text says only that the host checks).
HOST_DETAIL = ("before", "after", "problems", "waits", "reading", "typed")


def audit_trail(
    conn: psycopg.Connection[Any], event_id: int, table_id: str, *, for_host: bool = False
) -> list[dict[str, Any]]:
    """The table's audit trail as anybody may see it now, oldest first: an entry of a round
    still open shows its public text (no tile, no pip total, no host's reason). The table's
    host sees every entry in full (as single-table mode's review screen: which tile a
    refused ruling found twice, and in whose hands), and the entries that are the host's
    alone (`lifecycle.HOST_ONLY`: tiles typed over a photo's reading), which nobody else
    ever sees, not even after the round: their mere presence says something of a hand."""
    out = []
    hidden = () if for_host else lifecycle.HOST_ONLY
    for row in conn.execute(
        "SELECT a.at, a.author, a.action, a.reason, a.detail, r.number, r.status "
        "FROM audit a LEFT JOIN rounds r ON r.id = a.round_id "
        "WHERE a.event_id = %s AND a.table_id = %s AND NOT (a.action = ANY(%s)) ORDER BY a.id",
        (event_id, table_id, list(hidden)),
    ):
        detail = dict(row["detail"])
        text = phrases.stored(detail.pop("text", ""), detail.pop("words", None))
        public_text = phrases.stored(
            detail.pop("public_text", text), detail.pop("public_words", None)
        )
        revealed = for_host or row["number"] is None or row["status"] == "ended"
        shown = lifecycle.shown_entry(text, public_text, row["reason"], revealed)
        out.append(
            {
                "at": row["at"].isoformat(),
                "round": row["number"],
                "author": row["author"],
                "action": row["action"],
                **shown,
                "detail": {k: v for k, v in detail.items() if revealed or k not in HOST_DETAIL},
            }
        )
    return out
