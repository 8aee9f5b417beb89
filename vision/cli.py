"""`dominocam read` and `dominocam bench`.

Cheap to import: OpenCV and onnxruntime are imported inside the command functions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dominocam.errors import UserInputError

SETS: tuple[int, ...] = (6, 9, 12, 15)
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff"}


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT like 1280x720, got {text!r}"
        ) from error
    if w <= 0 or h <= 0:
        raise argparse.ArgumentTypeError(f"sizes must be positive, got {text!r}")
    return w, h


def _model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--detector",
        metavar="PATH",
        help="detector ONNX file (default: models/detector.onnx or $DOMINOCAM_MODELS)",
    )
    parser.add_argument(
        "--reader",
        metavar="PATH",
        help="reader ONNX file (default: models/reader.onnx or $DOMINOCAM_MODELS)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help="onnxruntime threads (default: all cores)",
    )
    parser.add_argument(
        "--no-closeups",
        action="store_true",
        help="skip the second look at a picture with few boxes, framed by grey, that finds a "
        "tile filling the frame (a close-up); faster on such pictures",
    )
    parser.add_argument(
        "--no-far-tiles",
        action="store_true",
        help="skip the second look, in four overlapping windows at about twice the scale, at "
        "a photo whose tiles are small (a whole table from afar): such a photo is read about "
        "3x faster, but its tiles under about 40 px are then often missed",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `read` and `bench` to the `dominocam` parser."""
    read = subparsers.add_parser(
        "read",
        help="read table or hand photos into Scenes",
        description=(
            "Find every tile (face up or down) in each photo, read both halves of the face-up "
            "ones, and print a Scene: a short summary, or with --json the Scene JSON of "
            "DESIGN.md (one object per line, each with its `path`, for several images)."
        ),
    )
    read.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    read.add_argument(
        "--set", type=int, default=12, choices=SETS, help="the set's highest value (default 12)"
    )
    read.add_argument("--json", action="store_true", help="print Scene JSON, one line per image")
    read.add_argument(
        "--annotate",
        metavar="OUT",
        help="save the photo with boxes and values drawn (a .png/.jpg file, or a folder)",
    )
    read.add_argument(
        "--conf", type=float, default=0.25, help="detector confidence threshold (default 0.25)"
    )
    _model_flags(read)
    read.set_defaults(func=run_read)

    bench = subparsers.add_parser(
        "bench",
        help="time each stage of reading a photo",
        description=(
            "Time decode image, detect (preprocess / forward / postprocess), read, joint "
            "decode, layout and the total on a synthetic table rendered by dominosynth (fixed "
            "seed), as median and p90 over repeated runs, and the total as a ratio to the "
            "detector's bare ONNX forward pass."
        ),
    )
    bench.add_argument(
        "--sizes",
        type=_size,
        nargs="+",
        default=[(1280, 720), (1920, 1080)],
        metavar="WxH",
        help="table image sizes (default 1280x720 1920x1080)",
    )
    bench.add_argument("--tiles", type=int, default=36, help="tiles on the table (default 36)")
    bench.add_argument("--runs", type=int, default=20, help="timed runs per size (default 20)")
    bench.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    bench.add_argument(
        "--image", metavar="PATH", help="time this photo instead of a synthetic table"
    )
    bench.add_argument(
        "--set", type=int, default=12, choices=SETS, help="the set's highest value (default 12)"
    )
    bench.add_argument("--json", action="store_true", help="print the results as JSON")
    _model_flags(bench)
    bench.set_defaults(func=run_bench)


def _annotate_target(out: str, image: Path, several: bool) -> Path:
    target = Path(out)
    if several or target.is_dir() or target.suffix.lower() not in IMAGE_SUFFIXES:
        target.mkdir(parents=True, exist_ok=True)
        return target / f"{image.stem}.annotated.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def _summary(path: str, scene: Any) -> str:
    up = [t for t in scene.tiles if t.face == "up"]
    reads = ", ".join(
        f"{t.pips[0]}-{t.pips[1]}" + ("?" if t.doubtful else "") for t in up if t.pips is not None
    )
    lines = [
        f"{path}: {len(scene.tiles)} tiles ({len(up)} face up, {scene.face_down} face down), "
        f"pip total {scene.pip_total}"
    ]
    if reads:
        lines.append(f"  face up: {reads}")
    if scene.rejected:
        lines.append(f"  left out as probably not tiles: {len(scene.rejected)} boxes")
    if scene.needs_review:
        lines.append("  needs review: a person should check this reading (reasons below)")
    lines += [f"  warning: {w}" for w in scene.warnings]
    return "\n".join(lines)


def run_read(args: argparse.Namespace) -> int:
    """`dominocam read`: exit 0, or 2 when an image could not be read (others still are)."""
    import cv2
    from tqdm import tqdm

    from vision.annotate import annotate
    from vision.image_io import load_image
    from vision.pipeline import load_models, read_image

    if args.threads is not None and args.threads < 1:
        raise UserInputError("--threads must be at least 1")
    models = load_models(args.detector, args.reader, threads=args.threads, conf=args.conf)
    several = len(args.images) > 1
    failed = 0
    for name in tqdm(args.images, unit="image", disable=None if several else True, file=sys.stderr):
        try:
            image = load_image(name)
        except UserInputError as error:
            if not several:
                raise
            failed += 1
            tqdm.write(f"dominocam: error: {error}", file=sys.stderr)
            continue
        scene = read_image(
            image,
            models.detector,
            models.reader,
            args.set,
            closeups=not args.no_closeups,
            far_tiles=not args.no_far_tiles,
            calibration=models.calibration,
        )
        if args.json:
            print(json.dumps({"path": name, **scene.to_dict()}), flush=True)
        else:
            tqdm.write(_summary(name, scene), file=sys.stdout)
        if args.annotate:
            target = _annotate_target(args.annotate, Path(name), several)
            if not cv2.imwrite(str(target), annotate(image, scene)):
                raise UserInputError(f"cannot write the annotated image {target}")
    return 2 if failed else 0


def run_bench(args: argparse.Namespace) -> int:
    """`dominocam bench`."""
    from vision.bench import bench_size, format_table
    from vision.image_io import load_image
    from vision.pipeline import load_models

    if args.runs < 1 or args.warmup < 0 or args.tiles < 1:
        raise UserInputError("--runs and --tiles must be at least 1, --warmup at least 0")
    models = load_models(args.detector, args.reader, threads=args.threads)
    results = []
    if args.image:
        image = load_image(args.image)
        h, w = image.shape[:2]
        results.append(
            bench_size(
                models, w, h, runs=args.runs, warmup=args.warmup, set_max=args.set, image=image
            )
        )
    else:
        for w, h in args.sizes:
            results.append(
                bench_size(
                    models,
                    w,
                    h,
                    n_tiles=args.tiles,
                    runs=args.runs,
                    warmup=args.warmup,
                    set_max=args.set,
                )
            )
    report = {
        "detector": models.detector.describe(),
        "reader": str(models.reader.path),
        "threads": args.threads,
        "results": results,
    }
    if args.json:
        print(json.dumps(report))
    else:
        det = models.detector
        rdr = models.reader
        print(
            f"detector {det.path.name} (input {det.imgsz[1]}x{det.imgsz[0]}), "
            f"reader {rdr.path.name} (input {rdr.side}x{rdr.side})"
        )
        print(format_table(results))
    return 0
