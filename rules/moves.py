"""Legal moves under a variant, and applying them (for simulations and the data generator).

Who may play where (docs/rules.md, what varies, "who may play where"):

1. An empty table accepts any tile (the lead).
2. If any open end is *pending* - an open double still owed tiles (`double_cover`) or a
   spinner whose arms must all be started first (`spinner_first`) - every player may play
   only there, whoever owns that line (Mexican Train: "an unsatisfied double must be covered
   before anything else"; Chicken Foot: three toes first).
3. Otherwise, under `play = any-line` every open end is open to everyone; under
   `play = trains` a player may play on their own train, on public lines (no owner: the
   Mexican train) and on trains carrying a marker. A tile that fits only another player's
   unmarked train is therefore not a legal move.

`play(state, move)` returns the state after the move; `draw(state, player)` and
`pass_turn(state, player)` cover the rest of a turn, so a simulation can play a whole round
with nothing but this module (see tests/rules/test_simulation.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dominocam.errors import Refused, UserInputError
from dominocam.rules.layout import (
    END_LEAD,
    END_SPINNER,
    END_TRAIN,
    Layout,
    Line,
    OpenEnd,
)
from dominocam.rules.state import GameState, Player
from dominocam.rules.tiles import Tile


@dataclass(frozen=True, order=True)
class Move:
    """A tile a player may play, and where.

    Attributes:
        player: who plays it.
        tile: the tile from their hand.
        line: the name of the open end's line (`spinner`, an implicit train, or `lead`).
        end: the value it matches (None for a lead on an empty table).
    """

    player: str
    tile: Tile
    line: str
    end: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.player, str) or not isinstance(self.line, str):
            raise UserInputError("a move names its player and its line")
        if not isinstance(self.tile, Tile):
            raise UserInputError(f"a move plays a Tile, got {self.tile!r}")
        if self.end is not None and not self.tile.has(self.end):
            raise UserInputError(f"tile {self.tile} cannot be played on a {self.end}")

    def to_json(self) -> dict[str, object]:
        """`{"player", "tile", "line", "end"}` as the verdict's `playable` lists it."""
        return {
            "player": self.player,
            "tile": self.tile.as_list(),
            "line": self.line,
            "end": self.end,
        }

    def __str__(self) -> str:
        where = "as the lead" if self.end is None else f"on {self.line} ({self.end})"
        return f"{self.player}: {self.tile} {where}"


def open_ends(state: GameState) -> tuple[OpenEnd, ...]:
    """Every open end of the table under the state's variant (before asking who may play)."""
    return state.layout.open_ends(state.variant, state.active_names)


def available_ends(state: GameState, player: str) -> tuple[OpenEnd, ...]:
    """The open ends `player` may play on now (rules 1-3 of the module docstring).

    Raises:
        UserInputError: `player` is not at the table.
    """
    state.player(player)
    ends = open_ends(state)
    pending = tuple(end for end in ends if end.pending)
    if pending:
        return pending
    if state.variant.play == "any-line":
        return ends
    return tuple(end for end in ends if end.owner is None or end.owner == player or end.marked)


def legal_moves(state: GameState, player: str) -> tuple[Move, ...]:
    """Every legal move of `player` from their hand, ordered by tile then by open end.

    An inactive player has none. The result does not depend on the order of the hand.

    Raises:
        UserInputError: `player` is not at the table.
    """
    seat = state.player(player)
    if not seat.active:
        return ()
    ends = available_ends(state, player)
    return tuple(
        Move(player, tile, end.line, end.value)
        for tile in sorted(set(seat.hand))
        for end in ends
        if end.accepts(tile)
    )


def all_legal_moves(state: GameState) -> tuple[Move, ...]:
    """Every active player's legal moves, players in seat order."""
    return tuple(move for name in state.active_names for move in legal_moves(state, name))


# --- applying moves -------------------------------------------------------------------------


def play(state: GameState, move: Move) -> GameState:
    """The state after `move`: the tile leaves the hand and extends its line.

    An open double owed several tiles (Chicken Foot) grows a new toe line; a spinner's free
    arm or an implicit train becomes a new line; the owner playing on their own train lifts
    its marker (Mexican Train). Declarations and the proposal lapse (the table changed).
    A lead on an empty table becomes the layout's spinner (a
    double, when the variant has a 4-arm spinner) or two lines, `left` and `right`.

    Raises:
        UserInputError: the move is not legal in this state.
    """
    if move not in legal_moves(state, move.player):
        raise Refused(
            f"illegal move: {move}",
            "illegal_move",
            player=move.player,
            tile=move.tile.as_list(),
            line=move.line,
            end=move.end,
        )
    seat = state.player(move.player)
    hand = list(seat.hand)
    hand.remove(move.tile)
    players = tuple(  # a move changes the table: earlier "cannot play" claims lapse
        replace(p, hand=tuple(hand) if p.name == seat.name else p.hand, declared_cannot_play=False)
        for p in state.players
    )
    end = next(e for e in open_ends(state) if e.line == move.line)
    layout = _extend(state, end, move)
    return replace(state, players=players, layout=layout, proposer=None)


def _extend(state: GameState, end: OpenEnd, move: Move) -> Layout:
    layout, tile = state.layout, move.tile
    if end.kind == END_LEAD:
        if tile.is_double and state.variant.spinner_arms > 2:
            return Layout(spinner=tile)
        right = Line("right", tile.high, named=False)
        left = Line("left", tile.low, (tile,), tile.high, named=False)
        return Layout(lines=(left, right))
    if end.kind in (END_SPINNER, END_TRAIN):
        spinner = end.kind == END_SPINNER
        name = _new_name(layout, "arm" if spinner else end.line, numbered=spinner)
        line = Line.from_tiles(name, (tile,), end.value, owner=end.owner, on_hub=True, named=False)
        return replace(layout, lines=(*layout.lines, line))
    line = layout.line(end.line)
    if line.open_double and state.variant.double_cover > 1:
        toe = Line.from_tiles(
            _new_name(layout, f"{line.name} toe", numbered=True),
            (tile,),
            line.open_end,
            branch_of=line.name,
            named=False,
        )
        grown = replace(line, toes=line.toes + 1)
        lines = tuple(grown if x.name == line.name else x for x in layout.lines)
        return replace(layout, lines=(*lines, toe))
    root = line.root if line.tiles else line.open_end
    start = line.tiles if line.tiles else ()
    grown = Line.from_tiles(
        line.name,
        (*start, tile),
        root,
        owner=line.owner,
        marked=line.marked and move.player != line.owner,
        on_hub=line.on_hub,
        branch_of=line.branch_of,
        named=line.named,
    )
    return replace(layout, lines=tuple(grown if x.name == line.name else x for x in layout.lines))


def _new_name(layout: Layout, base: str, numbered: bool = False) -> str:
    taken = {line.name for line in layout.lines}
    if base not in taken and not numbered:
        return base
    number = 1
    while f"{base} {number}" in taken:
        number += 1
    return f"{base} {number}"


def draw(state: GameState, player: str) -> GameState:
    """The state after `player` draws the next drawable boneyard tile.

    Raises:
        UserInputError: the boneyard's tiles are not known, or nothing may be drawn.
    """
    if state.boneyard_tiles is None:
        raise Refused(
            "the boneyard's tiles are not known, so nothing can be drawn", "boneyard_unknown"
        )
    if state.drawable == 0:
        raise Refused("nothing can be drawn: the boneyard is down to its reserve", "boneyard_empty")
    tile, rest = state.boneyard_tiles[0], state.boneyard_tiles[1:]
    players = tuple(
        replace(p, hand=(*p.hand, tile)) if p.name == player else p for p in state.players
    )
    return replace(state, players=players, boneyard_tiles=rest, boneyard=len(rest))


def pass_turn(state: GameState, player: str) -> GameState:
    """The state after `player` passes: under `play = trains` their train gets a marker.

    A player with no train yet gets a marked empty one (Mexican Train: "place a marker on
    your train").
    """
    seat: Player = state.player(player)
    if state.variant.play != "trains":
        return state
    layout = state.layout
    own = [line for line in layout.lines if line.owner == seat.name]
    if own:
        lines = tuple(replace(x, marked=True) if x is own[0] else x for x in layout.lines)
        return replace(state, layout=replace(layout, lines=lines))
    end = next((e for e in open_ends(state) if e.kind == END_TRAIN and e.owner == seat.name), None)
    if end is None:
        return state
    line = Line(end.line, end.value, owner=seat.name, marked=True, on_hub=True, named=False)  # type: ignore[arg-type]
    return replace(state, layout=replace(layout, lines=(*layout.lines, line)))
