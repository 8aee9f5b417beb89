"""`dominocam synth`: render a synthetic data set (module import stays light)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from dominocam.errors import UserInputError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `synth` subcommand."""
    p = subparsers.add_parser(
        "synth",
        help="render a synthetic training set (YOLO-OBB, truth JSON, reader crops)",
        description=(
            "Render domino tables and hands with exact labels: DIR/detector (YOLO-OBB with "
            "data.yaml), DIR/truth/*.json, DIR/reader/{train,val}/{value}/*.png, "
            "DIR/contact_sheet.png and DIR/card.json. The same seed gives the same bytes "
            "whatever --workers is."
        ),
    )
    p.add_argument("--out", required=True, help="output folder (created; must be empty or new)")
    p.add_argument("--count", required=True, type=int, help="number of images")
    p.add_argument(
        "--seed", required=True, type=int, help="random seed (images are seeded by seed and index)"
    )
    p.add_argument("--size", default="1280x720", help="image size WxH in pixels (default 1280x720)")
    p.add_argument(
        "--kind", default="mixed", choices=["table", "hand", "mixed"], help="what the pictures show"
    )
    p.add_argument(
        "--set",
        dest="max_pip",
        default=12,
        type=int,
        help="double-n set: 6, 9, 12 or 15 (default 12)",
    )
    p.add_argument(
        "--backgrounds",
        default=None,
        help="folder of background photos to mix with procedural ones",
    )
    p.add_argument("--workers", default=1, type=int, help="worker processes (default 1)")
    p.add_argument(
        "--val-fraction",
        default=0.1,
        type=float,
        help="share of images in the val split (default 0.1)",
    )
    p.add_argument(
        "--config",
        default="default",
        help="configuration name (default, robot, clean) or a YAML file",
    )
    p.add_argument("--force", action="store_true", help="write into a folder that is not empty")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dominosynth.config import load_config
    from dominosynth.generate import generate, parse_size
    from rules.tiles import SUPPORTED_SETS

    if args.count < 1:
        raise UserInputError(f"--count must be at least 1, got {args.count}")
    if args.workers < 1:
        raise UserInputError(f"--workers must be at least 1, got {args.workers}")
    if not 0.0 <= args.val_fraction < 1.0:
        raise UserInputError(f"--val-fraction must be in [0, 1), got {args.val_fraction}")
    if args.max_pip not in SUPPORTED_SETS:
        valid = ", ".join(str(n) for n in SUPPORTED_SETS)
        raise UserInputError(f"unknown set double-{args.max_pip}; valid sets: {valid}")
    if args.backgrounds and not Path(args.backgrounds).is_dir():
        raise UserInputError(f"--backgrounds {args.backgrounds} is not a folder")
    width, height = parse_size(args.size)
    config = load_config(args.config)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise UserInputError(f"--out {out} is not empty; choose a new folder or pass --force")
    command = (
        "dominocam synth " + " ".join(shlex.quote(a) for a in sys.argv[2:])
        if len(sys.argv) > 2
        else None
    )
    card = generate(
        out,
        args.count,
        args.seed,
        width,
        height,
        args.kind,
        args.max_pip,
        config,
        workers=args.workers,
        val_fraction=args.val_fraction,
        backgrounds_dir=args.backgrounds,
        command=command,
        progress=not args.quiet,
    )
    splits = card["splits"]
    summary = ", ".join(f"{s}: {v['images']} images" for s, v in splits.items())
    print(f"wrote {out} ({summary}); see {out / 'contact_sheet.png'}")
    return 0
