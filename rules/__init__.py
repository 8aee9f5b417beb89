"""The rules engine: pure Python (no OpenCV, no numpy), every variant as data.

Modules: `tiles` (Tile, sets, pip values), `variants` (named variants and their settings),
`layout` (lines, open ends, spinner, train hub, open doubles, chicken feet), `state` (the
game-state JSON parsed and validated), `moves` (legal moves, applying moves), `blocked`
(the blocked game's two conditions, docs/rules.md, and the clockwise verification), `scoring`,
`verdict` (the verdict JSON), `ruling` (the verdict in words), `game` (rounds into a game),
`cli` (`dominocam rules check`).

Public API (what the server, `dominocam round` and the data generator call):

    from dominocam import rules
    state = rules.parse_state(dict_from_json)    # -> GameState; UserInputError if invalid
    state = rules.load_state("state.json")       # a file, or "-" for stdin
    verdict = rules.check(state)                 # -> Verdict
    verdict.blocked, verdict.winner, verdict.points
    verdict.to_json()                            # -> dict: docs/design.md's verdict JSON (+ fields)
    print(rules.ruling(verdict, state))          # the referee's ruling in words

    rules.legal_moves(state, "Ana")              # -> tuple[Move]: tile, line, end value
    rules.play(state, move)                      # -> GameState after the move (simulation)
    rules.draw(state, "Ana"); rules.pass_turn(state, "Ana")

    rules.VARIANTS["draw"]                       # Variant; rules.variant_names()
    rules.get_variant("draw", {"reserve": 1})    # with overrides; a typo lists valid names
    rules.get_variant("draw").to_json()          # settings as a dict

    rules.score_blocked(state)                   # -> RoundScore (winner, tied, points)
    rules.score_domino(state, "Ana")             # a round Ana ended by playing her last tile
    game = rules.Game(variant, ("Ana", "Ben")).record(rules.RoundResult.from_verdict(verdict))

Conventions: values are pip counts 0..n of a double-n set; players are listed in clockwise
seat order; every bad input raises `dominocam.errors.UserInputError` (a ValueError) with a
one-line message.
"""

from __future__ import annotations

from dominocam.rules.blocked import check, fouls, is_blocked, verify
from dominocam.rules.game import Game, RoundResult, descending_engines
from dominocam.rules.layout import Layout, Line, OpenEnd
from dominocam.rules.moves import (
    Move,
    all_legal_moves,
    available_ends,
    draw,
    legal_moves,
    open_ends,
    pass_turn,
    play,
)
from dominocam.rules.ruling import ruling
from dominocam.rules.scoring import RoundScore, round_to_nearest_5, score_blocked, score_domino
from dominocam.rules.state import GameState, Player, load_state, parse_state
from dominocam.rules.tiles import SUPPORTED_SETS, Tile, full_set, hand_points, parse_tile, set_size
from dominocam.rules.variants import SETTINGS, VARIANTS, Variant, get_variant, variant_names
from dominocam.rules.verdict import Confirmation, Verdict

__all__ = [
    "SETTINGS",
    "SUPPORTED_SETS",
    "VARIANTS",
    "Confirmation",
    "Game",
    "GameState",
    "Layout",
    "Line",
    "Move",
    "OpenEnd",
    "Player",
    "RoundResult",
    "RoundScore",
    "Tile",
    "Variant",
    "Verdict",
    "all_legal_moves",
    "available_ends",
    "check",
    "descending_engines",
    "draw",
    "fouls",
    "full_set",
    "get_variant",
    "hand_points",
    "is_blocked",
    "legal_moves",
    "load_state",
    "open_ends",
    "parse_state",
    "parse_tile",
    "pass_turn",
    "play",
    "round_to_nearest_5",
    "ruling",
    "score_blocked",
    "score_domino",
    "set_size",
    "variant_names",
    "verify",
]
