"""`dominocam synth`: render a synthetic data set (module import stays light)."""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys
from pathlib import Path

from dominocam.arguments import add_output_folder, output_folder, positive_int
from dominocam.errors import UserInputError
from dominocam.rules.tiles import SUPPORTED_SETS
from dominosynth.config import CONFIGS, load_config


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `synth` and `synth-video` subcommands."""
    _add_synth(subparsers)
    _add_video(subparsers)


def _add_synth(subparsers: argparse._SubParsersAction) -> None:
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
    add_output_folder(p)
    p.add_argument("--count", required=True, type=positive_int, help="number of images")
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
        default="12",
        help="double-n set: 6, 9, 12 or 15 (default 12); several, comma-separated "
        "(e.g. 6,12), share the pictures out evenly",
    )
    p.add_argument(
        "--backgrounds",
        default=None,
        help="folder of background photos to mix with procedural ones",
    )
    p.add_argument("--workers", default=1, type=positive_int, help="worker processes (default 1)")
    p.add_argument(
        "--val-fraction",
        default=0.1,
        type=float,
        help="share of images in the val split (default 0.1)",
    )
    p.add_argument(
        "--config",
        default="default",
        help="default, robot, small, closeup, negatives, clean, or a YAML file",
    )
    p.set_defaults(func=run)


def _add_video(subparsers: argparse._SubParsersAction) -> None:
    v = subparsers.add_parser(
        "synth-video",
        help="render a synthetic game being played as a video, with its true events",
        description=(
            "Render one game being played (tiles added one by one in legal order, arms over "
            "the table, a slightly shaking camera): DIR/video.mp4 (or DIR/frames/*.jpg), "
            "DIR/events.jsonl (the true events), DIR/frames.jsonl (per-frame truth) and "
            "DIR/video.json. The same seed gives the same files."
        ),
    )
    add_output_folder(v)
    v.add_argument("--seed", required=True, type=int, help="random seed")
    v.add_argument("--size", default="640x360", help="frame size WxH (default 640x360)")
    v.add_argument("--fps", default=10.0, type=float, help="frames per second (default 10)")
    v.add_argument("--set", dest="max_pip", default=12, type=int, help="double-n set (default 12)")
    v.add_argument("--frames", action="store_true", help="write JPEG frames instead of an mp4")
    v.set_defaults(func=run_video)


def run_video(args: argparse.Namespace) -> int:
    from dominosynth.generate import parse_size
    from dominosynth.video import VideoSpec, write_video

    if args.max_pip not in SUPPORTED_SETS:
        valid = ", ".join(str(n) for n in SUPPORTED_SETS)
        raise UserInputError(f"unknown set double-{args.max_pip}; valid sets: {valid}")
    if not 0 < args.fps <= 120:
        raise UserInputError(f"--fps must be in (0, 120], got {args.fps}")
    width, height = parse_size(args.size)
    out = output_folder(args.out, args.force)
    spec = VideoSpec(width=width, height=height, fps=args.fps, max_pip=args.max_pip)
    command = "dominocam " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    card = write_video(
        out, args.seed, spec, frames_dir=args.frames, command=command, progress=not args.quiet
    )
    print(
        f"wrote {out}: {card['frames']} frames, {card['tiles']} moves ({card['variant']}); "
        f"true events in {out / 'events.jsonl'}"
    )
    return 0


def parse_sets(text: str, supported) -> tuple[int, ...]:
    """`--set 12` or `--set 6,12` -> (12,) or (6, 12); an unknown set is a UserInputError."""
    valid = ", ".join(str(n) for n in supported)
    try:
        sets = tuple(dict.fromkeys(int(part) for part in str(text).split(",")))
    except ValueError:
        raise UserInputError(f"--set {text}: expected numbers like 12 or 6,12") from None
    unknown = [n for n in sets if n not in supported]
    if unknown:
        raise UserInputError(f"unknown set double-{unknown[0]}; valid sets: {valid}")
    return sets


def _check_yaml_available(config: str) -> None:
    """A YAML configuration file needs pyyaml, which only the `synth` extra installs."""

    if config not in CONFIGS and importlib.util.find_spec("yaml") is None:
        raise UserInputError(
            f"--config {config}: reading a YAML configuration needs pyyaml; "
            "install the synth extra: pip install 'dominocam[synth]'"
        )


def run(args: argparse.Namespace) -> int:
    from dominosynth.generate import generate, parse_size

    if not 0.0 <= args.val_fraction < 1.0:
        raise UserInputError(f"--val-fraction must be in [0, 1), got {args.val_fraction}")
    sets = parse_sets(args.max_pip, SUPPORTED_SETS)
    if args.backgrounds and not Path(args.backgrounds).is_dir():
        raise UserInputError(f"--backgrounds {args.backgrounds} is not a folder")
    width, height = parse_size(args.size)
    _check_yaml_available(args.config)
    config = load_config(args.config)
    out = output_folder(args.out, args.force)
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
        sets,
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
