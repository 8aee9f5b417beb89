"""dominocam.rules.ledger_words: each problem of the ledger in the words every mode shows
(issue 32)."""

from __future__ import annotations

import pytest
from factories import t

from dominocam.i18n import use_language
from dominocam.rules.ledger import TABLE, Holder, HolderKind, Problem, ProblemCode
from dominocam.rules.ledger_words import problem_text

ANA = Holder(HolderKind.HAND, "Ana")
CARO = Holder(HolderKind.HAND, "Caro")
CARO_READ = Holder(HolderKind.HAND, "Caro", pending=True)


@pytest.mark.parametrize(
    ("problem", "text"),
    [
        (
            Problem(ProblemCode.TILE_TWICE, (t(2, 3),), (TABLE, CARO), 1, 2),
            "2-3 is in two places: on the table and in Caro's hand.",
        ),
        (
            Problem(ProblemCode.TILE_TWICE, (t(2, 3),), (ANA, CARO_READ), 1, 2),
            "2-3 is in two places: in Ana's hand and in Caro's hand (read, not confirmed).",
        ),
        (
            Problem(ProblemCode.TILE_TWICE, (t(2, 3),), (TABLE, TABLE), 1, 2),
            "2-3 is on the table twice.",
        ),
        (
            Problem(ProblemCode.TILE_TWICE, (t(2, 3),), (TABLE, ANA, CARO), 1, 3),
            "2-3 is read in 3 places: on the table, in Ana's hand, in Caro's hand.",
        ),
        (
            Problem(ProblemCode.TILE_OUTSIDE_SET, (t(6, 7),), (ANA,), 6, 7),
            "6-7 is not a tile of the double-6 set: read in Ana's hand.",
        ),
        (
            Problem(ProblemCode.TILE_NOWHERE, (t(4, 6), t(5, 5)), (), 28, 26),
            "28 tiles in the set, 26 seen: 4-6, 5-5 are nowhere.",
        ),
        (
            Problem(ProblemCode.TOO_FEW_TILES, (), (), 28, 27),
            "The table, the hands and the boneyard hold at most 27 of the 28 tiles of the set: "
            "a tile was missed on the table or in a hand.",
        ),
        (
            Problem(ProblemCode.HAND_COUNT_DIFFERS, (), (ANA,), 7, 6),
            "Ana holds 7 tiles, but the hand lists 6.",
        ),
        (
            Problem(ProblemCode.STOCK_COUNTS_DIFFER, (), (Holder(HolderKind.SLEEPING),), 14, 12),
            "The tiles set aside were given as 14, but 12 lie face down as the stock.",
        ),
        (
            Problem(ProblemCode.STOCK_COUNTS_DIFFER, (), (Holder(HolderKind.BONEYARD),), 0, 24),
            "The boneyard was given as 0 tiles, but 24 lie face down as the stock.",
        ),
    ],
)
def test_each_problem_in_a_host_s_words(problem: Problem, text: str) -> None:
    assert problem_text(problem, 6) == text


def test_every_problem_code_has_its_own_words() -> None:
    said = {problem_text(Problem(code, (t(1, 2),), (ANA, CARO), 1, 2), 6) for code in ProblemCode}
    assert len(said) == len(ProblemCode)


def test_a_long_list_of_tiles_is_cut_short() -> None:
    tiles = tuple(t(0, b) for b in range(7)) + tuple(t(1, b) for b in range(1, 7))
    text = problem_text(Problem(ProblemCode.TILE_NOWHERE, tiles, (), 28, 15), 6)
    assert text.endswith("0-0, 0-1, 0-2, 0-3, 0-4, 0-5, 0-6, 1-1, 1-2, 1-3 and 3 more are nowhere.")


@pytest.mark.parametrize("language", ["hu", "it", "vi", "es"])
def test_every_problem_is_translated(language: str) -> None:
    for code in ProblemCode:
        problem = Problem(code, (t(1, 2),), (ANA, CARO), 1, 2)
        english = problem_text(problem, 6)
        with use_language(language):
            assert problem_text(problem, 6) != english
