"""rules.ruling: the verdict in words, as a referee would rule."""

from __future__ import annotations

from factories import design_example, make_state

from rules import check, parse_state, ruling


def _say(state) -> str:  # type: ignore[no-untyped-def]
    return ruling(check(state), state)


def test_design_example_ruling() -> None:
    text = _say(parse_state(design_example()))
    for part in (
        "Open ends: main 11; Ben 4 (Ben's).",
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
    assert "Condition 1, no playable end: FAILS. Still playable:\n  Ben: 4-6 on side (4)" in text
    assert "3 tiles can still be drawn (boneyard 5, 2 of them never drawn)" in text
    assert "1. Cy cannot play, as proposed: confirmed." in text
    assert "2. Ana cannot play: confirmed." in text
    assert "3. Ben CAN play: 4-6 on side (4). The check stops here." in text
    assert "FOUL: Ben declared they cannot play but holds 4-6 on side (4)." in text
    assert "Verdict: NOT BLOCKED (condition 1 and condition 2 fail)" in text
    assert "Winner: none yet." in text


def test_a_proposer_who_can_play_is_told_as_proposed_not_declared() -> None:
    state = make_state(
        hands={"Ana": ["4-6"], "Ben": ["0-1"]}, ends={"main": 11, "side": 4}, proposer="Ana"
    )
    text = _say(state)
    assert "FOUL: Ana proposed a block but can still play 4-6 on side (4)." in text
    assert "declared" not in text


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
