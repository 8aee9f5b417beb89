"""Scene JSON -> the rules engine's game state: the one conversion the dashboard
(`dominocam.server.game`) and `dominocam round` share.

Pure Python on plain JSON values (Scene dicts as `dominocam.vision.scene.Scene.to_dict` writes
them), so the server needs neither numpy nor the models to use it.

* A hand: the read face-up tiles of a hand photo (`hand_tiles`).
* The table: the Scene's `layout` (rebuilt by `dominocam.vision.layout`) as rules-engine lines:
  - `layout_lines(scene)`: one line per open end, `{"name", "named": false, "open_end"}` plus
    `"place"` (where its open end lies in the photo, `dominocam.rules.places`) and
    `"open_double": true` when the end is a double other than the root (Mexican Train and
    Chicken Foot must cover it). What the dashboard stores and lets people correct.
  - Every line made here has an id for a name ("line 2", "Ana's train") with
    `"named": false`: no person reads it; the rulings and pages name the line by its open end
    and place ("the 5 at the top right") or its train's owner, in the reader's language.
  - `state_layout(scene)`: the full layout for `rules.parse_state`, with the hub. For the
    spinner and chicken kinds the root double becomes `spinner` and its unplayed arms are
    left to the rules engine (which counts them from the variant); a Chicken Foot double
    that sprouted toes becomes a line `{"open_double": true}` and its toes lines with
    `branch_of`, so the engine knows how many toes it still needs. Mexican Train trains: a
    photo does not say whose train is whose, so without `owners` every train (and every
    unplayed place at the engine) is a public line open to everyone (`ownership_note` says
    so). With `owners` (a train's first tile -> its player, as people tell it: "Ana's train
    starts with 12-5"), the layout gets the `engine` and owned, marked or public trains, and
    the rules engine adds the trains not started yet.
* Doubts (`photo_doubts`, `layout_doubts`): the layout's own doubts plus warnings of any
  scene that say the picture may hide a tile (cut by the border, not read): those whose code
  is one of `dominocam.vision.notes.DOUBT_CODES` (a warning without a code is not one).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from dominocam.errors import Refused
from dominocam.rules.places import place_of
from dominocam.vision.notes import DOUBT_CODES, Note, notes_of

OWNERSHIP_NOTE = (
    "train owners are not read from a photo: every train on the table is taken as open to "
    "all players"
)


def hand_tiles(scene: Mapping[str, Any]) -> list[list[int]]:
    """The read face-up tiles of a hand Scene, as `[a, b]` pairs."""
    return [
        list(t["pips"])
        for t in scene.get("tiles") or []
        if t.get("face") == "up" and t.get("pips") is not None
    ]


def _tiles_by_id(scene: Mapping[str, Any]) -> dict[Any, Mapping[str, Any]]:
    return {t.get("id"): t for t in scene.get("tiles") or []}


def _double_value(tile: Mapping[str, Any] | None) -> int | None:
    """The value of a read double, else None (not a double, not read, no tile)."""
    pips = (tile or {}).get("pips")
    if not pips or pips[0] != pips[1]:
        return None
    return int(pips[0])


def _is_double(tile: Mapping[str, Any] | None) -> bool:
    return _double_value(tile) is not None


def _end_value(line: Mapping[str, Any]) -> int | None:
    end = line.get("open_end")
    value = end.get("value") if isinstance(end, Mapping) else end
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _place(scene: Mapping[str, Any], line: Mapping[str, Any]) -> dict[str, str]:
    """`{"place": code}` for a Scene line whose open end has a point in the photo (where it
    lies, by thirds: `dominocam.rules.places.place_of`), else `{}`."""
    end = line.get("open_end")
    point = end.get("point") if isinstance(end, Mapping) else None
    image = scene.get("image") or {}
    width, height = image.get("width"), image.get("height")
    if not (isinstance(point, list | tuple) and len(point) == 2 and width and height):
        return {}
    return {"place": place_of((float(point[0]), float(point[1])), width, height)}


def _unnamed(name: str, scene: Mapping[str, Any], line: Mapping[str, Any]) -> dict[str, Any]:
    """A rules-engine line's id and place (module docstring): `name` is never shown."""
    return {"name": name, "named": False, **_place(scene, line)}


def layout_lines(scene: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rules-engine lines from a Scene's layout: one line per open end the photo shows."""
    layout = scene.get("layout") or {}
    tiles = _tiles_by_id(scene)
    root = layout.get("root")
    lines: list[dict[str, Any]] = []
    for i, line in enumerate(layout.get("lines") or []):
        value = _end_value(line)
        if value is None:
            continue
        entry = _unnamed(f"line {i + 1}", scene, line)
        entry["open_end"] = value
        end_tile = line["open_end"].get("tile") if isinstance(line["open_end"], Mapping) else None
        if end_tile is not None and end_tile != root and _is_double(tiles.get(end_tile)):
            entry["open_double"] = True
        lines.append(entry)
    if not lines:
        for i, value in enumerate(layout.get("open_ends") or []):
            if isinstance(value, int):
                lines.append({"name": f"end {i + 1}", "named": False, "open_end": value})
    return lines


def state_layout(
    scene: Mapping[str, Any],
    owners: Mapping[tuple[int, int], str | None] | None = None,
    marked: Collection[str] = (),
) -> dict[str, Any]:
    """The game state's `layout` (rules/state.py) for a table Scene (module docstring).

    `owners` maps a Mexican Train train's first tile (sorted pips) to its player, or None
    for the public train; `marked` names the players whose trains carry a marker.
    """
    layout = scene.get("layout") or {}
    kind = layout.get("kind")
    root = layout.get("root")
    tiles = _tiles_by_id(scene)
    root_tile = tiles.get(root)
    value = _double_value(root_tile)
    if kind == "mexican" and owners and value is not None:
        return _owned_trains(scene, tiles, value, owners, set(marked))
    if kind not in ("spinner", "chicken") or value is None:
        return {"lines": layout_lines(scene)}
    out: dict[str, Any] = {"lines": [], "spinner": [value, value]}
    raw = list(layout.get("lines") or [])
    names: dict[int, str] = {}  # a branching double's tile id -> its line's name
    for i, line in enumerate(raw):
        ids = line.get("tiles") or []
        if len(ids) >= 2 and line.get("open_end") is None and _is_double(tiles.get(ids[-1])):
            names[ids[-1]] = f"line {i + 1}"
    for i, line in enumerate(raw):
        ids = list(line.get("tiles") or [])
        if len(ids) <= 1:
            continue  # an unplayed place (arm or toe): the rules engine counts those
        value_end = _end_value(line)
        last = tiles.get(ids[-1])
        entry = _unnamed(f"line {i + 1}", scene, line)
        if value_end is None:
            double = _double_value(last)
            if ids[-1] not in names or double is None:
                continue  # closed for good
            entry["open_end"] = double
            entry["open_double"] = True
        else:
            entry["open_end"] = value_end
            if kind == "chicken" and _is_double(last):
                entry["open_double"] = True
        if ids[0] != root:
            parent = names.get(ids[0])
            if parent is None:
                continue
            entry["branch_of"] = parent
        out["lines"].append(entry)
    # A toe's parent must come before it is referenced; rules resolve by name, any order.
    return out


def train_starts(scene: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The first tile (sorted pips) of every started train of a Mexican Train table."""
    layout = scene.get("layout") or {}
    tiles = _tiles_by_id(scene)
    starts = []
    for line in layout.get("lines") or []:
        ids = line.get("tiles") or []
        pips = (tiles.get(ids[1]) or {}).get("pips") if len(ids) >= 2 else None
        if pips:
            starts.append((min(pips), max(pips)))
    return starts


def _owned_trains(
    scene: Mapping[str, Any],
    tiles: Mapping[int, Mapping[str, Any]],
    engine: int,
    owners: Mapping[tuple[int, int], str | None],
    marked: set[str],
) -> dict[str, Any]:
    layout = scene.get("layout") or {}
    starts = {
        (min(p), max(p))
        for line in layout.get("lines") or []
        if len(line.get("tiles") or []) >= 2
        and (p := (tiles.get(line["tiles"][1]) or {}).get("pips"))
    }
    unknown = [f"{a}-{b}" for a, b in owners if (a, b) not in starts]
    if unknown:
        shown = ", ".join(f"{a}-{b}" for a, b in sorted(starts)) or "none"
        raise Refused(
            f"no train on the table starts with {', '.join(unknown)}; trains start with {shown}",
            "unknown_train",
            tiles=[[a, b] for a, b in owners if (a, b) not in starts],
            starts=[[a, b] for a, b in sorted(starts)],
        )
    out: dict[str, Any] = {"engine": [engine, engine], "lines": []}
    for i, line in enumerate(layout.get("lines") or []):
        ids = list(line.get("tiles") or [])
        value = _end_value(line)
        if len(ids) <= 1 or value is None:
            continue  # an unplayed place: the rules engine adds every train not started
        pips = tiles[ids[1]]["pips"]
        owner = owners.get((min(pips), max(pips)))
        entry = _unnamed(f"{owner}'s train" if owner else f"train {i + 1}", scene, line)
        entry.update(open_end=value, owner=owner, marked=owner in marked)
        if _is_double(tiles.get(ids[-1])):
            entry["open_double"] = True
        out["lines"].append(entry)
    return out


def ownership_note(
    scene: Mapping[str, Any], owners: Mapping[tuple[int, int], str | None] | None = None
) -> str | None:
    """The note on train owners for a Mexican Train table with trains, else None."""
    layout = scene.get("layout") or {}
    if layout.get("kind") != "mexican" or not layout.get("lines"):
        return None
    if not owners:
        return OWNERSHIP_NOTE
    public = [f"{a}-{b}" for a, b in train_starts(scene) if (a, b) not in owners]
    if public:
        return f"no owner given for the train(s) starting with {', '.join(public)}: taken as public"
    return None


def photo_doubts(
    table: Mapping[str, Any], hands: Iterable[Mapping[str, Any]] = ()
) -> list[tuple[str | None, str]]:
    """Why the photos may not show everything, as (photo, warning): the table layout's doubts
    (photo None), then the warnings of the table ("table") and the hands ("hand") whose code
    says a tile may be hidden or unread (`dominocam.vision.notes.DOUBT_CODES`). Each warning is a
    `dominocam.vision.notes.Note` where the Scene JSON gives its code (`notes`)."""
    doubts: list[tuple[str | None, str]] = [
        (None, d) for d in notes_of(table.get("layout") or {}, "doubts")
    ]
    seen = {str(d) for _photo, d in doubts}
    for label, scene in [("table", table), *(("hand", h) for h in hands)]:
        for warning in notes_of(scene):
            if isinstance(warning, Note) and warning.code in DOUBT_CODES:
                key = f"{label}:{warning}"
                if key not in seen and str(warning) not in seen:
                    seen.add(key)
                    doubts.append((label, warning))
    return doubts


def layout_doubts(table: Mapping[str, Any], hands: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    """`photo_doubts` as English text: a photo's warning named by its photo ("table photo:
    tile 3 is cut by the image border")."""
    return [
        str(d) if photo is None else f"{photo} photo: {d}"
        for photo, d in photo_doubts(table, hands)
    ]
