"""The event's stateless web process: standings, tables, hands, frames, event streams.

    dominocam serve --tournament CONFIG --port 5000     # as many as you like, one address

A web process keeps nothing of its own: state is in PostgreSQL, a table's live events come
from Redis pub/sub (`dominocam.tournament.web.streams`), so any number of them serve the same event.

`create_app(database_url, redis_url, event_id, test_config=None)` builds the app as
single-table mode does (`server.create_app`, Flask's tutorial): configuration layered as the
defaults below, then `DOMINOCAM_*` environment variables (values parsed as JSON where they
can be), then the arguments, then `test_config` (a web process has no instance folder: it
keeps nothing); the process's resources made once (`dominocam.tournament.web.services`); one
blueprint per audience, with plain module-level views:

* `public` - the standings page, the OBS overlays, the public API;
* `streams` - the public feed: a table's event stream and the event's (SSE);
* `player` - a player's link: the phone page and `/api/hand...`;
* `host` - a table host's link (or the director's token): the host's page and the round;
* `director` - the admin token: the director's page, camera frames, host links.

Pages are Jinja templates under `tournament/templates/` (autoescaped), their script and style
under `tournament/static/` (no inline script or style).

Auth (`dominocam.tournament.web.auth`): public (standings, tables, Scenes, streams, the audit
trail's public texts: no hand before its round ends); the event director's admin token (frames, host
links, and everything a table host does, at every table); a table host's link (its table's rounds:
rulings confirmed or cancelled, hands changed with a reason, undo, seat links); a player's link
(their own hand, proposing a block, calling domino). Tokens come as `Authorization: Bearer TOKEN`
(pages: in their path); wrong ones count against the address in Redis
(`dominocam.tournament.guard`), shared by every web process.
"""

from __future__ import annotations

from typing import Any

import psycopg
import redis
from flask import Flask, Response, current_app, jsonify, request
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout
from werkzeug.exceptions import HTTPException

from dominocam.errors import UserInputError
from dominocam.i18n import _
from dominocam.server import CONTENT_SECURITY_POLICY, Int64Converter, i18n
from dominocam.server.serving import http_code
from dominocam.tournament import frames, store
from dominocam.tournament.guard import GuessGuard, TooManyGuesses
from dominocam.tournament.web import director, host, player, public, streams
from dominocam.tournament.web.auth import NoCredentials
from dominocam.tournament.web.bodies import MAX_BODY_BYTES, MAX_FRAME_BYTES
from dominocam.tournament.web.services import EXTENSION, UnknownTable
from dominocam.tournament.worker import make_app

__all__ = ["DEFAULTS", "MAX_BODY_BYTES", "MAX_FRAME_BYTES", "create_app", "security_headers"]

DEFAULTS: dict[str, Any] = {
    # The address phones open (new player and host links, their QR codes), e.g.
    # "http://10.0.0.4:5000"; default: the address of the request.
    "PUBLIC_URL": None,
    # PostgreSQL connections this process holds at most, and how long a request waits for
    # one before a 503.
    "DATABASE_POOL_SIZE": 16,
    "DATABASE_WAIT_S": 10.0,
    # The largest body read at all (a frame, or a JSON body): larger is a JSON 413.
    "MAX_CONTENT_LENGTH": MAX_BODY_BYTES,
}
# Answers to a token (a player's, a host's, the director's) are kept by no cache.
PRIVATE_PATHS = ("/api/hand", "/hand/", "/host/", "/director/")


def create_app(
    database_url: str, redis_url: str, event_id: int, test_config: dict[str, Any] | None = None
) -> Flask:
    """The web app of one event (any number of processes may serve it at once)."""
    # "tournament": the package's templates/ and static/ (the scripts and the style).
    app = Flask("tournament")
    app.config.from_mapping(DEFAULTS)
    app.config.from_prefixed_env("DOMINOCAM")
    app.config.from_mapping(DATABASE_URL=database_url, REDIS_URL=redis_url, EVENT_ID=event_id)
    if test_config:
        app.config.from_mapping(test_config)
    # Seats past 64-bit integers match no route (404) instead of reaching PostgreSQL.
    app.url_map.converters["int"] = Int64Converter

    client = redis.Redis.from_url(app.config["REDIS_URL"])
    app.extensions[EXTENSION] = {
        "pool": ConnectionPool(
            app.config["DATABASE_URL"],
            min_size=1,
            max_size=int(app.config["DATABASE_POOL_SIZE"]),
            kwargs={"autocommit": True, "row_factory": dict_row},
            open=True,
            timeout=float(app.config["DATABASE_WAIT_S"]),
        ),
        "client": client,
        "celery": make_app(app.config["REDIS_URL"]),
        "hub": streams.StreamHub(
            app.config["REDIS_URL"], f"{frames.PREFIX}:e{app.config['EVENT_ID']}:*"
        ),
        "guard": GuessGuard(client, int(app.config["EVENT_ID"])),
    }

    # The pages' and the API's language, as single-table mode (server/i18n.py): `?lang=`,
    # the picker's cookie, Accept-Language; the picker's `/language`.
    i18n.init_app(app)
    for module in (public, streams, player, host, director):
        app.register_blueprint(module.bp)
    register_errors(app)
    app.after_request(private_answers)
    return app


def register_errors(app: Flask) -> None:
    """Every error is JSON, `{"error", "status", "code", "params"}` (docs/tournament.md)."""
    app.register_error_handler(UserInputError, bad_input)
    app.register_error_handler(PermissionError, refused)
    app.register_error_handler(UnknownTable, not_found)
    app.register_error_handler(psycopg.OperationalError, database_away)
    app.register_error_handler(PoolTimeout, database_away)
    app.register_error_handler(redis.ConnectionError, broker_away)
    app.register_error_handler(redis.TimeoutError, broker_away)
    app.register_error_handler(HTTPException, http_error)


def error(
    message: str, status: int, code: str | None = None, params: dict[str, Any] | None = None
) -> tuple[Response, int]:
    """`{"error", "status", "code", "params"}` as single-table mode answers: the message in
    the request's language, the refusal's stable code and its parameters (every refusal has
    a code: `dominocam.errors.Refused` and the exceptions below carry theirs)."""
    return jsonify(error=message, status=status, code=code, params=params or {}), status


def bad_input(exception: UserInputError) -> tuple[Response, int]:
    status = 409 if isinstance(exception, store.RoundConflict) else 400
    return error(
        str(exception), status, getattr(exception, "code", None), getattr(exception, "params", None)
    )


def refused(exception: PermissionError) -> tuple[Response, int]:
    code = getattr(exception, "code", None) or "denied"  # a PermissionError from elsewhere
    params = getattr(exception, "params", None)
    if isinstance(exception, TooManyGuesses):
        answer, status = error(str(exception), 429, code, params)
        answer.headers["Retry-After"] = str(exception.retry_after)
        return answer, status
    status = 401 if isinstance(exception, NoCredentials) else 403
    return error(str(exception), status, code, params)


def not_found(exception: UnknownTable) -> tuple[Response, int]:
    return error(str(exception), 404, exception.code, exception.params)


def database_away(exception: Exception) -> tuple[Response, int]:
    current_app.logger.warning("PostgreSQL unreachable: %s", exception)
    return error(
        _("the event's database cannot be reached; try again"), 503, "database_unreachable"
    )


def broker_away(exception: Exception) -> tuple[Response, int]:
    current_app.logger.warning("Redis unreachable: %s", exception)
    return error(_("the event's broker cannot be reached; try again"), 503, "broker_unreachable")


def http_error(exception: HTTPException) -> tuple[Response, int]:
    status = exception.code or 500
    params: dict[str, Any] = {}
    if status == 405:
        params = {"method": request.method}
    elif status == 413:
        params = {"megabytes": int(current_app.config["MAX_CONTENT_LENGTH"]) // 2**20}
    return error(str(exception.description), status, http_code(status), params)


def private_answers(response: Response) -> Response:
    """The security headers on every answer; no cache keeps an answer to a token."""
    security_headers(response.headers, overlay=request.path.endswith("overlay"))
    # Pages and answers are in the request's language (`?lang=` is in the address).
    response.vary.update(("Accept-Language", "Cookie"))
    if "Authorization" in request.headers or request.path.startswith(PRIVATE_PATHS):
        response.headers["Cache-Control"] = "no-store"
    return response


def security_headers(headers: Any, overlay: bool) -> None:
    """As single-table mode (`server._security_headers`): everything the pages load is their
    own, no inline script or style; only the overlays may be framed (OBS, a stream page)."""
    headers.setdefault(
        "Content-Security-Policy",
        CONTENT_SECURITY_POLICY.format(ancestors="*" if overlay else "'none'"),
    )
    if not overlay:
        headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
