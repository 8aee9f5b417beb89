"""Shared fixtures for the whole test tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REALVAL = REPO_ROOT.parent / "shared" / "realval"
CHROMIUM = os.environ.get("DOMINOCAM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(autouse=True, scope="session")
def _instance_folder_in_tmp(tmp_path_factory: pytest.TempPathFactory):
    """The dashboard's instance folder (config.py, database, photos) of every test, and of
    every `dominocam serve` a test starts, is a temporary one: no test reads or writes the
    real user data folder (~/.local/share/dominocam). Tests of the default set their own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOMINOCAM_INSTANCE", str(tmp_path_factory.mktemp("instance")))
        yield


@pytest.fixture
def realval_dir() -> Path:
    """The real validation photos beside the repository; skip when absent (never copied in)."""
    if not REALVAL.is_dir():
        pytest.skip(f"real validation photos not found at {REALVAL}")
    return REALVAL


@pytest.fixture
def command_runner(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """`command_runner("dominocam.measure.cli")` -> a function running `dominocam ARGS` with only
    those modules' commands registered, returning (exit status, stdout, stderr)."""
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


@pytest.fixture
def browser():
    """A headless chromium (Playwright) for the browser tests; skip without one."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser.sh")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()
