"""Property tests: random legal states, checked against independent brute-force oracles."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dominocam.rules import Tile, check, full_set, get_variant, parse_state, variant_names
from dominocam.rules.tiles import parse_tile

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ("Ana", "Ben", "Cy", "Dee")


@st.composite
def raw_states(draw: st.DrawFn, variants: tuple[str, ...] = variant_names()) -> dict[str, Any]:
    """A random valid game state dict: distinct tiles dealt from a shuffled set, random lines.

    Hands are never empty (a round with an emptied hand ended by domino, not by a block).
    """
    variant = draw(st.sampled_from(variants))
    n = draw(st.sampled_from((6, 9, 12)))
    count = draw(st.integers(2, 4))
    tiles = draw(st.permutations(full_set(n)))
    sizes = [draw(st.integers(1, 5)) for _ in range(count)]
    players, used = [], 0
    for index, size in enumerate(sizes):
        hand = [tile.as_list() for tile in tiles[used : used + size]]
        used += size
        players.append({"name": NAMES[index], "hand": hand, "team": "AB"[index % 2]})
    names = [p["name"] for p in players]
    lines = []
    for index in range(draw(st.integers(1, 4))):
        lines.append(
            {
                "name": f"L{index}",
                "open_end": draw(st.integers(0, n)),
                "owner": draw(st.sampled_from([None, *names])),
                "marked": draw(st.booleans()),
                "open_double": draw(st.booleans()),
            }
        )
    rules: dict[str, Any] = {}
    if draw(st.booleans()):
        rules["tie"] = draw(
            st.sampled_from(["no-score", "split", "lightest-tile", "void", "leader"])
        )
    if draw(st.booleans()):
        rules["block_winner"] = draw(
            st.sampled_from(["lowest-hand", "lowest-team", "no-double", "blocker"])
        )
    if draw(st.booleans()):
        rules["points"] = draw(
            st.sampled_from(
                ["others", "others-minus-own", "losing-team", "all-hands", "penalty", "none"]
            )
        )
    if draw(st.booleans()):
        rules["rounding"] = draw(st.sampled_from(["none", "nearest-5", "nearest-5-each"]))
    if draw(st.booleans()):
        rules["double_blank"] = draw(st.sampled_from([0, 25, 50]))
    boneyard = draw(st.integers(0, min(len(tiles) - used, 4)))
    return {
        "variant": variant,
        "rules": rules,
        "set": n,
        "players": players,
        "layout": {"lines": lines},
        "boneyard": boneyard,
        "proposer": draw(st.sampled_from(names)),
    }


def oracle_moves(raw: dict[str, Any]) -> set[tuple[str, Tile, str]]:
    """Legal moves computed straight from the JSON, independently of rules.moves."""
    variant = get_variant(raw["variant"], raw.get("rules"))
    lines = raw["layout"]["lines"]
    pending = [x for x in lines if x.get("open_double") and variant.double_cover > 0]
    moves = set()
    for player in raw["players"]:
        name = player["name"]
        if pending:
            allowed = pending
        elif variant.play == "any-line":
            allowed = lines
        else:
            allowed = [x for x in lines if x["owner"] in (None, name) or x["marked"]]
        for pair in player["hand"]:
            tile = parse_tile(pair)
            for line in allowed:
                if line["open_end"] in (tile.low, tile.high):
                    moves.add((name, tile, line["name"]))
    return moves


def oracle_drawable(raw: dict[str, Any]) -> bool:
    variant = get_variant(raw["variant"], raw.get("rules"))
    return variant.draw != "none" and raw["boneyard"] > variant.reserve


@SETTINGS
@given(raw_states())
def test_blocked_exactly_when_nobody_can_move_and_nothing_can_be_drawn(raw: dict[str, Any]) -> None:
    verdict = check(parse_state(raw))
    expected = not oracle_moves(raw) and not oracle_drawable(raw)
    assert verdict.blocked == expected
    assert verdict.no_playable_end == (not oracle_moves(raw))
    assert verdict.boneyard_exhausted == (not oracle_drawable(raw))
    assert {(m.player, m.tile, m.line) for m in verdict.playable} == oracle_moves(raw)


@SETTINGS
@given(raw_states())
def test_points_never_negative_and_total_pips_conserved(raw: dict[str, Any]) -> None:
    state = parse_state(raw)
    verdict = check(state)
    blank = state.variant.double_blank
    dealt = sum(parse_tile(x).points(blank) for p in raw["players"] for x in p["hand"])
    assert sum(verdict.pip_totals.values()) == dealt
    assert all(points >= 0 for points in verdict.points.values())
    if verdict.score is not None:
        assert sum(verdict.score.totals.values()) == dealt
        if state.variant.points == "penalty" and state.variant.rounding == "none":
            assert sum(verdict.points.values()) == dealt
        if verdict.winner is not None and state.variant.points != "penalty":
            assert set(verdict.points) == {verdict.winner}


@SETTINGS
@given(raw_states(), st.randoms(use_true_random=False))
def test_verdict_does_not_depend_on_tile_order_within_a_hand(raw: dict[str, Any], rnd: Any) -> None:
    shuffled = copy.deepcopy(raw)
    for player in shuffled["players"]:
        rnd.shuffle(player["hand"])
        for pair in player["hand"]:
            pair.reverse()  # 5-10 and 10-5 are the same tile
    assert check(parse_state(shuffled)).to_json() == check(parse_state(raw)).to_json()


@SETTINGS
@given(raw_states(variants=("seed",)))
def test_seed_verdict_agrees_with_brute_force_over_every_tile_and_line(raw: dict[str, Any]) -> None:
    raw["rules"] = {}  # the founding rules as they are
    state = parse_state(raw)
    holder = {parse_tile(x): p["name"] for p in raw["players"] for x in p["hand"]}
    brute = {
        (holder[tile], tile, line["name"])
        for tile in full_set(raw["set"])
        for line in raw["layout"]["lines"]
        if tile in holder and line["open_end"] in (tile.low, tile.high)
    }
    verdict = check(state)
    assert {(m.player, m.tile, m.line) for m in verdict.playable} == brute
    assert verdict.blocked == (not brute and raw["boneyard"] == 0)
    if verdict.blocked:
        totals = verdict.pip_totals
        low = min(totals.values())
        lowest = [name for name, total in totals.items() if total == low]
        if len(lowest) == 1:
            assert verdict.winner == lowest[0]
            assert verdict.points == {lowest[0]: sum(totals.values()) - low}
        else:
            assert verdict.winner is None and verdict.points == {}
            assert list(verdict.tied) == lowest


@SETTINGS
@given(raw_states())
def test_verification_is_clockwise_and_stops_at_the_first_who_can_play(raw: dict[str, Any]) -> None:
    verdict = check(parse_state(raw))
    names = [p["name"] for p in raw["players"]]
    start = names.index(raw["proposer"])
    order = names[start:] + names[:start]
    can_play = {name for name, _, _ in oracle_moves(raw)}
    expected = []
    for name in order:
        expected.append((name, name in can_play))
        if name in can_play:
            break
    assert [(c.player, c.can_play) for c in verdict.verification] == expected
