"""Layout reconstruction on hand-placed tiles: every kind of contact and every failure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dominocam.vision.layout import (
    GAP_MAY_HOLD_TILE,
    LayoutConfig,
    LayoutTile,
    build_layout,
    find_contacts,
    free_stretch,
    game_layout_config,
    gap_boxes,
    layout_scene,
    safe_adjacency,
    set_down_side_by_side,
    touching_halves,
)
from dominocam.vision.scene import Scene, SceneTile

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


def chicken_foot(toe_values: list[int], double: int = 5) -> list[LayoutTile]:
    """A double crosswise at (300, 300), reached from the left by a 1-5, and its toes as
    Chicken Foot lays them: one straight on, two diagonal from its far corners (45 deg)."""
    tiles = [
        tile_at(0, 300, 300, 90, (double, double)),  # long axis vertical
        tile_at(1, 300 - 20 - 3 - 40, 300, 180, (1, double)),
    ]
    c45 = math.cos(math.radians(45))
    toes = [
        (300 + 20 + 3 + 40, 300, 0.0),  # straight on from the right side
        # diagonal: inner end at the side's corner region, pointing 45 deg away
        (300 + 20 + 10 + 40 * c45, 300 - 40 - 40 * c45 + 10, -45.0),
        (300 + 20 + 10 + 40 * c45, 300 + 40 + 40 * c45 - 10, 45.0),
    ]
    for i, value in enumerate(toe_values):
        x, y, degrees = toes[i]
        # half 0 points away from the double (value), half 1 faces it (double)
        tiles.append(tile_at(2 + i, x, y, degrees, (value, double)))
    return tiles


def test_chicken_foot_toes_all_link_to_the_double() -> None:
    found = build_layout(chicken_foot([2, 3, 4]), LayoutConfig(kind="chicken"))
    assert found.loose == ()
    # As the root, the double's four places all carry a tile (the 1-5 and three toes).
    assert sorted(found.layout.open_ends) == [1, 2, 3, 4]
    assert {frozenset(p) for p in found.links} == {frozenset((0, t)) for t in (1, 2, 3, 4)}


def test_chicken_foot_double_in_a_line_closes_it_and_waits_for_three_toes() -> None:
    # 6-6 spinner root, an arm 6-5 then a 5-5 double with one toe 5-2 straight on.
    root = tile_at(0, 100, 300, 90, (6, 6))
    arm = tile_at(1, 100 + 20 + 3 + 40, 300, 0, (5, 6))  # 6 faces the root
    double = tile_at(2, 100 + 20 + 3 + 80 + 3 + 20, 300, 90, (5, 5))
    toe = tile_at(3, 226 + 20 + 3 + 40, 300, 0, (2, 5))
    config = LayoutConfig(kind="chicken", hub_value=6)
    found = build_layout([root, arm, double, toe], config)
    assert found.roots == (0,)
    # root: 3 unplayed arms (6); the 5-5 has two toes to go (5, 5); the toe shows 2.
    assert sorted(found.layout.open_ends) == [2, 5, 5, 6, 6, 6]
    closed = [line.tiles for line in found.layout.lines if line.open_end is None]
    assert closed == [[0, 1, 2]]  # the arm closes at the double; its toes go on
    # Without knowing the centre double, the 5-5 (more links) is taken as the root: the
    # open ends are the same (4 places less 2 played = 3 toes less 1 played, plus 1).
    other = build_layout([root, arm, double, toe], LayoutConfig(kind="chicken"))
    assert sorted(other.layout.open_ends) == [2, 5, 5, 6, 6, 6]


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


# --- failure classes found on synthetic tables (dominocam layout-eval) -------------


def test_an_end_beside_a_side_it_does_not_face_is_no_contact() -> None:
    # A horizontal 3-0 whose 0 end meets the side of a vertical 0-4 below a 12-x tile:
    # the end lies against the 0-4 only; the 12 above must not be taken as its neighbour.
    line_end = tile_at(0, 100, 300, 180, (3, 0))  # 0 at its right end, x = 140
    below = tile_at(1, 140 + 3 + 20, 300 + 20, 270, (0, 4))  # 0 half up, at y 280..320
    above = tile_at(2, 163, 300 - 20 - 3 - 40 - 20, 270, (12, 1))
    found = build_layout([line_end, below, above])
    assert sorted(found.layout.open_ends) == [3, 4]
    assert found.warnings == ()


def test_a_skewed_loose_tile_at_a_doubles_end_is_not_played_on_it() -> None:
    chain = [tile_at(0, 100, 300, 180, (3, 11)), tile_at(1, 163, 300, 90, (11, 11))]
    # A loose 7-11 turned 20 degrees, its 11 against the double's lower end.
    loose = tile_at(2, 163 + 10, 300 + 40 + 3 + 40, 110, (7, 11))
    loose = LayoutTile(2, loose.corners, (11, 7))
    found = build_layout([*chain, loose])
    assert found.loose == (2,)
    assert sorted(found.layout.open_ends) == [3, 11]


def tilted(tiles: list[LayoutTile], tilt_deg: float = 35.0) -> list[LayoutTile]:
    """The tiles as a camera tilted about the x axis sees them (a homography)."""
    t = math.radians(tilt_deg)
    h = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(t), 0.0], [0.0, math.sin(t) / 700, 1.0]])
    out = []
    for tile in tiles:
        pts = np.c_[tile.corners - 300, np.ones(4)] @ h.T
        out.append(LayoutTile(tile.id, pts[:, :2] / pts[:, 2:] + 300, tile.halves))
    return out


def test_crosswise_double_and_corner_under_a_tilted_camera() -> None:
    left = tile_at(0, 100, 300, 180, (3, 5))
    double = tile_at(1, 163, 300, 90, (5, 5))
    right = tile_at(2, 226, 300, 0, (2, 5))
    down = tile_at(3, 246, 300 + 20 + 3 + 40, 90, (4, 2))  # turns down under the 2
    right = LayoutTile(2, right.corners, (5, 2))  # 5 faces the double, 2 at the far end
    right = tile_at(2, 226, 300, 180, (5, 2))
    tiles = tilted([left, double, right, down], 35.0)
    assert open_end_values(tiles) == [3, 4]


def test_a_lone_set_tile_is_the_layout_only_in_a_game() -> None:
    only = [tile_at(0, 300, 300, 0, (2, 9))]
    assert open_end_values(only) == []
    assert open_end_values(only, lone_root=True) == [2, 9]


def test_a_lone_tile_among_loose_ones_is_a_doubt() -> None:
    tiles = [tile_at(0, 320, 240, 0, (2, 9)), tile_at(1, 80, 60, 30, (4, 4))]
    found = build_layout(tiles, LayoutConfig(lone_root=True), image_size=(640, 480))
    assert found.roots == (0,)  # the one nearer the picture's centre
    assert sorted(found.layout.open_ends) == [2, 9]
    assert found.doubts and found.confidence < 1


def test_spinner_kind_counts_unplayed_arms() -> None:
    spinner = tile_at(0, 300, 300, 90, (6, 6))
    arm = tile_at(1, 300 - 20 - 3 - 40, 300, 180, (1, 6))
    assert open_end_values([spinner, arm], kind="spinner") == [1, 6, 6, 6]
    assert open_end_values([spinner], kind="spinner", lone_root=True) == [6, 6, 6, 6]


def mexican_hub(n_trains: int, gap: float = 12.0) -> list[LayoutTile]:
    """A 12-12 engine at (300, 300) and trains radiating at equal angles, each starting
    `gap` px (0.3 widths) beyond the engine's half length from its centre: near, not
    touching, its short sides."""
    tiles = [tile_at(0, 300, 300, 90, (12, 12))]
    for k in range(n_trains):
        a = 2 * math.pi * k / n_trains
        r = WIDTH + gap + WIDTH  # engine half-length (40) + gap + half a train tile (40)
        x, y = 300 + r * math.cos(a), 300 + r * math.sin(a)
        tiles.append(tile_at(1 + k, x, y, math.degrees(a), (k, 12)))  # 12 faces the hub
    return tiles


def test_mexican_trains_start_near_the_engine_without_touching() -> None:
    tiles = mexican_hub(5)
    found = build_layout(tiles, LayoutConfig(kind="mexican", trains=7))
    assert found.roots == (0,)
    assert sorted(found.layout.open_ends) == [0, 1, 2, 3, 4, 12, 12]  # 2 trains to start
    assert all(line.tiles[0] == 0 for line in found.layout.lines)
    # Under another kind the same picture is not a hub: trains that far are loose.
    assert build_layout(tiles, LayoutConfig(kind="line")).layout.open_ends != [0, 1, 2, 3, 4]


def test_mexican_engine_value_picks_the_hub_among_doubles() -> None:
    # The engine 12-12 with one train 12-6, 6-6: two doubles with one link each.
    engine = tile_at(0, 300, 300, 90, (12, 12))
    train = tile_at(1, 300 + 20 + 3 + 40, 300, 180, (12, 6))
    double = tile_at(2, 300 + 20 + 3 + 80 + 3 + 20, 300, 90, (6, 6))
    config = LayoutConfig(kind="mexican", trains=3, hub_value=12)
    found = build_layout([engine, train, double], config, image_size=(900, 600))
    assert found.roots == (0,)
    assert sorted(found.layout.open_ends) == [6, 12, 12]


# --- doubts: a missing tile must not pass silently ---------------------------------------------


def test_a_missing_tile_in_a_line_is_a_doubt() -> None:
    tiles = horizontal_chain([0, 1, 2, 3, 4, 5])
    del tiles[2]  # 2-3 not detected: 0-1, 1-2 | gap | 3-4, 4-5
    found = build_layout(tiles)
    assert found.doubts
    assert found.confidence < 1


def test_a_missing_tile_before_a_single_tile_is_a_doubt() -> None:
    tiles = horizontal_chain([0, 1, 2, 3, 4])
    del tiles[2]  # 2-3 missed: the last tile 3-4 stands alone beyond the open end 2
    found = build_layout(tiles)
    assert any("beyond the open end" in d for d in found.doubts)


@pytest.mark.parametrize("room", [0.0, 0.15, 0.4])
def test_a_tile_too_close_to_an_open_end_to_leave_room_for_one_is_not_a_missing_tile(
    room: float,
) -> None:
    tiles = horizontal_chain([0, 1, 2, 3])  # the open end 3 is tile 2's right end
    end = tiles[-1].corners[:, 0].max()
    # A loose 5-6 in line beyond it, `room` widths away: no tile fits in between.
    tiles.append(tile_at(9, end + room * WIDTH + WIDTH, 300.0, 180.0, (5, 6)))
    found = build_layout(tiles)
    assert not any("beyond the open end" in d for d in found.doubts)


@pytest.mark.parametrize("room", [0.6, 1.2, 2.2])
def test_a_tile_beyond_an_open_end_with_room_for_a_missing_one_is_a_doubt(room: float) -> None:
    tiles = horizontal_chain([0, 1, 2, 3])
    end = tiles[-1].corners[:, 0].max()
    tiles.append(tile_at(9, end + room * WIDTH + WIDTH, 300.0, 180.0, (5, 6)))
    found = build_layout(tiles)
    assert any(
        "tile 9 lies about one tile beyond the open end on tile 2" in d for d in found.doubts
    )


def _tile_beyond_with_room(room: float) -> list[LayoutTile]:
    """A chain 0-1, 1-2, 2-3 (open end 3 at tile 2's right) and a loose 5-6 in line
    `room` widths beyond it."""
    tiles = horizontal_chain([0, 1, 2, 3])
    end = tiles[-1].corners[:, 0].max()
    return [*tiles, tile_at(9, end + room * WIDTH + WIDTH, 300.0, 180.0, (5, 6))]


@pytest.mark.parametrize(
    "score, doubt",
    [(0.0, False), (GAP_MAY_HOLD_TILE - 0.001, False), (GAP_MAY_HOLD_TILE, True), (0.9, True)],
)
def test_a_tile_beyond_an_open_end_is_a_doubt_only_where_the_gap_may_hold_a_tile(
    score: float, doubt: bool
) -> None:
    looked_at: list[np.ndarray] = []

    def gap_check(boxes: np.ndarray) -> float:
        looked_at.append(boxes)
        return score

    found = build_layout(_tile_beyond_with_room(2.2), gap_check=gap_check)
    beyond = [d for d in found.doubts if "beyond the open end" in d]
    assert bool(beyond) is doubt
    assert len(looked_at) == 1  # the one open end with a tile beyond it
    # Every box lies in the gap between the open end (x = 312) and the loose tile (x = 400).
    gap = looked_at[0]
    assert gap.shape[1:] == (4, 2) and len(gap) >= 2
    centres = gap.mean(axis=1)
    assert np.all((centres[:, 0] > 312.0) & (centres[:, 0] < 400.0))
    assert np.allclose(centres[:, 1], 300.0)


def test_without_a_look_at_the_gap_the_doubt_stays() -> None:
    # A Scene JSON laid out again has no photo to look at: the doubt is kept, not guessed away.
    found = build_layout(_tile_beyond_with_room(2.2), gap_check=None)
    assert any(
        "tile 9 lies about one tile beyond the open end on tile 2" in d for d in found.doubts
    )


def test_a_tile_set_down_against_the_open_end_fills_the_room_before_a_tile_beyond() -> None:
    # 0-1, 1-2, then a 4-5 against the 2 and a 6-3 after it: nothing can be missing between
    # tile 1 and tile 3, tile 2 lies there (its not matching is what is said).
    tiles = horizontal_chain([0, 1, 2, 3, 4])
    tiles[2] = LayoutTile(2, tiles[2].corners, (4, 5))
    tiles[3] = LayoutTile(3, tiles[3].corners, (6, 3))
    found = build_layout(tiles, gap_check=lambda boxes: 1.0)
    assert not any("beyond the open end" in d for d in found.doubts)
    assert any("tiles 1 and 2 touch without matching" in d for d in found.doubts)
    # Without tile 2 the room is empty again, and tile 3 lies beyond it.
    alone = build_layout([t for t in tiles if t.id != 2], gap_check=lambda boxes: 1.0)
    assert any(
        "tile 3 lies about one tile beyond the open end on tile 1" in d for d in alone.doubts
    )


def test_the_gap_looked_at_is_the_part_of_the_room_no_tile_fills() -> None:
    # A double set crosswise against the open end (x 314..354, not matching) leaves 46 px,
    # over a width, free before the loose tile at x = 400: a tile may still be missing there.
    tiles = [*_tile_beyond_with_room(2.2), tile_at(7, 334.0, 300.0, 90.0, (5, 5))]
    looked_at: list[np.ndarray] = []
    found = build_layout(tiles, gap_check=lambda boxes: looked_at.append(boxes) or 1.0)
    assert any(
        "tile 9 lies about one tile beyond the open end on tile 2" in d for d in found.doubts
    )
    centres = looked_at[0].mean(axis=1)
    assert np.all((centres[:, 0] > 354.0) & (centres[:, 0] < 400.0))


def _box(x0: float, x1: float, y: float = 0.0, half: float = 5.0) -> np.ndarray:
    return np.array([[x0, y - half], [x0, y + half], [x1, y + half], [x1, y - half]])


def test_free_stretch_is_the_longest_part_of_the_room_no_tile_in_the_way_covers() -> None:
    point, outward, width = np.zeros(2), np.array([1.0, 0.0]), 10.0
    assert free_stretch(np.zeros((0, 4, 2)), point, outward, width, 40.0) == (0.0, 40.0)
    # A tile set down against the end, 20 px long: the free part starts behind it.
    assert free_stretch(_box(1, 21)[None], point, outward, width, 40.0) == (21.0, 19.0)
    # Two tiles in the way: of the stretches before, between and after them (1, 3 and 7 px),
    # the longest.
    two = np.stack([_box(1, 21), _box(24, 33)])
    assert free_stretch(two, point, outward, width, 40.0) == (33.0, 7.0)
    # Beside the corridor (centre more than half a width off its axis): not in the way.
    assert free_stretch(_box(1, 21, y=6.0)[None], point, outward, width, 40.0) == (0.0, 40.0)
    assert free_stretch(_box(1, 21, y=5.0)[None], point, outward, width, 40.0) == (21.0, 19.0)
    # A box reaching back over the end by more than the boxes' edge error (a quarter
    # width) disagrees with the end's box: it fills nothing. Within that error it does.
    assert free_stretch(_box(-3, 17)[None], point, outward, width, 40.0) == (0.0, 40.0)
    assert free_stretch(_box(-2, 18)[None], point, outward, width, 40.0) == (18.0, 22.0)


def test_gap_boxes_are_tile_sized_crosswise_and_in_line_along_the_gap() -> None:
    boxes = gap_boxes(np.array([0.0, 0.0]), np.array([1.0, 0.0]), 2.5 * WIDTH, 2 * WIDTH, WIDTH)
    centres = boxes.mean(axis=1)
    short = np.linalg.norm(boxes[:, 1] - boxes[:, 0], axis=1)
    long = np.linalg.norm(boxes[:, 2] - boxes[:, 1], axis=1)
    assert np.allclose(short, WIDTH) and np.allclose(long, 2 * WIDTH)
    # The box's long axis runs from corners[0]-[1] to corners[2]-[3], as a detected tile's.
    axis = (boxes[:, 2] + boxes[:, 3]) / 2 - (boxes[:, 0] + boxes[:, 1]) / 2
    crosswise = np.abs(axis[:, 1]) > np.abs(axis[:, 0])
    # Crosswise doubles every half width from 0.5 to 2.0 widths; tiles in line at 1.0, 1.5.
    assert np.allclose(sorted(centres[crosswise, 0] / WIDTH), [0.5, 1.0, 1.5, 2.0])
    assert np.allclose(sorted(centres[~crosswise, 0] / WIDTH), [1.0, 1.5])
    # A gap narrower than a tile still gets one box of each kind.
    narrow = gap_boxes(np.array([0.0, 0.0]), np.array([0.0, 1.0]), 0.6 * WIDTH, 2 * WIDTH, WIDTH)
    assert len(narrow) == 2


def test_touching_halves_that_differ_at_an_open_end_are_a_doubt() -> None:
    tiles = horizontal_chain([0, 1, 2, 3])
    tiles[2] = LayoutTile(2, tiles[2].corners, (5, 3))  # misread: its 5 touches the 2
    found = build_layout(tiles)
    assert any("touch without matching" in d for d in found.doubts)


def test_a_misread_that_breaks_a_line_is_a_doubt_in_a_photo_of_no_named_game_too() -> None:
    tiles = horizontal_chain([0, 1, 2, 3])
    tiles[2] = LayoutTile(2, tiles[2].corners, (5, 3))  # one link (0-1), one pair differs
    found = build_layout(tiles, LayoutConfig(kind="auto"))
    assert any("tiles 1 and 2 touch without matching" in d for d in found.doubts)


def _set_down_row() -> list[LayoutTile]:
    """Four tiles set down end to end in a row: 0-1 and 1-2 match by chance, then 2 meets 4
    and 5 meets 6 (one link, two pairs that differ)."""
    tiles = horizontal_chain([0, 1, 2, 3, 4])
    tiles[2] = LayoutTile(2, tiles[2].corners, (4, 5))
    tiles[3] = LayoutTile(3, tiles[3].corners, (6, 3))
    return tiles


def test_tiles_set_down_side_by_side_are_no_broken_line_in_a_photo_of_no_named_game() -> None:
    found = build_layout(_set_down_row(), LayoutConfig(kind="auto"))
    assert not any("touch without matching" in d for d in found.doubts)
    # The pairs that differ are still said, as tiles that are not a played line.
    assert sum("which do not match" in w for w in found.warnings) == 2
    assert sorted(found.layout.open_ends) == [0, 2]


@pytest.mark.parametrize("config", [LayoutConfig(), LayoutConfig(kind="auto", set_down_ratio=None)])
def test_a_named_game_or_the_rule_off_keeps_the_doubt_on_the_same_tiles(config) -> None:
    # A game's table holds played lines: a pair that differs at an open end is a misread.
    found = build_layout(_set_down_row(), config)
    assert any("tiles 1 and 2 touch without matching" in d for d in found.doubts)


def test_set_down_needs_more_pairs_that_differ_than_links() -> None:
    auto = LayoutConfig(kind="auto")
    assert not set_down_side_by_side(links=1, mismatches=1, config=auto)
    assert set_down_side_by_side(links=1, mismatches=2, config=auto)
    assert set_down_side_by_side(links=0, mismatches=1, config=auto)
    assert not set_down_side_by_side(links=0, mismatches=0, config=auto)
    assert not set_down_side_by_side(links=1, mismatches=5, config=LayoutConfig(kind="line"))
    assert set_down_side_by_side(3, 5, LayoutConfig(kind="auto", set_down_ratio=1.5))
    assert not set_down_side_by_side(4, 5, LayoutConfig(kind="auto", set_down_ratio=1.5))
    with pytest.raises(ValueError):
        LayoutConfig(set_down_ratio=-1.0)


def test_an_open_end_cut_by_the_border_is_a_doubt() -> None:
    tiles = horizontal_chain([0, 1, 2])
    tiles[1] = LayoutTile(1, tiles[1].corners, tiles[1].halves, cut=True)
    assert any("cut by the image border" in d for d in build_layout(tiles).doubts)


def test_a_complete_layout_has_no_doubt() -> None:
    found = build_layout(horizontal_chain([0, 1, 2, 3]))
    assert found.doubts == () and found.confidence == 1.0


def test_layout_scene_keeps_kind_root_doubts_and_confidence_in_json() -> None:
    tiles = [
        SceneTile(t.id, "up", t.corners, 0.9, pips=tuple(sorted(t.halves)))
        for t in horizontal_chain([0, 1, 2])
    ]
    scene = layout_scene(Scene(640, 480, tiles), LayoutConfig(kind="line"))
    data = scene.to_dict()["layout"]
    assert data["kind"] == "line" and data["root"] in (0, 1)
    assert data["doubts"] == [] and data["confidence"] == 1.0
    again = Scene.from_dict(scene.to_dict())
    assert again.layout.kind == "line" and again.layout.confidence == 1.0


# --- the joint decoding hook -------------------------------------------------------------------


def read_scene(probs: list[np.ndarray], chain: list[LayoutTile]) -> Scene:
    """A Scene of read tiles with given half probabilities, decoded on their own."""
    from dominocam.vision.decode import joint_decode

    tiles = [
        SceneTile(t.id, "up", t.corners, 0.9, half_probs=p)
        for t, p in zip(chain, probs, strict=True)
    ]
    decoded, _ = joint_decode(tiles, 6)
    return Scene(640, 480, decoded)


def one_hot(a: int, b: int, p: float = 0.98) -> np.ndarray:
    out = np.full((2, 7), (1 - p) / 6)
    out[0, a] = p
    out[1, b] = p
    return out


def test_touching_halves_lists_each_contact_once() -> None:
    chain = horizontal_chain([0, 1, 2])
    scene = read_scene([one_hot(0, 1), one_hot(1, 2)], chain)
    pairs = touching_halves(scene)
    assert len(pairs) == 1
    (a, _), (b, _) = pairs[0]
    assert {a, b} == {0, 1}
    tiles = {t.id: t for t in scene.tiles}
    assert tiles[a].pips is not None and tiles[b].pips is not None


def test_safe_adjacency_corrects_a_doubtful_read_that_fits_its_neighbour() -> None:
    from dominocam.vision.decode import joint_decode

    chain = horizontal_chain([0, 1, 2])  # tile 1 shows 1|2; its 1 touches tile 0's 1
    doubtful = one_hot(4, 2)
    doubtful[0] = [0.01, 0.40, 0.01, 0.01, 0.55, 0.01, 0.01]  # 4 (0.55) or 1 (0.40)
    scene = read_scene([one_hot(0, 1), doubtful], chain)
    assert scene.tiles[1].pips == (2, 4)  # read alone: 4-2
    constraints = safe_adjacency(scene)
    assert constraints
    fixed, warnings = joint_decode(scene.tiles, 6, constraints)
    assert fixed[1].pips == (1, 2)
    assert any("touching half" in w for w in warnings)


def test_safe_adjacency_never_forces_two_confident_reads() -> None:
    chain = horizontal_chain([0, 1, 2])
    scene = read_scene([one_hot(0, 1), one_hot(5, 2)], chain)  # 1 against a sure 5
    assert touching_halves(scene)  # they touch ...
    assert safe_adjacency(scene) == []  # ... but two sure reads are two loose tiles


def test_safe_adjacency_skips_reads_that_already_agree() -> None:
    chain = horizontal_chain([0, 1, 2])
    scene = read_scene([one_hot(0, 1), one_hot(1, 2, p=0.6)], chain)
    assert safe_adjacency(scene) == []


def test_which_double_is_the_spinner_may_be_a_guess() -> None:
    # 4-4 | 4-1 | 1-1: either double could be the spinner with one arm; the open ends differ.
    tiles = [
        tile_at(0, 100, 300, 0, (4, 4)),
        tile_at(1, 186, 300, 180, (4, 1)),
        tile_at(2, 186 + 40 + 3 + 20, 300, 90, (1, 1)),
    ]
    found = build_layout(tiles, LayoutConfig(kind="spinner"), image_size=(400, 600))
    assert any("spinner is a guess" in d for d in found.doubts)


def test_a_line_that_comes_back_to_touch_itself_is_a_doubt() -> None:
    # A pinwheel of four tiles around a square hole, each end against the next one's side:
    # the last end touches the first tile with a matching value.
    tiles = [
        tile_at(0, 240, 220, 180, (1, 2)),  # top: 1 left, 2 right
        tile_at(1, 303, 240, 90, (3, 2)),  # right: 2 up (against the top's end), 3 down
        tile_at(2, 283, 303, 180, (4, 3)),  # bottom: 3 right, 4 left
        tile_at(3, 220, 283, 270, (1, 4)),  # left: 4 down, 1 up (against the top's 1)
    ]
    found = build_layout(tiles)
    assert any("close a loop" in d for d in found.doubts)


@pytest.mark.parametrize(
    ("variant", "players", "engine", "kind", "trains", "hub"),
    [
        ("block", 4, None, "line", None, None),
        ("all-fives", 4, None, "spinner", None, None),
        ("mexican-train", 4, 12, "mexican", 5, 12),
        ("chicken-foot", 3, 9, "chicken", None, 9),
        ("mexican-train", None, None, "mexican", None, None),
    ],
)
def test_a_games_variant_picks_the_layout_kind(variant, players, engine, kind, trains, hub) -> None:
    config = game_layout_config(variant, players, engine)
    assert (config.kind, config.trains, config.hub_value) == (kind, trains, hub)
    assert config.lone_root  # a game's table holds a layout


def test_the_layout_kind_is_the_variants_own() -> None:
    from dominocam.rules.variants import VARIANTS
    from dominocam.vision.layout import layout_kind

    for name, variant in VARIANTS.items():
        assert layout_kind(name) == variant.layout
    assert layout_kind("spinner") == "spinner"  # a kind names itself
    assert layout_kind("no-such-game") == "line"


# --- `auto`: the shape from the photo alone (no variant named) -----------------------------


def t_junction() -> list[LayoutTile]:
    """[2/1] upright; [5|2] and [2|6] end against the two long sides of its 2-half; [1/4]
    stands under its 1-half. Free ends 5, 6 and 4: a T at a tile that is not a double."""
    gap = 3.0
    return [
        tile_at(0, 300, 300, -90, (2, 1)),  # the 2-half spans y 260..300
        tile_at(1, 280 - WIDTH - gap, 280, 0, (2, 5)),
        tile_at(2, 320 + WIDTH + gap, 280, 180, (2, 6)),
        tile_at(3, 300, 340 + WIDTH + gap, -90, (1, 4)),
    ]


def cross(arms: int) -> list[LayoutTile]:
    """A double 3-3 with `arms` of its four places played (left, right, top, bottom)."""
    gap = 3.0
    places = [
        ((280 - WIDTH - gap, 300), 0, (3, 1)),
        ((320 + WIDTH + gap, 300), 180, (3, 2)),
        ((300, 260 - WIDTH - gap), 90, (3, 4)),
        ((300, 340 + WIDTH + gap), -90, (3, 5)),
    ]
    tiles = [tile_at(0, 300, 300, 90, (3, 3))]
    for i, ((x, y), degrees, halves) in enumerate(places[:arms]):
        tiles.append(tile_at(i + 1, x, y, degrees, halves))
    return tiles


def test_auto_finds_a_t_junction_at_a_tile_that_is_not_a_double() -> None:
    found = build_layout(t_junction(), LayoutConfig(kind="auto"))
    assert sorted(found.layout.open_ends) == [4, 5, 6]
    assert found.loose == () and found.doubts == ()
    # Told nothing, a line game's rules would leave one of the two side tiles unplayed.
    assert open_end_values(t_junction(), kind="line") != [4, 5, 6]


@pytest.mark.parametrize(("arms", "ends"), [(4, [1, 2, 4, 5]), (3, [1, 2, 3, 4]), (2, [1, 2])])
def test_auto_tells_a_cross_and_a_spinner_from_a_double_in_a_line(arms, ends) -> None:
    # Four arms: a cross, nothing free at the double. Three: a spinner, one place still free
    # (it shows 3). Two: a double lying crosswise in a line, whose ends are not free.
    assert open_end_values(cross(arms), kind="auto") == ends


def test_auto_counts_the_free_ends_of_every_played_group() -> None:
    left = horizontal_chain([0, 1, 2], y=100)
    right = [
        LayoutTile(t.id + 10, t.corners + np.array([0, 300]), t.halves)
        for t in horizontal_chain([4, 5, 6], y=100)
    ]
    found = build_layout(left + right, LayoutConfig(kind="auto"))
    assert sorted(found.layout.open_ends) == [0, 2, 4, 6]
    assert not any("apart from the layout" in d for d in found.doubts)


def test_tiles_that_touch_without_matching_are_not_a_played_line() -> None:
    tiles = [tile_at(0, 100, 300, 180, (1, 2)), tile_at(1, 186, 300, 180, (4, 5))]
    found = build_layout(tiles, LayoutConfig(kind="auto"))
    assert found.layout.lines == [] and sorted(found.loose) == [0, 1]
    assert len(found.warnings) == 1
    assert "do not match: they are not a played line" in found.warnings[0]


def test_auto_reads_a_straight_line_as_a_line() -> None:
    assert open_end_values(horizontal_chain([0, 1, 2, 3]), kind="auto") == [0, 3]
    double_in_line = horizontal_chain([0, 1, 1, 2])  # the 1-1 lies in line
    assert open_end_values(double_in_line, kind="auto") == [0, 2]
