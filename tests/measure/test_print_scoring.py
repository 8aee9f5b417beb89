"""`synthetic_print`: a printed domino among a Scene's tiles is counted, a real tile is not;
and `dominocam eval --synthetic-print` measures a rendered print set end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dominocam.measure.evaluate import SET_FOLDER, SETS, run_eval, sets_to_run
from dominocam.measure.scoring import SetResult, scene_predictions, score_print_image
from dominocam.vision.scene import Scene, SceneTile
from dominosynth.config import CONFIGS
from dominosynth.generate import generate


def box(x: float, y: float, length: float = 60.0) -> np.ndarray:
    """A tile-shaped box lying along x, its top-left corner at (x, y)."""
    w = length / 2
    return np.array([[x, y + w], [x, y], [x + length, y], [x + length, y + w]], float)


REAL = box(100, 100)
PRINTED = [box(300, 100), box(300, 200)]
TRUTH = [{"face": "up", "pips": (2, 5), "corners": REAL, "readable": True}]


def scene(*tiles: tuple[np.ndarray, tuple[int, int], bool]) -> Scene:
    return Scene(
        640,
        480,
        [
            SceneTile(i, "up", corners, 0.9, pips, doubtful=doubtful)
            for i, (corners, pips, doubtful) in enumerate(tiles)
        ],
    )


def score(result: SetResult, name: str, read: Scene) -> None:
    score_print_image(
        result,
        name,
        TRUTH,
        PRINTED,
        scene_predictions(read),
        [t.doubtful for t in read.tiles],
    )


def test_a_printed_domino_read_as_a_tile_is_counted_and_the_real_tile_is_not():
    result = SetResult("synthetic_print")
    clean = scene((REAL + 2, (2, 5), False))  # the real tile only, a little off
    fooled = scene(
        (REAL, (2, 5), False),
        (PRINTED[0] + 3, (1, 1), False),  # a printed domino read as a tile
        (PRINTED[1], (4, 4), True),  # another, but doubtful
    )
    score(result, "clean.jpg", clean)
    score(result, "fooled.jpg", fooled)
    m = result.metrics()
    assert (m["no_printed_tile"].k, m["no_printed_tile"].n) == (1, 2)
    assert (m["no_printed_tile_undoubted"].k, m["no_printed_tile_undoubted"].n) == (1, 2)
    assert (m["printed_read_as_tile"].k, m["printed_read_as_tile"].n) == (2, 4)
    assert (m["printed_tile_doubtful"].k, m["printed_tile_doubtful"].n) == (1, 2)
    # the real tile is found in both pictures: the printed reads are extra boxes
    assert (m["detection_recall"].k, m["detection_recall"].n) == (2, 2)
    assert (m["detection_precision"].k, m["detection_precision"].n) == (2, 4)
    assert m["no_printed_tile"].interval[0] < 0.5 < m["no_printed_tile"].interval[1]
    assert any("2 printed dominoes read as tiles (1 doubtful)" in f.lines for f in result.failures)


def test_only_doubtful_printed_reads_leave_the_undoubted_figure_whole():
    result = SetResult("synthetic_print")
    score(result, "doubt.jpg", scene((REAL, (2, 5), False), (PRINTED[0], (1, 1), True)))
    m = result.metrics()
    assert m["no_printed_tile"].k == 0 and m["no_printed_tile_undoubted"].k == 1


def test_a_picture_without_print_is_not_counted_for_the_print_figures():
    result = SetResult("synthetic_print")
    read = scene((REAL, (2, 5), False))
    score_print_image(result, "plain.jpg", TRUTH, [], scene_predictions(read), [False])
    assert "no_printed_tile" not in result.metrics()
    assert result.metrics()["detection_recall"].k == 1


def test_the_print_set_has_its_own_folder_flag(tmp_path: Path):
    assert "synthetic_print" in SETS and SET_FOLDER["synthetic_print"] == "synthetic_print"
    assert sets_to_run(SETS, tmp_path, None) == ["synthetic", "synthetic_halves", "synthetic_tiles"]
    assert sets_to_run(SETS, None, None, tmp_path) == ["synthetic_print"]


def test_eval_measures_a_rendered_print_set_with_the_committed_models(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    root = tmp_path / "print"
    generate(root, 4, 217, 480, 288, "mixed", 12, CONFIGS["print"], val_fraction=0.5,
             progress=False)  # fmt: skip
    results = run_eval(None, None, sets=["synthetic_print"], quiet=True, synthetic_print=root)
    result = results["synthetic_print"]
    assert result.images == 2
    shown = sum(
        bool(json.loads((root / "truth" / f"{p.stem}.json").read_text())["printed"])
        for p in (root / "detector" / "images" / "val").glob("*.jpg")
    )
    metrics = result.metrics()
    assert shown and metrics["no_printed_tile"].n == shown
    assert metrics["printed_read_as_tile"].n > 0 and "detection_recall" in metrics
