"""How long an event keeps its Scenes: the policy, and the pruning that applies it.

Policy (`DOMINOCAM_SCENE_RETENTION_MIN`, default 60 minutes): a Scene stored longer ago than
that is deleted, except each table's newest (the one its pages and streams show). At 2 frames
a second a table stores about 7,200 Scenes an hour (1.1 KiB each), 64 tables about 500 MiB
an hour: kept for ever they would outgrow the event's database within a day. 0 keeps only
each table's newest; "off" keeps them all. What the rounds hold (hands, results, the audit
trail) is never pruned; a photo's reading that no one confirmed is dropped once its round
has ended.

Frames never build up: Redis holds each table's newest frame only, and a hand photo for
`worker.HAND_PHOTO_TTL_S`.

Pruning runs on the workers, at most once a `PRUNE_EVERY_S` per event whichever worker
stores a Scene first after that (a Redis key taken with `SET NX EX`), in one statement.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from dominocam.errors import UserInputError
from dominocam.tournament import frames

DEFAULT_RETENTION_MIN = 60.0
PRUNE_EVERY_S = 60


@dataclass(frozen=True)
class Pruned:
    """What one pruning deleted."""

    scenes: int
    readings: int


def retention_minutes() -> float | None:
    """The policy from `$DOMINOCAM_SCENE_RETENTION_MIN` (None: keep every Scene)."""
    raw = os.environ.get("DOMINOCAM_SCENE_RETENTION_MIN", str(DEFAULT_RETENTION_MIN))
    if raw.strip().lower() == "off":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        raise UserInputError(
            f"DOMINOCAM_SCENE_RETENTION_MIN must be minutes >= 0 or 'off', got {raw!r}"
        )
    return value


def prune(conn: Any, event_id: int, retention_min: float | None) -> Pruned:
    """Delete the event's Scenes the policy no longer keeps, and unconfirmed hand readings
    of ended rounds."""
    if retention_min is None:
        return Pruned(0, 0)
    with conn.transaction():
        scenes = conn.execute(
            "DELETE FROM scenes s USING event_tables t WHERE s.event_id = %s "
            "AND t.event_id = s.event_id AND t.id = s.table_id AND s.seq < t.latest_seq "
            "AND s.stored_at < now() - make_interval(secs => %s)",
            (event_id, retention_min * 60.0),
        ).rowcount
        readings = conn.execute(
            "UPDATE hands h SET pending = NULL, pending_scene = NULL FROM rounds r "
            "WHERE r.id = h.round_id AND r.event_id = %s AND r.status = 'ended' "
            "AND h.pending_scene IS NOT NULL",
            (event_id,),
        ).rowcount
    return Pruned(scenes, readings)


def prune_if_due(client: Any, conn: Any, event_id: int) -> Pruned | None:
    """Prune when no process of the event did in the last `PRUNE_EVERY_S` (None: not due)."""
    key = f"{frames.PREFIX}:e{event_id}:pruned"
    if not client.set(key, "1", nx=True, ex=PRUNE_EVERY_S):
        return None
    return prune(conn, event_id, retention_minutes())
