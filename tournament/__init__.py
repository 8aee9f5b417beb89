"""Tournament mode: many tables, one event.

Reading runs on Celery workers with Redis as broker (`dominocam.tournament.worker`); a table's
newest frame wins (`dominocam.tournament.frames`); Scenes, seats, rounds and standings live in
PostgreSQL (`dominocam.tournament.store`); web processes are stateless and stream each table's
events from Redis pub/sub (`dominocam.tournament.web`). Needs the `tournament` extra and the
services of docs/tournament.md; nothing here is imported by single-table mode.
"""
