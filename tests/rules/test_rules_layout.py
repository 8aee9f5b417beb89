"""dominocam.rules.layout: lines and their open ends, spinner arms, the train hub, open doubles."""

from __future__ import annotations

import pytest
from factories import hand, t

from dominocam.errors import UserInputError
from dominocam.rules.layout import (
    END_LEAD,
    END_SPINNER,
    END_TRAIN,
    Layout,
    Line,
    chain_end,
    infer_root,
)
from dominocam.rules.variants import get_variant


@pytest.mark.parametrize(
    ("root", "tiles", "end"),
    [
        (3, ["3-4", "4-6"], 6),
        (12, ["12-5", "5-5", "5-11"], 11),
        (4, [], 4),
        (6, ["6-6"], 6),
    ],
)
def test_chain_end_follows_matching_halves(root: int, tiles: list[str], end: int) -> None:
    assert chain_end(root, hand(*tiles)) == end


def test_chain_end_rejects_a_tile_that_does_not_match() -> None:
    with pytest.raises(UserInputError, match=r"tile 5-6 \(number 2 from the root\) does not match"):
        chain_end(3, hand("3-4", "5-6"), "main")


@pytest.mark.parametrize(
    ("tiles", "root"),
    [(["3-4", "4-6"], 3), (["4-3", "3-3"], 4), (["5-5", "5-1"], 5), (["2-2"], 2)],
)
def test_root_is_read_from_the_first_two_tiles(tiles: list[str], root: int) -> None:
    assert infer_root(hand(*tiles)) == root


@pytest.mark.parametrize(
    ("tiles", "message"),
    [(["3-4"], "give the line's root"), (["3-4", "5-6"], "do not match"), ([], "no tiles")],
)
def test_root_that_cannot_be_read(tiles: list[str], message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        infer_root(hand(*tiles))


def test_line_from_tiles_derives_open_end_and_open_double() -> None:
    line = Line.from_tiles("Ben", hand("12-4", "4-4"), 12, owner="Ben")
    assert line.open_end == 4 and line.open_double and line.owner == "Ben"
    closed = Line.from_tiles("Ana", hand("12-4", "4-4", "4-9"), 12)
    assert closed.open_end == 9 and not closed.open_double


def test_line_with_inconsistent_open_end_is_rejected() -> None:
    with pytest.raises(UserInputError, match="its tiles end on 6"):
        Line("x", 5, hand("3-4", "4-6"), 3)


def test_duplicate_line_names_are_rejected() -> None:
    with pytest.raises(UserInputError, match="two lines are called 'a'"):
        Layout((Line("a", 1), Line("a", 2)))


@pytest.mark.parametrize("hub", ["spinner", "engine"])
def test_hub_must_be_a_double(hub: str) -> None:
    with pytest.raises(UserInputError, match="must be a double"):
        Layout(**{hub: t(5, 6)})


def test_plain_lines_are_the_open_ends() -> None:
    layout = Layout((Line("main", 11), Line("Ben", 4, owner="Ben")))
    ends = layout.open_ends(get_variant("block"), ["Ana", "Ben"])
    assert [(e.line, e.value, e.owner) for e in ends] == [("main", 11, None), ("Ben", 4, "Ben")]


def test_empty_table_accepts_a_lead() -> None:
    (end,) = Layout().open_ends(get_variant("block"))
    assert end.kind == END_LEAD and end.accepts(t(6, 6)) and end.value is None


@pytest.mark.parametrize(("arms", "free"), [(0, True), (2, True), (3, True), (4, False)])
def test_spinner_has_up_to_four_arms(arms: int, free: bool) -> None:
    lines = tuple(Line(f"arm{i}", i, hand(f"6-{i}"), 6, on_hub=True) for i in range(arms))
    layout = Layout(lines, spinner=t(6, 6))
    ends = layout.open_ends(get_variant("all-fives"), ["Ana", "Ben"])
    spinner = [e for e in ends if e.kind == END_SPINNER]
    assert bool(spinner) == free
    if free:
        assert spinner[0].value == 6 and not spinner[0].pending


def test_spinner_first_makes_unstarted_arms_pending() -> None:
    layout = Layout((Line("a", 3, hand("9-3"), 9, on_hub=True),), spinner=t(9, 9))
    ends = layout.open_ends(get_variant("chicken-foot"), ["Ana", "Ben"])
    spinner = next(e for e in ends if e.kind == END_SPINNER)
    assert spinner.needs == 3 and spinner.pending


def test_engine_gives_every_player_a_train_and_a_public_mexican_train() -> None:
    ana = Line.from_tiles("Ana", hand("12-3"), 12, owner="Ana", on_hub=True)
    layout = Layout((ana,), engine=t(12, 12))
    ends = layout.open_ends(get_variant("mexican-train"), ["Ana", "Ben", "Cy"])
    assert [(e.line, e.value, e.owner, e.kind) for e in ends] == [
        ("Ana", 3, "Ana", "line"),
        ("Ben's train", 12, "Ben", END_TRAIN),
        ("Cy's train", 12, "Cy", END_TRAIN),
        ("mexican", 12, None, END_TRAIN),
    ]


def test_an_existing_public_line_replaces_the_implicit_mexican_train() -> None:
    public = Line.from_tiles("M", hand("12-1"), 12, on_hub=True)
    layout = Layout((public,), engine=t(12, 12))
    ends = layout.open_ends(get_variant("mexican-train"), ["Ana", "Ben"])
    assert [e.line for e in ends] == ["M", "Ana's train", "Ben's train"]


@pytest.mark.parametrize(
    ("variant", "toes", "needs", "closed"),
    [
        ("mexican-train", 0, 1, False),  # cover the double first
        ("chicken-foot", 0, 3, False),  # three toes first
        ("chicken-foot", 2, 1, False),
        ("chicken-foot", 3, 0, True),  # all toes played: the double's own end is closed
        ("block", 0, 0, False),  # no open-double rule: an ordinary end
        ("block", 1, 0, True),  # something grows from it: closed
    ],
)
def test_open_double_state(variant: str, toes: int, needs: int, closed: bool) -> None:
    line = Line("foot", 5, hand("2-5", "5-5"), 2, open_double=True, toes=toes)
    ends = Layout((line,)).open_ends(get_variant(variant), ["Ana", "Ben"])
    if closed:
        assert ends == ()
    else:
        assert ends[0].needs == needs and ends[0].pending == (needs > 0)


def test_branch_must_start_on_its_parent_end() -> None:
    parent = Line("foot", 5, hand("2-5", "5-5"), 2, open_double=True, toes=1)
    toe = Line("toe", 1, hand("4-1"), 4, branch_of="foot")
    with pytest.raises(UserInputError, match="whose end shows 5, but starts on 4"):
        Layout((parent, toe))


def test_table_tiles_lists_the_hub_and_every_line_tile() -> None:
    layout = Layout((Line("a", 3, hand("6-3"), 6, on_hub=True),), spinner=t(6, 6))
    assert [tile for tile, _ in layout.table_tiles()] == [t(6, 6), t(3, 6)]
