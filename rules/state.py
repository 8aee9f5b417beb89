"""The game state: what `dominocam rules check` judges, parsed and validated.

The JSON form (docs/design.md "Game state JSON", extended; players in clockwise seat order):

    {
      "variant": "block",                 # a name from rules.variants (default "seed")
      "rules": {"tie": "no-score"},       # overrides of the variant's settings
      "set": 12,                          # double-n set: 6, 9, 12 or 15 (default: the variant's)
      "players": [                        # at least two, clockwise
        {"name": "Ana", "hand": [[5, 10], [12, 12]],
         "team": "A",                     # optional; partnership games
         "declared_cannot_play": true,    # optional; said "I cannot play"
         "active": true},                 # optional; false: sits out, not judged
        {"name": "Ben", "hand": [[0, 3]]}
      ],
      "layout": {
        "lines": [
          {"name": "main", "open_end": 11, "place": "top-right"},  # by its open end, or
          {"name": "left", "tiles": [[3, 4], [4, 6]]},         # by its tiles from the root
          {"name": "Ben", "open_end": 4, "owner": "Ben", "marked": false,
           "open_double": false, "toes": 0, "root": 4, "branch_of": "main"}
        ],
        "spinner": [6, 6],                # optional hub: All Fives' spinner, Chicken Foot's centre
        "engine": [12, 12]                # optional hub: Mexican Train's engine
      },
      "boneyard": 0,                      # how many tiles are undealt, or the list of them
      "proposer": "Ana",                  # who proposed the block (default: first player)
      "declarations": ["Ben"],            # players who said "I cannot play" (or the flag above)
      "leader": "Ana",                    # who led the round (tie policy "leader")
      "last_played": "Ben",               # who played the last tile (block_winner "blocker")
      "comment": "free text"              # ignored
    }

`dominocam.rules.layout` explains lines, roots, hubs and open doubles. A line's optional `place`
says where its open end lies on a table photo (`dominocam.rules.places`: one of nine, by thirds of
the photo); the rulings then name it as players see it ("the 11 at the top right"). A line's
`name` is shown as typed where it has no place; a line without one gets an id ("line 2") that
no person reads (`"named": false` says the same of a `name` the software made). An explicit
`proposer` counts as that player's declaration that they cannot play (proposing a block is that
claim).

Everything is checked: pips above the set's maximum, a tile held twice or both in a hand and
on the table, unknown players (owner, proposer, leader, last_played, declarations), unknown
variants or settings, and wrong JSON types all raise `UserInputError` with a one-line
message naming the problem.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from dominocam.errors import Refused, UserInputError, plain_value, with_context
from dominocam.i18n import N_, _
from dominocam.rules.layout import Layout, Line, chain_end, free_name, infer_root
from dominocam.rules.places import PLACE_CODES
from dominocam.rules.tiles import SUPPORTED_SETS, Tile, hand_points, parse_tile, set_size
from dominocam.rules.variants import VARIANTS, Variant, get_variant

DEFAULT_VARIANT = "seed"

STATE_KEYS = (
    "variant",
    "rules",
    "set",
    "players",
    "layout",
    "boneyard",
    "proposer",
    "declarations",
    "leader",
    "last_played",
    "comment",
)
PLAYER_KEYS = ("name", "hand", "team", "declared_cannot_play", "active")
LAYOUT_KEYS = ("lines", "spinner", "engine")
LINE_KEYS = (
    "name",
    "open_end",
    "tiles",
    "root",
    "branch_of",
    "owner",
    "marked",
    "open_double",
    "toes",
    "place",
    "named",
)


@dataclass(frozen=True)
class Player:
    """One seat at the table.

    Attributes:
        name: unique name of the player.
        hand: the tiles the player still holds (any order).
        team: the partnership the player belongs to, or None.
        declared_cannot_play: the player has said they cannot play.
        active: False for a seat that is out of the round (not judged, not scored).
    """

    name: str
    hand: tuple[Tile, ...] = ()
    team: str | None = None
    declared_cannot_play: bool = False
    active: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise UserInputError(f"a player needs a name (text), got {self.name!r}")
        if not isinstance(self.hand, tuple) or not all(isinstance(t, Tile) for t in self.hand):
            raise UserInputError(f"{self.name}'s hand must be a tuple of Tile")
        if self.team is not None and (not isinstance(self.team, str) or not self.team.strip()):
            raise UserInputError(f"{self.name}'s team must be a name (text) or null")
        for flag in ("declared_cannot_play", "active"):
            if not isinstance(getattr(self, flag), bool):
                raise UserInputError(f"{self.name}'s {flag} must be true or false")

    def pips(self, double_blank: int = 0) -> int:
        """The remaining pip count of the hand (5-10 counts 15, 12-12 counts 24)."""
        return hand_points(self.hand, double_blank)

    @property
    def has_double(self) -> bool:
        return any(tile.is_double for tile in self.hand)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"name": self.name, "hand": [t.as_list() for t in self.hand]}
        if self.team is not None:
            data["team"] = self.team
        if self.declared_cannot_play:
            data["declared_cannot_play"] = True
        if not self.active:
            data["active"] = False
        return data


@dataclass(frozen=True)
class GameState:
    """A round in progress: variant, seats in clockwise order, the table, the boneyard.

    Attributes:
        variant: the variant with the state's overrides applied.
        players: the seats in clockwise order.
        layout: the table.
        max_pip: n of the double-n set (None: the variant's usual set).
        boneyard: how many tiles lie in the boneyard (undealt).
        boneyard_tiles: the boneyard's tiles when known (simulations), else None.
        proposer: who proposed the block; None means the first active player, not a claim.
        leader: who led the round (tie policy `leader`); None means the first player.
        last_played: who played the last tile (block_winner `blocker`); None means the
            active player seated just before the proposer.
    """

    variant: Variant
    players: tuple[Player, ...]
    layout: Layout = field(default_factory=Layout)
    max_pip: int | None = None
    boneyard: int = 0
    boneyard_tiles: tuple[Tile, ...] | None = None
    proposer: str | None = None
    leader: str | None = None
    last_played: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.variant, Variant):
            raise UserInputError("a game state needs a Variant")
        if self.max_pip is None:
            object.__setattr__(self, "max_pip", self.variant.set)
        if self.max_pip not in SUPPORTED_SETS:
            valid = ", ".join(str(n) for n in SUPPORTED_SETS)
            raise Refused(
                _("unknown set double-{set}; valid sets: {valid}").format(
                    set=self.max_pip, valid=valid
                ),
                "unknown_set",
                set=plain_value(self.max_pip),
                valid=list(SUPPORTED_SETS),
            )
        if not isinstance(self.players, tuple) or not all(
            isinstance(p, Player) for p in self.players
        ):
            raise UserInputError("players must be a tuple of Player")
        if len(self.players) < 2:
            raise Refused(
                _("a round needs at least 2 players, got {count}").format(count=len(self.players)),
                "too_few_players",
                count=len(self.players),
            )
        names = [p.name for p in self.players]
        for name in names:
            if names.count(name) > 1:
                raise Refused(
                    _("two players are called {name!r}; names must differ").format(name=name),
                    "duplicate_player",
                    name=name,
                )
        if sum(p.active for p in self.players) < 2:
            raise Refused(
                _("a round needs at least 2 active players"),
                "too_few_active_players",
                count=sum(p.active for p in self.players),
            )
        if self.boneyard_tiles is not None:
            if not isinstance(self.boneyard_tiles, tuple):
                raise UserInputError("boneyard_tiles must be a tuple of Tile")
            object.__setattr__(self, "boneyard", len(self.boneyard_tiles))
        if not isinstance(self.boneyard, int) or isinstance(self.boneyard, bool):
            raise Refused(
                _("boneyard must be a whole number of tiles, got {value!r}").format(
                    value=self.boneyard
                ),
                "bad_boneyard",
                value=plain_value(self.boneyard),
            )
        if self.boneyard < 0:
            raise Refused(
                _("boneyard cannot be negative, got {count}").format(count=self.boneyard),
                "bad_boneyard",
                value=self.boneyard,
            )
        for label in ("proposer", "leader", "last_played"):
            value = getattr(self, label)
            if value is not None:
                self._known(value, label, role=label)
        if self.proposer is not None and not self.player(self.proposer).active:
            raise Refused(
                _("proposer {name!r} is not an active player").format(name=self.proposer),
                "proposer_not_active",
                name=self.proposer,
            )
        for line in self.layout.lines:
            if line.owner is not None:
                self._known(
                    line.owner, f"owner of line {line.name!r}", role="owner", line=line.name
                )
        self._check_pips()
        self._check_tiles()
        if self.variant.team_scoring:
            self.teams()

    # --- validation -------------------------------------------------------------------------

    def _known(self, name: object, label: str, **where: object) -> None:
        """Refuses `name` unless it is a player's (code `unknown_player`; `where`, e.g. the
        `role` it was given as and the `line` it owns, joins the parameters)."""
        if not isinstance(name, str) or name not in {p.name for p in self.players}:
            raise Refused(
                _("unknown {label} {name!r}; players: {players}").format(
                    label=label, name=name, players=", ".join(p.name for p in self.players)
                ),
                "unknown_player",
                name=plain_value(name),
                players=list(self.names),
                **where,
            )

    def _check_pips(self) -> None:
        n = self.max_pip
        top = _("{top}, the highest of a double-{top} set").format(top=n)
        for tile, where in self._all_tiles():
            if tile.high > n:  # type: ignore[operator]
                raise Refused(
                    _("tile {tile} in {where} has a half above {top}").format(
                        tile=tile, where=where, top=top
                    ),
                    "tile_above_set",
                    tile=tile.as_list(),
                    set=n,
                    where=where,
                )
        for line in self.layout.lines:
            for label, value in (("open end", line.open_end), ("root", line.root)):
                if value is not None and value > n:  # type: ignore[operator]
                    raise Refused(
                        f"line {line.name!r}: {label} {value} is above {top}",
                        "line_value_above_set",
                        line=line.name,
                        field=label.replace(" ", "_"),
                        value=value,
                        set=n,
                    )

    def _all_tiles(self) -> list[tuple[Tile, str]]:
        found = [(t, f"{p.name}'s hand") for p in self.players for t in p.hand]
        found += self.layout.table_tiles()
        found += [(t, "the boneyard") for t in self.boneyard_tiles or ()]
        return found

    def _check_tiles(self) -> None:
        seen: dict[Tile, str] = {}
        for tile, where in self._all_tiles():
            if tile in seen:
                raise Refused(
                    _twice(tile, seen[tile], where),
                    "tile_twice",
                    tile=tile.as_list(),
                    first=seen[tile],
                    second=where,
                )
            seen[tile] = where
        total = set_size(self.max_pip)  # type: ignore[arg-type]
        if len(seen) + self.boneyard - len(self.boneyard_tiles or ()) > total:
            free = total - len(seen) + len(self.boneyard_tiles or ())
            raise Refused(
                _(
                    "boneyard of {count} is more than the {free} tiles of the "
                    "double-{set} set that are not in hands or on the table"
                ).format(count=self.boneyard, free=free, set=self.max_pip),
                "boneyard_too_big",
                count=self.boneyard,
                free=free,
                set=self.max_pip,
            )

    # --- queries ----------------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        """Every player's name, clockwise."""
        return tuple(p.name for p in self.players)

    @property
    def active_players(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if p.active)

    @property
    def active_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.active)

    def player(self, name: str) -> Player:
        """The player called `name`.

        Raises:
            UserInputError: no such player (the message lists the players).
        """
        for player in self.players:
            if player.name == name:
                return player
        self._known(name, "player", role="player")
        raise AssertionError("unreachable")

    @property
    def proposer_name(self) -> str:
        """Who starts the verification: the proposer, else the first active player."""
        return self.proposer if self.proposer is not None else self.active_names[0]

    @property
    def leader_name(self) -> str:
        return self.leader if self.leader is not None else self.names[0]

    def clockwise_from(self, name: str) -> tuple[str, ...]:
        """The active players in seat order starting with `name` (who need not be active)."""
        start = self.names.index(self.player(name).name)
        order = self.names[start:] + self.names[:start]
        return tuple(n for n in order if self.player(n).active)

    @property
    def blocker(self) -> str:
        """Who caused the block: `last_played`, else the active player before the proposer."""
        if self.last_played is not None:
            return self.last_played
        return self.clockwise_from(self.proposer_name)[-1]

    def declared(self, name: str) -> bool:
        """True when `name` has claimed they cannot play (a declaration or the proposal)."""
        return self.player(name).declared_cannot_play or self.proposer == name

    @property
    def drawable(self) -> int:
        """Boneyard tiles a player may still draw under the variant (0: nothing to draw)."""
        return self.variant.drawable(self.boneyard)

    def pip_totals(self) -> dict[str, int]:
        """Each player's remaining pip count, in seat order (double-blank per the variant)."""
        return {p.name: p.pips(self.variant.double_blank) for p in self.players}

    def teams(self) -> dict[str, str]:
        """Each active player's team.

        Teams given on every active player are used as given. Otherwise, when the variant
        scores teams, four players default to partners facing each other: seats 1 and 3
        are team A, seats 2 and 4 team B (pagat: "partners sit facing each other"); when
        it does not, every player is their own team.

        Raises:
            UserInputError: the variant scores teams but only some players have one, or
                none has and there are not exactly four active players.
        """
        active = self.active_players
        given = [p.team for p in active]
        if all(team is not None for team in given):
            return {p.name: p.team for p in active}  # type: ignore[misc]
        if not self.variant.team_scoring:
            return {p.name: p.name for p in active}
        if any(team is not None for team in given):
            missing = ", ".join(p.name for p in active if p.team is None)
            raise Refused(
                _("{title} scores teams, but some players have no team: {missing}").format(
                    title=_(self.variant.title), missing=missing
                ),
                "teams_incomplete",
                variant=self.variant.name,
                missing=[p.name for p in active if p.team is None],
            )
        if len(active) != 4:
            raise Refused(
                _(
                    "{title} scores teams: give every player a team "
                    "(the default pairs need exactly 4 players, got {count})"
                ).format(title=_(self.variant.title), count=len(active)),
                "teams_needed",
                variant=self.variant.name,
                count=len(active),
            )
        return {p.name: "A" if i % 2 == 0 else "B" for i, p in enumerate(active)}

    def to_json(self) -> dict[str, object]:
        """The game-state JSON form (round-trips through `parse_state`)."""
        overrides = {k: v for k, v in self.variant.settings.items() if getattr(_base(self), k) != v}
        data: dict[str, object] = {"variant": self.variant.name}
        if overrides:
            data["rules"] = overrides
        data["set"] = self.max_pip
        data["players"] = [p.to_json() for p in self.players]
        data["layout"] = self.layout.to_json()
        data["boneyard"] = (
            [t.as_list() for t in self.boneyard_tiles]
            if self.boneyard_tiles is not None
            else self.boneyard
        )
        for label in ("proposer", "leader", "last_played"):
            if getattr(self, label) is not None:
                data[label] = getattr(self, label)
        return data


def _base(state: GameState) -> Variant:
    return VARIANTS.get(state.variant.name, state.variant)


def _twice(tile: Tile, first: str, second: str) -> str:
    """The message for a tile found in two places (hands, the table, the boneyard)."""
    hands = [w for w in (first, second) if w.endswith("hand")]
    table = [w for w in (first, second) if not w.endswith("hand") and w != "the boneyard"]
    if len(hands) == 1 and len(table) == 1:
        return f"tile {tile} is both in {hands[0]} and on the table ({table[0]})"
    if len(table) == 2:
        return f"tile {tile} is on the table twice: in {first} and in {second}"
    return f"tile {tile} is held twice: in {first} and in {second}"


# --- parsing ----------------------------------------------------------------------------------


def parse_state(raw: object) -> GameState:
    """A validated `GameState` from the JSON form (a dict as `json.load` returns it).

    Raises:
        UserInputError: anything invalid, with a one-line message naming the problem.
    """
    obj = _object(raw, "the game state")
    _only(obj, STATE_KEYS, "the game state")
    variant = get_variant(obj.get("variant", DEFAULT_VARIANT), _rules(obj.get("rules")))
    max_pip = obj.get("set", variant.set)
    if not _is_int(max_pip) or max_pip not in SUPPORTED_SETS:
        valid = ", ".join(str(n) for n in SUPPORTED_SETS)
        raise Refused(
            _("set must be one of {valid} (double-n), got {value!r}").format(
                valid=valid, value=max_pip
            ),
            "unknown_set",
            set=plain_value(max_pip),
            valid=list(SUPPORTED_SETS),
        )
    players = _players(obj.get("players"), max_pip)
    names = [p.name for p in players]
    declared = _declarations(obj.get("declarations", []), names)
    players = [
        Player(p.name, p.hand, p.team, p.declared_cannot_play or p.name in declared, p.active)
        for p in players
    ]
    layout = _layout(obj.get("layout", {}), max_pip)
    boneyard_raw = obj.get("boneyard", 0)
    boneyard_tiles: tuple[Tile, ...] | None = None
    if isinstance(boneyard_raw, list):
        boneyard_tiles = tuple(
            parse_tile(t, max_pip) for t in _tiles_list(boneyard_raw, "boneyard", max_pip)
        )
        boneyard = len(boneyard_tiles)
    elif _is_int(boneyard_raw) and boneyard_raw >= 0:
        boneyard = boneyard_raw
    else:
        raise Refused(
            _(
                "boneyard must be a count of tiles (a whole number >= 0) or a list of tiles, "
                "got {value!r}"
            ).format(value=boneyard_raw),
            "bad_boneyard",
            value=plain_value(boneyard_raw),
        )
    people: dict[str, str | None] = {}
    for label in ("proposer", "leader", "last_played"):
        value = obj.get(label)
        if value is not None and not isinstance(value, str):
            raise Refused(
                _("{label} must be a player's name, got {value!r}").format(
                    label=label, value=value
                ),
                "wrong_type",
                field=label,
                type="string",
            )
        people[label] = value
    return GameState(
        variant=variant,
        players=tuple(players),
        layout=layout,
        max_pip=max_pip,
        boneyard=boneyard,
        boneyard_tiles=boneyard_tiles,
        **people,
    )


def load_state(path: str | Path) -> GameState:
    """Read and parse a game-state JSON file; `-` reads standard input.

    Raises:
        UserInputError: the file is missing or unreadable, not JSON, or not a valid state.
    """
    return parse_state(read_json(path))


def read_json(path: str | Path) -> Any:
    """The JSON document in `path` (`-`: standard input), with one-line errors."""
    label = _("standard input") if str(path) == "-" else str(path)
    try:
        text = sys.stdin.read() if str(path) == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserInputError(_("cannot read {label}: no such file").format(label=label)) from None
    except IsADirectoryError:
        raise UserInputError(
            _("cannot read {label}: it is a directory, not a file").format(label=label)
        ) from None
    except PermissionError:
        raise UserInputError(
            _("cannot read {label}: permission denied").format(label=label)
        ) from None
    except UnicodeDecodeError:
        raise UserInputError(
            _("cannot read {label}: it is not UTF-8 text").format(label=label)
        ) from None
    except OSError as error:
        raise UserInputError(f"cannot read {label}: {error.strerror or error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserInputError(
            _("{label} is not valid JSON: {reason} at line {line} column {column}").format(
                label=label, reason=error.msg, line=error.lineno, column=error.colno
            )
        ) from None
    except RecursionError:
        raise UserInputError(
            _("{label} is nested too deeply to be a game state").format(label=label)
        ) from None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: object) -> str:
    kind = {
        dict: N_("an object"),
        list: N_("a list"),
        str: N_("text"),
        bool: N_("true/false"),
        int: N_("a number"),
        float: N_("a number"),
        type(None): N_("null"),
    }.get(type(value))
    return type(value).__name__ if kind is None else _(kind)


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise Refused(
            _("{where} must be a JSON object, got {kind}").format(
                where=where, kind=_type_name(value)
            ),
            "wrong_type",
            field=where,
            type="object",
        )
    return value


def _only(obj: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
    for key in obj:
        if key not in keys:
            raise Refused(
                _("{where}: unknown field {key!r}; valid fields: {fields}").format(
                    where=where, key=key, fields=", ".join(keys)
                ),
                "unknown_field",
                where=where,
                field=key,
                valid=list(keys),
            )


def _bool(obj: Mapping[str, Any], key: str, where: str, default: bool = False) -> bool:
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise Refused(
            _("{where}: {key} must be true or false, got {value!r}").format(
                where=where, key=key, value=value
            ),
            "wrong_type",
            field=key,
            type="boolean",
            where=where,
        )
    return value


def _place(obj: Mapping[str, Any], where: str) -> str | None:
    """A line's place on a table photo (`dominocam.rules.places.PLACES`), or None."""
    value = obj.get("place")
    if value is None:
        return None
    if value not in PLACE_CODES:
        raise Refused(
            _("{where}: place must be one of {places}, got {value!r}").format(
                where=where, places=", ".join(sorted(PLACE_CODES)), value=value
            ),
            "unknown_place",
            where=where,
            place=plain_value(value),
            valid=sorted(PLACE_CODES),
        )
    return str(value)


def _rules(raw: object) -> Mapping[str, object] | None:
    if raw is None:
        return None
    return _object(raw, "rules")


def _tiles_list(raw: object, where: str, max_pip: int) -> list[object]:
    if not isinstance(raw, list):
        raise Refused(
            _("{where} must be a list of tiles [a, b], got {kind}").format(
                where=where, kind=_type_name(raw)
            ),
            "wrong_type",
            field=where,
            type="array",
        )
    return raw


def _parse_tiles(raw: object, where: str, max_pip: int) -> tuple[Tile, ...]:
    tiles = []
    for index, item in enumerate(_tiles_list(raw, where, max_pip)):
        try:
            tiles.append(parse_tile(item, max_pip))
        except UserInputError as error:
            raise with_context(
                error, f"{where}, tile {index + 1}: {error}", where=where, position=index + 1
            ) from None
    return tuple(tiles)


def _players(raw: object, max_pip: int) -> list[Player]:
    if not isinstance(raw, list):
        raise Refused(
            _("players must be a list of players, got {kind}").format(kind=_type_name(raw)),
            "wrong_type",
            field="players",
            type="array",
        )
    players = []
    for index, item in enumerate(raw):
        where = f"players[{index}]"
        obj = _object(item, where)
        _only(obj, PLAYER_KEYS, where)
        name = obj.get("name")
        if not isinstance(name, str) or not name.strip():
            raise Refused(
                _("{where}: name must be non-empty text, got {value!r}").format(
                    where=where, value=name
                ),
                "player_without_name",
                where=where,
            )
        where = f"player {name!r}"
        hand = _parse_tiles(obj.get("hand", []), f"{name}'s hand", max_pip)
        team = obj.get("team")
        if team is not None and (not isinstance(team, str) or not team.strip()):
            raise Refused(
                _("{where}: team must be a name (text) or null, got {value!r}").format(
                    where=where, value=team
                ),
                "wrong_type",
                field="team",
                type="string",
                where=where,
            )
        players.append(
            Player(
                name=name,
                hand=hand,
                team=team,
                declared_cannot_play=_bool(obj, "declared_cannot_play", where),
                active=_bool(obj, "active", where, default=True),
            )
        )
    return players


def _declarations(raw: object, names: Sequence[str]) -> set[str]:
    if not isinstance(raw, list):
        raise Refused(
            _("declarations must be a list of player names, got {value!r}").format(value=raw),
            "wrong_type",
            field="declarations",
            type="array",
        )
    declared = set()
    for item in raw:
        name = item
        if isinstance(item, dict):
            _only(item, ("player", "cannot_play"), "a declaration")
            name = item.get("player")
            if not item.get("cannot_play", True):
                continue
        if not isinstance(name, str) or name not in names:
            raise Refused(
                _("declarations: unknown player {name!r}; players: {players}").format(
                    name=name, players=", ".join(names)
                ),
                "unknown_player",
                name=plain_value(name),
                players=list(names),
                role="declaration",
            )
        declared.add(name)
    return declared


def _layout(raw: object, max_pip: int) -> Layout:
    obj = _object(raw, "layout")
    _only(obj, LAYOUT_KEYS, "layout")
    hubs: dict[str, Tile | None] = {}
    for key in ("spinner", "engine"):
        value = obj.get(key)
        hubs[key] = None if value is None else _hub_tile(value, key, max_pip)
    hub = hubs["spinner"] or hubs["engine"]
    raw_lines = obj.get("lines", [])
    if not isinstance(raw_lines, list):
        raise Refused(
            _("layout.lines must be a list of lines, got {kind}").format(
                kind=_type_name(raw_lines)
            ),
            "wrong_type",
            field="layout.lines",
            type="array",
        )
    objects = []
    for index, item in enumerate(raw_lines):
        where = f"layout.lines[{index}]"
        line_obj = _object(item, where)
        _only(line_obj, LINE_KEYS, where)
        name = line_obj.get("name")
        if "name" in line_obj and (not isinstance(name, str) or not name.strip()):
            raise Refused(
                _("{where}: name must be non-empty text, got {value!r}").format(
                    where=where, value=name
                ),
                "line_without_name",
                where=where,
            )
        objects.append(line_obj)
    # A line without a name gets an id ("line 2", its place in the list) that no person reads
    # (`Line.named`): the rulings name it by its open end and place.
    taken = {obj["name"] for obj in objects if "name" in obj}
    items = []
    for index, line_obj in enumerate(objects):
        if "name" not in line_obj:
            name = free_name(f"line {index + 1}", taken)
            taken.add(name)
            line_obj = {**line_obj, "name": name, "named": line_obj.get("named", False)}
        items.append((line_obj["name"], line_obj))
    toes: dict[str, int] = {}
    for _name, line_obj in items:
        parent = line_obj.get("branch_of")
        if isinstance(parent, str):
            toes[parent] = toes.get(parent, 0) + 1
    resolved: dict[str, Line] = {}
    pending = list(items)
    while pending:
        progress = False
        for entry in list(pending):
            name, line_obj = entry
            parent = line_obj.get("branch_of")
            if parent is not None and not isinstance(parent, str):
                raise Refused(
                    f"line {name!r}: branch_of must be a line's name",
                    "wrong_type",
                    field="branch_of",
                    type="string",
                    line=name,
                )
            if parent is not None and parent not in resolved:
                if parent not in {n for n, _ in items}:
                    raise Refused(
                        f"line {name!r} branches from an unknown line {parent!r}; lines: "
                        + ", ".join(n for n, _ in items),
                        "unknown_line",
                        line=parent,
                        branch=name,
                        lines=[n for n, _ in items],
                    )
                continue
            parent_end = resolved[parent].open_end if parent is not None else None
            resolved[name] = _line(name, line_obj, max_pip, hub, parent_end, toes.get(name, 0))
            pending.remove(entry)
            progress = True
        if not progress:
            loop = ", ".join(repr(n) for n, _ in pending)
            raise Refused(
                f"lines {loop} branch from each other in a loop",
                "branch_loop",
                lines=[n for n, _ in pending],
            )
    lines = tuple(resolved[name] for name, _ in items if name in resolved)
    if len(lines) != len(items):
        names = [n for n, _ in items]
        dup = next(n for n in names if names.count(n) > 1)
        raise Refused(
            _("two lines are called {name!r}; line names must differ").format(name=dup),
            "duplicate_line",
            name=dup,
        )
    return Layout(lines=lines, spinner=hubs["spinner"], engine=hubs["engine"])


def _hub_tile(value: object, key: str, max_pip: int) -> Tile:
    try:
        tile = parse_tile(value, max_pip)
    except UserInputError as error:
        raise with_context(error, f"layout.{key}: {error}", where=f"layout.{key}") from None
    if not tile.is_double:
        raise Refused(
            _("layout.{key} must be a double, got {tile}").format(key=key, tile=tile),
            "hub_not_a_double",
            hub=key,
            tile=tile.as_list(),
        )
    return tile


def _count(obj: Mapping[str, Any], key: str, where: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, dict) and key == "open_end":  # a Scene's {"tile", "value", "point"}
        value = value.get("value")
    if not _is_int(value) or value < 0:
        raise Refused(
            _("{where}: {key} must be a whole number of pips >= 0, got {value!r}").format(
                where=where, key=key, value=value
            ),
            "bad_count",
            where=where,
            field=key,
            value=plain_value(value),
        )
    return value


def _line(
    name: str,
    obj: Mapping[str, Any],
    max_pip: int,
    hub: Tile | None,
    parent_end: int | None,
    derived_toes: int,
) -> Line:
    where = f"line {name!r}"
    open_end = _count(obj, "open_end", where)
    root = _count(obj, "root", where)
    toes = _count(obj, "toes", where)
    owner = obj.get("owner")
    if owner is not None and not isinstance(owner, str):
        raise Refused(
            _("{where}: owner must be a player's name or null, got {value!r}").format(
                where=where, value=owner
            ),
            "wrong_type",
            field="owner",
            type="string",
            line=name,
        )
    has_tiles = "tiles" in obj
    tiles = _parse_tiles(obj["tiles"], f"line {name!r}", max_pip) if has_tiles else ()
    branch_of = obj.get("branch_of")
    on_hub = hub is not None and branch_of is None and (root is None or root == hub.low)
    if root is None and branch_of is not None:
        root = parent_end
    if root is None and on_hub:
        root = hub.low  # type: ignore[union-attr]
    if has_tiles:
        if root is None and tiles:
            root = infer_root(tiles, name)
        if root is None:
            if open_end is None:
                raise Refused(
                    _("{where} has no tiles and no open_end: give its open_end or its root").format(
                        where=where
                    ),
                    "line_without_end",
                    line=name,
                )
            root = open_end
        end = chain_end(root, tiles, name)
        if open_end is not None and open_end != end:
            raise Refused(
                _("{where}: its tiles end on {end}, but its open_end says {open_end}").format(
                    where=where, end=end, open_end=open_end
                ),
                "line_end_mismatch",
                line=name,
                end=end,
                open_end=open_end,
            )
        open_end = end
    elif open_end is None:
        if root is None:
            raise Refused(
                _("{where} needs an open_end or its tiles").format(where=where),
                "line_without_end",
                line=name,
            )
        open_end = root
    if "open_double" in obj:
        open_double = _bool(obj, "open_double", where)
    else:
        open_double = bool(tiles) and tiles[-1].is_double
    return Line(
        name=name,
        open_end=open_end,
        tiles=tiles,
        root=root if tiles else None,
        owner=owner,
        marked=_bool(obj, "marked", where),
        open_double=open_double,
        toes=derived_toes if toes is None else toes,
        on_hub=on_hub,
        branch_of=branch_of,
        place=_place(obj, where),
        named=_bool(obj, "named", where, default=True),
    )
