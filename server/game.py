"""Game nights in the database: setup, rounds, table and hands, block checks, scoreboard.

Functions take an open connection and plain values and return JSON-able dicts; the HTTP layer
(`server.api`) only parses requests and calls them. Every write records an event, which the
SSE stream and the polling endpoint forward to the pages.

Hands are secret: `public_state` never contains another player's tiles (only counts) until the
round has ended; a player's own view adds their hand (`player_view`).

The live camera's confirmed changes are stored per round (`record_camera_update`, people's
corrections standing: `server.table_scene`). A game ends by itself when its variant says so
(`rules.Game` through `engine.game_progress`): after the last round of a descending-doubles
game, or when a total reaches the target; then no round can start (`start_round`: 409).
"""

from __future__ import annotations

import secrets
import sqlite3
from typing import Any

from dominocam import scene_state
from dominocam.errors import UserInputError
from rules.tiles import SUPPORTED_SETS, Tile, parse_tile
from rules.variants import VARIANTS
from server import engine, storage, table_scene
from server.storage import dumps, loads, now, transaction

MAX_PLAYERS = 10
# Variants whose rounds start from a central engine double (RULES.md section 2).


class NotFound(UserInputError):
    """An unknown game, round or player: HTTP 404."""


class Conflict(UserInputError):
    """The request does not fit the game's current state (round ended, ...): HTTP 409."""


# --- reading ----------------------------------------------------------------------------------


def get_game(conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise NotFound(f"no game {game_id}")
    return row


def current_game_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute(
        "SELECT id FROM games ORDER BY status = 'active' DESC, id DESC LIMIT 1"
    ).fetchone()
    return None if row is None else int(row[0])


def players(conn: sqlite3.Connection, game_id: int) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM players WHERE game_id = ? ORDER BY seat", (game_id,)
    ).fetchall()


def get_round(conn: sqlite3.Connection, game_id: int, number: int | None = None) -> sqlite3.Row:
    """A round by number, or the latest one."""
    if number is None:
        row = conn.execute(
            "SELECT * FROM rounds WHERE game_id = ? ORDER BY number DESC LIMIT 1", (game_id,)
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT * FROM rounds WHERE game_id = ? AND number = ?", (game_id, number)
        ).fetchone()
    if row is None:
        raise NotFound(f"game {game_id} has no round {number or ''}".rstrip())
    return row


def open_round(conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
    """The latest round, which must still be open."""
    rnd = get_round(conn, game_id)
    if rnd["status"] != "open":
        raise Conflict(f"round {rnd['number']} has ended; start a new round first")
    return rnd


def hands(conn: sqlite3.Connection, round_id: int) -> dict[int, sqlite3.Row]:
    return {
        row["player_id"]: row
        for row in conn.execute("SELECT * FROM hands WHERE round_id = ?", (round_id,))
    }


def list_games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [
        {
            "id": row["id"],
            "name": row["name"],
            "variant": row["variant"],
            "set": row["set_max"],
            "status": row["status"],
        }
        for row in conn.execute("SELECT * FROM games ORDER BY id DESC")
    ]


# --- setup ------------------------------------------------------------------------------------


def create_game(conn: sqlite3.Connection, spec: dict[str, Any]) -> int:
    """A new game with its players (clockwise seat order) and its first round.

    `spec`: {"name", "variant", "set", "rules": {...}, "players": [{"name", "team"} | "name"]}.
    """
    if not isinstance(spec, dict):
        raise UserInputError("send the game as a JSON object")
    variant = str(spec.get("variant") or "").strip()
    names = engine.variant_names()
    if variant not in names:
        raise UserInputError(f"unknown variant {variant!r}; valid variants: {', '.join(names)}")
    set_max = spec.get("set", 6)
    if set_max not in SUPPORTED_SETS:
        valid = ", ".join(str(n) for n in SUPPORTED_SETS)
        raise UserInputError(f"unknown set double-{set_max}; valid sets: {valid}")
    rules_overrides = spec.get("rules") or {}
    if not isinstance(rules_overrides, dict):
        raise UserInputError("'rules' must be an object of variant settings")
    roster = _parse_players(spec.get("players"))
    name = str(spec.get("name") or "").strip()[:80] or f"{variant} night"
    with transaction(conn):
        cur = conn.execute(
            "INSERT INTO games (name, variant, rules, set_max, created_at) VALUES (?, ?, ?, ?, ?)",
            (name, variant, dumps(rules_overrides), set_max, now()),
        )
        game_id = int(cur.lastrowid or 0)
        for seat, (player_name, team) in enumerate(roster):
            conn.execute(
                "INSERT INTO players (game_id, seat, name, team, salt) VALUES (?, ?, ?, ?, ?)",
                (game_id, seat, player_name, team, secrets.token_hex(8)),
            )
        _insert_round(conn, game_id, 1, variant, set_max)
        storage.add_event(conn, game_id, "game", {"action": "created"})
    # Validate the whole setup with the rules engine once, with empty hands and no layout.
    try:
        engine.validate(_state(conn, game_id, proposer=roster[0][0], allow_missing=True))
    except UserInputError:
        with transaction(conn):
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        raise
    except engine.EngineUnavailable:
        pass
    return game_id


def _parse_players(raw: object) -> list[tuple[str, str | None]]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_PLAYERS:
        raise UserInputError(f"list 2 to {MAX_PLAYERS} players in clockwise seat order")
    roster: list[tuple[str, str | None]] = []
    for entry in raw:
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, dict):
            raise UserInputError("each player is a name or an object {name, team}")
        name = str(entry.get("name") or "").strip()[:40]
        team = entry.get("team")
        team = str(team).strip()[:40] or None if team not in (None, "") else None
        if not name:
            raise UserInputError("every player needs a name")
        if name in (n for n, _ in roster):
            raise UserInputError(f"two players are called {name!r}; names must differ")
        roster.append((name, team))
    return roster


def _is_train_variant(variant: str) -> bool:
    known = VARIANTS.get(variant)
    return known is not None and known.engine_rounds


def engine_double(variant: str, set_max: int, number: int) -> int | None:
    """The engine double of round `number`: n-n first, then one lower each round, wrapping."""
    if not _is_train_variant(variant):
        return None
    return set_max - (number - 1) % (set_max + 1)


def _insert_round(
    conn: sqlite3.Connection, game_id: int, number: int, variant: str, set_max: int
) -> int:
    cur = conn.execute(
        "INSERT INTO rounds (game_id, number, engine, started_at) VALUES (?, ?, ?, ?)",
        (game_id, number, engine_double(variant, set_max, number), now()),
    )
    return int(cur.lastrowid or 0)


def start_round(conn: sqlite3.Connection, game_id: int) -> int:
    """The next round (the current one must have ended, the game must not be over); returns
    its number."""
    if get_game(conn, game_id)["status"] == "active":
        # A game whose last round ended before games ended by themselves is over too.
        with transaction(conn):
            _finish_if_over(conn, game_id)
    game = get_game(conn, game_id)
    if game["status"] != "active":
        final = scoreboard(conn, game_id)["final"]
        raise Conflict(f"the game is over: {final['text']} Start a new game at /setup.")
    with transaction(conn):
        last = get_round(conn, game_id)
        if last["status"] == "open":
            raise Conflict(f"round {last['number']} is still open; end it first")
        number = last["number"] + 1
        _insert_round(conn, game_id, number, game["variant"], game["set_max"])
        storage.add_event(conn, game_id, "round", {"action": "started", "round": number})
    return number


def finish_game(conn: sqlite3.Connection, game_id: int) -> None:
    """The table ends the game now (before its variant would)."""
    get_game(conn, game_id)
    with transaction(conn):
        conn.execute("UPDATE games SET status = 'finished' WHERE id = ?", (game_id,))
        storage.add_event(conn, game_id, "game", {"action": "finished", "by": "table"})


def _finish_if_over(conn: sqlite3.Connection, game_id: int) -> None:
    """Mark the game finished when its variant says it is over (inside a transaction)."""
    progress = game_progress(conn, game_id)
    if progress is None or not progress["over"]:
        return
    conn.execute("UPDATE games SET status = 'finished' WHERE id = ?", (game_id,))
    storage.add_event(
        conn, game_id, "game", {"action": "finished", "by": "rules", "winners": progress["winners"]}
    )


def update_settings(conn: sqlite3.Connection, game_id: int, rules_overrides: object) -> None:
    if not isinstance(rules_overrides, dict):
        raise UserInputError("'rules' must be an object of variant settings")
    get_game(conn, game_id)
    with transaction(conn):
        conn.execute("UPDATE games SET rules = ? WHERE id = ?", (dumps(rules_overrides), game_id))
        storage.add_event(conn, game_id, "game", {"action": "settings"})


# --- the table --------------------------------------------------------------------------------


def _parse_line(raw: object, index: int, set_max: int, names: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise UserInputError(f"line {index + 1} must be an object with name and open_end")
    line: dict[str, Any] = {"name": str(raw.get("name") or f"line {index + 1}")[:40]}
    end = raw.get("open_end")
    if not isinstance(end, int) or isinstance(end, bool) or not 0 <= end <= set_max:
        raise UserInputError(
            f"line {line['name']!r}: open_end must be a whole number 0..{set_max}, got {end!r}"
        )
    line["open_end"] = end
    owner = raw.get("owner")
    if owner not in (None, ""):
        if owner not in names:
            raise UserInputError(f"line {line['name']!r}: unknown owner {owner!r}")
        line["owner"] = owner
    for flag in ("marked", "open_double"):
        if raw.get(flag) is not None:
            line[flag] = bool(raw[flag])
    return line


def set_layout(
    conn: sqlite3.Connection, game_id: int, lines: object, boneyard: object = None
) -> None:
    """Replace the round's lines (rules-engine form) and optionally the boneyard count."""
    game = get_game(conn, game_id)
    names = {p["name"] for p in players(conn, game_id)}
    if not isinstance(lines, list):
        raise UserInputError("'lines' must be a list of {name, open_end, owner?, marked?}")
    parsed = [_parse_line(raw, i, game["set_max"], names) for i, raw in enumerate(lines)]
    with transaction(conn):
        rnd = open_round(conn, game_id)
        # Lines entered by hand: the camera updates the tiles, not these lines (table_scene).
        conn.execute(
            "UPDATE rounds SET layout = ?, lines_by_hand = 1 WHERE id = ?",
            (dumps(parsed), rnd["id"]),
        )
        if boneyard is not None:
            _set_boneyard(conn, rnd["id"], boneyard)
        storage.add_event(conn, game_id, "table", {"action": "layout"})


def _set_boneyard(conn: sqlite3.Connection, round_id: int, boneyard: object) -> None:
    if not isinstance(boneyard, int) or isinstance(boneyard, bool) or boneyard < 0:
        raise UserInputError(f"boneyard must be a whole number of tiles >= 0, got {boneyard!r}")
    conn.execute("UPDATE rounds SET boneyard = ? WHERE id = ?", (boneyard, round_id))


def set_boneyard(conn: sqlite3.Connection, game_id: int, boneyard: object) -> None:
    with transaction(conn):
        rnd = open_round(conn, game_id)
        _set_boneyard(conn, rnd["id"], boneyard)
        storage.add_event(conn, game_id, "table", {"action": "boneyard"})


def layout_from_scene(scene: dict[str, Any]) -> list[dict[str, Any]]:
    """Rules-engine lines from a Scene's layout: one line per open end the photo shows
    (`dominocam.scene_state.layout_lines`, shared with `dominocam round`)."""
    return scene_state.layout_lines(scene)


def save_table_scene(
    conn: sqlite3.Connection,
    game_id: int,
    scene: dict[str, Any] | None,
    image_name: str | None,
) -> None:
    """Store a new table photo (and its Scene, when one could be read) for the open round."""
    with transaction(conn):
        rnd = open_round(conn, game_id)
        updates: dict[str, Any] = {}
        if image_name is not None:
            updates["table_image"] = image_name
        updates["table_scene"] = None if scene is None else dumps(scene)
        if scene is not None:
            updates["layout"] = dumps(layout_from_scene(scene))
            updates["lines_by_hand"] = 0
        sets = ", ".join(f"{k} = ?" for k in updates)
        conn.execute(f"UPDATE rounds SET {sets} WHERE id = ?", (*updates.values(), rnd["id"]))
        storage.add_event(conn, game_id, "table", {"action": "photo", "read": scene is not None})


def correct_table_tile(
    conn: sqlite3.Connection, game_id: int, tile_id: int, pips: object, delete: bool = False
) -> None:
    """Fix a tile's value (or delete a false tile) in the table Scene; open ends follow."""
    game = get_game(conn, game_id)
    with transaction(conn):
        rnd = open_round(conn, game_id)
        scene = loads(rnd["table_scene"])
        if scene is None:
            raise Conflict("there is no table photo to correct; upload one or enter the lines")
        tiles = scene.get("tiles") or []
        index = next((i for i, t in enumerate(tiles) if t.get("id") == tile_id), None)
        if index is None:
            raise NotFound(f"the table has no tile {tile_id}")
        correction: dict[str, Any] = {
            "tile": tile_id,
            "action": "delete" if delete else "set",
            "pips": pips,
        }
        if delete:
            # Where the tile was (or the camera's track of it): the camera must not bring it
            # back while it is still there (server.table_scene).
            gone = tiles.pop(index)
            correction.update({k: gone[k] for k in ("track", "corners") if k in gone})
            table_scene.drop_from_lines(scene, {tile_id})
        else:
            tile = parse_tile(pips, game["set_max"])
            tiles[index].update(face="up", pips=tile.as_list(), corrected=True)
            table_scene.refresh_open_ends(scene)
        table_scene.refresh_totals(scene)
        scene.setdefault("corrections", []).append(correction)
        conn.execute(
            "UPDATE rounds SET table_scene = ?, layout = ?, lines_by_hand = 0 WHERE id = ?",
            (dumps(scene), dumps(layout_from_scene(scene)), rnd["id"]),
        )
        storage.add_event(conn, game_id, "table", {"action": "correction", "tile": tile_id})


def add_table_tile(
    conn: sqlite3.Connection, game_id: int, pips: object, corners: object = None
) -> int:
    """Add a tile the photo missed; returns its id."""
    game = get_game(conn, game_id)
    tile = parse_tile(pips, game["set_max"])
    with transaction(conn):
        rnd = open_round(conn, game_id)
        scene = loads(rnd["table_scene"]) or _empty_scene()
        tiles = scene.setdefault("tiles", [])
        new_id = (
            max(
                [t.get("id", -1) for t in tiles]
                + [c.get("tile", -1) for c in scene.get("corrections", [])],
                default=-1,
            )
            + 1
        )
        entry: dict[str, Any] = {"id": new_id, "face": "up", "pips": tile.as_list(), "added": True}
        if isinstance(corners, list) and len(corners) == 4:
            entry["corners"] = [[float(x), float(y)] for x, y in corners]
        tiles.append(entry)
        table_scene.refresh_totals(scene)
        conn.execute("UPDATE rounds SET table_scene = ? WHERE id = ?", (dumps(scene), rnd["id"]))
        storage.add_event(conn, game_id, "table", {"action": "added", "tile": new_id})
    return new_id


def _empty_scene() -> dict[str, Any]:
    return {
        "image": None,
        "tiles": [],
        "face_down": 0,
        "pip_total": 0,
        "layout": {"lines": [], "open_ends": []},
        "warnings": [],
    }


def table_game(conn: sqlite3.Connection, game_id: int) -> engine.TableGame:
    """What reading a table picture of this game needs to know: variant, players, engine."""
    row = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    return engine.TableGame(str(row["variant"]), len(players(conn, game_id)), rnd["engine"])


# --- the live camera's events ----------------------------------------------------------------

# How many camera events the public state carries (the dashboard and the overlay show them).
LATEST_TABLE_EVENTS = 8


def record_camera_update(
    conn: sqlite3.Connection,
    game_id: int,
    scene: dict[str, Any],
    events: list[dict[str, Any]],
    image_name: str | None,
) -> list[dict[str, Any]]:
    """Store the camera's confirmed changes and its table (a frame and its Scene) in the round.

    The camera's table replaces the round's table Scene as an uploaded photo does, except
    that people's corrections stand (`server.table_scene`) and lines entered by hand are kept.

    Args:
        scene: the tracker's Scene dict; each tile carries its `track`.
        events: `vision.track.TableEvent.to_dict()` of the changes confirmed since the last call.
        image_name: the frame the Scene was read from, under the game's upload folder.

    Returns:
        The events as stored (with `id`, `round` and `time`), or [] when the game has no open
        round (between rounds the table is being cleared: there is nothing to tie them to).
    """
    with transaction(conn):
        if get_game(conn, game_id)["status"] != "active":
            return []
        rnd = get_round(conn, game_id)
        if rnd["status"] != "open":
            return []
        merged = table_scene.merge_camera_scene(loads(rnd["table_scene"]), scene)
        stored = []
        for raw in events:
            event = dict(raw)
            kept = merged.kept.get(int(event["track"]))
            if kept is not None and event["kind"] != "removed":
                event["kept"] = kept
                event["text"] += f"; a person's correction stands: {kept}"
            created = now()
            cur = conn.execute(
                "INSERT INTO table_events (round_id, kind, track, text, event, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    rnd["id"],
                    event["kind"],
                    int(event["track"]),
                    event["text"],
                    dumps(event),
                    created,
                ),
            )
            stored.append(
                dict(event, id=int(cur.lastrowid or 0), round=rnd["number"], time=created)
            )
        updates: dict[str, Any] = {"table_scene": dumps(merged.scene), "table_image": image_name}
        if not rnd["lines_by_hand"]:
            updates["layout"] = dumps(layout_from_scene(merged.scene))
        sets = ", ".join(f"{k} = ?" for k in updates)
        conn.execute(f"UPDATE rounds SET {sets} WHERE id = ?", (*updates.values(), rnd["id"]))
        storage.add_event(
            conn,
            game_id,
            "camera",
            {"events": [{"id": e["id"], "kind": e["kind"], "text": e["text"]} for e in stored]},
        )
    return stored


def _table_event(row: sqlite3.Row, number: int) -> dict[str, Any]:
    return dict(loads(row["event"], {}), id=row["id"], round=number, time=row["created_at"])


def table_events(
    conn: sqlite3.Connection,
    game_id: int,
    number: int | None = None,
    since: int = 0,
    limit: int = 100,
) -> dict[str, Any]:
    """The camera's events of a round (the latest round by default) after event id `since`,
    oldest first. Tile values on the table are public; nothing here touches a hand."""
    rnd = get_round(conn, game_id, number)
    rows = conn.execute(
        "SELECT * FROM table_events WHERE round_id = ? AND id > ? ORDER BY id LIMIT ?",
        (rnd["id"], since, max(1, min(limit, 500))),
    ).fetchall()
    return {"round": rnd["number"], "events": [_table_event(r, rnd["number"]) for r in rows]}


def _latest_table_events(conn: sqlite3.Connection, rnd: sqlite3.Row) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT * FROM table_events WHERE round_id = ? ORDER BY id DESC LIMIT ?",
        (rnd["id"], LATEST_TABLE_EVENTS),
    ).fetchall()
    return [_table_event(r, rnd["number"]) for r in rows]


# --- hands ------------------------------------------------------------------------------------


def parse_hand(raw: object, set_max: int) -> list[list[int]]:
    if not isinstance(raw, list):
        raise UserInputError("'tiles' must be a list of [a, b] pairs")
    tiles = [parse_tile(t, set_max) for t in raw]
    seen: set[Tile] = set()
    for tile in tiles:
        if tile in seen:
            raise UserInputError(f"tile {tile} is listed twice; a set has each tile once")
        seen.add(tile)
    return [t.as_list() for t in tiles]


def set_hand(
    conn: sqlite3.Connection,
    player: sqlite3.Row,
    tiles: object,
    scene: dict[str, Any] | None = None,
    image_name: str | None = None,
) -> list[list[int]]:
    """Store a player's hand for the open round (tiles corrected by the player or the table)."""
    game = get_game(conn, player["game_id"])
    parsed = parse_hand(tiles, game["set_max"])
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        old = conn.execute(
            "SELECT * FROM hands WHERE round_id = ? AND player_id = ?", (rnd["id"], player["id"])
        ).fetchone()
        scene_json = dumps(scene) if scene is not None else (old["scene"] if old else None)
        image = image_name or (old["image"] if old else None)
        conn.execute(
            "INSERT INTO hands (round_id, player_id, tiles, scene, image, submitted, updated_at) "
            "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT(round_id, player_id) DO UPDATE SET "
            "tiles = excluded.tiles, scene = excluded.scene, image = excluded.image, "
            "submitted = 1, updated_at = excluded.updated_at",
            (rnd["id"], player["id"], dumps(parsed), scene_json, image, now()),
        )
        storage.add_event(
            conn, player["game_id"], "hand", {"player": player["name"], "count": len(parsed)}
        )
    return parsed


def attach_hand_photo(conn: sqlite3.Connection, player: sqlite3.Row, image_name: str) -> None:
    """Keep a hand photo that could not be read (no model); the tiles are entered by hand."""
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        conn.execute(
            "INSERT INTO hands (round_id, player_id, image, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(round_id, player_id) DO UPDATE SET image = excluded.image",
            (rnd["id"], player["id"], image_name, now()),
        )
        storage.add_event(conn, player["game_id"], "hand", {"player": player["name"], "photo": 1})


def declare_cannot_play(conn: sqlite3.Connection, player: sqlite3.Row, value: bool) -> None:
    """Record the player's declaration; a false "cannot play" is a foul at the block check."""
    with transaction(conn):
        rnd = open_round(conn, player["game_id"])
        conn.execute(
            "INSERT INTO hands (round_id, player_id, declared_cannot_play, updated_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(round_id, player_id) DO UPDATE SET "
            "declared_cannot_play = excluded.declared_cannot_play",
            (rnd["id"], player["id"], int(value), now()),
        )
        storage.add_event(
            conn, player["game_id"], "declare", {"player": player["name"], "cannot_play": value}
        )


def player_by_id(conn: sqlite3.Connection, game_id: int, player_id: int) -> sqlite3.Row:
    row = conn.execute(
        "SELECT * FROM players WHERE id = ? AND game_id = ?", (player_id, game_id)
    ).fetchone()
    if row is None:
        raise NotFound(f"game {game_id} has no player {player_id}")
    return row


def player_by_name(conn: sqlite3.Connection, game_id: int, name: object) -> sqlite3.Row:
    row = conn.execute(
        "SELECT * FROM players WHERE name = ? AND game_id = ?", (str(name), game_id)
    ).fetchone()
    if row is None:
        known = ", ".join(p["name"] for p in players(conn, game_id))
        raise UserInputError(f"unknown player {name!r}; players: {known}")
    return row


def rotate_player_link(conn: sqlite3.Connection, player: sqlite3.Row) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE players SET salt = ? WHERE id = ?", (secrets.token_hex(8), player["id"])
        )


# --- block check and end of round ------------------------------------------------------------


def _state(
    conn: sqlite3.Connection,
    game_id: int,
    proposer: str | None = None,
    allow_missing: bool = False,
    empty_hand: str | None = None,
) -> dict[str, Any]:
    """The DESIGN.md game-state dict of the latest round, for the rules engine."""
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = hands(conn, rnd["id"])
    roster = []
    missing = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        if p["name"] == empty_hand:
            tiles: list = []
        elif row is None or not row["submitted"]:
            if not allow_missing:
                missing.append(p["name"])
            tiles = []
        else:
            tiles = loads(row["tiles"], [])
        entry: dict[str, Any] = {"name": p["name"], "hand": tiles}
        if row is not None and row["declared_cannot_play"]:
            entry["declared_cannot_play"] = True
        if p["team"]:
            entry["team"] = p["team"]
        roster.append(entry)
    if missing:
        raise Conflict(
            f"no hand yet for {', '.join(missing)}: each player sends a photo from their link "
            "or the table enters the tiles"
        )
    state: dict[str, Any] = {
        "variant": game["variant"],
        "rules": loads(game["rules"], {}),
        "set": game["set_max"],
        "players": roster,
        "layout": {"lines": loads(rnd["layout"], [])},
        "boneyard": rnd["boneyard"],
    }
    if proposer is not None:
        state["proposer"] = proposer
    return state


def game_state_for_rules(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The state the rules engine would judge now (admin only: it holds every hand)."""
    return _state(conn, game_id, allow_missing=True)


def block_check(conn: sqlite3.Connection, game_id: int, proposer_name: object) -> dict[str, Any]:
    """Run the clockwise verification from `proposer_name` with the rules engine.

    A confirmed block ends the round: hands revealed, totals, winner, ties and points written
    to the scoreboard. Otherwise the outcome names the first player who can play, the tile and
    the line, and whether that player had declared "cannot play" (a foul).
    """
    proposer = player_by_name(conn, game_id, proposer_name)
    open_round(conn, game_id)
    state = _state(conn, game_id, proposer=proposer["name"])
    verdict = engine.check(state)
    outcome = _outcome(conn, game_id, proposer["name"], verdict)
    with transaction(conn):
        rnd = open_round(conn, game_id)
        cur = conn.execute(
            "INSERT INTO block_checks (round_id, proposer, verdict, outcome, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (rnd["id"], proposer["name"], dumps(verdict), dumps(outcome), now()),
        )
        outcome["id"] = int(cur.lastrowid or 0)
        if verdict.get("blocked"):
            _end_round(conn, game_id, rnd, "block", verdict)
        storage.add_event(conn, game_id, "block_check", {"outcome": outcome})
    return outcome


def _outcome(
    conn: sqlite3.Connection, game_id: int, proposer: str, verdict: dict[str, Any]
) -> dict[str, Any]:
    """What may be shown to everybody: the confirmations in turn and where they stopped."""
    steps = [
        {
            "player": s.get("player"),
            "can_play": bool(s.get("can_play")),
            "declared": bool(s.get("declared")),
            "foul": bool(s.get("foul")),
        }
        for s in verdict.get("verification") or []
    ]
    stopped = None
    if not verdict.get("blocked"):
        first = next((s for s in steps if s["can_play"]), None)
        if first is not None:
            # Only the first playable tile of the player who stopped the check is shown.
            move = next(
                (m for m in verdict.get("playable") or [] if m.get("player") == first["player"]),
                {},
            )
            rnd = get_round(conn, game_id)
            declared = conn.execute(
                "SELECT h.declared_cannot_play FROM hands h JOIN players p ON p.id = h.player_id "
                "WHERE h.round_id = ? AND p.name = ?",
                (rnd["id"], first["player"]),
            ).fetchone()
            stopped = {
                "player": first["player"],
                "tile": move.get("tile"),
                "line": move.get("line"),
                "foul": first["foul"] or bool(declared and declared[0]),
            }
        else:
            stopped = {"player": None, "tile": None, "line": None, "foul": False}
    return {
        "proposer": proposer,
        "blocked": bool(verdict.get("blocked")),
        "conditions": verdict.get("conditions") or {},
        "steps": steps,
        "stopped": stopped,
        "boneyard_reason": (
            None
            if (verdict.get("conditions") or {}).get("boneyard_exhausted", True)
            else "tiles can still be drawn from the boneyard"
        ),
    }


def end_by_domino(conn: sqlite3.Connection, game_id: int, winner_name: object) -> dict[str, Any]:
    """End the round because `winner_name` played their last tile; score it per the variant."""
    winner = player_by_name(conn, game_id, winner_name)
    open_round(conn, game_id)
    state = _state(conn, game_id, empty_hand=winner["name"])
    result = engine.score_domino(state, winner["name"])
    with transaction(conn):
        rnd = open_round(conn, game_id)
        conn.execute(
            "UPDATE hands SET tiles = '[]' WHERE round_id = ? AND player_id = ?",
            (rnd["id"], winner["id"]),
        )
        _end_round(conn, game_id, rnd, "domino", result)
    return result


def _end_round(
    conn: sqlite3.Connection,
    game_id: int,
    rnd: sqlite3.Row,
    ended_by: str,
    result: dict[str, Any],
) -> None:
    conn.execute(
        "UPDATE rounds SET status = 'ended', ended_by = ?, result = ?, ended_at = ? WHERE id = ?",
        (ended_by, dumps(result), now(), rnd["id"]),
    )
    by_name = {p["name"]: p["id"] for p in players(conn, game_id)}
    for name, points in (result.get("points") or {}).items():
        conn.execute(
            "INSERT OR REPLACE INTO scores (round_id, name, player_id, points) VALUES (?, ?, ?, ?)",
            (rnd["id"], name, by_name.get(name), int(points)),
        )
    storage.add_event(
        conn,
        game_id,
        "round",
        {"action": "ended", "round": rnd["number"], "by": ended_by, "winner": result.get("winner")},
    )
    _finish_if_over(conn, game_id)


# --- what the pages show ---------------------------------------------------------------------


def _ended_rounds(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """The ended rounds in order: number, ended_by, winner, void and points per name."""
    points: dict[int, dict[str, int]] = {}
    for row in conn.execute(
        "SELECT s.round_id, s.name, s.points FROM scores s JOIN rounds r ON r.id = s.round_id "
        "WHERE r.game_id = ?",
        (game_id,),
    ):
        points.setdefault(row["round_id"], {})[row["name"]] = row["points"]
    ended = conn.execute(
        "SELECT id, number, ended_by, result FROM rounds WHERE game_id = ? AND status = 'ended' "
        "ORDER BY number",
        (game_id,),
    ).fetchall()
    out = []
    for r in ended:
        result = loads(r["result"], {}) or {}
        out.append(
            {
                "number": r["number"],
                "ended_by": r["ended_by"],
                "winner": result.get("winner"),
                "void": bool(result.get("void")),
                "points": points.get(r["id"], {}),
            }
        )
    return out


def game_progress(conn: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    """Where the game stands by its variant's end rule (`engine.game_progress`); None when its
    rounds do not fit the rule (a game that went on before games ended by themselves)."""
    game = get_game(conn, game_id)
    seats = [(p["name"], p["team"]) for p in players(conn, game_id)]
    rounds = [
        {
            "points": r["points"],
            "winner": r["winner"],
            "blocked": r["ended_by"] == "block",
            "void": r["void"],
        }
        for r in _ended_rounds(conn, game_id)
    ]
    try:
        return engine.game_progress(
            game["variant"], loads(game["rules"], {}), game["set_max"], seats, rounds
        )
    except ValueError:  # UserInputError and the like: never let it stop a round from ending
        return None


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def final_result(
    progress: dict[str, Any] | None, set_max: int, status: str
) -> dict[str, Any] | None:
    """The game's final result once it is finished (None while it is played): the winners,
    whether the variant (`by: "rules"`) or the table (`"table"`) ended it, and a sentence."""
    if status == "active":
        return None
    if progress is None:
        return {"winners": [], "by": "table", "text": "The game is finished."}
    lower = progress["lower_wins"]
    standings = progress["standings"]
    played = progress["rounds_played"]
    which = "lowest" if lower else "highest"
    if progress["over"]:
        winners, by = progress["winners"], "rules"
        if progress["end"] == "descending-doubles":
            why = (
                f"all {progress['planned_rounds']} rounds are played (one per double, "
                f"{set_max}-{set_max} down to 0-0)"
            )
        else:
            why = f"the target of {progress['target']} points is reached"
    else:
        best = standings[0][1] if standings and played else None
        winners = [name for name, total in standings if total == best] if played else []
        by = "table"
        why = f"the table ended it after {played} round{'s' if played != 1 else ''}"
    total = dict(standings).get(winners[0]) if winners else None
    if not winners:
        text = f"Finished: {why}, before any round was scored."
    elif len(winners) == 1:
        text = f"Finished: {why}. {winners[0]} wins with the {which} total, {total}."
    else:
        text = f"Finished: {why}. {_names(winners)} tie for the {which} total, {total}."
    return {"winners": winners, "by": by, "text": text}


def scoreboard(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """Points per round and cumulative totals, keyed by player (or team) name, with how the
    game ends (`end`: the variant's rule, rounds played) and, once finished, `final`."""
    game = get_game(conn, game_id)
    ended = _ended_rounds(conn, game_id)
    columns = [p["name"] for p in players(conn, game_id)]
    for r in ended:
        columns += [name for name in r["points"] if name not in columns]
    totals = dict.fromkeys(columns, 0)
    for r in ended:
        for name, points in r["points"].items():
            totals[name] += points
    progress = game_progress(conn, game_id)
    end = None
    if progress is not None:
        end = {
            k: progress[k]
            for k in ("end", "planned_rounds", "target", "lower_wins", "rounds_played", "over")
        }
    return {
        "columns": columns,
        "rounds": [{k: r[k] for k in ("number", "ended_by", "winner", "points")} for r in ended],
        "totals": totals,
        "end": end,
        "final": final_result(progress, game["set_max"], game["status"]),
    }


def public_state(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The game as anybody at the table (or the overlay) may see it.

    Before the round ends: tile counts only, never tiles. After it ends: hands, pip totals,
    winner, ties and points.
    """
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = hands(conn, rnd["id"])
    ended = rnd["status"] == "ended"
    result = loads(rnd["result"], None) if ended else None
    roster = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        tiles = loads(row["tiles"], []) if row else []
        submitted = bool(row and row["submitted"])
        entry: dict[str, Any] = {
            "id": p["id"],
            "name": p["name"],
            "seat": p["seat"],
            "team": p["team"],
            "tiles": len(tiles) if submitted else None,
            "hand_submitted": submitted,
            "declared_cannot_play": bool(row and row["declared_cannot_play"]),
        }
        if ended:
            entry["hand"] = tiles
            totals = (result or {}).get("pip_totals") or (result or {}).get("totals") or {}
            entry["pip_total"] = totals.get(p["name"], sum(a + b for a, b in tiles))
        roster.append(entry)
    scene = loads(rnd["table_scene"], None)
    checks = conn.execute(
        "SELECT id, proposer, outcome, created_at FROM block_checks WHERE round_id = ? "
        "ORDER BY id DESC LIMIT 5",
        (rnd["id"],),
    ).fetchall()
    lines = loads(rnd["layout"], [])
    return {
        "version": storage.last_event_id(conn),
        "game": {
            "id": game["id"],
            "name": game["name"],
            "variant": game["variant"],
            "rules": loads(game["rules"], {}),
            "set": game["set_max"],
            "status": game["status"],
            "teams": any(p["team"] for p in roster),
        },
        "players": roster,
        "round": {
            "number": rnd["number"],
            "status": rnd["status"],
            "engine": rnd["engine"],
            "boneyard": rnd["boneyard"],
            "lines": lines,
            "open_ends": [line["open_end"] for line in lines],
            "table": {
                "image": (
                    f"/api/games/{game_id}/rounds/{rnd['number']}/table/image"
                    if rnd["table_image"]
                    else None
                ),
                "scene": scene,
                "face_down": (scene or {}).get("face_down", 0),
                # The live camera's latest confirmed changes, newest first.
                "events": _latest_table_events(conn, rnd),
            },
            "lines_by_hand": bool(rnd["lines_by_hand"]),
            "block_checks": [
                dict(loads(c["outcome"], {}), id=c["id"], time=c["created_at"]) for c in checks
            ],
            "ended_by": rnd["ended_by"],
            "result": result,
        },
        "scoreboard": scoreboard(conn, game_id),
    }


def player_view(conn: sqlite3.Connection, player: sqlite3.Row) -> dict[str, Any]:
    """The public state plus this player's own hand (and nobody else's)."""
    state = public_state(conn, player["game_id"])
    rnd = get_round(conn, player["game_id"])
    row = conn.execute(
        "SELECT * FROM hands WHERE round_id = ? AND player_id = ?", (rnd["id"], player["id"])
    ).fetchone()
    tiles = loads(row["tiles"], []) if row else []
    scene = loads(row["scene"], None) if row else None
    state["me"] = {
        "id": player["id"],
        "name": player["name"],
        "team": player["team"],
        "hand": tiles,
        "pip_total": sum(a + b for a, b in tiles),
        "scene": scene,
        "has_photo": bool(row and row["image"]),
        "declared_cannot_play": bool(row and row["declared_cannot_play"]),
    }
    return state
