"""`dominocam bench`: per-stage latency of the runtime on a rendered synthetic table.

Stages: decode image (JPEG bytes -> array), detect split into preprocess / forward /
postprocess, read (rectify + batched reader call), decode (joint decoding), layout (lines and
open ends), and the total;
each as median and p90 over repeated runs. The total is also given as a ratio to the bare
detector forward pass, so that results compare across machines.

The table is rendered by `dominosynth` (the training data generator, part of the same
distribution; the runtime pipeline itself never imports it): one fixed seed, a spinner layout
with loose tiles and a face-down boneyard, in the generator's `clean` look, tiles a sixteenth
of the image width long so that every size shows the same table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from dominocam.vision.image_io import decode_image
from dominocam.vision.pipeline import STAGES
from dominocam.vision.reading import PhotoReader

if TYPE_CHECKING:
    from dominosynth.config import SynthConfig

STAGE_ORDER: tuple[str, ...] = ("decode_image", *STAGES, "total")

# The seed of the benchmark table: 36 tiles, all inside the picture, tiles at many angles.
BENCH_SEED = 5
# Tile length in pixels per pixel of image width (80 px at 1280x720).
TILE_LENGTH_PER_WIDTH = 1 / 16


@dataclass(frozen=True)
class BenchTable:
    """A rendered benchmark table and where its tiles lie.

    Attributes:
        image: BGR uint8 (height, width, 3).
        corners: (N, 4, 2) float64 corners of every tile drawn, image pixels, in the tile
            convention of `dominocam.vision.geometry`.
        face_up: (N,) bool, True for a face-up tile.
    """

    image: np.ndarray
    corners: np.ndarray
    face_up: np.ndarray

    def __post_init__(self) -> None:
        if self.image.ndim != 3 or self.image.shape[2] != 3 or self.image.dtype != np.uint8:
            raise ValueError(
                f"expected a BGR uint8 image, got {self.image.dtype} {self.image.shape}"
            )
        if self.corners.shape != (len(self.face_up), 4, 2):
            raise ValueError(
                f"corners must be ({len(self.face_up)}, 4, 2), got {self.corners.shape}"
            )


def bench_config(width: int, n_tiles: int) -> SynthConfig:
    """dominosynth's `clean` configuration narrowed to one kind of table of about `n_tiles`
    tiles: a sixth face down in a boneyard, a ninth loose, the rest played (spinner)."""
    # Lazy: timing a given photo (`--image`) never loads the generator
    # (tests/measure/test_bench.py).
    from dominosynth.config import CONFIGS

    face_down, loose = n_tiles // 6, n_tiles // 9
    played = max(1, n_tiles - face_down - loose)
    tile_px = width * TILE_LENGTH_PER_WIDTH
    return dataclasses.replace(
        CONFIGS["clean"],
        name="bench",
        variant_weights={"spinner": 1.0},
        layout_tiles=(played, played),
        loose_tiles=(loose, loose),
        boneyard_tiles=(face_down, face_down),
        boneyard_stack_p=0.0,
        tile_px_log_table=(tile_px, tile_px),
    )


def bench_table(
    width: int = 1280,
    height: int = 720,
    n_tiles: int = 36,
    *,
    seed: int = BENCH_SEED,
    set_max: int = 12,
) -> BenchTable:
    """Render the benchmark table with dominosynth (same seed and size, same picture).

    Fewer than `n_tiles` are drawn when the set runs out of tiles or the table of room.
    """
    from dominosynth.generate import Job, make_sample  # lazy, as in `bench_config`

    job = Job("-", 0, seed, width, height, "table", set_max, "val", bench_config(width, n_tiles))
    _, image, truth, *_ = make_sample(job)
    tiles = truth["tiles"]
    corners = np.array([t["corners"] for t in tiles], dtype=np.float64).reshape(-1, 4, 2)
    face_up = np.array([t["face"] == "up" for t in tiles], dtype=bool)
    return BenchTable(image, corners, face_up)


def bench_size(
    reader: PhotoReader,
    width: int,
    height: int,
    *,
    n_tiles: int = 36,
    runs: int = 20,
    warmup: int = 3,
    set_max: int = 12,
    seed: int = BENCH_SEED,
    image: np.ndarray | None = None,
) -> dict[str, Any]:
    """Time the product's reading of a table photo (`reader.read`, as `dominocam read`
    reads) on the benchmark table (`bench_table`) or `image` of the given size.

    Returns:
        {"size": [w, h], "tiles_drawn", "tiles_found", "runs", "stages": {stage: {"median_ms",
        "p90_ms"}}, "ratio_to_forward"} where the ratio is median total / median forward;
        "tiles_drawn" counts the tiles rendered (`n_tiles` when timing a given image).
    """
    if image is None:
        table = bench_table(width, height, n_tiles, seed=seed, set_max=set_max)
        image, n_tiles = table.image, len(table.face_up)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise RuntimeError("could not encode the benchmark image")
    data = encoded.tobytes()
    samples: dict[str, list[float]] = {stage: [] for stage in STAGE_ORDER}
    found = 0
    for run in range(warmup + runs):
        timings: dict[str, float] = {}
        t0 = perf_counter()
        decoded = decode_image(data, "bench.jpg")
        t1 = perf_counter()
        scene = reader.read(decoded, "table", set_max, timings=timings)
        t2 = perf_counter()
        if run < warmup:
            continue
        found = len(scene.tiles)
        timings["decode_image"] = t1 - t0
        timings["total"] = t2 - t0
        for stage in STAGE_ORDER:
            samples[stage].append(timings.get(stage, 0.0) * 1000.0)
    stages = {
        stage: {
            "median_ms": round(float(np.median(values)), 3),
            "p90_ms": round(float(np.percentile(values, 90)), 3),
        }
        for stage, values in samples.items()
    }
    forward = stages["forward"]["median_ms"]
    ratio = stages["total"]["median_ms"] / forward if forward > 0 else None
    return {
        "size": [int(image.shape[1]), int(image.shape[0])],
        "tiles_drawn": n_tiles,
        "tiles_found": found,
        "runs": runs,
        "stages": stages,
        "ratio_to_forward": round(ratio, 3) if ratio is not None else None,
    }


def format_table(results: list[dict[str, Any]]) -> str:
    """A plain-text table of `bench_size` results, one column pair per size."""
    header = ["stage"] + [
        f"{r['size'][0]}x{r['size'][1]} {k}" for r in results for k in ("median", "p90")
    ]
    rows = [header]
    for stage in STAGE_ORDER:
        row = [stage]
        for r in results:
            s = r["stages"][stage]
            row += [f"{s['median_ms']:.1f} ms", f"{s['p90_ms']:.1f} ms"]
        rows.append(row)
    ratio_row = ["total / forward"]
    for r in results:
        ratio = r["ratio_to_forward"]
        ratio_row += [f"{ratio:.2f}" if ratio is not None else "n/a", ""]
    rows.append(ratio_row)
    found_row = ["tiles found/drawn"]
    for r in results:
        found_row += [f"{r['tiles_found']}/{r['tiles_drawn']}", ""]
    rows.append(found_row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)
