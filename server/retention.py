"""How long photos are kept: the policy, and the pruning that applies it.

Policy (`PHOTO_RETENTION_DAYS`, default 30): the photos of a finished game (table photos,
camera frames, hand photos) are deleted once the game has been finished for that many days,
counted from its last round's end (or start, for a game finished mid-round); 0 deletes them
at the first pruning after the game finished; None keeps them for ever. The folder of a game
that no longer exists in the database is deleted at once. What was read from the photos
(Scenes, hands, scores) stays; the pages then show the tiles without the picture.

Pruning runs when the dashboard starts and at most once an hour after a write.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from dominocam.server import storage

DAY_S = 86400.0
PRUNE_EVERY_S = 3600.0
_GAME_FOLDER = re.compile(r"game-(\d+)")


@dataclass(frozen=True)
class Pruned:
    """What one pruning deleted: game ids whose photo folders went, and files removed."""

    games: tuple[int, ...]
    files: int


def finished_before(conn: sqlite3.Connection, cutoff: float) -> set[int]:
    """Ids of the finished games whose last round ended (or started) before `cutoff`."""
    rows = conn.execute(
        """
        SELECT g.id FROM games g LEFT JOIN rounds r ON r.game_id = g.id
        WHERE g.status = 'finished'
        GROUP BY g.id
        HAVING COALESCE(MAX(r.ended_at), MAX(r.started_at), g.created_at) <= ?
        """,
        (cutoff,),
    )
    return {int(row[0]) for row in rows}


def prune_photos(
    conn: sqlite3.Connection, upload_root: str | Path, retention_days: float | None, now: float
) -> Pruned:
    """Delete the photo folders the policy no longer keeps (see the module docstring) and
    forget the file names in the database."""
    root = Path(upload_root)
    if retention_days is None or not root.is_dir():
        return Pruned((), 0)
    folders = {
        int(m.group(1)): path
        for path in root.iterdir()
        if path.is_dir() and (m := _GAME_FOLDER.fullmatch(path.name))
    }
    if not folders:
        return Pruned((), 0)
    existing = {int(row[0]) for row in conn.execute("SELECT id FROM games")}
    expired = finished_before(conn, now - float(retention_days) * DAY_S)
    doomed = sorted(gid for gid in folders if gid not in existing or gid in expired)
    files = 0
    for gid in doomed:
        files += sum(1 for p in folders[gid].rglob("*") if p.is_file())
        shutil.rmtree(folders[gid], ignore_errors=True)
        if gid in existing:
            with storage.transaction(conn):
                conn.execute("UPDATE rounds SET table_image = NULL WHERE game_id = ?", (gid,))
                conn.execute(
                    "UPDATE hands SET image = NULL, pending_image = NULL WHERE round_id IN "
                    "(SELECT id FROM rounds WHERE game_id = ?)",
                    (gid,),
                )
    return Pruned(tuple(doomed), files)
