"""A small load test on loopback: many SSE overlay clients and repeated uploads for a bounded
time. Prints the numbers (run with -s to see them); asserts only that nothing failed."""

from __future__ import annotations

import http.client
import threading
import time

import pytest
from server_factories import ADMIN, ThreadedServer, fake_scene, jpeg_bytes

SSE_CLIENTS = 40
UPLOAD_SECONDS = 5.0


@pytest.mark.slow
def test_many_overlays_and_repeated_uploads(make_app) -> None:
    # Every client here comes from 127.0.0.1, so the bounds per address (streams and
    # connections, both meant for one device) are raised to let them stand for many devices.
    app = make_app(
        SCENE_PROVIDER=fake_scene,
        SSE_POLL_S=1.0,
        SSE_MAX_PER_CLIENT=SSE_CLIENTS,
        CONNECTIONS_PER_CLIENT=SSE_CLIENTS + 8,
    )
    server = ThreadedServer(app)
    host, port = "127.0.0.1", server.port
    client = make_app(SCENE_PROVIDER=fake_scene).test_client()
    gid = client.post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    ).json["game"]["id"]
    stop = threading.Event()
    received = [0] * SSE_CLIENTS
    errors: list[str] = []

    def overlay(i: int) -> None:
        try:
            conn = http.client.HTTPConnection(host, port, timeout=30)
            conn.request("GET", f"/api/events?game={gid}&max_s={UPLOAD_SECONDS + 3}")
            response = conn.getresponse()
            assert response.status == 200
            while not stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"event: state"):
                    received[i] += 1
            conn.close()
        except Exception as error:
            errors.append(f"sse {i}: {error}")

    threads = [threading.Thread(target=overlay, args=(i,)) for i in range(SSE_CLIENTS)]
    for t in threads:
        t.start()
    photo = jpeg_bytes(1280, 720)
    latencies = []
    start = time.monotonic()
    try:
        while time.monotonic() - start < UPLOAD_SECONDS:
            t0 = time.monotonic()
            conn = http.client.HTTPConnection(host, port, timeout=30)
            headers = {"Content-Type": "image/jpeg", **ADMIN}
            conn.request("POST", f"/api/games/{gid}/rounds/current/table", photo, headers)
            status = conn.getresponse().status
            conn.close()
            latencies.append(time.monotonic() - t0)
            if status != 201:
                errors.append(f"upload status {status}")
        time.sleep(1.5)
    finally:
        stop.set()
        for t in threads:
            t.join(15)
        server.close()
    latencies.sort()
    print(
        f"\nload: {SSE_CLIENTS} SSE clients, {len(latencies)} uploads in {UPLOAD_SECONDS:.0f} s "
        f"({len(latencies) / UPLOAD_SECONDS:.1f}/s), upload median "
        f"{latencies[len(latencies) // 2] * 1000:.0f} ms, p90 "
        f"{latencies[int(len(latencies) * 0.9)] * 1000:.0f} ms; state events per client "
        f"min {min(received)} median {sorted(received)[SSE_CLIENTS // 2]} max {max(received)}"
    )
    assert not errors, errors[:5]
    assert min(received) >= 2  # every overlay saw the initial state and later changes
