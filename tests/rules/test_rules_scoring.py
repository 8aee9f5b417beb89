"""dominocam.rules.scoring: winner, ties per policy and points, one case per variant setting."""

from __future__ import annotations

from typing import Any

import pytest
from factories import make_state

from dominocam.errors import UserInputError
from dominocam.rules import Verdict, check, round_to_nearest_5, score_domino

# Pip totals Ana 3, Ben 27, Cy 28; nobody can play on an 11 end.
THREE = {"Ana": ["0-3"], "Ben": ["7-10", "4-6"], "Cy": ["12-10", "2-4"]}
# Ana and Ben tie at 5; Ana's lightest tile is 0-2, Ben's is 1-4; Cy holds 17.
TIE = {"Ana": ["0-2", "0-3"], "Ben": ["1-4"], "Cy": ["7-10"]}
# Partners facing each other: N+S = 19 (team A), E+W = 13 (team B).
PAIRS = {"N": ["0-1"], "E": ["5-6"], "S": ["9-9"], "W": ["0-2"]}


def blocked(variant: str = "seed", hands: dict[str, list[str]] | None = None, **kw: Any) -> Verdict:
    verdict = check(make_state(variant, hands=hands or THREE, ends={"m": 11}, **kw))
    assert verdict.blocked
    return verdict


def test_the_founding_rule_lowest_hand_takes_the_others() -> None:
    verdict = blocked()
    assert verdict.pip_totals == {"Ana": 3, "Ben": 27, "Cy": 28}
    assert verdict.winner == "Ana" and verdict.tied == () and verdict.points == {"Ana": 55}


@pytest.mark.parametrize(
    ("value", "rounded"),
    [(27, 25), (28, 30), (25, 25), (22, 20), (23, 25), (0, 0), (2, 0), (3, 5)],
)
def test_round_to_nearest_5(value: int, rounded: int) -> None:
    assert round_to_nearest_5(value) == rounded


POINTS = [
    # (rules overrides, points for Ana, whose hand is 3 against 27 and 28)
    ({"points": "others"}, 55),
    ({"points": "others-minus-own"}, 52),
    ({"points": "all-hands"}, 58),
    ({"points": "none"}, 0),
    ({"points": "none", "bonus": 2}, 2),
    ({"points": "others", "bonus": 10}, 65),
    ({"points": "others", "rounding": "nearest-5-each"}, 55),  # 27 -> 25, 28 -> 30
    ({"points": "others", "rounding": "nearest-5"}, 55),
    ({"points": "others-minus-own", "rounding": "nearest-5"}, 50),  # 52 -> 50
    ({"points": "others-minus-own", "rounding": "nearest-5-each"}, 50),  # 25 + 30 - 5
]


@pytest.mark.parametrize(("rules", "points"), POINTS)
def test_points_settings(rules: dict[str, Any], points: int) -> None:
    assert blocked(rules=rules).points == {"Ana": points}


@pytest.mark.parametrize(
    ("variant", "points"),
    [
        ("seed", {"Ana": 55}),
        ("block", {"Ana": 55}),
        ("draw", {"Ana": 52}),
        ("all-fives", {"Ana": 55}),
        ("bergen", {"Ana": 1}),
        ("mexican-train", {"Ana": 3, "Ben": 27, "Cy": 28}),
        ("chicken-foot", {"Ana": 3, "Ben": 27, "Cy": 28}),
    ],
)
def test_default_points_per_variant(variant: str, points: dict[str, int]) -> None:
    assert blocked(variant, set=12).points == points


def test_penalty_names_the_lowest_hand_without_a_bonus() -> None:
    verdict = blocked("mexican-train")
    assert verdict.winner == "Ana"
    assert verdict.score is not None and "penalty" in verdict.score.award


@pytest.mark.parametrize(("value", "winner"), [(0, "Ana"), (25, "Ben"), (50, "Ben")])
def test_double_blank_value_decides_the_winner(value: int, winner: str) -> None:
    verdict = blocked(hands={"Ana": ["0-0", "1-1"], "Ben": ["4-6"]}, rules={"double_blank": value})
    assert verdict.winner == winner
    assert verdict.pip_totals["Ana"] == value + 2


def test_penalty_with_a_double_blank_of_50() -> None:
    hands = {"Ana": ["0-0"], "Ben": ["1-2"]}
    verdict = blocked("chicken-foot", hands=hands, set=12, rules={"double_blank": 50})
    assert verdict.points == {"Ana": 50, "Ben": 3} and verdict.winner == "Ben"


# --- who wins -------------------------------------------------------------------------------


def test_lowest_team_total_wins_the_partnership() -> None:
    verdict = blocked("partnership", hands=PAIRS, set=12)
    assert verdict.winner == "B" and verdict.points == {"B": 19}  # the losing team's pips
    assert verdict.team_totals == {"A": 19, "B": 13}
    assert verdict.score is not None and verdict.score.unit == "team"


def test_partnership_all_hands_variation() -> None:
    verdict = blocked("partnership", hands=PAIRS, set=12, rules={"points": "all-hands"})
    assert verdict.points == {"B": 32}


def test_partnership_with_given_teams() -> None:
    teams = {"N": "x", "E": "x", "S": "y", "W": "y"}
    verdict = blocked("partnership", hands=PAIRS, set=12, teams=teams)
    assert verdict.winner == "x" and verdict.points == {"x": 20}  # y holds 18 + 2


def test_lowest_hand_with_team_points() -> None:
    teams = {"N": "A", "E": "B", "S": "A", "W": "B"}
    verdict = blocked(hands=PAIRS, teams=teams, rules={"points": "losing-team"})
    assert verdict.winner == "A" and verdict.points == {"A": 13}  # N holds the lowest hand


@pytest.mark.parametrize(
    ("hands", "winner", "why"),
    [
        ({"Ana": ["1-1"], "Ben": ["2-3"]}, "Ben", "holding no double"),  # 5 beats 2 with a double
        ({"Ana": ["1-1"], "Ben": ["2-2"]}, "Ana", "every hand holding a double"),
        ({"Ana": ["0-1"], "Ben": ["2-3"]}, "Ana", "lowest hand"),
    ],
)
def test_bergen_a_hand_without_a_double_beats_one_with(
    hands: dict[str, list[str]], winner: str, why: str
) -> None:
    verdict = blocked("bergen", hands=hands, set=12)
    assert verdict.winner == winner and verdict.points == {winner: 1}
    assert verdict.score is not None and why in verdict.score.reason


@pytest.mark.parametrize(
    ("extra", "blocker"),
    [({}, "Cy"), ({"proposer": "Ben"}, "Ana"), ({"last_played": "Ben"}, "Ben")],
)
def test_old_hoyle_the_player_who_caused_the_block_wins(
    extra: dict[str, str], blocker: str
) -> None:
    verdict = blocked(rules={"block_winner": "blocker"}, **extra)
    assert verdict.winner == blocker
    others = sum(v for k, v in verdict.pip_totals.items() if k != blocker)
    assert verdict.points == {blocker: others}


def test_points_are_never_negative() -> None:
    hands = {"Ana": ["0-3"], "Ben": ["1-4"], "Cy": ["12-10", "2-4"]}
    rules = {"block_winner": "blocker", "points": "others-minus-own"}
    verdict = blocked(hands=hands, rules=rules, last_played="Cy")
    assert verdict.points == {"Cy": 0}  # 8 - 28 would be negative


# --- ties -----------------------------------------------------------------------------------

TIES = [
    # (tie policy, extra state fields, winner, points, void)
    ("no-score", {}, None, {}, False),
    ("void", {}, None, {}, True),
    ("split", {}, None, {"Ana": 8, "Ben": 8}, False),  # Cy's 17 shared, rounded down
    ("lightest-tile", {}, "Ana", {"Ana": 22}, False),  # 0-2 is lighter than 1-4
    ("leader", {}, "Ana", {"Ana": 22}, False),  # Ana led (the default: the first player)
    ("leader", {"leader": "Ben"}, "Ben", {"Ben": 22}, False),
    ("leader", {"leader": "Cy"}, "Ana", {"Ana": 22}, False),  # first tied player after Cy
]


@pytest.mark.parametrize(("tie", "extra", "winner", "points", "void"), TIES)
def test_ties_under_each_policy(
    tie: str, extra: dict[str, str], winner: str | None, points: dict[str, int], void: bool
) -> None:
    verdict = blocked(hands=TIE, rules={"tie": tie}, **extra)
    assert verdict.tied == ("Ana", "Ben")
    assert verdict.winner == winner and verdict.points == points
    assert verdict.score is not None and verdict.score.void == void


def test_split_of_others_minus_own() -> None:
    verdict = blocked(hands=TIE, rules={"tie": "split", "points": "others-minus-own"})
    assert verdict.points == {"Ana": 6, "Ben": 6}  # (17 - 5) / 2


def test_lightest_tile_still_tied_scores_nothing() -> None:
    hands = {"Ana": ["0-5"], "Ben": ["1-4"], "Cy": ["7-10"]}
    verdict = blocked(hands=hands, rules={"tie": "lightest-tile"})
    assert verdict.winner is None and verdict.points == {} and verdict.tied == ("Ana", "Ben")


def test_a_team_tie() -> None:
    hands = {"N": ["0-1"], "E": ["0-2"], "S": ["2-3"], "W": ["1-3"]}  # A = 6, B = 6
    verdict = blocked("partnership", hands=hands, set=12)
    assert verdict.tied == ("A", "B") and verdict.winner is None and verdict.points == {}


def test_partners_tied_for_the_lowest_hand_are_no_tie() -> None:
    hands = {"N": ["0-2"], "E": ["5-6"], "S": ["1-1"], "W": ["3-4"]}
    teams = {"N": "A", "E": "B", "S": "A", "W": "B"}
    verdict = blocked(hands=hands, teams=teams, rules={"points": "losing-team"})
    assert verdict.winner == "A" and verdict.tied == ()


def test_a_tie_under_penalty_scoring_keeps_the_penalties() -> None:
    verdict = blocked("mexican-train", hands=TIE)
    assert verdict.winner is None and verdict.tied == ("Ana", "Ben")
    assert verdict.points == {"Ana": 5, "Ben": 5, "Cy": 17}


# --- a round ended by domino ----------------------------------------------------------------


def test_score_domino() -> None:
    state = make_state(hands={"Ana": [], "Ben": ["7-10"], "Cy": ["2-4"]}, ends={"m": 11})
    score = score_domino(state, "Ana")
    assert score.winner == "Ana" and score.points == {"Ana": 23}
    penalty = score_domino(
        make_state("mexican-train", hands={"Ana": [], "Ben": ["1-2"]}, ends={"m": 11}), "Ana"
    )
    assert penalty.points == {"Ana": 0, "Ben": 3}


def test_score_domino_needs_an_empty_hand() -> None:
    with pytest.raises(UserInputError, match="still holds 1 tile"):
        score_domino(make_state(hands=THREE, ends={"m": 11}), "Ana")
