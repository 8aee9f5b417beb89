"""Pale tables (`--config pale`): light tiles on light tables, where a tile stands out by its
outline and a faint shadow; the verifier's training pictures for such photos."""

from __future__ import annotations

import cv2
import numpy as np

from dominosynth import backgrounds


def _table_and_tiles(render_sample, config: str) -> tuple[float, float]:
    """Medians over six table pictures: the table's grey level, and how far the tiles' grey
    level lies from it."""
    tables, gaps = [], []
    for index in range(6):
        _jpg, img, _truth, ids, _scene, _rng = render_sample(index, seed=5, config=config)
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
        if not (ids > 0).any():
            continue
        table = float(np.median(grey[ids == 0]))
        tables.append(table)
        gaps.append(abs(float(np.median(grey[ids > 0])) - table))
    return float(np.median(tables)), float(np.median(gaps))


def test_pale_tables_are_lighter_and_their_tiles_stand_out_less(render_sample) -> None:
    pale_table, pale_gap = _table_and_tiles(render_sample, "pale")
    table, gap = _table_and_tiles(render_sample, "default")
    assert pale_table > table + 30, (pale_table, table)
    assert pale_gap < gap, (pale_gap, gap)


def test_white_paper_p_makes_light_plain_surfaces_white_paper() -> None:
    def mean_grey(white_paper_p: float, seed: int) -> float:
        rng = np.random.default_rng(seed)
        surface = backgrounds.texture(rng, "plain", 64, 64, False, 1.0, white_paper_p)
        return float(surface.mean())

    assert all(mean_grey(1.0, seed) > 200 for seed in range(12))
    assert sum(mean_grey(0.5, seed) > 200 for seed in range(12)) < 12
