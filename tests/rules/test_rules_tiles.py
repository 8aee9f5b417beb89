"""dominocam.rules.tiles: pip values (docs/rules.md, the blocked game's "Scoring") and set sizes
(what varies)."""

from __future__ import annotations

import pytest

from dominocam.errors import UserInputError
from dominocam.rules.tiles import SUPPORTED_SETS, Tile, full_set, hand_points, parse_tile, set_size


@pytest.mark.parametrize(
    ("a", "b", "pips"),
    [
        (5, 10, 15),  # docs/rules.md: "a 5-10 counts 15"
        (10, 5, 15),
        (12, 12, 24),  # docs/rules.md: "the double 12-12 counts 24"
        (0, 0, 0),
        (15, 15, 30),
    ],
)
def test_pip_value_is_the_sum_of_both_halves(a: int, b: int, pips: int) -> None:
    assert Tile.of(a, b).pips == pips


@pytest.mark.parametrize(("n", "size"), [(6, 28), (9, 55), (12, 91), (15, 136)])
def test_double_n_sets_have_n_plus_1_n_plus_2_over_2_tiles(n: int, size: int) -> None:
    assert set_size(n) == size
    tiles = full_set(n)
    assert len(tiles) == len(set(tiles)) == size
    assert max(t.high for t in tiles) == n


def test_supported_sets_are_6_9_12_15() -> None:
    assert SUPPORTED_SETS == (6, 9, 12, 15)


@pytest.mark.parametrize("value", [0, 25, 50])
def test_double_blank_value_is_a_setting(value: int) -> None:
    assert Tile(0, 0).points(value) == value
    assert hand_points([Tile(0, 0), Tile(5, 10)], value) == value + 15
    assert Tile(0, 5).points(value) == 5  # only the double-blank changes


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([5], "cannot read tile"),
        ("x-y", "cannot read tile"),
        ([1.5, 2], "whole numbers"),
        ([-1, 2], "whole numbers"),
        ([True, 2], "whole numbers"),
        ([3, 13], "above 12"),
    ],
)
def test_parse_tile_rejects_bad_tiles(raw: object, message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        parse_tile(raw, 12)


def test_tile_is_unordered() -> None:
    assert parse_tile([10, 5]) == parse_tile("5-10") == Tile(5, 10)
    assert Tile(3, 4).other_half(3) == 4
