"""From read tiles to the layout: contacts, lines from their root, and open ends.

The blocked-game rule is about open ends, so this module answers, from tile geometry and
values alone: which face-up tiles are played together, in which lines, and what each
line's free end shows.

Geometry conventions are those of `vision.geometry`: points are (x, y) pixels, a tile's
corners[0]-corners[1] is the short edge at the end of half 0, corners[2]-corners[3] the
short edge at the end of half 1.

How a layout is recognised:
* A *contact* is one tile's end (the short edge of one half) lying against another tile:
  against its end (tiles in line), its long side (a crosswise double, or a line turning a
  corner) — with a gap of up to `LayoutConfig.max_gap` tile widths, because people leave
  gaps and photos show them.
* A contact counts as a *link* only when the two touching halves show the same value;
  touching halves that differ are reported as a warning with both tiles (a misread or a
  misplaced tile) and not linked, because loose tiles are often set down side by side.
* Each connected group of two or more linked tiles is a layout component. Its root is the
  double with the most links (the spinner or engine), else its first double, else its most
  central tile. Lines run from the root outwards, one per free end reached; each line
  lists its tiles from the root (the root included) and its open end.
* A crosswise double's short ends are open only when it is a spinner: when a tile already
  lies on one of them, or when the caller says doubles are spinners (All Fives, Sniff).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from vision.scene import Layout, LayoutLine, OpenEnd, Scene

# Which slot of a tile a contact uses: its two ends (the short edges of half 0 and half 1)
# and its two long sides (used by crosswise doubles and corners).
END_0, END_1, SIDE_A, SIDE_B = "end0", "end1", "sideA", "sideB"


@dataclass(frozen=True)
class LayoutConfig:
    """Tolerances of contact detection, in units of the tiles' own width (short side).

    Attributes:
        max_gap: largest gap between an end and the tile it faces that still counts as a
            contact (real photos show gaps of a third of a tile width).
        max_offset: largest sideways offset of an end from the face it meets.
        spinner_doubles: treat every crosswise double as a spinner (four open sides).
    """

    max_gap: float = 0.5
    max_offset: float = 0.6
    spinner_doubles: bool = False

    def __post_init__(self) -> None:
        if self.max_gap <= 0 or self.max_offset <= 0:
            raise ValueError("LayoutConfig tolerances must be positive")


@dataclass(frozen=True)
class LayoutTile:
    """A face-up tile as the layout sees it.

    Attributes:
        id: the tile's id in its Scene.
        corners: (4, 2) float pixels, in the order of `vision.geometry`.
        halves: the values of half 0 and half 1, in corner order (not sorted).
    """

    id: int
    corners: np.ndarray
    halves: tuple[int, int]

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, dtype=np.float64)
        if corners.shape != (4, 2):
            raise ValueError(f"tile {self.id}: corners must have shape (4, 2), got {corners.shape}")
        object.__setattr__(self, "corners", corners)

    @property
    def is_double(self) -> bool:
        return self.halves[0] == self.halves[1]


@dataclass(frozen=True)
class Contact:
    """One tile's end meeting another tile.

    Attributes:
        tile / half: the tile whose end touches, and which of its halves (0 or 1).
        other / other_half: the tile it meets and the half of it that is met.
        other_slot: END_0 / END_1 when end meets end, SIDE_A / SIDE_B for a long side.
        gap: the gap between them, in tile widths (negative when they overlap).
    """

    tile: int
    half: int
    other: int
    other_half: int
    other_slot: str
    gap: float


@dataclass(frozen=True)
class Reconstruction:
    """What `build_layout` found: the Scene's layout and what the Scene does not keep.

    Attributes:
        layout: every line of every layout component, each from its root, and the open ends.
        roots: the root tile of each component.
        loose: ids of face-up tiles that link to nothing (not part of the layout).
        warnings: human-readable problems (touching halves that differ).
    """

    layout: Layout
    roots: tuple[int, ...] = ()
    loose: tuple[int, ...] = ()
    warnings: tuple[str, ...] = field(default=())


# --- geometry of one tile -------------------------------------------------------------


@dataclass(frozen=True)
class _Frame:
    """A tile's centre, unit axes and size: `axis` points from half 1 towards half 0."""

    centre: np.ndarray
    axis: np.ndarray
    normal: np.ndarray
    length: float
    width: float


def _frame(tile: LayoutTile) -> _Frame:
    c = tile.corners
    end0 = (c[0] + c[1]) / 2
    end1 = (c[2] + c[3]) / 2
    length = float(np.linalg.norm(end0 - end1))
    width = float((np.linalg.norm(c[0] - c[1]) + np.linalg.norm(c[2] - c[3])) / 2)
    axis = (end0 - end1) / max(length, 1e-9)
    normal = np.array([-axis[1], axis[0]])
    return _Frame(c.mean(axis=0), axis, normal, length, width)


def _end_point(frame: _Frame, half: int) -> np.ndarray:
    sign = 1.0 if half == 0 else -1.0
    return frame.centre + sign * frame.axis * frame.length / 2


def _face_hit(
    point: np.ndarray, outward: np.ndarray, other: _Frame
) -> tuple[str, int, float, float]:
    """Where a tile end at `point`, facing `outward`, meets the rectangle `other`.

    Returns (slot, half, gap, offset): the face it meets, the half of `other` behind that
    point, the gap along `outward` and the sideways offset from the face's extent, both in
    pixels.
    """
    rel = point - other.centre
    along = float(rel @ other.axis)  # + towards other's half 0
    across = float(rel @ other.normal)
    half_len, half_wid = other.length / 2, other.width / 2
    # The face of `other` that the end looks at is the one its outward direction opposes.
    facing_axis = float(outward @ other.axis)
    facing_normal = float(outward @ other.normal)
    if abs(facing_axis) >= abs(facing_normal):
        slot = END_0 if facing_axis < 0 else END_1
        gap = abs(along) - half_len
        offset = max(0.0, abs(across) - half_wid)
        half = 0 if slot == END_0 else 1
    else:
        slot = SIDE_A if facing_normal < 0 else SIDE_B
        gap = abs(across) - half_wid
        offset = max(0.0, abs(along) - half_len)
        half = 0 if along >= 0 else 1
    return slot, half, gap, offset


def find_contacts(
    tiles: Sequence[LayoutTile], config: LayoutConfig = LayoutConfig()
) -> list[Contact]:
    """Every end of every tile that lies against another tile, nearest first per end."""
    frames = {t.id: _frame(t) for t in tiles}
    contacts: list[Contact] = []
    for tile in tiles:
        f = frames[tile.id]
        for half in (0, 1):
            point = _end_point(f, half)
            outward = f.axis if half == 0 else -f.axis
            best: Contact | None = None
            for other in tiles:
                if other.id == tile.id:
                    continue
                g = frames[other.id]
                if float((g.centre - point) @ outward) <= 0:
                    continue  # the other tile is behind this end
                slot, other_half, gap, offset = _face_hit(point, outward, g)
                scale = min(f.width, g.width)
                if gap / scale > config.max_gap or gap / scale < -config.max_gap:
                    continue
                if offset / scale > config.max_offset:
                    continue
                candidate = Contact(tile.id, half, other.id, other_half, slot, gap / scale)
                if best is None or abs(candidate.gap) < abs(best.gap):
                    best = candidate
            if best is not None:
                contacts.append(best)
    return contacts


# --- from contacts to lines -------------------------------------------------------------


@dataclass
class _Links:
    """Matching contacts: the slots each tile has taken and its undirected neighbours."""

    slots: dict[int, dict[str, int]]
    neighbours: dict[int, set[int]]


def _links_and_warnings(
    tiles: dict[int, LayoutTile], contacts: list[Contact]
) -> tuple[_Links, list[str]]:
    """Contacts whose halves match become links; the others become warnings."""
    links = _Links({t: {} for t in tiles}, {t: set() for t in tiles})
    warnings: list[str] = []
    reported: set[frozenset[int]] = set()
    for c in contacts:
        mine = tiles[c.tile].halves[c.half]
        theirs = tiles[c.other].halves[c.other_half]
        pair = frozenset((c.tile, c.other))
        if mine != theirs:
            if pair not in reported:
                reported.add(pair)
                warnings.append(
                    f"tiles {c.tile} and {c.other} touch with halves {mine} and {theirs}: "
                    "a misread or a misplaced tile"
                )
            continue
        links.slots[c.tile].setdefault(END_0 if c.half == 0 else END_1, c.other)
        # A tile set against the long side of a plain tile turns the line's corner: it
        # uses that half's end. Only a double offers its long sides as places to play.
        other_slot = c.other_slot
        if not tiles[c.other].is_double:
            other_slot = END_0 if c.other_half == 0 else END_1
        # Several tiles may share one long side (Chicken Foot's toes): the side is taken
        # by the first, the others still link to the double.
        links.slots[c.other].setdefault(other_slot, c.tile)
        links.neighbours[c.tile].add(c.other)
        links.neighbours[c.other].add(c.tile)
    return links, warnings


def _components(neighbours: dict[int, set[int]]) -> list[list[int]]:
    seen: set[int] = set()
    groups: list[list[int]] = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        stack, group = [start], []
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for neighbour in neighbours[node]:
                if neighbour not in seen:
                    seen.add(neighbour)
                    stack.append(neighbour)
        groups.append(sorted(group))
    return groups


def _choose_root(group: list[int], tiles: dict[int, LayoutTile], links: _Links) -> int:
    doubles = [t for t in group if tiles[t].is_double]
    if doubles:
        return max(doubles, key=lambda t: (len(links.neighbours[t]), -t))
    centre = np.mean([tiles[t].corners.mean(axis=0) for t in group], axis=0)
    return min(
        group, key=lambda t: (float(np.linalg.norm(tiles[t].corners.mean(axis=0) - centre)), t)
    )


def _is_crosswise(tile: LayoutTile, slots: dict[str, int]) -> bool:
    return tile.is_double and (SIDE_A in slots or SIDE_B in slots)


def _open_slots(tile: LayoutTile, slots: dict[str, int], spinner_doubles: bool) -> list[str]:
    """The slots of a tile where a new tile could be played."""
    if _is_crosswise(tile, slots):
        playable = [SIDE_A, SIDE_B]
        if spinner_doubles or END_0 in slots or END_1 in slots:
            playable += [END_0, END_1]
    else:
        playable = [END_0, END_1]
    return [s for s in playable if s not in slots]


def _slot_point(tile: LayoutTile, slot: str) -> tuple[float, float]:
    f = _frame(tile)
    if slot in (END_0, END_1):
        point = _end_point(f, 0 if slot == END_0 else 1)
    else:
        point = f.centre + (-1.0 if slot == SIDE_A else 1.0) * f.normal * f.width / 2
    return (float(point[0]), float(point[1]))


def _slot_value(tile: LayoutTile, slot: str) -> int:
    return tile.halves[1] if slot == END_1 else tile.halves[0]


def _walk_lines(
    root: int, tiles: dict[int, LayoutTile], links: _Links, spinners: bool
) -> list[LayoutLine]:
    """Depth-first from the root: each open slot reached ends one line."""
    lines: list[LayoutLine] = []
    visited = {root}

    def walk(node: int, path: tuple[int, ...]) -> None:
        tile = tiles[node]
        open_slots = _open_slots(tile, links.slots[node], spinners)
        for slot in open_slots:
            end = OpenEnd(node, _slot_value(tile, slot), _slot_point(tile, slot))
            lines.append(LayoutLine(list(path), end))
        children = sorted(n for n in links.neighbours[node] if n not in visited)
        if not children and not open_slots and node != root:
            lines.append(LayoutLine(list(path), None))  # a line closed off (both ends met)
        for child in children:
            if child in visited:
                continue
            visited.add(child)
            walk(child, (*path, child))

    walk(root, (root,))
    return lines


def build_layout(
    tiles: Sequence[LayoutTile], config: LayoutConfig = LayoutConfig()
) -> Reconstruction:
    """Rebuild lines and open ends from face-up tiles (pure; see the module docstring)."""
    by_id = {t.id: t for t in tiles}
    if len(by_id) != len(tiles):
        raise ValueError("tile ids must be unique")
    links, warnings = _links_and_warnings(by_id, find_contacts(tiles, config))
    lines: list[LayoutLine] = []
    roots: list[int] = []
    loose: list[int] = []
    for group in _components(links.neighbours):
        if len(group) == 1:
            loose.append(group[0])
            continue
        root = _choose_root(group, by_id, links)
        roots.append(root)
        lines.extend(_walk_lines(root, by_id, links, config.spinner_doubles))
    open_ends = [line.open_end.value for line in lines if line.open_end is not None]
    return Reconstruction(Layout(lines, open_ends), tuple(roots), tuple(loose), tuple(warnings))


def layout_scene(scene: Scene, config: LayoutConfig = LayoutConfig()) -> Scene:
    """The Scene with its `layout` rebuilt from its read face-up tiles, warnings appended.

    Read tiles carry their corners turned so that half 0 shows `pips[0]` (vision.scene), so
    the halves in corner order are exactly `pips`.
    """
    tiles = [
        LayoutTile(t.id, t.corners, (t.pips[0], t.pips[1]))
        for t in scene.tiles
        if t.face == "up" and t.pips is not None
    ]
    found = build_layout(tiles, config)
    return replace(scene, layout=found.layout, warnings=[*scene.warnings, *found.warnings])
