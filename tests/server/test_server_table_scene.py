"""The corrections rule on Scene dicts (server.table_scene), without a database."""

from __future__ import annotations

from typing import Any

from server_factories import row_box

from dominocam.server.table_scene import merge_camera_scene


def _tile(tile_id: int, pips: list[int], x: float, **marks: Any) -> dict[str, Any]:
    return {"id": tile_id, "face": "up", "pips": pips, "corners": row_box(x), **marks}


def _scene(tiles: list[dict[str, Any]], width: int = 600, **extra: Any) -> dict[str, Any]:
    return {
        "image": {"width": width, "height": 200},
        "tiles": tiles,
        "layout": {"lines": [], "open_ends": []},
        "warnings": [],
        **extra,
    }


CAMERA = _scene([_tile(0, [0, 3], 40, track=7), _tile(1, [3, 5], 124, track=9)], events=[{}])


def test_without_a_stored_scene_the_camera_table_is_taken_as_it_is() -> None:
    merged = merge_camera_scene(None, CAMERA)
    assert [t["pips"] for t in merged.scene["tiles"]] == [[0, 3], [3, 5]]
    assert "events" not in merged.scene and merged.kept == {}
    assert merged.scene["pip_total"] == 11 and merged.scene["face_down"] == 0


def test_a_frozen_frames_corrections_follow_the_tiles_by_place() -> None:
    photo = _scene(
        [_tile(0, [0, 4], 40, corrected=True), _tile(5, [6, 6], 400, added=True)],
        corrections=[{"tile": 1, "action": "delete", "corners": row_box(124)}],
    )
    merged = merge_camera_scene(photo, CAMERA)
    assert [(t["pips"], t.get("track")) for t in merged.scene["tiles"]] == [
        ([0, 4], 7),
        ([6, 6], None),
    ]
    assert merged.kept == {7: "0-4", 9: "deleted"}
    assert merged.scene["corrections"] == [{"track": 9, "action": "delete"}]
    assert merged.scene["warnings"] == []


def test_corrections_the_camera_cannot_place_are_flagged_not_dropped_silently() -> None:
    photo = _scene(
        [_tile(0, [0, 4], 40, corrected=True)],
        width=1000,
        corrections=[{"tile": 1, "action": "delete", "corners": row_box(124)}],
    )
    merged = merge_camera_scene(photo, CAMERA)
    assert [t["pips"] for t in merged.scene["tiles"]] == [[0, 3], [3, 5]]
    assert len(merged.scene["warnings"]) == 2 and merged.kept == {}
