"""Reading on Celery workers: the Celery app, the reading task, and what a worker holds.

    dominocam worker --concurrency 2       # or: celery -A dominocam.tournament.worker worker

A task carries (event, table, frame sequence number) only; the frame itself waits in Redis
as the table's newest (`dominocam.tournament.frames`), so a worker that is behind reads the newest
frame and the ones it replaced are dropped, never queued. Each worker process loads the
models once (`worker_process_init`, or on its first task) and keeps one Redis client and one
PostgreSQL connection.

Killed mid-frame: tasks are acknowledged late, so the broker does not forget a task before
it ran; the frame a dead worker had claimed is not read again (`task_reject_on_worker_lost`
stays off: by then a newer frame is waiting, and reading an old one would be wasted), and
the Scene is written only once it is complete, in one transaction keyed by
(event, table, seq): a frame is either stored whole or not at all. The table's next frame
sends a new task as usual.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from celery import Celery, signals

from dominocam.errors import UserInputError
from dominocam.rounds import scene_state
from dominocam.rounds.lifecycle import parse_hand
from dominocam.tournament import frames, retention, rounds, settings, store
from dominocam.tournament.standings import table_game
from dominocam.vision.image_io import decode_image

log = logging.getLogger("dominocam.worker")

TASK_NAME = "tournament.read_frame"
HAND_TASK = "tournament.read_hand"
# A hand photo waits in Redis this long for a worker (then its owner sends it again).
HAND_PHOTO_TTL_S = 300
QUEUE = "dominocam.frames"


def make_app(broker_url: str | None = None) -> Celery:
    """The Celery app: Redis as broker, one queue for every table's reading tasks."""
    app = Celery("dominocam", broker=broker_url or settings.redis_url())
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=False,
        worker_prefetch_multiplier=1,
        task_default_queue=QUEUE,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
        # A task a dead worker had reserved (and never started) comes back after this long;
        # its table does not wait for it: `frames.PENDING_TTL_S` lets the next frame send
        # a new one.
        broker_transport_options={"visibility_timeout": 60},
        worker_hijack_root_logger=False,
    )
    return app


app = make_app()


@dataclass
class WorkerContext:
    """What one worker process holds: the photo reader with its models
    (`dominocam.vision.reading.PhotoReader`), a Redis client, a database connection, and each
    event's configuration (read once)."""

    reader: Any
    redis: Any
    db: Any
    name: str
    events: dict[int, Any] = field(default_factory=dict)

    # How a worker sends the task for a table's frame that came while it read one; the
    # Celery task by default (`benchmarks/dramatiq_reader.py` sends its own).
    send_read: Any = None

    def requeue(self, event_id: int, table_id: str, seq: int) -> None:
        if self.send_read is not None:
            self.send_read(event_id, table_id, seq)
        else:
            app.send_task(TASK_NAME, args=[event_id, table_id, seq], queue=QUEUE)

    def event(self, event_id: int) -> Any:
        if event_id not in self.events:
            self.events[event_id] = store.event_config(self.database(), event_id)
        return self.events[event_id]

    def database(self) -> Any:
        """The connection, made again if PostgreSQL dropped it (a restart, a failover): the
        frame being stored when it dropped is lost, the next ones are not."""
        if self.db.closed or self.db.broken:
            log.warning("worker process %s: reconnecting to PostgreSQL", self.name)
            self.db = store.connect(settings.database_url())
        return self.db


_context: WorkerContext | None = None
_context_pid: int | None = None


def context() -> WorkerContext:
    """This process' context, made on first use (after a fork: a new one per process)."""
    global _context, _context_pid
    if _context is None or _context_pid != os.getpid():
        from dominocam.vision.reading import PhotoReader

        threads = int(os.environ.get("DOMINOCAM_WORKER_THREADS", "1"))
        _context = WorkerContext(
            reader=PhotoReader.load(threads=threads),
            redis=redis.Redis.from_url(settings.redis_url()),
            db=store.connect(settings.database_url()),
            name=f"{socket.gethostname()}:{os.getpid()}",
        )
        _context_pid = os.getpid()
        log.info("worker process %s loaded the models", _context.name)
    return _context


@signals.worker_process_init.connect
def _load_in_child(**_: object) -> None:
    """Prefork children load the models as they start, not on their first frame."""
    context()


@dataclass(frozen=True)
class Outcome:
    """What one task did: `read` (a Scene stored), `stale` (nothing newer to read: another
    task read this table's newest frame), `duplicate` (already stored), or `bad` (the frame
    could not be decoded)."""

    status: str
    seq: int | None = None
    read_s: float = 0.0


# The rate a table's tracker counts in (`TrackerConfig.at_rate`): the frame rate a table's
# camera sends by default (`dominocam feed --fps 2`).
TRACK_FPS = 2.0


def table_tracker(ctx: WorkerContext, event_id: int, table_id: str, width: int, height: int) -> Any:
    """The table's tracker as its last frame left it (whichever worker read that frame), or
    a new one for the first frame or a new frame size; its layout follows the round (the
    tiles stay tracked when a new round brings a new engine)."""
    from dominocam.vision.reading import Game, tracker_config

    event = ctx.event(event_id)
    # The round's engine double (descending-doubles games, Mexican Train): the hub the
    # layout grows from.
    engine = table_game(ctx.database(), event_id, table_id, event).next_engine()
    game = Game(
        event.variant_name,
        len(event.table(table_id).seats),
        None if engine is None else engine.high,
    )
    config = tracker_config(TRACK_FPS, event.max_pip, game)
    state = frames.tracker_state(ctx.redis, event_id, table_id)
    if state is not None and (state["width"], state["height"]) != (width, height):
        state = None
    return ctx.reader.tracker(width, height, config, state)


def read_newest(ctx: WorkerContext, event_id: int, table_id: str) -> Outcome:
    """Claim the table's newest frame, track it, store the Scene and publish it."""
    claimed = frames.claim(ctx.redis, event_id, table_id, ctx.name)
    if claimed is None:
        return Outcome("stale")
    try:
        outcome = _track_claimed(ctx, event_id, table_id, claimed)
    finally:
        if frames.release(ctx.redis, event_id, table_id, ctx.name, claimed.seq):
            ctx.requeue(event_id, table_id, claimed.seq)
    return outcome


def _track_claimed(
    ctx: WorkerContext, event_id: int, table_id: str, claimed: frames.Claimed
) -> Outcome:
    started = time.perf_counter()
    try:
        image = decode_image(claimed.jpeg, f"frame {claimed.seq} of table {table_id}")
    except UserInputError as error:
        log.warning("%s", error)
        ctx.redis.hincrby(frames.table_key(event_id, table_id, "stats"), "bad", 1)
        return Outcome("bad", claimed.seq)
    height, width = image.shape[:2]
    tracker = table_tracker(ctx, event_id, table_id, width, height)
    result = ctx.reader.track(tracker, image, claimed.sent_at)
    read_s = time.perf_counter() - started
    scene_json = result.scene.to_dict()
    # As the single-table camera: each tile's track id, and the tiles held while unseen.
    for tile, track in zip(scene_json["tiles"], result.tracks, strict=True):
        tile["track"] = track
    scene_json["hidden"] = list(result.hidden)
    frames.save_tracker(ctx.redis, event_id, table_id, claimed.seq, tracker.to_state())
    stored = store.store_scene(
        ctx.database(),
        event_id,
        table_id,
        claimed.seq,
        scene_json,
        sent_at=claimed.sent_at,
        read_s=read_s,
        worker=ctx.name,
    )
    if not stored:
        return Outcome("duplicate", claimed.seq, read_s)
    frames.count_read(ctx.redis, event_id, table_id)
    retention.prune_if_due(ctx.redis, ctx.database(), event_id)
    message = {
        "kind": "scene",
        "table": table_id,
        "seq": claimed.seq,
        "scene": scene_json,
        "events": [event.to_dict() for event in result.events],
    }
    ctx.redis.publish(frames.channel(event_id, table_id), json.dumps(message))
    return Outcome("read", claimed.seq, read_s)


@app.task(name=TASK_NAME, ignore_result=True)
def read_frame(event_id: int, table_id: str, seq: int) -> str:
    """Read the newest frame of a table (`seq` is the frame that sent this task; a newer
    one, if any, is read instead)."""
    outcome = read_newest(context(), event_id, table_id)
    log.debug("table %s frame %s (sent %s): %s", table_id, outcome.seq, seq, outcome.status)
    return outcome.status


def hand_photo_key(event_id: int, player_id: int) -> str:
    return f"{frames.PREFIX}:e{event_id}:hand:{player_id}"


def read_hand_photo(ctx: WorkerContext, event_id: int, player_id: int) -> str:
    """Read a player's hand photo into a pending reading (their confirmation makes it the
    hand); tell the table's stream that a reading waits (no tiles in the message)."""
    key = hand_photo_key(event_id, player_id)
    pipe = ctx.redis.pipeline()
    pipe.get(key)
    pipe.delete(key)
    jpeg, _ = pipe.execute()
    if jpeg is None:
        return "gone"  # a newer photo's task read it, or it expired
    config = ctx.event(event_id)
    conn = ctx.database()
    row = conn.execute(
        "SELECT p.id, p.name, p.team, s.table_id, s.seat FROM players p JOIN seats s "
        "ON s.player_id = p.id WHERE p.event_id = %s AND p.id = %s",
        (event_id, player_id),
    ).fetchone()
    if row is None:
        return "unknown"
    player = store.Player(row["id"], row["name"], row["team"], row["table_id"], row["seat"])
    try:
        tiles, scene_json = hand_reading(ctx.reader, jpeg, config.max_pip, player.name)
    except UserInputError as error:
        log.warning("%s", error)
        return "bad"
    if not rounds.store_pending_reading(conn, event_id, player, tiles, scene_json):
        return "locked"
    message = {"kind": "hand", "table": player.table_id, "player": player.name, "reading": 1}
    ctx.redis.publish(frames.channel(event_id, player.table_id), json.dumps(message))
    return "read"


def hand_reading(
    reader: Any, jpeg: bytes, set_max: int, owner: str
) -> tuple[list[list[int]], dict[str, Any]]:
    """A hand photo (JPEG bytes) read as every hand photo is read, the dashboard's too
    (`dominocam.vision.reading.PhotoReader.read`, kind "hand"): (the tiles it shows, its Scene
    JSON).

    A reading that cannot be a hand (a tile twice) gives no tiles and says why in the
    Scene's warnings: the owner corrects it.

    Raises:
        UserInputError: the bytes are not a picture (`owner` names it in the message).
    """
    image = decode_image(jpeg, f"hand photo of {owner}")
    scene_json = reader.read(image, "hand", set_max).to_dict()
    try:
        tiles = parse_hand(scene_state.hand_tiles(scene_json), set_max)
    except UserInputError as error:
        tiles = []
        scene_json.setdefault("warnings", []).append(str(error))
        if isinstance(scene_json.get("notes"), list):  # kept beside the warnings
            scene_json["notes"].append({"code": None, "params": {}, "text": str(error)})
    return tiles, scene_json


@app.task(name=HAND_TASK, ignore_result=True)
def read_hand(event_id: int, player_id: int) -> str:
    """Read the newest hand photo a player sent (one waits per player)."""
    return read_hand_photo(context(), event_id, player_id)


def send_hand_photo(
    client: Any, celery_app: Celery, event_id: int, player_id: int, jpeg: bytes
) -> None:
    """Keep the photo for a worker (a newer one replaces it) and send the reading task."""
    client.set(hand_photo_key(event_id, player_id), jpeg, ex=HAND_PHOTO_TTL_S)
    celery_app.send_task(HAND_TASK, args=[event_id, player_id], queue=QUEUE)


def send_frame(
    client: Any, celery_app: Celery, event_id: int, table_id: str, jpeg: bytes, **kw: Any
) -> frames.Submitted:
    """Store a frame as the table's newest and send a reading task when none waits.

    This is what a table's camera process (or the web API) calls; it needs Redis and the
    Celery app only, not the models.
    """
    submitted = frames.submit(client, event_id, table_id, jpeg, **kw)
    if submitted.send_task:
        celery_app.send_task(TASK_NAME, args=[event_id, table_id, submitted.seq], queue=QUEUE)
    return submitted
