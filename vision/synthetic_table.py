"""A quick synthetic table drawn with OpenCV, for `dominocam bench` and tests.

Not training data (that is `dominosynth`'s job): tiles on a felt background, a grid with
jitter and random turns, standard pip patterns, some face down, with their exact corners.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision import geometry

# Pip centres in a half, (across, along) in [0, 1]^2, along = 0 at the tile's end.
_CLASSIC: dict[int, list[tuple[float, float]]] = {
    0: [],
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, y) for y in (0.22, 0.5, 0.78)] + [(0.75, y) for y in (0.22, 0.5, 0.78)],
}


def pip_positions(value: int) -> list[tuple[float, float]]:
    """Pip centres of a half showing `value` (classic patterns to 6, rows of three above)."""
    if value in _CLASSIC:
        return _CLASSIC[value]
    rows = math.ceil(value / 3)
    out = []
    for k in range(value):
        r, c = divmod(k, 3)
        out.append(((c + 1) / 4, (r + 1) / (rows + 1)))
    return out


@dataclass
class TableTile:
    """A drawn tile: corners in the tile convention, half values in corner order (or None)."""

    corners: np.ndarray
    halves: tuple[int, int] | None

    @property
    def face(self) -> str:
        return "down" if self.halves is None else "up"


def half_point(corners: np.ndarray, half: int, across: float, along: float) -> np.ndarray:
    """A point of a tile's half in image pixels; `along` runs from the tile's end (0) to the
    divider (1), `across` from corners[0] (half 0) or corners[2] (half 1)."""
    c = np.asarray(corners, dtype=np.float64)
    if half == 0:
        return c[0] + across * (c[1] - c[0]) + along * (c[3] - c[0]) / 2
    return c[2] + across * (c[3] - c[2]) + along * (c[1] - c[2]) / 2


def draw_tile(image: np.ndarray, tile: TableTile) -> None:
    """Draw one tile on a BGR image in place."""
    import cv2

    c = tile.corners
    length = float(np.linalg.norm(c[3] - c[0]))
    pts = np.round(c * 16).astype(np.int32).reshape(-1, 1, 2)
    body = (40, 40, 40) if tile.halves is None else (235, 240, 245)
    cv2.fillConvexPoly(image, pts, body, cv2.LINE_AA, shift=4)
    cv2.polylines(image, [pts], True, (90, 90, 90), 1, cv2.LINE_AA, shift=4)
    if tile.halves is None:
        return
    a, b = (c[1] + c[2]) / 2, (c[3] + c[0]) / 2
    cv2.line(image, _p16(a), _p16(b), (60, 60, 60), max(1, round(length / 60)), cv2.LINE_AA, 4)
    for half, value in enumerate(tile.halves):
        radius = max(1, round(length / (26 if value <= 6 else 34) * 16))
        for across, along in pip_positions(value):
            p = half_point(c, half, across, along)
            cv2.circle(image, _p16(p), radius, (20, 20, 20), -1, cv2.LINE_AA, 4)


def _p16(p: np.ndarray) -> tuple[int, int]:
    return round(float(p[0]) * 16), round(float(p[1]) * 16)


def draw_table(
    width: int = 1280,
    height: int = 720,
    n_tiles: int = 36,
    *,
    seed: int = 0,
    set_max: int = 12,
    face_down: float = 0.15,
) -> tuple[np.ndarray, list[TableTile]]:
    """A felt table with `n_tiles` distinct tiles, some face down, none overlapping.

    Returns:
        The BGR uint8 image (height, width, 3) and the tiles with exact corners.
    """
    import cv2

    rng = np.random.default_rng(seed)
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[:] = (60, 110, 40)
    noise = rng.normal(0, 6, size=(height, width, 1))
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    cols = max(1, math.ceil(math.sqrt(n_tiles * width / height)))
    rows = math.ceil(n_tiles / cols)
    cell_w, cell_h = width / cols, height / rows
    length = 0.8 * min(cell_w, cell_h)
    values = [(a, b) for a in range(set_max + 1) for b in range(a, set_max + 1)]
    picks = rng.permutation(len(values))
    tiles: list[TableTile] = []
    for k in range(n_tiles):
        r, col = divmod(k, cols)
        cx = (col + 0.5) * cell_w + rng.uniform(-0.05, 0.05) * cell_w
        cy = (r + 0.5) * cell_h + rng.uniform(-0.05, 0.05) * cell_h
        angle = rng.uniform(0, math.pi)
        box = np.array([cx, cy, length, length / 2, angle])
        corners = geometry.order_corners(geometry.xywhr_to_corners(box))
        if rng.random() < face_down:
            halves = None
        else:
            a, b = values[int(picks[k % len(values)])]
            halves = (a, b) if rng.random() < 0.5 else (b, a)
        tile = TableTile(corners=corners, halves=halves)
        draw_tile(image, tile)
        tiles.append(tile)
    image = cv2.GaussianBlur(image, (3, 3), 0)
    return image, tiles
