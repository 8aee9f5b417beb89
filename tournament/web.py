"""The event's stateless web process: standings, tables, hands, frames, event streams.

    dominocam serve --tournament CONFIG --port 5000     # as many as you like, one address

A web process keeps nothing of its own: state is in PostgreSQL, a table's live events come
from Redis pub/sub, so any number of them serve the same streams and one can be restarted
while viewers are connected (an EventSource reconnects with `Last-Event-ID` and gets the
table's newest Scene and state at once).

One Redis connection per process listens to every table's channel (`StreamHub`) and hands
each message to the streams open on that process.

Auth: public (standings, tables, Scenes, streams: no hand before its round ends); the
event's admin token as `Authorization: Bearer TOKEN` (frames, ending a round); a player's
token the same way (their own hand only).
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, jsonify, render_template_string, request
from werkzeug.exceptions import HTTPException

from dominocam.errors import UserInputError
from tournament import frames, store
from tournament.pages import EVENT_OVERLAY, HAND_PAGE, STANDINGS_PAGE, TABLE_OVERLAY
from tournament.standings import event_standings

# A comment line on every stream this often, so proxies and clients see it is alive.
KEEPALIVE_S = 10.0
MAX_FRAME_BYTES = 8 * 1024 * 1024


class NoCredentials(PermissionError):
    """No token was sent (HTTP 401; a wrong one is a plain PermissionError, 403)."""


class UnknownTable(LookupError):
    """The event has no such table (HTTP 404)."""


class StreamHub:
    """One pub/sub connection per process, fanned out to the streams open on it."""

    def __init__(self, redis_url: str, pattern: str) -> None:
        self.redis_url = redis_url
        self.pattern = pattern
        self.lock = threading.Lock()
        self.listeners: dict[str, set[queue.Queue[dict[str, Any] | None]]] = {}
        self.thread: threading.Thread | None = None
        self.ready = threading.Event()

    def listen(self, channel: str) -> queue.Queue[dict[str, Any] | None]:
        """A queue that receives every message of `channel` (None: the hub reconnected,
        messages may have been missed)."""
        inbox: queue.Queue[dict[str, Any] | None] = queue.Queue(maxsize=256)
        with self.lock:
            self.listeners.setdefault(channel, set()).add(inbox)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="stream-hub", daemon=True)
                self.thread.start()
        self.ready.wait(timeout=5.0)
        return inbox

    def leave(self, channel: str, inbox: queue.Queue[dict[str, Any] | None]) -> None:
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
        import redis

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


def create_app(database_url: str, redis_url: str, event_id: int) -> Flask:
    """The web app of one event (any number of processes may serve it at once)."""
    import psycopg
    import redis
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool, PoolTimeout

    from tournament.worker import make_app, send_frame

    app = Flask("tournament")
    pool = ConnectionPool(
        database_url,
        min_size=1,
        max_size=16,
        kwargs={"autocommit": True, "row_factory": dict_row},
        open=True,
        timeout=10.0,  # a request waits this long for a connection, then answers 503
    )
    client = redis.Redis.from_url(redis_url)
    celery_app = make_app(redis_url)
    hub = StreamHub(redis_url, f"{frames.PREFIX}:e{event_id}:*")
    event_channel = f"{frames.PREFIX}:e{event_id}:event"
    app.extensions["dominocam.tournament"] = {"pool": pool, "hub": hub}

    def config() -> Any:
        with pool.connection() as conn:
            return store.event_config(conn, event_id)

    def bearer() -> str:
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer ") or not header[7:].strip():
            raise NoCredentials("send 'Authorization: Bearer TOKEN'")
        return header[7:].strip()

    def require_admin() -> None:
        token = bearer()
        with pool.connection() as conn:
            if not store.is_admin(conn, event_id, token):
                raise PermissionError("this needs the event's admin token")

    def known_table(table_id: str) -> None:
        try:
            config().table(table_id)
        except KeyError:
            raise UnknownTable(f"no table {table_id!r} in this event") from None

    @app.errorhandler(UserInputError)
    def bad_input(error: UserInputError) -> tuple[Response, int]:
        status = 409 if isinstance(error, store.RoundConflict) else 400
        return jsonify(error=str(error), status=status), status

    @app.errorhandler(PermissionError)
    def refused(error: PermissionError) -> tuple[Response, int]:
        status = 401 if isinstance(error, NoCredentials) else 403
        return jsonify(error=str(error), status=status), status

    @app.errorhandler(UnknownTable)
    def not_found(error: UnknownTable) -> tuple[Response, int]:
        return jsonify(error=str(error), status=404), 404

    @app.errorhandler(psycopg.OperationalError)
    @app.errorhandler(PoolTimeout)
    def database_away(error: Exception) -> tuple[Response, int]:
        app.logger.warning("PostgreSQL unreachable: %s", error)
        return jsonify(error="the event's database cannot be reached; try again", status=503), 503

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    def broker_away(error: Exception) -> tuple[Response, int]:
        app.logger.warning("Redis unreachable: %s", error)
        return jsonify(error="the event's broker cannot be reached; try again", status=503), 503

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Response, int]:
        status = error.code or 500
        return jsonify(error=error.description, status=status), status

    @app.get("/")
    def standings_page() -> str:
        with pool.connection() as conn:
            return render_template_string(
                STANDINGS_PAGE, s=event_standings(conn, event_id, config())
            )

    @app.get("/overlay")
    def event_overlay() -> str:
        return render_template_string(EVENT_OVERLAY)

    @app.get("/tables/<table_id>/overlay")
    def table_overlay(table_id: str) -> str:
        known_table(table_id)
        return render_template_string(TABLE_OVERLAY, table_id=table_id)

    @app.get("/hand/<token>")
    def hand_page(token: str) -> Response:
        """A player's phone page (the link printed when the event was made); it reads and
        saves that player's own hand through the API with the token of its address."""
        page = render_template_string(HAND_PAGE, token=token)
        return Response(page, headers={"Cache-Control": "no-store"})

    @app.get("/api/health")
    def health() -> Response:
        with pool.connection() as conn:
            conn.execute("SELECT 1")
        client.ping()
        return jsonify(ok=True, event=event_id)

    @app.get("/api/event")
    def event() -> Response:
        data = config().to_json()
        return jsonify(
            event=data["event"],
            variant=data["variant"],
            set=data["set"],
            tables=data["tables"],
            players=data["players"],
        )

    @app.get("/api/standings")
    def standings() -> Response:
        with pool.connection() as conn:
            return jsonify(event_standings(conn, event_id, config()))

    @app.get("/api/tables/<table_id>")
    def table(table_id: str) -> Response:
        known_table(table_id)
        with pool.connection() as conn:
            data = store.public_table(conn, event_id, table_id)
            data["scene"] = store.latest_scene(conn, event_id, table_id)
        data["frames"] = frames.stats(client, event_id, table_id)
        return jsonify(data)

    @app.post("/api/tables/<table_id>/frames")
    def frame(table_id: str) -> tuple[Response, int]:
        require_admin()
        known_table(table_id)
        body = request.get_data(cache=False)
        if not body.startswith(b"\xff\xd8\xff"):
            raise UserInputError("a frame must be a JPEG (Content-Type: image/jpeg)")
        if len(body) > MAX_FRAME_BYTES:
            raise UserInputError(f"a frame may be {MAX_FRAME_BYTES // 2**20} MiB at most")
        submitted = send_frame(client, celery_app, event_id, table_id, body)
        return jsonify(seq=submitted.seq, queued=submitted.send_task), 202

    def publish_round(table_id: str, round_view: Any) -> None:
        """Tell the table's and the event's streams that a round changed."""
        message = json.dumps({"kind": "round", "table": table_id, "round": round_view})
        client.publish(frames.channel(event_id, table_id), message)
        client.publish(event_channel, message)

    @app.post("/api/tables/<table_id>/rounds/current/end")
    def end(table_id: str) -> Response:
        require_admin()
        known_table(table_id)
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            raise UserInputError('send a JSON object: {"ended_by": "block"|"domino", ...}')
        boneyard = body.get("boneyard", 0)
        if not isinstance(boneyard, int) or isinstance(boneyard, bool) or boneyard < 0:
            raise UserInputError("boneyard must be a whole number >= 0")
        with pool.connection() as conn:
            outcome = store.end_round(
                conn,
                event_id,
                table_id,
                ended_by=str(body.get("ended_by", "")),
                layout=body.get("layout"),
                boneyard=boneyard,
                proposer=body.get("proposer"),
                winner=body.get("winner"),
            )
        publish_round(table_id, outcome["round"])
        return jsonify(outcome)

    @app.post("/api/tables/<table_id>/rounds/last/reopen")
    def reopen(table_id: str) -> Response:
        require_admin()
        known_table(table_id)
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            raise UserInputError('send a JSON object: {"reason": "..."}')
        with pool.connection() as conn:
            outcome = store.reopen_last_round(
                conn, event_id, table_id, reason=body.get("reason", "")
            )
        publish_round(table_id, outcome["round"])
        return jsonify(outcome)

    @app.get("/api/tables/<table_id>/audit")
    def audit(table_id: str) -> Response:
        known_table(table_id)
        with pool.connection() as conn:
            return jsonify(audit=store.audit_trail(conn, event_id, table_id))

    @app.put("/api/hand")
    def put_hand() -> Response:
        token = bearer()
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or "tiles" not in body:
            raise UserInputError('send a JSON object: {"tiles": [[a, b], ...]}')
        with pool.connection() as conn:
            saved = store.submit_hand(conn, event_id, token, body["tiles"])
        message = {"kind": "hand", "table": saved["table"], "round": saved["round"]}
        client.publish(frames.channel(event_id, saved["table"]), json.dumps(message))
        return jsonify(saved)

    @app.get("/api/hand")
    def get_hand() -> Response:
        token = bearer()
        with pool.connection() as conn:
            return jsonify(store.own_hand(conn, event_id, token))

    def stream(channel: str, snapshot: Any) -> Response:
        """SSE: the snapshot at once (a reconnecting client catches up), then every
        message of the channel as it comes."""
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

    @app.get("/api/tables/<table_id>/events")
    def table_events(table_id: str) -> Response:
        known_table(table_id)
        last = request.headers.get("Last-Event-ID", request.args.get("since", "0"))
        try:
            after = int(last)
        except ValueError:
            raise UserInputError("Last-Event-ID must be a frame sequence number") from None

        def snapshot() -> Iterator[str]:
            with pool.connection() as conn:
                state = store.public_table(conn, event_id, table_id)
                latest = store.latest_scene(conn, event_id, table_id, after)
            yield f"event: table\ndata: {store.dumps(state)}\n\n"
            if latest is not None:
                message = {"kind": "scene", "table": table_id, **latest}
                yield sse(message)

        return stream(frames.channel(event_id, table_id), snapshot)

    @app.get("/api/events")
    def all_events() -> Response:
        def snapshot() -> Iterator[str]:
            yield "event: hello\ndata: {}\n\n"

        return stream(event_channel, snapshot)

    return app


def sse(message: dict[str, Any]) -> str:
    """One message as an SSE event: a Scene's id is its frame sequence number."""
    kind = message.get("kind", "message")
    if kind == "scene":
        return f"id: {message['seq']}\nevent: scene\ndata: {store.dumps(message)}\n\n"
    return f"event: {kind}\ndata: {store.dumps(message)}\n\n"
