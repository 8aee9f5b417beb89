"""The event file: what it accepts and the one-line errors for what it does not (no
services needed: these run in the default test run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dominocam.cli import main
from dominocam.errors import UserInputError
from dominocam.tournament.config import load_config, parse_config

REPO_ROOT = Path(__file__).resolve().parents[2]


def event(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "event": "Club night",
        "variant": "block",
        "players": [{"name": "Ana", "team": "N"}, {"name": "Ben", "team": "S"}, "Caro", "Dan"],
        "tables": [{"seats": ["Ana", "Ben"]}, {"id": "corner", "seats": ["Caro", "Dan"]}],
    }
    data.update(changes)
    return data


def test_the_example_event_loads() -> None:
    config = load_config(REPO_ROOT / "examples" / "tournament" / "club-night.yaml")
    assert config.max_pip == 12
    assert [t.id for t in config.tables] == ["t1", "t2", "t3", "t4"]
    assert config.table("t2").seats == ("Caro", "Dan")
    assert {p.team for p in config.players} == {"North", "South"}


def test_defaults_and_round_trip() -> None:
    config = parse_config(event(rules={"target": 150}))
    assert config.max_pip == 6  # Block's usual set
    assert config.variant.target == 150
    assert [t.id for t in config.tables] == ["t1", "corner"]
    assert [t.name for t in config.tables] == ["Table 1", "Table 2"]
    assert parse_config(config.to_json()) == config


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"variant": "blok"}, "blok"),
        ({"rules": {"targett": 5}}, "unknown setting"),
        ({"tables": [{"seats": ["Ana", "Zed"]}]}, "'Zed', who is not among the players"),
        ({"tables": [{"seats": ["Ana", "Ben"]}, {"seats": ["Ana", "Dan"]}]}, "Ana is seated"),
        ({"tables": [{"seats": ["Ana"]}]}, "at least 2 seats"),
        ({"tables": [{"id": "a b", "seats": ["Ana", "Ben"]}]}, "table id 'a b'"),
        ({"players": ["Ana", "Ana"]}, "two players are called 'Ana'"),
        ({"colour": "red"}, "unknown key(s) colour"),
        ({"set": "six"}, "set must be a whole number"),
    ],
)
def test_bad_events_are_refused_with_a_reason(changes: dict[str, object], message: str) -> None:
    with pytest.raises(UserInputError) as caught:
        parse_config(event(**changes))
    assert message in str(caught.value)


def test_a_team_variant_needs_every_team() -> None:
    with pytest.raises(UserInputError, match="scores teams"):
        parse_config(event(variant="partnership", tables=[{"seats": ["Ana", "Ben", "Caro"]}]))
    four = parse_config(
        event(variant="partnership", players=["A", "B", "C", "D"], tables=[{"seats": list("ABCD")}])
    )
    assert four.variant.team_scoring


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("event.yaml", "event: [unclosed", "is not valid YAML"),
        ("event.json", "{", "is not valid JSON"),
        ("event.txt", "{}", "must be .yaml, .yml, .toml or .json"),
        ("event.toml", 'event = "x"\nvariant = "block"', "players must be a non-empty list"),
    ],
)
def test_serve_tournament_with_a_bad_file_says_why_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert main(["serve", "--tournament", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dominocam: error: "), lines
    assert message in lines[0]


def test_a_missing_or_binary_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="cannot read the event file"):
        load_config(tmp_path / "none.yaml")
    (tmp_path / "photo.yaml").write_bytes(b"\xff\xd8\xff\xe0 not text")
    with pytest.raises(UserInputError, match="is not UTF-8 text"):
        load_config(tmp_path / "photo.yaml")


def test_the_command_line_stays_cheap_without_the_services() -> None:
    """`dominocam --help` lists worker and feed without importing Celery, redis or psycopg
    (single-table mode never needs them)."""
    import subprocess
    import sys

    code = (
        "import sys, dominocam.cli as c; text = c.build_parser().format_help(); "
        "print('worker' in text, 'feed' in text, "
        "sorted({'celery', 'redis', 'psycopg', 'waitress'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "True True []", done.stderr


def test_worker_without_the_extra_says_which_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "celery", None)  # as if the extra were not installed
    assert main(["worker"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dominocam: error: tournament mode needs the `tournament` extra")
    assert "\n" not in err
