"""`studies.set_down`: the "touch without matching" doubts, their tables' links and pairs
that differ, and what each candidate ratio would drop."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dominocam.vision import messages
from dominocam.vision.layout import AUTO, LayoutConfig, layout_scene
from dominocam.vision.notes import note
from dominocam.vision.scene import Scene, SceneTile
from studies.set_down import Doubt, Picture, no_match_pairs, picture_of, tally


def row_tile(tile_id: int, x: float, halves: tuple[int, int], doubtful: bool = False):
    """A face-up tile 80x40 px centred at (x, 100) showing halves[0] on the left (a Scene
    tile's pips are sorted, its corners turned so that corners[0]-[1] end pips[0])."""
    corners = np.array([[x - 40, 80], [x - 40, 120], [x + 40, 120], [x + 40, 80]], float)
    if halves[0] > halves[1]:
        corners, halves = np.roll(corners, 2, axis=0), (halves[1], halves[0])
    return SceneTile(tile_id, "up", corners, 0.9, pips=halves, doubtful=doubtful)


def set_down_row(doubtful: bool = False) -> Scene:
    """Four tiles end to end: 0-1 matches 1-2, then 2 meets 4 and 5 meets 6; laid out with
    the rule off, and with the reasons the review would add (`dominocam.vision.confidence`)."""
    halves = [(0, 1), (1, 2), (4, 5), (6, 3)]
    tiles = [row_tile(i, 100 + 86 * i, h, doubtful and i == 2) for i, h in enumerate(halves)]
    off = LayoutConfig(kind=AUTO, set_down_ratio=None)
    scene = layout_scene(Scene(640, 480, tiles), off)
    reasons = [note(messages.LAYOUT_DOUBTS)]
    if doubtful:
        reasons.append(note(messages.MAY_BE_MISREAD, tile=(4, 5), id=2))
    return replace(scene, warnings=[*scene.warnings, *reasons])


def test_a_doubt_carries_its_tables_counts_sureness_and_misread() -> None:
    scene = set_down_row()
    assert no_match_pairs(scene) == [(1, 2)]
    labels = [{"corners": t.corners.tolist(), "pips": list(t.pips)} for t in scene.tiles]
    labels[2]["pips"] = [4, 6]  # tile 2 truly shows 4-6: read wrong
    picture = picture_of(scene, labels, exact=False)
    assert picture.doubts == (Doubt(links=1, mismatches=2, sure=True, misread=True),)
    assert picture.only_reason and picture.exact is False
    # Without labelled boxes (real photos) a misread is unknown; a doubtful tile is not sure.
    unsure = picture_of(set_down_row(doubtful=True), None, exact=None)
    assert unsure.doubts == (Doubt(1, 2, sure=False, misread=None),)
    assert not unsure.only_reason  # the doubtful tile asks too


def test_the_rule_on_drops_that_doubt() -> None:
    on = layout_scene(set_down_row(), LayoutConfig(kind=AUTO))
    assert no_match_pairs(on) == []


def test_tally_counts_what_each_ratio_would_drop_and_let_go() -> None:
    pictures = [
        # set down: 1 link, 3 pairs differ; its only reason; read exactly
        Picture((Doubt(1, 3, True, False),), only_reason=True, exact=True),
        # a played line broken by a confident misread: 4 links, 1 pair differs
        Picture((Doubt(4, 1, True, True),), only_reason=True, exact=False),
        # 2 links, 3 pairs differ, misread and sure; something else asks too
        Picture((Doubt(2, 3, True, True), Doubt(2, 3, False, False)), False, None),
        Picture((), only_reason=False, exact=True),  # no such doubt: not counted
    ]
    rows = {row["ratio"]: row for row in tally(pictures)}
    assert rows[1.0] == {
        "ratio": 1.0,
        "doubts": [3, 4],
        "sure": 2,
        "sure_misread": 1,
        "photos_let_go": 1,
        "let_go_exact": [1, 1],
    }
    assert rows[2.0]["doubts"] == [1, 4] and rows[2.0]["sure_misread"] == 0
    assert rows[0.5]["doubts"] == [3, 4]
