"""The audit trail: every change after a hand was confirmed, every lock, every correction the
host makes after the fact (reopened rounds, corrected scores, renamed players), with its time,
author and reason.

An entry has two texts: `public_text` names no tile and no pip total and may be shown to
everybody at once; `text` may name tiles (a hand before and after) and is shown to everybody
only once the entry's round has ended (`entries`). A few entries are the host's alone
(`HOST_ONLY`: tiles typed instead of a photo's reading): no public list ever shows them, not
even after the round, since their mere presence says something of a hand.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.rounds.lifecycle import (
    HOST,
    HOST_ONLY,
    TYPED_OVER_READING,
    AuditEntry,
    require_reason,
    shown_entry,
)
from dominocam.rules import phrases
from dominocam.server.storage import dumps, loads, now

__all__ = [
    "HOST",
    "HOST_ONLY",
    "TYPED_OVER_READING",
    "entries",
    "record",
    "record_entry",
    "require_reason",
    "round_entries",
]

# `TYPED_OVER_READING` (tiles typed instead of a photo's reading) and the other `HOST_ONLY`
# actions are shown on the host's screens only (`hands.replaced_readings`), never in
# `entries` or `round_entries`.
_PUBLIC = "a.action NOT IN ({})".format(", ".join("?" * len(HOST_ONLY)))

# How many entries the public state carries, newest first.
LATEST_ENTRIES = 50


def record(
    conn: sqlite3.Connection,
    game_id: int,
    round_id: int | None,
    action: str,
    author: str,
    text: str,
    public_text: str | None = None,
    reason: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    """Add an entry (inside the caller's transaction). `text` and `public_text` made from
    `dominocam.rounds.wording`'s templates (`dominocam.rules.phrases.Phrase`) are stored with their
    code and parameters beside them (`words`, `public_words`), which pages write in their
    reader's language."""
    public = public_text or text
    payload = dict(detail or {}, text=str(text), public_text=str(public))
    words, public_words = phrases.to_json(text), phrases.to_json(public)
    if words is not None:
        payload["words"] = words
    if public_words is not None:
        payload["public_words"] = public_words
    conn.execute(
        "INSERT INTO audit (game_id, round_id, action, author, reason, detail, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (game_id, round_id, action, author, reason, dumps(payload), now()),
    )


def record_entry(
    conn: sqlite3.Connection, game_id: int, round_id: int | None, entry: AuditEntry
) -> None:
    """Add a `lifecycle.AuditEntry` (inside the caller's transaction)."""
    record(
        conn,
        game_id,
        round_id,
        entry.action,
        entry.author,
        entry.text,
        entry.public_text,
        entry.reason,
        entry.detail,
    )


def entries(
    conn: sqlite3.Connection, game_id: int, limit: int = LATEST_ENTRIES
) -> list[dict[str, Any]]:
    """The game's entries, newest first, as anybody may see them now: an entry of a round
    still open shows its public text only (no tile, no pip total, no host's reason)."""
    rows = conn.execute(
        "SELECT a.*, r.number AS round_number, r.status AS round_status FROM audit a "
        f"LEFT JOIN rounds r ON r.id = a.round_id WHERE a.game_id = ? AND {_PUBLIC} "
        "ORDER BY a.id DESC LIMIT ?",
        (game_id, *HOST_ONLY, limit),
    ).fetchall()
    out = []
    for row in rows:
        detail = loads(row["detail"], {})
        revealed = row["round_id"] is None or row["round_status"] == "ended"
        out.append(
            {
                "id": row["id"],
                "time": row["created_at"],
                "round": row["round_number"],
                "action": row["action"],
                "author": row["author"],
                **shown_entry(detail["text"], detail["public_text"], row["reason"], revealed),
                "shown": _shown(detail, revealed),
                "words": detail.get("words" if revealed else "public_words"),
            }
        )
    return out


def _shown(detail: dict[str, Any], revealed: bool) -> str:
    """An entry's text (its public text while its round is open) in the reader's language,
    written from its stored code and parameters; an entry stored without them shows its
    stored text."""
    if revealed:
        return phrases.said(str(detail["text"]), detail.get("words"))
    return phrases.said(str(detail["public_text"]), detail.get("public_words"))


def round_entries(conn: sqlite3.Connection, round_id: int) -> list[dict[str, Any]]:
    """Every entry of one ended round, oldest first, in full (tiles, totals, reasons).

    Only for rounds that have ended: the caller (`history`) never passes an open one.
    """
    rows = conn.execute(
        "SELECT a.*, r.number AS round_number FROM audit a JOIN rounds r ON r.id = a.round_id "
        f"WHERE a.round_id = ? AND r.status = 'ended' AND {_PUBLIC} ORDER BY a.id",
        (round_id, *HOST_ONLY),
    ).fetchall()
    out = []
    for row in rows:
        detail = loads(row["detail"], {})
        out.append(
            {
                "id": row["id"],
                "time": row["created_at"],
                "round": row["round_number"],
                "action": row["action"],
                "author": row["author"],
                "reason": row["reason"],
                "text": detail["text"],
                "shown": _shown(detail, True),
                "words": detail.get("words"),
            }
        )
    return out
