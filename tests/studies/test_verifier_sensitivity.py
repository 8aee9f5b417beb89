"""`studies.verifier_sensitivity`: the verifier's score of synthetic tile crops after what a
camera does to a picture."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from studies.verifier_sensitivity import CHANGES, format_report, main, sensitivity, tile_crops

BOX = [[60, 40], [100, 40], [100, 120], [60, 120]]


def crops(count: int = 3) -> np.ndarray:
    """Ivory tiles with a dark bar on a brown table, (count, 64, 64, 3) uint8 BGR."""
    out = np.full((count, 64, 64, 3), (30, 40, 60), np.uint8)
    out[:, 8:56, 18:46] = (200, 225, 235)
    out[:, 31:33, 20:44] = 30
    return out


def test_every_change_keeps_the_crops_shape_and_the_first_keeps_them_as_they_are() -> None:
    tiles = crops()
    for name, change in CHANGES.items():
        changed = change(tiles)
        assert changed.shape == tiles.shape and changed.dtype == np.uint8, name
    assert np.array_equal(CHANGES["as rendered"](tiles), tiles)
    assert all(not np.array_equal(change(tiles), tiles) for change in list(CHANGES.values())[1:])


def test_sharpening_overshoots_at_an_edge_and_blur_softens_it() -> None:
    tiles = crops(1)
    sharp = CHANGES["sharpened (unsharp mask 1.0)"](tiles)
    soft = CHANGES["soft (blur 1 px)"](tiles)
    assert sharp[0, 31, 20:44].min() < 30  # the bar darker than it is
    assert sharp[0, 30, 20:44].max() > 235  # the tile beside it lighter
    assert soft[0, 20, 17].mean() > (30 + 40 + 60) / 3  # light spills onto the table


def test_noise_is_the_same_on_every_run() -> None:
    noise = CHANGES["sensor noise (8 grey levels)"]
    assert np.array_equal(noise(crops()), noise(crops()))


def test_rows_count_the_crops_scored_under_the_line() -> None:
    def by_brightness(batch: np.ndarray) -> np.ndarray:
        return np.where(batch.reshape(len(batch), -1).mean(axis=1) > 95, 0.999, 0.9)

    rows = {row["change"]: row for row in sensitivity(crops(), by_brightness)}
    assert rows["as rendered"]["unsure"]["k"] == 0 and rows["as rendered"]["unsure"]["n"] == 3
    assert rows["darker (gamma 1.6)"]["unsure"]["k"] == 3
    assert rows["darker (gamma 1.6)"]["median"] == 0.9
    report = format_report("s", list(rows.values()))
    assert "0/3 0.000" in report and "3/3 1.000" in report


def synth_like(root: Path) -> Path:
    """One picture in the layout of `dominocam synth`: a shown tile and one cut by the border."""
    images = root / "detector" / "images" / "val"
    images.mkdir(parents=True)
    (root / "truth").mkdir()
    picture = np.full((160, 200, 3), 60, np.uint8)
    picture[40:120, 60:100] = 230
    cv2.imwrite(str(images / "000000.jpg"), picture)
    cut = [[-20, 0], [20, 0], [20, 80], [-20, 80]]
    tiles = [
        {"corners": BOX, "face": "up", "pips": [1, 2], "visible_fraction": 1.0},
        {"corners": cut, "face": "up", "pips": [3, 4], "cut_by_border": True},
    ]
    (root / "truth" / "000000.json").write_text(json.dumps({"tiles": tiles, "set": 6}))
    return root


def test_only_scored_tiles_are_cut(tmp_path: Path) -> None:
    found = tile_crops(synth_like(tmp_path), "val", 10, 64)
    assert found.shape == (1, 64, 64, 3)
    assert found[0, 32, 32].mean() > 200  # the tile's middle


def test_the_command_line_scores_with_the_committed_verifier(tmp_path: Path, capsys) -> None:
    assert main(["--synthetic", f"{synth_like(tmp_path)}:val", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["change"] for row in rows] == list(CHANGES)
    assert all(row["unsure"]["n"] == 1 for row in rows)


def test_a_folder_without_tiles_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--synthetic", str(tmp_path)])
    assert stop.value.code == 2
