"""Small factories for tiles and game states, shared by the test tree.

Import as `import factories` (tests/helpers/ is on pytest's `pythonpath`, pyproject.toml).

    t(5, 10)                    -> Tile(5, 10)
    hand("5-10", "12-12")       -> (Tile(5, 10), Tile(12, 12))
    state_dict(variant="block", hands={"Ana": ["5-10"], "Ben": ["0-3"]}, ends={"main": 11})
    make_state(...)             -> rules.GameState from the same arguments
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from dominocam.rules import GameState, Tile, parse_state
from dominocam.rules.tiles import parse_tile

DESIGN_EXAMPLE: dict[str, Any] = {
    "variant": "block",
    "rules": {"tie": "no-score"},
    "set": 12,
    "players": [
        {"name": "Ana", "hand": [[5, 10], [12, 12]]},
        {"name": "Ben", "hand": [[0, 3]], "team": "B"},
    ],
    "layout": {
        "lines": [
            {"name": "main", "open_end": 11},
            {"name": "Ben", "open_end": 4, "owner": "Ben", "marked": False, "open_double": False},
        ]
    },
    "boneyard": 0,
    "proposer": "Ana",
}

DESIGN_VERDICT: dict[str, Any] = {
    "blocked": True,
    "conditions": {"no_playable_end": True, "boneyard_exhausted": True},
    "playable": [],
    "verification": [{"player": "Ana", "can_play": False}, {"player": "Ben", "can_play": False}],
    "pip_totals": {"Ana": 39, "Ben": 3},
    "winner": "Ben",
    "tied": [],
    "points": {"Ben": 39},
}


def design_example() -> dict[str, Any]:
    """A fresh copy of docs/design.md's example game state."""
    return copy.deepcopy(DESIGN_EXAMPLE)


def t(a: int, b: int) -> Tile:
    """The tile a-b, halves in either order."""
    return Tile.of(a, b)


def hand(*tiles: str | Iterable[int]) -> tuple[Tile, ...]:
    """Tiles from "a-b" strings or pairs."""
    return tuple(parse_tile(list(x) if not isinstance(x, str) else x) for x in tiles)


def _tile_json(x: str | Iterable[int] | Tile) -> list[int]:
    if isinstance(x, Tile):
        return x.as_list()
    return parse_tile(list(x) if not isinstance(x, str) else x).as_list()


def state_dict(
    variant: str = "seed",
    *,
    hands: Mapping[str, Iterable[str | Iterable[int] | Tile]] | None = None,
    ends: Mapping[str, int] | None = None,
    lines: list[dict[str, Any]] | None = None,
    boneyard: int | list[Any] = 0,
    set: int | None = 12,
    rules: Mapping[str, object] | None = None,
    teams: Mapping[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A game-state dict (the JSON form).

    Args:
        variant: the variant's name.
        hands: player name -> tiles, in clockwise seat order (default Ana and Ben).
        ends: line name -> open end value, for simple lines.
        lines: full line objects, appended after `ends`.
        boneyard: a count or a list of tiles.
        set: the set's n; None leaves it to the variant.
        rules: overrides.
        teams: player name -> team.
        **extra: further top-level fields (proposer, declarations, layout extras ...).
    """
    hands = hands if hands is not None else {"Ana": ["5-10", "12-12"], "Ben": ["0-3"]}
    players = []
    for name, tiles in hands.items():
        player: dict[str, Any] = {"name": name, "hand": [_tile_json(x) for x in tiles]}
        if teams and name in teams:
            player["team"] = teams[name]
        players.append(player)
    layout_lines = [{"name": n, "open_end": v} for n, v in (ends or {}).items()]
    layout_lines += lines or []
    layout: dict[str, Any] = {"lines": layout_lines}
    for key in ("spinner", "engine"):
        if key in extra:
            layout[key] = extra.pop(key)
    data: dict[str, Any] = {"variant": variant, "players": players, "layout": layout}
    if set is not None:
        data["set"] = set
    if rules:
        data["rules"] = dict(rules)
    data["boneyard"] = boneyard
    data.update(extra)
    return data


def make_state(variant: str = "seed", **kwargs: Any) -> GameState:
    """A parsed `GameState` from `state_dict`'s arguments."""
    return parse_state(state_dict(variant, **kwargs))
