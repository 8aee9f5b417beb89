"""The event's configuration: variant, players, teams, tables and who sits where.

A YAML, TOML or JSON file (by its extension), for example::

    event: Club night
    variant: block          # any name of `dominocam rules variants`
    set: 6                  # optional, the variant's usual set by default
    rules: {target: 150}    # optional overrides of the variant's settings
    players:
      - {name: Ana, team: Red}
      - {name: Ben, team: Blue}
    tables:
      - {id: t1, name: Table 1, seats: [Ana, Ben]}

Seats are listed clockwise. A player sits at one table; `id` (letters, digits, `-`, `_`) is
what URLs and Redis keys use, `t1`, `t2`, ... by default.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dominocam.errors import UserInputError
from dominocam.rules.variants import Variant, get_variant

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


@dataclass(frozen=True)
class PlayerConfig:
    """One player of the event; `team` is the event team (also the partnership, if any)."""

    name: str
    team: str | None = None


@dataclass(frozen=True)
class TableConfig:
    """One table: its id, its name for people, and its seats clockwise (player names)."""

    id: str
    name: str
    seats: tuple[str, ...]


@dataclass(frozen=True)
class EventConfig:
    """A whole event, validated (see the module docstring for the file format)."""

    name: str
    variant_name: str
    max_pip: int
    rules: Mapping[str, object]
    players: tuple[PlayerConfig, ...]
    tables: tuple[TableConfig, ...]

    @property
    def variant(self) -> Variant:
        """The variant with the event's overrides applied."""
        return get_variant(self.variant_name, dict(self.rules))

    def player(self, name: str) -> PlayerConfig:
        for player in self.players:
            if player.name == name:
                return player
        raise KeyError(name)

    def table(self, table_id: str) -> TableConfig:
        for table in self.tables:
            if table.id == table_id:
                return table
        raise KeyError(table_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "variant": self.variant_name,
            "set": self.max_pip,
            "rules": dict(self.rules),
            "players": [
                {"name": p.name, **({"team": p.team} if p.team else {})} for p in self.players
            ],
            "tables": [{"id": t.id, "name": t.name, "seats": list(t.seats)} for t in self.tables],
        }


def load_config(path: str | Path) -> EventConfig:
    """Read and validate an event file (.yaml/.yml, .toml or .json).

    Raises:
        UserInputError: the file is missing, unreadable or not a valid event.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UserInputError(f"cannot read the event file {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise UserInputError(f"the event file {path} is not UTF-8 text") from error
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".toml", ".json"):
        raise UserInputError(f"{path}: the event file must be .yaml, .yml, .toml or .json")
    try:
        if suffix == ".toml":
            raw = tomllib.loads(text)
        elif suffix == ".json":
            raw = json.loads(text)
        else:
            raw = _load_yaml(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        first = str(error).splitlines()[0]
        raise UserInputError(f"{path} is not valid {suffix[1:].upper()}: {first}") from error
    return parse_config(raw, where=str(path))


def _load_yaml(text: str) -> object:
    """YAML through PyYAML, imported only here: TOML and JSON need only the standard
    library. Its errors come back as ValueError."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ValueError(str(error)) from error


def parse_config(raw: object, where: str = "event") -> EventConfig:
    """Validate an event given as plain data (the parsed file).

    Raises:
        UserInputError: anything missing or inconsistent, saying what and where.
    """
    if not isinstance(raw, Mapping):
        raise UserInputError(f"{where}: an event must be a mapping with event, variant, tables")
    unknown = set(raw) - {"event", "variant", "set", "rules", "players", "tables"}
    if unknown:
        raise UserInputError(f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    name = _text(raw.get("event"), f"{where}: event (its name)")
    variant_name = _text(raw.get("variant"), f"{where}: variant")
    rules = raw.get("rules") or {}
    if not isinstance(rules, Mapping):
        raise UserInputError(f"{where}: rules must be a mapping of settings")
    variant = get_variant(variant_name, dict(rules))  # a typo lists the valid names
    max_pip = raw.get("set", variant.set)
    if not isinstance(max_pip, int) or isinstance(max_pip, bool):
        raise UserInputError(f"{where}: set must be a whole number (6, 9, 12 or 15)")
    players = _players(raw.get("players"), where)
    tables = _tables(raw.get("tables"), {p.name for p in players}, where)
    config = EventConfig(name, variant_name, max_pip, dict(rules), players, tables)
    _check_teams(config, variant, where)
    return config


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UserInputError(f"{what} must be a non-empty text")
    return value.strip()


def _players(raw: object, where: str) -> tuple[PlayerConfig, ...]:
    if not isinstance(raw, list) or not raw:
        raise UserInputError(f"{where}: players must be a non-empty list")
    players: list[PlayerConfig] = []
    for index, item in enumerate(raw, start=1):
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, Mapping):
            raise UserInputError(f"{where}: player {index} must be a name or {{name, team}}")
        name = _text(item.get("name"), f"{where}: player {index}'s name")
        team = item.get("team")
        if team is not None:
            team = _text(team, f"{where}: {name}'s team")
        if any(p.name == name for p in players):
            raise UserInputError(f"{where}: two players are called {name!r}")
        players.append(PlayerConfig(name, team))
    return tuple(players)


def _tables(raw: object, names: set[str], where: str) -> tuple[TableConfig, ...]:
    if not isinstance(raw, list) or not raw:
        raise UserInputError(f"{where}: tables must be a non-empty list")
    tables: list[TableConfig] = []
    seated: dict[str, str] = {}
    for index, item in enumerate(raw, start=1):
        if not isinstance(item, Mapping):
            raise UserInputError(f"{where}: table {index} must be a mapping with seats")
        table_id = str(item.get("id", f"t{index}"))
        if not TABLE_ID.match(table_id):
            raise UserInputError(
                f"{where}: table id {table_id!r} must be 1-32 letters, digits, - or _"
            )
        if any(t.id == table_id for t in tables):
            raise UserInputError(f"{where}: two tables have the id {table_id!r}")
        table_name = _text(item.get("name", f"Table {index}"), f"{where}: table {index}'s name")
        seats = item.get("seats")
        if not isinstance(seats, list) or len(seats) < 2:
            raise UserInputError(f"{where}: table {table_id} needs at least 2 seats")
        for seat in seats:
            if seat not in names:
                raise UserInputError(
                    f"{where}: table {table_id} seats {seat!r}, who is not among the players"
                )
            if seat in seated:
                raise UserInputError(
                    f"{where}: {seat} is seated at both {seated[seat]} and {table_id}"
                )
            seated[seat] = table_id
        tables.append(TableConfig(table_id, table_name, tuple(seats)))
    return tuple(tables)


def _check_teams(config: EventConfig, variant: Variant, where: str) -> None:
    """A team-scoring variant needs every seated player's team (or none, for 4 seats)."""
    if not variant.team_scoring:
        return
    for table in config.tables:
        teams = [config.player(name).team for name in table.seats]
        if any(team is None for team in teams) and not (
            all(team is None for team in teams) and len(teams) == 4
        ):
            raise UserInputError(
                f"{where}: {variant.title} scores teams: give every player at table "
                f"{table.id} a team (or none of the four, to pair seats 1-3 and 2-4)"
            )
