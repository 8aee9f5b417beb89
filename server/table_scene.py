"""The round's table Scene as people see it: totals, open ends, and camera updates merged with
people's corrections.

Pure functions on Scene dicts (docs/design.md's Scene JSON plus the dashboard's marks: `corrected`
and `added` on tiles, `corrections` on the scene, and `track` on tiles that came from the live
camera: the tracker's id of the tile, stable while it stays on the table).

The corrections rule. The camera re-reads the table all the time; a person corrects a tile
once. So a person's word about a tile outlasts the camera's readings of it for as long as that
tile stays on the table:

* a tile whose value was corrected keeps the corrected value while the camera tracks it, even
  when the camera reads it differently again (the event says that the correction stands);
* a tile deleted as false (a shadow, a loose tile) stays out of the table while the camera
  still tracks it;
* a tile added by hand (the camera missed it) stays until the camera reads that same tile
  (a set holds each tile once); the camera's tile, with its position, then takes its place;
* when the tile leaves the table (its track ends), its correction ends with it: a new tile at
  that place is read afresh;
* a correction made on a picture the camera did not track (an uploaded photo) is carried over
  to the camera's tile at the same place when the picture has the size of the camera's frames
  (a frozen camera frame); otherwise nobody can tell which tile it meant, and the merged
  Scene says in its warnings that it no longer applies (never silently).

Lines entered by hand are not touched here: the round keeps them (`rounds.lines_by_hand`) and
the camera then updates the tiles only (`dominocam.server.game.record_camera_update`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dominocam.vision import messages
from dominocam.vision.notes import note, notes_json, notes_of

# `MergedTable.kept` of a tile a person deleted as no tile.
DELETED = "deleted"


@dataclass(frozen=True)
class MergedTable:
    """The camera's table with people's corrections applied.

    Attributes:
        scene: the Scene dict to store for the round.
        kept: track id -> what a person said that stands over the camera's reading of that
            tile ("5-6" for a corrected value, "deleted" for a tile deleted as false).
    """

    scene: dict[str, Any]
    kept: dict[int, str] = field(default_factory=dict)


def refresh_totals(scene: dict[str, Any]) -> None:
    """Recount the face-down tiles and the pip total of the face-up ones."""
    tiles = scene.get("tiles") or []
    scene["face_down"] = sum(1 for t in tiles if t.get("face") == "down")
    scene["pip_total"] = sum(sum(t["pips"]) for t in tiles if t.get("face") == "up" and t["pips"])


def refresh_open_ends(scene: dict[str, Any]) -> None:
    """Recompute each line's open-end value from its (corrected) last two tiles."""
    by_id = {t.get("id"): t for t in scene.get("tiles") or []}
    layout = scene.get("layout") or {}
    ends = []
    for line in layout.get("lines") or []:
        ids = line.get("tiles") or []
        end = line.get("open_end")
        if not ids or not isinstance(end, dict):
            continue
        last = by_id.get(ids[-1])
        if not last or not last.get("pips"):
            continue
        low, high = last["pips"]
        value = end.get("value")
        if len(ids) >= 2 and by_id.get(ids[-2], {}).get("pips"):
            prev = by_id[ids[-2]]["pips"]
            if low in prev and high not in prev:
                value = high
            elif (high in prev and low not in prev) or low == high:
                value = low
        elif value not in (low, high):
            value = high
        end["value"] = value
        ends.append(value)
    if ends:
        layout["open_ends"] = ends


def drop_from_lines(scene: dict[str, Any], tile_ids: set[int]) -> None:
    """Take tiles out of the layout's lines (a tile deleted as false)."""
    for line in (scene.get("layout") or {}).get("lines") or []:
        line["tiles"] = [t for t in line.get("tiles") or [] if t not in tile_ids]


def _inside(point: tuple[float, float], corners: Sequence[Sequence[float]]) -> bool:
    """Whether `point` lies in the convex quadrilateral `corners` (either winding)."""
    signs = []
    for i in range(4):
        (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
        signs.append((x1 - x0) * (point[1] - y0) - (y1 - y0) * (point[0] - x0) >= 0)
    return all(signs) or not any(signs)


def _centre(corners: Sequence[Sequence[float]]) -> tuple[float, float]:
    return sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4


def _track_at(camera_tiles: list[Mapping[str, Any]], corners: object) -> int | None:
    """The track of the camera tile whose box holds the centre of `corners`, if any."""
    if not isinstance(corners, list) or len(corners) != 4:
        return None
    centre = _centre(corners)
    for tile in camera_tiles:
        box = tile.get("corners")
        if isinstance(box, list) and len(box) == 4 and _inside(centre, box):
            return int(tile["track"])
    return None


def _pips_text(pips: Sequence[int]) -> str:
    return f"{pips[0]}-{pips[1]}"


def merge_camera_scene(stored: Mapping[str, Any] | None, camera: Mapping[str, Any]) -> MergedTable:
    """The camera's confirmed table with what people said about its tiles (module docstring).

    Args:
        stored: the round's current Scene dict (a photo's, or the camera's merged before), or
            None when the round has none yet.
        camera: the tracker's Scene dict; every tile carries its `track`.
    """
    stored = stored or {}
    camera_tiles = [t for t in camera.get("tiles") or [] if t.get("track") is not None]
    # Positions only mean the same tile in a picture of the camera's own frame size.
    same_frame = stored.get("image") == camera.get("image")
    warnings: list[str] = []

    def track_of(tile: Mapping[str, Any]) -> int | None:
        if tile.get("track") is not None:
            return int(tile["track"])
        return _track_at(camera_tiles, tile.get("corners")) if same_frame else None

    fixed: dict[int, list[int]] = {}
    for tile in stored.get("tiles") or []:
        if not tile.get("corrected") or not tile.get("pips"):
            continue
        track = track_of(tile)
        if track is None and tile.get("track") is None:
            warnings.append(
                note(messages.CORRECTION_UNMATCHED, tile=tile.get("id"), pips=list(tile["pips"]))
            )
        elif track is not None:
            fixed[track] = list(tile["pips"])
    deleted: set[int] = set()
    for correction in stored.get("corrections") or []:
        if correction.get("action") != "delete":
            continue
        track = track_of(correction)
        if track is not None:
            deleted.add(track)
        elif correction.get("track") is None:
            warnings.append(note(messages.DELETION_UNMATCHED, tile=correction.get("tile")))

    seen = {int(t["track"]) for t in camera_tiles}
    scene = {k: copy.deepcopy(v) for k, v in camera.items() if k != "events"}
    tiles: list[dict[str, Any]] = []
    for tile in camera_tiles:
        track = int(tile["track"])
        if track in deleted:
            continue
        tile = dict(tile)
        if track in fixed:
            tile.update(face="up", pips=fixed[track], corrected=True)
        tiles.append(tile)
    drop_from_lines(scene, {int(t["id"]) for t in camera_tiles if int(t["track"]) in deleted})

    # Tiles added by hand stay until the camera reads the same tile.
    read = {tuple(t["pips"]) for t in tiles if t.get("face") == "up" and t.get("pips")}
    next_id = max((int(t["id"]) for t in tiles), default=-1) + 1
    for tile in stored.get("tiles") or []:
        if tile.get("added") and tile.get("track") is None and tuple(tile["pips"]) not in read:
            tiles.append(dict(tile, id=next_id))
            next_id += 1

    scene["tiles"] = tiles
    # Corrected values live on their tiles; deleted tiles only here, by track.
    scene["corrections"] = [
        {"track": track, "action": "delete"} for track in sorted(deleted & seen)
    ]
    merged = [*notes_of(camera), *warnings]
    scene["warnings"] = [str(w) for w in merged]
    scene["notes"] = notes_json(merged)
    refresh_open_ends(scene)
    refresh_totals(scene)
    kept = {track: _pips_text(pips) for track, pips in fixed.items() if track in seen}
    kept.update({track: DELETED for track in deleted & seen})
    return MergedTable(scene, kept)
