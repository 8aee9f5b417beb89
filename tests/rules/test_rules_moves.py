"""dominocam.rules.moves: who may play where, and applying moves (the simulation API)."""

from __future__ import annotations

import pytest
from factories import make_state, t

from dominocam.errors import UserInputError
from dominocam.rules import Move, draw, legal_moves, pass_turn, play


def _where(state, player: str) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {(str(m.tile), m.line) for m in legal_moves(state, player)}


def test_any_line_lets_everyone_play_everywhere() -> None:
    state = make_state(
        "block",
        hands={"Ana": ["4-6"], "Ben": ["0-3"]},
        lines=[{"name": "Ben", "open_end": 4, "owner": "Ben"}],
    )
    assert _where(state, "Ana") == {("4-6", "Ben")}  # ownership means nothing in Block


TRAINS = [
    # (line owner, marked, may Ana play there?)
    ("Ana", False, True),  # her own train
    (None, False, True),  # the public Mexican train
    ("Ben", True, True),  # another player's train carrying a marker
    ("Ben", False, False),  # another player's unmarked train
]


@pytest.mark.parametrize(("owner", "marked", "allowed"), TRAINS)
def test_trains_own_public_and_marked(owner: str | None, marked: bool, allowed: bool) -> None:
    state = make_state(
        "mexican-train",
        hands={"Ana": ["4-6"], "Ben": ["0-3"]},
        lines=[{"name": "x", "open_end": 4, "owner": owner, "marked": marked}],
    )
    assert bool(legal_moves(state, "Ana")) == allowed


def test_an_open_double_must_be_covered_first_even_on_a_private_train() -> None:
    state = make_state(
        "mexican-train",
        hands={"Ana": ["4-6", "9-1"], "Ben": ["0-3"]},
        lines=[
            {"name": "Ben", "owner": "Ben", "tiles": [[12, 4], [4, 4]]},  # open double 4-4
            {"name": "Ana", "owner": "Ana", "tiles": [[12, 9]]},
        ],
        engine=[12, 12],
    )
    assert _where(state, "Ana") == {("4-6", "Ben")}  # 9-1 fits her own train, but must wait


def test_chicken_foot_toes_come_before_anything_else() -> None:
    state = make_state(
        "chicken-foot",
        set=9,
        hands={"Ana": ["5-1", "8-2"], "Ben": ["0-3"]},
        lines=[
            {"name": "a1", "tiles": [[9, 8]]},
            {"name": "a2", "tiles": [[9, 7]]},
            {"name": "a3", "tiles": [[9, 6]]},
            {"name": "a4", "tiles": [[9, 5], [5, 5]]},
            {"name": "toe", "tiles": [[5, 4]], "branch_of": "a4"},
        ],
        spinner=[9, 9],
    )
    assert _where(state, "Ana") == {("1-5", "a4")}  # 8-2 fits a1 but two toes are owed


def test_chicken_foot_centre_arms_come_first() -> None:
    state = make_state(
        "chicken-foot",
        set=9,
        hands={"Ana": ["9-1", "8-2"], "Ben": ["0-3"]},
        lines=[{"name": "a1", "tiles": [[9, 8]]}],
        spinner=[9, 9],
    )
    assert _where(state, "Ana") == {("1-9", "spinner")}


def test_empty_table_any_tile_leads() -> None:
    state = make_state("block", hands={"Ana": ["1-2", "3-3"], "Ben": ["0-3"]})
    assert _where(state, "Ana") == {("1-2", "lead"), ("3-3", "lead")}


def test_legal_moves_do_not_depend_on_hand_order() -> None:
    a = make_state(hands={"Ana": ["1-4", "4-6", "2-2"], "Ben": ["0-3"]}, ends={"m": 4, "n": 2})
    b = make_state(hands={"Ana": ["2-2", "4-6", "1-4"], "Ben": ["0-3"]}, ends={"n": 2, "m": 4})
    assert set(legal_moves(a, "Ana")) == set(legal_moves(b, "Ana"))


def test_inactive_player_has_no_moves() -> None:
    raw_state = make_state(hands={"Ana": ["1-4"], "Ben": ["4-4"], "Cy": ["0-0"]}, ends={"m": 4})
    from dataclasses import replace

    ben = replace(raw_state.player("Ben"), active=False)
    state = replace(raw_state, players=(raw_state.players[0], ben, raw_state.players[2]))
    assert legal_moves(state, "Ben") == ()


def test_unknown_player_is_refused() -> None:
    with pytest.raises(UserInputError, match="unknown player 'Zed'"):
        legal_moves(make_state(ends={"m": 1}), "Zed")


# --- applying moves ---------------------------------------------------------------------------


def test_play_extends_a_line_and_empties_the_hand() -> None:
    state = make_state(hands={"Ana": ["4-6"], "Ben": ["0-3"]}, ends={"m": 4})
    after = play(state, Move("Ana", t(4, 6), "m", 4))
    assert after.player("Ana").hand == ()
    assert after.layout.line("m").open_end == 6
    assert after.layout.line("m").tiles == (t(4, 6),)


def test_illegal_move_is_refused() -> None:
    state = make_state(hands={"Ana": ["4-6"], "Ben": ["0-3"]}, ends={"m": 4})
    with pytest.raises(UserInputError, match="illegal move"):
        play(state, Move("Ana", t(4, 6), "m", 6))  # the end shows 4, not 6
    with pytest.raises(UserInputError, match="cannot be played on a 5"):
        Move("Ana", t(4, 6), "m", 5)


def test_lead_builds_a_two_ended_line_or_a_spinner() -> None:
    block = make_state("block", set=6, hands={"Ana": ["2-5"], "Ben": ["0-3"]})
    after = play(block, Move("Ana", t(2, 5), "lead"))
    assert sorted(line.open_end for line in after.layout.lines) == [2, 5]
    fives = make_state("all-fives", set=6, hands={"Ana": ["5-5"], "Ben": ["0-3"]})
    after = play(fives, Move("Ana", t(5, 5), "lead"))
    assert after.layout.spinner == t(5, 5) and after.layout.lines == ()


def test_playing_on_an_implicit_train_creates_it_and_lifts_the_owners_marker() -> None:
    state = make_state(
        "mexican-train",
        hands={"Ana": ["12-3", "3-7"], "Ben": ["0-3"]},
        engine=[12, 12],
    )
    marked = pass_turn(state, "Ana")
    assert marked.layout.line("Ana's train").marked
    after = play(marked, Move("Ana", t(3, 12), "Ana's train", 12))
    line = after.layout.line("Ana's train")
    assert line.open_end == 3 and not line.marked and line.owner == "Ana"


def test_a_toe_grows_a_new_line() -> None:
    state = make_state(
        "chicken-foot",
        set=9,
        hands={"Ana": ["5-1"], "Ben": ["0-3"]},
        lines=[{"name": "a", "tiles": [[2, 5], [5, 5]], "root": 2}],
    )
    after = play(state, Move("Ana", t(1, 5), "a", 5))
    assert after.layout.line("a").toes == 1
    toe = after.layout.line("a toe 1")
    assert toe.branch_of == "a" and toe.open_end == 1


def test_draw_takes_the_next_drawable_tile() -> None:
    state = make_state(
        "draw",
        set=6,
        hands={"Ana": ["1-2"], "Ben": ["0-3"]},
        ends={"m": 6},
        boneyard=[[4, 4], [5, 5], [6, 6]],
    )
    after = draw(state, "Ana")
    assert t(4, 4) in after.player("Ana").hand and after.boneyard == 2
    with pytest.raises(UserInputError, match="reserve"):
        draw(after, "Ben")  # the last two are never drawn in the Draw game


def test_draw_needs_known_tiles() -> None:
    with pytest.raises(UserInputError, match="not known"):
        draw(make_state("draw", set=12, ends={"m": 6}, boneyard=5), "Ana")
