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
