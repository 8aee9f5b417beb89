"""Where the services are: one environment variable each, the same for every process.

* `DOMINOCAM_REDIS_URL` - the broker and pub/sub (default `redis://127.0.0.1:6379/0`);
* `DOMINOCAM_DATABASE_URL` - PostgreSQL (default `postgresql://dominocam@127.0.0.1:5432/dominocam`).
"""

from __future__ import annotations

import os

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_DATABASE_URL = "postgresql://dominocam@127.0.0.1:5432/dominocam"


def redis_url() -> str:
    return os.environ.get("DOMINOCAM_REDIS_URL", DEFAULT_REDIS_URL)


def database_url() -> str:
    return os.environ.get("DOMINOCAM_DATABASE_URL", DEFAULT_DATABASE_URL)
