"""`dominocam read`.

Cheap to import: OpenCV and onnxruntime are imported inside the command functions.

Without `--set`, the set is not assumed to be double-12: each photo is read as the smallest
standard set that holds the highest value the reader sees in it, and in the photos read
before it in the same run (the photos of one run are nearly always of one set, and a set only
grows: at most three photos of a run are read twice). The summary, and `--json`'s `set` and
`set_assumed`, say which set each photo was read as.
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
from dominocam.rules.places import place_words
from dominocam.rules.tiles import SUPPORTED_SETS
from dominocam.vision.annotate import annotate
from dominocam.vision.image_io import IMAGE_SUFFIXES, load_image
from dominocam.vision.notes import Note, detail_text, player_text
from dominocam.vision.settings import DETECTOR_CONF


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `read` to the `dominocam` parser."""
    read = subparsers.add_parser(
        "read",
        help="read table or hand photos into Scenes",
        description=(
            "Find every tile (face up or down) in each photo, read both halves of the face-up "
            "ones, and print a Scene: a short summary (tiles, open ends, the set assumed, "
            "what to check), or with --json the Scene JSON: each tile's corners, face and "
            "values, the lines and open ends, the warnings and beside them their codes "
            "(`notes`: code, parameters, English text) (one object per line, each with "
            "its `path`, for several images). With more than one photo a "
            "progress bar runs on standard error when it is a terminal."
        ),
    )
    read.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    add_set(
        read,
        SUPPORTED_SETS,
        default=None,
        unset=(
            "default: the smallest of 6, 9, 12, 15 that holds the highest value read, "
            "said in the summary"
        ),
    )
    read.add_argument(
        "--hand",
        action="store_true",
        help=(
            "the photos show a player's hand (tiles side by side, not played): no lines, no "
            "open ends and no warnings about how tiles are played"
        ),
    )
    read.add_argument("--json", action="store_true", help="print Scene JSON, one line per image")
    read.add_argument(
        "--annotate",
        metavar="OUT",
        help="save the photo with boxes and values drawn (a .png/.jpg file, or a folder)",
    )
    progress = read.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress",
        action="store_true",
        default=None,
        help=(
            "always show the progress bar on standard error (default: with more than one "
            "photo, when standard error is a terminal)"
        ),
    )
    progress.add_argument("--quiet", dest="progress", action="store_false", help="no progress bar")
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


def open_ends_words(scene: Any) -> str | None:
    """The open ends of a table Scene with where each lies ("5 at the top right, 3 on the
    left"); "none" when every line is closed; None when the Scene has no lines."""
    lines = scene.layout.lines
    if not lines:
        return None
    ends = [
        f"{line.open_end.value} {place_words(line.open_end.point, scene.width, scene.height)}"
        for line in lines
        if line.open_end is not None
    ]
    return ", ".join(ends) if ends else "none (every line is closed)"


def smallest_set(value: int) -> int:
    """The smallest standard set (`dominocam.rules.tiles.SUPPORTED_SETS`) that holds `value`; the
    largest when none does."""
    return next((s for s in SUPPORTED_SETS if s >= value), SUPPORTED_SETS[-1])


def highest_value_read(scene: Any) -> int | None:
    """The highest pip value the reader saw on a face-up tile of `scene`: each half's most
    likely value among all the reader reads, before the set limits it; None without one."""
    import numpy as np

    highest: int | None = None
    for tile in scene.tiles:
        if tile.face != "up":
            continue
        if tile.half_probs is not None:
            value = int(np.argmax(np.asarray(tile.half_probs), axis=1).max())
        elif tile.pips is not None:
            value = max(tile.pips)
        else:
            continue
        highest = value if highest is None else max(highest, value)
    return highest


def _summary(
    path: str,
    scene: Any,
    set_max: int,
    assumed: int | None = None,
    *,
    hand: bool = False,
    so_far: bool = False,
) -> str:
    """The summary of one photo; `assumed` is the highest value read when the set was
    assumed from it (-1: none read), None when the set was given; `so_far`: in this photo
    and the ones read before it."""
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
    ends = None if hand else open_ends_words(scene)
    if ends is not None:
        lines.append(f"  open ends: {ends}")
    if assumed is not None:
        where = " so far" if so_far else ""
        why = (
            f"the highest value read{where} is {assumed}"
            if assumed >= 0
            else f"no value read{where}"
        )
        lines.append(f"  set: double-{set_max} (assumed: {why}; give --set N if yours is larger)")
    if scene.rejected:
        lines.append(f"  left out as probably not tiles: {len(scene.rejected)} boxes")
    if scene.needs_review:
        lines.append("  needs review: a person should check this reading (reasons below)")
    # What to check in a player's words, then the reader's own account (vision.notes).
    for warning in scene.notes:
        lines.append(f"  warning: {player_text(warning)}")
        if isinstance(warning, Note):
            lines.append(f"    details: {detail_text(warning)}")
    return "\n".join(lines)


def run_read(args: argparse.Namespace) -> int:
    """`dominocam read`: exit 0, or 2 when an image could not be read (others still are)."""
    import cv2
    from tqdm import tqdm

    from dominocam.vision.reading import PhotoReader

    reader = PhotoReader.load(
        args.detector,
        args.reader,
        threads=args.threads,
        conf=args.conf,
        closeups=not args.no_closeups,
        far_tiles=not args.no_far_tiles,
    )
    several = len(args.images) > 1
    # Without --set: the set grows with the values read (module docstring), from the
    # smallest; never beyond what the reader can read.
    reach = smallest_set(reader.models.reader.num_values - 1)
    set_max = args.set if args.set is not None else SUPPORTED_SETS[0]
    highest = -1
    failed = 0

    def read(image: Any, set_max: int) -> Any:
        # A table photo is laid out as lines of any kind (no game is known); a hand, not.
        return reader.read(image, "hand" if args.hand else "table", set_max)

    # tqdm's disable=None: shown only when standard error is a terminal.
    auto = None if several else True
    disable = auto if args.progress is None else not args.progress
    bar = tqdm(total=len(args.images), unit="photo", disable=disable, file=sys.stderr)
    try:
        for name in args.images:
            try:
                image = load_image(name)
            except UserInputError as error:
                if not several:
                    raise
                failed += 1
                bar.write(f"dominocam: error: {error}", file=sys.stderr)
                bar.update(1)
                continue
            scene = read(image, set_max)
            if args.set is None:
                seen = highest_value_read(scene)
                if seen is not None and seen > highest:
                    highest = seen
                needed = min(max(set_max, smallest_set(max(highest, 0))), reach)
                if needed != set_max:
                    set_max = needed
                    scene = read(image, set_max)
            _print_scene(bar, args, name, scene, set_max, highest, several)
            if args.annotate:
                target = _annotate_target(args.annotate, Path(name), several)
                if not cv2.imwrite(str(target), annotate(image, scene)):
                    raise UserInputError(f"cannot write the annotated image {target}")
            bar.update(1)
    finally:
        bar.close()
    return 2 if failed else 0


def _print_scene(
    bar: Any,
    args: argparse.Namespace,
    name: str,
    scene: Any,
    set_max: int,
    highest: int,
    several: bool,
) -> None:
    """One photo's output on standard output, above the progress bar."""
    assumed = args.set is None
    if args.json:
        record = {"path": name, "set": set_max, "set_assumed": assumed, **scene.to_dict()}
        text = json.dumps(record)
    else:
        seen = highest if assumed else None
        text = _summary(name, scene, set_max, seen, hand=args.hand, so_far=several)
    bar.write(text, file=sys.stdout)
    sys.stdout.flush()
