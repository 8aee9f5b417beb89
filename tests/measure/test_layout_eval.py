"""The layout reconstruction against synthetic truth, on a small set placed in-process by
dominosynth (no images, a few seconds)."""

from __future__ import annotations

import pytest

from dominocam.cli import main
from dominocam.measure.layout_eval import evaluate, generated_truths


def test_synthetic_tables_give_the_true_open_ends_or_say_why_not() -> None:
    results = evaluate(truths=generated_truths(16, seed=5, size=(960, 540)))
    tables = sum(r.tables for r in results.values())
    exact = sum(r.open_ends_ok for r in results.values())
    assert tables == 16
    assert exact >= 15
    assert sum(r.silent for r in results.values()) == 0  # never wrong without a doubt


def test_layout_eval_prints_the_figures_per_kind(capsys) -> None:
    assert main(["layout-eval", "--generate", "6", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "all (6 tables)" in out


@pytest.mark.parametrize(
    "argv", [[], ["some/folder", "--generate", "3"], ["--generate", "2", "--draw", "x"]]
)
def test_layout_eval_wants_one_source_and_says_so_on_one_line(argv, capsys) -> None:
    assert main(["layout-eval", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dominocam: error:") and "\n" not in err
