"""Scene retention: old Scenes go by the policy, each table's newest stays."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = pytest.mark.tournament

SCENE = {"image": {"width": 640, "height": 360}, "tiles": [], "face_down": 0}


def seqs(db, event_id: int, table_id: str) -> list[int]:
    rows = db.execute(
        "SELECT seq FROM scenes WHERE event_id = %s AND table_id = %s ORDER BY seq",
        (event_id, table_id),
    ).fetchall()
    return [r["seq"] for r in rows]


def store(db, event_id: int, table_id: str, seq: int, minutes_ago: float) -> None:
    from dominocam.tournament import store as tstore

    assert tstore.store_scene(
        db, event_id, table_id, seq, SCENE, sent_at=0.0, read_s=0.1, worker="test"
    )
    db.execute(
        "UPDATE scenes SET stored_at = now() - make_interval(mins => %s) "
        "WHERE event_id = %s AND table_id = %s AND seq = %s",
        (minutes_ago, event_id, table_id, seq),
    )


def test_old_scenes_are_pruned_but_each_tables_newest_stays(db, make_event, monkeypatch) -> None:
    from dominocam.tournament import retention

    _, tokens = make_event(tables=2)
    _, other_tokens = make_event(tables=1)
    event = tokens.event_id
    for seq, age in ((1, 300), (2, 200), (3, 90), (4, 30), (5, 1)):
        store(db, event, "t1", seq, age)
    store(db, event, "t2", 7, 500)  # table 2's newest, however old, stays
    store(db, other_tokens.event_id, "t1", 1, 500)  # another event is not this one's to prune

    assert retention.prune(db, event, None) == retention.Pruned(0, 0)  # "off": keep all
    pruned = retention.prune(db, event, 60)
    assert pruned.scenes == 3
    assert seqs(db, event, "t1") == [4, 5]
    assert seqs(db, event, "t2") == [7]
    assert seqs(db, other_tokens.event_id, "t1") == [1]
    assert retention.prune(db, event, 0).scenes == 1
    assert seqs(db, event, "t1") == [5]

    monkeypatch.setenv("DOMINOCAM_SCENE_RETENTION_MIN", "soon")
    with pytest.raises(Exception, match="DOMINOCAM_SCENE_RETENTION_MIN"):
        retention.retention_minutes()


def test_pruning_runs_once_a_minute_across_workers(db, make_event, redis_client) -> None:
    from dominocam.tournament import retention

    _, tokens = make_event(tables=1)
    store(db, tokens.event_id, "t1", 1, 120)
    store(db, tokens.event_id, "t1", 2, 1)
    first = retention.prune_if_due(redis_client, db, tokens.event_id)
    assert first is not None and first.scenes == 1
    store(db, tokens.event_id, "t1", 3, 120)  # older than the policy, but not due yet
    assert retention.prune_if_due(redis_client, db, tokens.event_id) is None
    assert seqs(db, tokens.event_id, "t1") == [2, 3]
    assert 0 < redis_client.ttl(f"dominocam:e{tokens.event_id}:pruned") <= retention.PRUNE_EVERY_S
