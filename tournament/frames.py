"""A table's frames in Redis: the newest frame wins.

Each table keeps one frame, its `latest`, in a Redis hash; a new frame replaces it and gets
the next sequence number. A reading task carries only (event, table, sequence number) and
at most one task per table waits in the broker's queue (the `pending` key), so a table that
sends faster than the workers read never builds a queue. A worker that starts a task claims
the table's newest frame, whatever task sent it; the frames it replaced were never read
and are counted as dropped. Both steps are Lua scripts, atomic in Redis.

Sequence numbers start at Redis' clock in microseconds when a table's counter is created, so
they keep growing if Redis restarts without its data (PostgreSQL keys Scenes by them).

One frame of a table is read at a time (the `reading` mark): a table's frames go through one tracker
(`dominocam.vision.track.TableTracker`), whose state waits in Redis between frames (`tracker`), so
whichever worker is free reads the table's next frame and the track goes on. A worker that finishes
sends the task for a frame that came meanwhile (`release`).

Counters per table (`stats`): `sent`, `dropped` (replaced before any worker claimed
them), `claimed`, `read` (a Scene stored); `claimed - read` frames were lost to a worker
that died mid-frame.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis

PREFIX = "dominocam"

# How long a table's `pending` mark lives: if its task is lost (a worker killed after taking
# it from the queue but before starting it), the table's next frame sends a task again.
PENDING_TTL_S = 5

# KEYS: seq, frame, pending, stats. ARGV: jpeg, sent_at, pending ttl.
# Returns {seq, 1 if a task must be sent else 0}.
SUBMIT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[1], now[1] .. string.format('%06d', tonumber(now[2])))
end
redis.call('INCR', KEYS[1])
-- As text: Lua numbers are doubles, which Redis would write back in exponent form.
local seq = redis.call('GET', KEYS[1])
redis.call('HSET', KEYS[2], 'seq', seq, 'jpeg', ARGV[1], 'sent_at', ARGV[2])
redis.call('HINCRBY', KEYS[4], 'sent', 1)
local send = redis.call('SET', KEYS[3], seq, 'NX', 'EX', tonumber(ARGV[3]))
if send then return {seq, 1} end
return {seq, 0}
"""

# How long a table's `reading` mark (one frame at a time per table) outlives a worker that
# died mid-frame: a frame takes well under this to read, even on a loaded machine.
READING_TTL_S = 15

# KEYS: frame, claimed, pending, stats, reading. ARGV: worker name, reading ttl.
# Returns {} when no frame newer than the last claimed one exists, or when another worker is
# reading this table (the `pending` mark stays, so frames coming meanwhile send no tasks;
# that worker sends one for the newest frame when it is done: `RELEASE`); else
# {seq, jpeg, sent_at}.
CLAIM = """
if redis.call('EXISTS', KEYS[5]) == 1 then return {} end
redis.call('DEL', KEYS[3])
local latest_text = redis.call('HGET', KEYS[1], 'seq')
if not latest_text then return {} end
local latest = tonumber(latest_text)
local claimed = tonumber(redis.call('GET', KEYS[2]))
if claimed and latest <= claimed then return {} end
if claimed then
  local skipped = latest - claimed - 1
  if skipped > 0 then redis.call('HINCRBY', KEYS[4], 'dropped', skipped) end
else
  local sent = tonumber(redis.call('HGET', KEYS[4], 'sent') or '1')
  if sent > 1 then redis.call('HINCRBY', KEYS[4], 'dropped', sent - 1) end
end
redis.call('SET', KEYS[2], latest_text)
redis.call('HINCRBY', KEYS[4], 'claimed', 1)
redis.call('SET', KEYS[5], ARGV[1] .. ' ' .. latest_text, 'EX', tonumber(ARGV[2]))
local frame = redis.call('HMGET', KEYS[1], 'jpeg', 'sent_at')
return {latest_text, frame[1], frame[2]}
"""


# KEYS: reading, frame, claimed, pending. ARGV: worker name, seq, pending ttl.
# The worker's frame is done (stored or not): clear its `reading` mark (if still its own) and
# return 1 when a newer frame came meanwhile (the caller sends its task; a task that might
# wait already finds nothing newer and ends), else 0.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] .. ' ' .. ARGV[2] then redis.call('DEL', KEYS[1]) end
local latest_text = redis.call('HGET', KEYS[2], 'seq') or '0'
local claimed = tonumber(redis.call('GET', KEYS[3]) or '0')
if tonumber(latest_text) > claimed then
  redis.call('SET', KEYS[4], latest_text, 'EX', tonumber(ARGV[3]))
  return 1
end
return 0
"""

# KEYS: tracker. ARGV: seq, state. Keep the state of the newest frame only: a worker whose
# `reading` mark expired (it was very slow) never puts the tracker back in time.
SAVE_TRACKER = """
local saved = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if tonumber(ARGV[1]) <= saved then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'state', ARGV[2])
return 1
"""


def table_key(event_id: int, table_id: str, what: str) -> str:
    """The Redis key of one table's `what` (seq, frame, claimed, pending, stats, reading)."""
    return f"{PREFIX}:e{event_id}:t:{table_id}:{what}"


def channel(event_id: int, table_id: str) -> str:
    """The pub/sub channel of a table's events (Scenes read, rounds ended)."""
    return f"{PREFIX}:e{event_id}:t:{table_id}:events"


@dataclass(frozen=True)
class Submitted:
    """A frame stored as its table's latest: its sequence number, and whether a reading
    task must be sent (False: one is already waiting and will read this frame)."""

    seq: int
    send_task: bool


@dataclass(frozen=True)
class Claimed:
    """The newest frame of a table, claimed by one worker: JPEG bytes and when it was sent
    (seconds since the epoch, the sender's clock)."""

    seq: int
    jpeg: bytes
    sent_at: float


def submit(
    client: redis.Redis, event_id: int, table_id: str, jpeg: bytes, sent_at: float | None = None
) -> Submitted:
    """Store `jpeg` as the table's newest frame (the previous one, if unread, is dropped)."""
    keys = [table_key(event_id, table_id, k) for k in ("seq", "frame", "pending", "stats")]
    when = time.time() if sent_at is None else sent_at
    seq, send = client.eval(SUBMIT, len(keys), *keys, jpeg, repr(when), PENDING_TTL_S)
    return Submitted(int(seq), bool(send))


def claim(client: redis.Redis, event_id: int, table_id: str, worker: str) -> Claimed | None:
    """Claim the table's newest frame for `worker`; None when no frame is newer than the
    last one claimed (the task that asked was overtaken by one that read it already)."""
    keys = [
        table_key(event_id, table_id, k)
        for k in ("frame", "claimed", "pending", "stats", "reading")
    ]
    found = client.eval(CLAIM, len(keys), *keys, worker, READING_TTL_S)
    if not found:
        return None
    seq, jpeg, sent_at = found
    return Claimed(int(seq), bytes(jpeg), float(sent_at))


def count_read(client: redis.Redis, event_id: int, table_id: str) -> None:
    """Count one frame read and stored."""
    client.hincrby(table_key(event_id, table_id, "stats"), "read", 1)


def release(client: redis.Redis, event_id: int, table_id: str, worker: str, seq: int) -> bool:
    """The frame `seq` is done: the table may be claimed again. True when a newer frame
    waits and the caller must send its task (none was sent while this one was read)."""
    keys = [table_key(event_id, table_id, k) for k in ("reading", "frame", "claimed", "pending")]
    return bool(client.eval(RELEASE, len(keys), *keys, worker, seq, PENDING_TTL_S))


def tracker_state(client: redis.Redis, event_id: int, table_id: str) -> dict[str, Any] | None:
    """The table's tracker as the last frame read left it (`TableTracker.to_state`)."""
    raw = client.hget(table_key(event_id, table_id, "tracker"), "state")
    return None if raw is None else json.loads(raw)


def save_tracker(
    client: redis.Redis, event_id: int, table_id: str, seq: int, state: dict[str, Any]
) -> bool:
    """Keep the tracker after frame `seq`; False when a newer frame's state is kept."""
    key = table_key(event_id, table_id, "tracker")
    return bool(client.eval(SAVE_TRACKER, 1, key, seq, json.dumps(state)))


def stats(client: redis.Redis, event_id: int, table_id: str) -> dict[str, int]:
    """The table's counters: sent, dropped, claimed, read (missing ones are 0)."""
    raw: dict[Any, Any] = client.hgetall(table_key(event_id, table_id, "stats"))
    counts = {k.decode() if isinstance(k, bytes) else k: int(v) for k, v in raw.items()}
    return {name: counts.get(name, 0) for name in ("sent", "dropped", "claimed", "read")}


def reading(client: redis.Redis, event_id: int, table_id: str) -> tuple[str, int] | None:
    """(worker, seq) of the frame a worker claimed and has not stored yet, else None."""
    raw = client.get(table_key(event_id, table_id, "reading"))
    if raw is None:
        return None
    worker, seq = (raw.decode() if isinstance(raw, bytes) else raw).rsplit(" ", 1)
    return worker, int(seq)
