"""`dominocam rules check --lang`: the whole ruling in each language, through the console
script; the JSON stays English; errors are one line in the chosen language."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from factories import state_dict

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("dominocam")
DESIGN_FILE = REPO / "examples" / "states" / "design-example.json"

# Words a player of each language expects in a ruling (written here, not read from the
# catalogue): the blocked verdict, the boneyard, a foul, and the pip totals heading.
WORDS = {
    "hu": {"blocked": "Ítélet: BLOKKOLT.", "open": "NEM BLOKKOLT", "foul": "SZABÁLYSÉRTÉS",
           "boneyard": "talon", "totals": "Pöttyök összesen:", "winner": "Győztes: Ben"},
    "it": {"blocked": "Verdetto: BLOCCATA.", "open": "NON BLOCCATA", "foul": "FALLO",
           "boneyard": "pozzo", "totals": "Pallini in mano:", "winner": "Vincitore: Ben"},
    "vi": {"blocked": "Phán quyết: BỊ CHẶN.", "open": "KHÔNG BỊ CHẶN", "foul": "PHẠM LUẬT",
           "boneyard": "nọc", "totals": "Tổng số chấm:", "winner": "Người thắng: Ben"},
    "es": {"blocked": "Veredicto: TRANCADO.", "open": "NO TRANCADO", "foul": "FALTA",
           "boneyard": "pozo", "totals": "Puntos en mano:", "winner": "Ganador: Ben"},
}  # fmt: skip
# English headings that must not survive in a translated ruling.
ENGLISH = ("Ruling:", "Open ends", "Condition", "Verification", "Verdict", "Pip totals",
           "Winner", "Points", "FOUL", "boneyard", "cannot play")  # fmt: skip


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert SCRIPT.exists(), f"console script missing: {SCRIPT} (run make test)"
    environ = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**environ, **(env or {})},
    )


def _not_blocked_with_a_foul(tmp_path: Path) -> Path:
    state = state_dict(
        "draw",
        hands={"Ana": ["0-1"], "Ben": ["4-6"], "Cy": ["2-2"]},
        ends={"main": 11, "side": 4},
        boneyard=5,
        proposer="Cy",
        declarations=["Ben"],
    )
    path = tmp_path / "foul.json"
    path.write_text(json.dumps(state))
    return path


def _assert_translated(text: str) -> None:
    left = [word for word in ENGLISH if word in text]
    assert not left, f"English left in the ruling: {left}\n{text}"


@pytest.mark.parametrize("language", WORDS)
def test_a_blocked_ruling_in_each_language(language: str) -> None:
    result = run("rules", "check", str(DESIGN_FILE), "--lang", language)
    assert result.returncode == 0 and result.stderr == ""
    words = WORDS[language]
    assert words["blocked"] in result.stdout
    assert words["totals"] in result.stdout and "Ana 39 (5-10, 12-12); Ben 3 (0-3)" in result.stdout
    assert words["winner"] in result.stdout
    _assert_translated(result.stdout)


@pytest.mark.parametrize("language", WORDS)
def test_a_ruling_that_is_not_blocked_with_a_foul_in_each_language(
    tmp_path: Path, language: str
) -> None:
    result = run("rules", "check", str(_not_blocked_with_a_foul(tmp_path)), "--lang", language)
    assert result.returncode == 0 and result.stderr == ""
    words = WORDS[language]
    for key in ("open", "foul", "boneyard"):
        assert words[key] in result.stdout, key
    assert words["blocked"] not in result.stdout
    _assert_translated(result.stdout)


def test_the_environment_chooses_the_language_when_no_option_is_given() -> None:
    result = run("rules", "check", str(DESIGN_FILE), env={"LANG": "it_IT.UTF-8"})
    assert WORDS["it"]["blocked"] in result.stdout
    overridden = run("rules", "check", str(DESIGN_FILE), "--lang", "en", env={"LANG": "it_IT"})
    assert "Verdict: BLOCKED." in overridden.stdout


def test_json_is_the_same_in_every_language(tmp_path: Path) -> None:
    state = str(_not_blocked_with_a_foul(tmp_path))
    english = json.loads(run("rules", "check", state, "--json").stdout)
    for language in WORDS:
        result = run("rules", "check", state, "--json", "--lang", language)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == english


def test_a_bad_state_is_one_line_in_the_chosen_language(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere.json")
    result = run("rules", "check", missing, "--lang", "hu")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"dominocam: error: nem olvasható: {missing}: nincs ilyen fájl\n"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"variant": "blok", "players": []}))
    result = run("rules", "check", str(bad), "--lang", "es")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("dominocam: error: variante desconocida 'blok'")


def test_an_unknown_language_is_one_line_listing_the_available_ones() -> None:
    result = run("rules", "check", str(DESIGN_FILE), "--lang", "klingon")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "dominocam: error: unknown language 'klingon'; available: en, hu, it, vi, es\n"
    )
