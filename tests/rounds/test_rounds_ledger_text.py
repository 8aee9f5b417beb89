"""dominocam.rounds.ledger_text: Scenes into the ledger's reports, and its problems, stock and grid
in words (issue 32)."""

from __future__ import annotations

from typing import Any

import pytest
from factories import t

from dominocam.i18n import use_language
from dominocam.rounds.ledger_text import (
    boneyard_report,
    hand_report,
    ledger_grid,
    ledger_text,
    player_marks,
    problem_text,
    stock_text,
    table_report,
)
from dominocam.rules import get_variant
from dominocam.rules.ledger import (
    TABLE,
    BoneyardReport,
    CountSource,
    FaceDown,
    HandReport,
    HandStatus,
    Holder,
    HolderKind,
    Problem,
    ProblemCode,
    TableReport,
    reconcile,
)
from dominocam.vision.scene import Scene


def scene(*tiles: tuple[int, int] | str, doubtful: int | None = None) -> Any:
    """A Scene of tiles side by side: (a, b) face up, "down" face down, "unread" face up and
    not read; tile `doubtful` marked doubtful."""
    out = []
    for i, spec in enumerate(tiles):
        corners = [[10 + 50 * i, 10], [50 + 50 * i, 10], [50 + 50 * i, 90], [10 + 50 * i, 90]]
        item: dict[str, Any] = {"id": i, "corners": corners, "confidence": 0.9}
        if spec == "down":
            item.update(face="down", pips=None)
        elif spec == "unread":
            item.update(face="up", pips=None)
        else:
            item.update(face="up", pips=list(spec), doubtful=i == doubtful)
        out.append(item)
    return Scene.from_dict({"image": {"width": 800, "height": 100}, "tiles": out})


ANA = Holder(HolderKind.HAND, "Ana", pending=True)
CARO = Holder(HolderKind.HAND, "Caro", pending=True)


def test_a_hand_photo_counts_every_tile_it_shows() -> None:
    read = hand_report("Ana", scene((3, 4), (5, 6), doubtful=1))
    assert read == HandReport("Ana", HandStatus.PENDING, (t(3, 4), t(5, 6)), None)
    partly = hand_report("Ana", scene((3, 4), "unread", "down"))
    assert partly.tiles == (t(3, 4),) and partly.count == 3


def test_the_table_photo_s_face_down_tiles_are_the_stock_only_when_said() -> None:
    photo = scene((0, 1), (1, 2), "down", "down", "unread")
    unsaid = table_report(photo)
    assert unsaid == TableReport((t(0, 1), t(1, 2)), 3, FaceDown.UNSORTED)
    in_view = table_report(photo, boneyard_in_view=True)
    assert in_view == TableReport((t(0, 1), t(1, 2)), 2, FaceDown.STOCK)


def test_no_boneyard_given_is_unknown_never_zero() -> None:
    assert boneyard_report(None) == BoneyardReport.unknown()
    assert boneyard_report(0) == BoneyardReport(CountSource.ENTERED, 0)


def test_a_problem_of_the_deal_says_how_to_give_the_house_s_deal() -> None:
    problem = Problem(ProblemCode.HAND_ABOVE_DEAL, (), (ANA,), 14, 15)
    assert problem_text(problem, 6) == (
        "Ana's hand lists 15 tiles, more than the 14 a hand can hold in this game. "
        "If the house deals otherwise, give its deal with --hand-size N."
    )
    twice = Problem(ProblemCode.TILE_TWICE, (t(2, 3),), (TABLE, CARO), 1, 2)
    assert "--hand-size" not in problem_text(twice, 6)


def test_a_player_is_their_initial_unless_a_place_or_another_player_has_it() -> None:
    marks = player_marks(["Ana", "Ben", "Tom", "Alex", "Dee"])
    assert marks == {"Ana": "1", "Ben": "2", "Tom": "3", "Alex": "4", "Dee": "D"}


def test_the_grid_of_a_double_12_set_has_room_for_two_digits() -> None:
    hands = [HandReport.confirmed("Ana", [t(11, 12)]), HandReport.unknown("Dee", count=6)]
    table = TableReport((t(12, 12), t(0, 12)))
    ledger = reconcile(get_variant("mexican-train"), hands, table)
    grid = ledger_grid(ledger, ["Ana", "Dee"])
    assert grid[0] == "     0  1  2  3  4  5  6  7  8  9 10 11 12"
    assert grid[1] == "  0  .  .  .  .  .  .  .  .  .  .  .  .  T"
    assert grid[12] == " 11                                   .  A"
    assert grid[13] == " 12                                      T"


@pytest.mark.parametrize(
    ("report", "line"),
    [
        (BoneyardReport.unknown(), "Boneyard: unknown (between 6 and 14)"),
        (BoneyardReport.entered(11), "Boneyard: 11 (entered)"),
    ],
)
def test_the_boneyard_line_says_where_its_count_comes_from(report, line) -> None:
    # Draw, dealt 7 each (14 left): Ben's hand not read, so the boneyard is only bounded.
    hands = [HandReport.confirmed("Ana", [t(3, 3), t(4, 4)]), HandReport.unknown("Ben")]
    ledger = reconcile(get_variant("draw"), hands, TableReport((t(0, 1),)), report)
    assert stock_text(ledger) == line


def test_the_ledger_in_another_language() -> None:
    hands = [HandReport.confirmed("Ana", [t(0, 0)]), HandReport.confirmed("Ben", [t(0, 0)])]
    ledger = reconcile(get_variant("block"), hands, TableReport(), hand_size=1)
    with use_language("es"):
        text = ledger_text(ledger, ["Ana", "Ben"])
    assert "0-0 está en dos sitios: en la mano de Ana y en la mano de Ben." in text
    assert "Fichas dormidas: 26 (fijado por el reparto)" in text
