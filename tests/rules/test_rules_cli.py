"""`dominocam rules ...` through the real console script, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from factories import DESIGN_VERDICT, design_example

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("dominocam")
DESIGN_FILE = REPO / "examples" / "states" / "design-example.json"


def run(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[str]:
    assert SCRIPT.exists(), f"console script missing: {SCRIPT} (run make test)"
    data = stdin.decode("latin-1") if isinstance(stdin, bytes) else stdin
    return subprocess.run(
        [str(SCRIPT), *args], input=data, capture_output=True, text=True, timeout=60, cwd=REPO
    )


def write(tmp_path: Path, data: Any, name: str = "state.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_design_example_json_answers_as_design_md() -> None:
    result = run("rules", "check", str(DESIGN_FILE), "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    for key, value in DESIGN_VERDICT.items():
        if key == "verification":
            value = [{**v, "declared": v["player"] == "Ana", "foul": False} for v in value]
        assert verdict[key] == value, key


def test_design_example_human_ruling() -> None:
    result = run("rules", "check", str(DESIGN_FILE))
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert "Condition 1, no playable end: HOLDS." in out
    assert "Condition 2, boneyard exhausted: HOLDS." in out
    assert "Verification, clockwise from Ana:" in out
    assert "Verdict: BLOCKED." in out
    assert "Pip totals: Ana 39 (5-10, 12-12); Ben 3 (0-3)." in out
    assert "Winner: Ben, lowest hand (3 pips)." in out
    assert "Points: Ben scores 39" in out


def test_state_from_stdin() -> None:
    result = run("rules", "check", "-", "--json", stdin=json.dumps(design_example()))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["winner"] == "Ben"


def test_not_blocked_lists_the_playable_tiles(tmp_path: Path) -> None:
    state = design_example()
    state["players"][1]["hand"].append([4, 6])
    result = run("rules", "check", str(write(tmp_path, state)), "--json")
    verdict = json.loads(result.stdout)
    assert result.returncode == 0
    assert verdict["blocked"] is False and verdict["winner"] is None and verdict["points"] == {}
    assert verdict["playable"] == [{"player": "Ben", "tile": [4, 6], "line": "Ben", "end": 4}]
    assert verdict["verification"][-1] == {
        "player": "Ben",
        "can_play": True,
        "declared": False,
        "foul": False,
    }


@pytest.mark.parametrize(
    "example", sorted((REPO / "examples" / "states").glob("*.json")), ids=lambda p: p.name
)
def test_every_example_state_gets_a_ruling(example: Path) -> None:
    human = run("rules", "check", str(example))
    assert human.returncode == 0, human.stderr
    assert human.stdout.startswith("Ruling: ") and "Verdict:" in human.stdout


def test_check_help_describes_the_state_schema() -> None:
    result = run("rules", "check", "--help")
    assert result.returncode == 0
    for word in (
        "STATE.json",
        "--json",
        "players",
        "layout",
        "open_end",
        "boneyard",
        "proposer",
        "declarations",
        "mexican-train",
        "standard input",
    ):
        assert word in result.stdout, word


def test_rules_without_an_action_shows_help_and_exits_2() -> None:
    result = run("rules")
    assert result.returncode == 2 and "check" in result.stderr


def test_variants_listing() -> None:
    human = run("rules", "variants")
    assert human.returncode == 0 and "mexican-train - Mexican Train" in human.stdout
    machine = json.loads(run("rules", "variants", "--json").stdout)
    assert machine["draw"]["reserve"] == 2 and machine["draw"]["sources"]["reserve"]


def _mutated(path: str, value: Any) -> dict[str, Any]:
    state = design_example()
    target: Any = state
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if isinstance(target, list):
        target[int(keys[-1])] = value
    else:
        target[keys[-1]] = value
    return state


BAD = [
    # (case, file content: a state mutation, raw text, or None for a missing file, stderr part)
    ("missing file", None, "no such file"),
    ("not JSON", "{not json", "is not valid JSON"),
    ("empty file", "", "is not valid JSON"),
    ("JSON list", "[]", "the game state must be a JSON object"),
    ("players not a list", ("players", "Ana"), "players must be a list"),
    ("hand not a list", ("players.0.hand", 5), "hand must be a list of tiles"),
    ("tile not a pair", ("players.0.hand.0", [1, 2, 3]), "cannot read tile"),
    ("open end text", ("layout.lines.0.open_end", "eleven"), "whole number of pips"),
    ("boneyard text", ("boneyard", "empty"), "boneyard must be a count"),
    (
        "unknown variant",
        ("variant", "mexican"),
        "valid variants: block, draw, all-fives, mexican-train, chicken-foot, partnership, "
        "bergen, seed",
    ),
    ("unknown setting", ("rules", {"tie": "split", "reserv": 2}), "unknown setting 'reserv'"),
    ("bad setting value", ("rules", {"draw": "sometimes"}), "valid: none, until-playable"),
    ("pip above set max", ("players.0.hand.0", [5, 13]), "has a half above 12"),
    ("duplicate tile", ("players.1.hand", [[10, 5]]), "tile 5-10 is held twice"),
    (
        "hand and table",
        ("layout.lines.0", {"name": "main", "tiles": [[12, 12]]}),
        "tile 12-12 is both in Ana's hand and on the table",
    ),
    ("unknown proposer", ("proposer", "Bob"), "unknown proposer 'Bob'; players: Ana, Ben"),
    ("unknown owner", ("layout.lines.1.owner", "Bob"), "unknown owner of line 'Ben' 'Bob'"),
    ("unknown set", ("set", 8), "set must be one of 6, 9, 12, 15"),
]


@pytest.mark.parametrize(("content", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, content: Any, message: str) -> None:
    if content is None:
        path = tmp_path / "missing.json"
    elif isinstance(content, str):
        path = write(tmp_path, content)
    else:
        path = write(tmp_path, _mutated(*content))
    extra = ("--json",) if len(message) % 2 else ()  # both output modes, one run per case
    result = run("rules", "check", str(path), *extra)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("dominocam: error: ")
    assert message in lines[0]


def test_bad_stdin_exits_2(tmp_path: Path) -> None:
    result = run("rules", "check", "-", stdin="nope")
    assert result.returncode == 2 and "standard input is not valid JSON" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_directory_is_not_a_state(tmp_path: Path) -> None:
    result = run("rules", "check", str(tmp_path))
    assert result.returncode == 2 and "it is a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"variant": "caf\xe9"}')
    result = run("rules", "check", str(path))
    assert result.returncode == 2 and "not UTF-8" in result.stderr


@pytest.mark.parametrize("doc", ["docs/rules.md", "README.md"])
def test_documented_ruling_is_the_real_output(doc: str) -> None:
    """The worked example in the docs must be what the command prints today."""
    path = REPO / doc
    marker = "$ dominocam rules check examples/states/design-example.json\n"
    if not path.exists() or marker not in path.read_text(encoding="utf-8"):
        pytest.skip(f"{doc} has no worked example of rules check")
    documented = path.read_text(encoding="utf-8").split(marker, 1)[1].split("```", 1)[0]
    assert documented.rstrip() == run("rules", "check", str(DESIGN_FILE)).stdout.rstrip()


def test_a_closed_output_pipe_ends_quietly() -> None:
    # `dominocam read *.jpg | head`: the reader goes away while we still print.
    code = (
        "import argparse, sys\n"
        "from dominocam import cli\n"
        "args = argparse.Namespace(func=lambda a: [print('x' * 100) for _ in range(100000)])\n"
        "cli.build_parser = lambda: type('P', (), {'parse_args': lambda s, a: args})()\n"
        "sys.exit(cli.main([]))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(1000)
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
