"""The benchmark table of `dominocam bench`: rendered by dominosynth, fixed, and never pulled
into the runtime pipeline."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from dominocam.measure.bench import bench_config, bench_table


def test_the_bench_table_is_a_full_table_inside_the_picture() -> None:
    table = bench_table(1280, 720)
    assert table.image.shape == (720, 1280, 3) and table.image.dtype == np.uint8
    assert len(table.face_up) >= 30
    assert 0 < (~table.face_up).sum() < len(table.face_up) / 3  # a boneyard, face down
    assert (table.corners >= 0).all()
    assert (table.corners[..., 0] < 1280).all() and (table.corners[..., 1] < 720).all()


def test_the_bench_table_is_the_same_every_time() -> None:
    first, second = bench_table(320, 240, 6), bench_table(320, 240, 6)
    assert np.array_equal(first.image, second.image)
    assert np.array_equal(first.corners, second.corners)


def test_the_bench_config_is_the_clean_look_with_tiles_scaled_to_the_width() -> None:
    small, large = bench_config(1280, 36), bench_config(1920, 36)
    assert small.name == "bench" and small.arm_p == 0 and small.noise_sigma == (0.0, 0.0)
    assert large.tile_px_log_table[0] / small.tile_px_log_table[0] == 1.5
    played, loose, down = small.layout_tiles[0], small.loose_tiles[0], small.boneyard_tiles[0]
    assert played + loose + down == 36


def test_the_pipeline_never_imports_the_generator() -> None:
    code = (
        "import sys, dominocam.vision.pipeline, dominocam.measure.bench; "
        "print('dominosynth' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False", result.stderr
