"""The round's table: lines entered by hand, the boneyard, the table photo's Scene and the
corrections people make to it (open ends follow, `dominocam.server.table_scene`)."""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.i18n import _
from dominocam.rounds import scene_state
from dominocam.rounds.lifecycle import Conflict
from dominocam.rules.places import PLACE_CODES
from dominocam.rules.tiles import parse_tile
from dominocam.server import engine, json_fields, storage, table_scene
from dominocam.server.game.records import (
    NotFound,
    Refused,
    get_game,
    get_round,
    open_round,
    players,
)
from dominocam.server.storage import dumps, loads, transaction


def _parse_line(raw: object, index: int, set_max: int, names: set[str]) -> dict[str, Any]:
    """The request's `lines[index]`: a refusal names it by its row on the correction screen
    ("row 2"), the host's own order of the lines (a line's name is optional)."""
    row = index + 1
    if not isinstance(raw, dict):
        raise Refused(
            _("row {count} of the lines must be an object with an open_end").format(count=row),
            "line_not_an_object",
            row=row,
        )
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise Refused(
            _("row {count} of the lines: 'name' must be text, got {value}").format(
                count=row, value=json_fields.shown(name)
            ),
            "line_name_not_text",
            row=row,
        )
    line: dict[str, Any] = {}
    if name and name.strip():
        line["name"] = name.strip()[:40]  # shown as typed (`dominocam.rules.places.line_words`)
    end = raw.get("open_end")
    if not isinstance(end, int) or isinstance(end, bool) or not 0 <= end <= set_max:
        raise Refused(
            _(
                "row {count} of the lines: the open end must be a whole number "
                "0..{set_max}, got {end}"
            ).format(count=row, set_max=set_max, end=json_fields.shown(end)),
            "bad_open_end",
            row=row,
            set=set_max,
        )
    line["open_end"] = end
    owner = raw.get("owner")
    if owner not in (None, ""):
        if owner not in names:
            raise Refused(
                _("row {count} of the lines: the owner {owner} does not play in this game").format(
                    count=row, owner=json_fields.shown(owner)
                ),
                "unknown_line_owner",
                row=row,
                owner=str(owner),
            )
        line["owner"] = owner
    # Where a photo's line lies (`dominocam.rules.places`), kept when the host edits the photo's
    # lines.
    place = raw.get("place")
    if place is not None:
        if place not in PLACE_CODES:
            raise Refused(
                _("row {count} of the lines: place must be one of {places}, got {value}").format(
                    count=row,
                    places=", ".join(sorted(PLACE_CODES)),
                    value=json_fields.shown(place),
                ),
                "bad_line_place",
                row=row,
                valid=sorted(PLACE_CODES),
            )
        line["place"] = place
    for flag in ("marked", "open_double"):
        json_fields.check_field(raw, flag, json_fields.optional(json_fields.BOOLEAN, nullable=True))
        if raw.get(flag) is not None:
            line[flag] = raw[flag]
    return line


def _name_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each line the host left unnamed gets an id ("line 2", by its row) with `named: false`:
    the rules need a name, no person reads it (the pages and rulings say "the 5 at the top
    right" or "the line ending in 5"). Two typed names must differ."""
    typed = [line["name"] for line in lines if "name" in line]
    for name in typed:
        if typed.count(name) > 1:
            raise Refused(
                _("two lines are called {name}: give them different names, or none").format(
                    name=json_fields.shown(name)
                ),
                "duplicate_line_name",
                name=name,
            )
    taken = set(typed)
    for row, line in enumerate(lines, start=1):
        if "name" in line:
            continue
        name, number = f"line {row}", 2
        while name in taken:
            name, number = f"line {row} ({number})", number + 1
        taken.add(name)
        line.update(name=name, named=False)
    return lines


def set_layout(
    conn: sqlite3.Connection, game_id: int, lines: object, boneyard: object = None
) -> None:
    """Replace the round's lines (rules-engine form) and optionally the boneyard count."""
    game = get_game(conn, game_id)
    names = {p["name"] for p in players(conn, game_id)}
    if not isinstance(lines, list):
        raise Refused(
            _("'lines' must be a list of {{name, open_end, owner?, marked?}}").format(),
            "lines_not_a_list",
        )
    parsed = _name_lines(
        [_parse_line(raw, i, game["set_max"], names) for i, raw in enumerate(lines)]
    )
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
    """The host's count of the boneyard (`entered`); None makes it unknown again."""
    if boneyard is None:
        conn.execute(
            "UPDATE rounds SET boneyard = 0, boneyard_source = NULL WHERE id = ?", (round_id,)
        )
        return
    if not isinstance(boneyard, int) or isinstance(boneyard, bool) or boneyard < 0:
        raise Refused(
            _("boneyard must be a whole number of tiles >= 0, got {boneyard!r}").format(
                boneyard=boneyard
            ),
            "bad_boneyard",
        )
    conn.execute(
        "UPDATE rounds SET boneyard = ?, boneyard_source = 'entered' WHERE id = ?",
        (boneyard, round_id),
    )


def set_boneyard(conn: sqlite3.Connection, game_id: int, boneyard: object) -> None:
    """The host enters the boneyard's count (null: not known). Until then a draw game's
    boneyard is unknown, never 0 by default (`dominocam.rounds.ledger`)."""
    with transaction(conn):
        rnd = open_round(conn, game_id)
        _set_boneyard(conn, rnd["id"], boneyard)
        storage.add_event(conn, game_id, "table", {"action": "boneyard"})


def layout_from_scene(scene: dict[str, Any]) -> list[dict[str, Any]]:
    """Rules-engine lines from a Scene's layout: one line per open end the photo shows
    (`dominocam.rounds.scene_state.layout_lines`, shared with `dominocam round`), each with the
    place of its open end in the photo (`dominocam.rules.places`) and an id for a name that
    nobody reads: players are told "the 5 at the top right", never a line's number."""
    return scene_state.layout_lines(scene)


def save_table_scene(
    conn: sqlite3.Connection,
    game_id: int,
    scene: dict[str, Any] | None,
    image_name: str | None,
) -> str | None:
    """Store a new table photo (and its Scene, when one could be read) for the open round.
    Returns the photo it replaces (nothing refers to it any more: the caller deletes its
    file), or None."""
    with transaction(conn):
        rnd = open_round(conn, game_id)
        replaced = rnd["table_image"] if image_name not in (None, rnd["table_image"]) else None
        updates: dict[str, Any] = {}
        if image_name is not None:
            updates["table_image"] = image_name
        updates["table_scene"] = None if scene is None else dumps(scene)
        # A new photo's doubts need the host's check again (server.game.review).
        updates["table_checked"] = None
        if scene is not None:
            updates["layout"] = dumps(layout_from_scene(scene))
            updates["lines_by_hand"] = 0
        sets = ", ".join(f"{k} = ?" for k in updates)
        conn.execute(f"UPDATE rounds SET {sets} WHERE id = ?", (*updates.values(), rnd["id"]))
        storage.add_event(conn, game_id, "table", {"action": "photo", "read": scene is not None})
    return replaced


def correct_table_tile(
    conn: sqlite3.Connection, game_id: int, tile_id: int, pips: object, delete: bool = False
) -> None:
    """Fix a tile's value (or delete a false tile) in the table Scene; open ends follow."""
    game = get_game(conn, game_id)
    with transaction(conn):
        rnd = open_round(conn, game_id)
        scene = loads(rnd["table_scene"])
        if scene is None:
            raise Conflict(
                _("there is no table photo to correct; upload one or enter the lines"),
                "no_table_photo",
            )
        tiles = scene.get("tiles") or []
        index = next((i for i, t in enumerate(tiles) if t.get("id") == tile_id), None)
        if index is None:
            raise NotFound(
                _("the table has no tile {tile_id}").format(tile_id=tile_id),
                "no_table_tile",
                tile=tile_id,
            )
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
            # A person's word: the reader's doubt about this tile is settled.
            tiles[index].update(face="up", pips=tile.as_list(), corrected=True, doubtful=False)
            table_scene.refresh_open_ends(scene)
        table_scene.refresh_totals(scene)
        scene.setdefault("corrections", []).append(correction)
        conn.execute(
            "UPDATE rounds SET table_scene = ?, layout = ?, lines_by_hand = 0 WHERE id = ?",
            (dumps(scene), dumps(layout_from_scene(scene)), rnd["id"]),
        )
        storage.add_event(conn, game_id, "table", {"action": "correction", "tile": tile_id})


def _parse_corners(raw: object) -> list[list[float]]:
    """A tile's outline as sent: four [x, y] points in pixels of the photo."""
    number = json_fields.NUMBER.accepts
    if not (
        isinstance(raw, list)
        and len(raw) == 4
        and all(isinstance(p, list) and len(p) == 2 and all(map(number, p)) for p in raw)
    ):
        raise Refused(
            _("'corners' must be four [x, y] points (numbers), got {value}").format(
                value=json_fields.shown(raw)
            ),
            "bad_corners",
        )
    return [[float(x), float(y)] for x, y in raw]


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
        new_id = _next_tile_id(scene)
        entry: dict[str, Any] = {"id": new_id, "face": "up", "pips": tile.as_list(), "added": True}
        if corners is not None:
            entry["corners"] = _parse_corners(corners)
        tiles.append(entry)
        table_scene.refresh_totals(scene)
        conn.execute("UPDATE rounds SET table_scene = ? WHERE id = ?", (dumps(scene), rnd["id"]))
        storage.add_event(conn, game_id, "table", {"action": "added", "tile": new_id})
    return new_id


def restore_rejected(
    conn: sqlite3.Connection, game_id: int, index: int, pips: object = None
) -> int:
    """Make a box the reader judged not a tile (`rejected[index]` of the Scene) a tile of the
    table, with its own reading or the `pips` given; returns the new tile's id."""
    game = get_game(conn, game_id)
    rnd = open_round(conn, game_id)
    scene = loads(rnd["table_scene"]) or {}
    rejected = scene.get("rejected") or []
    if not 0 <= index < len(rejected):
        raise NotFound(
            _("the table reading has no rejected box {index}").format(index=index),
            "no_rejected_box",
            box=index,
        )
    box = rejected[index]
    face_down = pips is None and box.get("face") == "down"
    if pips is None and not face_down:
        pips = box.get("pips")
        if pips is None:
            raise Refused(
                _("this box was not read: send 'pips' [a, b] for the tile"), "box_not_read"
            )
    with transaction(conn):
        rnd = open_round(conn, game_id)
        scene = loads(rnd["table_scene"]) or {}
        box = scene["rejected"].pop(index)
        tiles = scene.setdefault("tiles", [])
        entry: dict[str, Any] = {"id": _next_tile_id(scene), "added": True, "restored": True}
        if face_down:
            entry.update(face="down", pips=None)
        else:
            entry.update(face="up", pips=parse_tile(pips, game["set_max"]).as_list())
        if isinstance(box.get("corners"), list):
            entry["corners"] = box["corners"]
        tiles.append(entry)
        table_scene.refresh_totals(scene)
        conn.execute("UPDATE rounds SET table_scene = ? WHERE id = ?", (dumps(scene), rnd["id"]))
        storage.add_event(conn, game_id, "table", {"action": "restored", "tile": entry["id"]})
    return int(entry["id"])


def _next_tile_id(scene: dict[str, Any]) -> int:
    """An id no tile of the Scene had, even one deleted since (corrections name ids)."""
    used = [t.get("id", -1) for t in scene.get("tiles") or []]
    used += [c.get("tile", -1) for c in scene.get("corrections", [])]
    return max(used, default=-1) + 1


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
