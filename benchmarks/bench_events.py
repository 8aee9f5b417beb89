"""The live event stream under load: N SSE clients plus one client uploading photos in a loop.

    .venv/bin/python benchmarks/bench_events.py [--clients 200,500,1000] [--seconds 20]

For each client count it starts a fresh `dominocam serve` (waitress, the production default,
with its default limits) on a free loopback port and a temporary database, connects the SSE
clients (each from one of many loopback source addresses, 127.0.1.x, eight per address: the
server's per-client cap stays at its default of 8), then uploads a rendered 1280x720 table
photo again and again (`--pause` seconds apart) for `--seconds`. The server reads each photo
with whatever reader is installed (the bundled models) and each upload is one state change.

Latency of a change = the time a client receives the first state at or after the change's
event id, minus the time the server stored that event (`/api/events/poll` gives it; client
and server share this machine's clock). Printed per client count: p50 / p99 / max over every
(change, client) pair, errors (connections refused or dropped, changes a client never got,
failed uploads), uploads, and the server's peak resident memory (VmHWM). A benchmark, not a
test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOKEN = "bench-admin-token"
PER_ADDRESS = 8  # the server's default SSE_MAX_PER_CLIENT


@dataclass
class Level:
    """What one client count measured."""

    clients: int
    connected: int = 0
    uploads: int = 0
    upload_errors: int = 0
    latencies_s: list[float] = field(default_factory=list)
    missed: int = 0
    dropped: int = 0
    refused: int = 0
    rss_peak_mb: float = 0.0
    rss_end_mb: float = 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(folder: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ, DOMINOCAM_ADMIN_TOKEN=TOKEN, PYTHONUNBUFFERED="1")
    db = str(folder / "bench.sqlite3")
    log = open(folder / "server.log", "ab")  # noqa: SIM115 - lives with the process
    proc = subprocess.Popen(
        [sys.executable, "-m", "dominocam", "serve", "--port", str(port), "--no-demo", "--db", db],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
            return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit((folder / "server.log").read_text()) from None
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start in 60 s")


def request(port: int, method: str, path: str, body: bytes | None = None, ctype: str = ""):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if ctype:
        headers["Content-Type"] = ctype
    conn.request(method, path, body, headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, json.loads(data or b"null")


def rss_mb(pid: int, key: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def table_photo() -> bytes:
    import cv2

    sys.path.insert(0, str(REPO))
    from dominocam.measure.bench import bench_table

    ok, data = cv2.imencode(".jpg", bench_table(1280, 720).image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


async def sse_client(
    port: int,
    gid: int,
    source: str,
    arrivals: list[tuple[int, float]],
    level: Level,
    stop: asyncio.Event,
) -> None:
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(source, 0), limit=1 << 24
        )
        writer.write(
            f"GET /api/events?game={gid}&max_s=3600 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        status = await reader.readline()
        if b" 200 " not in status:
            level.refused += 1
            writer.close()
            return
        level.connected += 1
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                level.dropped += 1
                return
            if line.startswith(b"id: "):
                arrivals.append((int(line[4:]), time.time()))
        writer.close()
    except (OSError, asyncio.IncompleteReadError):
        level.dropped += 1


async def run_clients(
    port: int,
    gid: int,
    n: int,
    level: Level,
    ready: threading.Event,
    uploads_done: threading.Event,
) -> list[list[tuple[int, float]]]:
    stop = asyncio.Event()
    arrivals: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    tasks = []
    for i in range(n):
        source = f"127.0.{1 + i // (PER_ADDRESS * 250)}.{1 + (i // PER_ADDRESS) % 250}"
        tasks.append(asyncio.create_task(sse_client(port, gid, source, arrivals[i], level, stop)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # a gentle ramp, as browsers arrive
    deadline = time.monotonic() + 120
    while level.connected + level.refused + level.dropped < n and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    ready.set()
    while not uploads_done.is_set():
        await asyncio.sleep(0.1)
    await asyncio.sleep(3.0)  # the last change still travelling
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return arrivals


def uploader(
    port: int,
    gid: int,
    photo: bytes,
    seconds: float,
    pause: float,
    level: Level,
    changes: list[int],
    ready: threading.Event,
    done: threading.Event,
) -> None:
    ready.wait()
    time.sleep(1.0)
    end = time.monotonic() + seconds
    path = f"/api/games/{gid}/rounds/current/table"
    while time.monotonic() < end:
        try:
            status, body = request(port, "POST", path, photo, "image/jpeg")
        except OSError:
            level.upload_errors += 1
            continue
        if status in (201, 503) and body and "state" in body:
            level.uploads += 1
            changes.append(int(body["state"]["version"]))
        else:
            level.upload_errors += 1
        time.sleep(pause)
    done.set()


def event_times(port: int, first: int) -> dict[int, float]:
    times: dict[int, float] = {}
    since = first
    while True:
        _, body = request(port, "GET", f"/api/events/poll?since={since}")
        if not body["events"]:
            return times
        for event in body["events"]:
            times[event["id"]] = float(event["time"])
        since = body["events"][-1]["id"]


def measure(n: int, seconds: float, pause: float, photo: bytes) -> Level:
    level = Level(n)
    with tempfile.TemporaryDirectory(prefix="bench-events-") as tmp:
        port = free_port()
        proc = start_server(Path(tmp), port)
        try:
            status, state = request(
                port,
                "POST",
                "/api/games",
                json.dumps(
                    {"variant": "block", "set": 6, "players": ["A", "B", "C", "D"]}
                ).encode(),
                "application/json",
            )
            assert status == 201, state
            gid, first_version = state["game"]["id"], state["version"]
            changes: list[int] = []
            ready, done = threading.Event(), threading.Event()
            peak = [0.0]

            def sample() -> None:
                while not done.is_set():
                    peak[0] = max(peak[0], rss_mb(proc.pid))
                    time.sleep(0.5)

            threads = [
                threading.Thread(
                    target=uploader,
                    args=(port, gid, photo, seconds, pause, level, changes, ready, done),
                ),
                threading.Thread(target=sample),
            ]
            for t in threads:
                t.start()
            arrivals = asyncio.run(run_clients(port, gid, n, level, ready, done))
            for t in threads:
                t.join()
            level.rss_end_mb = rss_mb(proc.pid)
            level.rss_peak_mb = max(peak[0], rss_mb(proc.pid, "VmHWM"))
            stored = event_times(port, first_version - 1)
        finally:
            proc.terminate()
            proc.wait(30)
    for version in changes:
        changed_at = stored.get(version)
        if changed_at is None:
            continue
        for client in arrivals:
            if not client:
                continue
            got = next((t for v, t in client if v >= version), None)
            if got is None:
                level.missed += 1
            else:
                level.latencies_s.append(max(0.0, got - changed_at))
    return level


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="200,500,1000", help="client counts, comma-separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="upload loop per count")
    parser.add_argument("--pause", type=float, default=0.2, help="seconds between uploads")
    args = parser.parse_args(argv)
    counts = [int(c) for c in args.clients.split(",") if c.strip()]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * max(counts) + 256)), hard))
    photo = table_photo()
    print(
        f"{os.cpu_count()} CPUs; photo {len(photo) // 1024} KB; {args.seconds:.0f} s of uploads "
        f"every {args.pause:.2f} s per count",
        flush=True,
    )
    header = (
        f"{'clients':>7} {'connected':>9} {'uploads':>7} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'errors':>6} {'RSS MB':>7}"
    )
    print(header, flush=True)
    for n in counts:
        level = measure(n, args.seconds, args.pause, photo)
        errors = level.refused + level.dropped + level.missed + level.upload_errors
        lat = level.latencies_s
        print(
            f"{n:>7} {level.connected:>9} {level.uploads:>7} {percentile(lat, 0.5) * 1000:>7.0f} "
            f"{percentile(lat, 0.99) * 1000:>7.0f} {max(lat, default=float('nan')) * 1000:>7.0f} "
            f"{errors:>6} {level.rss_peak_mb:>7.0f}",
            flush=True,
        )
        if errors:
            print(
                f"        errors: {level.refused} refused, {level.dropped} dropped, "
                f"{level.missed} changes never received, {level.upload_errors} failed uploads",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
