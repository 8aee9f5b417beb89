"""`dominocam rules ...`: judge a game state from the command line.

* `dominocam rules check STATE.json [--json] [--lang hu]` - the verdict (docs/design.md) as a
  referee's ruling (in English, Hungarian, Italian, Vietnamese or Spanish), or as JSON;
  `-` reads the state from standard input.
* `dominocam rules variants [--json]` - the variants, their settings and sources.

Bad input raises `UserInputError`; `dominocam.cli` prints it on one line and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from dominocam.i18n import add_language_option, resolve_language, use_language
from dominocam.rules.blocked import check
from dominocam.rules.ruling import ruling
from dominocam.rules.state import load_state
from dominocam.rules.variants import SETTINGS, VARIANTS

STATE_SCHEMA = """\
The state is a JSON object (players in clockwise seat order):

  variant       block | draw | all-fives | mexican-train | chicken-foot |
                partnership | bergen | seed (default: seed, the founding rules)
  rules         overrides of the variant's settings, e.g. {"tie": "split"}
                (see `dominocam rules variants`)
  set           6, 9, 12 or 15 (default: the variant's usual set)
  players       [{"name": "Ana", "hand": [[5, 10], [12, 12]], "team": "A",
                  "declared_cannot_play": false, "active": true}, ...]
  layout        {"lines": [LINE, ...], "spinner": [6, 6], "engine": [12, 12]}
    LINE        {"name": "main", "open_end": 11}  or  {"name": "left",
                 "tiles": [[3, 4], [4, 6]], "root": 3}  plus optional "owner",
                 "marked", "open_double", "toes", "branch_of" (a toe's parent line)
  boneyard      tiles left undealt: a count, or the list of tiles
  proposer      who proposed the block (default: the first player)
  declarations  names of players who said "I cannot play"
  leader        who led the round (tie policy "leader")
  last_played   who played the last tile (block_winner "blocker")

Example: examples/states/design-example.json. Exit status: 0 with a verdict
(blocked or not), 2 on invalid input with a one-line message."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `rules check` and `rules variants` to the `dominocam` parser."""
    rules = subparsers.add_parser(
        "rules",
        help="judge a game state: blocked or not, verification, pip totals, scores",
        description="The rules engine: blocked-game check, verification and scoring.",
    )
    actions = rules.add_subparsers(dest="rules_command", metavar="ACTION")
    rules.set_defaults(func=lambda _args: _usage(rules))
    _add_check(actions)
    _add_variants(actions)


def _add_check(actions: argparse._SubParsersAction) -> None:
    check_parser = actions.add_parser(
        "check",
        help="rule on a game state: is the round blocked, who won, how many points",
        description=(
            "Rule on a game state by the blocked-game rule: a round is blocked when "
            "(1) no active player can legally extend any open end under the variant, and "
            "(2) no tile can be drawn. Prints which conditions hold, the clockwise "
            "verification from the proposer, who can still play what where, fouls, pip "
            "totals, the winner and the points."
        ),
        epilog=STATE_SCHEMA,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check_parser.add_argument(
        "state", metavar="STATE.json", help="the game state file, or - to read standard input"
    )
    check_parser.add_argument(
        "--json",
        action="store_true",
        help=(
            "print the verdict as JSON: blocked, conditions, playable, verification, "
            "pip_totals, winner, tied, points, and the rules applied"
        ),
    )
    add_language_option(check_parser)
    check_parser.set_defaults(func=run_check)


def _add_variants(actions: argparse._SubParsersAction) -> None:
    variants_parser = actions.add_parser(
        "variants",
        help="list the variants with their settings and sources",
        description="The variants the engine knows, their default settings and sources.",
    )
    variants_parser.add_argument("--json", action="store_true", help="print them as JSON")
    variants_parser.set_defaults(func=run_variants)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def run_check(args: argparse.Namespace) -> int:
    """`dominocam rules check`: print the verdict; 0 whether blocked or not.

    Error messages and the ruling are in the chosen language; the JSON is computed in
    English (its reason and award texts are read by programs too).
    """
    language = resolve_language(args.lang)
    with use_language(language):
        state = load_state(args.state)
    if args.json:
        _emit(json.dumps(check(state).to_json(), indent=2))
        return 0
    with use_language(language):
        _emit(ruling(check(state), state))
    return 0


def run_variants(args: argparse.Namespace) -> int:
    """`dominocam rules variants`: every variant's settings (and sources with --json)."""
    if args.json:
        _emit(json.dumps({name: v.to_json() for name, v in VARIANTS.items()}, indent=2))
        return 0
    out = []
    for variant in VARIANTS.values():
        out.append(f"{variant.name} - {variant.title}: {variant.description}")
        out.append(f"  set: double-{variant.set}")
        for name in SETTINGS:
            value = getattr(variant, name)
            if isinstance(value, bool):
                value = str(value).lower()
            source = variant.sources.get(name)
            out.append(f"  {name}: {value}" + (f"   [{source}]" if source else ""))
        out.append("")
    _emit("\n".join(out).rstrip())
    return 0


def _emit(text: str) -> None:
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `dominocam rules check s.json | head`
        sys.stderr.close()
