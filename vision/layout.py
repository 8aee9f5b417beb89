"""From read tiles to the layout: contacts, lines from their root, and open ends.

The blocked-game rule is about open ends, so this module answers, from tile geometry and
values alone: which face-up tiles are played together, in which lines, and what each
line's free end shows.

Geometry conventions are those of `dominocam.vision.geometry`: points are (x, y) pixels, a tile's
corners[0]-corners[1] is the short edge at the end of half 0, corners[2]-corners[3] the
short edge at the end of half 1. Lengths in `LayoutConfig` are in tile widths (the short
side), so nothing depends on the camera's distance.

How a layout is recognised:

* A *contact* is one tile's end (the short edge of one half) lying against another tile,
  with a gap of up to `max_gap` widths (people leave gaps, photos show them):
  - `end`: the tiles are parallel (within `max_skew_deg`) and end meets end (tiles in line);
  - `side`: the tiles are perpendicular and the end meets a long side: a crosswise double
    in a line, a spinner's arm, or a line turning a corner (the end meets the side of the
    other tile's outer half);
  - `radial`: the end points at the centre of a double at any angle (its axis passes
    within `radial_offset` widths of the double's centre) and its end edge comes within
    `max_gap` of the double: Chicken Foot's diagonal toes. In a Mexican Train layout the
    engine's trains radiate the same way but may start *near, not touching*, the hub: a
    radial contact with the engine is accepted up to `hub_gap` widths (explicitly, and
    only for `kind="mexican"`).
* A contact counts as a *link* only when the two touching halves show the same value;
  touching halves that differ are reported as a warning with both tiles (a misread or a
  misplaced tile) and not linked, because loose tiles are often set down side by side.
  Where one half of such a pair is an open end of a line, it is a doubt too (a misread
  breaks a line right there), except in `auto` on a table where more touching halves
  differ than match (`SET_DOWN_MISMATCHES_PER_LINK`): tiles set down side by side in rows,
  whose chance matches make lines of two, not a game whose line a misread broke.
  Each half of a plain tile takes at most one link (the nearest); a double may take
  several (hub, spinner, toes). Distances within `TIE_PX` (gaps within `TIE_WIDTHS`) are a
  tie, broken by the tiles' ids, so that no CPU's float rounding picks the line or root.
* Each connected group of two or more linked tiles is a candidate layout; the *layout* is
  the one holding the root (the double with the most links for spinner, chicken and
  mexican kinds; else the largest group). Other linked groups are reported as doubts (loose
  tiles that happen to match, or a line broken by a missed tile), not as lines.
* Lines run from the root outwards as a tree. Open ends, by layout kind:
  - `line`: the root offers 2 places (its two halves, or a crosswise double's two sides);
  - `spinner` / `chicken`: the root double offers 4 arms; `mexican`: the engine offers
    `trains` places (players + the public train; a photo cannot count empty trains, so the
    game must say how many, else only the trains seen count);
  - an unplayed place of the root is an open end showing the root's value;
  - a leaf shows its free half; a leaf double shows its value once, except in Chicken
    Foot, where a double that is not the root closes its line and offers 3 toes (each
    unplayed toe is an open end showing the double's value), and except when
    `spinner_doubles` is set (every double a spinner: 3 more places).
* `auto` (a photo of a game that is not named): every linked group of two or more tiles is
  played (a table may hold several apart), each grown from its own root; a half of a plain
  tile touched on its long side may carry two tiles (a T-junction at a non-double: the
  tiles ending against its side from either hand); a double with at most
  `AUTO_LINE_DOUBLE_LINKS` tiles against it lies in a line (its free places are 2 less those
  tiles), one with more is a spinner or a cross (4 places). So T-junctions, spinners and
  crosses are recognised from the picture alone, and the open ends are every free end.
* Doubts (`Reconstruction.doubts`) say where the picture may hide a tile: linked groups
  apart from the layout, a tile lying in line about one tile beyond an open end with room
  for a missed one between that no other tile fills (`free_stretch`; and, where the photo
  is at hand, a gap that may show one: `gap_check`), touching halves that differ
  at an open end (not on a table of tiles set down, above), a line whose end tile is cut
  by the image border, a root with more lines than its kind allows. `confidence`
  falls with each doubt; a ruling built on a doubtful layout must say so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from dominocam.rules.variants import LAYOUT_KINDS, VARIANTS
from dominocam.vision import messages
from dominocam.vision.decode import AdjacencyConstraint
from dominocam.vision.geometry import boxes_cut_by_border
from dominocam.vision.notes import note
from dominocam.vision.scene import LayoutLine, Scene, SceneLayout, SceneOpenEnd

# Layout kinds: the rules variants' `layout` (how many places the root offers and what a
# double does), and `auto` for a photo whose game is not known (`dominocam read`): the shape
# is taken from the photo alone.
AUTO = "auto"
KINDS: tuple[str, ...] = (*LAYOUT_KINDS, AUTO)
# `auto`: a double with at most this many tiles against it lies in a line (2 places: its ends,
# or its sides when crosswise); with more it is a spinner or a cross (4 places).
AUTO_LINE_DOUBLE_LINKS = 2
ROOT_PLACES = {"line": 2, "spinner": 4, "chicken": 4}
CHICKEN_TOES = 3

# Kinds of contact (module docstring).
END, SIDE, RADIAL = "end", "side", "radial"

# Confidence lost per doubt (a heuristic: two doubts leave 0.49).
DOUBT_FACTOR = 0.7
# "A tile may be missing" beyond an open end needs room for one: at least a tile's width (a
# double set crosswise is the narrowest a tile can lie) less the error of the two boxes' end
# edges. On the synthetic val of seed 41, 97 % of detected end edges lie within a quarter
# width of the labelled tile's (3,318 edges), so a room under half a width cannot hide a
# tile; the 12 tiles the detector missed at such a doubt there had 0.79 widths or more
# (`python -m studies.missing_tile_room`; docs/decisions/2026-12-01-reject-class-and-room.md).
MISSING_TILE_ROOM = 0.5
# That edge error, in widths (the 97th percentile above). A tile in the way fills its part of
# the room (`free_stretch`), unless its box reaches back over the end by more than this: then
# the two boxes disagree about where the tiles are, and neither is evidence that the room is
# full (on v4-synth-s75 train, the four boxes that would have hidden a tile the detector
# really missed reached back 0.4 to 0.6 widths; docs/decisions/2026-12-01-tiles-set-down.md).
BOX_EDGE_ERROR = 0.25
# ... and a gap that may hold one. Where the pipeline has the photo, it looks at the gap
# (`GapCheck`: the verifier on tile-sized boxes along its free stretch, `gap_boxes`) and
# drops the doubt when no box there scores this much. It belongs to the verifier: chosen
# again for each, on synthetic data only, as the highest of 0.02, 0.05, 0.1, 0.2 that keeps
# every doubt at a tile the detector really missed (`python -m studies.missing_tile_room`).
# For the committed verifier, on two dominosynth 0.4.0 sets it was not trained on (gap-s223
# train, holdout s211 train): all 21 such doubts kept (their least score 0.215), 12 of the
# 26 others dropped (docs/decisions/2026-12-03-honest-calibration.md).
GAP_MAY_HOLD_TILE = 0.2
# "Tiles touch without matching at an open end" is a doubt because a misread breaks a played
# line there. A photo whose game is not named (`auto`) may show tiles set down side by side
# in rows instead: most touching halves then differ, and a line is two tiles that match by
# chance. With more touching halves that differ than this many per link (a matching
# contact) the table is taken as set down, and a pair that differs at an open end is no
# doubt (it stays a warning, `messages.HALVES_DIFFER`). Chosen on synthetic data only, two
# dominosynth sets no committed model was trained on (`python -m studies.set_down`): of the
# sure pairs (neither tile doubtful) it drops there, 1 of 43 was misread (2 of 52 at 0.5, 1
# of 31 at 2), and of the 3 pictures it lets go without review whose tile set is scored, 1
# was read wrong, for a tile the detector missed elsewhere in the row
# (docs/decisions/2026-12-01-tiles-set-down.md). A named game's table holds played lines,
# so there every such pair stays a doubt.
SET_DOWN_MISMATCHES_PER_LINK = 1.0

# A box left out lies against an open end when its nearest corner is at most this many tile
# widths past the end's edge (a tile played there touches it; a gap under half a width
# cannot hold a tile, `MISSING_TILE_ROOM`), allowing the boxes' edge error behind it, and
# its centre within half a tile length of the line's axis (a tile in line or a double
# crosswise). The open ends decide a ruling, so such a box is always worth a look: on the
# calibration's fit pictures (train splits of synth-s41-n300 and negatives-s43-n80), 11 of
# the 16 pictures with one had a tile there that no kept box covered (`python -m
# studies.boxes_at_ends`; docs/decisions/2026-12-02-a-look-past-clutter.md, §3).
AGAINST_OPEN_END = MISSING_TILE_ROOM

# Lengths closer than these are a tie, which a fixed key breaks (the tiles' ids, or their order
# in the list), never the last bits of float arithmetic: those fall one way or the other with
# the CPU's vector kernels (SSE, AVX2, AVX-512; Intel or AMD), so a tie such as two tiles
# equally far from their middle took a different root on another machine (issue 31). Far above
# float noise and a jitter of 1e-4 px, far below what tells two tiles apart in a photo.
TIE_PX = 0.01  # pixels: distances to a centre, stretches of room
TIE_WIDTHS = 1e-3  # tile widths: gaps between tiles

# (n, 4, 2) boxes in image pixels -> the highest probability that one of them holds a tile.
GapCheck = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class LayoutConfig:
    """How layouts are recognised. Distances are in tile widths (the tiles' short side).

    Attributes:
        max_gap: largest gap between an end and the tile it faces that still counts as a
            contact (real photos show gaps of a third of a tile width).
        max_offset: largest part of an end edge that may lie beside the face it meets
            (0.65: at least 35% of the end must lie against the other tile).
        max_skew_deg: largest angle between two tiles that still counts as parallel (end
            to end) or perpendicular (end to side), degrees.
        radial_offset: largest distance from a double's centre to the axis of a tile whose
            end points at it (radial contacts: toes, trains).
        hub_gap: largest gap between the Mexican Train engine and a train's first tile.
        toe_gap: largest gap between a Chicken Foot double and a toe pointing at its centre
            (a diagonal toe touches the double with its corner only, and a tilted camera
            widens what the picture shows between them).
        kind: the layout kind, one of KINDS (`layout_kind(variant)` maps rules variants).
        trains: Mexican Train: how many lines the engine offers (players + public train);
            None counts only the trains seen.
        spinner_doubles: treat every double as a spinner (4 places).
        lone_root: with no linked group at all, take a lone tile as the layout's root (the
            only face-up tile, or for hub kinds the face-up double nearest the picture's
            centre), with a doubt. For photos of a game, where the table holds a layout.
        hub_value: the value of the root double when the game knows it (Mexican Train's
            engine of the round: 12 in the first round of a double-12 game); a double of
            that value is preferred as the root.
        set_down_ratio: `auto` only: a table with more touching halves that differ than
            this many per link is tiles set down side by side, where a pair that differs
            at an open end is no doubt (`SET_DOWN_MISMATCHES_PER_LINK`); None: always a
            doubt.
    """

    max_gap: float = 0.5
    max_offset: float = 0.65
    max_skew_deg: float = 15.0
    radial_offset: float = 0.45
    hub_gap: float = 1.2
    toe_gap: float = 0.8
    kind: str = "line"
    trains: int | None = None
    spinner_doubles: bool = False
    lone_root: bool = False
    hub_value: int | None = None
    set_down_ratio: float | None = SET_DOWN_MISMATCHES_PER_LINK

    def __post_init__(self) -> None:
        if min(self.max_gap, self.max_offset, self.radial_offset, self.hub_gap, self.toe_gap) <= 0:
            raise ValueError("LayoutConfig tolerances must be positive")
        if not 0 < self.max_skew_deg < 45:
            raise ValueError("LayoutConfig.max_skew_deg must lie in (0, 45)")
        if self.kind not in KINDS:
            raise ValueError(f"unknown layout kind {self.kind!r}; valid: {', '.join(KINDS)}")
        if self.trains is not None and self.trains < 1:
            raise ValueError("LayoutConfig.trains must be >= 1 (or None)")
        if self.set_down_ratio is not None and self.set_down_ratio < 0:
            raise ValueError("LayoutConfig.set_down_ratio must be >= 0 (or None)")


def layout_kind(variant: str) -> str:
    """The layout kind of a rules variant name (its `Variant.layout`), or of a kind; `line`
    for a name the rules do not know."""
    if variant in KINDS:
        return variant
    known = VARIANTS.get(variant)
    return known.layout if known is not None else "line"


def game_layout_config(
    variant: str, players: int | None = None, engine: int | None = None
) -> LayoutConfig:
    """How to rebuild the layout of a table photo taken during a game.

    Args:
        variant: the rules variant's name (or a layout kind), see `layout_kind`.
        players: players at the table; a Mexican Train engine then offers one train each plus
            the public train (a photo cannot count empty trains by itself).
        engine: the round's engine double when the game knows it (the hub to prefer as root).
    """
    kind = layout_kind(variant)
    return LayoutConfig(
        kind=kind,
        trains=players + 1 if kind == "mexican" and players else None,
        hub_value=engine if kind != "line" else None,
        lone_root=True,
    )


@dataclass(frozen=True)
class LayoutTile:
    """A face-up tile as the layout sees it.

    Attributes:
        id: the tile's id in its Scene.
        corners: (4, 2) float pixels, in the order of `dominocam.vision.geometry`.
        halves: the values of half 0 and half 1, in corner order (not sorted).
        cut: the tile is cut by the image border (its far end may hide a neighbour).
    """

    id: int
    corners: np.ndarray
    halves: tuple[int, int]
    cut: bool = False

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
        kind: END, SIDE or RADIAL (module docstring).
        gap: the gap between them, in tile widths (negative when they overlap).
    """

    tile: int
    half: int
    other: int
    other_half: int
    kind: str
    gap: float


@dataclass(frozen=True)
class Reconstruction:
    """What `build_layout` found: the Scene's layout and what the Scene does not keep.

    Attributes:
        layout: every line from the root, and the open ends.
        roots: the root tile of the layout (one, or none).
        loose: ids of face-up tiles that are not part of the layout.
        warnings: human-readable problems (touching halves that differ).
        links: the pairs of tile ids played against each other (tree edges of the layout
            and links of other groups).
        doubts: why the layout may be incomplete (see the module docstring).
    """

    layout: SceneLayout
    roots: tuple[int, ...] = ()
    loose: tuple[int, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    links: tuple[tuple[int, int], ...] = ()
    doubts: tuple[str, ...] = ()

    @property
    def confidence(self) -> float:
        """1.0 without doubts, times DOUBT_FACTOR per doubt."""
        return round(DOUBT_FACTOR ** len(self.doubts), 4)


# --- geometry of the tiles --------------------------------------------------------------
#
# Contacts are computed for every pair of tiles at once with numpy: a table of 60 tiles has
# 7,200 (end, tile) pairs, which one Python call per pair made the slowest stage of a read.


@dataclass(frozen=True)
class _Frame:
    """A tile's centre, unit axes and size: `axis` points from half 1 towards half 0."""

    centre: np.ndarray
    axis: np.ndarray
    normal: np.ndarray
    length: float
    width: float
    polygon: np.ndarray
    across: np.ndarray  # unit direction of the short edges as the picture shows them


@dataclass(frozen=True)
class _Frames:
    """The `_Frame`s of n tiles as arrays, row i for tile i.

    Attributes:
        centre, axis, normal, across: (n, 2) pixels / unit vectors.
        length, width: (n,) pixels.
        polygon: (n, 4, 2) the corners.
    """

    centre: np.ndarray
    axis: np.ndarray
    normal: np.ndarray
    length: np.ndarray
    width: np.ndarray
    polygon: np.ndarray
    across: np.ndarray

    def at(self, i: int) -> _Frame:
        return _Frame(
            self.centre[i],
            self.axis[i],
            self.normal[i],
            float(self.length[i]),
            float(self.width[i]),
            self.polygon[i],
            self.across[i],
        )


def _dot(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Dot products over the last axis of 2-D vectors (broadcast)."""
    return u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1]


def tied_order(
    values: Sequence[float], keys: Sequence[tuple[int, ...]], tolerance: float
) -> list[int]:
    """Indices of `values`, smallest first, where values within `tolerance` of the smallest of
    their run are equal and go in the order of their `keys` (`TIE_PX`, `TIE_WIDTHS`).

    A run starts at the smallest value not yet placed, so exact ties stay ties under any
    jitter below half the tolerance; only values `tolerance` apart can swap."""
    by_value = sorted(range(len(values)), key=lambda i: (values[i], keys[i]))
    run_of: dict[int, int] = {}
    start, run = -math.inf, -1
    for i in by_value:
        if values[i] > start + tolerance:
            start, run = values[i], run + 1
        run_of[i] = run
    return sorted(by_value, key=lambda i: (run_of[i], keys[i]))


def _nearest_of_tied(candidates: Sequence[int], distance: Callable[[int], float]) -> int:
    """The candidate tile nearest by `distance`; of those within `TIE_PX`, the smallest id."""
    order = tied_order([distance(t) for t in candidates], [(t,) for t in candidates], TIE_PX)
    return candidates[order[0]]


def _first_nearest(gaps: np.ndarray) -> np.ndarray:
    """(n,) for each row of (n, m) `gaps` the first column within `TIE_WIDTHS` of the row's
    smallest (column 0 for a row of inf)."""
    nearest = gaps.min(axis=1, keepdims=True)
    return np.argmax(gaps <= nearest + TIE_WIDTHS, axis=1)


def _frames(corners: np.ndarray) -> _Frames:
    """The frames of (n, 4, 2) tile corners."""
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    end0 = (c[:, 0] + c[:, 1]) / 2
    end1 = (c[:, 2] + c[:, 3]) / 2
    length = np.linalg.norm(end0 - end1, axis=1)
    width = (
        np.linalg.norm(c[:, 0] - c[:, 1], axis=1) + np.linalg.norm(c[:, 2] - c[:, 3], axis=1)
    ) / 2
    axis = (end0 - end1) / np.maximum(length, 1e-9)[:, None]
    normal = np.stack([-axis[:, 1], axis[:, 0]], axis=1)
    # Under a tilted camera the short edges are not perpendicular to the axis in the
    # picture; a tile lying crosswise to this one is parallel to its short edges.
    edges = (c[:, 1] - c[:, 0]) + (c[:, 2] - c[:, 3])
    across = edges / np.maximum(np.linalg.norm(edges, axis=1), 1e-9)[:, None]
    return _Frames(c.mean(axis=1), axis, normal, length, width, c, across)


def _frame(tile: LayoutTile) -> _Frame:
    return _frames(tile.corners).at(0)


def _end_edge(tile: LayoutTile, half: int) -> tuple[np.ndarray, np.ndarray]:
    c = tile.corners
    return (c[0], c[1]) if half == 0 else (c[2], c[3])


def _segment_distances(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances from points p to segments a-b, all (..., 2) and broadcast."""
    ab = b - a
    t = np.clip(_dot(p - a, ab) / np.maximum(_dot(ab, ab), 1e-12), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)


def _inside(points: np.ndarray, polygons: np.ndarray) -> np.ndarray:
    """(m, 2) points inside (or on) their (m, 4, 2) convex polygons -> (m,) bool."""
    edges = np.roll(polygons, -1, axis=1) - polygons
    rel = points[:, None, :] - polygons
    cross = edges[..., 0] * rel[..., 1] - edges[..., 1] * rel[..., 0]
    return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)


def _edges_to_polygons(a: np.ndarray, b: np.ndarray, polygons: np.ndarray) -> np.ndarray:
    """Distances from (m, 2) segments a-b to their (m, 4, 2) convex polygons, 0 where they
    overlap (a depth is not measured)."""
    p, q = polygons, np.roll(polygons, -1, axis=1)  # the polygons' edges p -> q
    ends_a, ends_b = a[:, None, :], b[:, None, :]
    distance = np.minimum.reduce(
        [
            _segment_distances(ends_a, p, q),
            _segment_distances(ends_b, p, q),
            _segment_distances(p, ends_a, ends_b),
            _segment_distances(q, ends_a, ends_b),
        ]
    ).min(axis=1)
    overlap = _inside(a, polygons) | _inside(b, polygons) | _inside((a + b) / 2, polygons)
    return np.where(overlap, 0.0, distance)


# Contact kinds as codes in the arrays of `_end_contacts`: an index into this tuple.
_KIND_CODES: tuple[str | None, ...] = (None, END, SIDE, RADIAL)
_NO_CONTACT, _END_CODE, _SIDE_CODE, _RADIAL_CODE = range(len(_KIND_CODES))


def _end_contacts(
    fr: _Frames, half: int, is_double: np.ndarray, candidates: np.ndarray, config: LayoutConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every tile's end `half` against every other tile (module docstring).

    Row i is tile i's end, column j the other tile; only the (n, n) bool `candidates` count.

    Returns:
        (n, n) kind codes (index into `_KIND_CODES`), gaps in tile widths (negative when
        the tiles overlap), and which half of the other tile is met (0 or 1).
    """
    sign = 1.0 if half == 0 else -1.0
    outward = sign * fr.axis
    point = fr.centre + outward * fr.length[:, None] / 2  # centre of each end edge
    rel = fr.centre[None, :, :] - point[:, None, :]  # from the end to the other's centre
    ahead = _dot(rel, outward[:, None, :])
    front = candidates & (ahead > 0)  # the other tile is not behind this end
    scale = np.minimum(fr.width[:, None], fr.width[None, :])
    cos = np.abs(_dot(fr.axis[:, None, :], fr.axis[None, :, :]))
    parallel = math.cos(math.radians(config.max_skew_deg))
    # Perpendicular on the table: either tile lies along the other's short edges.
    crosswise = np.maximum(
        np.abs(_dot(fr.axis[:, None, :], fr.across[None, :, :])),
        np.abs(_dot(fr.axis[None, :, :], fr.across[:, None, :])),
    )
    # An end against the middle of a long side meets half 0 (a tie, `TIE_PX`).
    met_half = np.where(_dot(-rel, fr.axis[None, :, :]) >= -TIE_PX, 0, 1)

    # How much of this end edge lies against the face it meets (END: the other's end,
    # whose extent is its width; SIDE: its long side, whose extent is its length).
    in_line = cos >= parallel
    face_axis = np.where(in_line[..., None], fr.normal[None, :, :], fr.axis[None, :, :])
    extent = np.where(in_line, fr.width[None, :], fr.length[None, :])
    first, second = (0, 1) if half == 0 else (2, 3)  # the end edge's corners
    a, b = fr.polygon[:, first], fr.polygon[:, second]
    along_a = _dot(a[:, None, :] - fr.centre[None, :, :], face_axis)
    along_b = _dot(b[:, None, :] - fr.centre[None, :, :], face_axis)
    lo, hi = np.minimum(along_a, along_b), np.maximum(along_a, along_b)
    overlap = np.maximum(0.0, np.minimum(hi, extent / 2) - np.maximum(lo, -extent / 2))
    offset = 1.0 - overlap / np.maximum(np.minimum(fr.width[:, None], extent), 1e-9)
    gap = ahead - np.where(in_line, fr.length[None, :], fr.width[None, :]) / 2
    # The end's centre must lie in front of that face, not beyond its corner.
    beside = np.abs(_dot(-rel, face_axis)) <= extent / 2
    flush = (
        front
        & (in_line | (crosswise >= parallel))
        & (np.abs(gap) / scale <= config.max_gap)
        & (offset <= config.max_offset)
        & beside
    )
    kinds = np.where(flush, np.where(in_line, _END_CODE, _SIDE_CODE), _NO_CONTACT)
    gaps = np.where(flush, gap / scale, np.inf)

    if config.kind in ("chicken", "mexican"):
        # Oblique: this end touches a double at an angle (a Chicken Foot toe, turned or
        # not), or points at its centre from a little further (a Mexican Train train).
        rows, cols = np.nonzero(front & ~flush & is_double[None, :])
        pair_scale = scale[rows, cols]
        edge_gap = _edges_to_polygons(a[rows], b[rows], fr.polygon[cols]) / pair_scale
        sideways = np.abs(_dot(rel[rows, cols], fr.normal[rows]))  # the other's centre
        radial = sideways / pair_scale <= config.radial_offset
        if config.kind == "chicken":
            ok = edge_gap <= np.where(radial, config.toe_gap, config.max_gap)
        else:
            ok = radial & (edge_gap <= config.hub_gap)
        kinds[rows[ok], cols[ok]] = _RADIAL_CODE
        gaps[rows[ok], cols[ok]] = edge_gap[ok]
    return kinds, gaps, met_half


def find_contacts(
    tiles: Sequence[LayoutTile], config: LayoutConfig = LayoutConfig()
) -> list[Contact]:
    """Every end of every tile that lies against another tile, nearest first per end.

    Each end keeps its nearest contact of kind END or SIDE, else its nearest RADIAL one
    (ties, gaps within `TIE_WIDTHS`: the earlier tile in `tiles`).
    """
    if not tiles:
        return []
    fr = _frames(np.array([t.corners for t in tiles]))
    is_double = np.array([t.is_double for t in tiles])
    reach = fr.length * 2 + fr.width * (config.hub_gap + 1)
    distance = np.linalg.norm(fr.centre[None, :, :] - fr.centre[:, None, :], axis=-1)
    candidates = distance <= reach[:, None]
    np.fill_diagonal(candidates, False)
    best: list[list[Contact | None]] = []
    for half in (0, 1):
        kinds, gaps, met_half = _end_contacts(fr, half, is_double, candidates, config)
        flush_gap = np.where((kinds == _END_CODE) | (kinds == _SIDE_CODE), np.abs(gaps), np.inf)
        radial_gap = np.where(kinds == _RADIAL_CODE, np.abs(gaps), np.inf)
        column: list[Contact | None] = []
        for i, (j_flush, j_radial) in enumerate(
            zip(_first_nearest(flush_gap), _first_nearest(radial_gap), strict=True)
        ):
            j = j_flush if np.isfinite(flush_gap[i, j_flush]) else j_radial
            if kinds[i, j] == _NO_CONTACT:
                column.append(None)
                continue
            column.append(
                Contact(
                    tiles[i].id,
                    half,
                    tiles[j].id,
                    int(met_half[i, j]),
                    _KIND_CODES[kinds[i, j]],
                    float(gaps[i, j]),
                )
            )
        best.append(column)
    return [c for pair in zip(*best, strict=True) for c in pair if c is not None]


# --- from contacts to links -------------------------------------------------------------


@dataclass(frozen=True)
class _Link:
    a: int  # the tile whose end touches
    a_half: int
    b: int  # the tile it meets
    b_half: int
    gap: float
    side: bool = False  # a's end meets b's long side

    def half_of(self, tile: int) -> int:
        return self.a_half if tile == self.a else self.b_half

    def other(self, tile: int) -> int:
        return self.b if tile == self.a else self.a


def _links_and_warnings(
    tiles: dict[int, LayoutTile], contacts: list[Contact], config: LayoutConfig
) -> tuple[list[_Link], list[tuple[tuple[int, int], tuple[int, int], str]]]:
    """Matching contacts become links (one per half of a plain tile, nearest first); the
    others become ((tile, half), (other, other_half), message) warnings."""
    warnings: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    reported: set[frozenset[int]] = set()
    candidates: list[_Link] = []
    for c in contacts:
        mine = tiles[c.tile].halves[c.half]
        theirs = tiles[c.other].halves[c.other_half]
        pair = frozenset((c.tile, c.other))
        if mine != theirs:
            if c.gap <= config.max_gap and pair not in reported:
                reported.add(pair)
                warnings.append(
                    (
                        (c.tile, c.half),
                        (c.other, c.other_half),
                        note(messages.HALVES_DIFFER, a=c.tile, b=c.other, x=mine, y=theirs),
                    )
                )
            continue
        candidates.append(_Link(c.tile, c.half, c.other, c.other_half, c.gap, c.kind == SIDE))
    # Nearest first; gaps within `TIE_WIDTHS` by the tiles' ids.
    order = tied_order(
        [abs(k.gap) for k in candidates], [(k.a, k.b) for k in candidates], TIE_WIDTHS
    )
    candidates = [candidates[i] for i in order]
    used: set[tuple[int, int, int]] = set()  # (tile, half, place along the half)
    pairs: set[frozenset[int]] = set()
    links: list[_Link] = []
    for link in candidates:
        pair = frozenset((link.a, link.b))
        if pair in pairs:
            continue  # the same contact seen from both ends
        slots = [
            (t, h, 0)
            for t, h in ((link.a, link.a_half), (link.b, link.b_half))
            if not tiles[t].is_double
        ]
        if config.kind == AUTO and link.side and not tiles[link.b].is_double:
            # The touched half's long sides: one tile may end against each (a T-junction).
            slots[-1] = (link.b, link.b_half, 1 if (link.b, link.b_half, 1) not in used else 2)
        if any(slot in used for slot in slots):
            continue
        used.update(slots)
        pairs.add(pair)
        links.append(link)
    return links, warnings


def set_down_side_by_side(links: int, mismatches: int, config: LayoutConfig) -> bool:
    """Whether a table with `links` matching contacts and `mismatches` touching halves that
    differ shows tiles set down side by side rather than played lines
    (`SET_DOWN_MISMATCHES_PER_LINK`; only for `auto`, the photo of no named game)."""
    if config.kind != AUTO or config.set_down_ratio is None:
        return False
    return mismatches > config.set_down_ratio * links


def _components(nodes: Sequence[int], links: list[_Link]) -> list[list[int]]:
    neighbours: dict[int, set[int]] = {t: set() for t in nodes}
    for link in links:
        neighbours[link.a].add(link.b)
        neighbours[link.b].add(link.a)
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
            for n in neighbours[node]:
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        groups.append(sorted(group))
    return groups


# --- the tree from the root and its lines ------------------------------------------------


def _degree(tile: int, links: list[_Link]) -> int:
    return sum(tile in (link.a, link.b) for link in links)


def _choose_root(
    group: list[int],
    tiles: dict[int, LayoutTile],
    links: list[_Link],
    centre: np.ndarray | None = None,
    hub_value: int | None = None,
) -> int:
    """The double with the most links (ties: nearest `centre`, the picture's centre, where
    the set tile is played), else the tile nearest the group's centre; of tiles as near
    within `TIE_PX` (two tiles are always equally far from their middle), the smallest id."""
    if centre is None:
        centre = np.mean([tiles[t].corners.mean(axis=0) for t in group], axis=0)

    def distance(t: int) -> float:
        return float(np.linalg.norm(tiles[t].corners.mean(axis=0) - centre))

    doubles = [t for t in group if tiles[t].is_double]
    if hub_value is not None and any(tiles[t].halves[0] == hub_value for t in doubles):
        doubles = [t for t in doubles if tiles[t].halves[0] == hub_value]
    if doubles:
        most = max(_degree(t, links) for t in doubles)
        return _nearest_of_tied([t for t in doubles if _degree(t, links) == most], distance)
    middle = np.mean([tiles[t].corners.mean(axis=0) for t in group], axis=0)
    return _nearest_of_tied(
        group, lambda t: float(np.linalg.norm(tiles[t].corners.mean(axis=0) - middle))
    )


def _places(tile: LayoutTile, is_root: bool, config: LayoutConfig) -> int:
    """How many lines may leave this tile (besides the one it was played on)."""
    if is_root:
        if config.kind == "mexican":
            return config.trains or 0
        if config.spinner_doubles and tile.is_double:
            return 4
        return ROOT_PLACES[config.kind] if tile.is_double else 2
    if tile.is_double and config.kind == "chicken":
        return CHICKEN_TOES
    if tile.is_double and config.spinner_doubles:
        return 3
    return 1


def _free_point(tile: LayoutTile, half: int | None) -> tuple[float, float]:
    """Where an open end is shown: the centre of a double, else of the free half."""
    centre = tile.corners.mean(axis=0)
    if half is None or tile.is_double:
        point = centre
    else:
        a, b = _end_edge(tile, half)
        point = (centre + (a + b) / 2) / 2
    return (float(point[0]), float(point[1]))


def _walk(
    root: int,
    tiles: dict[int, LayoutTile],
    links: list[_Link],
    config: LayoutConfig,
) -> tuple[list[LayoutLine], list[tuple[int, int]], list[str]]:
    """Lines, tree edges and doubts of the layout grown from `root` (breadth first)."""
    by_tile: dict[int, list[_Link]] = {}
    for link in links:
        by_tile.setdefault(link.a, []).append(link)
        by_tile.setdefault(link.b, []).append(link)
    parent_link: dict[int, _Link | None] = {root: None}
    children: dict[int, list[int]] = {}
    order = [root]
    edges: list[tuple[int, int]] = []
    doubts: list[str] = []
    loops: set[frozenset[int]] = set()
    for node in order:
        kids = []
        # Nearest first (gaps within `TIE_WIDTHS`: by id): the lines' order, and which link
        # closes a loop.
        mine = by_tile.get(node, [])
        nearest = tied_order(
            [abs(k.gap) for k in mine], [(k.other(node),) for k in mine], TIE_WIDTHS
        )
        for link in (mine[i] for i in nearest):
            other = link.other(node)
            if other in parent_link:
                if parent_link[node] is not link and parent_link[other] is not link:
                    loops.add(frozenset((node, other)))  # closes a loop: one link too many
                continue
            parent_link[other] = link
            kids.append(other)
            order.append(other)
            edges.append((node, other))
        children[node] = kids
    for a, b in sorted(tuple(sorted(pair)) for pair in loops):
        doubts.append(note(messages.CLOSES_A_LOOP, a=a, b=b))

    lines: list[LayoutLine] = []

    def free_halves(node: int) -> list[int]:
        """The halves of a plain tile with nothing played on them."""
        taken = {link.half_of(node) for link in by_tile.get(node, [])}
        return [h for h in (0, 1) if h not in taken]

    def open_ends_at(node: int, is_root: bool, n_children: int) -> list[SceneOpenEnd]:
        tile = tiles[node]
        if config.kind == AUTO:
            # The picture alone: a plain tile's free halves; a double's free places.
            if not tile.is_double:
                return [
                    SceneOpenEnd(node, tile.halves[h], _free_point(tile, h))
                    for h in free_halves(node)
                ]
            links = n_children + (0 if is_root else 1)
            places = 2 if links <= AUTO_LINE_DOUBLE_LINKS else 4
            return [SceneOpenEnd(node, tile.halves[0], _free_point(tile, None))] * max(
                0, places - links
            )
        places = _places(tile, is_root, config)
        if tile.is_double or (is_root and config.kind == "mexican"):
            missing = max(0, places - n_children)
            if (is_root and n_children > places and config.kind != "mexican") or (
                is_root and config.kind == "mexican" and config.trains and n_children > places
            ):
                doubts.append(
                    note(
                        messages.ROOT_CARRIES,
                        tile=node,
                        count=n_children,
                        kind=config.kind,
                        places=places,
                    )
                )
            return [SceneOpenEnd(node, tile.halves[0], _free_point(tile, None))] * missing
        if n_children >= places and not is_root:
            return []
        return [SceneOpenEnd(node, tile.halves[h], _free_point(tile, h)) for h in free_halves(node)]

    def branching(node: int, is_root: bool) -> bool:
        tile = tiles[node]
        if config.kind == AUTO:
            return is_root or (tile.is_double and len(children[node]) >= 2)
        return is_root or (tile.is_double and (config.kind == "chicken" or config.spinner_doubles))

    def grow(path: list[int]) -> None:
        """Follow a line from `path[-1]` (already in path) until it ends or branches."""
        node = path[-1]
        while not branching(node, False) and len(children[node]) == 1:
            node = children[node][0]
            path.append(node)
        kids = children[node]
        if branching(node, False):
            # The line closes at a branching double; its places start lines of their own.
            ends = open_ends_at(node, False, len(kids))
            lines.append(LayoutLine(list(path), None))
            for end in ends:
                lines.append(LayoutLine([node], end))
            for kid in kids:
                grow([node, kid])
            return
        if not kids:
            ends = open_ends_at(node, False, 0)
            if not ends:
                lines.append(LayoutLine(list(path), None))
            for k, end in enumerate(ends):
                lines.append(LayoutLine(list(path) if k == 0 else [node], end))
            return
        # A plain tile with several children (a tile touching two others): branch lines.
        lines.append(LayoutLine(list(path), None))
        if config.kind == AUTO:
            for end in open_ends_at(node, False, len(kids)):
                lines.append(LayoutLine([node], end))
        for kid in kids:
            grow([node, kid])

    root_kids = children[root]
    root_tile = tiles[root]
    ends = open_ends_at(root, True, len(root_kids))
    if not root_tile.is_double and config.kind not in ("mexican", AUTO):
        ends = [
            SceneOpenEnd(root, root_tile.halves[h], _free_point(root_tile, h))
            for h in free_halves(root)
        ]
    for end in ends:
        lines.append(LayoutLine([root], end))
    for kid in root_kids:
        grow([root, kid])
    return lines, edges, doubts


def _free_half(tile: LayoutTile, end: SceneOpenEnd) -> int:
    """Which half of `tile` shows the open end `end` (the one nearer its point)."""
    f = _frame(tile)
    return 0 if float((np.asarray(end.point) - f.centre) @ f.axis) >= 0 else 1


def _open_halves(lines: list[LayoutLine], tiles: dict[int, LayoutTile]) -> set[tuple[int, int]]:
    """(tile, half) of every open end (both halves of a double with an open place)."""
    out: set[tuple[int, int]] = set()
    for line in lines:
        end = line.open_end
        if end is None:
            continue
        tile = tiles[end.tile]
        if tile.is_double:
            out.update({(tile.id, 0), (tile.id, 1)})
        else:
            out.add((tile.id, _free_half(tile, end)))
    return out


def room_ahead(polygons: np.ndarray, point: np.ndarray, outward: np.ndarray) -> np.ndarray:
    """(n,) the room between `point` (an open end's edge) and the nearest corner of each of
    n (n, 4, 2) `polygons`, along the unit direction `outward` (negative: behind it)."""
    return ((np.asarray(polygons, dtype=np.float64) - point) @ outward).min(axis=-1)


def free_stretch(
    polygons: np.ndarray, point: np.ndarray, outward: np.ndarray, width: float, until: float
) -> tuple[float, float]:
    """(start, length) of the longest stretch of the corridor ahead of `point` (an open
    end's edge), from 0 to `until` along the unit direction `outward`, that none of the
    (n, 4, 2) `polygons` in the way covers: where a missed tile could lie. A tile set down
    in the way fills its part of the room. In the way: its centre lies within half a `width`
    of the corridor's axis and it does not reach back over the end by more than the boxes'
    edge error (`BOX_EDGE_ERROR`; a box that does disagrees with the end's box about where
    the tiles are, and is no evidence that the room is full)."""
    polygons = np.asarray(polygons, dtype=np.float64).reshape(-1, 4, 2)
    normal = np.array([-outward[1], outward[0]])
    along = (polygons - point) @ outward
    near, far = along.min(axis=1), along.max(axis=1)
    aside = (polygons.mean(axis=1) - point) @ normal
    in_way = (np.abs(aside) <= width / 2) & (near >= -BOX_EDGE_ERROR * width)
    covered = sorted(
        (max(lo, 0.0), min(hi, until))
        for lo, hi in zip(near[in_way], far[in_way], strict=True)
        if hi > 0 and lo < until
    )
    best, reached = (0.0, 0.0), 0.0
    # Of stretches as long within `TIE_PX`, the nearest: a later one must be longer.
    for lo, hi in covered:
        if lo - reached > best[1] + TIE_PX:
            best = (reached, lo - reached)
        reached = max(reached, hi)
    if until - reached > best[1] + TIE_PX:
        best = (reached, until - reached)
    return best


def gap_boxes(
    point: np.ndarray, outward: np.ndarray, room: float, length: float, width: float
) -> np.ndarray:
    """(n, 4, 2) tile-sized boxes where a missed tile could lie in the gap that starts at an
    open end's edge `point` and runs `room` pixels along the unit vector `outward`: doubles
    set crosswise (`width` along the gap, `length` across) and tiles in line (`length`
    along), their centres half a width apart, at least one of each kind. Each box's
    corners[0]-corners[1] is one of its short edges, as a detected tile's are."""
    across = np.array([-outward[1], outward[0]])
    crosswise = np.arange(width / 2, max(room - width / 2, width / 2) + 1e-9, width / 2)
    in_line = np.arange(length / 2, max(room - length / 2, length / 2) + 1e-9, width / 2)
    boxes = []
    for centres, long_axis, short_axis in (
        (crosswise, across, outward),
        (in_line, outward, across),
    ):
        half_long, half_short = long_axis * length / 2, short_axis * width / 2
        for k in centres:
            c = point + outward * k
            boxes.append(
                [
                    c - half_long - half_short,
                    c - half_long + half_short,
                    c + half_long + half_short,
                    c + half_long - half_short,
                ]
            )
    return np.array(boxes, dtype=np.float64)


@dataclass(frozen=True)
class _Beyond:
    """A tile lying about one tile beyond an open end, and boxes of the gap between them."""

    tile: int
    gap: np.ndarray


def _tile_beyond(
    tile: LayoutTile, end: SceneOpenEnd, frames: _Frames, ids: np.ndarray, in_layout: set[int]
) -> _Beyond | None:
    """A tile outside the layout lying in line beyond an open end, about one tile length
    away (where a missed detection would have been), with room for one between them
    (`MISSING_TILE_ROOM`) that no other tile fills (`free_stretch`), else None; the first
    in `ids` order (the tiles' ids, row by row of `frames`), with `gap_boxes` along that
    free stretch. Plain tiles only."""
    if tile.is_double:
        return None
    f = frames.at(int(np.flatnonzero(ids == tile.id)[0]))
    outward = f.axis if _free_half(tile, end) == 0 else -f.axis
    point = f.centre + outward * f.length / 2
    rel = frames.centre - point
    ahead = _dot(rel, outward)
    aligned = np.maximum(
        np.abs(_dot(frames.axis, f.axis)), np.abs(_dot(frames.axis, f.across))
    ) >= math.cos(math.radians(15.0))
    room = room_ahead(frames.polygon, point, outward)
    beyond = (
        aligned
        & (0.5 * f.length < ahead)
        & (ahead <= 2.0 * f.length)
        & (room >= MISSING_TILE_ROOM * f.width)
        & (np.abs(_dot(rel, f.normal)) <= f.width)
        & ~np.isin(ids, [tile.id, *in_layout])
    )
    for hit in np.flatnonzero(beyond):
        others = frames.polygon[(ids != tile.id) & (ids != ids[hit])]
        start, free = free_stretch(others, point, outward, f.width, float(room[hit]))
        if free >= MISSING_TILE_ROOM * f.width:
            gap = gap_boxes(point + outward * start, outward, free, f.length, f.width)
            return _Beyond(int(ids[hit]), gap)
    return None


def boxes_at_open_ends(scene: Scene, boxes: np.ndarray) -> list[tuple[int, SceneOpenEnd]]:
    """(index into `boxes`, open end) for each of the (n, 4, 2) `boxes` (image pixels) that
    lies against an open end of `scene.layout` (`AGAINST_OPEN_END`), where a tile played
    would change the open end; each box once, at the first such end."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4, 2)
    tiles = {t.id: t for t in scene.tiles}
    ends = [
        line.open_end
        for line in scene.layout.lines
        if line.open_end is not None and line.open_end.tile in tiles
    ]
    if not len(boxes) or not ends:
        return []
    centres = boxes.mean(axis=1)
    found: dict[int, SceneOpenEnd] = {}
    for end in ends:
        f = _frames(tiles[end.tile].corners).at(0)
        toward = float((np.asarray(end.point) - f.centre) @ f.axis) >= 0
        outward = f.axis if toward else -f.axis
        point = f.centre + outward * f.length / 2
        near = room_ahead(boxes, point, outward)
        aside = (centres - point) @ np.array([-outward[1], outward[0]])
        against = (
            (near >= -BOX_EDGE_ERROR * f.width)
            & (near <= AGAINST_OPEN_END * f.width)
            & (np.abs(aside) <= f.length / 2)
        )
        for i in np.flatnonzero(against):
            found.setdefault(int(i), end)
    return sorted(found.items())


def _lone_root(
    tiles: Sequence[LayoutTile], config: LayoutConfig, centre: np.ndarray
) -> LayoutTile | None:
    """The tile taken as a layout of one: the only one, else the one nearest `centre`
    (a double for the hub kinds: the set tile is played in the middle of the table)."""
    if len(tiles) == 1:
        return tiles[0]
    pool = [t for t in tiles if t.is_double] if config.kind != "line" else list(tiles)
    if config.hub_value is not None and any(t.halves[0] == config.hub_value for t in pool):
        pool = [t for t in pool if t.halves[0] == config.hub_value]
    if not pool:
        return None
    by_id = {t.id: t for t in pool}
    nearest = _nearest_of_tied(
        sorted(by_id), lambda t: float(np.linalg.norm(by_id[t].corners.mean(axis=0) - centre))
    )
    return by_id[nearest]


def build_layout(
    tiles: Sequence[LayoutTile],
    config: LayoutConfig = LayoutConfig(),
    image_size: tuple[int, int] | None = None,
    gap_check: GapCheck | None = None,
) -> Reconstruction:
    """Rebuild lines and open ends from face-up tiles (pure but for what `gap_check` looks
    at; see the module docstring).

    Args:
        tiles: the face-up, read tiles.
        config: tolerances and the layout kind.
        image_size: (width, height) of the picture, whose centre `lone_root` prefers;
            without it, the centre of the tiles' bounding box.
        gap_check: looks at the photo in the gap before a tile beyond an open end raises
            the doubt that one may be missing (`GAP_MAY_HOLD_TILE`); None (no photo: a
            Scene JSON laid out again with a game's kind, the live tracker) keeps every
            such doubt.
    """
    by_id = {t.id: t for t in tiles}
    if len(by_id) != len(tiles):
        raise ValueError("tile ids must be unique")
    links, mismatches = _links_and_warnings(by_id, find_contacts(tiles, config), config)
    centre: np.ndarray | None = None
    if image_size is not None:
        centre = np.array(image_size, dtype=np.float64) / 2
    elif tiles:
        every = np.concatenate([t.corners for t in tiles])
        centre = (every.min(axis=0) + every.max(axis=0)) / 2
    groups = [g for g in _components(list(by_id), links) if len(g) > 1]
    doubts: list[str] = []
    root: int | None = None
    layout_group: list[int] = []
    played: list[list[int]] = []  # auto: the other linked groups, played apart
    if groups and config.kind == AUTO:
        ordered = sorted(groups, key=lambda g: (-len(g), g[0]))
        layout_group, played = ordered[0], ordered[1:]
        root = _choose_root(layout_group, by_id, links)
    elif groups:
        if config.kind == "line":
            layout_group = max(groups, key=lambda g: (len(g), -g[0]))
        else:
            hubs = [
                (by_id[t].halves[0] == config.hub_value, _degree(t, links), len(g), -t, g)
                for g in groups
                for t in g
                if by_id[t].is_double
            ]
            largest = max(groups, key=lambda g: (len(g), -g[0]))
            layout_group = max(hubs, key=lambda h: h[:4])[4] if hubs else largest
        root = _choose_root(layout_group, by_id, links, centre, config.hub_value)
        if config.kind in ("spinner", "mexican"):
            rivals = [
                t
                for t in layout_group
                if t != root
                and by_id[t].is_double
                and _degree(t, links) == _degree(root, links)
                and (config.hub_value is None or by_id[t].halves[0] == by_id[root].halves[0])
            ]
            if rivals:
                guess = (
                    messages.ENGINE_GUESS if config.kind == "mexican" else messages.SPINNER_GUESS
                )
                doubts.append(note(guess, root=root, rival=rivals[0]))
    elif config.lone_root and tiles and centre is not None:
        lone = _lone_root(tiles, config, centre)
        if lone is not None:
            root, layout_group = lone.id, [lone.id]
            if len(tiles) > 1:
                doubts.append(note(messages.NOTHING_PLAYED, tile=lone.id))
    lines: list[LayoutLine] = []
    if root is not None:
        in_layout = set(layout_group)
        lines, _edges, walk_doubts = _walk(
            root, by_id, [k for k in links if k.a in in_layout], config
        )
        doubts.extend(walk_doubts)
        for group in played:
            members = set(group)
            more, _, more_doubts = _walk(
                _choose_root(group, by_id, links),
                by_id,
                [k for k in links if k.a in members],
                config,
            )
            lines += more
            doubts.extend(more_doubts)
            in_layout |= members
        layout_group = sorted(in_layout)
        for group in groups:
            if group is not layout_group and not set(group) <= in_layout:
                doubts.append(note(messages.PLAYED_APART, tiles=list(group)))
        frames = _frames(np.array([t.corners for t in tiles]))
        ids = np.array([t.id for t in tiles])
        for line in lines:
            end = line.open_end
            if end is None:
                continue
            beyond = _tile_beyond(by_id[end.tile], end, frames, ids, in_layout)
            if beyond is not None and (
                gap_check is None or gap_check(beyond.gap) >= GAP_MAY_HOLD_TILE
            ):
                doubts.append(note(messages.TILE_BEYOND_END, beyond=beyond.tile, tile=end.tile))
            if by_id[end.tile].cut:
                doubts.append(note(messages.END_CUT_BY_BORDER, tile=end.tile))
        open_halves = _open_halves(lines, by_id)
        if not set_down_side_by_side(len(links), len(mismatches), config):
            for (a, ha), (b, hb), _ in mismatches:
                if (a, ha) in open_halves or (b, hb) in open_halves:
                    doubts.append(note(messages.NO_MATCH_AT_END, a=a, b=b))
    roots = (root,) if root is not None else ()
    in_layout = set(layout_group)
    loose = tuple(t.id for t in tiles if t.id not in in_layout)
    open_ends = [line.open_end.value for line in lines if line.open_end is not None]
    all_links = tuple((k.a, k.b) for k in links)
    return Reconstruction(
        SceneLayout(lines, open_ends),
        roots,
        loose,
        tuple(m for _, _, m in mismatches),
        all_links,
        tuple(doubts),
    )


# --- the Scene side -------------------------------------------------------------------------


def _layout_tiles(scene: Scene, cut: set[int] | None = None) -> list[LayoutTile]:
    cut = cut or set()
    return [
        LayoutTile(t.id, t.corners, (t.pips[0], t.pips[1]), t.id in cut)
        for t in scene.tiles
        if t.face == "up" and t.pips is not None
    ]


def _cut_tiles(scene: Scene) -> set[int]:
    cut = boxes_cut_by_border(np.array([t.corners for t in scene.tiles]), scene.width, scene.height)
    return {t.id for t, is_cut in zip(scene.tiles, cut, strict=True) if is_cut}


def touch_counts(scene: Scene, config: LayoutConfig = LayoutConfig()) -> tuple[int, int]:
    """(links, touching halves that differ) among the Scene's read face-up tiles, as
    `build_layout` counts them: what `set_down_side_by_side` weighs."""
    tiles = _layout_tiles(scene, _cut_tiles(scene))
    by_id = {t.id: t for t in tiles}
    links, mismatches = _links_and_warnings(by_id, find_contacts(tiles, config), config)
    return len(links), len(mismatches)


def layout_scene(
    scene: Scene, config: LayoutConfig = LayoutConfig(), gap_check: GapCheck | None = None
) -> Scene:
    """The Scene with its `layout` rebuilt from its read face-up tiles, warnings appended
    (`gap_check`: see `build_layout`).

    Read tiles carry their corners turned so that half 0 shows `pips[0]` (vision.scene), so
    the halves in corner order are exactly `pips`. The layout's doubts are appended to the
    warnings too, and kept in `layout.doubts` with the resulting `layout.confidence`.
    """
    found = build_layout(
        _layout_tiles(scene, _cut_tiles(scene)), config, (scene.width, scene.height), gap_check
    )
    layout = replace(
        found.layout,
        kind=config.kind,
        root=found.roots[0] if found.roots else None,
        doubts=list(found.doubts),
        confidence=found.confidence,
    )
    warnings = [*scene.warnings, *found.warnings]
    warnings += [d for d in found.doubts if d not in warnings]
    return replace(scene, layout=layout, warnings=warnings)


def safe_adjacency(
    scene: Scene,
    config: LayoutConfig = LayoutConfig(),
    doubtful: float = 0.9,
    support: float = 0.05,
) -> list[AdjacencyConstraint]:
    """The touching halves that joint decoding may force to agree: the safe subset of
    `touching_halves` (the hook `dominocam.vision.pipeline.read_image` uses by default).

    A pair is kept only when (1) the reads differ now, (2) at least one of the two halves
    is doubtful (its best value has probability < `doubtful`) and (3) some value is
    plausible for both (probability >= `support` in each read) — so two confident reads that
    differ (loose tiles set side by side, which real photos show) are never forced, and a
    pair whose reads already agree needs nothing. Tiles without `half_probs` are skipped.
    """
    tiles = {t.id: t for t in scene.tiles}
    out: list[AdjacencyConstraint] = []
    for (a, ha), (b, hb) in touching_halves(scene, config):
        ta, tb = tiles[a], tiles[b]
        if ta.half_probs is None or tb.half_probs is None or ta.pips is None or tb.pips is None:
            continue
        if ta.pips[ha] == tb.pips[hb]:
            continue
        pa, pb = ta.half_probs[ha], tb.half_probs[hb]
        width = min(len(pa), len(pb))
        pa, pb = pa[:width], pb[:width]
        if min(float(pa.max()), float(pb.max())) >= doubtful:
            continue  # two sure reads that differ: tiles side by side, not played
        joint = np.log(np.maximum(pa, 1e-12)) + np.log(np.maximum(pb, 1e-12))
        best = int(np.argmax(joint))
        if pa[best] >= support and pb[best] >= support:
            out.append(((a, ha), (b, hb)))
    return out


def touching_halves(
    scene: Scene, config: LayoutConfig = LayoutConfig()
) -> list[AdjacencyConstraint]:
    """Pairs of halves in contact that the layout would link if they matched.

    Each pair is `((tile id, half), (tile id, half))` in the tiles' current corner order,
    for `dominocam.vision.decode.joint_decode`. Only END and SIDE contacts of face-up, read tiles
    count (a radial contact is too loose to force two reads to agree); each pair once.
    """
    tiles = _layout_tiles(scene)
    seen: set[frozenset[int]] = set()
    out: list[AdjacencyConstraint] = []
    for c in find_contacts(tiles, config):
        pair = frozenset((c.tile, c.other))
        if c.kind == RADIAL or pair in seen or c.gap > config.max_gap:
            continue
        seen.add(pair)
        out.append(((c.tile, c.half), (c.other, c.other_half)))
    return out
