"""Helpers of the tournament tests: events, real worker processes, waiting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


def event_data(tables: int = 2, variant: str = "block", teams: bool = True) -> dict[str, Any]:
    """An event of `tables` tables of two players each (teams Red and Blue across tables)."""
    names = [f"P{i}" for i in range(1, 2 * tables + 1)]
    players = [
        {"name": n, **({"team": "Red" if i % 2 == 0 else "Blue"} if teams else {})}
        for i, n in enumerate(names)
    ]
    return {
        "event": f"test-{uuid.uuid4().hex[:10]}",
        "variant": variant,
        "set": 6,
        "players": players,
        "tables": [
            {"id": f"t{t + 1}", "name": f"Table {t + 1}", "seats": names[2 * t : 2 * t + 2]}
            for t in range(tables)
        ],
    }


class Workers:
    """Real `dominocam worker` processes (Celery, prefork, one child each)."""

    def __init__(self, urls: dict[str, str], tmp: Path) -> None:
        self.urls = urls
        self.tmp = tmp
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str) -> None:
        env = {
            **os.environ,
            "DOMINOCAM_REDIS_URL": self.urls["redis"],
            "DOMINOCAM_DATABASE_URL": self.urls["database"],
        }
        log = (self.tmp / f"{name}.log").open("wb")
        self.procs[name] = subprocess.Popen(
            [sys.executable, "-m", "dominocam", "worker", "--name", f"{name}@test"],
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, names: list[str], timeout: float = 60.0) -> None:
        """Until every named worker answers a ping (its child then loads the models)."""
        from dominocam.tournament.worker import make_app

        app = make_app(self.urls["redis"])
        deadline = time.monotonic() + timeout
        wanted = {f"celery@{n}@test" for n in names} | {f"{n}@test" for n in names}
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise AssertionError(f"worker {name} exited: {self.log(name)}")
            replies = app.control.ping(timeout=1.0)
            seen = {key for reply in replies for key in reply}
            if len(seen & wanted) >= len(names):
                return
        raise AssertionError(f"workers {names} not ready: {[self.log(n) for n in names]}")

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")[-2000:]

    def stop_one(self, name: str) -> None:
        """Stop one worker as an operator would (SIGTERM: a warm shutdown)."""
        proc = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def bearer(token: str) -> dict[str, str]:
    """The header that sends a player's, a table host's or the director's token."""
    return {"Authorization": f"Bearer {token}"}


def wait_until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class WebProcess:
    """A real `dominocam serve --tournament CONFIG` process on 127.0.0.1."""

    def __init__(self, urls: dict[str, str], config_path: Path, port: int, log: Path) -> None:
        self.urls, self.config_path, self.port, self.log_path = urls, config_path, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        import urllib.request

        env = {
            **os.environ,
            "DOMINOCAM_REDIS_URL": self.urls["redis"],
            "DOMINOCAM_DATABASE_URL": self.urls["database"],
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dominocam", "serve", "--tournament", str(self.config_path),
             "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=REPO_ROOT, env=env, stdout=self.log_path.open("ab"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

        def healthy() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(self.log_path.read_text(errors="replace")[-2000:])
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=2) as answer:
                    return answer.status == 200
            except OSError:
                return False

        wait_until(healthy, 60, f"the web process on port {self.port}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class StreamClient:
    """An EventSource as a browser runs it: reads a stream in a thread and reconnects
    (with Last-Event-ID) when the connection drops."""

    def __init__(self, port: int, path: str) -> None:
        import threading

        self.port, self.path = port, path
        self.events: list[dict[str, Any]] = []  # {"event", "id", "data", "connection"}
        self.connections = 0
        self.last_id: str | None = None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import http.client
        import json

        while not self.stopped.is_set():
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
                headers = {"Accept": "text/event-stream"}
                if self.last_id is not None:
                    headers["Last-Event-ID"] = self.last_id
                conn.request("GET", self.path, headers=headers)
                answer = conn.getresponse()
                if answer.status != 200:
                    raise OSError(f"status {answer.status}")
                self.connections += 1
                event: dict[str, Any] = {}
                while not self.stopped.is_set():
                    line = answer.readline()
                    if not line:
                        raise OSError("stream closed")
                    text = line.decode().rstrip("\n")
                    if text == "":
                        if "data" in event:
                            event["connection"] = self.connections
                            event["data"] = json.loads(event["data"])
                            self.events.append(event)
                            if "id" in event:
                                self.last_id = event["id"]
                        event = {}
                    elif not text.startswith(":"):
                        key, _, value = text.partition(": ")
                        event[key] = value
            except (OSError, http.client.HTTPException):
                time.sleep(0.2)  # the browser's retry

    def scenes(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == "scene"]

    def close(self) -> None:
        self.stopped.set()


def settled(redis_client: Any, event_id: int, tables: list[str]) -> bool:
    """No table has a frame claimed and not stored, nor a task waiting."""
    from dominocam.tournament import frames

    return all(
        frames.reading(redis_client, event_id, t) is None
        and not redis_client.exists(frames.table_key(event_id, t, "pending"))
        for t in tables
    )
