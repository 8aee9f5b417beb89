"""dominocam.rules.variants: variants as data, resolved by name, every setting overridable."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dominocam.errors import UserInputError
from dominocam.rules.variants import SETTINGS, VARIANTS, Variant, get_variant, variant_names

REQUIRED = (
    "block",
    "draw",
    "all-fives",
    "mexican-train",
    "chicken-foot",
    "partnership",
    "bergen",
    "seed",
)


def test_every_required_variant_exists() -> None:
    assert set(REQUIRED) <= set(variant_names())
    assert all(isinstance(VARIANTS[name], Variant) for name in REQUIRED)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("block", {"play": "any-line", "draw": "none", "points": "others", "tie": "no-score"}),
        ("draw", {"draw": "until-playable", "reserve": 2, "points": "others-minus-own"}),
        ("all-fives", {"spinner_arms": 4, "rounding": "nearest-5-each", "draw": "until-playable"}),
        (
            "mexican-train",
            {
                "play": "trains",
                "double_cover": 1,
                "draw": "one-then-pass",
                "points": "penalty",
                "game_end": "descending-doubles",
                "set": 12,
            },
        ),
        (
            "chicken-foot",
            {"double_cover": 3, "spinner_first": True, "points": "penalty", "set": 9},
        ),
        ("partnership", {"block_winner": "lowest-team", "points": "losing-team", "draw": "none"}),
        ("bergen", {"block_winner": "no-double", "reserve": 2, "points": "none", "bonus": 1}),
        (
            "seed",
            {
                "play": "any-line",
                "draw": "until-playable",
                "reserve": 0,
                "block_winner": "lowest-hand",
                "points": "others",
                "double_cover": 0,
            },
        ),
    ],
)
def test_variant_defaults(name: str, expected: dict[str, object]) -> None:
    variant = get_variant(name)
    for key, value in expected.items():
        assert getattr(variant, key) == value, key


@pytest.mark.parametrize("name", REQUIRED)
def test_every_variant_names_sources_for_its_scoring_defaults(name: str) -> None:
    sources = VARIANTS[name].sources
    for setting in ("block_winner", "points"):
        assert sources.get(setting), f"{name}.{setting} has no source"


@pytest.mark.parametrize("typo", ["mexican", "blok", "Chicken-Feet", "", "latin"])
def test_unknown_variant_lists_the_valid_names(typo: str) -> None:
    with pytest.raises(UserInputError) as error:
        get_variant(typo)
    message = str(error.value)
    assert "unknown variant" in message
    for name in REQUIRED:
        assert name in message
    assert isinstance(error.value, ValueError)


def test_variant_names_are_case_and_separator_insensitive() -> None:
    assert get_variant("Mexican_Train").name == "mexican-train"
    assert get_variant("ALL FIVES").name == "all-fives"


def test_a_typo_gets_a_suggestion() -> None:
    with pytest.raises(UserInputError, match="did you mean 'mexican-train'"):
        get_variant("mexican-trian")


GOOD_OVERRIDES = [
    ("play", "trains"),
    ("double_cover", 3),
    ("spinner_arms", 6),
    ("spinner_first", True),
    ("draw", "one-then-pass"),
    ("reserve", 1),
    ("block_winner", "blocker"),
    ("points", "all-hands"),
    ("rounding", "nearest-5"),
    ("bonus", 10),
    ("tie", "lightest-tile"),
    ("double_blank", 50),
    ("game_end", "descending-doubles"),
    ("target", 250),
]
BAD_OVERRIDES = [
    ("play", "own-line"),
    ("double_cover", -1),
    ("spinner_arms", 0),
    ("spinner_first", "yes"),
    ("draw", "always"),
    ("reserve", "two"),
    ("block_winner", "highest"),
    ("points", 3),
    ("rounding", "nearest-10"),
    ("bonus", -5),
    ("tie", "coin-flip"),
    ("double_blank", True),
    ("game_end", "forever"),
    ("target", 0),
]


def test_every_setting_has_a_good_and_a_bad_case() -> None:
    assert {k for k, _ in GOOD_OVERRIDES} == set(SETTINGS) == {k for k, _ in BAD_OVERRIDES}


@pytest.mark.parametrize(("setting", "value"), GOOD_OVERRIDES)
def test_every_setting_can_be_overridden(setting: str, value: object) -> None:
    variant = get_variant("block", {setting: value})
    assert getattr(variant, setting) == value
    assert variant.name == "block"


@pytest.mark.parametrize(("setting", "value"), BAD_OVERRIDES)
def test_a_bad_value_is_rejected_with_the_valid_options(setting: str, value: object) -> None:
    with pytest.raises(UserInputError) as error:
        get_variant("block", {setting: value})
    message = str(error.value)
    assert f"rules.{setting}" in message and "valid" in message
    if SETTINGS[setting].kind == "choice":
        for choice in SETTINGS[setting].choices:
            assert choice in message


def test_unknown_setting_lists_the_valid_settings() -> None:
    with pytest.raises(UserInputError) as error:
        get_variant("block", {"ties": "split"})
    message = str(error.value)
    assert "unknown setting 'ties'" in message and "did you mean 'tie'" in message
    for name in SETTINGS:
        assert name in message


def test_dashes_are_accepted_in_setting_names() -> None:
    assert get_variant("draw", {"double-blank": 25}).double_blank == 25


@pytest.mark.parametrize(
    ("draw", "reserve", "boneyard", "drawable"),
    [
        ("none", 0, 14, 0),  # Block: undealt tiles sit out
        ("until-playable", 2, 2, 0),  # Draw: the last two are never drawn
        ("until-playable", 2, 3, 1),
        ("until-playable", 0, 0, 0),
        ("one-then-pass", 0, 5, 5),
        ("one-then-pass", 1, 0, 0),
    ],
)
def test_drawable_tiles(draw: str, reserve: int, boneyard: int, drawable: int) -> None:
    variant = get_variant("seed", {"draw": draw, "reserve": reserve})
    assert variant.drawable(boneyard) == drawable


@pytest.mark.parametrize(
    ("name", "players", "tiles"),
    [
        ("block", 2, 7),
        ("block", 4, 5),
        ("mexican-train", 4, 15),
        ("mexican-train", 6, 12),
        ("mexican-train", 9, 8),
        ("partnership", 4, 7),
        ("all-fives", 2, 9),
    ],
)
def test_hand_sizes(name: str, players: int, tiles: int) -> None:
    assert get_variant(name).hand_size(players) == tiles


def test_hand_size_for_an_unplayable_count_is_refused() -> None:
    with pytest.raises(UserInputError, match="not 3"):
        get_variant("partnership").hand_size(3)


def test_to_json_is_the_settings_with_name_and_sources() -> None:
    data = get_variant("bergen").to_json()
    assert data["name"] == "bergen" and data["bonus"] == 1 and "sources" in data
    for setting in SETTINGS:
        assert setting in data


def test_team_scoring() -> None:
    assert get_variant("partnership").team_scoring
    assert not get_variant("block").team_scoring
    assert get_variant("block", {"points": "losing-team"}).team_scoring
    assert not get_variant("block", {"points": "all-hands"}).team_scoring


def test_every_variant_names_its_layout_and_engine_games_are_data() -> None:
    from dominocam.rules.variants import LAYOUT_KINDS

    assert {name: v.layout for name, v in VARIANTS.items() if v.layout != "line"} == {
        "all-fives": "spinner",
        "mexican-train": "mexican",
        "chicken-foot": "chicken",
    }
    assert all(v.layout in LAYOUT_KINDS for v in VARIANTS.values())
    assert sorted(n for n, v in VARIANTS.items() if v.engine_rounds) == [
        "chicken-foot",
        "mexican-train",
    ]


def test_a_variant_with_an_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="layout"):
        replace(VARIANTS["block"], layout="star")
