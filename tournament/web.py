"""The event's stateless web process: standings, tables, hands, frames, event streams.

    dominocam serve --tournament CONFIG --port 5000     # as many as you like, one address

A web process keeps nothing of its own: state is in PostgreSQL, a table's live events come
from Redis pub/sub, so any number of them serve the same streams and one can be restarted
while viewers are connected (an EventSource reconnects with `Last-Event-ID` and gets the
table's newest Scene and state at once).

One Redis connection per process listens to every table's channel (`StreamHub`) and hands
each message to the streams open on that process.

Auth (`Actor`): public (standings, tables, Scenes, streams, the audit trail's public texts:
no hand before its round ends); the event director's admin token (frames, host links, and
everything a table host does, at every table); a table host's link (its table's rounds:
rulings confirmed or cancelled, hands changed with a reason, undo, seat links); a player's
link (their own hand, proposing a block, calling domino). Tokens come as
`Authorization: Bearer TOKEN` (pages: in their path); wrong ones count against the address
in Redis (`tournament.guard`), shared by every web process.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template_string, request
from werkzeug.exceptions import HTTPException

from dominocam.errors import UserInputError
from rounds.lifecycle import HOST
from server import Int64Converter
from server.json_fields import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    OBJECT,
    STRING,
    Field,
    checked,
    optional,
    query_flag,
    query_int,
    required,
)
from server.qr import qr_svg
from tournament import frames, rounds, store
from tournament.guard import GuessGuard, TooManyGuesses
from tournament.pages import (
    DIRECTOR_PAGE,
    EVENT_OVERLAY,
    HAND_PAGE,
    HOST_PAGE,
    STANDINGS_PAGE,
    TABLE_OVERLAY,
)
from tournament.standings import event_standings

STATIC = Path(__file__).with_name("static")

# A comment line on every stream this often, so proxies and clients see it is alive.
KEEPALIVE_S = 10.0
MAX_FRAME_BYTES = 8 * 1024 * 1024
# The largest body read at all (a frame, or a JSON body): larger is 413, as JSON; waitress
# refuses one over twice this before reading it (tournament.cli.web_server).
MAX_BODY_BYTES = MAX_FRAME_BYTES + 1024 * 1024
# Answers to a token (a player's, a host's, the director's) are kept by no cache.
PRIVATE_PATHS = ("/api/hand", "/hand/", "/host/", "/director/")


# The fields of the bodies (server.json_fields, as single-table mode).
REASON = optional(STRING, nullable=True)
TABLE_FIELDS = {
    "layout": optional(OBJECT, nullable=True),
    "boneyard": optional(INTEGER, nullable=True),
}


def confirm_query() -> bool:
    """`?confirm=1` (or true): the host confirms the ruling at once; `?confirm=false` does
    not, and any other text is a 400."""
    return query_flag(request.args.get("confirm"), "confirm")


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


@dataclass(frozen=True)
class Actor:
    """Who a token is: the event `director` (the admin token), a table's `host`, or a
    `player`. The director and a table's host both act as the host of that table."""

    kind: str
    table: str | None = None
    player: store.Player | None = None

    def hosts(self, table_id: str) -> bool:
        return self.kind == "director" or (self.kind == "host" and self.table == table_id)


def create_app(database_url: str, redis_url: str, event_id: int) -> Flask:
    """The web app of one event (any number of processes may serve it at once)."""
    import psycopg
    import redis
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool, PoolTimeout

    from tournament.worker import make_app, send_frame, send_hand_photo

    app = Flask("tournament", static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    # Seats past 64-bit integers match no route (404) instead of reaching PostgreSQL.
    app.url_map.converters["int"] = Int64Converter
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
    guard = GuessGuard(client, event_id)
    app.extensions["dominocam.tournament"] = {"pool": pool, "hub": hub, "guard": guard}

    def config() -> Any:
        with pool.connection() as conn:
            return store.event_config(conn, event_id)

    def bearer() -> str:
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer ") or not header[7:].strip():
            raise NoCredentials("send 'Authorization: Bearer TOKEN'")
        return header[7:].strip()

    def who(token: str) -> Actor:
        """The actor a token belongs to; a wrong one counts against the address."""
        address = request.remote_addr or "unknown"
        guard.check(address)
        with pool.connection() as conn:
            if store.is_admin(conn, event_id, token):
                return Actor("director")
            table_id = store.host_table(conn, event_id, token)
            if table_id is not None:
                return Actor("host", table_id)
            player = store.player_by_token(conn, event_id, token)
        if player is not None:
            return Actor("player", player.table_id, player)
        guard.failed(address)
        raise PermissionError("this token is not valid for the event")

    def require_admin() -> None:
        if who(bearer()).kind != "director":
            raise PermissionError("this needs the event director's token")

    def require_host(table_id: str) -> Actor:
        actor = who(bearer())
        if not actor.hosts(table_id):
            raise PermissionError(f"this needs the host of table {table_id} or the director")
        return actor

    def require_player() -> store.Player:
        actor = who(bearer())
        if actor.player is None:
            raise PermissionError("this needs a player's link")
        return actor.player

    def known_table(table_id: str) -> None:
        try:
            config().table(table_id)
        except KeyError:
            raise UnknownTable(f"no table {table_id!r} in this event") from None

    def body_object(example: str, fields: dict[str, Field] | None = None) -> dict[str, Any]:
        """The JSON body ({} when none), each of `fields` of its JSON type
        (server.json_fields: `"false"` is no boolean; 400 naming the field)."""
        body = request.get_json(silent=True)
        if body is None and not request.get_data(cache=True):
            body = {}
        if not isinstance(body, dict):
            raise UserInputError(f"send a JSON object: {example}")
        checked(body, fields or {})
        return body

    @app.errorhandler(UserInputError)
    def bad_input(error: UserInputError) -> tuple[Response, int]:
        status = 409 if isinstance(error, store.RoundConflict) else 400
        return jsonify(error=str(error), status=status), status

    @app.errorhandler(PermissionError)
    def refused(error: PermissionError) -> tuple[Response, int]:
        if isinstance(error, TooManyGuesses):
            answer = jsonify(error=str(error), status=429)
            answer.headers["Retry-After"] = str(error.retry_after)
            return answer, 429
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

    @app.after_request
    def headers(response: Response) -> Response:
        security_headers(response.headers, overlay=request.path.endswith("overlay"))
        if "Authorization" in request.headers or request.path.startswith(PRIVATE_PATHS):
            response.headers["Cache-Control"] = "no-store"
        return response

    def page(html: str, **values: Any) -> Response:
        return Response(
            render_template_string(html, **values), headers={"Cache-Control": "no-store"}
        )

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
        """A player's phone page (the link printed when the event was made, or made anew on
        the host's page); it works through the API with the token of its address."""
        return page(HAND_PAGE, token=token)

    @app.get("/host/<token>")
    def host_page(token: str) -> Response:
        """A table host's page (`?table=ID` when the director opens it with their token)."""
        actor = who(token)
        table_id = actor.table if actor.kind == "host" else request.args.get("table", "")
        if actor.kind == "player" or not table_id:
            raise PermissionError("this page needs a table host's link or the director's")
        known_table(table_id)
        return page(HOST_PAGE, token=token, table_id=table_id)

    @app.get("/director/<token>")
    def director_page(token: str) -> Response:
        if who(token).kind != "director":
            raise PermissionError("this page needs the event director's token")
        return page(DIRECTOR_PAGE, token=token, tables=config().tables)

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
        body = jpeg_body()
        submitted = send_frame(client, celery_app, event_id, table_id, body)
        return jsonify(seq=submitted.seq, queued=submitted.send_task), 202

    def publish(table_id: str, kind: str, **data: Any) -> None:
        """Tell the table's stream (and, for rounds, the event's) that something changed;
        the message names no tile."""
        message = json.dumps({"kind": kind, "table": table_id, **data})
        client.publish(frames.channel(event_id, table_id), message)
        if kind == "round":
            client.publish(event_channel, message)

    def ruled(table_id: str, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A ruling's answer; one the round's ledger held for the host still tells the
        table's stream that a ruling now waits (the refusal names no tile)."""
        try:
            return call()
        except rounds.HeldForHost:
            publish(table_id, "round", action="ruling")
            raise

    # --- the host of a table (or the director) ------------------------------------------

    def ruling(table_id: str, by: str, who_key: str, confirm: bool, author: str) -> Response:
        body = body_object(
            f'{{"{who_key}": NAME, "layout": {{...}}, "boneyard": N}}',
            {who_key: required(STRING), **TABLE_FIELDS},
        )
        name = body[who_key]
        with pool.connection() as conn:
            if "layout" in body or "boneyard" in body:
                rounds.set_table(conn, event_id, table_id, body.get("layout"), body.get("boneyard"))
            outcome = ruled(
                table_id,
                lambda: rounds.rule(
                    conn,
                    event_id,
                    config(),
                    table_id,
                    by=by,
                    who=name,
                    author=author,
                    confirm=confirm,
                ),
            )
        publish(table_id, "round", action="ended" if outcome["ended"] else "ruling")
        return jsonify(outcome)

    @app.put("/api/tables/<table_id>/table")
    def put_table(table_id: str) -> Response:
        require_host(table_id)
        body = body_object('{"layout": {"lines": [...]}, "boneyard": N}', TABLE_FIELDS)
        with pool.connection() as conn:
            rounds.set_table(conn, event_id, table_id, body.get("layout"), body.get("boneyard"))
        publish(table_id, "round", action="table")
        return jsonify(ok=True)

    @app.post("/api/tables/<table_id>/rounds/current/block")
    def host_block(table_id: str) -> Response:
        require_host(table_id)
        return ruling(table_id, "block", "proposer", confirm_query(), HOST)

    @app.post("/api/tables/<table_id>/rounds/current/domino")
    def host_domino(table_id: str) -> Response:
        require_host(table_id)
        return ruling(table_id, "domino", "winner", confirm_query(), HOST)

    @app.post("/api/tables/<table_id>/rounds/current/end")
    def end(table_id: str) -> Response:
        """The host rules and confirms at once (`ended_by` block with its proposer, or
        domino with its winner)."""
        require_host(table_id)
        body = body_object(
            '{"ended_by": "block"|"domino", "proposer"|"winner": NAME, ...}',
            {"ended_by": required(STRING)},
        )
        ended_by = body.get("ended_by")
        if ended_by not in ("block", "domino"):
            raise UserInputError("ended_by must be block or domino")
        return ruling(
            table_id, ended_by, "proposer" if ended_by == "block" else "winner", True, HOST
        )

    @app.post("/api/tables/<table_id>/rounds/current/score")
    def score(table_id: str) -> Response:
        require_host(table_id)
        with pool.connection() as conn:
            outcome = ruled(
                table_id, lambda: rounds.score_pending(conn, event_id, config(), table_id)
            )
        publish(table_id, "round", action="ended" if outcome["ended"] else "ruling")
        return jsonify(outcome)

    @app.get("/api/tables/<table_id>/rounds/current/review")
    def review(table_id: str) -> Response:
        """The round's ledger for the table host (it names hands' tiles: host only)."""
        require_host(table_id)
        known_table(table_id)
        with pool.connection() as conn:
            return jsonify(rounds.host_review(conn, event_id, config(), table_id))

    @app.post("/api/tables/<table_id>/rounds/current/ledger/override")
    def override(table_id: str) -> Response:
        """The table host rules the round although it does not add up, with a reason (the
        audit trail, the round's result); then "score" scores the held ruling."""
        require_host(table_id)
        known_table(table_id)
        body = body_object('{"reason": "..."}', {"reason": REASON})
        with pool.connection() as conn:
            outcome = rounds.override_ledger(conn, event_id, config(), table_id, body.get("reason"))
        publish(table_id, "round", action="override")
        return jsonify(outcome)

    @app.post("/api/tables/<table_id>/rounds/current/cancel")
    def cancel(table_id: str) -> Response:
        require_host(table_id)
        body = body_object('{"reason": "..."}', {"reason": REASON})
        with pool.connection() as conn:
            rounds.cancel_pending(conn, event_id, table_id, body.get("reason"))
        publish(table_id, "round", action="cancelled")
        return jsonify(ok=True)

    @app.post("/api/tables/<table_id>/rounds/current/unlock")
    def unlock(table_id: str) -> Response:
        require_host(table_id)
        body = body_object('{"reason": "..."}', {"reason": REASON})
        with pool.connection() as conn:
            rounds.unlock_hands(conn, event_id, table_id, body.get("reason"))
        publish(table_id, "round", action="unlocked")
        return jsonify(ok=True)

    @app.post("/api/tables/<table_id>/rounds/last/reopen")
    def reopen(table_id: str) -> Response:
        require_host(table_id)
        body = body_object('{"reason": "..."}', {"reason": REASON})
        with pool.connection() as conn:
            outcome = rounds.reopen_last_round(conn, event_id, table_id, reason=body.get("reason"))
        publish(table_id, "round", action="reopened", round=outcome["round"])
        return jsonify(outcome)

    def seat_player(table_id: str, seat: int) -> store.Player:
        with pool.connection() as conn:
            player = store.seat_player(conn, event_id, table_id, seat)
        if player is None:
            raise UnknownTable(f"table {table_id} has no seat {seat}")
        return player

    @app.put("/api/tables/<table_id>/seats/<int:seat>/hand")
    def host_hand(table_id: str, seat: int) -> Response:
        """The host enters or changes a seat's hand (after the lock: with a reason)."""
        require_host(table_id)
        known_table(table_id)
        body = body_object(
            '{"tiles": [[a, b], ...], "reason": "..."}',
            {"tiles": required(ARRAY), "reason": REASON},
        )
        player = seat_player(table_id, seat)
        with pool.connection() as conn:
            saved = rounds.confirm_hand(
                conn, event_id, config(), player, body["tiles"], author=HOST,
                reason=body.get("reason"),
            )  # fmt: skip
        publish(table_id, "hand", player=player.name)
        return jsonify(saved)

    @app.post("/api/tables/<table_id>/seats/<int:seat>/link")
    def seat_link(table_id: str, seat: int) -> Response:
        """A new link (and its QR code) for the player in `seat`; the old link stops working."""
        require_host(table_id)
        known_table(table_id)
        with pool.connection() as conn:
            made = store.new_player_link(conn, event_id, table_id, seat)
        link = f"{public_base()}/hand/{made.pop('token')}"
        return jsonify(**made, link=link, qr=qr_svg(link).decode())

    @app.post("/api/tables/<table_id>/host-link")
    def host_link(table_id: str) -> Response:
        """The director makes a new host link for a table (the old one stops working)."""
        require_admin()
        known_table(table_id)
        with pool.connection() as conn:
            token = store.new_host_link(conn, event_id, table_id)
        link = f"{public_base()}/host/{token}"
        return jsonify(table=table_id, link=link, qr=qr_svg(link).decode())

    def public_base() -> str:
        return (os.environ.get("DOMINOCAM_PUBLIC_URL") or request.host_url).rstrip("/")

    @app.get("/api/tables/<table_id>/audit")
    def audit(table_id: str) -> Response:
        """Public; in full (tiles, reasons) with the table host's or the director's token."""
        known_table(table_id)
        for_host = "Authorization" in request.headers and who(bearer()).hosts(table_id)
        with pool.connection() as conn:
            trail = rounds.audit_trail(conn, event_id, table_id, for_host=for_host)
        return jsonify(audit=trail)

    # --- a player -------------------------------------------------------------------------

    def jpeg_body() -> bytes:
        if (request.content_length or 0) > MAX_FRAME_BYTES:
            raise UserInputError(f"a photo may be {MAX_FRAME_BYTES // 2**20} MiB at most")
        body = request.get_data(cache=False)
        if len(body) > MAX_FRAME_BYTES:
            raise UserInputError(f"a photo may be {MAX_FRAME_BYTES // 2**20} MiB at most")
        if not body.startswith(b"\xff\xd8\xff"):
            raise UserInputError("send the photo as a JPEG (Content-Type: image/jpeg)")
        return body

    @app.get("/api/hand")
    def get_hand() -> Response:
        player = require_player()
        with pool.connection() as conn:
            return jsonify(rounds.own_hand(conn, event_id, player))

    @app.put("/api/hand")
    def put_hand() -> Response:
        """The player saves their tiles, typed or a reading corrected: this confirms them."""
        player = require_player()
        body = body_object('{"tiles": [[a, b], ...]}', {"tiles": required(ARRAY)})
        with pool.connection() as conn:
            saved = rounds.confirm_hand(
                conn, event_id, config(), player, body["tiles"], author=player.name
            )
        publish(player.table_id, "hand", player=player.name)
        return jsonify(saved)

    @app.post("/api/hand/photo")
    def hand_photo() -> tuple[Response, int]:
        """A photo of the player's hand: a worker reads it into a pending reading, which
        the player then confirms (`/api/hand/confirm`) or corrects (`PUT /api/hand`)."""
        player = require_player()
        photo = jpeg_body()
        with pool.connection() as conn:
            rounds.refuse_photo_when_locked(conn, event_id, player)
        send_hand_photo(client, celery_app, event_id, player.id, photo)
        return jsonify(reading=True), 202

    @app.post("/api/hand/confirm")
    def confirm() -> Response:
        player = require_player()
        body = body_object(
            '{"tiles": [[a, b], ...]} or {} to confirm the reading as read',
            {"tiles": optional(ARRAY, nullable=True)},
        )
        with pool.connection() as conn:
            saved = rounds.confirm_hand(
                conn, event_id, config(), player, body.get("tiles"), author=player.name
            )
        publish(player.table_id, "hand", player=player.name)
        return jsonify(saved)

    @app.post("/api/hand/discard")
    def discard() -> Response:
        player = require_player()
        with pool.connection() as conn:
            rounds.discard_pending(conn, event_id, player)
        return jsonify(ok=True)

    @app.post("/api/hand/declare")
    def declare() -> Response:
        player = require_player()
        body = body_object('{"cannot_play": true|false}', {"cannot_play": required(BOOLEAN)})
        value = body["cannot_play"]
        with pool.connection() as conn:
            rounds.declare_cannot_play(conn, event_id, player, value)
        publish(player.table_id, "hand", player=player.name)
        return jsonify(ok=True)

    def player_ruling(by: str) -> Response:
        """The player's own ruling ("block" or "domino"): a ruling that would end the round
        waits for the host and locks every hand at their table; a check that stops or a
        refusal locks nothing."""
        player = require_player()
        with pool.connection() as conn:
            outcome = ruled(
                player.table_id,
                lambda: rounds.rule(
                    conn,
                    event_id,
                    config(),
                    player.table_id,
                    by=by,
                    who=player.name,
                    author=player.name,
                ),
            )
        publish(player.table_id, "round", action="ruling")
        return jsonify(outcome)

    @app.post("/api/hand/propose")
    def propose() -> Response:
        """The player proposes a block."""
        return player_ruling("block")

    @app.post("/api/hand/domino")
    def domino() -> Response:
        """The player calls domino (played their last tile)."""
        return player_ruling("domino")

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
        after = query_int(last, "Last-Event-ID", 0)  # 400 past 64-bit integers

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


def security_headers(headers: Any, overlay: bool) -> None:
    """As single-table mode (`server._security_headers`): everything the pages load is their
    own, no inline script or style; only the overlays may be framed (OBS, a stream page)."""
    from server import CONTENT_SECURITY_POLICY

    headers.setdefault(
        "Content-Security-Policy",
        CONTENT_SECURITY_POLICY.format(ancestors="*" if overlay else "'none'"),
    )
    if not overlay:
        headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")


def sse(message: dict[str, Any]) -> str:
    """One message as an SSE event: a Scene's id is its frame sequence number."""
    kind = message.get("kind", "message")
    if kind == "scene":
        return f"id: {message['seq']}\nevent: scene\ndata: {store.dumps(message)}\n\n"
    return f"event: {kind}\ndata: {store.dumps(message)}\n\n"
