"""Simulated legal play: every touching pair matches, no tile twice, open ends right."""

from __future__ import annotations

import random

import pytest

from dominocam import rules
from dominocam.rules.tiles import full_set
from dominosynth.play import VARIANTS, check_layout, line_start_value, simulate


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("max_pip", [6, 9, 12])
@pytest.mark.parametrize("seed", range(5))
def test_simulated_layouts_are_legal(variant: str, max_pip: int, seed: int) -> None:
    deck = full_set(max_pip)
    random.Random(seed).shuffle(deck)
    before = len(deck)
    layout = simulate(random.Random(seed), variant, deck, 25)
    assert check_layout(layout) == []
    assert len(deck) == before - len(layout.tiles)
    assert len({pt.tile for pt in layout.tiles}) == len(layout.tiles)
    assert all(pt.tile not in deck for pt in layout.tiles)


def test_line_kinds_per_variant() -> None:
    kinds = {}
    for variant in VARIANTS:
        layout = simulate(random.Random(3), variant, full_set(12), 40, players=4)
        kinds[variant] = {ln.kind for ln in layout.lines}
    assert kinds["line"] == {"main"}
    assert kinds["spinner"] == {"arm"}
    assert kinds["mexican"] == {"train", "public"}
    assert "toe" in kinds["chicken"]


def test_mexican_trains_have_owners() -> None:
    layout = simulate(random.Random(1), "mexican", full_set(12), 10, players=3)
    owners = [ln.owner for ln in layout.lines]
    assert owners == ["P1", "P2", "P3", None]
    assert layout.tiles[0].tile.is_double


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="valid"):
        simulate(random.Random(0), "nope", full_set(6), 5)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(6))
def test_the_rules_engine_agrees_each_line_is_legal(variant: str, seed: int) -> None:
    """Every simulated line, replayed by the rules engine from its start, ends where the
    simulation says it does (rules.layout.chain_end rejects any tile that does not match)."""
    layout = simulate(random.Random(seed), variant, full_set(12), 30)
    for j, line in enumerate(layout.lines):
        played = [layout.tiles[i].tile for i in line.tiles[1:]]
        start = line_start_value(layout, j)
        end = rules.layout.chain_end(start, played, f"line {j}")
        if line.open_value is not None:
            assert end == line.open_value


@pytest.mark.parametrize("seed", range(6))
def test_a_simulated_block_game_is_a_state_the_rules_engine_accepts(seed: int) -> None:
    """A single-line table and the unplayed tiles dealt as hands make a valid Block state:
    no tile twice, every line matching, and the engine's open ends are the simulation's."""
    deck = full_set(6)
    rng = random.Random(seed)
    layout = simulate(rng, "line", deck, 12)
    root = layout.tiles[0]
    lines = [
        {
            "name": f"line {j}",
            "root": root.inner if j == 0 else root.outer,
            "tiles": [layout.tiles[i].tile.as_list() for i in line.tiles[1:]],
        }
        for j, line in enumerate(layout.lines)
    ]
    # The root tile itself is on the table: give it as the first tile of line 0.
    lines[0]["tiles"].insert(0, root.tile.as_list())
    lines[0]["root"] = root.outer
    hands = [deck[i::2][:5] for i in range(2)]
    state = rules.parse_state(
        {
            "variant": "block",
            "set": 6,
            "players": [
                {"name": name, "hand": [t.as_list() for t in hand]}
                for name, hand in zip(("Ana", "Ben"), hands, strict=True)
            ],
            "layout": {"lines": lines},
            "boneyard": 0,
        }
    )
    verdict = rules.check(state).to_json()
    engine_ends = sorted(end["value"] for end in verdict["open_ends"])
    assert engine_ends == sorted(value for _, value in layout.open_ends())
