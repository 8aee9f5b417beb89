"""The rules package as a whole: pure Python, and the public API other layers call."""

from __future__ import annotations

import subprocess
import sys

from dominocam import rules


def test_rules_imports_neither_opencv_nor_numpy() -> None:
    code = (
        "import sys, dominocam.rules, dominocam.rules.cli\n"
        "heavy = {'cv2', 'numpy', 'onnxruntime', 'flask', 'torch'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_public_api() -> None:
    for name in (
        "check",
        "parse_state",
        "load_state",
        "legal_moves",
        "play",
        "draw",
        "pass_turn",
        "get_variant",
        "variant_names",
        "VARIANTS",
        "score_blocked",
        "score_domino",
        "ruling",
        "Game",
        "RoundResult",
        "Verdict",
        "GameState",
        "Tile",
    ):
        assert hasattr(rules, name), name
    assert set(rules.__all__) <= set(dir(rules))
    assert "parse_state" in (rules.__doc__ or "")
