"""Shared fixtures for the whole test tree."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REALVAL = REPO_ROOT.parent / "shared" / "realval"


@pytest.fixture
def realval_dir() -> Path:
    """The real validation photos beside the repository; skip when absent (never copied in)."""
    if not REALVAL.is_dir():
        pytest.skip(f"real validation photos not found at {REALVAL}")
    return REALVAL


@pytest.fixture
def command_runner(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """`command_runner("measure.cli")` -> a function running `dominocam ARGS` with only those
    modules' commands registered, returning (exit status, stdout, stderr)."""
    import dominocam.cli

    def make(*modules: str):
        monkeypatch.setattr(dominocam.cli, "COMMAND_MODULES", modules)

        def run(*args: str) -> tuple[int, str, str]:
            try:
                code = dominocam.cli.main(list(args))
            except SystemExit as exit_:  # --help
                code = exit_.code
            out, err = capsys.readouterr()
            return code, out, err

        return run

    return make
