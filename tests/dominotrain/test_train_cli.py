"""Bad input to `train`, `export` and `import-labels`: exit 2 with one line, no traceback,
and no torch needed to say so."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dominocam.cli


@pytest.fixture
def run(monkeypatch, capsys):
    """Run `dominocam ARGS` with only this layer's commands registered."""
    monkeypatch.setattr(dominocam.cli, "COMMAND_MODULES", ("dominotrain.cli",))

    def _run(*args: str) -> tuple[int, str, str]:
        try:
            code = dominocam.cli.main(list(args))
        except SystemExit as exit_:  # argparse errors
            code = exit_.code
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def test_help_lists_the_commands(run):
    text = dominocam.cli.build_parser().format_help()
    for command in ("train", "export", "import-labels"):
        assert command in text


def test_commands_import_without_torch():
    code = (
        "import sys, dominotrain.cli; "
        "bad = {'torch', 'ultralytics', 'matplotlib'} & set(sys.modules); "
        "sys.exit(str(bad) if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("train", "detector", "--data", "/no/such/folder"), "no detector data set"),
        (("train", "reader", "--data", "/no/such/folder"), "no reader data set"),
        (("train", "detector", "--data", ".", "--model", "yolov8n-obb.pt"), "downloaded"),
        (("train", "reader", "--data", ".", "--imgsz", "48"), "multiple of 32"),
        (("train", "reader", "--data", ".", "--arg", "lr0"), "KEY=VALUE"),
        (("export", "detector", "--weights", "/no/such.pt"), "no such file"),
        (("import-labels", "/no/such/folder", "--out", "/tmp/x"), "not a folder"),
    ],
)
def test_bad_input_exits_2_with_one_line(run, args, message, tmp_path):
    code, _, err = run(*args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("dominocam: error:") and message in lines[0]


def test_train_rejects_bad_numbers(run):
    code, _, err = run("train", "reader", "--data", ".", "--epochs", "0")
    assert code == 2 and "at least 1" in err


def test_a_run_being_trained_is_not_started_twice(run, tmp_path):
    import os

    from dominotrain.train import _claim

    run_dir = tmp_path / "runs" / "reader" / "busy"
    run_dir.mkdir(parents=True)
    (run_dir / "train.pid").write_text(f"{os.getppid()}\n")  # a live process, not us
    data = tmp_path / "data"
    for split in ("train", "val"):
        (data / "reader" / split / "0").mkdir(parents=True)
    code, _, err = run(
        "train",
        "reader",
        "--data",
        str(data),
        "--runs-dir",
        str(tmp_path / "runs"),
        "--name",
        "busy",
    )
    assert code == 2 and "being trained right now" in err
    (run_dir / "train.pid").write_text("999999999\n")  # a process that is gone: taken over
    assert _claim(run_dir).read_text().strip() == str(os.getpid())
