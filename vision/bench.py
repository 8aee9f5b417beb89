"""`dominocam bench`: per-stage latency of the runtime on synthetic tables.

Stages: decode image (JPEG bytes -> array), detect split into preprocess / forward /
postprocess, read (rectify + batched reader call), decode (joint decoding), layout (lines and
open ends), and the total;
each as median and p90 over repeated runs. The total is also given as a ratio to the bare
detector forward pass, so that results compare across machines.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np

from vision.image_io import decode_image
from vision.pipeline import STAGES, Models, read_image
from vision.synthetic_table import draw_table

STAGE_ORDER: tuple[str, ...] = ("decode_image", *STAGES, "total")


def bench_size(
    models: Models,
    width: int,
    height: int,
    *,
    n_tiles: int = 36,
    runs: int = 20,
    warmup: int = 3,
    set_max: int = 12,
    seed: int = 0,
    image: np.ndarray | None = None,
) -> dict[str, Any]:
    """Time the pipeline on one synthetic table (or `image`) of the given size.

    Returns:
        {"size": [w, h], "tiles_drawn", "tiles_found", "runs", "stages": {stage: {"median_ms",
        "p90_ms"}}, "ratio_to_forward"} where the ratio is median total / median forward.
    """
    import cv2

    if image is None:
        image, _ = draw_table(width, height, n_tiles, seed=seed, set_max=set_max)
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
        scene = read_image(decoded, models.detector, models.reader, set_max, timings=timings)
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
