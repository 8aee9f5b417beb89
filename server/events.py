"""Server-Sent Events: each change of a game's public state computed once, fanned out to all.

Every write records a row in the `events` table; after a write request (and after each
camera change) the app calls `Broker.notify()`. One publisher thread per app then reads the
latest event id once, computes the public state of each game that has listeners once, and
wakes the listeners, which only copy the shared text to their client. A thousand overlays
therefore cost one state query per change, not a thousand, and no listener touches SQLite.
As a safety net for writes from other processes the publisher also looks at the event id
once per `poll_s` while anybody listens; it stops when the last listener leaves.

A state holds words for people (a game's final result, the reader's warnings): it is
computed once per language that someone listens in (`dominocam.i18n.use_language`), so a page
in Hungarian and an overlay in Spanish each get theirs, at most one computation per
language per change.

Streams are capped: `max_streams` at once in all (503 past it: each holds a server thread)
and `max_per_client` from one client address (429 past it), so one misbehaving device cannot
take the server's threads.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from dominocam.errors import UserInputError
from dominocam.i18n import DEFAULT_LANGUAGE, _, use_language
from dominocam.server import storage

log = logging.getLogger(__name__)


class StreamRefused(Exception):
    """No stream for this request: `status` 429 (this client has too many) or 503 (full),
    with the refusal's stable `code` and `params` (as `dominocam.errors.Refused`)."""

    def __init__(self, message: str, code: str, status: int, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.params = params


@dataclass(frozen=True)
class Published:
    """The latest public state of one game, as sent to every listener.

    Attributes:
        version: the latest event id it was computed at.
        text: the state as compact JSON, or None when the game no longer exists.
        error: why there is no state (with text None).
    """

    version: int
    text: str | None
    error: str = ""


StateOf = Callable[[Any, int], dict[str, Any]]
# What a stream watches: a game, in a language.
Watch = tuple[int, str]


class Broker:
    """Computes each game's state once per change and hands it to every waiting stream."""

    def __init__(
        self,
        database: str,
        state_of: StateOf,
        poll_s: float = 2.0,
        max_streams: int = 1000,
        max_per_client: int = 8,
    ) -> None:
        self.database = database
        self.state_of = state_of
        self.poll_s = poll_s
        self.max_streams = max_streams
        self.max_per_client = max_per_client
        self._cond = threading.Condition()
        self._notified = 0
        self._latest: dict[Watch, Published] = {}
        self._watched: dict[Watch, int] = {}  # (game id, language) -> listeners
        self._clients: dict[str, int] = {}  # client address -> open streams
        self._publisher: threading.Thread | None = None
        self.computations = 0  # states computed (the fan-out test reads it)

    @property
    def listeners(self) -> int:
        with self._cond:
            return sum(self._watched.values())

    def notify(self) -> None:
        """Something was written: the publisher recomputes what listeners watch."""
        with self._cond:
            self._notified += 1
            self._cond.notify_all()

    # --- listeners ----------------------------------------------------------------------------

    @contextmanager
    def listen(self, game_id: int, client: str, language: str = DEFAULT_LANGUAGE) -> Iterator[None]:
        """Register one stream of `game_id` in `language` from `client` for the duration of
        the block.

        Raises:
            StreamRefused: too many streams from this client, or in all.
        """
        with self._cond:
            if self._clients.get(client, 0) >= self.max_per_client:
                raise StreamRefused(
                    _(
                        "this device already has {max_per_client} live streams open; close a tab "
                        "or wait for one to end"
                    ).format(max_per_client=self.max_per_client),
                    "too_many_streams_here",
                    429,
                    limit=self.max_per_client,
                )
            if sum(self._watched.values()) >= self.max_streams:
                raise StreamRefused(
                    _(
                        "the server is at its limit of {max_streams} live streams; the page "
                        "falls back to polling"
                    ).format(max_streams=self.max_streams),
                    "too_many_streams",
                    503,
                    limit=self.max_streams,
                )
            watch = (game_id, language)
            self._clients[client] = self._clients.get(client, 0) + 1
            self._watched[watch] = self._watched.get(watch, 0) + 1
            if self._publisher is None:
                self._publisher = threading.Thread(
                    target=self._publish_loop, name="dominocam-sse-publisher", daemon=True
                )
                self._publisher.start()
        try:
            yield
        finally:
            with self._cond:
                self._clients[client] -= 1
                if not self._clients[client]:
                    del self._clients[client]
                self._watched[watch] -= 1
                if not self._watched[watch]:
                    # Nobody watches it: its state would go stale, drop it.
                    del self._watched[watch]
                    self._latest.pop(watch, None)
                self._cond.notify_all()

    def first(self, conn: Any, game_id: int, language: str = DEFAULT_LANGUAGE) -> Published:
        """The state a new listener starts from (computed here when nobody watched yet)."""
        watch = (game_id, language)
        with self._cond:
            published = self._latest.get(watch)
        if published is None:
            published = self._compute(conn, watch, storage.last_event_id(conn))
            with self._cond:
                current = self._latest.get(watch)
                if current is None or current.version < published.version:
                    self._latest[watch] = published
                else:
                    published = current
        return published

    def wait_newer(
        self, game_id: int, version: int, timeout: float, language: str = DEFAULT_LANGUAGE
    ) -> Published | None:
        """The published state of `game_id` in `language` once its version differs from
        `version`, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                published = self._latest.get((game_id, language))
                if published is not None and published.version != version:
                    return published
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    # --- the publisher ------------------------------------------------------------------------

    def _compute(self, conn: Any, watch: Watch, version: int) -> Published:
        self.computations += 1
        game_id, language = watch
        try:
            with use_language(language):
                state = self.state_of(conn, game_id)
        except UserInputError as error:  # the game was deleted: streams end, no traceback
            return Published(version, None, str(error))
        return Published(version, json.dumps(state, separators=(",", ":")))

    def _publish_loop(self) -> None:
        conn = storage.connect(self.database)
        try:
            seen_notified, published_version = -1, -1
            while True:
                with self._cond:
                    if not self._watched:
                        self._publisher = None
                        return
                    if self._notified == seen_notified:
                        self._cond.wait(self.poll_s)
                    seen_notified = self._notified
                    watches = list(self._watched)
                    published = {w: self._latest[w].version for w in watches if w in self._latest}
                try:
                    version = storage.last_event_id(conn)
                    if version == published_version and all(
                        published.get(w) == version for w in watches
                    ):
                        continue
                    fresh = {w: self._compute(conn, w, version) for w in watches}
                except Exception:  # keep serving the last state; say why once per poll
                    log.exception("the live state could not be computed")
                    time.sleep(self.poll_s)
                    continue
                published_version = version
                with self._cond:
                    for watch, published in fresh.items():
                        if watch in self._watched:
                            self._latest[watch] = published
                    self._cond.notify_all()
        finally:
            conn.close()


def sse_stream(
    broker: Broker,
    game_id: int,
    first: Published,
    heartbeat_s: float = 15.0,
    max_s: float | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Iterator[str]:
    """The text of one SSE stream: `event: state` with the public state at each new version,
    `event: gone` (and the end) once the game no longer exists.

    Args:
        broker: publishes the states; the caller holds `broker.listen(...)` around this.
        game_id: the game watched.
        first: the state to send at once.
        heartbeat_s: a comment line this often keeps proxies from closing the stream.
        max_s: end the stream after this long (the browser reconnects by itself).
        language: the language of the state's words (the one `listen` was given).
    """
    start = time.monotonic()
    yield "retry: 2000\n\n"
    published: Published | None = first
    sent = -1
    while True:
        if published is not None:
            if published.text is None:
                yield f"event: gone\ndata: {json.dumps({'error': published.error})}\n\n"
                return
            yield f"id: {published.version}\nevent: state\ndata: {published.text}\n\n"
            sent = published.version
        else:
            yield ": keep-alive\n\n"
        timeout = heartbeat_s
        if max_s is not None:
            left = max_s - (time.monotonic() - start)
            if left <= 0:
                return
            timeout = min(timeout, left)
        published = broker.wait_newer(game_id, sent, timeout, language)
