"""The event stream: a change is computed once and fanned out to every listener, streams are
capped per client and in all, and a stream of a missing game ends without a traceback."""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time

from server_factories import ThreadedServer


def _read_states(host: str, port: int, gid: int, seen: list[int], stop: threading.Event) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=20)
    conn.request("GET", f"/api/events?game={gid}&max_s=20")
    response = conn.getresponse()
    assert response.status == 200
    while not stop.is_set():
        line = response.fp.readline()
        if not line:
            break
        if line.startswith(b"id: "):
            seen.append(int(line[4:]))
    conn.close()


def _wait(condition, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_a_change_is_computed_once_for_all_listeners(make_app, game, links) -> None:
    app = make_app(SSE_MAX_PER_CLIENT=10)
    server = ThreadedServer(app)
    broker = app.extensions["dominocam.broker"]
    gid = game["game"]["id"]
    listeners = 6
    seen: list[list[int]] = [[] for _ in range(listeners)]
    stop = threading.Event()
    threads = [
        threading.Thread(target=_read_states, args=("127.0.0.1", server.port, gid, s, stop))
        for s in seen
    ]
    try:
        for t in threads:
            t.start()
        assert _wait(lambda: all(seen) and broker.listeners == listeners)
        before = broker.computations
        client = app.test_client()
        changes = 5
        for i in range(changes):
            r = client.put(f"/api/hand/{links['Ana']}/tiles", json={"tiles": [[0, i]]})
            assert r.status_code == 200
            time.sleep(0.05)
        final = client.get(f"/api/state?game={gid}").json["version"]
        assert _wait(lambda: all(s[-1] == final for s in seen)), [s[-3:] for s in seen]
        # One state per change for all six listeners, not one per listener.
        assert broker.computations - before <= changes
    finally:
        stop.set()
        server.close()
        for t in threads:
            t.join(10)


def test_streams_are_capped_per_client_and_in_all(make_app, game) -> None:
    client = make_app(SSE_MAX_PER_CLIENT=2, SSE_MAX_STREAMS=3).test_client()
    gid = game["game"]["id"]

    def stream(address: str):
        return client.get(
            f"/api/events?game={gid}", buffered=False, environ_base={"REMOTE_ADDR": address}
        )

    a1, a2 = stream("10.0.0.1"), stream("10.0.0.1")
    assert a1.status_code == a2.status_code == 200
    third = stream("10.0.0.1")
    assert third.status_code == 429 and "2 live streams" in third.json["error"]
    b1 = stream("10.0.0.2")
    assert b1.status_code == 200
    full = stream("10.0.0.3")
    assert full.status_code == 503 and "limit of 3" in full.json["error"]
    a1.close()  # a closed stream frees its place at once
    again = stream("10.0.0.1")
    assert again.status_code == 200
    for r in (a2, b1, again):
        r.close()
    assert client.application.extensions["dominocam.broker"].listeners == 0


def test_a_wrong_game_id_is_a_404_and_logs_nothing(client, game, caplog) -> None:
    caplog.set_level(logging.INFO)
    for _ in range(3):  # the overlay retries every 2 s
        r = client.get("/api/events?game=999")
        assert r.status_code == 404 and r.json["error"] == "no game 999"
    assert client.get("/api/state?game=999").status_code == 404
    assert not [rec for rec in caplog.records if rec.levelno >= logging.WARNING]
    assert not [rec for rec in caplog.records if rec.exc_info]


def test_a_game_deleted_while_streaming_ends_the_stream(app, client, game) -> None:
    gid = game["game"]["id"]
    r = client.get(f"/api/events?game={gid}&max_s=10", buffered=False)
    chunks = iter(r.response)
    text = next(chunks)
    assert text.startswith(b"retry:")
    while b"event: state" not in text:
        text += next(chunks)
    from dominocam.server import storage

    conn = storage.connect(app.config["DATABASE"])
    conn.execute("DELETE FROM games WHERE id = ?", (gid,))
    storage.add_event(conn, None, "test-delete")
    conn.close()
    app.extensions["dominocam.broker"].notify()
    rest = b"".join(chunks)  # the stream ends by itself
    assert b"event: gone" in rest
    gone = rest.split(b"event: gone\ndata: ", 1)[1].split(b"\n", 1)[0]
    assert json.loads(gone) == {"error": f"no game {gid}"}
    r.close()
