"""What is not a tile: objects lying on the table and marks over the picture.

The detector and the verifier (models/verifier.md) must learn that a box of pips is not
enough: a printed domino is flat (no thickness, no side faces), a board's grid and a box's
lettering have straight dark lines like a divider, a die or a chip has pips or dots. Every
object here is a flat-topped box with a sprite on its top face (the renderer draws it like a
tile, with its sides and shadow) and never gets a label.

Sprites are float32 BGR 0..255 with an alpha plane 0..1; sizes are millimetres on the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import cv2
import numpy as np


class Distractor(StrEnum):
    """The kinds of object (the names of `SynthConfig.distractor_weights`)."""

    DIE = "die"
    CARD = "card"  # a playing card
    COIN = "coin"
    PAD = "pad"  # a score pad with handwriting
    PICTURE = "picture"  # a printed or drawn domino on a sheet of paper
    PRINTED_BOARD = "printed_board"  # a game board with printed dominoes and a track
    GRID = "grid"  # a board-game grid (chess, go, squared paper)
    LETTERING = "lettering"  # a box lid or leaflet with letters and digits
    CHIP = "chip"  # a poker chip
    PEN = "pen"
    PHONE = "phone"
    MARKER = "marker"  # a fiducial marker (ArUco, AprilTag) on a card, as camera rigs use


@dataclass
class PrintedDomino:
    """One printed domino on an object's sprite: its corners in sprite pixels (the tile
    order of `vision/geometry.py`: the first two close the end of the first half) and its
    values (None: a line drawing whose dots are not a tile's values)."""

    corners: np.ndarray  # (4, 2) x, y
    halves: tuple[int, int] | None


@dataclass
class FlatObject:
    """An object's top face and size: the renderer turns it into a box."""

    half_length: float  # mm, along the sprite's height
    half_width: float  # mm, along the sprite's width
    thickness: float  # mm
    sprite: np.ndarray
    alpha: np.ndarray
    side: tuple[float, float, float]  # colour of its sides
    printed: list[PrintedDomino] = field(default_factory=list)  # dominoes printed on it


# Draws one face sprite of a tile for a printed picture: (halves) -> (sprite, alpha).
FaceSprite = Callable[[tuple[int, int]], tuple[np.ndarray, np.ndarray]]

_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def random_text(rng: np.random.Generator, lo: int = 2, hi: int = 9) -> str:
    """A random word of capitals and digits (printed words, scores, watermarks)."""
    return "".join(rng.choice(list(_LETTERS), int(rng.integers(lo, hi + 1))))


def _put_text(img: np.ndarray, text: str, org, font: int, size: float, colour, thick: int):
    """cv2.putText on a float picture (OpenCV draws text on 8-bit pictures only)."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(mask, text, org, font, size, 255, thick, cv2.LINE_AA)
    a = (mask.astype(np.float32) / 255)[..., None]
    img[:] = img * (1 - a) + np.asarray(colour, np.float32) * a


def _flat(h: int, w: int, colour) -> tuple[np.ndarray, np.ndarray]:
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    return img, np.ones((h, w), np.float32)


def _ink(rng: np.random.Generator) -> tuple[float, float, float]:
    return tuple(float(c) for c in rng.choice([(20, 20, 20), (30, 30, 190), (150, 60, 20)]))


def _box(x: float, y: float, w: float) -> np.ndarray:
    """The corners (tile order) of an upright domino `w` px wide with its top left at (x, y)."""
    return np.array([[x, y], [x + w, y], [x + w, y + 2 * w], [x, y + 2 * w]], np.float64)


def _paste_face(
    img: np.ndarray, face: np.ndarray, alpha: np.ndarray, x: int, y: int, w: int
) -> np.ndarray | None:
    """Print a tile face sprite `w` px wide at (x, y) on `img` (flat: no sides, no shadow);
    returns its corners (None when it does not fit)."""
    h = 2 * w
    if w < 4 or x < 0 or y < 0 or x + w > img.shape[1] or y + h > img.shape[0]:
        return None
    small = cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA)
    a = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_AREA)[..., None]
    roi = img[y : y + h, x : x + w]
    roi[:] = roi * (1 - a) + small * a * 0.92
    return _box(x, y, w)


def _printed(corners: np.ndarray | None, halves, out: list[PrintedDomino]) -> None:
    if corners is not None:
        out.append(PrintedDomino(corners, halves))


def _drawn_domino(img: np.ndarray, rng, x: int, y: int, w: int, max_pip: int) -> np.ndarray:
    """A domino drawn as a line picture: outline, divider and dots (no sprite); returns its
    corners."""
    ink = _ink(rng)
    h = 2 * w
    cv2.rectangle(img, (x, y), (x + w, y + h), ink, max(1, w // 20), cv2.LINE_AA)
    cv2.line(img, (x + w // 8, y + w), (x + w - w // 8, y + w), ink, max(1, w // 24))
    for half in range(2):
        n = int(rng.integers(0, min(max_pip, 9) + 1))
        for _ in range(n):
            px = x + int(rng.uniform(0.2, 0.8) * w)
            py = y + half * w + int(rng.uniform(0.2, 0.8) * w)
            cv2.circle(img, (px, py), max(1, w // 10), ink, -1, cv2.LINE_AA)
    return _box(x, y, w)


def _die(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    size = tile_length * rng.uniform(0.3, 0.45)
    img, alp = _flat(
        128, 128, rng.choice([(235, 235, 235), (40, 40, 200), (30, 30, 30), (220, 220, 240)])
    )
    pip_colour = (20, 20, 20) if img[0, 0].sum() > 400 else (240, 240, 240)
    pips = {
        1: [(64, 64)],
        2: [(32, 32), (96, 96)],
        3: [(32, 32), (64, 64), (96, 96)],
        4: [(32, 32), (96, 32), (32, 96), (96, 96)],
        5: [(32, 32), (96, 32), (32, 96), (96, 96), (64, 64)],
        6: [(32, 28), (32, 64), (32, 100), (96, 28), (96, 64), (96, 100)],
    }[int(rng.integers(1, 7))]
    for p in pips:
        cv2.circle(img, p, 11, pip_colour, -1, cv2.LINE_AA)
    side = tuple(float(c) * 0.75 for c in img[0, 0])
    return FlatObject(size / 2, size / 2, size, img, alp, side)


def _card(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    img, alp = _flat(256, 180, (245, 245, 245))
    colour = (30, 30, 200) if rng.random() < 0.5 else (20, 20, 20)
    cv2.rectangle(img, (14, 14), (165, 241), colour, 2)
    for k in range(int(rng.integers(1, 9))):
        cv2.circle(img, (60 + 60 * (k % 2), 50 + 40 * (k // 2)), 12, colour, -1, cv2.LINE_AA)
    rank = str(rng.choice(list("A23456789JQK")))
    _put_text(img, rank, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1, colour, 2)
    return FlatObject(44.0, 31.5, 0.4, img, alp, (200, 200, 200))


def _coin(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    radius = float(rng.uniform(9, 14))
    metal = tuple(float(c) for c in rng.choice([(60, 140, 190), (170, 170, 170), (40, 90, 150)]))
    img = np.zeros((128, 128, 3), np.float32)
    alp = np.zeros((128, 128), np.float32)
    cv2.circle(alp, (64, 64), 63, 1.0, -1, cv2.LINE_AA)
    cv2.circle(img, (64, 64), 63, metal, -1, cv2.LINE_AA)
    cv2.circle(img, (64, 64), 52, tuple(c * 0.8 for c in metal), 2, cv2.LINE_AA)
    cv2.circle(img, (52, 52), 18, tuple(min(255, c * 1.3) for c in metal), -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 2)
    return FlatObject(radius, radius, 1.8, img, alp, tuple(c * 0.7 for c in metal))


def _pad(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    img, alp = _flat(256, 180, (230, 245, 250))
    for y in range(30, 256, 14):
        cv2.line(img, (0, y), (180, y), (200, 170, 150), 1)
    for y in range(44, 230, 14):
        if rng.random() < 0.7:
            x = int(rng.integers(10, 60))
            pts = np.array(
                [[x + 6 * k, y - 2 - int(rng.integers(0, 7))] for k in range(rng.integers(3, 18))],
                np.int32,
            )
            cv2.polylines(img, [pts], False, (120, 40, 20), 1, cv2.LINE_AA)
    half_length, half_width = float(rng.uniform(50, 75)), float(rng.uniform(35, 50))
    return FlatObject(half_length, half_width, 3.0, img, alp, (210, 220, 225))


def _picture(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """One to three printed (or drawn) dominoes on paper, about tile size: flat, no sides."""
    img, alp = _flat(256, 200, tuple(float(c) for c in rng.uniform(215, 250, 3)))
    count = int(rng.integers(1, 4))
    w = int(rng.uniform(0.22, 0.4) * 200 if count > 1 else rng.uniform(0.3, 0.55) * 200)
    printed: list[PrintedDomino] = []
    for k in range(count):
        x = int(10 + k * (w + 6))
        y = int(rng.uniform(5, max(6, 250 - 2 * w)))
        if rng.random() < 0.7:
            halves = (int(rng.integers(0, max_pip + 1)), int(rng.integers(0, max_pip + 1)))
            _printed(_paste_face(img, *face(halves), x, y, w), halves, printed)
        else:
            _printed(_drawn_domino(img, rng, x, y, w, max_pip), None, printed)
    if rng.random() < 0.5:
        cv2.rectangle(img, (0, 0), (199, 255), (200, 200, 200), 3)
    scale = tile_length * rng.uniform(0.6, 1.6)
    return FlatObject(scale, scale * 200 / 256, 0.2, img, alp, (220, 220, 220), printed)


def _printed_board(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """A game board: a square grid, a printed domino track around it, printed tiles."""
    side = 384
    img, alp = _flat(side, side, tuple(float(c) for c in rng.uniform(120, 240, 3)))
    ink = _ink(rng)
    cells = int(rng.integers(6, 16))
    step = side / cells
    for k in range(cells + 1):
        p = round(k * step)
        cv2.line(img, (p, 0), (p, side - 1), ink, 1, cv2.LINE_AA)
        cv2.line(img, (0, p), (side - 1, p), ink, 1, cv2.LINE_AA)
    w = int(rng.uniform(14, 30))
    printed: list[PrintedDomino] = []
    for x in range(4, side - w, w + 3):  # the track: printed tiles end to end on two sides
        halves = (int(rng.integers(0, max_pip + 1)), int(rng.integers(0, max_pip + 1)))
        _printed(_paste_face(img, *face(halves), x, 2, w), halves, printed)
        if rng.random() < 0.5:
            turned = halves[::-1]
            _printed(_paste_face(img, *face(turned), x, side - 2 * w - 2, w), turned, printed)
    for _ in range(int(rng.integers(0, 4))):
        x, y = int(rng.uniform(40, side - 80)), int(rng.uniform(40, side - 120))
        drawn = _drawn_domino(img, rng, x, y, int(rng.uniform(18, 36)), max_pip)
        _printed(drawn, None, printed)
    half = tile_length * rng.uniform(2.0, 5.0)
    return FlatObject(half, half, 1.5, img, alp, tuple(c * 0.6 for c in img[0, 0]), printed)


def _grid(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """A board-game grid: a chessboard, a go board or squared paper."""
    side = 384
    style = int(rng.integers(3))
    if style == 0:  # chessboard
        light = rng.uniform(170, 240, 3)
        dark = light * rng.uniform(0.25, 0.6)
        n = 8
        yy, xx = np.mgrid[0:side, 0:side] * n // side
        img = np.where(((xx + yy) % 2 == 0)[..., None], light, dark).astype(np.float32)
        alp = np.ones((side, side), np.float32)
    else:  # go board or squared paper: lines on a plain ground
        ground = (90, 170, 215) if style == 1 else (240, 240, 240)
        img, alp = _flat(side, side, ground)
        n = int(rng.integers(9, 20)) if style == 1 else int(rng.integers(15, 40))
        ink = (20, 20, 20) if style == 1 else (200, 150, 110)
        for k in range(n + 1):
            p = round(k * (side - 1) / n)
            cv2.line(img, (p, 0), (p, side - 1), ink, 1 + (style == 1), cv2.LINE_AA)
            cv2.line(img, (0, p), (side - 1, p), ink, 1 + (style == 1), cv2.LINE_AA)
        if style == 1:
            for _ in range(int(rng.integers(0, 12))):
                gx, gy = rng.integers(1, n, 2) * (side - 1) // n
                stone = (20, 20, 20) if rng.random() < 0.5 else (235, 235, 235)
                cv2.circle(img, (int(gx), int(gy)), side // n // 2 - 1, stone, -1, cv2.LINE_AA)
    half = tile_length * rng.uniform(1.5, 5.0)
    return FlatObject(half, half, 1.5, img, alp, tuple(float(c) * 0.6 for c in img[0, 0]))


def _lettering(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """A box lid or a leaflet: words and digits in big print, sometimes a printed domino."""
    img, alp = _flat(256, 384, tuple(float(c) for c in rng.uniform(30, 250, 3)))
    ink = tuple(255.0 - c for c in img[0, 0]) if rng.random() < 0.5 else _ink(rng)
    y = 10
    while y < 240:
        size = float(rng.uniform(0.8, 3.0))
        font = _FONTS[int(rng.integers(len(_FONTS)))]
        y += int(size * 28)
        _put_text(img, random_text(rng), (int(rng.integers(2, 60)), y), font, size, ink, 2)
    printed: list[PrintedDomino] = []
    if rng.random() < 0.4:
        halves = (int(rng.integers(0, max_pip + 1)), int(rng.integers(0, max_pip + 1)))
        corners = _paste_face(img, *face(halves), 300, 40, int(rng.uniform(30, 40)))
        _printed(corners, halves, printed)
    half = tile_length * rng.uniform(1.2, 3.5)
    thickness = float(rng.choice([0.2, 3.0, 20.0]))  # a leaflet, a card box, a box lid
    side = tuple(c * 0.7 for c in ink)
    return FlatObject(half * 256 / 384, half, thickness, img, alp, side, printed)


def _chip(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """A poker chip: a coloured disc with white edge marks and a ring."""
    colour = tuple(
        float(c) for c in rng.choice([(40, 40, 200), (200, 60, 30), (30, 150, 30), (30, 30, 30)])
    )
    img = np.zeros((128, 128, 3), np.float32)
    alp = np.zeros((128, 128), np.float32)
    cv2.circle(alp, (64, 64), 63, 1.0, -1, cv2.LINE_AA)
    cv2.circle(img, (64, 64), 63, colour, -1, cv2.LINE_AA)
    for k in range(int(rng.choice([4, 6, 8]))):
        a = 2 * math.pi * k / 8
        p = (int(64 + 54 * math.cos(a)), int(64 + 54 * math.sin(a)))
        cv2.circle(img, p, 7, (235, 235, 235), -1, cv2.LINE_AA)
    cv2.circle(img, (64, 64), 36, (235, 235, 235), 2, cv2.LINE_AA)
    radius = float(rng.uniform(18, 21))
    return FlatObject(radius, radius, 3.3, img, alp, tuple(c * 0.8 for c in colour))


def _pen(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    colour = tuple(float(c) for c in rng.uniform(10, 230, 3))
    img, alp = _flat(256, 16, colour)
    img[:, 6:9] = np.clip(np.array(colour) * 1.4 + 30, 0, 255)  # a highlight along it
    img[:24] = (200, 200, 200)  # the clip end
    img[-20:] = (60, 60, 60)  # the tip
    return FlatObject(float(rng.uniform(60, 75)), float(rng.uniform(3.5, 5)), 8.0, img, alp, colour)


def _phone(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """A phone lying face up: a dark glossy screen, or a lit one showing app icons."""
    body = tuple(float(c) for c in rng.choice([(20, 20, 20), (200, 200, 205), (60, 50, 120)]))
    img, alp = _flat(320, 152, body)
    screen = img[10:310, 6:146]
    if rng.random() < 0.5:
        screen[:] = rng.uniform(5, 35)
        grad = np.linspace(0, rng.uniform(20, 80), screen.shape[1], dtype=np.float32)
        screen += grad[None, :, None]  # the reflection of the room
    else:
        screen[:] = rng.uniform(120, 250, 3)
        for r in range(5):
            for c in range(4):
                icon = tuple(float(v) for v in rng.uniform(20, 250, 3))
                y, x = 30 + r * 52, 10 + c * 33
                cv2.rectangle(screen, (x, y), (x + 24, y + 24), icon, -1, cv2.LINE_AA)
    cv2.circle(img, (76, 5), 2, (10, 10, 10), -1)
    half_length = float(rng.uniform(70, 80))
    return FlatObject(half_length, half_length * 152 / 320, 8.0, img, alp, body)


# The dictionaries a rig's markers come from; each draws black and white squares in a black
# frame, the pattern of dark blocks on white that looks most like pips and a divider.
_MARKER_DICTIONARIES = (
    cv2.aruco.DICT_4X4_50,
    cv2.aruco.DICT_5X5_100,
    cv2.aruco.DICT_6X6_250,
    cv2.aruco.DICT_APRILTAG_36h11,
)


def _marker(rng, tile_length: float, face: FaceSprite, max_pip: int) -> FlatObject:
    """A fiducial marker printed on a card, sometimes with the corner brackets a rig draws
    around its working area, sometimes two markers on one sheet."""
    side = 384
    img, alp = _flat(side, side, tuple(float(c) for c in rng.uniform(215, 250, 3)))
    dictionary = cv2.aruco.getPredefinedDictionary(
        int(_MARKER_DICTIONARIES[int(rng.integers(len(_MARKER_DICTIONARIES)))])
    )
    count = 1 if rng.random() < 0.7 else 2
    size = int(side * (0.7 if count == 1 else 0.42))
    for k in range(count):
        code = cv2.aruco.generateImageMarker(dictionary, int(rng.integers(0, 50)), size)
        ink = float(rng.uniform(0, 50))
        patch = np.where(code[..., None] > 127, img[0, 0], ink).astype(np.float32)
        x = (side - size) // 2 if count == 1 else 16 + k * (side - size - 32)
        y = (side - size) // 2 if count == 1 else int(rng.integers(16, side - size - 16))
        img[y : y + size, x : x + size] = patch
    if rng.random() < 0.5:  # corner brackets around the marker
        arm, m = side // 8, side // 24
        for cx, cy, dx, dy in ((m, m, 1, 1), (side - m, m, -1, 1), (m, side - m, 1, -1),
                               (side - m, side - m, -1, -1)):  # fmt: skip
            cv2.line(img, (cx, cy), (cx + dx * arm, cy), (15, 15, 15), 6)
            cv2.line(img, (cx, cy), (cx, cy + dy * arm), (15, 15, 15), 6)
    half = tile_length * rng.uniform(1.0, 3.0)
    thickness = float(rng.choice([0.2, 1.5]))  # printed paper, a card or foam board
    return FlatObject(half, half, thickness, img, alp, (200.0, 200.0, 200.0))


_MAKERS: dict[Distractor, Callable[..., FlatObject]] = {
    Distractor.DIE: _die,
    Distractor.CARD: _card,
    Distractor.COIN: _coin,
    Distractor.PAD: _pad,
    Distractor.PICTURE: _picture,
    Distractor.PRINTED_BOARD: _printed_board,
    Distractor.GRID: _grid,
    Distractor.LETTERING: _lettering,
    Distractor.CHIP: _chip,
    Distractor.PEN: _pen,
    Distractor.PHONE: _phone,
    Distractor.MARKER: _marker,
}


def make_object(
    kind: Distractor, rng: np.random.Generator, tile_length: float, face: FaceSprite, max_pip: int
) -> FlatObject:
    """One object of `kind` for a set whose tiles are `tile_length` mm long; `face` draws the
    set's face sprites for printed dominoes."""
    return _MAKERS[kind](rng, tile_length, face, max_pip)


# --------------------------------------------------------------------------------------------
# Marks over the picture (image space, after the table is drawn, before camera effects).
# --------------------------------------------------------------------------------------------


def draw_watermark(img: np.ndarray, rng: np.random.Generator) -> None:
    """Letters printed over the picture, half transparent, as a stock photo's watermark."""
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.uint8)
    size = float(rng.uniform(1.5, 5.0)) * min(h, w) / 720
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    for _ in range(int(rng.integers(1, 6))):
        org = (int(rng.uniform(0, 0.7) * w), int(rng.uniform(0.1, 1.0) * h))
        cv2.putText(layer, random_text(rng, 3, 10), org, font, size, 255, max(2, int(size * 2)))
    if rng.random() < 0.5:
        centre = (w / 2, h / 2)
        rot = cv2.getRotationMatrix2D(centre, float(rng.uniform(-40, 40)), 1.0)
        layer = cv2.warpAffine(layer, rot, (w, h))
    colour = np.float32(255.0 if rng.random() < 0.6 else 0.0)
    a = (layer.astype(np.float32) / 255 * float(rng.uniform(0.2, 0.55)))[..., None]
    img[:] = img * (1 - a) + colour * a


def draw_border_patch(img: np.ndarray, rng: np.random.Generator) -> None:
    """A dark patch at the picture's border (a fold of dark cloth, a shadow, a lens hood):
    about the size of a tile, but not a tile's back."""
    h, w = img.shape[:2]
    side = int(rng.integers(4))
    t = float(rng.uniform(0.1, 0.9))
    centre = [(t * w, 0), (t * w, h - 1), (0, t * h), (w - 1, t * h)][side]
    axes = (
        int(rng.uniform(0.04, 0.25) * min(h, w)),
        int(rng.uniform(0.03, 0.15) * min(h, w)),
    )
    mask = np.zeros((h, w), np.float32)
    cv2.ellipse(
        mask,
        (int(centre[0]), int(centre[1])),
        axes,
        float(rng.uniform(0, 180)),
        0,
        360,
        1.0,
        -1,
        cv2.LINE_AA,
    )
    mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(1, 8)))
    colour = rng.uniform(5, 45, 3).astype(np.float32)
    img[:] = img * (1 - mask[..., None]) + colour * mask[..., None]
