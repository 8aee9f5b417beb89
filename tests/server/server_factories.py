"""Helpers for the dashboard tests: the admin token, stand-in photo readers, test photos,
photos rendered by dominosynth and what the real vision runtime reads in them."""

from __future__ import annotations

import functools
import json
import struct
import zlib
from typing import Any

import cv2
import numpy as np

ADMIN_TOKEN = "test-admin-token"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def fake_scene(pixels: np.ndarray, kind: str, set_max: int) -> dict[str, Any]:
    """A stand-in photo reader for upload-flow tests (never used by product code).

    Table photos give two lines 0-3, 3-5 (open ends 0 ... 5) and one face-down tile; hand
    photos give two tiles.
    """
    h, w = pixels.shape[:2]

    def box(x: float, y: float) -> list[list[float]]:
        return [[x, y], [x + w / 8, y], [x + w / 8, y + h / 16], [x, y + h / 16]]

    if kind == "hand":
        tiles = [
            {"id": 0, "face": "up", "pips": [1, 2], "corners": box(10, 10), "confidence": 0.9},
            {"id": 1, "face": "up", "pips": [0, 0], "corners": box(10, h / 3), "confidence": 0.9},
        ]
        layout: dict[str, Any] = {"lines": [], "open_ends": []}
    else:
        tiles = [
            {"id": 0, "face": "up", "pips": [0, 3], "corners": box(10, 10), "confidence": 0.9},
            {"id": 1, "face": "up", "pips": [3, 5], "corners": box(w / 4, 10), "confidence": 0.9},
            {"id": 2, "face": "down", "pips": None, "corners": box(10, h / 3), "confidence": 0.9},
        ]
        layout = {
            "lines": [
                {"tiles": [0], "open_end": {"tile": 0, "value": 0, "point": [10, 10]}},
                {
                    "tiles": [0, 1],
                    "open_end": {"tile": 1, "value": 5, "point": [w / 4 + w / 8, 10 + h / 32]},
                },
            ],
            "open_ends": [0, 5],
        }
    return {
        "image": {"width": w, "height": h},
        "tiles": tiles,
        "face_down": sum(1 for t in tiles if t["face"] == "down"),
        "pip_total": sum(sum(t["pips"]) for t in tiles if t["pips"]),
        "layout": layout,
        "warnings": [],
    }


def hands_beside_fake_table(names: tuple[str, ...] = ("Ana", "Ben", "Caro", "Dev")) -> dict:
    """Block hands (double-6, 4 players dealt 5) that add up with `fake_scene`'s table photo
    (0-3 and 3-5 face up, one tile face down): 5 + 5 + 5 + 2 tiles in hand, 3 played, 8
    asleep. The round's ledger (rounds.ledger) lets rulings on them go on."""
    tiles = [[a, b] for a in range(7) for b in range(a, 7) if [a, b] not in ([0, 3], [3, 5])]
    sizes = (5, 5, 5, 2)
    out, start = {}, 0
    for name, size in zip(names, sizes, strict=True):
        out[name] = tiles[start : start + size]
        start += size
    return out


def propose_and_score(client, gid: int, token: str):
    """A player proposes a block from their link and the table host scores it (only the host
    turns a ruling into a score); returns the host's answer."""
    r = client.post(f"/api/hand/{token}/block-check")
    assert r.status_code == 200 and r.json["outcome"]["blocked"], r.json
    r = client.post(f"/api/games/{gid}/rounds/current/score", headers=ADMIN)
    assert r.status_code == 200 and r.json["ended"], r.json
    return r


def confirm_again(client, links: dict[str, str], names=None) -> None:
    """Each player confirms their hand again as it is (play went on since: an unlock, a
    stopped check, a reopened round)."""
    for name in names or links:
        r = client.post(f"/api/hand/{links[name]}/confirm")
        assert r.status_code == 200, r.json


def jpeg_bytes(width: int = 160, height: int = 120) -> bytes:
    image = np.full((height, width, 3), 200, np.uint8)
    cv2.rectangle(image, (10, 10), (60, 40), (0, 0, 0), -1)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()


def png_bytes(width: int = 64, height: int = 48) -> bytes:
    ok, data = cv2.imencode(".png", np.zeros((height, width, 3), np.uint8))
    assert ok
    return data.tobytes()


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
    )


def png_bomb(side: int = 20000) -> bytes:
    """A real decompression bomb: a `side` x `side` grey PNG of zeros, a few hundred KB."""
    row = b"\x00" * (side + 1)
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(row * 500) for _ in range(side // 500)]
    parts.append(compressor.flush())
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", b"".join(parts))
        + png_chunk(b"IEND", b"")
    )


def jpeg_with_size(width: int, height: int) -> bytes:
    """A small JPEG whose frame header claims `width` x `height` (a 100 MP photo's header)."""
    data = bytearray(jpeg_bytes())
    pos = 2
    while True:
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            data[pos + 5 : pos + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        pos += 2 + length


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(tmp_path, port: int, *extra: str):
    """A real `dominocam serve` process on loopback; returns it once it answers."""
    import os
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    env = dict(os.environ, DOMINOCAM_ADMIN_TOKEN=ADMIN_TOKEN, PYTHONUNBUFFERED="1")
    env["DOMINOCAM_UPLOAD_FOLDER"] = str(tmp_path / "uploads")
    repo = Path(__file__).resolve().parents[2]
    log = open(tmp_path / f"server-{port}.log", "ab")  # noqa: SIM115 - lives with the process
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dominocam",
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "db.sqlite3"),
            # This computer only (the default, auto, may serve the local network).
            "--host",
            "127.0.0.1",
            *extra,
        ],
        cwd=repo,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError((tmp_path / f"server-{port}.log").read_text()) from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start in 30 s")


def http(method: str, url: str, body=None, headers=None, data: bytes | None = None, ctype=None):
    """(status, JSON) of a request; never raises on HTTP errors."""
    import json
    import urllib.error
    import urllib.request

    headers = dict(headers or {})
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    elif ctype:
        headers["Content-Type"] = ctype
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class ThreadedServer:
    """A create_app() app served on loopback by the production server (waitress, as
    `dominocam serve` runs it) from a thread (for tests that inject a reader)."""

    def __init__(self, app) -> None:
        import threading

        from dominocam.server.serving import create_server

        self.app = app
        self.server = create_server(app, "127.0.0.1", 0)
        self.port = int(self.server.effective_port)
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        from dominocam.server.serving import stop_server

        stop_server(self.server)
        self.thread.join(10)


# A tile on the table of `TableScript`: 80 x 40 px, lying left to right.
TILE_LENGTH, TILE_WIDTH = 80.0, 40.0


def row_box(x: float, y: float = 100.0) -> list[list[float]]:
    """Corners of a tile lying left to right at (x, y) (top-left), half 0 at the left end
    (vision.geometry's order: the short edge of half 0 first, clockwise on screen)."""
    right = x + TILE_LENGTH
    return [[x, y + TILE_WIDTH], [x, y], [right, y], [right, y + TILE_WIDTH]]


class TableScript:
    """A stand-in reader for camera frames (never used by product code): each frame shows the
    tiles the test has put in `tiles`, read with certainty.

    `tiles` maps a name to ((a, b), x): a tile lying at x in one row, showing a on its left half and
    b on its right, so (0, 3) at 40 and (3, 5) at 124 make a line 0-3|3-5. The tracker that follows
    the frames (`dominocam.vision.track`) and the layout it rebuilds are the real ones; only the
    pixels-to-tiles step is scripted.
    """

    def __init__(self) -> None:
        self.tiles: dict[str, tuple[tuple[int, int], float]] = {}

    def __call__(self, pixels: np.ndarray, kind: str, set_max: int) -> dict[str, Any]:
        h, w = pixels.shape[:2]
        tiles = [
            {
                "id": i,
                "face": "up",
                "pips": list(pips),
                "corners": row_box(x),
                "confidence": 0.95,
                "pip_confidence": [0.99, 0.99],
            }
            for i, (pips, x) in enumerate(self.tiles.values())
        ]
        return {
            "image": {"width": w, "height": h},
            "tiles": tiles,
            "layout": {"lines": [], "open_ends": []},
            "warnings": [],
        }


# --- real photos, read by the real runtime ---------------------------------------------------

# The seed of the photos the end-to-end tests render (any seed works: the tests read the
# photos with the real runtime instead of assuming what the models see).
PHOTO_SEED = 6


def rendered_photo(kind: str, index: int, seed: int = PHOTO_SEED, set_max: int = 6) -> bytes:
    """A 1280x720 JPEG photo rendered by dominosynth from (seed, index), as a phone sends it.

    dominosynth's `clean` configuration (no clutter, no camera effects), narrowed to what a
    block game shows: a table photo (`kind="table"`) holds one played line of 6 to 10 tiles
    (plus loose tiles), a hand photo (`kind="hand"`) 3 to 6 tiles.
    """
    return rendered_sample(kind, index, seed, set_max)[0]


def rendered_sample(
    kind: str, index: int, seed: int = PHOTO_SEED, set_max: int = 6
) -> tuple[bytes, dict[str, Any]]:
    """`rendered_photo` and dominosynth's truth of it (datasets/README.md): what it shows."""
    import dataclasses

    from dominosynth.config import CONFIGS
    from dominosynth.generate import Job, make_sample

    config = dataclasses.replace(
        CONFIGS["clean"],
        name="server-tests",
        variant_weights={"line": 1.0},
        layout_tiles=(6, 10),
        hand_tiles=(3, 6),
    )
    job = Job("/nonexistent", index, seed, 1280, 720, kind, set_max, "val", config)
    sample = make_sample(job)
    return sample[0], sample[2]


@functools.lru_cache(maxsize=1)
def _bundled_models() -> Any:
    from dominocam.vision import pipeline

    return pipeline.load_models()


def runtime_scene(
    photo: bytes, kind: str, set_max: int, variant: str = "block", players: int = 2
) -> dict[str, Any]:
    """Scene JSON of a photo as the real vision runtime reads it with the bundled models
    (`dominocam.vision.pipeline.read_image`), independently of the server: what its pages must show.

    A table photo's layout is rebuilt for the game (`dominocam.vision.layout.game_layout_config` of
    the variant and the number of players); a hand photo gets no layout.
    """
    from dominocam.vision import image_io, pipeline
    from dominocam.vision.layout import game_layout_config

    models = _bundled_models()
    table = kind == "table"
    scene = pipeline.read_image(
        image_io.decode_image(photo),
        models.detector,
        models.reader,
        set_max=set_max,
        with_layout=table,
        layout_config=game_layout_config(variant, players) if table else None,
        calibration=models.calibration,
    )
    return json.loads(scene.to_json())


def old_database(path, migrations: int):
    """An SQLite file at `path` migrated only to the first `migrations` schema versions, with
    one block game, players Ana and Ben and its first round (main line open at 3): what a
    database written by an older version holds. Returns the open connection."""
    from dominocam.server import storage

    conn = storage.connect(str(path))
    storage.migrate(conn, storage.MIGRATIONS[:migrations])
    conn.execute(
        "INSERT INTO games (name, variant, rules, set_max, created_at) "
        "VALUES ('Old night', 'block', '{}', 6, 0)"
    )
    for seat, name in enumerate(("Ana", "Ben")):
        conn.execute(
            "INSERT INTO players (game_id, seat, name, salt) VALUES (1, ?, ?, 'salt')",
            (seat, name),
        )
    conn.execute(
        "INSERT INTO rounds (game_id, number, layout, started_at) VALUES (1, 1, ?, 0)",
        ('[{"name": "main", "open_end": 3}]',),
    )
    return conn


class StoppedServer:
    """A stand-in for the waitress server of `dominocam serve` that listens on nothing and
    stops at once (Ctrl+C), for tests of what the command prints and configures."""

    effective_port = 5999

    def run(self) -> None:
        raise KeyboardInterrupt


def serve_without_listening(monkeypatch) -> None:
    """Make `dominocam serve` bind nothing: neither the port check nor the server."""
    from dominocam.server import serving

    monkeypatch.setattr(serving, "check_address_free", lambda host, port: None)
    monkeypatch.setattr(serving, "create_server", lambda app, host, port: StoppedServer())
    monkeypatch.setattr(serving, "stop_server", lambda server: None)
    monkeypatch.setenv("DOMINOCAM_ADMIN_TOKEN", "x" * 32)
