"""Command-line arguments that several `dominocam` subcommands share, spelt out once.

Each `add_*` function adds one group of options to a subcommand's parser with the same
name, type, default and help wherever it appears; the `type=` functions turn bad values
into argparse's one-line usage error. Part of the ground floor: only the standard library
and `dominocam.errors` are imported (what the rules know, such as the tile sets, the caller
passes in), so every `cli` module can use this one and stay cheap to import.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from dominocam.errors import UserInputError

Number = TypeVar("Number", int, float)

DEFAULT_SET = 12


def number_type(
    convert: Callable[[str], Number], accept: Callable[[Number], bool], rule: str
) -> Callable[[str], Number]:
    """An argparse type: `convert` the text (int or float), and refuse a value that `accept`
    rejects with the message "`rule`, got VALUE"."""
    kind = "a whole number" if convert is int else "a number"

    def parse(text: str) -> Number:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"{rule}, got {value}")
        return value

    return parse


positive_int = number_type(int, lambda value: value >= 1, "must be at least 1")
fraction = number_type(float, lambda value: 0.0 < value < 1.0, "must lie between 0 and 1")


def image_size(text: str) -> tuple[int, int]:
    """An argparse type: 'WIDTHxHEIGHT' such as 1280x720, both positive."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT like 1280x720, got {text!r}"
        ) from error
    if w <= 0 or h <= 0:
        raise argparse.ArgumentTypeError(f"sizes must be positive, got {text!r}")
    return w, h


def add_set(
    parser: argparse.ArgumentParser,
    sets: Sequence[int],
    default: int | None = DEFAULT_SET,
    unset: str = "default: the variant's",
) -> None:
    """`--set N`: the double-N set of the tiles, one of `sets`
    (`dominocam.rules.tiles.SUPPORTED_SETS`);
    `unset` says what a command without it does when the default is None."""
    said = f"default {default}" if default is not None else unset
    parser.add_argument(
        "--set",
        type=int,
        default=default,
        choices=sets,
        help=f"the set's highest value ({said})",
    )


def add_model_files(parser: argparse.ArgumentParser) -> None:
    """`--detector PATH` and `--reader PATH`: ONNX files other than the bundled ones."""
    for flag in ("detector", "reader"):
        parser.add_argument(
            f"--{flag}",
            metavar="PATH",
            help=f"{flag} ONNX file (default: the bundled {flag}.onnx, or $DOMINOCAM_MODELS)",
        )


def add_threads(parser: argparse.ArgumentParser) -> None:
    """`--threads N`: onnxruntime's threads."""
    parser.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        metavar="N",
        help="onnxruntime threads (default: all cores)",
    )


def add_conf(parser: argparse.ArgumentParser, default: float | None) -> None:
    """`--conf X`: the detector's confidence threshold; `default` is the detector's own
    (`dominocam.vision.settings.DETECTOR_CONF`, which this module may not import) or None."""
    said = f"default {default}" if default is not None else "default: `read`'s"
    parser.add_argument(
        "--conf", type=fraction, default=default, help=f"detector confidence threshold ({said})"
    )


def add_second_looks(parser: argparse.ArgumentParser) -> None:
    """`--no-closeups` and `--no-far-tiles`: skip the reading pipeline's two second looks."""
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


def add_output_folder(parser: argparse.ArgumentParser) -> None:
    """`--out DIR` (required, new or empty), `--force` and `--quiet`, for writers of data."""
    parser.add_argument(
        "--out", required=True, help="output folder (created; must be empty or new)"
    )
    parser.add_argument(
        "--force", action="store_true", help="write into a folder that is not empty"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def output_folder(text: str, force: bool) -> Path:
    """The `--out` folder, checked: a new or empty folder, or any folder with `--force`."""
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise UserInputError(f"--out {out} is not empty; choose a new folder or pass --force")
    return out
