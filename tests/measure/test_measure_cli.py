"""The measuring commands (`eval`, `bench`, `layout-eval`, `track-eval`): listed, light to
import, and bad input exits 2 with one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dominocam.cli


@pytest.fixture
def run(command_runner):
    """Run `dominocam ARGS` with only the measuring commands registered."""
    return command_runner("dominocam.measure.cli")


def test_help_lists_the_commands() -> None:
    text = dominocam.cli.build_parser().format_help()
    for command in ("eval", "bench", "layout-eval", "track-eval"):
        assert command in text


def test_measuring_and_training_commands_import_neither_torch_nor_matplotlib() -> None:
    code = (
        "import sys, dominotrain.cli, dominocam.measure.cli, dominocam.measure.evaluate, "
        "dominocam.measure.plots, dominocam.measure.bench, dominocam.measure.layout_eval, "
        "dominocam.measure.track_eval; "
        "bad = {'torch', 'ultralytics', 'matplotlib'} & set(sys.modules); "
        "sys.exit(str(bad) if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("eval",), "nothing to evaluate"),
        (("eval", "--realval", "/no/such/folder"), "not a folder"),
        (("bench", "--image", "/no/such/photo.jpg"), "photo.jpg"),
        (("track-eval", "--seeds", "a-b"), "--seeds"),
    ],
)
def test_bad_input_exits_2_with_one_line(run, args, message) -> None:
    code, _, err = run(*args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("dominocam: error:") and message in lines[0]


def test_eval_unknown_set(run, tmp_path) -> None:
    code, _, err = run("eval", "--synthetic", str(tmp_path), "--sets", "nope")
    assert code == 2 and "unknown set" in err


@pytest.mark.parametrize("args", [("bench", "--runs", "0"), ("bench", "--tiles", "-1")])
def test_bench_refuses_counts_below_one(run, args) -> None:
    code, _, err = run(*args)
    assert code == 2 and "at least 1" in err
