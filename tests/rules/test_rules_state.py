"""dominocam.rules.state: the game-state JSON parsed into dataclasses, every invalid input
refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import design_example, hand, make_state, state_dict, t

from dominocam.errors import UserInputError
from dominocam.rules import parse_state
from dominocam.rules.state import load_state, read_json

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "states"


def test_design_example_parses() -> None:
    state = parse_state(design_example())
    assert state.variant.name == "block" and state.max_pip == 12
    assert state.names == ("Ana", "Ben")
    assert state.player("Ana").hand == hand("5-10", "12-12")
    assert state.player("Ben").team == "B"
    assert [line.open_end for line in state.layout.lines] == [11, 4]
    assert state.layout.line("Ben").owner == "Ben"
    assert state.proposer_name == "Ana" and state.boneyard == 0


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_every_example_state_is_valid(path: Path) -> None:
    state = load_state(path)
    assert parse_state(state.to_json()) == state  # the JSON form round-trips


def test_defaults() -> None:
    raw = state_dict(set=None, ends={"main": 3})
    del raw["variant"]
    state = parse_state(raw)
    assert state.variant.name == "seed" and state.max_pip == 12
    assert state.proposer is None and state.proposer_name == "Ana"


def test_set_defaults_to_the_variants_set() -> None:
    state = make_state("block", set=None, hands={"Ana": ["1-2"], "Ben": ["3-4"]}, ends={"m": 6})
    assert state.max_pip == 6


def test_rules_override_the_variant() -> None:
    state = make_state("block", rules={"tie": "split", "double_blank": 50}, ends={"m": 1})
    assert state.variant.tie == "split" and state.variant.double_blank == 50


def test_line_by_tiles_derives_its_open_end() -> None:
    state = make_state(lines=[{"name": "left", "tiles": [[3, 4], [4, 6]]}])
    assert state.layout.line("left").open_end == 6


def test_line_with_explicit_root() -> None:
    state = make_state(lines=[{"name": "x", "tiles": [[3, 4]], "root": 4}])
    assert state.layout.line("x").open_end == 3


def test_lines_on_a_hub_start_from_it() -> None:
    raw = state_dict(
        "mexican-train",
        hands={"Ana": ["1-2"], "Ben": ["3-5"]},
        lines=[{"name": "Ben", "owner": "Ben", "tiles": [[12, 4], [4, 4]]}],
        engine=[12, 12],
    )
    line = parse_state(raw).layout.line("Ben")
    assert line.open_end == 4 and line.open_double and line.on_hub and line.root == 12


def test_toes_are_counted_from_the_lines_branching_off() -> None:
    raw = state_dict(
        "chicken-foot",
        hands={"Ana": ["1-2"], "Ben": ["3-3"]},
        set=9,
        lines=[
            {"name": "arm", "tiles": [[9, 5], [5, 5]]},
            {"name": "toe1", "tiles": [[5, 6]], "branch_of": "arm"},
            {"name": "toe2", "tiles": [[5, 7]], "branch_of": "arm"},
        ],
        spinner=[9, 9],
    )
    state = parse_state(raw)
    assert state.layout.line("arm").toes == 2
    assert state.layout.line("toe1").open_end == 6 and not state.layout.line("toe1").on_hub


def test_scene_style_open_end_object_is_accepted() -> None:
    state = make_state(lines=[{"name": "m", "open_end": {"tile": 7, "value": 11}}])
    assert state.layout.line("m").open_end == 11


def test_declarations_both_forms() -> None:
    state = make_state(
        hands={"Ana": ["1-2"], "Ben": ["3-4"], "Cy": ["5-6"]},
        ends={"m": 0},
        declarations=["Ben", {"player": "Cy", "cannot_play": True}],
    )
    assert [state.declared(n) for n in state.names] == [False, True, True]
    raw = state_dict(ends={"m": 0})
    raw["players"][0]["declared_cannot_play"] = True
    assert parse_state(raw).declared("Ana")


def test_explicit_proposer_is_a_declaration() -> None:
    assert make_state(ends={"m": 0}, proposer="Ben").declared("Ben")
    assert not make_state(ends={"m": 0}).declared("Ana")


def test_boneyard_as_a_list_of_tiles() -> None:
    state = make_state(boneyard=[[1, 1], [2, 3]], ends={"m": 0})
    assert state.boneyard == 2 and state.boneyard_tiles == (t(1, 1), t(2, 3))


def test_partnership_default_teams_are_facing_seats() -> None:
    state = make_state(
        "partnership",
        set=6,
        hands={"N": ["1-2"], "E": ["3-4"], "S": ["5-6"], "W": ["0-1"]},
        ends={"m": 0},
    )
    assert state.teams() == {"N": "A", "E": "B", "S": "A", "W": "B"}


def _mutate(path: str, value: Any) -> dict[str, Any]:
    raw = design_example()
    target: Any = raw
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    elif value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return raw


_DELETE = object()

INVALID = [
    # (what, mutation path, value, expected message fragment)
    ("pip above the set", "players.0.hand.0", [5, 13], "has a half above 12"),
    ("pip above double-6", "set", 6, "has a half above 6"),
    ("open end above the set", "layout.lines.0.open_end", 13, "open end 13 is above 12"),
    ("duplicate in hands", "players.1.hand.0", [10, 5], "tile 5-10 is held twice"),
    ("duplicate in one hand", "players.0.hand.1", [5, 10], "tile 5-10 is held twice"),
    (
        "hand and table",
        "layout.lines.0",
        {"name": "main", "tiles": [[12, 12]]},
        "tile 12-12 is both in Ana's hand and on the table",
    ),
    ("unknown proposer", "proposer", "Bob", "unknown proposer 'Bob'; players: Ana, Ben"),
    ("unknown owner", "layout.lines.1.owner", "Bo", "unknown owner of line 'Ben' 'Bo'"),
    ("unknown leader", "leader", "Zed", "unknown leader 'Zed'"),
    ("unknown last_played", "last_played", "Zed", "unknown last_played 'Zed'"),
    ("unknown variant", "variant", "mexican", "valid variants: block, draw, all-fives"),
    ("variant not text", "variant", 3, "variant must be a name"),
    ("unknown setting", "rules", {"ties": "split"}, "unknown setting 'ties'"),
    ("bad setting value", "rules", {"tie": "coin"}, "rules.tie: 'coin' is not a valid value"),
    ("rules not an object", "rules", ["tie"], "rules must be a JSON object"),
    ("unknown set", "set", 7, "set must be one of 6, 9, 12, 15"),
    ("set not a number", "set", "12", "set must be one of"),
    ("players not a list", "players", {"Ana": []}, "players must be a list"),
    ("one player", "players", [{"name": "Ana", "hand": []}], "at least 2 players"),
    ("player not an object", "players.0", "Ana", "players[0] must be a JSON object"),
    ("player without name", "players.0", {"hand": []}, "name must be non-empty text"),
    ("same name twice", "players.1.name", "Ana", "two players are called 'Ana'"),
    ("hand not a list", "players.0.hand", "5-10", "hand must be a list of tiles"),
    ("tile not a pair", "players.0.hand.0", [5], "Ana's hand, tile 1: cannot read tile"),
    ("tile with text", "players.0.hand.0", ["a", 1], "cannot read tile"),
    ("unknown player field", "players.0.cards", [], "unknown field 'cards'"),
    ("declared not bool", "players.0.declared_cannot_play", "yes", "must be true or false"),
    ("layout not an object", "layout", [], "layout must be a JSON object"),
    ("lines not a list", "layout.lines", {}, "layout.lines must be a list"),
    ("line without end", "layout.lines.0", {"name": "main"}, "needs an open_end or its tiles"),
    ("negative end", "layout.lines.0.open_end", -1, "whole number of pips >= 0"),
    ("end as text", "layout.lines.0.open_end", "11", "whole number of pips >= 0"),
    ("marked not bool", "layout.lines.1.marked", 1, "marked must be true or false"),
    ("unknown line field", "layout.lines.0.colour", "red", "unknown field 'colour'"),
    (
        "broken chain",
        "layout.lines.0",
        {"name": "main", "tiles": [[1, 2], [3, 4]]},
        "do not match",
    ),
    ("lone tile", "layout.lines.0", {"name": "main", "tiles": [[1, 2]]}, "give the line's root"),
    (
        "end contradicts tiles",
        "layout.lines.0",
        {"name": "main", "tiles": [[1, 2]], "root": 1, "open_end": 5},
        "its tiles end on 2, but its open_end says 5",
    ),
    (
        "unknown parent",
        "layout.lines.0",
        {"name": "main", "tiles": [[1, 2]], "branch_of": "nope"},
        "branches from an unknown line 'nope'",
    ),
    ("hub not a double", "layout.spinner", [5, 6], "layout.spinner must be a double"),
    ("boneyard negative", "boneyard", -1, "boneyard must be a count"),
    ("boneyard text", "boneyard", "none", "boneyard must be a count"),
    ("boneyard too big", "boneyard", 89, "boneyard of 89 is more than the 88 tiles"),
    ("boneyard duplicate", "boneyard", [[0, 3]], "tile 0-3 is held twice"),
    ("unknown top field", "boneyad", 0, "unknown field 'boneyad'"),
    ("declaration unknown", "declarations", ["Zoe"], "declarations: unknown player 'Zoe'"),
    ("state not an object", "", None, "the game state must be a JSON object"),
]


@pytest.mark.parametrize(
    ("path", "value", "message"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_invalid_states_are_refused_with_one_line(path: str, value: Any, message: str) -> None:
    raw: Any = [] if path == "" else _mutate(path, value)
    with pytest.raises(UserInputError) as error:
        parse_state(raw)
    text = str(error.value)
    assert message in text
    assert "\n" not in text


def test_team_variant_without_teams_needs_four_players() -> None:
    with pytest.raises(UserInputError, match="give every player a team"):
        make_state("partnership", set=6, hands={"A": ["1-2"], "B": ["3-4"]}, ends={"m": 0})


def test_team_variant_with_partial_teams() -> None:
    with pytest.raises(UserInputError, match="some players have no team: Ben"):
        make_state("partnership", set=12, teams={"Ana": "A"}, ends={"m": 0})


def test_read_json_errors(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="no such file"):
        read_json(tmp_path / "missing.json")
    with pytest.raises(UserInputError, match="is a directory"):
        read_json(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"variant": "block",', encoding="utf-8")
    with pytest.raises(UserInputError, match=r"is not valid JSON: .* at line 1 column"):
        read_json(bad)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UserInputError, match="not UTF-8"):
        read_json(binary)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(design_example()), encoding="utf-8")
    assert load_state(good).names == ("Ana", "Ben")
