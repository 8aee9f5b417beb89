"""Simulated legal play: every touching pair matches, no tile twice, open ends right."""

from __future__ import annotations

import random

import pytest

from dominosynth.play import VARIANTS, check_layout, simulate
from rules.tiles import full_set


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
