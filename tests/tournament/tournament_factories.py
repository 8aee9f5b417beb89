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
        from tournament.worker import make_app

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


def wait_until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
