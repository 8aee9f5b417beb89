"""Printed dominoes: photographs of print, which are not tiles (issue 36, point 1).

A printed domino is a tile face on paper or cardboard: the set's own face sprite, flat (no
side face, no shadow of its own), in print colours (ink never quite black, paper never
quite white, a little dot gain), often with a printed outline, on a textured sheet. Two
sheets hold them:

* a **board** (`PrintKind.BOARD`) lying flat on the table under the real tiles: a board
  game whose border is a printed track of dominoes at equal spacing, along the edge or
  across it, with cells, lines and lettering inside; the real tiles of the picture lie on
  it with their sides and shadows;
* a **box lid** (`PrintKind.LID`): a box standing beside the tiles (it has sides and a
  shadow: it is a real box) whose top shows lettering and a row of printed dominoes.

Each sheet lists its printed dominoes as quadrilaterals in sheet pixels, in the corner order
of `vision/geometry.py` (the first two corners close the end of the first half); the
renderer maps them onto the table and the truth lists their image corners under `printed`.
They never get a detector box; the verifier's `not_tile` crops are cut around them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import cv2
import numpy as np

from dominosynth.distractors import _FONTS, PrintedDomino, _put_text, random_text

# Draws one face sprite of the picture's set: (halves) -> (sprite, alpha).
FaceSprite = Callable[[tuple[int, int]], tuple[np.ndarray, np.ndarray]]


class PrintKind(StrEnum):
    """The sheets that carry printed dominoes (the `on` of a printed domino's truth)."""

    BOARD = "print_board"
    LID = "print_lid"


@dataclass
class PrintSheet:
    """A sheet (board or lid) as a flat-topped box: sizes in mm, sprite in pixels."""

    kind: PrintKind
    half_length: float  # mm, along the sprite's height
    half_width: float  # mm, along the sprite's width
    thickness: float  # mm
    sprite: np.ndarray
    alpha: np.ndarray
    side: tuple[float, ...]
    dominoes: list[PrintedDomino] = field(default_factory=list)


def _paper(rng: np.random.Generator, h: int, w: int, colour) -> np.ndarray:
    """A sheet of paper or cardboard: its colour with mottling, fibres and fine grain."""
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    mottle = rng.normal(0, 1, (max(2, h // 48), max(2, w // 48))).astype(np.float32)
    img += cv2.resize(mottle, (w, h), interpolation=cv2.INTER_CUBIC)[..., None] * float(
        rng.uniform(2, 7)
    )
    for _ in range(int(rng.integers(0, 40))):  # fibres
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, math.pi)
        d = rng.uniform(3, 14)
        tone = tuple(float(c) for c in np.asarray(colour) * rng.uniform(0.85, 1.05))
        p0 = (int(x), int(y))
        p1 = (int(x + d * math.cos(a)), int(y + d * math.sin(a)))
        cv2.line(img, p0, p1, tone, 1, cv2.LINE_AA)
    img += rng.normal(0, float(rng.uniform(1, 4)), (h, w, 1)).astype(np.float32)
    return img


def _sheet_colour(rng: np.random.Generator) -> tuple[float, ...]:
    """Paper white, cardboard brown, or a printed ground colour (BGR)."""
    pick = rng.random()
    if pick < 0.4:
        return tuple(float(c) for c in rng.uniform(215, 245, 3))
    if pick < 0.6:
        return tuple(float(c) for c in rng.uniform((90, 140, 170), (130, 175, 210)))
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(40, 200), rng.uniform(110, 235)]]], np.uint8)
    return tuple(float(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def print_look(
    face: np.ndarray, alpha: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A face sprite as print shows it: ink lighter than black, paper darker than white,
    colours a little off, dot gain (a soft blur) and, half the time, a halftone screen."""
    lo, hi = float(rng.uniform(12, 55)), float(rng.uniform(215, 248))
    img = lo + (hi - lo) * np.clip(face, 0, 255) / 255.0
    grey = img.mean(axis=2, keepdims=True)
    img = grey + (img - grey) * float(rng.uniform(0.6, 1.15))
    img *= rng.uniform(0.92, 1.06, 3).astype(np.float32)
    if rng.random() < 0.5:
        period = float(rng.uniform(3, 7))
        yy, xx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]].astype(np.float32)
        screen = np.sin(xx * 2 * math.pi / period) * np.sin(yy * 2 * math.pi / period)
        img += (screen * float(rng.uniform(3, 10)))[..., None]
    img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), float(rng.uniform(0.5, 1.6)))
    return img.astype(np.float32), alpha


def paste(
    sheet: np.ndarray,
    sheet_alpha: np.ndarray | None,
    face: np.ndarray,
    face_alpha: np.ndarray,
    corners: np.ndarray,
    outline: tuple[float, ...] | None,
    outline_px: int = 2,
) -> None:
    """Print `face` (upright sprite, half a on top) onto `sheet` with its four corners at
    `corners` (sheet pixels, tile order); draw a printed outline around it when given."""
    h, w = sheet.shape[:2]
    fh, fw = face.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return
    src = np.array([[-0.5, -0.5], [fw - 0.5, -0.5], [fw - 0.5, fh - 0.5], [-0.5, fh - 0.5]])
    length = float(np.linalg.norm(corners[3] - corners[0]))
    while face.shape[0] > 2.5 * length and face.shape[0] > 16:
        face, face_alpha = cv2.pyrDown(face), cv2.pyrDown(face_alpha)
        src = src / 2
    M = cv2.getPerspectiveTransform(src.astype(np.float32), (corners - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, M, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(face_alpha, M, size, flags=cv2.INTER_LINEAR)[..., None]
    roi = sheet[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + warped * a
    if outline is not None:
        pts = np.round((corners - [x0, y0]) * 16).astype(np.int32)
        cv2.polylines(roi, [pts], True, outline, max(1, outline_px), cv2.LINE_AA, 4)
    if sheet_alpha is not None:
        sheet_alpha[y0:y1, x0:x1] = np.maximum(sheet_alpha[y0:y1, x0:x1], a[..., 0])


def domino_corners(centre, length: float, angle: float) -> np.ndarray:
    """(4, 2) corners of a 2:1 domino `length` long whose first half points along `angle`
    from its centre (sheet pixels, clockwise on screen)."""
    c = np.asarray(centre, np.float64)
    down = np.array([math.cos(angle), math.sin(angle)])  # from half a towards half b
    right = np.array([-down[1], down[0]])
    h, w = length / 2, length / 4
    return np.array(
        [c - h * down + w * right, c - h * down - w * right, c + h * down - w * right,
         c + h * down + w * right]
    )  # fmt: skip


def _ink(rng: np.random.Generator) -> tuple[float, ...]:
    if rng.random() < 0.6:
        return tuple(float(c) for c in rng.uniform(15, 60, 3))
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(120, 255), rng.uniform(60, 160)]]], np.uint8)
    return tuple(float(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def _random_halves(rng: np.random.Generator, max_pip: int) -> tuple[int, int]:
    return int(rng.integers(0, max_pip + 1)), int(rng.integers(0, max_pip + 1))


def board(
    rng: np.random.Generator,
    side_mm: float,
    tile_length: float,
    face: FaceSprite,
    max_pip: int,
    px_per_mm: float,
) -> PrintSheet:
    """A square game board `side_mm` wide with a printed domino track around its border."""
    px = int(np.clip(side_mm * px_per_mm * float(rng.uniform(0.9, 1.3)), 384, 1600))
    scale = px / side_mm  # sheet pixels per mm
    ground = _sheet_colour(rng)
    img = _paper(rng, px, px, ground)
    ink = _ink(rng)
    printed_length = tile_length * float(rng.uniform(0.7, 1.15)) * scale
    across = rng.random() < 0.45  # dominoes across the track, side by side; else end to end
    gap = printed_length * float(rng.uniform(0.04, 0.35)) * (0.5 if across else 1.0)
    pitch = (printed_length / 2 if across else printed_length) + gap
    depth = printed_length if across else printed_length / 2  # the track's width
    margin = float(rng.uniform(0.01, 0.05)) * px
    band = depth + 2 * max(2.0, gap / 2 + 1)
    if rng.random() < 0.7:  # the track as a band of another colour, with cells
        track = _sheet_colour(rng)
        outer, inner = int(margin), int(margin + band)
        cv2.rectangle(img, (outer, outer), (px - outer, px - outer), track, -1)
        cv2.rectangle(img, (inner, inner), (px - inner, px - inner), ground, -1)
        cv2.rectangle(img, (outer, outer), (px - outer, px - outer), ink, 2, cv2.LINE_AA)
        cv2.rectangle(img, (inner, inner), (px - inner, px - inner), ink, 2, cv2.LINE_AA)
    _decorate_inside(rng, img, int(margin + band + 4), ink)
    outline = _ink(rng) if rng.random() < 0.8 else None
    outline_px = max(1, round(printed_length * float(rng.uniform(0.01, 0.035))))
    same_look = rng.random() < 0.6
    look_seed = int(rng.integers(2**31))
    dominoes: list[PrintedDomino] = []
    inner_len = px - 2 * (margin + band)
    for edge in range(4):  # top, right, bottom, left, clockwise
        if rng.random() < 0.1:
            continue  # a side without dominoes
        along = inner_len + band  # from corner cell to corner cell
        count = max(1, int(along // pitch))
        start = (along - count * pitch) / 2 + pitch / 2
        for k in range(count):
            t = margin + band / 2 + start + k * pitch  # position along the edge
            d = margin + band / 2  # distance from the border to the track's middle
            centre = [(t, d), (px - d, t), (px - t, px - d), (d, px - t)][edge]
            edge_dir = [0.0, math.pi / 2, math.pi, -math.pi / 2][edge]
            angle = edge_dir + (math.pi / 2 if across else 0.0) + float(rng.integers(2)) * math.pi
            corners = domino_corners(centre, printed_length, angle)
            halves = _random_halves(rng, max_pip)
            sprite, alpha = face(halves)
            look_rng = np.random.default_rng(look_seed if same_look else int(rng.integers(2**31)))
            sprite, alpha = print_look(sprite, alpha, look_rng)
            paste(img, None, sprite, alpha, corners, outline, outline_px)
            dominoes.append(PrintedDomino(corners, halves))
    alpha = np.ones((px, px), np.float32)
    half = side_mm / 2
    thickness = float(rng.uniform(0.3, 2.5))  # printed paper to a folding board
    return PrintSheet(
        PrintKind.BOARD,
        half,
        half,
        thickness,
        img,
        alpha,
        tuple(float(c) * 0.7 for c in ground),
        dominoes,
    )


def _decorate_inside(rng: np.random.Generator, img: np.ndarray, inset: int, ink) -> None:
    """What a board shows inside its track: a grid, circles, words."""
    px = img.shape[0]
    lo, hi = inset, px - inset
    if hi - lo < 40:
        return
    if rng.random() < 0.5:
        cells = int(rng.integers(3, 12))
        for k in range(cells + 1):
            p = int(lo + k * (hi - lo) / cells)
            cv2.line(img, (p, lo), (p, hi), ink, 1, cv2.LINE_AA)
            cv2.line(img, (lo, p), (hi, p), ink, 1, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 4))):
        centre = (int(rng.uniform(lo, hi)), int(rng.uniform(lo, hi)))
        radius = int(rng.uniform(0.03, 0.15) * px)
        cv2.circle(img, centre, radius, _ink(rng), int(rng.integers(1, 5)), cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 3))):
        size = float(rng.uniform(0.6, 2.5)) * px / 500
        org = (int(rng.uniform(lo, max(lo + 1, hi - 200 * size))), int(rng.uniform(lo + 30, hi)))
        font = _FONTS[int(rng.integers(len(_FONTS)))]
        _put_text(img, random_text(rng), org, font, size, ink, max(1, int(size * 2)))


def lid(
    rng: np.random.Generator, tile_length: float, face: FaceSprite, max_pip: int, px_per_mm: float
) -> PrintSheet:
    """A domino box's lid: lettering and a row of printed dominoes at equal spacing."""
    half_length = tile_length * float(rng.uniform(1.4, 3.0))
    half_width = half_length * float(rng.uniform(0.45, 0.8))
    w = int(np.clip(2 * half_width * px_per_mm * 1.2, 256, 1024))
    h = round(w * half_length / half_width)
    ground = _sheet_colour(rng)
    img = _paper(rng, h, w, ground)
    ink = _ink(rng)
    size = float(rng.uniform(0.8, 2.2)) * w / 400
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    _put_text(img, random_text(rng, 4, 8), (int(0.06 * w), int(0.16 * h)), font, size, ink, 2)
    if rng.random() < 0.5:
        _put_text(img, random_text(rng, 2, 6), (int(0.06 * w), int(0.95 * h)), font, size * 0.6,
                  ink, 1)  # fmt: skip
    count = int(rng.integers(1, 7))
    # The row runs across the lid, each domino upright (across) or lying (along the row).
    upright = rng.random() < 0.6
    room = 0.9 * w
    length = min(0.5 * h, (room / count) * (2.0 if upright else 1.0) * float(rng.uniform(0.6, 0.9)))
    pitch = room / count
    outline = _ink(rng) if rng.random() < 0.7 else None
    dominoes: list[PrintedDomino] = []
    y = h * float(rng.uniform(0.45, 0.65))
    tilt = float(rng.normal(0, 0.15)) if rng.random() < 0.3 else 0.0  # a fanned row
    for k in range(count):
        x = 0.05 * w + pitch * (k + 0.5)
        angle = (math.pi / 2 if upright else 0.0) + tilt * (k - (count - 1) / 2)
        angle += float(rng.integers(2)) * math.pi
        corners = domino_corners((x, y), length, angle)
        halves = _random_halves(rng, max_pip)
        sprite, alpha = print_look(*face(halves), rng)
        paste(img, None, sprite, alpha, corners, outline, max(1, round(length * 0.02)))
        dominoes.append(PrintedDomino(corners, halves))
    thickness = float(rng.uniform(18, 45))
    side = tuple(float(c) * 0.75 for c in ground)
    return PrintSheet(
        PrintKind.LID,
        half_length,
        half_width,
        thickness,
        img,
        np.ones((h, w), np.float32),
        side,
        dominoes,
    )


def sheet_points(face_corners: np.ndarray, sprite_shape: tuple[int, ...], pts: np.ndarray):
    """(N, 3) table points of sheet pixels `pts` (N, 2) on a box whose top face has
    `face_corners` (4, 3), drawn with a sprite of `sprite_shape` as `render._draw_box` does."""
    sh, sw = sprite_shape[:2]
    fx = (np.asarray(pts, np.float64)[:, 0] + 0.5) / sw
    fy = (np.asarray(pts, np.float64)[:, 1] + 0.5) / sh
    c0, c1, c3 = face_corners[0], face_corners[1], face_corners[3]
    return c0 + fx[:, None] * (c1 - c0) + fy[:, None] * (c3 - c0)
