"""Print scenes (`--config print`, `dominosynth.printed`): printed dominoes are labelled as
what they are, never as tiles, beside real tiles that are; same seed, same picture."""

from __future__ import annotations

import dataclasses
import json

import numpy as np

from dominocam.measure.metrics import boxes_match
from dominosynth.config import CONFIGS
from dominosynth.generate import generate, yolo_lines

PRINT = CONFIGS["print"]
BOARD_AND_LID = dataclasses.replace(PRINT, print_board_p=1.0, print_lid_p=1.0, empty_p=0.0)


def test_printed_dominoes_are_never_tiles_and_real_tiles_beside_them_are(render_sample):
    shown = 0
    for index in range(4):
        _jpg, _img, truth, ids, scene, _rng = render_sample(
            index, seed=3, config=BOARD_AND_LID, size=(960, 540)
        )
        printed = truth["printed"]
        assert {p["on"] for p in printed} <= {"print_board", "print_lid", "picture",
                                              "printed_board", "lettering"}  # fmt: skip
        assert truth["tiles"], "real tiles lie on the board"
        tile_boxes = [np.asarray(t["corners"]) for t in truth["tiles"]]
        rows = yolo_lines(truth, PRINT)
        assert len(rows) == sum(t["visible_fraction"] >= 0.5 for t in truth["tiles"])
        h, w = ids.shape
        for p in printed:
            corners = np.asarray(p["corners"])
            assert corners.shape == (4, 2)
            # no labelled tile lies on a printed domino
            assert not any(boxes_match(t, corners)[0] for t in tile_boxes)
            cx, cy = np.round(corners.mean(axis=0)).astype(int)
            if 0 <= cx < w and 0 <= cy < h and not p["cut_by_border"]:
                assert ids[cy, cx] == 0, "a printed domino's pixels belong to no tile"
                shown += 1
        # the real tiles' pixels are theirs: a tile's centre shows the tile in the id map
        for t in truth["tiles"]:
            if t["visible_fraction"] > 0.9 and not t["cut_by_border"]:
                cx, cy = np.round(np.asarray(t["corners"]).mean(axis=0)).astype(int)
                assert ids[cy, cx] == t["id"] + 1
        boxes = [b for b in scene.boxes if b.printed]
        assert any(b.under for b in boxes), "the board lies under the tiles"
    assert shown > 10


def test_the_board_is_flat_and_drawn_first_and_a_lid_is_a_box(render_sample):
    _jpg, _img, _truth, _ids, scene, _rng = render_sample(1, seed=3, config=BOARD_AND_LID)
    board = [b for b in scene.boxes if str(b.kind) == "print_board"]
    lids = [b for b in scene.boxes if str(b.kind) == "print_lid"]
    assert len(board) == 1 and board[0].thickness <= 2.5 and board[0].tile == -1
    assert all(b.thickness >= 18 and b.tile == -1 for b in lids)


def test_a_print_set_is_the_same_for_the_same_seed(tmp_path):
    def make(folder, seed):
        generate(tmp_path / folder, 3, seed, 320, 192, "mixed", 12, PRINT, progress=False)
        root = tmp_path / folder
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in (".jpg", ".json", ".txt") and p.name != "card.json"
        }

    first, again, other = make("a", 31), make("b", 31), make("c", 32)
    assert first == again
    assert first != other
    truth = [json.loads(v) for k, v in first.items() if k.startswith("truth/")]
    assert any(t["printed"] for t in truth)


def test_configs_without_print_draw_no_print(render_sample):
    assert CONFIGS["default"].print_board_p == CONFIGS["default"].print_lid_p == 0.0
    _jpg, _img, truth, _ids, scene, _rng = render_sample(2, seed=3)
    assert not any(str(b.kind).startswith("print_") for b in scene.boxes)
    assert all(p["on"] not in ("print_board", "print_lid") for p in truth["printed"])
