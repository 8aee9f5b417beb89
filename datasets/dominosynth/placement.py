"""Where tiles lie on the table: 2-D poses in millimetres, placed move by move for
`dominosynth.play`, with turns at the table's edge, crosswise doubles, small gaps and skew.

Table coordinates: x to the right, y down (as the image when the camera is not turned),
millimetres. A tile pose is (cx, cy, angle): centre and the direction of its long axis `u`
from half a (the `inner` half, facing the root) to half b, in radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dominosynth.play import PlayedLayout, PlayedTile


@dataclass(frozen=True)
class Pose:
    """A tile lying on the table. Lengths in mm, angle in radians (direction of u)."""

    cx: float
    cy: float
    angle: float

    def corners(self, length: float, shrink: float = 0.0) -> np.ndarray:
        """(4, 2) footprint corners in the geometry.py order (half a's end edge first)."""
        return rect_corners(self.cx, self.cy, self.angle, length / 2 - shrink, length / 4 - shrink)


def rect_corners(cx: float, cy: float, angle: float, hl: float, hw: float) -> np.ndarray:
    """Corners of a rectangle with half-length `hl` along `angle`, half-width `hw`.

    Order: (-u,-v), (-u,+v), (+u,+v), (+u,-v) where v is u turned -90 degrees (so, with
    y down, the corners run clockwise on screen and a rectified crop is the face turned,
    never mirrored); this is the corner order of vision/geometry.py when u runs from half a
    to half b.
    """
    u = np.array([math.cos(angle), math.sin(angle)])
    v = np.array([u[1], -u[0]])
    c = np.array([cx, cy])
    return np.array(
        [c - hl * u - hw * v, c - hl * u + hw * v, c + hl * u + hw * v, c + hl * u - hw * v]
    )


def overlap(p: np.ndarray, q: np.ndarray) -> bool:
    """True when two convex quadrilaterals (4, 2) overlap (separating axis test)."""
    for poly in (p, q):
        for k in range(4):
            edge = poly[(k + 1) % 4] - poly[k]
            axis = np.array([-edge[1], edge[0]])
            a, b = p @ axis, q @ axis
            if a.max() <= b.min() or b.max() <= a.min():
                return False
    return True


class Occupancy:
    """Footprints already on the table and the region tiles must stay inside (mm)."""

    def __init__(self, region: np.ndarray) -> None:
        """`region`: (N, 2) convex polygon in mm, either winding."""
        self.region = np.asarray(region, dtype=np.float64)
        self.polys: list[np.ndarray] = []

    def inside(self, poly: np.ndarray) -> bool:
        r = self.region
        edges = np.roll(r, -1, axis=0) - r
        rel = poly[:, None, :] - r[None, :, :]
        cross = edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0]
        return bool((cross >= 0).all() or (cross <= 0).all())

    def free(self, poly: np.ndarray) -> bool:
        return self.inside(poly) and not any(overlap(poly, q) for q in self.polys)

    def add(self, poly: np.ndarray) -> None:
        self.polys.append(poly)


def _unit(a: float) -> np.ndarray:
    return np.array([math.cos(a), math.sin(a)])


@dataclass
class _End:
    point: np.ndarray  # centre of the free end edge, mm
    direction: float  # heading of the line, radians
    across: float  # half-extent of the last tile across the heading, mm
    after_double: bool


class TablePlacer:
    """Places a `play.Layout` on the table (implements `play.Placer`).

    Args:
        rng: random source.
        length: tile length, mm (width is half of it).
        occupancy: the table region and what is already on it.
        centre: where the root goes, mm. heading: the main direction, radians.
        gap: (low, high) gap between tiles that do not touch, mm; touching_p: chance of 0.
        skew_deg: (low, high) absolute angular jitter per tile, degrees.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        length: float,
        occupancy: Occupancy,
        centre: tuple[float, float],
        heading: float,
        gap: tuple[float, float],
        touching_p: float,
        skew_deg: tuple[float, float],
    ) -> None:
        self.rng = rng
        self.L = length
        self.W = length / 2
        self.occ = occupancy
        self.centre = np.asarray(centre, dtype=np.float64)
        self.heading = heading
        self.gap = gap
        self.touching_p = touching_p
        self.skew = skew_deg
        self.poses: dict[int, Pose] = {}
        self.ends: dict[int, _End] = {}
        self.line_dir: dict[int, float] = {}  # heading of the line each tile was played on

    # -- play.Placer -------------------------------------------------------------------
    def place_root(self, layout: PlayedLayout) -> None:
        root = layout.tiles[0]
        c, h, L, W = self.centre, self.heading, self.L, self.W
        d = _unit(h)
        n = _unit(h + math.pi / 2)
        if layout.variant == "line" and not root.tile.is_double:
            pose = Pose(c[0], c[1], h)
            self.ends[0] = _End(c - d * L / 2, h + math.pi, W / 2, False)
            self.ends[1] = _End(c + d * L / 2, h, W / 2, False)
        elif layout.variant == "line":
            pose = Pose(c[0], c[1], h + math.pi / 2)
            self.ends[0] = _End(c - d * W / 2, h + math.pi, L / 2, True)
            self.ends[1] = _End(c + d * W / 2, h, L / 2, True)
        elif layout.variant in ("spinner", "chicken"):
            pose = Pose(c[0], c[1], h + math.pi / 2)
            self.ends[0] = _End(c + d * W / 2, h, L / 2, True)
            self.ends[1] = _End(c - d * W / 2, h + math.pi, L / 2, True)
            self.ends[2] = _End(c + n * L / 2, h + math.pi / 2, W / 2, True)
            self.ends[3] = _End(c - n * L / 2, h - math.pi / 2, W / 2, True)
        else:  # mexican: trains radiate from the hub
            pose = Pose(c[0], c[1], h + math.pi / 2)
            k = len(layout.lines)
            for j in range(k):
                a = h + 2 * math.pi * j / k
                self.ends[j] = _End(c + _unit(a) * (L / 2 + 3), a, W / 2, True)
        self.poses[0] = pose
        self.line_dir[0] = h
        self.occ.add(pose.corners(L, shrink=0.15))

    def start_line(self, layout: PlayedLayout, line: int) -> bool:
        if line in self.ends:
            return True
        uid = layout.lines[line].tiles[0]  # a toe: starts from a crosswise double
        pose, h = self.poses[uid], self.line_dir[uid]
        siblings = [j for j, ln in enumerate(layout.lines) if ln.tiles[0] == uid]
        k = siblings.index(line)
        c = np.array([pose.cx, pose.cy])
        d, n = _unit(h), _unit(h + math.pi / 2)
        if k == 0:
            self.ends[line] = _End(c + d * self.W / 2, h, self.W / 2, False)
        else:
            s = 1 if k == 1 else -1
            a = h + s * math.pi / 4
            p = c + d * (self.W / 2 + self.W / 2 * math.sin(math.pi / 4) + 1) + s * n * self.L / 2
            self.ends[line] = _End(p, a, self.W / 2, False)
        return True

    def place(self, layout: PlayedLayout, line: int, played: PlayedTile) -> bool:
        end = self.ends[line]
        gap = 0.0 if self.rng.random() < self.touching_p else float(self.rng.uniform(*self.gap))
        skew = math.radians(float(self.rng.uniform(*self.skew))) * self.rng.choice([-1, 1])
        jitter = self.rng.normal(0, 0.3, 2)
        L, W = self.L, self.W
        d = _unit(end.direction)
        candidates: list[tuple[np.ndarray, float, float, float]] = []  # centre, u, heading, across
        if played.tile.is_double:
            centre = end.point + d * (gap + W / 2)
            side = self.rng.choice([-1, 1])
            candidates.append((centre, end.direction + side * math.pi / 2, end.direction, L / 2))
        else:
            straight = (end.point + d * (gap + L / 2), end.direction, end.direction, W / 2)
            turns = []
            if not end.after_double:
                for s in self.rng.permutation([-1, 1]):
                    h2 = end.direction + s * math.pi / 2
                    d2 = _unit(h2)
                    start = end.point - d * (W / 2) + d2 * (end.across + gap)
                    turns.append((start + d2 * L / 2, h2, h2, W / 2))
            ahead = Pose(*(end.point + d * (gap + 2.2 * L)), end.direction).corners(L)
            near_edge = not self.occ.inside(ahead)
            candidates = (
                [*turns, straight] if near_edge and self.rng.random() < 0.5 else [straight, *turns]
            )
        for centre, angle, heading, across in candidates:
            pose = Pose(float(centre[0] + jitter[0]), float(centre[1] + jitter[1]), angle + skew)
            poly = pose.corners(L, shrink=0.15)
            if not self.occ.free(poly):
                continue
            uid = len(layout.tiles)  # the index play.simulate is about to give it
            self.poses[uid] = pose
            self.line_dir[uid] = heading
            self.occ.add(poly)
            u = _unit(pose.angle)
            ext = W / 2 if played.tile.is_double else L / 2
            tip = (
                np.array([pose.cx, pose.cy])
                + (_unit(heading) if played.tile.is_double else u) * ext
            )
            self.ends[line] = _End(tip, heading, across, played.tile.is_double)
            return True
        return False
