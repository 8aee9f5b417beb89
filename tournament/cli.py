"""`dominocam worker` and `dominocam serve --tournament CONFIG` (cheap to import: Celery,
redis and psycopg load inside the commands)."""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
from typing import Any

from dominocam.errors import UserInputError
from dominocam.tournament.config import load_config
from dominocam.vision.onnx_model import resolve_model_path

EXTRA_HINT = "tournament mode needs the `tournament` extra: pip install -e '.[tournament]'"


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    add_tournament_to_serve(subparsers)
    parser = subparsers.add_parser(
        "worker",
        help="read tournament tables' frames on a Celery worker (Redis broker, PostgreSQL)",
        description=(
            "Run a Celery worker that reads the frames of a tournament's tables. Each worker "
            "process loads the models once; a table's newest frame wins. The services come "
            "from DOMINOCAM_REDIS_URL and DOMINOCAM_DATABASE_URL (docs/tournament.md)."
        ),
    )
    parser.add_argument(
        "--concurrency", type=int, default=1, help="worker processes, each with its models"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="onnxruntime threads per process (default 1)"
    )
    parser.add_argument("--name", default=None, help="worker name (default worker-PID@host)")
    parser.add_argument("--loglevel", default="WARNING", help="Celery log level")
    parser.set_defaults(func=run_worker)

    feed = subparsers.add_parser(
        "feed",
        help="send a tournament table's camera frames to the event's web address",
        description=(
            "Send a table's frames (a camera, a video file or stream, or synth:SEED for a "
            "rendered game) to a tournament web process at a steady rate."
        ),
    )
    feed.add_argument("--url", required=True, help="the event's web address, http://HOST:PORT")
    feed.add_argument("--table", required=True, help="the table's id in the event file")
    feed.add_argument(
        "--token",
        default=os.environ.get("DOMINOCAM_TOKEN"),
        help="the event's admin token (default $DOMINOCAM_TOKEN, which keeps it out of ps)",
    )
    feed.add_argument(
        "--source", default="0", help="camera index, video file, stream URL or synth:SEED"
    )
    feed.add_argument("--fps", type=float, default=2.0, help="frames per second (default 2)")
    feed.add_argument("--frames", type=int, default=None, help="stop after this many frames")
    feed.set_defaults(func=run_feed)


def _require_extra() -> None:
    try:
        import celery  # noqa: F401
        import psycopg  # noqa: F401
        import redis  # noqa: F401
    except ImportError as error:
        raise UserInputError(f"{EXTRA_HINT} ({error.name} is missing)") from error


def _check_services() -> None:
    """One-line errors when Redis or PostgreSQL cannot be reached."""
    import redis

    from dominocam.tournament import settings, store

    try:
        redis.Redis.from_url(settings.redis_url(), socket_connect_timeout=5).ping()
    except (redis.ConnectionError, redis.TimeoutError, ValueError) as error:
        raise UserInputError(f"cannot reach Redis at {settings.redis_url()}: {error}") from error
    store.connect(settings.database_url()).close()


def run_worker(args: argparse.Namespace) -> int:
    _require_extra()
    if args.concurrency < 1 or args.threads < 1:
        raise UserInputError("--concurrency and --threads must be at least 1")
    _check_services()

    resolve_model_path("detector", None)  # a missing model: one line now, not per frame
    resolve_model_path("reader", None)
    os.environ["DOMINOCAM_WORKER_THREADS"] = str(args.threads)
    from dominocam.tournament.worker import QUEUE, app

    name = args.name or f"worker-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(
        [
            "worker",
            "--pool=prefork",
            f"--concurrency={args.concurrency}",
            f"--hostname={name}",
            f"--loglevel={args.loglevel}",
            f"--queues={QUEUE}",
            "--without-gossip",
            "--without-mingle",
        ]
    )
    return 0


def run_feed(args: argparse.Namespace) -> int:
    from dominocam.tournament.feed import run_feed as feed

    if not args.token:
        raise UserInputError("give the event's admin token: --token or $DOMINOCAM_TOKEN")
    with contextlib.suppress(KeyboardInterrupt):
        feed(args.url, args.table, args.token, args.source, args.fps, args.frames)
    return 0


def web_threads() -> int:
    """Waitress threads per web process: each open event stream holds one
    ($DOMINOCAM_WEB_THREADS, default 64)."""
    raw = os.environ.get("DOMINOCAM_WEB_THREADS", "64")
    if not raw.isdigit() or int(raw) < 4:
        raise UserInputError(f"DOMINOCAM_WEB_THREADS must be a whole number >= 4, got {raw!r}")
    return int(raw)


# A web process accepts this many connections in all, each address at most
# $DOMINOCAM_CONNECTIONS_PER_CLIENT of them, and closes one idle (no request in progress) for
# IDLE_TIMEOUT_S: one device cannot hold them all (server.serving explains the bounds).
WEB_CONNECTIONS = 1000
IDLE_TIMEOUT_S = 30


def connections_per_client() -> int | None:
    """Connections one client address may hold at a web process
    ($DOMINOCAM_CONNECTIONS_PER_CLIENT, default 32; 0: no bound, for web processes behind a
    proxy, whose connections all come from its address: bound clients there)."""
    raw = os.environ.get("DOMINOCAM_CONNECTIONS_PER_CLIENT", "32")
    if not raw.isascii() or not raw.isdigit():
        raise UserInputError(
            f"DOMINOCAM_CONNECTIONS_PER_CLIENT must be a whole number >= 0, got {raw!r}"
        )
    return int(raw) or None


def web_server(app: object, host: str, port: int, body_limit: int) -> object:
    """A waitress server for a web process: `web_threads()` threads, connections bounded per
    client address and idle time, bodies over twice `body_limit` refused by waitress (as
    JSON under /api/) before they are read.

    Raises:
        OSError: the address cannot be listened on.
    """
    from waitress import create_server

    from dominocam.server.serving import (
        ClientConnections,
        connection_bounds,
        guarded_channel,
        raise_open_files_limit,
        use_channel,
    )

    threads = web_threads()
    per_client = connections_per_client()
    raise_open_files_limit(WEB_CONNECTIONS + threads + 256)
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        connection_limit=WEB_CONNECTIONS,
        asyncore_use_poll=True,  # select() stops at 1,024 descriptors
        max_request_body_size=2 * body_limit + 1024 * 1024,
        **connection_bounds(per_client, IDLE_TIMEOUT_S),
    )
    channel = guarded_channel(ClientConnections(per_client), body_limit)
    use_channel(server, channel)
    return server


def add_tournament_to_serve(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`dominocam serve --tournament CONFIG`: the single-table `serve` command (server.cli,
    registered before this module) serves an event instead when given an event file."""
    serve = subparsers.choices.get("serve")
    if serve is None:  # a parser without the dashboard's commands (a test's)
        return
    serve.add_argument(
        "--tournament",
        metavar="CONFIG",
        default=None,
        help="serve a tournament's event (YAML/TOML/JSON) from PostgreSQL and Redis instead of "
        "one table (docs/tournament.md)",
    )
    serve.set_defaults(serve_tournament=serve_tournament)


def serve_tournament(args: argparse.Namespace) -> int:
    """`dominocam serve --tournament CONFIG`: make the event if new, then serve it."""
    from dominocam.server.serving import AUTO_HOST, LOOPBACK

    if args.host == AUTO_HOST:  # an event's web process sits behind its own front
        args.host = LOOPBACK

    config = load_config(args.tournament)
    _require_extra()
    from dominocam.tournament import settings, store

    _check_services()
    conn = store.connect(settings.database_url())
    try:
        tokens = store.load_event(conn, config)
    finally:
        conn.close()
    base = f"http://{args.host}:{args.port}"
    if tokens.admin is not None:
        print(f"Event {config.name!r} created. Admin token (shown once): {tokens.admin}")
        print(f"  director: {base}/director/{tokens.admin}")
        for table_id, token in tokens.hosts.items():
            print(f"  host of {table_id}: {base}/host/{token}")
        for name, token in tokens.players.items():
            print(f"  {name}: {base}/hand/{token}")
    from dominocam.tournament.web import MAX_BODY_BYTES, create_app

    app = create_app(settings.database_url(), settings.redis_url(), tokens.event_id)
    try:
        server: Any = web_server(app, args.host, args.port, MAX_BODY_BYTES)
    except OSError as error:
        raise UserInputError(f"cannot listen on {args.host}:{args.port}: {error}") from error
    print(f"DominoCam tournament {config.name!r}: standings on {base}/  (Ctrl+C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    print("stopped", file=sys.stderr)
    return 0
