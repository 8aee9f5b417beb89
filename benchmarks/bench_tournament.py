"""Tournament reading under load: N tables sending frames to 1, 2 and 4 Celery workers.

    sh scripts/tournament-services.sh run -- \\
        .venv/bin/python benchmarks/bench_tournament.py --tables 4 --fps 2 --seconds 30

Needs the `tournament` extra and DOMINOCAM_REDIS_URL / DOMINOCAM_DATABASE_URL (the command
above starts private Redis and PostgreSQL for it and stops them afterwards).

Each simulated table is a camera sending JPEG frames of its own dominosynth game video
(frames spread over the game, so the number of tiles grows) at `--fps`, the way
`dominocam feed` does, straight into Redis (`dominocam.tournament.worker.send_frame`: what the web
endpoint does after checking the token). For each worker count a fresh event is made, the
workers (`dominocam worker`, one process each, the bundled models) are started and warmed up,
then the tables send for `--seconds`. Printed per run:

* frames read per second (all tables), and per table: frames sent, read, dropped (replaced
  by a newer frame before a worker was free: the newest frame wins), lost;
* latency per table, p50 and p99: from a frame being sent to its Scene arriving on the
  table's pub/sub channel (what a web process streams to viewers);
* broker load: Redis commands per second, bytes in per second, memory;
* database load: PostgreSQL transactions and rows written per second, the stored size of a
  Scene, the database's size;
* how long one frame takes a worker to read (median of the workers' own timings);
* with `--viewers V`: one web process (`dominocam serve --tournament`) and V event-stream
  viewers on it, spread over the tables: how many got a stream, the share of Scenes they
  received, and the latency from a frame being sent to its Scene reaching a viewer.

Figures are numbers to read, never asserted. All processes (tables, workers, Redis,
PostgreSQL) share the one machine it runs on.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(1, str(REPO / "benchmarks"))  # dramatiq_reader, for --engine dramatiq


def render_table_frames(seed: int, count: int, cache: Path) -> list[bytes]:
    """`count` JPEG frames spread over dominosynth game video `seed` (cached on disk)."""
    import cv2

    from dominosynth.video import VideoSpec, plan_video, render_frames

    folder = cache / f"seed-{seed}-n{count}"
    files = sorted(folder.glob("*.jpg"))
    if len(files) == count:
        return [f.read_bytes() for f in files]
    folder.mkdir(parents=True, exist_ok=True)
    video = plan_video(seed, VideoSpec())
    step = max(1, video.frame_count // count)
    frames = []
    for index, image in enumerate(render_frames(video)):
        if len(frames) >= count:
            break
        if index % step:
            continue
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        assert ok
        (folder / f"{len(frames):04d}.jpg").write_bytes(data.tobytes())
        frames.append(data.tobytes())
    return frames


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


class Subscriber:
    """Receives every Scene published for the event; records when each arrived."""

    def __init__(self, redis_url: str, event_id: int) -> None:
        import redis

        self.client = redis.Redis.from_url(redis_url)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.psubscribe(f"dominocam:e{event_id}:t:*:events")
        self.arrived: dict[tuple[str, int], float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            message = self.pubsub.get_message(timeout=0.5)
            if message is None:
                continue
            data = json.loads(message["data"])
            if data.get("kind") == "scene":
                self.arrived[(data["table"], int(data["seq"]))] = time.time()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.pubsub.close()


class Viewers:
    """`count` SSE viewers on one web process (`dominocam serve --tournament`), spread over
    the tables; records when each viewer got each Scene."""

    def __init__(self, count: int, port: int, tables: list[str]) -> None:
        self.arrived: list[tuple[str, int, float]] = []
        self.connected = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [
            threading.Thread(target=self._view, args=(port, tables[i % len(tables)]), daemon=True)
            for i in range(count)
        ]
        for thread in self.threads:
            thread.start()

    def _view(self, port: int, table: str) -> None:
        import http.client

        # Longer than the stream's keepalive: a socket that timed out once cannot be read again.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("GET", f"/api/tables/{table}/events")
            answer = conn.getresponse()
            with self.lock:
                self.connected += 1
            event = ""
            while not self.stop.is_set():
                line = answer.readline()
                if not line:
                    return
                text = line.decode()
                if text.startswith("event: "):
                    event = text[7:].strip()
                elif text.startswith("data: ") and event == "scene":
                    seq = int(json.loads(text[6:])["seq"])
                    with self.lock:
                        self.arrived.append((table, seq, time.time()))
        except OSError:
            return
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()


def start_web(config: Any, log_dir: Path, run: str) -> tuple[subprocess.Popen, int]:
    import socket
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = log_dir / f"{run}-event.json"
    path.write_text(json.dumps(config.to_json()))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dominocam",
            "serve",
            "--tournament",
            str(path),
            "--port",
            str(port),
        ],
        cwd=REPO,
        stdout=(log_dir / f"{run}-web.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2):
                return True
        except OSError:
            return False

    if not wait_for(healthy, 60):
        raise SystemExit(f"the web process did not start; see {log_dir}")
    return proc, port


def redis_load(client: Any) -> dict[str, float]:
    info = client.info()
    return {
        "commands": float(info["total_commands_processed"]),
        "bytes_in": float(info["total_net_input_bytes"]),
        "memory": float(info["used_memory"]),
    }


def pg_load(conn: Any) -> dict[str, float]:
    row = conn.execute(
        "SELECT xact_commit, tup_inserted, tup_updated, "
        "pg_database_size(current_database()) AS size "
        "FROM pg_stat_database WHERE datname = current_database()"
    ).fetchone()
    return {k: float(v) for k, v in row.items()}


def start_workers(
    count: int, run: str, threads: int, log_dir: Path, engine: str = "celery"
) -> list[subprocess.Popen]:
    """`count` worker processes of one process each: `dominocam worker` (Celery), or a
    Dramatiq worker of the same reading task (`benchmarks/dramatiq_reader.py`)."""
    procs = []
    for index in range(count):
        log = (log_dir / f"{run}-w{index + 1}.log").open("wb")
        if engine == "dramatiq":
            paths = [str(REPO / "benchmarks"), str(REPO)]
            command = [sys.executable, "-m", "dramatiq", "dramatiq_reader", "--path", *paths,
                       "--processes", "1", "--threads", "1"]  # fmt: skip
        else:
            command = [sys.executable, "-m", "dominocam", "worker", "--threads", str(threads),
                       "--name", f"{run}-w{index + 1}@bench"]  # fmt: skip
        procs.append(
            subprocess.Popen(
                command,
                cwd=REPO,
                env={**os.environ, "DOMINOCAM_WORKER_THREADS": str(threads)},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def run_once(
    workers: int, args: argparse.Namespace, table_frames: list[list[bytes]], log_dir: Path
) -> dict[str, Any]:
    import redis

    from dominocam.tournament import frames, settings, store
    from dominocam.tournament.config import parse_config
    from dominocam.tournament.worker import QUEUE, make_app, send_frame

    tables = [f"t{i + 1}" for i in range(args.tables)]
    names = [f"P{i + 1}" for i in range(2 * args.tables)]
    config = parse_config(
        {
            "event": f"bench-{workers}w-{uuid.uuid4().hex[:8]}",
            "variant": "block",
            "set": 12,
            "players": names,
            "tables": [{"id": t, "seats": names[2 * i : 2 * i + 2]} for i, t in enumerate(tables)],
        }
    )
    client = redis.Redis.from_url(settings.redis_url())
    conn = store.connect(settings.database_url())
    event_id = store.load_event(conn, config).event_id
    celery_app = make_app(settings.redis_url())
    client.delete(QUEUE)
    if args.engine == "dramatiq":
        import dramatiq_reader

        dramatiq_reader.broker.flush_all()

        def send_frame(client: Any, _app: Any, event_id: int, table: str, jpeg: bytes, **kw: Any):
            return dramatiq_reader.send_frame(client, event_id, table, jpeg, **kw)

    procs = start_workers(workers, f"run{workers}", args.threads, log_dir, args.engine)
    viewers: Viewers | None = None
    try:
        if args.viewers:
            web, port = start_web(config, log_dir, f"run{workers}")
            procs.append(web)
            viewers = Viewers(args.viewers, port, tables)
        # Warm-up: every worker process has loaded its models and read a frame of each table.
        for table, shots in zip(tables, table_frames, strict=True):
            send_frame(client, celery_app, event_id, table, shots[0])
        ready = wait_for(
            lambda: all(frames.stats(client, event_id, t)["read"] >= 1 for t in tables),
            args.warmup_timeout,
        )
        if not ready:
            raise SystemExit(f"workers did not read the warm-up frames; logs in {log_dir}")
        before = {t: frames.stats(client, event_id, t) for t in tables}
        subscriber = Subscriber(settings.redis_url(), event_id)
        sent_at: dict[tuple[str, int], float] = {}
        redis_before, pg_before = redis_load(client), pg_load(conn)
        interval = 1.0 / args.fps
        started = time.time()
        tick = 0
        # All tables send on one clock, staggered across the interval like separate cameras.
        while time.time() - started < args.seconds:
            for index, table in enumerate(tables):
                due = started + tick * interval + index * interval / len(tables)
                time.sleep(max(0.0, due - time.time()))
                shots = table_frames[index]
                now = time.time()
                submitted = send_frame(
                    client,
                    celery_app,
                    event_id,
                    table,
                    shots[(tick + 1) % len(shots)],
                    sent_at=now,
                )
                sent_at[(table, submitted.seq)] = now
            tick += 1
        window = time.time() - started
        redis_after, pg_after = redis_load(client), pg_load(conn)
        # Let the last frames be read (not counted in the rates above).
        wait_for(
            lambda: all(
                frames.reading(client, event_id, t) is None
                and not client.exists(frames.table_key(event_id, t, "pending"))
                for t in tables
            ),
            60,
        )
        time.sleep(0.5)
        subscriber.close()
        if viewers is not None:
            viewers.close()
    finally:
        stop_workers(procs)
    reads = conn.execute(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY read_s) AS read_s, "
        "avg(pg_column_size(scene)) AS scene_bytes FROM scenes "
        "WHERE event_id = %s AND sent_at >= %s",
        (event_id, started),
    ).fetchone()
    per_table = []
    for table in tables:
        after = frames.stats(client, event_id, table)
        counts = {k: after[k] - before[table][k] for k in after}
        latencies = [
            subscriber.arrived[key] - sent
            for key, sent in sent_at.items()
            if key[0] == table and key in subscriber.arrived
        ]
        per_table.append(
            {
                "table": table,
                "sent": counts["sent"],
                "read": counts["read"],
                "dropped": counts["dropped"],
                "lost": counts["claimed"] - counts["read"],
                "latency_p50_ms": 1000 * percentile(latencies, 50),
                "latency_p99_ms": 1000 * percentile(latencies, 99),
            }
        )
    read_total = sum(t["read"] for t in per_table)
    viewer_figures: dict[str, Any] = {}
    if viewers is not None:
        lags = [at - sent_at[(t, q)] for t, q, at in viewers.arrived if (t, q) in sent_at]
        published = {k for k in sent_at if k in subscriber.arrived}
        expected = sum(
            len([k for k in published if k[0] == tables[i % len(tables)]])
            for i in range(args.viewers)
        )
        viewer_figures = {
            "viewers": args.viewers,
            "viewers_connected": viewers.connected,
            "viewer_scenes_delivered": len(lags) / max(1, expected),
            "viewer_latency_p50_ms": 1000 * percentile(lags, 50),
            "viewer_latency_p99_ms": 1000 * percentile(lags, 99),
        }
    result = {
        "engine": args.engine,
        "workers": workers,
        "tables": args.tables,
        "fps_per_table": args.fps,
        "seconds": round(window, 1),
        "frames_read_per_s": read_total / window,
        "read_s_median": float(reads["read_s"] or float("nan")),
        "scene_kb_stored": float(reads["scene_bytes"] or 0) / 1024,
        "frames_sent_per_s": sum(t["sent"] for t in per_table) / window,
        "dropped_share": sum(t["dropped"] for t in per_table)
        / max(1, sum(t["sent"] for t in per_table)),
        "latency_p50_ms": 1000
        * statistics.median(
            [subscriber.arrived[k] - s for k, s in sent_at.items() if k in subscriber.arrived]
            or [float("nan")]
        ),
        "redis_commands_per_s": (redis_after["commands"] - redis_before["commands"]) / window,
        "redis_bytes_in_per_s": (redis_after["bytes_in"] - redis_before["bytes_in"]) / window,
        "redis_memory_mb": redis_after["memory"] / 2**20,
        "pg_transactions_per_s": (pg_after["xact_commit"] - pg_before["xact_commit"]) / window,
        "pg_rows_written_per_s": (
            pg_after["tup_inserted"]
            + pg_after["tup_updated"]
            - pg_before["tup_inserted"]
            - pg_before["tup_updated"]
        )
        / window,
        "pg_size_mb": pg_after["size"] / 2**20,
        "per_table": per_table,
        **viewer_figures,
    }
    conn.close()
    client.close()
    return result


def print_run(result: dict[str, Any]) -> None:
    print(
        f"\n{result['engine']}: {result['workers']} worker(s), {result['tables']} tables at "
        f"{result['fps_per_table']:g} frames/s each, {result['seconds']} s: "
        f"{result['frames_read_per_s']:.2f} frames read/s of {result['frames_sent_per_s']:.2f} "
        f"sent/s, {100 * result['dropped_share']:.0f}% dropped, "
        f"latency p50 {result['latency_p50_ms']:.0f} ms; one frame takes a worker "
        f"{1000 * result['read_s_median']:.0f} ms (median)"
    )
    print(
        f"  {'table':6} {'sent':>5} {'read':>5} {'dropped':>8} {'lost':>5} "
        f"{'p50 ms':>8} {'p99 ms':>8}"
    )
    for t in result["per_table"]:
        print(
            f"  {t['table']:6} {t['sent']:5d} {t['read']:5d} {t['dropped']:8d} {t['lost']:5d} "
            f"{t['latency_p50_ms']:8.0f} {t['latency_p99_ms']:8.0f}"
        )
    print(
        f"  broker: {result['redis_commands_per_s']:.0f} commands/s, "
        f"{result['redis_bytes_in_per_s'] / 1024:.0f} KiB/s in, "
        f"{result['redis_memory_mb']:.1f} MiB used"
    )
    print(
        f"  database: {result['pg_transactions_per_s']:.1f} transactions/s, "
        f"{result['pg_rows_written_per_s']:.1f} rows written/s, "
        f"{result['scene_kb_stored']:.1f} KiB per Scene stored, {result['pg_size_mb']:.1f} MiB"
    )


def print_viewers(result: dict[str, Any]) -> None:
    if "viewers" not in result:
        return
    print(
        f"  web: {result['viewers']} viewers on one web process, {result['viewers_connected']} "
        f"got a stream; {100 * result['viewer_scenes_delivered']:.0f}% of Scenes delivered, "
        f"frame sent to viewer p50 {result['viewer_latency_p50_ms']:.0f} ms, "
        f"p99 {result['viewer_latency_p99_ms']:.0f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=4, help="simulated tables (default 4)")
    parser.add_argument("--fps", type=float, default=2.0, help="frames/s per table (default 2)")
    parser.add_argument("--seconds", type=float, default=30.0, help="sending time per run")
    parser.add_argument(
        "--workers", default="1,2,4", help="worker counts to run, comma-separated (default 1,2,4)"
    )
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads per worker")
    parser.add_argument("--frames", type=int, default=24, help="distinct frames per table")
    parser.add_argument("--warmup-timeout", type=float, default=180.0, help="seconds")
    parser.add_argument(
        "--cache", type=Path, default=REPO / "runs" / "bench-tournament", help="frames cache"
    )
    parser.add_argument(
        "--viewers",
        type=int,
        default=0,
        help="also start one web process and this many SSE viewers on it (default 0)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument(
        "--engine",
        choices=("celery", "dramatiq"),
        default="celery",
        help="the task engine of the workers (default celery, the product's)",
    )
    args = parser.parse_args()
    if not os.environ.get("DOMINOCAM_REDIS_URL") or not os.environ.get("DOMINOCAM_DATABASE_URL"):
        parser.error("set DOMINOCAM_REDIS_URL and DOMINOCAM_DATABASE_URL (see --help)")
    counts = [int(x) for x in args.workers.split(",") if x.strip()]
    print(f"rendering {args.frames} frames for each of {args.tables} tables...", flush=True)
    table_frames = [
        render_table_frames(seed + 1, args.frames, args.cache / "frames")
        for seed in range(args.tables)
    ]
    log_dir = args.cache / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for workers in counts:
        result = run_once(workers, args, table_frames, log_dir)
        print_run(result)
        print_viewers(result)
        results.append(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
