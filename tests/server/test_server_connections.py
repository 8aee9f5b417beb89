"""One device cannot lock the others out by holding connections (issue 33, item 8), and
waitress' own errors under /api/ are JSON (item 11). Real sockets on loopback, against the
production server (waitress) serving the app; every wait is bounded."""

from __future__ import annotations

import contextlib
import json
import socket
import time

import pytest
from server_factories import ADMIN, ThreadedServer

from dominocam.server.serving import ClientConnections

# Small numbers, the same shape as the defaults: waitress' connection_limit is
# SSE_MAX_STREAMS + threads (2 + 2 + 1 + 2 = 7 here, about 2,050 by default).
SMALL = {"SSE_MAX_STREAMS": 2, "CAMERA_MAX_STREAMS": 1, "WORKER_THREADS": 2}


@pytest.fixture
def serve(make_app):
    servers: list[ThreadedServer] = []

    def start(**config) -> ThreadedServer:
        server = ThreadedServer(make_app(**config))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def _connect(port: int, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    sock.settimeout(5)
    return sock


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """True once the server has closed the connection (EOF or reset) within `within_s`."""
    sock.settimeout(within_s)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def _get(port: int, path: str, source: str, headers: str = "") -> tuple[int, dict, bytes]:
    with _connect(port, source) as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return _parse(data)


def _parse(data: bytes) -> tuple[int, dict, bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in fields.items()}, body


def test_one_address_holding_idle_connections_does_not_lock_others_out(serve) -> None:
    server = serve(**SMALL, CONNECTIONS_PER_CLIENT=4)
    held = [_connect(server.port, "127.0.0.1") for _ in range(12)]
    try:
        time.sleep(0.3)  # the socket loop accepts them all
        # Another device is still served, at once (before: no answer, the server had
        # stopped accepting connections).
        started = time.monotonic()
        status, _, body = _get(server.port, "/api/health", "127.0.0.2")
        assert status == 200 and json.loads(body)["ok"] is True
        assert time.monotonic() - started < 3
        # The address keeps its share: 4 open, the other 8 closed at once.
        closed = [sock for sock in held if _closed_by_server(sock, 0.5)]
        assert len(closed) == 8
        # So is the same address once it lets a connection go.
        next(s for s in held if s not in closed).close()
        time.sleep(0.3)
        assert _get(server.port, "/api/health", "127.0.0.1")[0] == 200
    finally:
        for sock in held:
            sock.close()


def test_an_idle_connection_is_closed(serve) -> None:
    server = serve(IDLE_TIMEOUT_S=1)
    idle = _connect(server.port, "127.0.0.1")
    try:
        started = time.monotonic()
        assert _closed_by_server(idle, 5.0)
        assert time.monotonic() - started < 4
    finally:
        idle.close()


def test_a_stream_is_not_idle(serve) -> None:
    server = serve(IDLE_TIMEOUT_S=1, SSE_HEARTBEAT_S=0.5)
    made = server.app.test_client().post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    )
    gid = made.json["game"]["id"]
    with _connect(server.port, "127.0.0.1") as sock:
        sock.sendall(
            f"GET /api/events?game={gid}&max_s=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        assert b" 200 " in sock.recv(65536)
        time.sleep(2.5)  # past the idle time: the stream keeps its connection, and sends
        late = b""
        with contextlib.suppress(TimeoutError):
            while len(late) < 200 and (chunk := sock.recv(65536)):
                late += chunk
        assert late, "the stream was cut"


def test_a_body_waitress_refuses_gets_the_apps_json_error(serve) -> None:
    server = serve()
    declared = 60 * 1024 * 1024  # over twice MAX_CONTENT_LENGTH (20 MB): waitress answers
    for language, words in [("", "the upload is larger than 20 MB"), ("hu-HU,hu;q=0.9", None)]:
        with _connect(server.port, "127.0.0.1") as sock:
            sock.sendall(
                (
                    "POST /api/games/1/rounds/current/table HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Content-Type: image/jpeg\r\nContent-Length: {declared}\r\n"
                    + (f"Accept-Language: {language}\r\n" if language else "")
                    + "\r\n"
                ).encode()
            )
            data = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := sock.recv(65536):
                    data += chunk
        status, headers, body = _parse(data)
        assert status == 413, data[:300]
        assert headers["content-type"].startswith("application/json"), headers
        error = json.loads(body)
        assert error["status"] == 413
        assert (error["code"], error["params"]) == ("too_large", {"megabytes": 20})
        if words:
            assert error["error"].startswith(words)
        else:
            assert "20" in error["error"] and "larger than" not in error["error"]


def test_a_malformed_api_request_gets_json_too(serve) -> None:
    server = serve()
    with _connect(server.port, "127.0.0.1") as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n")
        data = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                data += chunk
    status, headers, body = _parse(data)
    assert status == 400 and headers["content-type"].startswith("application/json")
    error = json.loads(body)
    assert error["status"] == 400 and error["code"] == "bad_request" and error["params"] == {}


def test_client_connections_count_per_address() -> None:
    counts = ClientConnections(2)
    assert counts.admit("a") and counts.admit("a") and not counts.admit("a")
    assert counts.admit("b")
    counts.release("a")
    assert counts.held("a") == 1 and counts.admit("a")
    unbounded = ClientConnections(None)
    assert all(unbounded.admit("a") for _ in range(100))
