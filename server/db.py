"""The per-request SQLite connection (Flask `g`), closed when the request ends."""

from __future__ import annotations

import sqlite3

from flask import current_app, g

from dominocam.server import storage


def get_db() -> sqlite3.Connection:
    """This request's connection to the configured database."""
    if "db" not in g:
        g.db = storage.connect(current_app.config["DATABASE"])
    return g.db


def close_db(_error: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()
