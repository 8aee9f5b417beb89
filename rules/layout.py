"""The layout on the table: lines, their open ends, the spinner, the train hub, chicken feet.

Model (one shape for every variant):

* A *line* grows from a root value outwards and has exactly one open end. A Block or Draw
  layout (one chain with two ends) is two lines growing from the set tile: the set tile is
  listed in one of them, the other starts empty with the set tile's other half as its root
  (see `Layout.lead`). A line is given either by its open end alone (`open_end`, as a camera
  or a person reads it) or by its `tiles` in order from the root; the open end is then
  derived by following the matching halves.
* The root of a line given by tiles is, in this order: its explicit `root` value; the end of
  the line it branches from (`branch_of`, Chicken Foot's toes); the layout's hub double
  (`spinner` or `engine`) when it has one, for every other line; otherwise it is read from
  the first two tiles (the half of the first tile not shared with the second), or is the
  value of a lone double. A lone non-double with nothing to start from is ambiguous and
  rejected ("give its root").
* `spinner`: a double from which up to `variant.spinner_arms` lines grow (All Fives: the
  first double, 4 arms; Chicken Foot: the centre double). Arms not started yet are one
  extra open end named `spinner` with the spinner's value.
* `engine`: the Mexican Train hub double. Every active player has a train; a player with no
  line of their own has an implicit empty one (`"<name>'s train"`, open end = the engine's
  value), and when no public line exists, an implicit empty `mexican` train is open to all.
* Open doubles: a line whose last tile is a double (or `open_double: true` for a line given
  by its open end) is an open double. Under a variant with `double_cover = k > 0` it must
  receive k tiles before anything else is played anywhere (Mexican Train k = 1: cover it;
  Chicken Foot k = 3: three toes). `toes` counts the tiles already played on it (derived
  from the lines that branch from it). Once it has k toes (or 1 when k = 0 and something
  branches from it) its own end is closed: play goes on at the toes.

Values are pip counts 0..n of a double-n set; nothing here knows about pixels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dominocam.errors import Refused, UserInputError, plain_value
from dominocam.rules.places import PLACE_CODES
from dominocam.rules.tiles import Tile
from dominocam.rules.variants import Variant

# Kinds of open end, for people reading a verdict.
END_LINE = "line"  # the end of a line on the table
END_SPINNER = "spinner-arm"  # a side of the spinner not yet played on
END_TRAIN = "train"  # an implicit, still empty Mexican Train train
END_LEAD = "lead"  # an empty table: any tile may be led

SPINNER_END = "spinner"
MEXICAN_TRAIN = "mexican"
LEAD_END = "lead"


def chain_end(root: int, tiles: Sequence[Tile], line: str = "line") -> int:
    """The open end of `tiles` laid in order from `root`.

    Raises:
        UserInputError: a tile does not match the end it is laid on.
    """
    value = root
    for index, tile in enumerate(tiles):
        if not tile.has(value):
            raise Refused(
                f"line {line!r}: tile {tile} (number {index + 1} from the root) does not "
                f"match the {value} it would be played on",
                "tile_does_not_match",
                line=line,
                tile=tile.as_list(),
                position=index + 1,
                value=value,
            )
        value = tile.other_half(value)
    return value


def infer_root(tiles: Sequence[Tile], line: str = "line") -> int:
    """The root value of a line read from its own tiles (see the module docstring).

    Raises:
        UserInputError: one non-double tile (ambiguous) or the first two tiles do not match.
    """
    if not tiles:
        raise Refused(
            f"line {line!r} has no tiles and no open_end: give one of them",
            "line_without_end",
            line=line,
        )
    first = tiles[0]
    if first.is_double:
        return first.low
    if len(tiles) == 1:
        raise Refused(
            f"line {line!r}: cannot tell which half of {first} faces the root; "
            "give the line's root value (or its open_end)",
            "line_root_unknown",
            line=line,
            tile=first.as_list(),
        )
    second = tiles[1]
    shared = {first.low, first.high} & {second.low, second.high}
    if not shared:
        raise Refused(
            f"line {line!r}: tiles {first} and {second} do not match",
            "tiles_do_not_match",
            line=line,
            tiles=[first.as_list(), second.as_list()],
        )
    return first.other_half(shared.pop())


@dataclass(frozen=True)
class Line:
    """One line of play with one open end.

    Attributes:
        name: unique name of the line ("main", "Ben", "left" ...).
        open_end: the pips of the free half at the end of the line.
        tiles: the tiles known on the line, in order from `root` (may be empty when the
            line is given by its open end only).
        root: the value `tiles` start from; required when `tiles` is not empty. owner: the player
        whose train this is, or None for a public line. marked: a marker is on the train: anyone may
        play on it (Mexican Train). open_double: the end is a double not yet satisfied (see the
        module docstring). toes: tiles already played on that open double (lines branching from it).
        on_hub: the line grows from the layout's spinner or engine. branch_of: the line whose open
        double this line grows from (a toe), or None. place: where its open end lies on a table
        photo (`dominocam.rules.places.PLACES`, "top-right"),
            or None; only for naming the line to players ("the 5 at the top right"). named: the
        name is one a person gave ("left"); False when it is an id the software made ("line 2"):
        a person never reads it, the line is named by its open end and place instead.
    """

    name: str
    open_end: int
    tiles: tuple[Tile, ...] = ()
    root: int | None = None
    owner: str | None = None
    marked: bool = False
    open_double: bool = False
    toes: int = 0
    on_hub: bool = False
    branch_of: str | None = None
    place: str | None = None
    named: bool = True

    def __post_init__(self) -> None:
        if self.place is not None and self.place not in PLACE_CODES:
            raise UserInputError(
                f"line {self.name!r}: place must be one of {', '.join(sorted(PLACE_CODES))}, "
                f"got {self.place!r}"
            )
        if not isinstance(self.name, str) or not self.name.strip():
            raise UserInputError(f"a line needs a name (text), got {self.name!r}")
        if not _is_count(self.open_end):
            raise UserInputError(
                f"line {self.name!r}: open_end must be a whole number of pips >= 0, "
                f"got {self.open_end!r}"
            )
        if self.root is not None and not _is_count(self.root):
            raise UserInputError(
                f"line {self.name!r}: root must be a whole number of pips >= 0, got {self.root!r}"
            )
        if not isinstance(self.tiles, tuple) or not all(isinstance(t, Tile) for t in self.tiles):
            raise UserInputError(f"line {self.name!r}: tiles must be a tuple of Tile")
        if self.tiles:
            if self.root is None:
                raise UserInputError(f"line {self.name!r}: a line given by tiles needs its root")
            end = chain_end(self.root, self.tiles, self.name)
            if end != self.open_end:
                raise Refused(
                    f"line {self.name!r}: its tiles end on {end}, but its open_end says "
                    f"{self.open_end}",
                    "line_end_mismatch",
                    line=self.name,
                    end=end,
                    open_end=self.open_end,
                )
        for flag in ("marked", "open_double", "on_hub"):
            if not isinstance(getattr(self, flag), bool):
                raise UserInputError(f"line {self.name!r}: {flag} must be true or false")
        if not _is_count(self.toes):
            raise UserInputError(f"line {self.name!r}: toes must be a whole number >= 0")
        if self.owner is not None and not isinstance(self.owner, str):
            raise UserInputError(f"line {self.name!r}: owner must be a player's name or null")

    @classmethod
    def from_tiles(
        cls,
        name: str,
        tiles: Iterable[Tile],
        root: int | None = None,
        *,
        open_double: bool | None = None,
        **kwargs: object,
    ) -> Line:
        """A line from its tiles in order from the root; the open end is derived.

        Args:
            name: the line's name.
            tiles: tiles from the root outwards.
            root: the value the first tile is played on; read from the tiles when None.
            open_double: whether the end is an unsatisfied double; by default, whether the
                last tile is a double.
            **kwargs: the other `Line` fields (owner, marked, toes, on_hub, branch_of).
        """
        tiles = tuple(tiles)
        if root is None:
            root = infer_root(tiles, name)
        end = chain_end(root, tiles, name)
        if open_double is None:
            open_double = bool(tiles) and tiles[-1].is_double
        return cls(name, end, tiles, root, open_double=open_double, **kwargs)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        """The game-state JSON form of this line."""
        data: dict[str, object] = {"name": self.name, "open_end": self.open_end}
        if self.tiles:
            data["tiles"] = [t.as_list() for t in self.tiles]
        if self.root is not None and not self.on_hub and self.branch_of is None:
            data["root"] = self.root
        if self.branch_of is not None:
            data["branch_of"] = self.branch_of
        if self.owner is not None:
            data["owner"] = self.owner
        data["marked"] = self.marked
        data["open_double"] = self.open_double
        if self.toes:
            data["toes"] = self.toes
        if self.place is not None:
            data["place"] = self.place
        if not self.named:
            data["named"] = False
        return data


@dataclass(frozen=True)
class OpenEnd:
    """A place where a tile may be played, as seen by the rules.

    Attributes:
        line: the name of the line (or `spinner`, an implicit train, `lead`).
        value: the pips a tile must show to be played here; None for `lead` (any tile).
        owner: the owner of the train, None when public.
        marked: the train carries a marker (open to everyone).
        needs: tiles this end still needs before anything else may be played anywhere
            (an open double, or the unstarted arms of a spinner that must be filled first).
        kind: `line`, `spinner-arm`, `train` or `lead`.
        place: where the line's open end lies on a table photo (`dominocam.rules.places`), or None.
        named: `line` is a name a person gave (`Line.named`); False for an id the software
            made, which no person reads.
    """

    line: str
    value: int | None
    owner: str | None = None
    marked: bool = False
    needs: int = 0
    kind: str = END_LINE
    place: str | None = None
    named: bool = True

    def __post_init__(self) -> None:
        if self.kind not in (END_LINE, END_SPINNER, END_TRAIN, END_LEAD):
            raise ValueError(f"unknown kind of open end {self.kind!r}")
        if (self.value is None) != (self.kind == END_LEAD):
            raise ValueError("only a lead end takes any tile (value None)")
        if not _is_count(self.needs):
            raise ValueError(f"needs must be a whole number >= 0, got {self.needs!r}")

    @property
    def pending(self) -> bool:
        """True when play elsewhere must wait for this end."""
        return self.needs > 0

    def accepts(self, tile: Tile) -> bool:
        """True when `tile` matches this end."""
        return self.value is None or tile.has(self.value)

    def to_json(self) -> dict[str, object]:
        return {
            "line": self.line,
            "value": self.value,
            "owner": self.owner,
            "marked": self.marked,
            "needs": self.needs,
            "kind": self.kind,
            "place": self.place,
            "named": self.named,
        }


@dataclass(frozen=True)
class Layout:
    """Every line on the table plus the optional hub double.

    Attributes:
        lines: the lines, in a stable order (the order they were given in).
        spinner: the spinner double (All Fives, Chicken Foot's centre), or None.
        engine: the Mexican Train engine double in the hub, or None.
    """

    lines: tuple[Line, ...] = ()
    spinner: Tile | None = None
    engine: Tile | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.lines, tuple) or not all(isinstance(x, Line) for x in self.lines):
            raise UserInputError("layout lines must be a tuple of Line")
        if self.spinner is not None and self.engine is not None:
            raise Refused("a layout has a spinner or an engine, not both", "two_hubs")
        for label, hub in (("spinner", self.spinner), ("engine", self.engine)):
            if hub is not None and (not isinstance(hub, Tile) or not hub.is_double):
                raise UserInputError(f"the layout's {label} must be a double, got {hub}")
        names = [line.name for line in self.lines]
        for name in names:
            if names.count(name) > 1:
                raise Refused(
                    f"two lines are called {name!r}; line names must differ",
                    "duplicate_line",
                    name=name,
                )
        by_name = {line.name: line for line in self.lines}
        for line in self.lines:
            if line.on_hub and self.hub is None:
                raise Refused(
                    f"line {line.name!r} grows from a hub the layout lacks",
                    "no_hub",
                    line=line.name,
                )
            if line.on_hub and line.root is not None and line.root != self.hub_value:
                raise Refused(
                    f"line {line.name!r} grows from the hub {self.hub} but starts on {line.root}",
                    "line_root_mismatch",
                    line=line.name,
                    root=line.root,
                    expected=self.hub_value,
                )
            if line.branch_of is not None:
                parent = by_name.get(line.branch_of)
                if parent is None:
                    raise Refused(
                        f"line {line.name!r} branches from an unknown line {line.branch_of!r}",
                        "unknown_line",
                        line=line.branch_of,
                        branch=line.name,
                        lines=names,
                    )
                if parent.name == line.name:
                    raise Refused(
                        f"line {line.name!r} cannot branch from itself",
                        "branch_loop",
                        lines=[line.name],
                    )
                if line.root is not None and line.root != parent.open_end:
                    raise Refused(
                        f"line {line.name!r} branches from {parent.name!r}, whose end shows "
                        f"{parent.open_end}, but starts on {line.root}",
                        "line_root_mismatch",
                        line=line.name,
                        root=line.root,
                        expected=parent.open_end,
                    )

    @property
    def hub(self) -> Tile | None:
        """The spinner or the engine, whichever the layout has."""
        return self.spinner if self.spinner is not None else self.engine

    @property
    def hub_value(self) -> int | None:
        return None if self.hub is None else self.hub.low

    @property
    def is_empty(self) -> bool:
        """Nothing is on the table yet: the leader may play any tile."""
        return not self.lines and self.hub is None

    def line(self, name: str) -> Line:
        """The line called `name`.

        Raises:
            UserInputError: no such line.
        """
        for line in self.lines:
            if line.name == name:
                return line
        raise Refused(
            f"unknown line {name!r}; lines: {', '.join(x.name for x in self.lines) or 'none'}",
            "unknown_line",
            line=plain_value(name),
            lines=[x.name for x in self.lines],
        )

    def table_tiles(self) -> list[tuple[Tile, str]]:
        """Every tile known on the table with where it lies (the hub, then each line's tiles)."""
        found: list[tuple[Tile, str]] = []
        if self.spinner is not None:
            found.append((self.spinner, "the spinner"))
        if self.engine is not None:
            found.append((self.engine, "the engine"))
        for line in self.lines:
            found.extend((tile, f"line {line.name!r}") for tile in line.tiles)
        return found

    def hub_arms(self) -> tuple[Line, ...]:
        """The lines growing from the hub."""
        return tuple(line for line in self.lines if line.on_hub)

    def open_ends(self, variant: Variant, players: Sequence[str] = ()) -> tuple[OpenEnd, ...]:
        """Every place a tile may go under `variant`, before asking who may play there.

        Args:
            variant: the rules (double_cover, spinner_arms, spinner_first, play).
            players: the active players' names in seat order (for implicit trains).

        Returns:
            Open ends in a stable order: lines as listed, then the spinner's free arms,
            then implicit trains in seat order, then the implicit Mexican train.
        """
        if self.is_empty:
            return (OpenEnd(LEAD_END, None, kind=END_LEAD, named=False),)
        cover = variant.double_cover
        ends: list[OpenEnd] = []
        for line in self.lines:
            needs = 0
            if line.open_double:
                if line.toes >= max(cover, 1):
                    continue  # closed: its toes carry the play on
                needs = cover - line.toes if cover > 0 else 0
            ends.append(
                OpenEnd(
                    line.name,
                    line.open_end,
                    line.owner,
                    line.marked,
                    needs,
                    place=line.place,
                    named=line.named,
                )
            )
        names = {line.name for line in self.lines}
        if self.spinner is not None:
            free = variant.spinner_arms - len(self.hub_arms())
            if free > 0:
                ends.append(
                    OpenEnd(
                        free_name(SPINNER_END, names),
                        self.spinner.low,
                        needs=free if variant.spinner_first else 0,
                        kind=END_SPINNER,
                        named=False,
                    )
                )
        if self.engine is not None:
            owners = {line.owner for line in self.lines}
            for player in players:
                if player not in owners:
                    name = free_name(f"{player}'s train", names)
                    names.add(name)
                    ends.append(
                        OpenEnd(name, self.engine.low, owner=player, kind=END_TRAIN, named=False)
                    )
            if None not in owners:
                ends.append(
                    OpenEnd(
                        free_name(MEXICAN_TRAIN, names),
                        self.engine.low,
                        kind=END_TRAIN,
                        named=False,
                    )
                )
        return tuple(ends)

    def to_json(self) -> dict[str, object]:
        """The game-state JSON form of the layout."""
        data: dict[str, object] = {"lines": [line.to_json() for line in self.lines]}
        if self.spinner is not None:
            data["spinner"] = self.spinner.as_list()
        if self.engine is not None:
            data["engine"] = self.engine.as_list()
        return data


def free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base (2)`, `base (3)` ... when a line is already called so."""
    name, number = base, 2
    while name in taken:
        name = f"{base} ({number})"
        number += 1
    return name


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
