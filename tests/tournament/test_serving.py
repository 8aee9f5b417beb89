"""A tournament web process bounds connections as single-table mode does (issue 33, item 8):
per client address, idle time, and waitress' own errors as JSON under /api/. Served here
with a stand-in Flask app: no Redis or PostgreSQL needed."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time

import pytest
from flask import Flask

from dominocam.errors import UserInputError
from dominocam.tournament import cli


def _app() -> Flask:
    app = Flask("stand-in")

    @app.get("/api/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    return app


@pytest.fixture
def served(monkeypatch):
    from dominocam.server.serving import stop_server

    monkeypatch.setenv("DOMINOCAM_CONNECTIONS_PER_CLIENT", "3")
    monkeypatch.setenv("DOMINOCAM_WEB_THREADS", "4")
    server = cli.web_server(_app(), "127.0.0.1", 0, body_limit=1024 * 1024)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield int(server.effective_port)
    stop_server(server)
    thread.join(10)


def _connect(port: int, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    sock.settimeout(5)
    return sock


def _answer(sock: socket.socket, request: bytes) -> bytes:
    sock.sendall(request)
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def test_one_address_cannot_hold_every_connection(served) -> None:
    held = [_connect(served, "127.0.0.1") for _ in range(8)]
    try:
        time.sleep(0.3)
        with _connect(served, "127.0.0.2") as other:
            answer = _answer(
                other, b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
        assert b" 200 " in answer.split(b"\r\n")[0]
        open_ones = 0
        for sock in held:
            sock.settimeout(0.5)
            try:
                open_ones += sock.recv(1) != b""
            except TimeoutError:
                open_ones += 1
            except ConnectionResetError:
                pass
        assert open_ones == 3
    finally:
        for sock in held:
            sock.close()


def test_a_body_over_twice_the_limit_is_a_json_413(served) -> None:
    with _connect(served, "127.0.0.1") as sock:
        answer = _answer(
            sock,
            b"POST /api/hand/photo HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\n"
            b"Content-Length: 60000000\r\n\r\n",
        )
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b" 413 " in head.split(b"\r\n")[0] and b"application/json" in head
    assert json.loads(body)["error"].startswith("the upload is larger than 1 MB")


@pytest.mark.parametrize(("raw", "bound"), [("32", 32), ("0", None), (None, 32)])
def test_connections_per_client_from_the_environment(monkeypatch, raw, bound) -> None:
    if raw is None:
        monkeypatch.delenv("DOMINOCAM_CONNECTIONS_PER_CLIENT", raising=False)
    else:
        monkeypatch.setenv("DOMINOCAM_CONNECTIONS_PER_CLIENT", raw)
    assert cli.connections_per_client() == bound


def test_a_bad_connections_per_client_is_one_line(monkeypatch) -> None:
    monkeypatch.setenv("DOMINOCAM_CONNECTIONS_PER_CLIENT", "-1")
    with pytest.raises(UserInputError, match="DOMINOCAM_CONNECTIONS_PER_CLIENT"):
        cli.connections_per_client()
