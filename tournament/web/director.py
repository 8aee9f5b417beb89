"""The event director (the admin token): the director's page, camera frames, host links.
Everything a table host does, the director may do at every table
(`dominocam.tournament.web.host`)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from dominocam.i18n import _
from dominocam.server.qr import qr_svg
from dominocam.tournament import store
from dominocam.tournament.web.auth import Denied, require_admin, who
from dominocam.tournament.web.bodies import jpeg_body
from dominocam.tournament.web.services import (
    celery_app,
    config,
    event_id,
    known_table,
    pool,
    private_page,
    public_base,
    redis_client,
)
from dominocam.tournament.worker import send_frame

bp = Blueprint("director", __name__)


@bp.get("/director/<token>")
def director_page(token: str) -> Response:
    if who(token).kind != "director":
        raise Denied(_("this page needs the event director's token"), "director_required")
    return private_page("director.html", token=token, tables=config().tables)


@bp.post("/api/tables/<table_id>/frames")
def frame(table_id: str) -> tuple[Response, int]:
    """A camera frame of the table, read by a worker (only the newest waits)."""
    require_admin()
    known_table(table_id)
    body = jpeg_body()
    submitted = send_frame(redis_client(), celery_app(), event_id(), table_id, body)
    return jsonify(seq=submitted.seq, queued=submitted.send_task), 202


@bp.post("/api/tables/<table_id>/host-link")
def host_link(table_id: str) -> Response:
    """The director makes a new host link for a table (the old one stops working)."""
    require_admin()
    known_table(table_id)
    with pool().connection() as conn:
        token = store.new_host_link(conn, event_id(), table_id)
    link = f"{public_base()}/host/{token}"
    return jsonify(table=table_id, link=link, qr=qr_svg(link).decode())
