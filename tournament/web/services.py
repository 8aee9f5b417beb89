"""What a view of the event's web app reaches through `current_app` and `g`.

`create_app` makes the process's resources once and keeps them in
`app.extensions["dominocam.tournament"]`: `pool` (PostgreSQL connections), `client` (Redis),
`celery` (the app tasks are sent to), `hub` (the process's one pub/sub connection,
`dominocam.tournament.web.streams`) and `guard` (wrong tokens per address,
`dominocam.tournament.guard`). The event is `current_app.config["EVENT_ID"]`; its configuration is
read once per request and kept in `g`.

Words: every request is answered in its language (`dominocam.server.i18n`, as single-table mode).
The sentences the store keeps in English (a held ruling, a lock's reason, the audit trail's entries:
`dominocam.rounds.wording`) stay as stored in the JSON, their codes beside them, and each gains its
`shown` twin, written from the code in the request's language (`shown_table`, `shown_outcome`,
`shown_audit`); nothing reads the English back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import redis
from flask import Response, current_app, g, render_template, request
from psycopg_pool import ConnectionPool

from dominocam.i18n import _
from dominocam.rules import phrases
from dominocam.tournament import frames, rounds, store
from dominocam.tournament.config import EventConfig
from dominocam.tournament.guard import GuessGuard

EXTENSION = "dominocam.tournament"


class UnknownTable(LookupError):
    """The event has no such table, or the table no such seat (HTTP 404), with the
    refusal's stable `code` and `params` (as `dominocam.errors.Refused`)."""

    def __init__(self, message: str, code: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def resources() -> dict[str, Any]:
    return current_app.extensions[EXTENSION]


def pool() -> ConnectionPool:
    """The process's PostgreSQL pool: `with pool().connection() as conn:` for as short a
    time as the work needs (an event stream holds none while it waits)."""
    return resources()["pool"]


def redis_client() -> redis.Redis:
    return resources()["client"]


def celery_app() -> Any:
    """The Celery app tasks are sent to (`dominocam.tournament.worker.make_app`)."""
    return resources()["celery"]


def guard() -> GuessGuard:
    return resources()["guard"]


def event_id() -> int:
    return int(current_app.config["EVENT_ID"])


def config() -> EventConfig:
    """The event's configuration (tables, seats, variant), read once per request."""
    if "event_config" not in g:
        with pool().connection() as conn:
            g.event_config = store.event_config(conn, event_id())
    return g.event_config


def known_table(table_id: str) -> None:
    try:
        config().table(table_id)
    except KeyError:
        raise UnknownTable(
            _("no table {table!r} in this event").format(table=table_id), "no_table", table=table_id
        ) from None


def event_channel() -> str:
    """The pub/sub channel of the event's own messages (rounds at any table)."""
    return f"{frames.PREFIX}:e{event_id()}:event"


def publish(table_id: str, kind: str, **data: Any) -> None:
    """Tell the table's stream (and, for rounds, the event's) that something changed; the
    message names no tile."""
    message = json.dumps({"kind": kind, "table": table_id, **data})
    client = redis_client()
    client.publish(frames.channel(event_id(), table_id), message)
    if kind == "round":
        client.publish(event_channel(), message)


def ruled(table_id: str, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A ruling's answer; one the round's ledger held for the host still tells the table's
    stream that a ruling now waits (the refusal names no tile)."""
    try:
        return call()
    except rounds.HeldForHost:
        publish(table_id, "round", action="ruling")
        raise


def public_base() -> str:
    """The address new links and their QR codes carry: `PUBLIC_URL`, else the request's."""
    return str(current_app.config["PUBLIC_URL"] or request.host_url).rstrip("/")


def private_page(template: str, **values: Any) -> Response:
    """A page opened with a token in its address: kept by no cache."""
    return Response(render_template(template, **values), headers={"Cache-Control": "no-store"})


def shown_text(text: str | None, words: object = None) -> str | None:
    """A stored sentence in the request's language, from its code (`dominocam.rules.phrases`); a
    sentence stored without one as it is."""
    return None if text is None else phrases.said(text, words)


def shown_table(table: dict[str, Any]) -> dict[str, Any]:
    """A table's public state (`store.public_table`) with each open round's held ruling and
    lock's reason in the request's language beside the stored English: `pending_shown`,
    `locked_shown`."""
    for rnd in table.get("rounds", []):
        if rnd.get("status") == "open":
            rnd["pending_shown"] = shown_text(rnd.get("pending"), rnd.get("pending_words"))
            rnd["locked_shown"] = shown_text(rnd.get("locked"), rnd.get("locked_words"))
    return table


def shown_outcome(outcome: dict[str, Any]) -> dict[str, Any]:
    """A ruling's answer (or the host's review) with its held ruling's text in the request's
    language beside the stored English (`pending.shown`)."""
    pending = outcome.get("pending")
    if isinstance(pending, dict) and "text" in pending:
        shown = phrases.said(pending["text"], pending.get("words"))
        outcome["pending"] = {**pending, "shown": shown}
    return outcome


def shown_audit(trail: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The audit trail with each entry's text in the request's language (`shown`)."""
    return [{**entry, "shown": phrases.said(entry["text"])} for entry in trail]
