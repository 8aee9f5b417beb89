"""Legal play, simulated: the logical layout of a table (which tile touches which).

Pure Python, no geometry: a `Placer` (see `dominosynth.placement`) decides whether a move
fits on the table, so that what is drawn is exactly what was played. The data structure is
meant to be checked against the rules engine (`rules.legal_moves`) once it exists:

* `Layout.tiles[i]` is a `PlayedTile`: the tile, the half facing the root (`inner`, the half
  that matches the open end it was played on) and the half facing away (`outer`). The root
  tile is `tiles[0]`; its `inner` is the half towards line 0 for a line game.
* `Layout.lines[j]` is a `Line`: its kind (`main`, `arm`, `train`, `public`, `toe`), owner,
  the tile indices in order from the root (the tile it starts from comes first), and its
  open end value (None when the line is closed, e.g. a double that sprouted toes).

Variants: `line` (one line, two ends), `spinner` (first double, four arms), `mexican`
(engine double as the hub, a train per player plus the public train), `chicken` (a spinner
whose doubles each sprout three toes).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from dominocam.rules.tiles import Tile

VARIANTS: tuple[str, ...] = ("line", "spinner", "mexican", "chicken")
LINE_KINDS: tuple[str, ...] = ("main", "arm", "train", "public", "toe")


@dataclass
class PlayedTile:
    """A tile on the table: `inner` matched the open end it was played on, `outer` is free."""

    tile: Tile
    inner: int
    outer: int
    line: int  # the line it was played on (-1 for the root)

    def __post_init__(self) -> None:
        if sorted((self.inner, self.outer)) != [self.tile.low, self.tile.high]:
            raise ValueError(f"halves {self.inner},{self.outer} are not those of {self.tile}")


@dataclass
class PlayedLine:
    """One line of play from the root outwards.

    Attributes:
        kind: main, arm, train, public or toe.
        owner: the player who owns a train ("P1".."Pn"), else None.
        tiles: indices into `Layout.tiles` in order from the root; tiles[0] is the tile the
            line starts from (the root, the hub, or the double that sprouted a toe).
        open_value: the pips of the free half at the end, None when the line is closed.
    """

    kind: str
    owner: str | None
    tiles: list[int]
    open_value: int | None

    def __post_init__(self) -> None:
        if self.kind not in LINE_KINDS:
            raise ValueError(f"unknown line kind {self.kind!r}; valid: {LINE_KINDS}")


@dataclass
class PlayedLayout:
    """The played tiles and the lines they form. See the module docstring."""

    variant: str
    tiles: list[PlayedTile] = field(default_factory=list)
    lines: list[PlayedLine] = field(default_factory=list)

    def open_ends(self) -> list[tuple[int, int]]:
        """(line index, value) of every open line end."""
        return [(j, ln.open_value) for j, ln in enumerate(self.lines) if ln.open_value is not None]


class Placer(Protocol):
    """Geometry callback: places the root, new lines and moves, or refuses them."""

    def place_root(self, layout: PlayedLayout) -> None: ...

    def start_line(self, layout: PlayedLayout, line: int) -> bool: ...

    def place(self, layout: PlayedLayout, line: int, played: PlayedTile) -> bool: ...


class AlwaysPlace:
    """A placer that accepts every move (pure logic, for tests)."""

    def place_root(self, layout: PlayedLayout) -> None:
        return None

    def start_line(self, layout: PlayedLayout, line: int) -> bool:
        return True

    def place(self, layout: PlayedLayout, line: int, played: PlayedTile) -> bool:
        return True


def simulate(
    rng: random.Random,
    variant: str,
    deck: list[Tile],
    target_tiles: int,
    placer: Placer | None = None,
    players: int = 4,
) -> PlayedLayout:
    """Play legal moves from `deck` (tiles are removed from it) until `target_tiles` lie
    on the table, no move is legal, or no legal move fits.

    Args:
        rng: the random source (the only one used).
        variant: one of VARIANTS.
        deck: the tiles not yet used in this scene; played tiles are removed (no repeats).
        target_tiles: how many tiles the layout should reach, root included.
        placer: geometry; None accepts every move.
        players: number of players (trains in Mexican Train).
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
    placer = placer or AlwaysPlace()
    layout = PlayedLayout(variant)
    doubles = [t for t in deck if t.is_double]
    if variant == "line" or not doubles:
        root = rng.choice(deck) if variant == "line" or not doubles else rng.choice(doubles)
    else:
        root = rng.choice(doubles)
    deck.remove(root)
    a, b = (root.low, root.high) if rng.random() < 0.5 else (root.high, root.low)
    layout.tiles.append(PlayedTile(root, a, b, -1))
    if variant == "line":
        layout.lines = [PlayedLine("main", None, [0], a), PlayedLine("main", None, [0], b)]
    elif variant in ("spinner", "chicken"):
        kind = "arm" if variant == "spinner" else "main"
        layout.lines = [PlayedLine(kind, None, [0], a) for _ in range(4)]
    else:
        layout.lines = [PlayedLine("train", f"P{k + 1}", [0], a) for k in range(players)]
        layout.lines.append(PlayedLine("public", None, [0], a))
    placer.place_root(layout)
    blocked: set[int] = set()
    for j in range(len(layout.lines)):
        if not placer.start_line(layout, j):
            blocked.add(j)  # still open in play, but nothing fits on the table there
    while len(layout.tiles) < target_tiles:
        moves = [
            (j, t)
            for j, ln in enumerate(layout.lines)
            if ln.open_value is not None and j not in blocked
            for t in deck
            if t.has(ln.open_value)
        ]
        if not moves:
            break
        rng.shuffle(moves)
        placed = False
        tried_lines: dict[int, int] = {}
        for j, t in moves[:40]:
            value = layout.lines[j].open_value
            assert value is not None
            played = PlayedTile(t, value, t.other_half(value), j)
            if placer.place(layout, j, played):
                _commit(layout, deck, j, played, placer)
                placed = True
                break
            tried_lines[j] = tried_lines.get(j, 0) + 1
            if tried_lines[j] >= 3:
                blocked.add(j)
        if not placed:
            blocked.update(tried_lines)
    return layout


def _commit(
    layout: PlayedLayout, deck: list[Tile], j: int, played: PlayedTile, placer: Placer
) -> None:
    deck.remove(played.tile)
    layout.tiles.append(played)
    uid = len(layout.tiles) - 1
    line = layout.lines[j]
    line.tiles.append(uid)
    line.open_value = played.outer
    if layout.variant == "chicken" and played.tile.is_double:
        line.open_value = None  # the double's free side now carries the three toes
        for _ in range(3):
            layout.lines.append(PlayedLine("toe", None, [uid], played.outer))
            if not placer.start_line(layout, len(layout.lines) - 1):
                layout.lines.pop()
        if not any(ln.tiles[0] == uid for ln in layout.lines[j + 1 :]):
            line.open_value = played.outer  # no toe fits: the double stays open


def check_layout(layout: PlayedLayout) -> list[str]:
    """Problems with a layout (empty when every touching pair matches and no tile repeats).

    Checks each line's first tile touches its root value, consecutive tiles match, the
    open value is the last tile's free half, and every tile appears once.
    """
    problems: list[str] = []
    seen = [pt.tile for pt in layout.tiles]
    if len(set(seen)) != len(seen):
        problems.append("a tile appears twice")
    for j, ln in enumerate(layout.lines):
        prev_value: int | None = None
        for k, uid in enumerate(ln.tiles):
            pt = layout.tiles[uid]
            if k == 0:
                prev_value = line_start_value(layout, j)
                continue
            if pt.inner != prev_value:
                problems.append(f"line {j}: tile {pt.tile} inner {pt.inner} != {prev_value}")
            prev_value = pt.outer
        if ln.open_value is not None and ln.open_value != prev_value:
            problems.append(f"line {j}: open end {ln.open_value} != free half {prev_value}")
    return problems


def line_start_value(layout: PlayedLayout, j: int) -> int:
    """The value line `j` grows from: the half of its first tile that faces the line."""
    ln = layout.lines[j]
    first = layout.tiles[ln.tiles[0]]
    if ln.tiles[0] == 0 and layout.variant == "line":
        return first.inner if j == 0 else first.outer
    return first.outer
