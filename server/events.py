"""Change notification for Server-Sent Events: one computed state, many listeners.

Every write records a row in the `events` table; after a write request the app calls
`Broker.notify()`. SSE streams wait on the broker (and, as a safety net for writes from other
processes, look at the database once per `poll_s`), then send the public state. The state of
one (game, version) is computed once and shared by every listener, so a hundred overlay
clients cost one state query per change, not a hundred.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any


class Broker:
    """Wakes waiting SSE streams when the database changed; caches the shared state."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._generation = 0
        self._cache: dict[tuple[int, int], str] = {}
        self._cache_lock = threading.Lock()
        self.listeners = 0

    def notify(self) -> None:
        with self._cond:
            self._generation += 1
            self._cond.notify_all()

    def wait(self, generation: int, timeout: float) -> int:
        """Block until a notification after `generation` or `timeout`; the new generation."""
        with self._cond:
            if self._generation == generation:
                self._cond.wait(timeout)
            return self._generation

    @property
    def generation(self) -> int:
        return self._generation

    def shared(self, key: tuple[int, int], compute: Callable[[], dict[str, Any]]) -> str:
        """The JSON text for `key` = (game id, version), computed once for all listeners."""
        with self._cache_lock:
            text = self._cache.get(key)
            if text is None:
                text = json.dumps(compute(), separators=(",", ":"))
                if len(self._cache) > 32:
                    self._cache.clear()
                self._cache[key] = text
            return text


def sse_stream(
    broker: Broker,
    version_of: Callable[[], int],
    state_json: Callable[[int], str],
    heartbeat_s: float = 15.0,
    poll_s: float = 2.0,
    max_s: float | None = None,
) -> Iterator[str]:
    """The text of an SSE stream: `event: state` with the public state at each new version.

    Args:
        broker: wakes the stream on writes in this process.
        version_of: the current version (latest event id) from the database.
        state_json: the JSON text of the state at a version.
        heartbeat_s: a comment line this often keeps proxies from closing the stream.
        poll_s: how often to look at the database without a notification.
        max_s: end the stream after this long (the browser reconnects by itself).
    """
    broker.listeners += 1
    try:
        start = last_beat = time.monotonic()
        sent = -1
        generation = broker.generation
        yield "retry: 2000\n\n"
        while True:
            version = version_of()
            if version != sent:
                yield f"id: {version}\nevent: state\ndata: {state_json(version)}\n\n"
                sent = version
                last_beat = time.monotonic()
            elif time.monotonic() - last_beat >= heartbeat_s:
                yield ": keep-alive\n\n"
                last_beat = time.monotonic()
            if max_s is not None and time.monotonic() - start >= max_s:
                return
            generation = broker.wait(generation, poll_s)
    finally:
        broker.listeners -= 1
