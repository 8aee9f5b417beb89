"""A table's host (its host link, or the director's token at any table): the host's page,
rulings confirmed or cancelled, hands entered or changed with a reason, the round's ledger,
unlock and reopen, new seat links."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from dominocam.errors import Refused, plain_value
from dominocam.i18n import _
from dominocam.rounds.lifecycle import HOST
from dominocam.server.json_fields import ARRAY, STRING, required
from dominocam.server.qr import qr_svg
from dominocam.tournament import rounds, store
from dominocam.tournament.web.auth import Denied, require_host, who
from dominocam.tournament.web.bodies import REASON, TABLE_FIELDS, body_object, confirm_query
from dominocam.tournament.web.services import (
    UnknownTable,
    config,
    event_id,
    known_table,
    pool,
    private_page,
    public_base,
    publish,
    ruled,
    shown_outcome,
)

bp = Blueprint("host", __name__)


@bp.get("/host/<token>")
def host_page(token: str) -> Response:
    """A table host's page (`?table=ID` when the director opens it with their token)."""
    actor = who(token)
    table_id = actor.table if actor.kind == "host" else request.args.get("table", "")
    if actor.kind == "player" or not table_id:
        raise Denied(_("this page needs a table host's link or the director's"), "host_required")
    known_table(table_id)
    return private_page("host.html", token=token, table_id=table_id)


def ruling(table_id: str, by: str, who_key: str, confirm: bool) -> Response:
    """The host's ruling ("block" with its proposer, "domino" with its winner), with the
    table's layout and boneyard when the body sends them."""
    body = body_object(
        f'{{"{who_key}": NAME, "layout": {{...}}, "boneyard": N}}',
        {who_key: required(STRING), **TABLE_FIELDS},
    )
    name = body[who_key]
    event = event_id()
    with pool().connection() as conn:
        if "layout" in body or "boneyard" in body:
            rounds.set_table(conn, event, table_id, body.get("layout"), body.get("boneyard"))
        outcome = ruled(
            table_id,
            lambda: rounds.rule(
                conn, event, config(), table_id, by=by, who=name, author=HOST, confirm=confirm
            ),
        )
    publish(table_id, "round", action="ended" if outcome["ended"] else "ruling")
    return jsonify(shown_outcome(outcome))


@bp.put("/api/tables/<table_id>/table")
def put_table(table_id: str) -> Response:
    require_host(table_id)
    body = body_object('{"layout": {"lines": [...]}, "boneyard": N}', TABLE_FIELDS)
    with pool().connection() as conn:
        rounds.set_table(conn, event_id(), table_id, body.get("layout"), body.get("boneyard"))
    publish(table_id, "round", action="table")
    return jsonify(ok=True)


@bp.post("/api/tables/<table_id>/rounds/current/block")
def host_block(table_id: str) -> Response:
    require_host(table_id)
    return ruling(table_id, "block", "proposer", confirm_query())


@bp.post("/api/tables/<table_id>/rounds/current/domino")
def host_domino(table_id: str) -> Response:
    require_host(table_id)
    return ruling(table_id, "domino", "winner", confirm_query())


@bp.post("/api/tables/<table_id>/rounds/current/end")
def end(table_id: str) -> Response:
    """The host rules and confirms at once (`ended_by` block with its proposer, or domino
    with its winner)."""
    require_host(table_id)
    body = body_object(
        '{"ended_by": "block"|"domino", "proposer"|"winner": NAME, ...}',
        {"ended_by": required(STRING)},
    )
    ended_by = body.get("ended_by")
    if ended_by not in ("block", "domino"):
        raise Refused(
            _("ended_by must be block or domino"),
            "unknown_ending",
            ended_by=plain_value(ended_by),
            valid=["block", "domino"],
        )
    return ruling(table_id, ended_by, "proposer" if ended_by == "block" else "winner", True)


@bp.post("/api/tables/<table_id>/rounds/current/score")
def score(table_id: str) -> Response:
    require_host(table_id)
    with pool().connection() as conn:
        outcome = ruled(
            table_id, lambda: rounds.score_pending(conn, event_id(), config(), table_id)
        )
    publish(table_id, "round", action="ended" if outcome["ended"] else "ruling")
    return jsonify(shown_outcome(outcome))


@bp.get("/api/tables/<table_id>/rounds/current/review")
def review(table_id: str) -> Response:
    """The round's ledger for the table host (it names hands' tiles: host only)."""
    require_host(table_id)
    known_table(table_id)
    with pool().connection() as conn:
        review = rounds.host_review(conn, event_id(), config(), table_id)
    return jsonify(shown_outcome(review))


@bp.post("/api/tables/<table_id>/rounds/current/ledger/override")
def override(table_id: str) -> Response:
    """The table host rules the round although it does not add up, with a reason (the audit
    trail, the round's result); then "score" scores the held ruling."""
    require_host(table_id)
    known_table(table_id)
    body = body_object('{"reason": "..."}', {"reason": REASON})
    with pool().connection() as conn:
        outcome = rounds.override_ledger(conn, event_id(), config(), table_id, body.get("reason"))
    publish(table_id, "round", action="override")
    return jsonify(outcome)


@bp.post("/api/tables/<table_id>/rounds/current/cancel")
def cancel(table_id: str) -> Response:
    require_host(table_id)
    body = body_object('{"reason": "..."}', {"reason": REASON})
    with pool().connection() as conn:
        rounds.cancel_pending(conn, event_id(), table_id, body.get("reason"))
    publish(table_id, "round", action="cancelled")
    return jsonify(ok=True)


@bp.post("/api/tables/<table_id>/rounds/current/unlock")
def unlock(table_id: str) -> Response:
    require_host(table_id)
    body = body_object('{"reason": "..."}', {"reason": REASON})
    with pool().connection() as conn:
        rounds.unlock_hands(conn, event_id(), table_id, body.get("reason"))
    publish(table_id, "round", action="unlocked")
    return jsonify(ok=True)


@bp.post("/api/tables/<table_id>/rounds/last/reopen")
def reopen(table_id: str) -> Response:
    require_host(table_id)
    body = body_object('{"reason": "..."}', {"reason": REASON})
    with pool().connection() as conn:
        outcome = rounds.reopen_last_round(conn, event_id(), table_id, reason=body.get("reason"))
    publish(table_id, "round", action="reopened", round=outcome["round"])
    return jsonify(outcome)


def seat_player(table_id: str, seat: int) -> store.Player:
    with pool().connection() as conn:
        player = store.seat_player(conn, event_id(), table_id, seat)
    if player is None:
        raise UnknownTable(
            _("table {table} has no seat {seat}").format(table=table_id, seat=seat),
            "no_seat",
            table=table_id,
            seat=seat,
        )
    return player


@bp.put("/api/tables/<table_id>/seats/<int:seat>/hand")
def host_hand(table_id: str, seat: int) -> Response:
    """The host enters or changes a seat's hand (after the lock: with a reason)."""
    require_host(table_id)
    known_table(table_id)
    body = body_object(
        '{"tiles": [[a, b], ...], "reason": "..."}',
        {"tiles": required(ARRAY), "reason": REASON},
    )
    player = seat_player(table_id, seat)
    with pool().connection() as conn:
        saved = rounds.confirm_hand(
            conn, event_id(), config(), player, body["tiles"], author=HOST,
            reason=body.get("reason"),
        )  # fmt: skip
    publish(table_id, "hand", player=player.name)
    return jsonify(saved)


@bp.post("/api/tables/<table_id>/seats/<int:seat>/link")
def seat_link(table_id: str, seat: int) -> Response:
    """A new link (and its QR code) for the player in `seat`; the old link stops working."""
    require_host(table_id)
    known_table(table_id)
    with pool().connection() as conn:
        made = store.new_player_link(conn, event_id(), table_id, seat)
    link = f"{public_base()}/hand/{made.pop('token')}"
    return jsonify(**made, link=link, qr=qr_svg(link).decode())
