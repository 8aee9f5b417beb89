"""A player (their own link): the phone page, their hand (typed, or a photo read by a worker
and then confirmed or corrected), "I cannot play", proposing a block, calling domino."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from dominocam.server.json_fields import ARRAY, BOOLEAN, optional, required
from dominocam.tournament import rounds
from dominocam.tournament.web.auth import require_player
from dominocam.tournament.web.bodies import body_object, jpeg_body
from dominocam.tournament.web.services import (
    celery_app,
    config,
    event_id,
    pool,
    private_page,
    publish,
    redis_client,
    ruled,
    shown_outcome,
    shown_text,
)
from dominocam.tournament.worker import send_hand_photo

bp = Blueprint("player", __name__)


@bp.get("/hand/<token>")
def hand_page(token: str) -> Response:
    """A player's phone page (the link printed when the event was made, or made anew on the
    host's page); it works through the API with the token of its address."""
    return private_page("hand.html", token=token)


@bp.get("/api/hand")
def get_hand() -> Response:
    player = require_player()
    with pool().connection() as conn:
        hand = rounds.own_hand(conn, event_id(), player)
    # The lock's reason, stored in English, in the request's language.
    hand["locked_shown"] = shown_text(hand["locked"])
    return jsonify(hand)


@bp.put("/api/hand")
def put_hand() -> Response:
    """The player saves their tiles, typed or a reading corrected: this confirms them."""
    player = require_player()
    body = body_object('{"tiles": [[a, b], ...]}', {"tiles": required(ARRAY)})
    with pool().connection() as conn:
        saved = rounds.confirm_hand(
            conn, event_id(), config(), player, body["tiles"], author=player.name
        )
    publish(player.table_id, "hand", player=player.name)
    return jsonify(saved)


@bp.post("/api/hand/photo")
def hand_photo() -> tuple[Response, int]:
    """A photo of the player's hand: a worker reads it into a pending reading, which the
    player then confirms (`/api/hand/confirm`) or corrects (`PUT /api/hand`)."""
    player = require_player()
    photo = jpeg_body()
    with pool().connection() as conn:
        rounds.refuse_photo_when_locked(conn, event_id(), player)
    send_hand_photo(redis_client(), celery_app(), event_id(), player.id, photo)
    return jsonify(reading=True), 202


@bp.post("/api/hand/confirm")
def confirm() -> Response:
    player = require_player()
    body = body_object(
        '{"tiles": [[a, b], ...]} or {} to confirm the reading as read',
        {"tiles": optional(ARRAY, nullable=True)},
    )
    with pool().connection() as conn:
        saved = rounds.confirm_hand(
            conn, event_id(), config(), player, body.get("tiles"), author=player.name
        )
    publish(player.table_id, "hand", player=player.name)
    return jsonify(saved)


@bp.post("/api/hand/discard")
def discard() -> Response:
    player = require_player()
    with pool().connection() as conn:
        rounds.discard_pending(conn, event_id(), player)
    return jsonify(ok=True)


@bp.post("/api/hand/declare")
def declare() -> Response:
    player = require_player()
    body = body_object('{"cannot_play": true|false}', {"cannot_play": required(BOOLEAN)})
    with pool().connection() as conn:
        rounds.declare_cannot_play(conn, event_id(), player, body["cannot_play"])
    publish(player.table_id, "hand", player=player.name)
    return jsonify(ok=True)


def player_ruling(by: str) -> Response:
    """The player's own ruling ("block" or "domino"): a ruling that would end the round waits
    for the host and locks every hand at their table; a check that stops or a refusal locks
    nothing."""
    player = require_player()
    with pool().connection() as conn:
        outcome = ruled(
            player.table_id,
            lambda: rounds.rule(
                conn,
                event_id(),
                config(),
                player.table_id,
                by=by,
                who=player.name,
                author=player.name,
            ),
        )
    publish(player.table_id, "round", action="ruling")
    return jsonify(shown_outcome(outcome))


@bp.post("/api/hand/propose")
def propose() -> Response:
    """The player proposes a block."""
    return player_ruling("block")


@bp.post("/api/hand/domino")
def domino() -> Response:
    """The player calls domino (played their last tile)."""
    return player_ruling("domino")
