"""`studies.stage_profile` names functions by file and name: a renamed function would
silently count as 0 ms, so every step must name one that exists."""

from __future__ import annotations

import ast
from pathlib import Path

from studies.stage_profile import STEPS

ROOT = Path(__file__).resolve().parents[2]


def test_every_step_names_a_function_of_its_file() -> None:
    for step, suffix, function in STEPS:
        tree = ast.parse((ROOT / suffix).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert function in names, f"{step}: no function {function} in {suffix}"
