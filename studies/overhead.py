"""Time the runtime around the networks with STAND-IN models, whose forward passes cost nothing.

    python -m studies.overhead [--runs 20] [--threads 2] [--json]

The stand-in detector is a constant graph emitting the raw OBB output a good detector would give for
the bench table (`dominocam.measure.bench.bench_table`, rendered by dominosynth): each tile as ~20
jittered candidates over 8400 anchors at 640 px, so NMS does real work; the stand-in reader is a
one-layer classifier on 64 px half crops. Their forward passes cost almost nothing, so the figures
measure what the pipeline adds to the networks (letterbox, decode, NMS, rectification, batching,
joint decoding, layout), not the networks. With the real models use `dominocam bench` instead. Needs
`onnx` (dev extra).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from dominocam.measure.bench import BenchTable, bench_size, bench_table, format_table
from dominocam.vision import geometry
from dominocam.vision.detector import Detector
from dominocam.vision.pipeline import Models
from dominocam.vision.reader import Reader
from dominocam.vision.reading import PhotoReader

# The stand-in graphs are the tests' (tests/helpers/standin.py, not part of the product); a
# study runs from a checkout, where they lie beside it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "helpers"))
from standin import raw_from_boxes, write_detector, write_reader


def standin_models(
    folder: Path, width: int, height: int, tiles: int, threads: int | None, imgsz: int = 640
) -> tuple[Models, BenchTable]:
    table = bench_table(width, height, tiles)
    _, transform = geometry.letterbox(table.image, imgsz)
    rng = np.random.default_rng(1)
    boxes, classes, scores = [], [], []
    for corners, face_up in zip(table.corners, table.face_up, strict=True):
        box = geometry.corners_to_xywhr(transform.to_input(corners))
        for k in range(20):
            jitter = box + rng.normal(0, [1.0, 1.0, 1.0, 1.0, 0.02]) * (k > 0)
            boxes.append(jitter)
            classes.append(0 if face_up else 1)
            scores.append(0.95 - 0.02 * k)
    raw = raw_from_boxes(np.array(boxes), np.array(classes), np.array(scores), anchors=8400)
    det = write_detector(folder / f"detector_{width}.onnx", raw, imgsz=imgsz)
    rdr = write_reader(folder / "reader.onnx", side=64)
    return Models(Detector(det, threads=threads), Reader(rdr, threads=threads)), table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--tiles", type=int, default=36)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for width, height in ((1280, 720), (1920, 1080)):
            models, table = standin_models(Path(tmp), width, height, args.tiles, args.threads)
            results.append(
                bench_size(
                    PhotoReader(models),
                    width,
                    height,
                    runs=args.runs,
                    warmup=args.warmup,
                    image=table.image,
                )
            )
            results[-1]["tiles_drawn"] = len(table.face_up)
    if args.json:
        print(json.dumps({"standin_models": True, "results": results}))
    else:
        print("STAND-IN models (constant detector output, one-layer reader): pipeline overhead")
        print(format_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
