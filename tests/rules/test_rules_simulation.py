"""Whole rounds played with nothing but the public API: legal states all the way down.

A round is dealt from a shuffled set and played with random legal moves (`legal_moves`,
`play`), draws (`draw`) and passes (`pass_turn`) until someone goes out or the round
blocks. At every step: no tile is lost or duplicated, total pips are conserved, and the
verdict agrees with what the simulation itself observed.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dominocam.rules import (
    GameState,
    Layout,
    Player,
    Tile,
    check,
    draw,
    full_set,
    get_variant,
    legal_moves,
    parse_state,
    pass_turn,
    play,
    set_size,
)

NAMES = ("Ana", "Ben", "Cy", "Dee")
SIMULATED = (
    "block",
    "draw",
    "all-fives",
    "mexican-train",
    "chicken-foot",
    "partnership",
    "bergen",
    "seed",
)


def deal(variant_name: str, players: int, rnd: random.Random) -> GameState:
    """A fresh round: hands dealt per the variant, the hub placed for train games."""
    variant = get_variant(variant_name)
    if variant_name == "partnership":
        players = 4
    n = variant.set
    tiles = full_set(n)
    rnd.shuffle(tiles)
    layout = Layout()
    if variant_name == "mexican-train":
        layout = Layout(engine=Tile(n, n))
        tiles.remove(Tile(n, n))
    elif variant_name == "chicken-foot":
        layout = Layout(spinner=Tile(n, n))
        tiles.remove(Tile(n, n))
    size = min(variant.hand_size(players), 7)
    seats = []
    for index in range(players):
        seats.append(Player(NAMES[index], tuple(tiles[:size])))
        tiles = tiles[size:]
    return GameState(variant, tuple(seats), layout, n, boneyard_tiles=tuple(tiles))


def table_tiles(state: GameState) -> list[Tile]:
    held = [t for p in state.players for t in p.hand]
    return held + [t for t, _ in state.layout.table_tiles()] + list(state.boneyard_tiles or ())


def take_turn(state: GameState, name: str, rnd: random.Random) -> tuple[GameState, bool]:
    """One turn for `name`; returns the new state and whether a tile was played."""
    moves = legal_moves(state, name)
    mode = state.variant.draw
    while not moves and state.drawable and state.boneyard_tiles:
        state = draw(state, name)
        moves = legal_moves(state, name)
        if mode == "one-then-pass":
            break
    if moves:
        return play(state, rnd.choice(moves)), True
    return pass_turn(state, name), False


def simulate(state: GameState, rnd: random.Random, check_every_step: bool) -> tuple[GameState, Any]:
    total = len(table_tiles(state))
    pips = sum(t.pips for t in table_tiles(state))
    for seat in range(600):
        verdict = check(state)
        if verdict.blocked or verdict.went_out:
            return state, verdict
        name = state.active_names[seat % len(state.active_names)]
        state, _played = take_turn(state, name, rnd)
        if check_every_step:
            tiles = table_tiles(state)
            assert len(tiles) == len(set(tiles)) == total  # nothing lost, nothing doubled
            assert sum(t.pips for t in tiles) == pips  # total pips conserved
            assert parse_state(state.to_json()) == state  # the JSON form round-trips
    raise AssertionError("the round did not end within 600 turns")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SIMULATED), st.integers(2, 4), st.randoms(use_true_random=False))
def test_random_legal_rounds_end_in_a_consistent_verdict(
    variant: str, players: int, rnd: random.Random
) -> None:
    state = deal(variant, players, rnd)
    assert len(table_tiles(state)) == set_size(state.max_pip)  # type: ignore[arg-type]
    end, verdict = simulate(state, rnd, check_every_step=False)
    nobody = not any(legal_moves(end, n) for n in end.active_names)
    if verdict.blocked:
        assert nobody and end.drawable == 0
        assert all(p.hand for p in end.active_players)
        assert verdict.verification_complete
        assert all(points >= 0 for points in verdict.points.values())
    else:
        assert verdict.went_out and verdict.status == "went-out"


@pytest.mark.parametrize("variant", SIMULATED)
def test_every_step_of_a_round_is_a_legal_state(variant: str) -> None:
    rnd = random.Random(f"dominocam-{variant}")
    state = deal(variant, 3, rnd)
    simulate(state, rnd, check_every_step=True)


def test_a_blocked_simulated_round_blocks_for_the_verdict_too() -> None:
    """Search seeds until a Block round blocks, then compare with a full pass cycle."""
    for seed in range(200):
        rnd = random.Random(seed)
        end, verdict = simulate(deal("block", 4, rnd), rnd, check_every_step=False)
        if verdict.blocked:
            for name in end.active_names:  # a full round of passes changes nothing
                after, played = take_turn(end, name, rnd)
                assert not played and after == end
            return
    pytest.fail("no Block round blocked in 200 seeds")


def test_declarations_are_cleared_by_a_move() -> None:
    state = deal("seed", 2, random.Random(1))
    state = replace(
        state, players=tuple(replace(p, declared_cannot_play=True) for p in state.players)
    )
    moves = legal_moves(state, "Ana")
    after = play(state, moves[0])
    assert not any(p.declared_cannot_play for p in after.players)
