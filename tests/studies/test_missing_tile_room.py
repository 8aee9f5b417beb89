"""`studies.missing_tile_room`: each "tile beyond the open end" doubt, its room, whether a
labelled tile lies unboxed in it, and what the look at its gap scored."""

from __future__ import annotations

import math

import numpy as np

from dominocam.vision.layout import AUTO, LayoutConfig, layout_scene
from dominocam.vision.scene import Scene, SceneTile
from studies.missing_tile_room import beyond_doubts, edge_errors

WIDTH = 40.0  # px; tiles 80 x 40


def corners_at(x: float, y: float = 300.0, degrees: float = 180.0) -> np.ndarray:
    """A tile's corners centred at (x, y), half 0 pointing along `degrees` (180 = left)."""
    a = math.radians(degrees)
    axis = np.array([math.cos(a), math.sin(a)])
    normal = np.array([-axis[1], axis[0]])
    centre = np.array([x, y])
    end0, end1 = centre + axis * WIDTH, centre - axis * WIDTH
    return np.array(
        [
            end0 + normal * WIDTH / 2,
            end0 - normal * WIDTH / 2,
            end1 - normal * WIDTH / 2,
            end1 + normal * WIDTH / 2,
        ]
    )


def chain_with_a_tile_beyond(room: float) -> Scene:
    """0-1, 1-2, 2-3 left to right, 6 px apart (open end 3 at x = 312), and a loose 5-6 in
    line `room` widths past that end."""
    tiles = [SceneTile(i, "up", corners_at(100 + i * 86), 0.9, pips=(i, i + 1)) for i in range(3)]
    tiles.append(SceneTile(3, "up", corners_at(312 + room * WIDTH + WIDTH), 0.9, pips=(5, 6)))
    return layout_scene(Scene(640, 480, tiles), LayoutConfig(kind=AUTO), lambda boxes: 1.0)


def test_a_doubt_at_a_tile_the_detector_missed_is_scored_with_its_gap() -> None:
    scene = chain_with_a_tile_beyond(2.2)
    missed = {"corners": corners_at(312 + 1.1 * WIDTH).tolist(), "visible_fraction": 1.0}
    looked_at: list[np.ndarray] = []

    def gap_check(boxes: np.ndarray) -> float:
        looked_at.append(boxes)
        return 0.3

    found = beyond_doubts(scene, [missed], gap_check)
    assert found == [{"room_widths": 2.2, "missed_tile": True, "gap": 0.3}]
    centres = looked_at[0].mean(axis=1)
    assert np.all((centres[:, 0] > 312.0) & (centres[:, 0] < 312.0 + 2.2 * WIDTH))


def test_a_doubt_over_bare_table_is_no_missed_tile() -> None:
    scene = chain_with_a_tile_beyond(2.2)
    # The labelled tiles are the ones boxed, and a tile far from the gap.
    labelled = [{"corners": t.corners.tolist(), "visible_fraction": 1.0} for t in scene.tiles]
    labelled.append({"corners": corners_at(500, 100).tolist(), "visible_fraction": 1.0})
    found = beyond_doubts(scene, labelled)
    assert found == [{"room_widths": 2.2, "missed_tile": False, "gap": None}]


def test_a_tile_hidden_all_but_a_sliver_is_not_counted_as_missed() -> None:
    scene = chain_with_a_tile_beyond(2.2)
    hidden = {"corners": corners_at(312 + 1.1 * WIDTH).tolist(), "visible_fraction": 0.2}
    assert beyond_doubts(scene, [hidden])[0]["missed_tile"] is False


def test_end_edge_errors_are_in_widths_along_the_labelled_axis() -> None:
    truth = [{"corners": corners_at(200).tolist(), "cut_by_border": False, "visible_fraction": 1}]
    shifted = corners_at(200) + np.array([4.0, 0.0])  # a box 4 px (0.1 width) to the right
    assert np.allclose(edge_errors(truth, [shifted]), [0.1, 0.1])
