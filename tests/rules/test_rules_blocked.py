"""dominocam.rules.blocked: the two conditions and the verification, as docs/rules.md states
them."""

from __future__ import annotations

from typing import Any

import pytest
from factories import DESIGN_VERDICT, design_example, make_state

from dominocam.rules import check, parse_state

FOUR = {"Ana": ["0-1"], "Ben": ["2-3"], "Cy": ["4-5"], "Dee": ["6-7"]}


def _contract(verdict: dict[str, Any]) -> dict[str, Any]:
    """The fields of docs/design.md's verdict only, verification entries reduced to player
    and can_play."""
    data = {key: verdict[key] for key in DESIGN_VERDICT}
    data["verification"] = [
        {"player": v["player"], "can_play": v["can_play"]} for v in verdict["verification"]
    ]
    data["playable"] = [
        {"player": p["player"], "tile": p["tile"], "line": p["line"]} for p in verdict["playable"]
    ]
    return data


def test_design_example_answers_as_design_md_shows() -> None:
    verdict = check(parse_state(design_example())).to_json()
    assert _contract(verdict) == DESIGN_VERDICT


def test_an_11_end_nobody_can_match_is_blocked() -> None:
    # docs/rules.md: "an 11 end with an 11 in anyone's hand is not blocked"
    state = make_state(hands={"Ana": ["5-10", "12-12"], "Ben": ["0-3"]}, ends={"main": 11})
    verdict = check(state)
    assert verdict.blocked and verdict.no_playable_end and verdict.boneyard_exhausted
    assert verdict.pip_totals == {"Ana": 39, "Ben": 3}  # 5-10 counts 15, 12-12 counts 24


def test_an_11_in_any_hand_breaks_the_block() -> None:
    state = make_state(hands={"Ana": ["5-10", "12-12"], "Ben": ["0-3", "11-2"]}, ends={"main": 11})
    verdict = check(state)
    assert not verdict.blocked and not verdict.no_playable_end
    assert [m.to_json() for m in verdict.playable] == [
        {"player": "Ben", "tile": [2, 11], "line": "main", "end": 11}
    ]
    assert verdict.winner is None and verdict.points == {} and verdict.tied == ()


SINGLE_TILE = [
    # (which player holds the only playable tile, which line it fits)
    ("Ana", "a", "3-9"),
    ("Ben", "b", "5-9"),
    ("Cy", "c", "7-9"),
    ("Dee", "a", "3-10"),
    ("Dee", "c", "7-7"),
]


@pytest.mark.parametrize(("holder", "line", "tile"), SINGLE_TILE)
def test_a_single_playable_tile_anywhere_means_not_blocked(
    holder: str, line: str, tile: str
) -> None:
    # "if even one player can extend even one line, the game is not blocked"
    hands = {"Ana": ["12-12"], "Ben": ["0-0"], "Cy": ["1-1"], "Dee": ["2-2"]}
    hands[holder] = [*hands[holder], tile]
    state = make_state(hands=hands, ends={"a": 3, "b": 5, "c": 7})
    verdict = check(state)
    assert not verdict.blocked
    assert [(m.player, m.line) for m in verdict.playable] == [(holder, line)]


@pytest.mark.parametrize(
    ("variant", "boneyard", "blocked"),
    [
        ("seed", 0, True),  # founding text: "the boneyard is empty"
        ("seed", 1, False),  # a non-empty boneyard: play goes on
        ("draw", 3, False),
        ("draw", 2, True),  # the last two may never be drawn
        ("draw", 1, True),
        ("block", 14, True),  # Block never draws: the undealt tiles sit out
        ("mexican-train", 1, False),
        ("bergen", 2, True),
    ],
)
def test_condition_2_boneyard(variant: str, boneyard: int, blocked: bool) -> None:
    state = make_state(
        variant, hands={"Ana": ["1-2"], "Ben": ["0-3"]}, ends={"m": 11}, boneyard=boneyard
    )
    verdict = check(state)
    assert verdict.no_playable_end
    assert verdict.boneyard_exhausted == blocked == verdict.blocked


def test_condition_2_rules_override() -> None:
    state = make_state(
        hands={"Ana": ["1-2"], "Ben": ["0-3"]}, ends={"m": 11}, boneyard=2, rules={"reserve": 2}
    )
    assert check(state).blocked


def test_mexican_train_a_tile_for_another_players_unmarked_train_does_not_break_a_block() -> None:
    state = make_state(
        "mexican-train",
        hands={"Ana": ["4-6"], "Ben": ["0-3"]},
        lines=[
            {"name": "Ana", "owner": "Ana", "open_end": 11},
            {"name": "Ben", "owner": "Ben", "open_end": 4},
            {"name": "mexican", "open_end": 10},
        ],
    )
    assert check(state).blocked
    marked = make_state(
        "mexican-train",
        hands={"Ana": ["4-6"], "Ben": ["0-3"]},
        lines=[
            {"name": "Ana", "owner": "Ana", "open_end": 11},
            {"name": "Ben", "owner": "Ben", "open_end": 4, "marked": True},
            {"name": "mexican", "open_end": 10},
        ],
    )
    assert not check(marked).blocked


def test_an_uncoverable_open_double_blocks_the_round() -> None:
    state = make_state(
        "mexican-train",
        hands={"Ana": ["3-9"], "Ben": ["0-3"]},
        lines=[
            {"name": "Ana", "owner": "Ana", "open_end": 3},  # 3-9 would fit here ...
            {"name": "Ben", "owner": "Ben", "tiles": [[12, 5], [5, 5]]},  # ... but 5-5 is open
        ],
        engine=[12, 12],
    )
    verdict = check(state)
    assert verdict.blocked
    assert next(e for e in verdict.open_ends if e.line == "Ben").needs == 1


@pytest.mark.parametrize(
    ("proposer", "order"),
    [
        ("Ana", ["Ana", "Ben", "Cy", "Dee"]),
        ("Cy", ["Cy", "Dee", "Ana", "Ben"]),
        ("Dee", ["Dee", "Ana", "Ben", "Cy"]),
    ],
)
def test_verification_goes_clockwise_from_the_proposer(proposer: str, order: list[str]) -> None:
    state = make_state(hands=FOUR, ends={"m": 11}, proposer=proposer)
    verdict = check(state)
    assert verdict.blocked and verdict.verification_complete
    assert [c.player for c in verdict.verification] == order == list(verdict.order)
    assert not any(c.can_play for c in verdict.verification)


def test_verification_defaults_to_the_first_player() -> None:
    verdict = check(make_state(hands=FOUR, ends={"m": 11}))
    assert [c.player for c in verdict.verification] == ["Ana", "Ben", "Cy", "Dee"]


def test_verification_stops_at_the_first_player_who_can_play() -> None:
    hands = {**FOUR, "Ana": ["0-11"], "Dee": ["6-11"]}
    verdict = check(make_state(hands=hands, ends={"m": 11}, proposer="Cy"))
    assert [(c.player, c.can_play) for c in verdict.verification] == [
        ("Cy", False),
        ("Dee", True),
    ]
    assert not verdict.verification_complete and not verdict.blocked


def test_a_false_declaration_is_a_foul_with_tile_and_line() -> None:
    hands = {**FOUR, "Ben": ["2-3", "11-4"]}
    verdict = check(make_state(hands=hands, ends={"m": 11, "n": 4}, declarations=["Ben"]))
    assert [m.to_json() for m in verdict.fouls] == [
        {"player": "Ben", "tile": [4, 11], "line": "m", "end": 11},
        {"player": "Ben", "tile": [4, 11], "line": "n", "end": 4},
    ]
    ben = next(c for c in verdict.verification if c.player == "Ben")
    assert ben.foul and ben.declared


def test_proposing_a_block_while_holding_a_playable_tile_is_a_foul() -> None:
    hands = {**FOUR, "Cy": ["4-5", "3-11"]}
    verdict = check(make_state(hands=hands, ends={"m": 11}, proposer="Cy"))
    assert [(m.player, str(m.tile), m.line) for m in verdict.fouls] == [("Cy", "3-11", "m")]
    assert verdict.verification[0].foul


def test_a_true_declaration_is_no_foul() -> None:
    verdict = check(make_state(hands=FOUR, ends={"m": 11}, declarations=["Ben", "Cy"]))
    assert verdict.fouls == () and verdict.blocked


def test_an_emptied_hand_is_a_natural_finish_not_a_block() -> None:
    verdict = check(make_state(hands={"Ana": [], "Ben": ["0-3"]}, ends={"m": 11}))
    assert verdict.no_playable_end and verdict.boneyard_exhausted
    assert not verdict.blocked and verdict.status == "went-out" and verdict.went_out == ("Ana",)


def test_status() -> None:
    assert check(make_state(ends={"main": 11})).status == "blocked"
    assert check(make_state(ends={"main": 3})).status == "playing"


def test_empty_table_is_never_blocked() -> None:
    verdict = check(make_state(hands={"Ana": ["1-2"], "Ben": ["3-4"]}))
    assert not verdict.blocked and {m.line for m in verdict.playable} == {"lead"}


def test_inactive_players_are_not_judged() -> None:
    raw = design_example()
    raw["players"].append({"name": "Cy", "hand": [[11, 1]], "active": False})
    verdict = check(parse_state(raw))
    assert verdict.blocked and [c.player for c in verdict.verification] == ["Ana", "Ben"]
    assert verdict.points == {"Ben": 39}  # Cy sits out: not scored
