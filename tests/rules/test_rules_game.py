"""dominocam.rules.game: rounds accumulated into a game."""

from __future__ import annotations

import pytest
from factories import make_state

from dominocam.errors import UserInputError
from dominocam.rules import Game, RoundResult, Tile, check, descending_engines, get_variant
from dominocam.rules.game import play_game


def test_mexican_train_has_13_rounds_from_12_12_down_to_0_0() -> None:
    engines = descending_engines(12)
    assert len(engines) == 13
    assert engines[0] == Tile(12, 12) and engines[-1] == Tile(0, 0)
    assert Game(get_variant("mexican-train"), ("Ana", "Ben")).planned_rounds == 13


@pytest.mark.parametrize(("n", "rounds"), [(6, 7), (9, 10), (15, 16)])
def test_one_round_per_double(n: int, rounds: int) -> None:
    assert Game(get_variant("chicken-foot"), ("A", "B"), max_pip=n).planned_rounds == rounds


def test_mexican_train_lowest_cumulative_total_wins() -> None:
    game = Game(get_variant("mexican-train"), ("Ana", "Ben", "Cy"))
    assert game.next_engine() == Tile(12, 12)
    for number in range(13):
        game = game.record(RoundResult({"Ana": 10, "Ben": 5 + (number == 0) * 100, "Cy": 7}))
    assert game.is_over and game.next_engine() is None
    assert game.totals() == {"Ana": 130, "Ben": 165, "Cy": 91}
    assert game.winners() == ("Cy",)
    assert game.standings()[0] == ("Cy", 91)
    assert [r.engine for r in game.rounds][:2] == [Tile(12, 12), Tile(11, 11)]
    with pytest.raises(UserInputError, match="the game is over"):
        game.record(RoundResult({"Ana": 0}))


def test_target_game_first_to_target_wins() -> None:
    game = play_game(
        get_variant("block"),
        ("Ana", "Ben"),
        [RoundResult({"Ana": 60}), RoundResult({"Ben": 30}), RoundResult({"Ana": 45})],
    )
    assert game.is_over and game.winners() == ("Ana",) and game.totals() == {"Ana": 105, "Ben": 30}
    assert game.planned_rounds is None and game.next_engine() is None


def test_rounds_from_verdicts_accumulate() -> None:
    variant = get_variant("mexican-train")
    verdict = check(
        make_state("mexican-train", hands={"Ana": ["1-2"], "Ben": ["5-10"]}, ends={"m": 11})
    )
    game = Game(variant, ("Ana", "Ben")).record(RoundResult.from_verdict(verdict))
    assert game.totals() == {"Ana": 3, "Ben": 15} and not game.is_over


def test_a_result_must_come_from_a_blocked_round() -> None:
    verdict = check(make_state(hands={"Ana": ["1-11"], "Ben": ["5-10"]}, ends={"m": 11}))
    with pytest.raises(UserInputError, match="only a blocked round"):
        RoundResult.from_verdict(verdict)


def test_unknown_names_and_negative_points_are_refused() -> None:
    with pytest.raises(UserInputError, match="unknown Zed"):
        Game(get_variant("block"), ("Ana", "Ben")).record(RoundResult({"Zed": 3}))
    with pytest.raises(UserInputError, match=">= 0"):
        RoundResult({"Ana": -1})
    with pytest.raises(UserInputError, match="two distinct"):
        Game(get_variant("block"), ("Ana", "Ana"))


def test_game_to_json() -> None:
    game = Game(get_variant("mexican-train"), ("Ana", "Ben")).record(RoundResult({"Ana": 4}))
    data = game.to_json()
    assert data["totals"] == {"Ana": 4, "Ben": 0} and data["next_engine"] == [11, 11]
