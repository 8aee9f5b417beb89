"""Reading on real Celery workers: the newest frame wins, a worker killed mid-frame."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

pytest.importorskip("celery", reason="needs the `tournament` extra (make test-tournament)")
pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

from tournament_factories import settled, wait_until

pytestmark = pytest.mark.tournament


def stored_seqs(db: Any, event_id: int, table_id: str) -> list[int]:
    rows = db.execute(
        "SELECT seq FROM scenes WHERE event_id = %s AND table_id = %s ORDER BY seq",
        (event_id, table_id),
    ).fetchall()
    return [row["seq"] for row in rows]


def test_newest_frame_wins(db, redis_client, make_event, workers, game_frames) -> None:
    """Ten frames sent while no worker runs: one task waits, the newest frame is read, nine
    are dropped and counted; the stored Scene is what the table's tracker makes of it."""
    from dominocam.tournament import frames
    from dominocam.tournament.worker import QUEUE, make_app, send_frame

    config, tokens = make_event(tables=1)
    app = make_app(os.environ["DOMINOCAM_REDIS_URL"])
    sent = [send_frame(redis_client, app, tokens.event_id, "t1", jpeg) for jpeg in game_frames[:10]]
    assert [s.send_task for s in sent] == [True] + [False] * 9
    assert redis_client.llen(QUEUE) == 1  # one task for ten frames: nothing queued behind it

    workers.start("w1")
    workers.wait_ready(["w1"])
    wait_until(lambda: stored_seqs(db, tokens.event_id, "t1"), 60, "the table's Scene")
    wait_until(lambda: settled(redis_client, tokens.event_id, ["t1"]), 30, "the worker")

    assert stored_seqs(db, tokens.event_id, "t1") == [sent[-1].seq]
    assert frames.stats(redis_client, tokens.event_id, "t1") == {
        "sent": 10,
        "dropped": 9,
        "claimed": 1,
        "read": 1,
    }
    # The stored Scene is the table's tracker after that frame, as this process computes it.
    local = local_tracker(config, game_frames[9])
    assert scene_of(db, tokens.event_id, sent[-1].seq) == local.scene
    assert frames.tracker_state(redis_client, tokens.event_id, "t1")["tracks"], "tiles tracked"
    # The same frame again: the tracker (its state from Redis) confirms the tiles it saw.
    again = send_frame(redis_client, app, tokens.event_id, "t1", game_frames[9])
    wait_until(lambda: again.seq in stored_seqs(db, tokens.event_id, "t1"), 60, "the 2nd Scene")
    second = local.next(game_frames[9])
    assert scene_of(db, tokens.event_id, again.seq) == second
    assert second["tiles"], "the frame shows tiles, so the comparison means something"


class LocalTracker:
    """A table's tracker run in the test process, as a worker runs it."""

    def __init__(self, config: Any, jpeg: bytes) -> None:
        from dominocam.tournament.worker import TRACK_FPS
        from dominocam.vision.image_io import decode_image
        from dominocam.vision.reading import Game, PhotoReader, tracker_config

        self.reader = PhotoReader.load(threads=1)
        image = decode_image(jpeg)
        config = tracker_config(TRACK_FPS, config.max_pip, Game(config.variant_name, 2))
        height, width = image.shape[:2]
        self.tracker = self.reader.tracker(width, height, config)
        self.t = 0.0
        self.scene = self.next(jpeg)

    def next(self, jpeg: bytes) -> dict[str, Any]:
        from dominocam.vision.image_io import decode_image

        self.t += 0.5
        result = self.reader.track(self.tracker, decode_image(jpeg), self.t)
        scene = result.scene.to_dict()
        for tile, track in zip(scene["tiles"], result.tracks, strict=True):
            tile["track"] = track
        scene["hidden"] = list(result.hidden)
        return scene


def local_tracker(config: Any, jpeg: bytes) -> LocalTracker:
    return LocalTracker(config, jpeg)


def scene_of(db: Any, event_id: int, seq: int) -> dict[str, Any]:
    return db.execute(
        "SELECT scene FROM scenes WHERE event_id = %s AND seq = %s", (event_id, seq)
    ).fetchone()["scene"]


def test_one_track_across_workers(db, redis_client, make_event, workers, game_frames) -> None:
    """A table's frames read by one worker, then (that worker stopped) by another: the
    second worker goes on from the tracker state the first left in Redis, so its first
    Scene already shows the tiles with the same track ids (a fresh tracker would show
    nothing until it had seen them in a few frames)."""
    from dominocam.tournament.worker import make_app, send_frame

    _, tokens = make_event(tables=1)
    app = make_app(os.environ["DOMINOCAM_REDIS_URL"])
    jpeg = game_frames[-1]

    def scene_after(seq: int) -> dict[str, Any]:
        found = wait_until(lambda: seq in stored_seqs(db, tokens.event_id, "t1"), 60, "a Scene")
        assert found
        row = db.execute(
            "SELECT scene, worker FROM scenes WHERE event_id = %s AND seq = %s",
            (tokens.event_id, seq),
        ).fetchone()
        return {"tiles": row["scene"]["tiles"], "worker": row["worker"]}

    workers.start("w1")
    workers.wait_ready(["w1"])
    first: dict[str, Any] = {"tiles": []}
    for _ in range(10):
        first = scene_after(send_frame(redis_client, app, tokens.event_id, "t1", jpeg).seq)
        if first["tiles"]:
            break
    assert first["tiles"], "the first worker never confirmed a tile"
    workers.stop_one("w1")
    workers.start("w2")
    workers.wait_ready(["w2"])
    second = scene_after(send_frame(redis_client, app, tokens.event_id, "t1", jpeg).seq)
    assert second["worker"] != first["worker"]
    assert [(t["track"], t["pips"]) for t in second["tiles"]] == [
        (t["track"], t["pips"]) for t in first["tiles"]
    ]


def parent_of(pid: int) -> int:
    """The parent process id (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


@pytest.mark.parametrize("kill", ["reading-process", "whole-worker"])
def test_two_tables_two_workers_one_killed_mid_frame(
    db, redis_client, make_event, workers, game_frames, kill
) -> None:
    """Two tables send frames to two workers; the process reading a frame of table 1 is
    frozen, checked to have stored nothing of it, and SIGKILLed: that process alone (its
    worker starts another), or its whole worker (a machine lost). Only that frame is lost:
    both tables keep being read, by the other worker among others, every stored Scene is
    whole, and every frame sent is read, dropped or that one lost frame."""
    from dominocam.tournament import frames
    from dominocam.tournament.worker import make_app, send_frame
    from dominocam.vision.scene import Scene

    _, tokens = make_event(tables=2)
    event_id = tokens.event_id
    app = make_app(os.environ["DOMINOCAM_REDIS_URL"])
    workers.start("w1")
    workers.start("w2")
    workers.wait_ready(["w1", "w2"])
    mains = {name: proc.pid for name, proc in workers.procs.items()}

    def send_round(index: int) -> None:
        for table in ("t1", "t2"):
            send_frame(redis_client, app, event_id, table, game_frames[index % len(game_frames)])

    killed: tuple[str, int] | None = None
    killed_main = other_main = 0
    index = 0
    deadline = time.monotonic() + 90
    while killed is None and time.monotonic() < deadline:
        send_round(index)
        index += 1
        time.sleep(0.05)
        claim = frames.reading(redis_client, event_id, "t1")
        if claim is None:
            continue
        worker, seq = claim
        pid = int(worker.rsplit(":", 1)[1])
        os.kill(pid, signal.SIGSTOP)  # frozen mid-frame: now look before killing it
        if seq in stored_seqs(db, event_id, "t1"):
            os.kill(pid, signal.SIGCONT)  # it had finished; try again with another frame
            time.sleep(0.1)
            continue
        killed_main = parent_of(pid)
        other_main = next(m for m in mains.values() if m != killed_main)
        if kill == "whole-worker":
            os.killpg(killed_main, signal.SIGKILL)  # the worker and its pool process
        else:
            os.kill(pid, signal.SIGKILL)
        killed = (worker, seq)
    assert killed is not None, "no frame of table 1 was seen being read"
    assert killed_main in mains.values()

    # Both tables go on being read after the kill.
    after = {"t1": 0, "t2": 0}
    deadline = time.monotonic() + 90
    while min(after.values()) < 3 and time.monotonic() < deadline:
        send_round(index)
        index += 1
        time.sleep(0.4)
        for table in after:
            after[table] = sum(s > killed[1] for s in stored_seqs(db, event_id, table))
    assert min(after.values()) >= 3, f"tables stopped being read after the kill: {after}"
    wait_until(lambda: settled(redis_client, event_id, ["t1", "t2"]), 60, "the workers")

    assert killed[1] not in stored_seqs(db, event_id, "t1")
    rows = db.execute(
        "SELECT table_id, seq, scene, worker FROM scenes WHERE event_id = %s", (event_id,)
    ).fetchall()
    for row in rows:
        Scene.from_dict(row["scene"])  # whole and valid: raises on a broken Scene
    writers = {r["worker"] for r in rows if r["seq"] > killed[1]}
    parents = {parent_of(int(w.rsplit(":", 1)[1])) for w in writers}
    assert other_main in parents, "the other worker did not go on reading"
    if kill == "whole-worker":
        assert parents == {other_main}
        assert workers.procs[next(n for n, m in mains.items() if m == killed_main)].poll()
    for table, lost in (("t1", 1), ("t2", 0)):
        counts = frames.stats(redis_client, event_id, table)
        assert counts["claimed"] - counts["read"] == lost, (table, counts)
        assert counts["sent"] == counts["read"] + counts["dropped"] + lost, (table, counts)
        assert counts["read"] == len(stored_seqs(db, event_id, table))
    latest = db.execute(
        "SELECT id, latest_seq FROM event_tables WHERE event_id = %s ORDER BY id", (event_id,)
    ).fetchall()
    for row in latest:
        assert row["latest_seq"] == max(stored_seqs(db, event_id, row["id"]))


def test_sequence_numbers_keep_growing_when_redis_loses_its_data(
    db, redis_client, make_event, game_frames
) -> None:
    """Redis runs without persistence: if it restarts empty, a table's sequence numbers
    still grow (they start at Redis' clock), so PostgreSQL's Scenes keyed by them are never
    confused with older ones, and the newest-Scene pointer keeps moving forward."""
    from dominocam.tournament import frames, store

    _, tokens = make_event(tables=1)
    first = frames.submit(redis_client, tokens.event_id, "t1", game_frames[0])
    claimed = frames.claim(redis_client, tokens.event_id, "t1", "test:1")
    assert claimed is not None and claimed.seq == first.seq and claimed.jpeg == game_frames[0]
    assert store.store_scene(
        db, tokens.event_id, "t1", claimed.seq, {"tiles": []}, sent_at=0.0, read_s=0.0, worker="x"
    )
    for key in redis_client.scan_iter(f"dominocam:e{tokens.event_id}:*"):
        redis_client.delete(key)  # what a restart without persistence leaves
    time.sleep(0.01)
    again = frames.submit(redis_client, tokens.event_id, "t1", game_frames[1])
    assert again.seq > first.seq
    assert again.send_task  # nothing was pending any more
    claimed = frames.claim(redis_client, tokens.event_id, "t1", "test:1")
    assert claimed is not None and claimed.seq == again.seq
    assert frames.claim(redis_client, tokens.event_id, "t1", "test:1") is None  # nothing newer
    assert store.store_scene(
        db, tokens.event_id, "t1", again.seq, {"tiles": [1]}, sent_at=0.0, read_s=0.0, worker="x"
    )
    # The same frame stored twice (a retried task) changes nothing.
    assert not store.store_scene(
        db, tokens.event_id, "t1", again.seq, {"tiles": [2]}, sent_at=0.0, read_s=0.0, worker="y"
    )
    latest = store.latest_scene(db, tokens.event_id, "t1")
    assert latest == {"seq": again.seq, "scene": {"tiles": [1]}}


def test_a_worker_reconnects_when_postgresql_drops_its_connection(
    db, redis_client, make_event, workers, game_frames
) -> None:
    """PostgreSQL ends the worker's connection (as a restart or failover would): at most
    the frame being stored then is lost, and the worker goes on storing the next ones."""
    from dominocam.tournament import frames
    from dominocam.tournament.worker import make_app, send_frame

    _, tokens = make_event(tables=1)
    event_id = tokens.event_id
    app = make_app(os.environ["DOMINOCAM_REDIS_URL"])
    workers.start("w1")
    workers.wait_ready(["w1"])

    def read_more(count: int) -> list[int]:
        start = len(stored_seqs(db, event_id, "t1"))
        deadline = time.monotonic() + 90
        index = 0
        while len(stored_seqs(db, event_id, "t1")) < start + count:
            assert time.monotonic() < deadline, "the worker stopped storing Scenes"
            send_frame(redis_client, app, event_id, "t1", game_frames[index % len(game_frames)])
            index += 1
            time.sleep(0.3)
        return stored_seqs(db, event_id, "t1")

    read_more(1)
    ended = db.execute(
        "SELECT count(*) AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND backend_type = 'client backend') AS t"
    ).fetchone()["n"]
    assert ended >= 1
    read_more(2)
    wait_until(lambda: settled(redis_client, event_id, ["t1"]), 60, "the worker")
    counts = frames.stats(redis_client, event_id, "t1")
    assert counts["claimed"] - counts["read"] <= 1, counts
    assert counts["sent"] == counts["dropped"] + counts["claimed"], counts
    assert "reconnecting to PostgreSQL" in workers.log("w1")


def test_a_tables_tracker_follows_the_rounds_engine(db, redis_client, make_event, web) -> None:
    """Mexican Train: the layout a table's tracker rebuilds grows from the round's engine
    (12-12, then 11-11 once a round is scored), as single-table mode's camera."""
    from types import SimpleNamespace

    from dominocam.tournament.worker import WorkerContext, table_tracker
    from dominocam.vision.reading import PhotoReader

    data = {
        "event": f"mexican-{os.urandom(4).hex()}",
        "variant": "mexican-train",
        "players": ["A", "B"],
        "tables": [{"id": "t1", "seats": ["A", "B"]}],
    }
    _, tokens = make_event(data)
    reader = PhotoReader(SimpleNamespace(calibration=None))  # no model is run
    ctx = WorkerContext(reader, redis_client, db, "test")
    tracker = table_tracker(ctx, tokens.event_id, "t1", 640, 360)
    assert tracker.config.layout.kind == "mexican" and tracker.config.layout.hub_value == 12
    client = web(tokens.event_id)
    for name, tiles in (("A", []), ("B", [[5, 6]])):
        answer = client.put(
            "/api/hand",
            json={"tiles": tiles},
            headers={"Authorization": f"Bearer {tokens.players[name]}"},
        )
        assert answer.status_code == 200
    ended = client.post(
        "/api/tables/t1/rounds/current/end",
        json={"ended_by": "domino", "winner": "A"},
        headers={"Authorization": f"Bearer {tokens.admin}"},
    )
    assert ended.get_json()["ended"] is True, ended.get_json()
    assert table_tracker(ctx, tokens.event_id, "t1", 640, 360).config.layout.hub_value == 11
