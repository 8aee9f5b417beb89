"""The JSON API under /api: state, events, setup, uploads, corrections, block check, rounds.

Auth: "public" endpoints show only what anybody at the table may see (no hands before the end
of a round); "admin" endpoints need the admin token or session cookie (server.auth); "player"
endpoints take the player's link token in the path and act for that player only.
See docs/server.md for the full list.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, overload

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    request,
    send_from_directory,
)

from dominocam.errors import UserInputError
from dominocam.i18n import _, current_language
from dominocam.rounds import operations, scene_state
from dominocam.server import auth, engine, game, photo_space, storage, uploads
from dominocam.server.auth import admin_required
from dominocam.server.db import get_db
from dominocam.server.events import sse_stream
from dominocam.server.game.round_store import SqliteRoundStore
from dominocam.server.json_fields import (
    ARRAY,
    BOOLEAN,
    INT64_MAX,
    INTEGER,
    OBJECT,
    STRING,
    Field,
    checked,
    optional,
    query_int,
    required,
)
from dominocam.server.qr import qr_svg
from dominocam.server.serving import phone_base_url, phones_can_reach

bp = Blueprint("api", __name__, url_prefix="/api")


# The fields of the bodies, by endpoint (server.json_fields: a field of another JSON type is
# a 400, never coerced). Nested values are checked by the parsers that read them.
REASON = optional(STRING, nullable=True)
CONFIRM = optional(BOOLEAN)
GAME_FIELDS = {
    "name": optional(STRING, nullable=True),
    "variant": optional(STRING),
    "set": optional(INTEGER),
    "rules": optional(OBJECT, nullable=True),
    "players": optional(ARRAY),
}


def _json_body(fields: dict[str, Field] | None = None) -> dict[str, Any]:
    """The request's JSON object, each of `fields` of its type (400 otherwise)."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise game.Refused(
            _("send a JSON object (Content-Type: application/json)"), "body_not_an_object"
        )
    checked(body, fields or {})
    return body


def _optional_body(fields: dict[str, Field] | None = None) -> dict[str, Any]:
    """The JSON object of a request whose body may be left out (no body: {})."""
    if not request.get_data():
        return {}
    return _json_body(fields)


def _confirm(body: dict[str, Any]) -> bool:
    """An explicit `"confirm": true`: the caller (its page asked) wants the round scored."""
    return body.get("confirm") is True


@overload
def _query_int(name: str, default: int) -> int: ...


@overload
def _query_int(name: str, default: None = None) -> int | None: ...


def _query_int(name: str, default: int | None = None) -> int | None:
    """A whole-number query parameter; 400 for anything else (not a number, past 64 bits)."""
    return query_int(request.args.get(name), name, default)


def _game_id(ref: str | None = None) -> int:
    """The game a path names (`<game_ref>`: its id or "current"), else `?game=` (its id;
    none: the current game). A path naming no game that can exist is a 404; a query
    string that is not a game id is a 400."""
    if ref is None:
        ref = request.args.get("game")
        if ref not in (None, "", "current"):
            return query_int(ref, "game", 0)
    if ref in (None, "", "current"):
        gid = game.current_game_id(get_db())
        if gid is None:
            raise game.NotFound(_("no game yet: create one at /setup"), "no_game_yet")
        return gid
    if not (ref.isascii() and ref.isdigit() and int(ref) <= INT64_MAX):
        raise game.NotFound(
            _("no game {value!r}").format(value=ref), "unknown_game_ref", ref=ref[:40]
        )
    return int(ref)


def _upload_folder(game_id: int) -> Path:
    return uploads.game_folder(current_app.config["UPLOAD_FOLDER"], game_id)


def _store_photo(
    game_id: int,
    prefix: str,
    image: uploads.DecodedImage,
    player_id: int | None = None,
    replacing: str | None = None,
) -> str:
    """Store a photo of the game if its photo space (and the player's) has room for it
    (server.photo_space: 507 otherwise); `replacing` is the photo it will replace."""
    config = current_app.config
    space = photo_space.PhotoSpace(config["PHOTO_BYTES_PER_GAME"], config["PHOTO_BYTES_PER_PLAYER"])
    folder = _upload_folder(game_id)
    with current_app.extensions["dominocam.photo_space"]:
        photo_space.check_room(folder, space, len(image.data), player_id, replacing)
        return uploads.store(folder, prefix, image)


@contextmanager
def _kept_unless_refused(game_id: int, name: str) -> Iterator[None]:
    """A stored photo whose database write fails (the hands locked meanwhile, say) is
    deleted: nothing would refer to it."""
    try:
        yield
    except BaseException:
        photo_space.discard(_upload_folder(game_id), name)
        raise


def _photo_bytes() -> bytes:
    if request.files:
        return uploads.read_request_file(request.files, "photo")
    if request.mimetype.startswith("image/") or request.mimetype == "application/octet-stream":
        return request.get_data()
    if request.content_length == 0 or not request.get_data():
        raise uploads.UploadError(
            _("the file is empty (0 bytes); choose a photo and try again"), "empty_file"
        )
    raise uploads.UploadError(
        _("send the photo as multipart field 'photo' or as an image/* request body"),
        "no_photo_body",
        415,
    )


@contextmanager
def _photo_slot() -> Iterator[None]:
    """One of the `DECODES_AT_ONCE` places for decoding or reading a photo: more uploads at
    once wait their turn, so memory stays bounded however many arrive."""
    slots = current_app.extensions["dominocam.photo_slots"]
    if not slots.acquire(timeout=float(current_app.config["PHOTO_WAIT_S"])):
        raise uploads.UploadError(
            _("the server is busy reading other photos; try again in a moment"),
            "photos_busy",
            503,
        )
    try:
        yield
    finally:
        slots.release()


def _decode(data: bytes) -> uploads.DecodedImage:
    """The photo decoded, and as it is kept: without its metadata (EXIF, GPS...)."""
    config = current_app.config
    with _photo_slot():
        image = uploads.decode_upload(data, config["MAX_IMAGE_PIXELS"], config["MAX_DECODE_PIXELS"])
        return uploads.without_metadata(image)


def _read(
    image: uploads.DecodedImage, kind: str, set_max: int, table: engine.TableGame | None = None
) -> tuple[dict | None, engine.EngineUnavailable | None]:
    """The Scene of a photo, or (None, why) when no reader is installed."""
    try:
        with _photo_slot():
            return engine.read_scene(image.pixels, kind, set_max, table), None
    except engine.EngineUnavailable as error:
        return None, error


def _kept_unread(why: engine.EngineUnavailable | None, **answer: Any) -> Any:
    """The 503 of a photo kept but not read (no reader installed): the error JSON, with
    `stored` and the rest of `answer` beside it."""
    body = {
        "error": str(why),
        "status": 503,
        "code": getattr(why, "code", None),
        "params": getattr(why, "params", {}),
        "stored": True,
        **answer,
    }
    return jsonify(body), 503


# --- public -----------------------------------------------------------------------------------


@bp.get("/health")
def health() -> Any:
    conn = get_db()
    camera = current_app.extensions.get("dominocam.camera")
    return jsonify(
        {
            "ok": True,
            "schema_version": storage.schema_version(conn),
            "models": engine.models_status(),
            "camera": camera.status() if camera else None,
        }
    )


@bp.get("/variants")
def variants() -> Any:
    """The rules engine's variants: names, each one's settings, and the settings' schema."""
    names = engine.variant_names()
    info = {name: engine.variant_info(name) for name in names}
    return jsonify(
        {
            "variants": names,
            "settings": {name: v["settings"] for name, v in info.items()},
            "info": info,
            "schema": engine.settings_schema(),
            "sets": [6, 9, 12, 15],
        }
    )


@bp.get("/games")
def games() -> Any:
    return jsonify({"games": game.list_games(get_db()), "current": game.current_game_id(get_db())})


@bp.get("/state")
@bp.get("/games/<game_ref>/state")
def state(game_ref: str | None = None) -> Any:
    """Public state; with `?since=V` answers {"changed": false} while nothing changed."""
    conn = get_db()
    gid = _game_id(game_ref)
    since = _query_int("since")
    if since is not None and since == storage.last_event_id(conn):
        return jsonify({"changed": False, "version": since})
    return jsonify(game.public_state(conn, gid))


@bp.get("/games/<int:game_id>/scoreboard")
def scoreboard(game_id: int) -> Any:
    game.get_game(get_db(), game_id)
    return jsonify(game.scoreboard(get_db(), game_id))


@bp.get("/games/<int:game_id>/export.json")
@admin_required
def export_json(game_id: int) -> Any:
    """The whole game (settings, players, scoreboard, every ended round) as a JSON download."""
    data = game.export_json(get_db(), game_id)
    response = jsonify(data)
    name = f"dominocam-game-{game_id}.json"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/games/<int:game_id>/export.csv")
@admin_required
def export_csv(game_id: int) -> Any:
    """One row per player per ended round, as a CSV download."""
    text = game.export_csv(get_db(), game_id)
    return Response(
        text,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="dominocam-game-{game_id}.csv"'},
    )


@bp.get("/events/poll")
def events_poll() -> Any:
    since = _query_int("since", 0)
    gid = _query_int("game")
    conn = get_db()
    events = storage.events_since(conn, since, gid)
    for event in events:
        # Checks stored before the outcome was kept apart from the tile that stopped it.
        if event["type"] == "block_check" and isinstance(event["payload"].get("outcome"), dict):
            event["payload"]["outcome"] = game.public_outcome(event["payload"]["outcome"])
    return jsonify({"events": events, "version": storage.last_event_id(conn)})


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: `event: state` with the public state at every change (computed
    once for all listeners by the broker, server.events)."""
    conn = get_db()
    gid = _game_id()
    game.get_game(conn, gid)  # an unknown game is a 404 now, not a failing stream later
    broker = current_app.extensions["dominocam.broker"]
    listening = ExitStack()
    language = current_language()
    listening.enter_context(broker.listen(gid, request.remote_addr or "unknown", language))
    try:
        first = broker.first(conn, gid, language)
    except BaseException:
        listening.close()
        raise
    max_s = request.args.get("max_s", type=float) or current_app.config["SSE_MAX_S"]
    response = Response(
        sse_stream(broker, gid, first, current_app.config["SSE_HEARTBEAT_S"], max_s, language),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    # The WSGI server closes the response however the stream ends (even never started).
    response.call_on_close(listening.close)
    return response


@bp.get("/games/<int:game_id>/rounds/current/table/events")
@bp.get("/games/<int:game_id>/rounds/<int:number>/table/events")
def table_events(game_id: int, number: int | None = None) -> Any:
    """The live camera's confirmed changes of a round's table, oldest first (`?since=ID`
    for those after an event id, `?limit=N`). Public: tile values on the table are."""
    game.get_game(get_db(), game_id)
    since = _query_int("since", 0)
    limit = _query_int("limit", 100)
    return jsonify(game.table_events(get_db(), game_id, number, since, limit))


@bp.get("/games/<int:game_id>/rounds/<int:number>/table/image")
def table_image(game_id: int, number: int) -> Any:
    rnd = game.get_round(get_db(), game_id, number)
    if not rnd["table_image"]:
        raise game.NotFound(_("this round has no table photo"), "no_table_photo", round=number)
    return send_from_directory(_upload_folder(game_id), rnd["table_image"], max_age=0)


# --- login ------------------------------------------------------------------------------------


@bp.post("/login")
def login() -> Any:
    body = request.get_json(silent=True)
    if isinstance(body, dict):
        token = checked(body, {"token": required(STRING)})["token"]
    else:
        token = request.form.get("token", "")
    auth.check_login_secret(get_db(), token)
    auth.start_session(get_db())
    return jsonify({"ok": True})


@bp.post("/logout")
def logout() -> Any:
    auth.end_session(get_db())
    return jsonify({"ok": True})


@bp.get("/whoami")
def whoami() -> Any:
    auth.mark_private()
    try:
        admin = auth.request_is_admin(get_db())
    except auth.AuthError:
        admin = False
    return jsonify({"admin": admin})


# --- admin: setup and rounds -----------------------------------------------------------------


@bp.post("/games")
@admin_required
def create_game() -> Any:
    gid = game.create_game(get_db(), _json_body(GAME_FIELDS))
    return jsonify(game.public_state(get_db(), gid)), 201


@bp.patch("/games/<int:game_id>")
@admin_required
def update_game(game_id: int) -> Any:
    """The variant's settings (`rules`) and/or the tiles dealt to each player (`deal`)."""
    body = _json_body({"rules": optional(OBJECT), "deal": optional(INTEGER, nullable=True)})
    if "deal" in body:
        game.set_deal(get_db(), game_id, body["deal"])
    if "rules" in body or "deal" not in body:
        game.update_settings(get_db(), game_id, body.get("rules"))
    return jsonify(game.public_state(get_db(), game_id))


@bp.delete("/games/<int:game_id>")
@admin_required
def delete_game(game_id: int) -> Any:
    """Delete a game, its rounds, hands, scores, audit trail and photos."""
    game.delete_game(get_db(), game_id)
    shutil.rmtree(_upload_folder(game_id), ignore_errors=True)
    return jsonify({"deleted": game_id, "games": game.list_games(get_db())})


@bp.patch("/games/<int:game_id>/players/<int:player_id>")
@admin_required
def rename_player(game_id: int, player_id: int) -> Any:
    game.rename_player(get_db(), game_id, player_id, _json_body({"name": required(STRING)})["name"])
    return jsonify(game.public_state(get_db(), game_id))


@bp.put("/games/<int:game_id>/players/order")
@admin_required
def reorder_players(game_id: int) -> Any:
    game.reorder_players(get_db(), game_id, _json_body({"players": required(ARRAY)})["players"])
    return jsonify(game.public_state(get_db(), game_id))


@bp.post("/games/<int:game_id>/rounds/reopen")
@admin_required
def reopen_round(game_id: int) -> Any:
    game.reopen_last_round(get_db(), game_id, _json_body({"reason": REASON}).get("reason"))
    return jsonify(game.public_state(get_db(), game_id))


@bp.patch("/games/<int:game_id>/rounds/<int:number>/score")
@admin_required
def correct_score(game_id: int, number: int) -> Any:
    body = _json_body({"points": required(OBJECT), "reason": REASON})
    game.correct_score(get_db(), game_id, number, body["points"], body.get("reason"))
    return jsonify(game.public_state(get_db(), game_id))


@bp.post("/games/<int:game_id>/finish")
@admin_required
def finish_game(game_id: int) -> Any:
    game.finish_game(get_db(), game_id)
    return jsonify(game.public_state(get_db(), game_id))


def _phone_base_url() -> str:
    """Where phones reach this server (server.serving: --public-url, else the LAN address)."""
    return phone_base_url(current_app.config, request.host_url)


def _player_links(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """Each player's link (server.auth: the same after a restart); `token`, `url` and `qr`
    are null for a link made by a version before schema 6, until "New link"."""
    out = []
    for p in game.players(conn, game_id):
        token = auth.shown_player_link(conn, p)
        out.append(
            {
                "id": p["id"],
                "name": p["name"],
                "seat": p["seat"],
                "team": p["team"],
                "token": token,
                "url": f"{_phone_base_url()}/hand/{token}" if token else None,
                "qr": f"/api/games/{game_id}/players/{p['id']}/qr.svg" if token else None,
            }
        )
    return out


@bp.get("/games/<int:game_id>/players")
@admin_required
def player_links(game_id: int) -> Any:
    game.get_game(get_db(), game_id)
    return jsonify({"players": _player_links(get_db(), game_id), "phones": _phones()})


def _phones() -> dict[str, Any]:
    """Where the links point, and whether phones can open it (server.serving)."""
    base = _phone_base_url()
    return {"url": f"{base}/", "reachable": phones_can_reach(base)}


@bp.get("/games/<int:game_id>/players/<int:player_id>/qr.svg")
@admin_required
def player_qr(game_id: int, player_id: int) -> Any:
    player = game.player_by_id(get_db(), game_id, player_id)
    token = auth.shown_player_link(get_db(), player)
    if token is None:
        raise game.NotFound(
            _(
                "this link was made by an earlier version of DominoCam, which cannot show it "
                "again: it still works, and 'New link' makes one to show (the old one then "
                "stops working)"
            ),
            "link_not_shown",
            player_id=player_id,
        )
    url = f"{_phone_base_url()}/hand/{token}"

    return Response(qr_svg(url), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.post("/games/<int:game_id>/players/<int:player_id>/rotate-link")
@admin_required
def rotate_link(game_id: int, player_id: int) -> Any:
    auth.issue_player_link(get_db(), game.player_by_id(get_db(), game_id, player_id)["id"])
    return jsonify({"players": _player_links(get_db(), game_id), "phones": _phones()})


@bp.post("/games/<int:game_id>/rounds")
@admin_required
def new_round(game_id: int) -> Any:
    number = game.start_round(get_db(), game_id)
    return jsonify(game.public_state(get_db(), game_id)), 201 if number else 200


@bp.put("/games/<int:game_id>/rounds/current/layout")
@admin_required
def put_layout(game_id: int) -> Any:
    body = _json_body({"lines": required(ARRAY), "boneyard": optional(INTEGER, nullable=True)})
    game.set_layout(get_db(), game_id, body["lines"], body.get("boneyard"))
    return jsonify(game.public_state(get_db(), game_id))


@bp.put("/games/<int:game_id>/rounds/current/boneyard")
@admin_required
def put_boneyard(game_id: int) -> Any:
    """The host's count of the boneyard; `{"boneyard": null}` makes it unknown again."""
    body = _json_body({"boneyard": optional(INTEGER, nullable=True)})
    if "boneyard" not in body:
        raise game.Refused(_("send 'boneyard': the number of tiles in it, or null"), "bad_boneyard")
    game.set_boneyard(get_db(), game_id, body["boneyard"])
    return jsonify(game.public_state(get_db(), game_id))


@bp.post("/games/<int:game_id>/rounds/current/table")
@admin_required
def upload_table(game_id: int) -> Any:
    """A table photo: stored, read when a reader is installed (503 + stored photo if not)."""
    conn = get_db()
    g = game.get_game(conn, game_id)
    game.open_round(conn, game_id)
    image = _decode(_photo_bytes())
    return _store_table(game_id, g["set_max"], image)


def _store_table(game_id: int, set_max: int, image: uploads.DecodedImage) -> Any:
    conn = get_db()
    current = game.open_round(conn, game_id)["table_image"]
    name = _store_photo(game_id, "table", image, replacing=current)
    with _kept_unless_refused(game_id, name):
        scene, why = _read(image, "table", set_max, game.table_game(conn, game_id))
        replaced = game.save_table_scene(conn, game_id, scene, name)
    photo_space.discard(_upload_folder(game_id), replaced)
    state = game.public_state(conn, game_id)
    if scene is None:
        return _kept_unread(why, state=state)
    return jsonify({"scene": scene, "state": state}), 201


@bp.post("/games/<int:game_id>/rounds/current/table/camera")
@admin_required
def table_from_camera(game_id: int) -> Any:
    """Freeze the live camera's latest frame as the round's table photo."""
    camera = current_app.extensions.get("dominocam.camera")
    if camera is None:
        raise engine.EngineUnavailable(
            _("no live camera: start with --camera or upload a photo"), "no_camera"
        )
    jpeg = camera.latest_jpeg()
    if jpeg is None:
        raise engine.EngineUnavailable(
            _("the camera has no frame yet ({state})").format(state=camera.status()["state"]),
            "no_camera_frame",
            state=camera.status()["state"],
        )
    g = game.get_game(get_db(), game_id)
    image = _decode(jpeg)
    return _store_table(game_id, g["set_max"], image)


@bp.post("/games/<int:game_id>/rounds/current/table/checked")
@admin_required
def table_checked(game_id: int) -> Any:
    """The host has checked the table reading: its doubts no longer stop a ruling."""
    game.mark_table_checked(get_db(), game_id)
    return jsonify(game.public_state(get_db(), game_id))


@bp.post("/games/<int:game_id>/rounds/current/table/rejected/<int:index>/restore")
@admin_required
def restore_rejected(game_id: int, index: int) -> Any:
    """A box the reader judged not a tile is one after all."""
    pips = _optional_body({"pips": optional(ARRAY, nullable=True)}).get("pips")
    tile_id = game.restore_rejected(get_db(), game_id, index, pips)
    return jsonify({"id": tile_id, "state": game.public_state(get_db(), game_id)}), 201


@bp.get("/games/<int:game_id>/rounds/current/review")
@admin_required
def host_review(game_id: int) -> Any:
    """What the host must check: the reader's doubts, rejected boxes, tiles in two hands."""
    return jsonify(game.host_review(get_db(), game_id))


@bp.post("/games/<int:game_id>/rounds/current/table/tiles")
@admin_required
def add_tile(game_id: int) -> Any:
    body = _json_body({"pips": required(ARRAY), "corners": optional(ARRAY, nullable=True)})
    tile_id = game.add_table_tile(get_db(), game_id, body["pips"], body.get("corners"))
    return jsonify({"id": tile_id, "state": game.public_state(get_db(), game_id)}), 201


@bp.patch("/games/<int:game_id>/rounds/current/table/tiles/<int:tile_id>")
@admin_required
def correct_tile(game_id: int, tile_id: int) -> Any:
    pips = _json_body({"pips": required(ARRAY)})["pips"]
    game.correct_table_tile(get_db(), game_id, tile_id, pips)
    return jsonify(game.public_state(get_db(), game_id))


@bp.delete("/games/<int:game_id>/rounds/current/table/tiles/<int:tile_id>")
@admin_required
def delete_tile(game_id: int, tile_id: int) -> Any:
    game.correct_table_tile(get_db(), game_id, tile_id, None, delete=True)
    return jsonify(game.public_state(get_db(), game_id))


@bp.put("/games/<int:game_id>/rounds/current/hands/<int:player_id>")
@admin_required
def put_hand(game_id: int, player_id: int) -> Any:
    """Enter or change a hand at the table (a player without a phone, or a correction with a
    reason once the hands are locked). The answer gives the count only."""
    body = _json_body({"tiles": required(ARRAY), "reason": REASON})
    player = game.player_by_id(get_db(), game_id, player_id)
    tiles = game.set_hand(
        get_db(), player, body["tiles"], author=game.audit.HOST, reason=body.get("reason")
    )
    return jsonify({"player": player["name"], "tiles": len(tiles)})


@bp.get("/games/<int:game_id>/rounds/current/hands/<int:player_id>")
@admin_required
def get_hand(game_id: int, player_id: int) -> Any:
    """A hand for the host's correction screen (never shown on the table page), with what
    was typed instead of a photo's reading or over an earlier list (`replaced`)."""
    conn = get_db()
    player = game.player_by_id(conn, game_id, player_id)
    rnd = game.open_round(conn, game_id)
    row = game.hand_row(conn, rnd["id"], player["id"])
    confirmed = bool(row and row["confirmed_at"] is not None)
    return jsonify(
        {
            "player": player["name"],
            "confirmed": confirmed,
            "tiles": storage.loads(row["tiles"], []) if confirmed else [],
            "pending": storage.loads(row["pending"], None) if row else None,
            "replaced": game.hands.replaced_readings(conn, rnd["id"], player["name"]),
        }
    )


@bp.post("/games/<int:game_id>/rounds/current/block-check")
@admin_required
def block_check(game_id: int) -> Any:
    body = _json_body({"proposer": optional(STRING, nullable=True), "confirm": CONFIRM})
    outcome = game.block_check(
        get_db(), game_id, body.get("proposer"), _confirm(body), by_host=True
    )
    return jsonify({"outcome": outcome, "state": game.public_state(get_db(), game_id)})


@bp.post("/games/<int:game_id>/rounds/current/domino")
@admin_required
def domino(game_id: int) -> Any:
    body = _json_body({"player": optional(STRING, nullable=True), "confirm": CONFIRM})
    result = game.end_by_domino(get_db(), game_id, body.get("player"), _confirm(body), by_host=True)
    return jsonify({"result": result, "state": game.public_state(get_db(), game_id)})


@bp.post("/games/<int:game_id>/rounds/current/score")
@admin_required
def score_round(game_id: int) -> Any:
    """The host confirms the ruling that ends the round (a block, a domino): it is scored."""
    answer = game.score_pending(get_db(), game_id)
    return jsonify(dict(answer, state=game.public_state(get_db(), game_id)))


@bp.post("/games/<int:game_id>/rounds/current/ledger/override")
@admin_required
def override_ledger(game_id: int) -> Any:
    """The host rules the round although it does not add up, with a reason (audit trail);
    then "Score the round" scores the held ruling."""
    game.override_ledger(get_db(), game_id, _json_body().get("reason"))
    return jsonify(game.public_state(get_db(), game_id))


@bp.post("/games/<int:game_id>/rounds/current/cancel")
@admin_required
def cancel_ruling(game_id: int) -> Any:
    game.cancel_pending(get_db(), game_id, _json_body({"reason": REASON}).get("reason"))
    return jsonify(game.public_state(get_db(), game_id))


@bp.post("/games/<int:game_id>/rounds/current/unlock")
@admin_required
def unlock_hands(game_id: int) -> Any:
    game.unlock_hands(get_db(), game_id, _json_body({"reason": REASON}).get("reason"))
    return jsonify(game.public_state(get_db(), game_id))


# --- player links -----------------------------------------------------------------------------


def _player(token: str) -> sqlite3.Row:
    return auth.player_from_token(get_db(), token)


@bp.get("/hand/<token>")
def hand_view(token: str) -> Any:
    player = _player(token)
    view = game.player_view(get_db(), player)
    view["models"] = engine.models_status()
    return jsonify(view)


@bp.post("/hand/<token>/photo")
def hand_photo(token: str) -> Any:
    conn = get_db()
    player = _player(token)
    g = game.get_game(conn, player["game_id"])
    # Refused before the photo is stored.
    operations.refuse_photo_when_locked(SqliteRoundStore(conn, player["game_id"]))
    rnd = game.open_round(conn, player["game_id"])
    image = _decode(_photo_bytes())
    row = game.hand_row(conn, rnd["id"], player["id"])
    pending = row["pending_image"] if row is not None else None
    gid, pid = player["game_id"], player["id"]
    name = _store_photo(gid, photo_space.hand_prefix(pid).rstrip("-"), image, pid, pending)
    with _kept_unless_refused(gid, name):
        scene, why = _read(image, "hand", g["set_max"])
        tiles: list[list[int]] = []
        if scene is not None:
            try:
                tiles = game.parse_hand(scene_state.hand_tiles(scene), g["set_max"])
            except UserInputError as error:  # a misread (duplicate/out of range): keep, let fix
                scene.setdefault("warnings", []).append(str(error))
                if isinstance(scene.get("notes"), list):  # kept beside the warnings
                    scene["notes"].append({"code": None, "params": {}, "text": str(error)})
        # The reading waits for the player's confirmation; a confirmed hand stays as it is.
        replaced = game.read_hand_photo(conn, player, tiles, scene, name)
    # The pending photo it replaces was never confirmed: the audit does not need it.
    photo_space.discard(_upload_folder(gid), replaced)
    view = game.player_view(conn, player)
    if scene is None:
        return _kept_unread(why, view=view)
    return jsonify({"scene": scene, "view": view}), 201


@bp.get("/hand/<token>/image")
def hand_image(token: str) -> Any:
    player = _player(token)
    rnd = game.get_round(get_db(), player["game_id"])
    row = (
        get_db()
        .execute(
            "SELECT image, pending_image FROM hands WHERE round_id = ? AND player_id = ?",
            (rnd["id"], player["id"]),
        )
        .fetchone()
    )
    image = row and (row["pending_image"] or row["image"])
    if not image:
        raise game.NotFound(_("no hand photo yet"), "no_hand_photo")
    return send_from_directory(_upload_folder(player["game_id"]), image, max_age=0)


@bp.put("/hand/<token>/tiles")
def hand_tiles(token: str) -> Any:
    """The player saves their tiles (a photo's reading corrected, or typed): this confirms
    the hand."""
    player = _player(token)
    game.set_hand(get_db(), player, _json_body({"tiles": required(ARRAY)})["tiles"])
    return jsonify(game.player_view(get_db(), player))


@bp.post("/hand/<token>/confirm")
def hand_confirm(token: str) -> Any:
    """The player confirms the latest photo's reading as it was read."""
    player = _player(token)
    game.confirm_hand(get_db(), player)
    return jsonify(game.player_view(get_db(), player))


@bp.delete("/hand/<token>/pending")
def hand_discard(token: str) -> Any:
    """The player drops the latest photo's reading and keeps the confirmed hand."""
    player = _player(token)
    dropped = game.discard_pending(get_db(), player)
    photo_space.discard(_upload_folder(player["game_id"]), dropped)
    return jsonify(game.player_view(get_db(), player))


@bp.post("/hand/<token>/declare")
def hand_declare(token: str) -> Any:
    player = _player(token)
    declared = _json_body({"cannot_play": required(BOOLEAN)})["cannot_play"]
    game.declare_cannot_play(get_db(), player, declared)
    return jsonify(game.player_view(get_db(), player))


@bp.post("/hand/<token>/block-check")
def hand_block_check(token: str) -> Any:
    """The player proposes a block; the verification starts from them. A blocked round is
    held for the table host, who scores or dismisses it: a player never scores a round
    (`"confirm"` is accepted from older pages and changes nothing)."""
    player = _player(token)
    _optional_body({"confirm": CONFIRM})
    outcome = game.block_check(get_db(), player["game_id"], player["name"])
    return jsonify({"outcome": outcome, "view": game.player_view(get_db(), player)})


# --- camera -----------------------------------------------------------------------------------


@bp.get("/camera")
def camera_status() -> Any:
    camera = current_app.extensions.get("dominocam.camera")
    if camera is None:
        return jsonify({"state": "off", "message": "no live camera configured (--camera)"})
    return jsonify(camera.status())


@bp.get("/camera/frame.jpg")
def camera_frame() -> Any:
    camera = current_app.extensions.get("dominocam.camera")
    jpeg = camera.latest_jpeg() if camera else None
    if jpeg is None:
        raise engine.EngineUnavailable(_("no camera frame available"), "no_camera_frame")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/camera/stream")
def camera_stream() -> Any:
    """MJPEG: every viewer reads the one capture loop's latest frame."""
    camera = current_app.extensions.get("dominocam.camera")
    if camera is None:
        raise engine.EngineUnavailable(_("no live camera configured (--camera)"), "no_camera")
    max_s = request.args.get("max_s", type=float)
    # Each viewer holds a server thread (server.serving reserves CAMERA_MAX_STREAMS of them).
    viewers = current_app.extensions["dominocam.camera_viewers"]
    if not viewers.acquire(blocking=False):
        raise engine.EngineUnavailable(
            _(
                "{camera_max_streams} viewers already watch the live camera; the table page "
                "shows its latest frame instead"
            ).format(camera_max_streams=current_app.config["CAMERA_MAX_STREAMS"]),
            "too_many_camera_viewers",
            limit=current_app.config["CAMERA_MAX_STREAMS"],
        )
    # No request context kept open while it streams: the loop's frames need none.
    response = Response(
        camera.mjpeg(max_s=max_s),
        mimetype="multipart/x-mixed-replace; boundary=frame",
        headers={"Cache-Control": "no-store"},
    )
    response.call_on_close(viewers.release)
    return response
