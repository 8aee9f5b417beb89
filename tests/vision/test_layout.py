"""Layout reconstruction on hand-placed tiles: every kind of contact and every failure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.layout import LayoutConfig, LayoutTile, build_layout, find_contacts, layout_scene
from vision.scene import Scene, SceneTile

WIDTH = 40.0  # px; tiles are 2:1, so 80 px long


def tile_at(
    tile_id: int, x: float, y: float, degrees: float, halves: tuple[int, int]
) -> LayoutTile:
    """A tile centred at (x, y) whose half 0 points along `degrees` (0 = right, 90 = down)."""
    a = math.radians(degrees)
    axis = np.array([math.cos(a), math.sin(a)])
    normal = np.array([-axis[1], axis[0]])
    centre = np.array([x, y])
    end0, end1 = centre + axis * WIDTH, centre - axis * WIDTH
    corners = [
        end0 + normal * WIDTH / 2,
        end0 - normal * WIDTH / 2,
        end1 - normal * WIDTH / 2,
        end1 + normal * WIDTH / 2,
    ]
    return LayoutTile(tile_id, np.array(corners), halves)


def horizontal_chain(values: list[int], gap: float = 6.0, y: float = 300.0) -> list[LayoutTile]:
    """Tiles left to right, each showing values[i] on its left and values[i+1] on its right."""
    step = 2 * WIDTH + gap
    return [
        tile_at(i, 100 + i * step, y, 180.0, (values[i], values[i + 1]))
        for i in range(len(values) - 1)
    ]


def open_end_values(tiles: list[LayoutTile], **config) -> list[int]:
    return sorted(build_layout(tiles, LayoutConfig(**config)).layout.open_ends)


@pytest.mark.parametrize("gap", [0.0, 6.0, 15.0])
def test_straight_chain_has_its_two_free_halves_as_open_ends(gap: float) -> None:
    assert open_end_values(horizontal_chain([0, 1, 2, 3], gap=gap)) == [0, 3]


def test_gap_wider_than_tolerance_separates_tiles() -> None:
    found = build_layout(horizontal_chain([0, 1, 2], gap=30.0))  # 0.75 widths
    assert found.layout.lines == []
    assert sorted(found.loose) == [0, 1]


@pytest.mark.parametrize("rotation", [0, 37, 90, 145, 200, 300])
def test_result_does_not_depend_on_the_rotation_of_the_photo(rotation: float) -> None:
    tiles = horizontal_chain([4, 1, 2, 6])
    a = math.radians(rotation)
    turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    rotated = [LayoutTile(t.id, (t.corners - 300) @ turn.T + 300, t.halves) for t in tiles]
    assert open_end_values(rotated) == [4, 6]


def test_lines_start_at_the_root_and_end_at_an_open_end() -> None:
    found = build_layout(horizontal_chain([0, 1, 2, 3, 4]))
    assert len(found.roots) == 1
    root = found.roots[0]
    assert all(line.tiles[0] == root for line in found.layout.lines)
    for line in found.layout.lines:
        assert line.open_end is not None and line.open_end.tile == line.tiles[-1]
    covered = {t for line in found.layout.lines for t in line.tiles}
    assert covered == {0, 1, 2, 3}


def test_crosswise_double_in_a_line_is_the_root_and_passes_its_value_through() -> None:
    left = tile_at(0, 100, 300, 180, (3, 5))  # half 3 on the left, 5 on the right
    double = tile_at(1, 163, 300, 90, (5, 5))  # crosswise: long axis vertical, 40 wide
    right = tile_at(2, 226, 300, 0, (2, 5))  # half 2 on the right, 5 on the left
    found = build_layout([left, double, right])
    assert found.roots == (1,)
    assert sorted(found.layout.open_ends) == [2, 3]


def test_double_in_line_end_to_end() -> None:
    assert open_end_values(horizontal_chain([1, 3, 3, 5])) == [1, 5]


def test_spinner_with_four_arms_has_four_open_ends() -> None:
    spinner = tile_at(0, 300, 300, 90, (6, 6))  # long axis vertical: sides face left/right
    arms = [
        tile_at(1, 300 - 20 - 3 - 40, 300, 180, (1, 6)),  # on the left side
        tile_at(2, 300 + 20 + 3 + 40, 300, 0, (2, 6)),  # on the right side
        tile_at(3, 300, 300 + 40 + 3 + 40, 90, (3, 6)),  # below its end
        tile_at(4, 300, 300 - 40 - 3 - 40, 270, (4, 6)),  # above its other end
    ]
    found = build_layout([spinner, *arms])
    assert found.roots == (0,)
    assert sorted(found.layout.open_ends) == [1, 2, 3, 4]
    assert len(found.layout.lines) == 4


def test_crosswise_double_ends_are_open_only_for_spinner_variants() -> None:
    spinner = tile_at(0, 300, 300, 90, (6, 6))
    arm = tile_at(1, 300 - 20 - 3 - 40, 300, 180, (1, 6))
    assert open_end_values([spinner, arm]) == [1, 6]
    assert open_end_values([spinner, arm], spinner_doubles=True) == [1, 6, 6, 6]


def test_line_turning_a_corner_uses_the_end_it_turns_from() -> None:
    # A horizontal 1-2 with its 2 on the right; 2-4 hangs down from under the 2 half.
    top = tile_at(0, 100, 100, 180, (1, 2))
    down = tile_at(1, 120, 100 + 20 + 3 + 40, 90, (4, 2))  # half 2 at its top end
    found = build_layout([top, down])
    assert sorted(found.layout.open_ends) == [1, 4]
    assert found.warnings == ()


def test_touching_halves_that_differ_are_a_warning_not_a_line() -> None:
    tiles = horizontal_chain([0, 1, 2])
    tiles[1] = LayoutTile(1, tiles[1].corners, (5, 2))  # its 5 now faces the other's 1
    found = build_layout(tiles)
    assert found.layout.lines == []
    assert len(found.warnings) == 1
    assert "tiles 0 and 1" in found.warnings[0] or "tiles 1 and 0" in found.warnings[0]


def test_loose_tiles_and_a_line_together() -> None:
    tiles = [*horizontal_chain([2, 4, 6]), tile_at(10, 600, 600, 45, (6, 6))]
    found = build_layout(tiles)
    assert found.loose == (10,)
    assert sorted(found.layout.open_ends) == [2, 6]


def test_chicken_foot_toes_all_link_to_the_double() -> None:
    double = tile_at(0, 300, 300, 90, (5, 5))  # sides face left and right
    incoming = tile_at(1, 300 - 20 - 3 - 40, 300, 180, (1, 5))
    # Three toes side by side against the double's right side, 5 px apart.
    toes = [
        tile_at(2 + i, 300 + 20 + 3 + 40, 300 + dy, 0, (v, 5))
        for i, (dy, v) in enumerate([(-45, 2), (0, 3), (45, 4)])
    ]
    found = build_layout([double, incoming, *toes])
    assert sorted(found.layout.open_ends) == [1, 2, 3, 4]
    assert found.loose == ()


def test_contacts_report_the_met_half_and_gap_in_tile_widths() -> None:
    contacts = find_contacts(horizontal_chain([0, 1, 2], gap=8.0))
    assert {(c.tile, c.half, c.other, c.other_half) for c in contacts} == {
        (0, 1, 1, 0),
        (1, 0, 0, 1),
    }
    assert all(abs(c.gap - 0.2) < 1e-6 for c in contacts)


def test_duplicate_ids_are_rejected() -> None:
    tiles = horizontal_chain([0, 1, 2])
    with pytest.raises(ValueError, match="unique"):
        build_layout([tiles[0], LayoutTile(0, tiles[1].corners, (1, 2))])


def test_layout_scene_fills_the_scene_json_layout() -> None:
    tiles = [
        SceneTile(t.id, "up", t.corners, 0.9, pips=tuple(sorted(t.halves)))
        for t in horizontal_chain([0, 1, 2])
    ]
    # Scene tiles carry their lower value at corners[0]; the chain already has it there.
    data = layout_scene(Scene(640, 480, tiles)).to_dict()["layout"]
    assert sorted(data["open_ends"]) == [0, 2]
    line = data["lines"][0]
    assert set(line["open_end"]) == {"tile", "value", "point"}
