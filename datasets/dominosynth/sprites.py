"""Tile faces and backs as high-resolution sprites (BGR float32 + alpha), drawn once per
tile and style, then warped into a scene by `dominosynth.render`.

A face sprite is upright like a rectified tile (vision/geometry.py): shape (2*S, S), half
`a` on top, half `b` below, the divider across the middle. Half `b`'s pips are drawn turned
180 degrees, as on a physical tile, so both halves read the same way up in a half crop.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

SPRITE_W = 128  # sprite width in pixels; height is twice that

# Pip colour palettes by value (BGR), as different makers colour double-12 sets.
PALETTES: tuple[tuple[tuple[int, int, int], ...], ...] = (
    # 0..15
    (
        (0, 0, 0),
        (200, 150, 40),
        (40, 140, 30),
        (30, 30, 200),
        (30, 70, 130),
        (140, 40, 120),
        (20, 170, 220),
        (150, 100, 30),
        (160, 60, 60),
        (80, 20, 110),
        (40, 160, 120),
        (90, 90, 90),
        (30, 110, 220),
        (120, 30, 30),
        (50, 50, 160),
        (0, 120, 60),
    ),
    (
        (0, 0, 0),
        (220, 120, 0),
        (50, 150, 0),
        (0, 0, 180),
        (0, 90, 200),
        (160, 0, 160),
        (0, 160, 160),
        (90, 30, 20),
        (20, 20, 120),
        (130, 60, 0),
        (60, 60, 60),
        (0, 100, 0),
        (40, 40, 220),
        (200, 60, 110),
        (0, 60, 120),
        (100, 0, 60),
    ),
    (
        (0, 0, 0),
        (60, 60, 200),
        (200, 80, 40),
        (30, 140, 60),
        (140, 40, 140),
        (0, 110, 210),
        (20, 120, 130),
        (170, 100, 60),
        (20, 30, 110),
        (40, 40, 40),
        (150, 20, 60),
        (0, 150, 190),
        (110, 50, 170),
        (30, 90, 40),
        (70, 50, 160),
        (130, 110, 20),
    ),
)


@dataclass(frozen=True)
class TileStyle:
    """How one set looks. Colours are BGR 0..255; ratios are of the tile width."""

    body: tuple[float, float, float]
    side: tuple[float, float, float]
    back: tuple[float, float, float]
    pip_colours: tuple[tuple[float, float, float], ...]  # by value 0..15
    pip_kind: str  # drilled, painted, domed
    pip_radius: float  # of the half side, for 0..9
    grid_spread: float  # offset of the outer pips from the half's centre, of the side
    six_across: bool
    dense_style: str  # A, B, C, R (R: 10 as a ring, as on many coloured-pip double-12 sets)
    divider_width: float
    divider_colour: tuple[float, float, float]
    divider_kind: str  # line, groove
    divider_inset: float  # gap between the divider bar and the long edges, of the width
    pin: tuple[float, float, float] | None
    corner_radius: float
    back_pattern: str  # plain, stripes, dots, ring, diamond
    translucent: bool
    gloss: float


def random_style(rng: np.random.Generator, cfg) -> TileStyle:
    """A set's look sampled from the configuration's ranges and weights."""
    # Drawn by position in `WEIGHT_CHOICES` order: 0 ivory, 1 black, 2 coloured, 3 translucent;
    # pips 0 black or white, 1 a colour per value, 2 one colour.
    body_kind = int(rng.choice(4, p=_norm(cfg.weight_list("body_weights"))))
    pip_mode = int(rng.choice(3, p=_norm(cfg.weight_list("pip_colour_weights"))))
    if body_kind == 0:  # white / ivory
        ivory = rng.uniform(0, 1)
        body = (
            235 - 60 * ivory + rng.uniform(-8, 8),
            240 - 20 * ivory + rng.uniform(-6, 6),
            240 + rng.uniform(-10, 12),
        )
    elif body_kind == 1:  # black / dark
        g = rng.uniform(15, 45)
        body = (g + rng.uniform(0, 8), g, g)
    else:  # coloured or translucent
        hue = rng.uniform(0, 180)
        sat = rng.uniform(60, 200) if body_kind == 2 else rng.uniform(40, 140)
        val = rng.uniform(120, 230)
        hsv = np.uint8([[[hue, sat, val]]])
        body = tuple(float(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    body = tuple(float(np.clip(c, 0, 255)) for c in body)
    lum = 0.11 * body[0] + 0.59 * body[1] + 0.3 * body[2]
    if pip_mode == 1:
        pal = np.array(PALETTES[int(rng.integers(len(PALETTES)))], dtype=np.float64)
        if rng.random() < 0.4:  # a maker's own colours: same idea, shuffled by value
            pal = pal[rng.permutation(16)]
        if lum < 90:
            pal = 255 - (255 - pal) * 0.5
        pips = tuple(tuple(float(c) for c in p) for p in pal)
    else:
        if pip_mode == 2:
            one = tuple(float(c) for c in rng.uniform(0, 200, 3))
        elif lum < 110:
            one = (235.0, 235.0, 235.0)
        else:
            one = tuple(float(c) for c in rng.uniform(0, 40, 3))
        pips = tuple(one for _ in range(16))
    dark_div = lum >= 110
    div_col = (
        tuple(float(c) for c in rng.uniform(10, 50, 3))
        if dark_div
        else tuple(float(c) for c in rng.uniform(190, 240, 3))
    )
    side = tuple(c * rng.uniform(0.78, 0.95) for c in body)
    back = body if rng.random() < 0.8 else tuple(float(c) for c in rng.uniform(20, 230, 3))
    return TileStyle(
        body=body,
        side=side,
        back=back,
        pip_colours=pips,
        pip_kind=str(rng.choice(["drilled", "painted", "domed"], p=[0.45, 0.3, 0.25])),
        pip_radius=float(rng.uniform(*cfg.pip_radius_ratio)),
        grid_spread=float(rng.uniform(0.24, 0.3)),
        six_across=bool(rng.random() < 0.35),
        dense_style=str(rng.choice(["A", "B", "C", "R"])),
        divider_width=float(rng.uniform(*cfg.divider_width_ratio)),
        divider_colour=div_col,
        divider_kind=str(rng.choice(["line", "groove"], p=[0.7, 0.3])),
        divider_inset=float(rng.uniform(0.08, 0.2)),
        pin=(
            tuple(float(c) for c in rng.choice([(60, 160, 200), (190, 190, 190), (40, 110, 170)]))
            if rng.random() < cfg.pin_p
            else None
        ),
        corner_radius=float(rng.uniform(*cfg.corner_radius_ratio)),
        back_pattern=(
            str(rng.choice(["stripes", "dots", "ring", "diamond"]))
            if rng.random() < cfg.back_pattern_p
            else "plain"
        ),
        translucent=body_kind == 3,
        gloss=float(rng.uniform(0.0, 1.0)),
    )


def _norm(weights) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    return w / w.sum()


def pip_positions(value: int, style: TileStyle) -> tuple[list[tuple[float, float]], float]:
    """Pip centres of one half in unit square coordinates (x across, y from the tile's end
    towards the divider) and the pip radius scale (1 for the 3x3 grid values)."""
    s = style.grid_spread
    g = (0.5 - s, 0.5, 0.5 + s)
    if value <= 9:
        cells = {
            0: [],
            1: [(1, 1)],
            2: [(0, 0), (2, 2)],
            3: [(0, 0), (1, 1), (2, 2)],
            4: [(0, 0), (2, 0), (0, 2), (2, 2)],
            5: [(0, 0), (2, 0), (0, 2), (2, 2), (1, 1)],
            6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)],
            7: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2), (1, 1)],
            8: [(i, j) for i in range(3) for j in range(3) if (i, j) != (1, 1)],
            9: [(i, j) for i in range(3) for j in range(3)],
        }[value]
        if style.six_across and value in (6, 7):
            cells = [(j, i) for i, j in cells]
        return [(g[i], g[j]) for i, j in cells], 1.0
    return _dense(value, style.dense_style), 0.72 if value <= 12 else 0.62


def _dense(value: int, kind: str) -> list[tuple[float, float]]:
    def col(x: float, n: int, lo: float = 0.16, hi: float = 0.84) -> list[tuple[float, float]]:
        return [(x, lo + (hi - lo) * k / (n - 1)) for k in range(n)] if n > 1 else [(x, 0.5)]

    if value > 12:  # double-15 sets: a 3x5 grid with holes
        full = col(0.2, 5, 0.14, 0.86) + col(0.5, 5, 0.14, 0.86) + col(0.8, 5, 0.14, 0.86)
        drop = {13: [6, 8], 14: [7], 15: []}[min(value, 15)]
        return [p for k, p in enumerate(full) if k not in drop]
    if kind == "R" and value == 10:  # the rim of a 3x4 grid: columns of 4, one pip top and bottom
        return col(0.2, 4) + col(0.8, 4) + [(0.5, 0.16), (0.5, 0.84)]
    if kind in ("A", "R"):
        mid = {10: col(0.5, 2, 0.39, 0.61), 11: col(0.5, 3, 0.27, 0.73), 12: col(0.5, 4)}[value]
        return col(0.2, 4) + col(0.8, 4) + mid
    if kind == "B":
        if value == 12:
            return [(x, y) for x in (0.16, 0.39, 0.61, 0.84) for y in (0.2, 0.5, 0.8)]
        outer, middle = (3, 4) if value == 10 else (4, 3)
        return col(0.2, outer, 0.24, 0.76) + col(0.5, middle) + col(0.8, outer, 0.24, 0.76)
    # C: two columns
    if value == 10:
        return col(0.3, 5, 0.13, 0.87) + col(0.7, 5, 0.13, 0.87)
    if value == 11:
        return col(0.22, 5, 0.13, 0.87) + col(0.78, 5, 0.13, 0.87) + [(0.5, 0.5)]
    return col(0.3, 6, 0.11, 0.89) + col(0.7, 6, 0.11, 0.89)


@lru_cache(maxsize=64)
def _body_mask(radius_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Alpha (float32 0..1, anti-aliased) of a rounded rectangle sprite and a bevel shading."""
    w, h = SPRITE_W, 2 * SPRITE_W
    big = np.zeros((h * 4, w * 4), np.uint8)
    r = max(1, radius_px * 4)
    cv2.rectangle(big, (r, 0), (w * 4 - 1 - r, h * 4 - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * 4 - 1, h * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - 1 - r, r), (r, h * 4 - 1 - r), (w * 4 - 1 - r, h * 4 - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    alpha = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    dist = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    bevel = 1.0 - 0.28 * np.exp(-dist / 3.5) + 0.06 * np.exp(-((dist - 5) ** 2) / 8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bevel *= 1.0 + 0.05 * ((w - xx) / w - 0.5) + 0.04 * ((h - yy) / h - 0.5)
    return alpha, bevel.astype(np.float32)


def _base(colour: tuple[float, float, float], style: TileStyle, rng: np.random.Generator):
    w = SPRITE_W
    alpha, bevel = _body_mask(round(style.corner_radius * w))
    img = np.empty((2 * w, w, 3), np.float32)
    img[:] = colour
    grain = rng.normal(0, 1.6, (2 * w // 8, w // 8)).astype(np.float32)
    img *= bevel[..., None]
    img += cv2.resize(grain, (w, 2 * w), interpolation=cv2.INTER_CUBIC)[..., None]
    return img, alpha.copy()


def face_sprite(
    halves: tuple[int, int], style: TileStyle, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The face of a tile, upright, half `halves[0]` on top.

    Returns:
        (image float32 (2S, S, 3) BGR 0..255, alpha float32 (2S, S) 0..1).
    """
    w = SPRITE_W
    img, alpha = _base(style.body, style, rng)
    # Divider bar.
    thick = max(1, round(style.divider_width * w))
    inset = round(style.divider_inset * w)
    y0 = w - thick // 2
    if style.divider_kind == "groove":
        cv2.rectangle(img, (inset, y0), (w - inset, y0 + thick), _shade(style.body, 0.6), -1)
        cv2.line(img, (inset, y0 + thick), (w - inset, y0 + thick), _shade(style.body, 1.15), 1)
    else:
        cv2.rectangle(img, (inset, y0), (w - inset, y0 + thick), style.divider_colour, -1)
    for k, value in enumerate(halves):
        pts, scale = pip_positions(value, style)
        radius = style.pip_radius * w * scale
        colour = style.pip_colours[min(value, 15)]
        for px, py in pts:
            if k == 0:
                x, y = px * w, py * w * 0.97
            else:  # turned 180 degrees about the tile centre
                x, y = (1 - px) * w, 2 * w - py * w * 0.97
            _pip(img, x, y, radius, colour, style)
    if style.pin is not None:
        cv2.circle(img, (w // 2, w), max(2, round(0.055 * w)), style.pin, -1, cv2.LINE_AA)
        cv2.circle(img, (w // 2 - 1, w - 1), max(1, round(0.02 * w)), _shade(style.pin, 1.5), -1)
    return img, alpha


def back_sprite(style: TileStyle, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The back of a tile (plain or patterned), same shape as a face sprite."""
    w = SPRITE_W
    img, alpha = _base(style.back, style, rng)
    ink = _shade(style.back, 0.7) if sum(style.back) > 300 else _shade(style.back, 1.6)
    if style.back_pattern == "stripes":
        for k in range(-2 * w, 2 * w, 14):
            cv2.line(img, (k, 0), (k + w, w), ink, 3, cv2.LINE_AA)
            cv2.line(img, (k, w), (k + w, 2 * w), ink, 3, cv2.LINE_AA)
    elif style.back_pattern == "dots":
        for y in range(12, 2 * w, 20):
            for x in range(12 + (y // 20 % 2) * 10, w, 20):
                cv2.circle(img, (x, y), 3, ink, -1, cv2.LINE_AA)
    elif style.back_pattern == "ring":
        cv2.circle(img, (w // 2, w), w // 3, ink, 4, cv2.LINE_AA)
        cv2.circle(img, (w // 2, w), w // 8, ink, -1, cv2.LINE_AA)
    elif style.back_pattern == "diamond":
        pts = np.array([[w // 2, 14], [w - 14, w], [w // 2, 2 * w - 14], [14, w]], np.int32)
        cv2.polylines(img, [pts], True, ink, 4, cv2.LINE_AA)
    return img, alpha


def _shade(colour, k: float) -> tuple[float, float, float]:
    return tuple(float(min(255.0, c * k)) for c in colour)


def _pip(img: np.ndarray, x: float, y: float, r: float, colour, style: TileStyle) -> None:
    sh = 4  # fixed-point bits for sub-pixel circles
    f = 1 << sh

    def circ(cx: float, cy: float, rr: float, col) -> None:
        cv2.circle(
            img, (round(cx * f), round(cy * f)), max(1, round(rr * f)), col, -1, cv2.LINE_AA, sh
        )

    if style.pip_kind == "painted":
        circ(x, y, r, colour)
    elif style.pip_kind == "drilled":
        circ(x, y, r * 1.08, _shade(style.body, 0.55))
        circ(x + 0.12 * r, y + 0.12 * r, r * 0.92, colour)
        circ(x + 0.25 * r, y + 0.25 * r, r * 0.35, _shade(colour, 1.6 if sum(colour) > 60 else 3))
    else:  # domed and glossy
        circ(x, y, r, _shade(colour, 0.8))
        circ(x - 0.1 * r, y - 0.1 * r, r * 0.8, colour)
        hl = tuple(0.4 * c + 0.6 * 255 for c in colour)
        circ(x - 0.35 * r, y - 0.35 * r, r * 0.28, hl)
