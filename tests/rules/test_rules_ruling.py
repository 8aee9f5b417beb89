"""dominocam.rules.ruling: the verdict in words, as a referee would rule."""

from __future__ import annotations

import pytest
from factories import design_example, make_state

from dominocam.errors import UserInputError
from dominocam.i18n import use_language
from dominocam.rules import check, parse_state, ruling
from dominocam.rules.places import line_words

# A line a person named, with no place on a photo: its name and its open end.
SIDE = "“side” (open end 4)"


def _say(state) -> str:  # type: ignore[no-untyped-def]
    return ruling(check(state), state)


def test_design_example_ruling() -> None:
    text = _say(parse_state(design_example()))
    for part in (
        "Open ends: “main” (open end 11); Ben's train (open end 4).",
        "Condition 1, no playable end: HOLDS.",
        "Condition 2, boneyard exhausted: HOLDS. Block never draws.",
        "Verification, clockwise from Ana:",
        "1. Ana cannot play, as proposed: confirmed.",
        "2. Ben cannot play: confirmed.",
        "Verdict: BLOCKED.",
        "Pip totals: Ana 39 (5-10, 12-12); Ben 3 (0-3).",
        "Winner: Ben, lowest hand (3 pips).",
        "Points: Ben scores 39 (the winner takes the others' pips).",
    ):
        assert part in text, part


def test_not_blocked_ruling_names_who_can_play_what_where() -> None:
    state = make_state(
        "draw",
        set=12,
        hands={"Ana": ["0-1"], "Ben": ["4-6"], "Cy": ["2-2"]},
        ends={"main": 11, "side": 4},
        boneyard=5,
        proposer="Cy",
        declarations=["Ben"],
    )
    text = _say(state)
    assert f"Condition 1, no playable end: FAILS. Still playable:\n  Ben: 4-6 on {SIDE}" in text
    assert "3 tiles can still be drawn (boneyard 5, 2 of them never drawn)" in text
    assert "1. Cy cannot play, as proposed: confirmed." in text
    assert "2. Ana cannot play: confirmed." in text
    assert f"3. Ben CAN play: 4-6 on {SIDE}. The check stops here." in text
    assert f"FOUL: Ben declared they cannot play but holds 4-6 on {SIDE}." in text
    assert "Verdict: NOT BLOCKED (condition 1 and condition 2 fail)" in text
    assert "Winner: none yet." in text


def test_a_proposer_who_can_play_is_told_as_proposed_not_declared() -> None:
    state = make_state(
        hands={"Ana": ["4-6"], "Ben": ["0-1"]}, ends={"main": 11, "side": 4}, proposer="Ana"
    )
    text = _say(state)
    assert f"FOUL: Ana proposed a block but can still play 4-6 on {SIDE}." in text
    assert "declared" not in text


def test_a_ruling_names_a_line_by_what_players_see() -> None:
    """Issue 34: "line 5" means nothing to a player. Today's failure: "4-6 on line 2 (4)"."""
    state = parse_state(
        {
            "variant": "block",
            "set": 6,
            "players": [{"name": "Ana", "hand": [[4, 6]]}, {"name": "Ben", "hand": [[0, 1]]}],
            "layout": {
                "lines": [
                    {"name": "line 1", "open_end": 3, "place": "bottom-left"},
                    {"name": "line 2", "open_end": 4, "place": "top-right"},
                ]
            },
            "proposer": "Ben",
        }
    )
    text = _say(state)
    assert "Open ends: the 3 at the bottom left; the 4 at the top right." in text
    assert "Ana CAN play: 4-6 on the 4 at the top right. The check stops here." in text
    assert "line 1" not in text and "line 2" not in text
    with use_language("hu"):
        hungarian = _say(state)
    assert "line" not in hungarian and "top right" not in hungarian


def test_a_line_without_a_place_is_named_by_its_open_end_or_owner() -> None:
    assert line_words(5) == "the line ending in 5"
    assert line_words(5, name="left") == "“left” (open end 5)"
    assert line_words(5, name="Ben", owner="Ben", place="top") == "Ben's train"
    assert line_words(5, place="bottom-right", name="line 3") == "the 5 at the bottom right"
    assert line_words(0, kind="train", name="mexican") == "the public train"
    assert line_words(6, kind="spinner-arm", name="spinner") == "the spinner"
    assert line_words(None, kind="lead") == "the empty table"
    with pytest.raises(UserInputError, match="place must be one of"):
        parse_state(
            {
                "variant": "block",
                "players": [{"name": "Ana", "hand": []}],
                "layout": {"lines": [{"name": "a", "open_end": 1, "place": "up there"}]},
            }
        )


def test_tie_and_penalty_rulings() -> None:
    tie = make_state(hands={"Ana": ["0-5"], "Ben": ["1-4"]}, ends={"m": 11})
    assert "Winner: none. Ana, Ben tie: no score." in _say(tie)
    assert "Points: nobody scores." in _say(tie)
    mexican = make_state("mexican-train", hands={"Ana": ["0-5"], "Ben": ["1-2"]}, ends={"m": 11})
    assert "Points: Ana 5, Ben 3 (every player scores their own pips as a penalty" in _say(mexican)


def test_reserve_and_went_out_rulings() -> None:
    reserve = make_state(
        "draw", set=12, hands={"Ana": ["0-1"], "Ben": ["2-3"]}, ends={"m": 11}, boneyard=2
    )
    assert "The boneyard holds 2, and the last 2 may never be drawn." in _say(reserve)
    out = make_state(hands={"Ana": [], "Ben": ["2-3"]}, ends={"m": 11})
    assert "Ana has no tiles left: the round ended by domino" in _say(out)
