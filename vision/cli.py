"""`dominocam read`.

Cheap to import: OpenCV and onnxruntime are imported inside the command functions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dominocam.arguments import (
    add_conf,
    add_model_files,
    add_second_looks,
    add_set,
    add_threads,
)
from dominocam.errors import UserInputError
from vision.settings import DETECTOR_CONF

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff"}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `read` to the `dominocam` parser."""
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
    add_set(read)
    read.add_argument("--json", action="store_true", help="print Scene JSON, one line per image")
    read.add_argument(
        "--annotate",
        metavar="OUT",
        help="save the photo with boxes and values drawn (a .png/.jpg file, or a folder)",
    )
    add_conf(read, DETECTOR_CONF)
    add_model_files(read)
    add_threads(read)
    add_second_looks(read)
    read.set_defaults(func=run_read)


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
    from vision.reading import PhotoReader

    reader = PhotoReader.load(
        args.detector,
        args.reader,
        threads=args.threads,
        conf=args.conf,
        closeups=not args.no_closeups,
        far_tiles=not args.no_far_tiles,
    )
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
        # A photo of some table or hand: tiles, and lines of any kind (no game is known).
        scene = reader.read(image, "table", args.set)
        if args.json:
            print(json.dumps({"path": name, **scene.to_dict()}), flush=True)
        else:
            tqdm.write(_summary(name, scene), file=sys.stdout)
        if args.annotate:
            target = _annotate_target(args.annotate, Path(name), several)
            if not cv2.imwrite(str(target), annotate(image, scene)):
                raise UserInputError(f"cannot write the annotated image {target}")
    return 2 if failed else 0
