"""The `dominocam` console script: one parser, one subcommand per layer's `cli` module.

Each module listed in `COMMAND_MODULES` exposes `register(subparsers)`, which adds its
subcommands and sets `func(args) -> int` on each. Those modules must stay cheap to
import (heavy libraries are imported inside the command functions), so that
`dominocam --help` is instant and never needs the training extra.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from dominocam import __version__
from dominocam.errors import UserInputError

# The layers that contribute subcommands, in the order --help lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "dominocam.rules.cli",
    "dominosynth.cli",
    "dominotrain.cli",
    "dominocam.measure.calibrate",
    "dominocam.server.cli",
    "dominocam.vision.cli",
    "dominocam.vision.track_cli",
    "dominocam.rounds.cli",
    "dominocam.measure.cli",
    "dominocam.tournament.cli",
)

EXIT_BAD_INPUT = 2


class OneLineErrorParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are bad input like any other: one line, exit 2.

    argparse's own error prints the usage and exits; here it raises `UserInputError`, whose
    message names the command's --help. Subcommand parsers are made of the same class.
    """

    def error(self, message: str) -> NoReturn:
        raise UserInputError(f"{message} (see `{self.prog} --help`)")


def build_parser() -> argparse.ArgumentParser:
    """The full command-line parser with every layer's subcommands."""
    parser = OneLineErrorParser(
        prog="dominocam",
        description=(
            "DominoCam reads a domino table from photos, rules on blocked games exactly as "
            "the rules define them, and keeps the score."
        ),
        epilog="Run `dominocam COMMAND --help` for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"dominocam {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status (2 with a one-line message on bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        return int(args.func(args) or 0)
    except UserInputError as error:
        print(f"dominocam: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("dominocam: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`dominocam read ... | head`): stop quietly,
        # and point stdout at nothing so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
