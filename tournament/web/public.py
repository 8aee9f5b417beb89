"""What everyone may see: the standings page, the OBS overlays and the public API (no hand
before its round ends; the audit trail in full only with the table host's or the
director's token)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template, request

from dominocam.tournament import frames, rounds, store
from dominocam.tournament.standings import event_standings
from dominocam.tournament.web.auth import bearer, who
from dominocam.tournament.web.services import (
    config,
    event_id,
    known_table,
    pool,
    redis_client,
    shown_audit,
    shown_table,
)

bp = Blueprint("public", __name__)


@bp.get("/")
def standings_page() -> str:
    with pool().connection() as conn:
        standings = event_standings(conn, event_id(), config())
    return render_template("standings.html", s=standings)


@bp.get("/overlay")
def event_overlay() -> str:
    return render_template("event_overlay.html")


@bp.get("/tables/<table_id>/overlay")
def table_overlay(table_id: str) -> str:
    known_table(table_id)
    return render_template("table_overlay.html", table_id=table_id)


@bp.get("/api/health")
def health() -> Response:
    with pool().connection() as conn:
        conn.execute("SELECT 1")
    redis_client().ping()
    return jsonify(ok=True, event=event_id())


@bp.get("/api/event")
def event() -> Response:
    data = config().to_json()
    return jsonify(
        event=data["event"],
        variant=data["variant"],
        set=data["set"],
        tables=data["tables"],
        players=data["players"],
    )


@bp.get("/api/standings")
def standings() -> Response:
    with pool().connection() as conn:
        return jsonify(event_standings(conn, event_id(), config()))


@bp.get("/api/tables/<table_id>")
def table(table_id: str) -> Response:
    known_table(table_id)
    with pool().connection() as conn:
        data = store.public_table(conn, event_id(), table_id)
        data["scene"] = store.latest_scene(conn, event_id(), table_id)
    data["frames"] = frames.stats(redis_client(), event_id(), table_id)
    return jsonify(shown_table(data))


@bp.get("/api/tables/<table_id>/audit")
def audit(table_id: str) -> Response:
    """Public; in full (tiles, reasons) with the table host's or the director's token."""
    known_table(table_id)
    for_host = "Authorization" in request.headers and who(bearer()).hosts(table_id)
    with pool().connection() as conn:
        trail = rounds.audit_trail(conn, event_id(), table_id, for_host=for_host)
    return jsonify(audit=shown_audit(trail))
