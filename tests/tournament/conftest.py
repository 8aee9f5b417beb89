"""Fixtures for the tournament tests: real Redis and PostgreSQL, real worker processes.

`make test-tournament` starts both services and sets DOMINOCAM_REDIS_URL and
DOMINOCAM_DATABASE_URL; without them (or without the `tournament` extra) these tests skip.
Every test makes its own event (its own name, so its own tables, Redis keys and rows).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tournament_factories import Workers, event_data


@pytest.fixture(scope="session")
def urls() -> dict[str, str]:
    redis_url = os.environ.get("DOMINOCAM_REDIS_URL")
    database_url = os.environ.get("DOMINOCAM_DATABASE_URL")
    if not redis_url or not database_url:
        pytest.skip("needs Redis and PostgreSQL: run `make test-tournament`")
    return {"redis": redis_url, "database": database_url}


@pytest.fixture
def redis_client(urls: dict[str, str]) -> Any:
    import redis

    client = redis.Redis.from_url(urls["redis"])
    yield client
    client.close()


@pytest.fixture
def db(urls: dict[str, str]) -> Any:
    from dominocam.tournament import store

    conn = store.connect(urls["database"])
    store.migrate(conn)
    yield conn
    conn.close()


@pytest.fixture
def make_event(db: Any) -> Callable[..., Any]:
    """Create an event in the database; returns (config, tokens)."""
    from dominocam.tournament import store
    from dominocam.tournament.config import parse_config

    def make(data: dict[str, Any] | None = None, **kw: Any) -> Any:
        config = parse_config(data or event_data(**kw))
        return config, store.load_event(db, config)

    return make


@pytest.fixture(scope="session")
def game_frames() -> list[bytes]:
    """JPEG frames of a dominosynth game video (640x360, tiles being played one by one)."""
    import cv2

    from dominosynth.video import VideoSpec, plan_video, render_frames

    video = plan_video(7, VideoSpec(lead_in=1, move_gap=(2, 3), pass_p=0.0, tail=2))
    frames = []
    for image in itertools.islice(render_frames(video), 24):
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        assert ok
        frames.append(data.tobytes())
    return frames


@pytest.fixture
def workers(urls: dict[str, str], redis_client: Any, tmp_path: Path) -> Iterator[Workers]:
    from dominocam.tournament.worker import QUEUE

    redis_client.delete(QUEUE)  # tasks left by an earlier test are not this test's
    pool = Workers(urls, tmp_path)
    yield pool
    pool.stop()


@pytest.fixture
def web(urls: dict[str, str]) -> Callable[[int], Any]:
    """A Flask test client of the event's web app, on the real services."""
    from dominocam.tournament.web import create_app

    apps: list[Any] = []

    def make(event_id: int) -> Any:
        app = create_app(urls["database"], urls["redis"], event_id)
        apps.append(app)
        return app.test_client()

    yield make
    for app in apps:
        app.extensions["dominocam.tournament"]["pool"].close()


@pytest.fixture
def served(urls: dict[str, str]) -> Iterator[Callable[[int], tuple[str, Any]]]:
    """The event's web app served on loopback by the web process's own server (waitress,
    `dominocam.tournament.cli.web_server`) from a thread, for the browser tests: `serve(event_id)`
    gives its address and a Flask test client of the same app (on the real services)."""
    import threading

    from dominocam.server.serving import stop_server
    from dominocam.tournament.cli import web_server
    from dominocam.tournament.web import MAX_BODY_BYTES, create_app

    running: list[tuple[Any, Any, threading.Thread]] = []

    def serve(event_id: int) -> tuple[str, Any]:
        app = create_app(urls["database"], urls["redis"], event_id)
        server: Any = web_server(app, "127.0.0.1", 0, MAX_BODY_BYTES)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        running.append((app, server, thread))
        return f"http://127.0.0.1:{server.effective_port}", app.test_client()

    yield serve
    for app, server, thread in running:
        stop_server(server)
        thread.join(10)
        app.extensions["dominocam.tournament"]["pool"].close()
