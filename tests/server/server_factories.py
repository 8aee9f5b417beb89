"""Helpers for the dashboard tests: the admin token, a stand-in photo reader, test photos."""

from __future__ import annotations

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
            "server.cli",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "db.sqlite3"),
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
    """A create_app() app served on loopback from a thread (for tests that inject a reader)."""

    def __init__(self, app) -> None:
        import threading

        from werkzeug.serving import make_server

        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.thread.join(10)
