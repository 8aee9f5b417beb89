"""The tournament's reading task on Dramatiq (Redis broker) instead of Celery, to measure
the two engines with the same load: `bench_tournament.py --engine dramatiq`.

Everything but the engine is the tournament's own: the frame claimed in Redis, the table's
tracker, the Scene stored in PostgreSQL and published (`dominocam.tournament.worker.read_newest`).
Workers: `dramatiq dramatiq_reader --path benchmarks --processes 1 --threads 1`.
Not used by the product (tournament mode runs on Celery, docs/tournament.md says why).
"""

from __future__ import annotations

from typing import Any

import dramatiq
from dramatiq.brokers.redis import RedisBroker

from dominocam.tournament import frames, settings, worker

QUEUE = "dominocam-frames"
broker = RedisBroker(url=settings.redis_url())
dramatiq.set_broker(broker)


@dramatiq.actor(queue_name=QUEUE, max_retries=0, time_limit=120_000)
def read_frame(event_id: int, table_id: str, seq: int) -> None:
    """Read the newest frame of a table (as `dominocam.tournament.worker.read_frame`)."""
    ctx = worker.context()
    ctx.send_read = lambda e, t, s: read_frame.send(e, t, s)
    worker.read_newest(ctx, event_id, table_id)


def send_frame(client: Any, event_id: int, table_id: str, jpeg: bytes, **kw: Any) -> Any:
    """As `dominocam.tournament.worker.send_frame`, the task sent through Dramatiq."""
    submitted = frames.submit(client, event_id, table_id, jpeg, **kw)
    if submitted.send_task:
        read_frame.send(event_id, table_id, submitted.seq)
    return submitted
