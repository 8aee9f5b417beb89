"""`make tournament`: the whole event on one machine, for trying it.

    python -m dominocam.tournament.launch CONFIG [--workers 2] [--web 2] [--port 5000]
        [--feed-fps 1]

Needs DOMINOCAM_REDIS_URL and DOMINOCAM_DATABASE_URL (`scripts/tournament-services.sh run`
sets them). Creates the event, prints its tokens once, then starts the workers, the web
processes (ports PORT, PORT+1, ...) and, with `--feed-fps` above 0, one synthetic camera
per table (`dominocam feed --source synth:N`). Ctrl+C stops everything it started.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.request

from dominocam.errors import UserInputError
from dominocam.tournament.config import load_config


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise UserInputError(f"the web process for {url} exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise UserInputError(f"the web process for {url} did not answer within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominocam.tournament.launch", description=__doc__
    )
    parser.add_argument("config", help="the event file (YAML, TOML or JSON)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--web", type=int, default=2, help="web processes (default 2)")
    parser.add_argument("--port", type=int, default=5000, help="first web port (default 5000)")
    parser.add_argument(
        "--feed-fps", type=float, default=1.0, help="synthetic camera per table, 0 for none"
    )
    args = parser.parse_args(argv)
    try:
        return _launch(args)
    except UserInputError as error:
        print(f"dominocam: error: {error}", file=sys.stderr)
        return 2


def _launch(args: argparse.Namespace) -> int:
    from dominocam.tournament import settings, store

    config = load_config(args.config)
    conn = store.connect(settings.database_url())
    try:
        tokens = store.load_event(conn, config)
    finally:
        conn.close()
    if tokens.admin is not None:
        print(f"Event {config.name!r}: admin token (shown once): {tokens.admin}")
        base = f"http://127.0.0.1:{args.port}"
        print(f"  director: {base}/director/{tokens.admin}")
        for table_id, token in tokens.hosts.items():
            print(f"  host of {table_id}: {base}/host/{token}")
        for name, token in tokens.players.items():
            print(f"  {name}: {base}/hand/{token}")
    elif args.feed_fps > 0:
        raise UserInputError(
            f"event {config.name!r} already exists and its admin token is not shown again; "
            "run with --feed-fps 0, or on fresh services"
        )
    dominocam = [sys.executable, "-m", "dominocam"]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        urls = []
        for index in range(args.web):
            port = args.port + index
            proc = subprocess.Popen([*dominocam, "serve", "--tournament", args.config,
                                     "--host", "127.0.0.1", "--port", str(port)])  # fmt: skip
            procs.append(proc)
            urls.append(f"http://127.0.0.1:{port}")
            _wait_healthy(urls[-1], proc)
        for index in range(args.workers):
            procs.append(subprocess.Popen([*dominocam, "worker", "--name", f"w{index + 1}@%h"]))
        if args.feed_fps > 0:
            env = {**os.environ, "DOMINOCAM_TOKEN": tokens.admin or ""}
            for index, table in enumerate(config.tables):
                procs.append(
                    subprocess.Popen(
                        [
                            *dominocam,
                            "feed",
                            "--url",
                            urls[index % len(urls)],
                            "--table",
                            table.id,
                            "--source",
                            f"synth:{index + 1}",
                            "--fps",
                            str(args.feed_fps),
                        ],
                        env=env,
                    )
                )
        print("Standings: " + "  ".join(f"{url}/" for url in urls), flush=True)
        print(f"A table's stream: {urls[0]}/api/tables/{config.tables[0].id}/events", flush=True)
        print("Ctrl+C stops everything.", flush=True)
        while all(proc.poll() is None for proc in procs):
            time.sleep(0.5)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    sys.exit(main())
