"""Players' hands for the open round: a photo's reading, the owner's confirmation, the lock.

A hand's life: a photo is read into a *pending* reading (`read_hand_photo`); only when the
owner confirms it, as read or corrected (`confirm_hand`), is the hand in. A new photo of a
confirmed hand is pending again and never replaces the confirmed tiles by itself. Once a block
is proposed or a domino called the round's hands are locked (`rulings.lock_hands`): after that
only the host may change a hand, with a reason. Every change of a confirmed hand goes to the
audit trail (`audit`), whoever makes it. When play goes on again (`play_goes_on`) every
confirmed hand is to be confirmed again by its owner, as it is or corrected, before the next
ruling (`dominocam.rounds.ledger`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.errors import Refused
from dominocam.i18n import _
from dominocam.rounds import lifecycle, operations
from dominocam.server import storage
from dominocam.server.game import audit
from dominocam.server.game.records import lock_reason, open_round
from dominocam.server.game.round_store import SqliteRoundStore
from dominocam.server.storage import dumps, loads, now, transaction


def hand_row(conn: sqlite3.Connection, round_id: int, player_id: int) -> sqlite3.Row | None:
    return conn.execute(
        "SELECT * FROM hands WHERE round_id = ? AND player_id = ?", (round_id, player_id)
    ).fetchone()


def locked_message(rnd: sqlite3.Row) -> str:
    return lifecycle.locked_message(lock_reason(rnd) or "")


def read_hand_photo(
    conn: sqlite3.Connection,
    player: sqlite3.Row,
    tiles: list[list[int]],
    scene: dict[str, Any] | None,
    image_name: str,
) -> str | None:
    """Keep a new photo of the hand and its reading, pending the owner's confirmation.

    `scene` is None when no reader is installed: the photo is kept and the owner types the
    tiles. A confirmed hand stays as it is until the owner confirms the new reading.

    Returns:
        The pending photo this one replaces (never confirmed, so nothing keeps it: the
        caller deletes its file), or None.
    """
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        lifecycle.refuse_if_locked(lock_reason(rnd))
        row = hand_row(conn, rnd["id"], player["id"])
        replaced = row["pending_image"] if row is not None else None
        conn.execute(
            "INSERT INTO hands (round_id, player_id, pending, pending_scene, pending_image, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(round_id, player_id) DO UPDATE "
            "SET pending = excluded.pending, pending_scene = excluded.pending_scene, "
            "pending_image = excluded.pending_image, updated_at = excluded.updated_at",
            (
                rnd["id"],
                player["id"],
                None if scene is None else dumps(tiles),
                None if scene is None else dumps(scene),
                image_name,
                now(),
            ),
        )
        storage.add_event(conn, player["game_id"], "hand", {"player": player["name"], "photo": 1})
    return replaced if replaced != image_name else None


def attach_hand_photo(conn: sqlite3.Connection, player: sqlite3.Row, image_name: str) -> str | None:
    """Keep a hand photo that could not be read (no model); the tiles are entered by hand.
    Returns the pending photo it replaces, as `read_hand_photo`."""
    return read_hand_photo(conn, player, [], None, image_name)


def discard_pending(conn: sqlite3.Connection, player: sqlite3.Row) -> str | None:
    """Drop the new photo's reading and keep the confirmed hand
    (`dominocam.rounds.operations.discard_pending`). Returns the dropped photo (never confirmed: the
    caller deletes its file), or None."""
    store = SqliteRoundStore(conn, player["game_id"])
    return operations.discard_pending(store, player["name"])


def confirm_hand(
    conn: sqlite3.Connection,
    player: sqlite3.Row,
    tiles: object = None,
    author: str | None = None,
    reason: object = None,
) -> list[list[int]]:
    """Confirm the hand: the given tiles (corrected by the owner, or entered by the host), or
    the pending photo reading as it was read when `tiles` is None. The hand is then in.

    Args:
        author: the player's name (their own link) or `audit.HOST` (the table's admin).
        reason: why the host changes a hand; required once the hands are locked.

    Raises:
        Conflict: the hands are locked and the author is not the host, or there is no
            reading to confirm.
        UserInputError: bad tiles, or the host changes a locked hand without a reason.
    """
    store = SqliteRoundStore(conn, player["game_id"])
    confirmed = operations.confirm_hand(
        store, player["name"], tiles, author=author or player["name"], reason=reason
    )
    return confirmed.tiles


def replaced_readings(
    conn: sqlite3.Connection, round_id: int, player_name: str
) -> list[dict[str, Any]]:
    """What was typed over this hand's readings or earlier lists this round, oldest first:
    `{"time", "author", "source": "photo" | "hand", "reading", "typed"}` (the host's view
    alone: it names tiles of the hand)."""
    rows = conn.execute(
        "SELECT action, author, detail, created_at FROM audit WHERE round_id = ? "
        "AND (action = ? OR (action = 'hand' AND json_extract(detail, '$.after') IS NOT NULL)) "
        "AND json_extract(detail, '$.player') = ? ORDER BY id",
        (round_id, audit.TYPED_OVER_READING, player_name),
    ).fetchall()
    return [
        lifecycle.replaced_entry(
            row["action"], row["author"], row["created_at"], loads(row["detail"], {})
        )
        for row in rows
    ]


def play_goes_on(conn: sqlite3.Connection, round_id: int) -> None:
    """Play goes on after a ruling was sought (the host unlocks the hands after a block
    check that stopped, or reopens a round: a domino's winner was emptied, a hand may be
    wrong), or after a block check that stopped: every confirmed hand may now list tiles
    played since, so each is to be confirmed again by its owner before the next ruling
    (inside a transaction); the host's word on the ledger's old problems no longer holds
    (`dominocam.rounds.operations.play_goes_on`, which the round's operations call)."""
    conn.execute(
        "UPDATE hands SET to_confirm = 1 WHERE round_id = ? AND confirmed_at IS NOT NULL",
        (round_id,),
    )
    conn.execute("UPDATE rounds SET ledger_override = NULL WHERE id = ?", (round_id,))


def set_hand(
    conn: sqlite3.Connection,
    player: sqlite3.Row,
    tiles: object,
    author: str | None = None,
    reason: object = None,
) -> list[list[int]]:
    """Save and confirm a hand's tiles (`confirm_hand` with tiles given)."""
    if tiles is None:
        raise Refused(
            _("send 'tiles': a list of [a, b] pairs"), "missing_field", field="tiles", type="array"
        )
    return confirm_hand(conn, player, tiles, author, reason)


def declare_cannot_play(conn: sqlite3.Connection, player: sqlite3.Row, value: bool) -> None:
    """Record the player's declaration (`dominocam.rounds.operations.declare_cannot_play`); a false
    "cannot play" is a foul at the block check."""
    store = SqliteRoundStore(conn, player["game_id"])
    operations.declare_cannot_play(store, player["name"], value)
