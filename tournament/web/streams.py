"""The public feed: a table's event stream and the event's, as server-sent events.

A web process keeps nothing of its own: a table's live events come from Redis pub/sub, so
any number of processes serve the same streams and one can be restarted while viewers are
connected (an EventSource reconnects with `Last-Event-ID` and gets the table's newest Scene
and state at once). One Redis connection per process listens to every table's channel
(`StreamHub`) and hands each message to the streams open on that process.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import redis
from flask import Blueprint, Response, request

from dominocam.i18n import current_language, use_language
from dominocam.server.json_fields import query_int
from dominocam.tournament import frames, store
from dominocam.tournament.web.services import (
    event_channel,
    event_id,
    known_table,
    pool,
    resources,
    shown_table,
)

bp = Blueprint("streams", __name__)

# A comment line on every stream this often, so proxies and clients see it is alive.
KEEPALIVE_S = 10.0

Inbox = queue.Queue[dict[str, Any] | None]


class StreamHub:
    """One pub/sub connection per process, fanned out to the streams open on it."""

    def __init__(self, redis_url: str, pattern: str) -> None:
        self.redis_url = redis_url
        self.pattern = pattern
        self.lock = threading.Lock()
        self.listeners: dict[str, set[Inbox]] = {}
        self.thread: threading.Thread | None = None
        self.ready = threading.Event()

    def listen(self, channel: str) -> Inbox:
        """A queue that receives every message of `channel` (None: the hub reconnected,
        messages may have been missed)."""
        inbox: Inbox = queue.Queue(maxsize=256)
        with self.lock:
            self.listeners.setdefault(channel, set()).add(inbox)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="stream-hub", daemon=True)
                self.thread.start()
        self.ready.wait(timeout=5.0)
        return inbox

    def leave(self, channel: str, inbox: Inbox) -> None:
        with self.lock:
            self.listeners.get(channel, set()).discard(inbox)

    def _deliver(self, channel: str, message: dict[str, Any] | None) -> None:
        with self.lock:
            inboxes = list(self.listeners.get(channel, ()))
        for inbox in inboxes:
            try:
                inbox.put_nowait(message)
            except queue.Full:
                # A client too slow to keep up: drop what waits and let it catch up from
                # the database instead (the stream sends a fresh snapshot on None).
                with contextlib.suppress(queue.Empty):
                    while True:
                        inbox.get_nowait()
                inbox.put_nowait(None)

    def _run(self) -> None:
        while True:
            try:
                client = redis.Redis.from_url(self.redis_url)
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(self.pattern)
                pubsub.get_message(timeout=1.0)  # the subscription's confirmation
                self.ready.set()
                while True:
                    message = pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    channel = message["channel"].decode()
                    self._deliver(channel, json.loads(message["data"]))
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                with self.lock:
                    channels = list(self.listeners)
                for channel in channels:
                    self._deliver(channel, None)
                time.sleep(0.5)


def sse(message: dict[str, Any]) -> str:
    """One message as an SSE event: a Scene's id is its frame sequence number."""
    kind = message.get("kind", "message")
    if kind == "scene":
        return f"id: {message['seq']}\nevent: scene\ndata: {store.dumps(message)}\n\n"
    return f"event: {kind}\ndata: {store.dumps(message)}\n\n"


def stream(channel: str, snapshot: Callable[[], Iterator[str]]) -> Response:
    """SSE: the snapshot at once (a reconnecting client catches up), then every message of
    the channel as it comes. The generator runs after the request has ended: it takes what
    it needs from `current_app` now."""
    hub: StreamHub = resources()["hub"]
    inbox = hub.listen(channel)  # before the snapshot: nothing falls in between

    def events() -> Iterator[str]:
        try:
            yield from snapshot()
            while True:
                try:
                    message = inbox.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if message is None:  # the hub lost Redis for a moment: catch up
                    yield from snapshot()
                    continue
                yield sse(message)
        finally:
            hub.leave(channel, inbox)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(events(), mimetype="text/event-stream", headers=headers)


@bp.get("/api/tables/<table_id>/events")
def table_events(table_id: str) -> Response:
    known_table(table_id)
    last = request.headers.get("Last-Event-ID", request.args.get("since", "0"))
    after = query_int(last, "Last-Event-ID", 0)  # 400 past 64-bit integers
    connections, event = pool(), event_id()
    # The snapshot is written after the request has ended: in the request's language.
    language = current_language()

    def snapshot() -> Iterator[str]:
        with use_language(language), connections.connection() as conn:
            state = shown_table(store.public_table(conn, event, table_id))
            latest = store.latest_scene(conn, event, table_id, after)
        yield f"event: table\ndata: {store.dumps(state)}\n\n"
        if latest is not None:
            yield sse({"kind": "scene", "table": table_id, **latest})

    return stream(frames.channel(event, table_id), snapshot)


@bp.get("/api/events")
def all_events() -> Response:
    def snapshot() -> Iterator[str]:
        yield "event: hello\ndata: {}\n\n"

    return stream(event_channel(), snapshot)
