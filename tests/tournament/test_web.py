"""Two stateless web processes streaming the same table; one is killed and restarted."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

pytest.importorskip("celery", reason="needs the `tournament` extra (make test-tournament)")
pytest.importorskip("waitress", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import StreamClient, WebProcess, free_port, settled, wait_until

pytestmark = pytest.mark.tournament


def post_frame(url: str, admin: str, table: str, jpeg: bytes) -> int:
    request = urllib.request.Request(
        f"{url}/api/tables/{table}/frames",
        data=jpeg,
        method="POST",
        headers={"Authorization": f"Bearer {admin}", "Content-Type": "image/jpeg"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 202
        return int(json.loads(answer.read())["seq"])


def test_web_process_restarted_while_streams_are_open(
    db, redis_client, make_event, workers, game_frames, tmp_path, urls
) -> None:
    """Viewers of one table on two web processes; frames arrive through web B. Web A is
    SIGKILLed and restarted on its port while both streams are open: A's viewer reconnects
    with Last-Event-ID and gets the newest Scene at once, then live ones, never an older
    one; B's viewer is not disturbed and receives every Scene stored meanwhile."""
    config, tokens = make_event(tables=2)
    config_path = tmp_path / "event.json"
    config_path.write_text(json.dumps(config.to_json()))
    workers.start("w1")
    workers.wait_ready(["w1"])
    web_a = WebProcess(urls, config_path, free_port(), tmp_path / "web-a.log")
    web_b = WebProcess(urls, config_path, free_port(), tmp_path / "web-b.log")
    viewers: list[StreamClient] = []
    try:
        web_a.start()
        web_b.start()
        viewer_a = StreamClient(web_a.port, "/api/tables/t1/events")
        viewer_b = StreamClient(web_b.port, "/api/tables/t1/events")
        viewers += [viewer_a, viewer_b]
        wait_until(lambda: viewer_a.connections and viewer_b.connections, 20, "both streams")
        sent = 0

        def send() -> int:
            nonlocal sent
            sent += 1
            seq = post_frame(web_b.url, tokens.admin, "t1", game_frames[sent % len(game_frames)])
            time.sleep(0.25)
            return seq

        first_seq = send()
        while len(viewer_a.scenes()) < 2 or len(viewer_b.scenes()) < 2:
            send()
            assert sent < 200, "no Scenes reached the viewers"
        web_a.kill()
        seen_before = max(int(e["id"]) for e in viewer_a.scenes())
        latest = lambda: db.execute(  # noqa: E731
            "SELECT latest_seq FROM event_tables WHERE event_id = %s AND id = 't1'",
            (tokens.event_id,),
        ).fetchone()["latest_seq"]
        while latest() <= seen_before:  # a Scene is stored while web A is down
            send()
        web_a.start()
        wait_until(lambda: viewer_a.connections >= 2, 30, "viewer A to reconnect")
        while len([e for e in viewer_a.scenes() if e["connection"] >= 2]) < 3:
            send()
            assert sent < 400, "viewer A got no live Scenes after the restart"
        wait_until(lambda: settled(redis_client, tokens.event_id, ["t1"]), 30, "the last frame")
        time.sleep(1.0)  # the last Scenes reach the viewers
    finally:
        for viewer in viewers:
            viewer.close()
        web_a.stop()
        web_b.stop()

    again = [e for e in viewer_a.events if e["connection"] >= 2]
    assert again[0]["event"] == "table"  # the table's state first, then its newest Scene
    assert again[1]["event"] == "scene" and int(again[1]["id"]) > seen_before
    seqs_a = [int(e["id"]) for e in viewer_a.scenes()]
    assert seqs_a == sorted(set(seqs_a)), "viewer A got a Scene twice or out of order"
    assert viewer_b.connections == 1
    seqs_b = [int(e["id"]) for e in viewer_b.scenes()]
    stored = [
        row["seq"]
        for row in db.execute(
            "SELECT seq FROM scenes WHERE event_id = %s AND table_id = 't1' AND seq >= %s "
            "ORDER BY seq",
            (tokens.event_id, seqs_b[0]),
        )
    ]
    assert seqs_b == stored
    assert first_seq <= seqs_b[0]
