"""One synthetic picture: a 3-D scene of boxes (tiles, dice, cards...) on a table plane,
seen by a pinhole camera, drawn with OpenCV, with exact labels.

Coordinates: the table is the plane z = 0 in millimetres (x right, y down, z up towards the
camera). Image points are pixels, x right, y down, pixel centres at integers (OpenCV).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import cv2
import numpy as np

from dominocam.rules.tiles import Tile, full_set
from dominosynth import backgrounds, distractors, printed, sprites
from dominosynth.config import WEIGHT_CHOICES, SynthConfig
from dominosynth.distractors import Distractor
from dominosynth.placement import Occupancy, Pose, TablePlacer, overlap, rect_corners
from dominosynth.play import VARIANTS, PlayedLayout, simulate

ID_SIDE = 100000  # id-map offset for the sides of a box (not its face)


@dataclass(frozen=True)
class Camera:
    """Pinhole camera: intrinsics K (3, 3), rotation R (3, 3, rows = camera axes in table
    coordinates), centre C (3,) in mm; image size in pixels."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray
    width: int
    height: int

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) table points in mm -> (N, 2) image pixels."""
        p = (np.asarray(pts, np.float64) - self.C) @ self.R.T
        uv = p @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def depth(self, pts: np.ndarray) -> np.ndarray:
        return ((np.asarray(pts, np.float64) - self.C) @ self.R.T)[:, 2]

    def homography(self) -> np.ndarray:
        """Table plane (x, y, 1) in mm -> image pixels (homogeneous)."""
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], -self.R @ self.C])

    def table_region(self, margin_px: float = 0.0) -> np.ndarray:
        """(4, 2) table points (mm) seen at the image corners, inset by `margin_px`."""
        m = margin_px
        img = np.array(
            [
                [m, m, 1],
                [self.width - m, m, 1],
                [self.width - m, self.height - m, 1],
                [m, self.height - m, 1],
            ]
        )
        t = img @ np.linalg.inv(self.homography()).T
        return t[:, :2] / t[:, 2:3]


def make_camera(
    width: int,
    height: int,
    target: np.ndarray,
    px_per_mm: float,
    focal: float,
    tilt_deg: float,
    yaw_deg: float,
) -> Camera:
    """A camera looking at `target` (mm, on the table) so that it is seen at `px_per_mm`."""
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    r0 = np.diag([1.0, 1.0, -1.0])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(-t), -math.sin(-t)], [0, math.sin(-t), math.cos(-t)]])
    R = rx @ r0 @ rz
    dist = focal / px_per_mm
    C = np.asarray([target[0], target[1], 0.0]) - dist * R[2]
    K = np.array([[focal, 0, width / 2 - 0.5], [0, focal, height / 2 - 0.5], [0, 0, 1]])
    return Camera(K, R, C, width, height)


@dataclass
class RenderBox:
    """A box whose top face carries a sprite. Centre of the top face `centre` (3,), unit axes
    u (along the sprite's height), v (along its width), n (face normal); half sizes and
    thickness in mm. `tile` is the index into `Scene.tiles`, -1 for other objects."""

    centre: np.ndarray
    u: np.ndarray
    v: np.ndarray
    n: np.ndarray
    hl: float
    hw: float
    thickness: float
    sprite: np.ndarray
    alpha: np.ndarray
    side: tuple[float, float, float]
    tile: int = -1
    opacity: float = 1.0
    on_table: bool = True
    chamfer: float = 0.0
    kind: Distractor | printed.PrintKind | None = None  # what an object that is not a tile is
    # Printed dominoes on its top face (`dominosynth.printed`), in sprite pixels.
    printed: list[distractors.PrintedDomino] = field(default_factory=list)
    under: bool = False  # lies under the tiles (a game board): drawn before every other box

    def face_corners(self) -> np.ndarray:
        """(4, 3) corners of the top face in the vision/geometry.py order."""
        c, u, v = self.centre, self.u * self.hl, self.v * self.hw
        return np.array([c - u - v, c - u + v, c + u + v, c + u - v])


@dataclass
class RenderedTile:
    """Ground truth of one tile (before projection)."""

    face: str  # up / down
    tile: Tile
    halves: tuple[int, int]
    role: str  # layout, loose, boneyard, hand
    uid: int = -1  # index in the layout, -1 when not played


@dataclass
class RenderedScene:
    camera: Camera
    kind: str
    variant: str | None
    max_pip: int
    boxes: list[RenderBox]
    tiles: list[RenderedTile]
    layout: PlayedLayout | None
    background: np.ndarray
    light: np.ndarray  # horizontal shadow offset per mm of height (2,)
    arm: bool = False
    extras: dict = field(default_factory=dict)


def _loguniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _choose(rng: np.random.Generator, cfg: SynthConfig, name: str) -> str:
    """One name of `WEIGHT_CHOICES[name]`, drawn by the config's weights."""
    w = np.asarray(cfg.weight_list(name), np.float64)
    return WEIGHT_CHOICES[name][int(rng.choice(len(w), p=w / w.sum()))]


class HandArrangement(StrEnum):
    """How a hand picture's tiles lie (`SynthConfig.hand_arrangement_weights` names the first
    three; a close-up is drawn by `closeup_p`)."""

    ROW = "row"  # rows on the table
    CLUSTER = "cluster"  # a heap on the table
    RACK = "rack"  # standing in a rack, faces to the camera
    CLOSEUP = "closeup"  # one tile filling the frame


class _SpriteCache:
    def __init__(self, style: sprites.TileStyle, rng: np.random.Generator) -> None:
        self.style, self.rng, self.cache = style, rng, {}

    def face(self, halves: tuple[int, int]):
        if halves not in self.cache:
            self.cache[halves] = sprites.face_sprite(halves, self.style, self.rng)
        return self.cache[halves]

    def back(self):
        if "back" not in self.cache:
            self.cache["back"] = sprites.back_sprite(self.style, self.rng)
        return self.cache["back"]


@dataclass(frozen=True)
class TileSize:
    """The set's tiles in mm: length, width (half the length) and thickness."""

    length: float
    width: float
    thickness: float


@dataclass(frozen=True)
class View:
    """How the picture is taken (sampled before anything is placed)."""

    tile_px: float  # tile length in output pixels
    tilt: float  # degrees from straight down
    yaw: float  # degrees
    focal: float  # pixels
    px_per_mm: float
    arrangement: HandArrangement | None  # None for a table picture
    closeup_horizontal: bool = True  # a close-up tile lies along the picture's width


class _Builder:
    """Places tiles and objects into one scene; holds what every placement shares."""

    def __init__(self, rng, cfg, size: TileSize, style, sprite_cache, cam, region) -> None:
        self.rng, self.cfg, self.size, self.style, self.sprites = (
            rng,
            cfg,
            size,
            style,
            sprite_cache,
        )
        self.cam = cam
        self.region = region
        self.occ = Occupancy(region)
        self.boxes: list[RenderBox] = []
        self.tiles: list[RenderedTile] = []
        # A typical distance across the visible table, mm (spreads of random placement).
        self.span = float(np.ptp(region[:, 0]) + np.ptp(region[:, 1])) / 4

    def flat_tile(self, pose: Pose, tile: RenderedTile, base: float = 0.0) -> None:
        """A tile lying on the table (or on another tile, `base` mm up) at `pose`."""
        size = self.size
        u = np.array([math.cos(pose.angle), math.sin(pose.angle), 0.0])
        v = np.array([u[1], -u[0], 0.0])
        sprite, alpha = self.sprites.face(tile.halves) if tile.face == "up" else self.sprites.back()
        self.tiles.append(tile)
        self.boxes.append(
            RenderBox(
                centre=np.array([pose.cx, pose.cy, base + size.thickness]),
                u=u,
                v=v,
                n=np.array([0, 0, 1.0]),
                hl=size.length / 2,
                hw=size.width / 2,
                thickness=size.thickness,
                sprite=sprite,
                alpha=alpha,
                side=self.style.side,
                tile=len(self.tiles) - 1,
                opacity=0.88 if self.style.translucent else 1.0,
                on_table=True,
                chamfer=self.style.corner_radius * size.width,
            )
        )

    def free_pose(self, centre: np.ndarray, spread: float, tries: int = 30) -> Pose | None:
        """A random pose near `centre` where a tile overlaps nothing placed yet."""
        for _ in range(tries):
            p = centre + self.rng.normal(0, spread, 2)
            pose = Pose(float(p[0]), float(p[1]), float(self.rng.uniform(-math.pi, math.pi)))
            poly = pose.corners(self.size.length, shrink=0.5)
            if self.occ.free(poly):
                self.occ.add(poly)
                return pose
        return None


def _sample_view(
    rng: np.random.Generator, cfg: SynthConfig, width: int, height: int, kind: str, size: TileSize
) -> View:
    tile_px = _loguniform(
        rng, *(cfg.tile_px_log_table if kind == "table" else cfg.tile_px_log_hand)
    )
    tilt = 0.0 if rng.random() < cfg.flat_view_p else float(rng.uniform(*cfg.tilt_deg))
    arrangement = (
        HandArrangement(_choose(rng, cfg, "hand_arrangement_weights")) if kind == "hand" else None
    )
    # (p > 0 is tested first so that configs without close-ups draw the same numbers as before)
    closeup = kind == "hand" and cfg.closeup_p > 0 and rng.random() < cfg.closeup_p
    horizontal = True
    if closeup:
        arrangement = HandArrangement.CLOSEUP
        along_long_side = rng.random() < 0.8
        tile_px = float(rng.uniform(*cfg.closeup_fill)) * (
            max(width, height) if along_long_side else min(width, height)
        )
        horizontal = along_long_side == (width >= height)
    if arrangement is HandArrangement.RACK:
        tilt = max(tilt, 18.0)  # a rack is seen from the front, never from straight above
    yaw = (
        float(rng.uniform(-12, 12))
        if arrangement is HandArrangement.RACK
        else float(rng.uniform(*cfg.yaw_deg))
    )
    focal = width * float(rng.uniform(0.8, 1.5))
    px_per_mm = tile_px / size.length
    if closeup:
        # A camera a few tile lengths away: a longer lens, and the scale set on the tile's top
        # face, which at that distance is noticeably nearer than the table.
        focal = width * float(rng.uniform(1.5, 3.5))
        px_per_mm = focal / (focal / px_per_mm + size.thickness)
    return View(tile_px, tilt, yaw, focal, px_per_mm, arrangement, horizontal)


def build_scene(
    rng: np.random.Generator,
    cfg: SynthConfig,
    width: int,
    height: int,
    kind: str,
    max_pip: int,
    photos: list[Path] | None = None,
) -> RenderedScene:
    """Sample a whole scene: camera, layout, tiles, distractors, background.

    With probability `cfg.empty_p` the picture shows no tile at all, only distractors (drawn
    after the camera, so the picture is taken as one with tiles would be).
    """
    length = float(rng.uniform(*cfg.tile_length_mm))
    width_mm = length / 2
    size = TileSize(length, width_mm, width_mm * float(rng.uniform(*cfg.tile_thickness_ratio)))
    style = sprites.random_style(rng, cfg)
    sprite_cache = _SpriteCache(style, rng)
    view = _sample_view(rng, cfg, width, height, kind, size)
    empty = cfg.empty_p > 0 and rng.random() < cfg.empty_p
    cam = make_camera(width, height, np.zeros(2), view.px_per_mm, view.focal, view.tilt, view.yaw)
    deck = full_set(max_pip)
    deck = [deck[i] for i in rng.permutation(len(deck))]
    cut = rng.random() < 0.3  # tiles may lie beyond the border
    region = cam.table_region(margin_px=-0.08 * width if cut else 0.04 * min(width, height))
    builder = _Builder(rng, cfg, size, style, sprite_cache, cam, region)
    # (p > 0 tested first: configs without print draw the same numbers as before it existed)
    if cfg.print_board_p > 0 and rng.random() < cfg.print_board_p:
        _place_print_board(builder, view, max_pip)
    layout, variant = None, None
    if empty:
        pass
    elif kind == "table":
        layout, variant = _place_table(builder, deck, view)
    elif view.arrangement is HandArrangement.CLOSEUP:
        pose, tile = _closeup_tile(
            rng, deck, length, math.radians(-view.yaw), view.closeup_horizontal
        )
        builder.occ.add(pose.corners(length))
        builder.flat_tile(pose, tile)
    else:
        _place_hand(builder, deck, view)
    if cfg.print_lid_p > 0 and rng.random() < cfg.print_lid_p:
        _place_print_lid(builder, view, max_pip)
    count_range = cfg.empty_distractors if empty else cfg.distractors
    _place_distractors(
        builder, int(rng.integers(int(count_range[0]), int(count_range[1]) + 1)), max_pip
    )
    light_dir = rng.uniform(-math.pi, math.pi)
    light = np.array([math.cos(light_dir), math.sin(light_dir)]) * float(
        rng.uniform(*cfg.shadow_offset)
    )
    background = _background(rng, cfg, cam, photos or [])
    return RenderedScene(
        cam,
        kind,
        variant,
        max_pip,
        builder.boxes,
        builder.tiles,
        layout,
        background,
        light,
        arm=bool(rng.random() < cfg.arm_p),
        extras={"style": style, "tile_px": view.tile_px, "tilt": view.tilt, "empty": empty},
    )


def _place_table(
    builder: _Builder, deck: list[Tile], view: View
) -> tuple[PlayedLayout | None, str | None]:
    """A table picture: a played layout (or none: scatter), loose tiles, a boneyard."""
    rng, cfg, size, span = builder.rng, builder.cfg, builder.size, builder.span
    variant_name = _choose(rng, cfg, "variant_weights")
    layout, variant = None, None
    if variant_name in VARIANTS:
        variant = variant_name
        # Mostly square to the picture (people play along the table's edges).
        heading = (
            math.radians(-view.yaw) + rng.integers(4) * math.pi / 2 + rng.normal(0, 0.05)
            if rng.random() < 0.75
            else float(rng.uniform(-math.pi, math.pi))
        )
        centre = rng.normal(0, 0.15, 2) * span
        placer = TablePlacer(
            rng,
            size.length,
            builder.occ,
            (float(centre[0]), float(centre[1])),
            heading,
            cfg.gap_mm,
            cfg.touching_p,
            cfg.skew_deg,
        )
        target = int(rng.integers(int(cfg.layout_tiles[0]), int(cfg.layout_tiles[1]) + 1))
        layout = simulate(
            random.Random(int(rng.integers(2**31))),
            variant,
            deck,
            target,
            placer,
            players=int(rng.integers(2, 7)),
        )
        for uid, played in enumerate(layout.tiles):
            builder.flat_tile(
                placer.poses[uid],
                RenderedTile("up", played.tile, (played.inner, played.outer), "layout", uid),
            )
    scatter = variant_name == "scatter"
    loose = int(rng.integers(int(cfg.loose_tiles[0]), int(cfg.loose_tiles[1]) + 1))
    for _ in range(loose + (6 if scatter else 0)):
        if not deck:
            break
        pose = builder.free_pose(rng.normal(0, 0.3, 2) * span, span * 0.6)
        if pose is None:
            break
        t = deck.pop()
        halves = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
        face = "up" if not scatter or rng.random() < 0.75 else "down"
        builder.flat_tile(pose, RenderedTile(face, t, halves, "loose"))
    _place_boneyard(builder, deck)
    return layout, variant


def _place_boneyard(builder: _Builder, deck: list[Tile]) -> None:
    """Face-down tiles in a heap, some lying on others."""
    rng, cfg, size = builder.rng, builder.cfg, builder.size
    count = int(rng.integers(int(cfg.boneyard_tiles[0]), int(cfg.boneyard_tiles[1]) + 1))
    centre = rng.normal(0, 0.5, 2) * builder.span
    for _ in range(count):
        if not deck:
            break
        t = deck.pop()
        on_table = [
            b
            for b in builder.boxes
            if b.tile >= 0
            and builder.tiles[b.tile].role == "boneyard"
            and b.centre[2] < 1.5 * size.thickness
        ]
        if on_table and rng.random() < cfg.boneyard_stack_p:
            under = on_table[int(rng.integers(len(on_table)))]
            angle = math.atan2(under.u[1], under.u[0]) + rng.normal(0, 0.3)
            p = under.centre[:2] + rng.normal(0, size.width * 0.25, 2)
            builder.flat_tile(
                Pose(float(p[0]), float(p[1]), float(angle)),
                RenderedTile("down", t, (t.low, t.high), "boneyard"),
                base=size.thickness,
            )
            continue
        pose = builder.free_pose(centre, size.length * 1.2)
        if pose is None:
            deck.append(t)
            break
        builder.flat_tile(pose, RenderedTile("down", t, (t.low, t.high), "boneyard"))


def _place_hand(builder: _Builder, deck: list[Tile], view: View) -> None:
    """A player's hand: in rows, in a heap, or standing in a rack."""
    rng, cfg, size = builder.rng, builder.cfg, builder.size
    n = int(rng.integers(int(cfg.hand_tiles[0]), int(cfg.hand_tiles[1]) + 1))
    hand = [deck.pop() for _ in range(min(n, len(deck)))]
    if view.arrangement is HandArrangement.ROW:
        _place_rows(builder, hand, view)
    elif view.arrangement is HandArrangement.CLUSTER:
        for t in hand:
            pose = builder.free_pose(np.zeros(2), size.length * 1.1)
            if pose is None:
                break
            halves = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
            builder.flat_tile(pose, RenderedTile("up", t, halves, "hand"))
    else:
        _rack(builder, hand)


def _place_rows(builder: _Builder, hand: list[Tile], view: View) -> None:
    """Tiles side by side in rows (upright or lying along the row), turned with the camera."""
    rng, size, region = builder.rng, builder.size, builder.region
    upright = rng.random() < 0.7
    pitch = (size.width if upright else size.length) + float(rng.uniform(0, 6))
    per_row = max(1, int(np.ptp(region[:, 0]) * 0.9 // pitch))
    row_gap = (size.length if upright else size.width) + float(rng.uniform(3, 15))
    x0 = -min(len(hand), per_row) * pitch / 2 + pitch / 2
    rot = math.radians(-view.yaw)
    turn = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
    for k, t in enumerate(hand):
        row, col = divmod(k, per_row)
        p = turn @ np.array(
            [x0 + col * pitch, row * row_gap - row_gap * (len(hand) // per_row) / 2]
        )
        angle = (
            (math.pi / 2 if upright else 0.0)
            + math.radians(float(rng.normal(0, 2)))
            + rng.integers(2) * math.pi
        )
        pose = Pose(float(p[0]), float(p[1]), angle + rot)
        poly = pose.corners(size.length, shrink=0.5)
        if not builder.occ.free(poly):
            continue
        builder.occ.add(poly)
        builder.flat_tile(pose, RenderedTile("up", t, (t.low, t.high), "hand"))


def _closeup_tile(
    rng: np.random.Generator, deck: list, length: float, rot: float, horizontal: bool
) -> tuple[Pose, RenderedTile]:
    """One tile near the picture centre, its long side along the picture's width (or height).

    `rot` is the table angle that appears horizontal in the image (minus the camera yaw).
    Mostly face up: a close-up is taken to read a tile.
    """
    t = deck.pop()
    angle = rot + (0.0 if horizontal else math.pi / 2) + math.radians(float(rng.normal(0, 3)))
    angle += float(rng.integers(2)) * math.pi
    centre = rng.normal(0, 0.04 * length, 2)
    face = "up" if rng.random() < 0.85 else "down"
    halves = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
    return Pose(float(centre[0]), float(centre[1]), angle), RenderedTile(face, t, halves, "hand")


def _rack(builder: _Builder, hand: list[Tile]) -> None:
    """Tiles standing in a rack: long axis along the rack, faces leaning back to the camera."""
    rng, cam, size, style = builder.rng, builder.cam, builder.size, builder.style
    toward = cam.C[:2] / (np.linalg.norm(cam.C[:2]) + 1e-9)
    along = np.array([toward[1], -toward[0]])
    lean = math.radians(float(rng.uniform(15, 35)))
    up = np.array([0, 0, 1.0])
    to_camera = np.array([toward[0], toward[1], 0.0])
    normal = math.cos(lean) * to_camera + math.sin(lean) * up
    up_the_face = math.cos(lean) * up - math.sin(lean) * to_camera
    pitch = size.length + float(rng.uniform(0.5, 3))
    rack_height = size.thickness * 1.5
    start = -pitch * (len(hand) - 1) / 2
    for k, t in enumerate(hand):
        base = np.array([*(along * (start + k * pitch)), rack_height])
        centre = base + up_the_face * (size.width / 2)
        u = np.array([along[0], along[1], 0.0])
        halves = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
        if rng.random() < 0.5:
            u = -u
        v = np.cross(normal, u)  # so that the face is not mirrored seen from the front
        sprite, alpha = builder.sprites.face(halves)
        builder.tiles.append(RenderedTile("up", t, halves, "hand"))
        builder.boxes.append(
            RenderBox(
                centre=centre,
                u=u,
                v=-v,
                n=normal,
                hl=size.length / 2,
                hw=size.width / 2,
                thickness=size.thickness,
                sprite=sprite,
                alpha=alpha,
                side=style.side,
                tile=len(builder.tiles) - 1,
                opacity=0.88 if style.translucent else 1.0,
                on_table=False,
                chamfer=style.corner_radius * size.width,
            )
        )
    # The rack itself: a long wooden bar in front of and below the tiles.
    wood = np.empty((64, 512, 3), np.float32)
    wood[:] = rng.uniform(40, 160, 3)
    wood *= 1 + 0.08 * np.sin(np.arange(512) / rng.uniform(3, 9))[None, :, None]
    bar_length = pitch * len(hand) / 2 + size.length * 0.4
    bar_centre = np.array([*(to_camera[:2] * (size.thickness * 1.2)), rack_height])
    builder.boxes.append(
        RenderBox(
            bar_centre,
            np.array([along[0], along[1], 0.0]),
            np.array([to_camera[0], to_camera[1], 0.0]),
            up,
            bar_length,
            size.thickness,
            rack_height,
            cv2.resize(wood, (64, 512)).astype(np.float32),
            np.ones((512, 64), np.float32),
            tuple(float(c) * 0.7 for c in wood[0, 0]),
        )
    )


def _place_distractors(builder: _Builder, count: int, max_pip: int) -> None:
    """`count` objects that are not tiles (`dominosynth.distractors`), each where it overlaps
    nothing placed yet (20 tries, else left out)."""
    rng = builder.rng
    for _ in range(count):
        kind = Distractor(_choose(rng, builder.cfg, "distractor_weights"))
        angle = float(rng.uniform(-math.pi, math.pi))
        obj = distractors.make_object(kind, rng, builder.size.length, builder.sprites.face, max_pip)
        for _ in range(20):
            p = rng.uniform(-1.2, 1.2, 2) * builder.span
            poly = rect_corners(float(p[0]), float(p[1]), angle, obj.half_length, obj.half_width)
            if any(overlap(poly, q) for q in builder.occ.polys):
                continue
            builder.occ.add(poly)
            u = np.array([math.cos(angle), math.sin(angle), 0.0])
            builder.boxes.append(
                RenderBox(
                    np.array([p[0], p[1], obj.thickness]),
                    u,
                    np.array([u[1], -u[0], 0.0]),
                    np.array([0, 0, 1.0]),
                    obj.half_length,
                    obj.half_width,
                    obj.thickness,
                    obj.sprite.astype(np.float32),
                    obj.alpha,
                    obj.side,
                    kind=kind,
                    printed=obj.printed,
                )
            )
            break


def _sheet_box(sheet: printed.PrintSheet, centre: np.ndarray, angle: float) -> RenderBox:
    u = np.array([math.cos(angle), math.sin(angle), 0.0])
    return RenderBox(
        np.array([centre[0], centre[1], sheet.thickness]),
        u,
        np.array([u[1], -u[0], 0.0]),
        np.array([0, 0, 1.0]),
        sheet.half_length,
        sheet.half_width,
        sheet.thickness,
        sheet.sprite,
        sheet.alpha,
        sheet.side,
        kind=sheet.kind,
        printed=sheet.dominoes,
    )


def _place_print_board(builder: _Builder, view: View, max_pip: int) -> None:
    """A game board under the tiles, its border a printed domino track (`printed.board`).
    The printed dominoes are marked as taken, so no tile or object is put over one; the
    rest of the board is free for the tiles."""
    rng, size = builder.rng, builder.size
    side = float(rng.uniform(0.8, 2.2)) * builder.span
    sheet = printed.board(rng, side, size.length, builder.sprites.face, max_pip, view.px_per_mm)
    angle = (
        math.radians(-view.yaw) + rng.integers(4) * math.pi / 2 + rng.normal(0, 0.04)
        if rng.random() < 0.8
        else float(rng.uniform(-math.pi, math.pi))
    )
    centre = rng.normal(0, 0.1, 2) * builder.span
    box = _sheet_box(sheet, centre, float(angle))
    box.under = True
    builder.boxes.append(box)
    for domino in sheet.dominoes:
        pts = printed.sheet_points(box.face_corners(), sheet.sprite.shape, domino.corners)
        builder.occ.add(pts[:, :2])


def _place_print_lid(builder: _Builder, view: View, max_pip: int) -> None:
    """A box beside the tiles whose lid shows printed dominoes (`printed.lid`), where it
    overlaps nothing placed yet (20 tries, else left out)."""
    rng = builder.rng
    sheet = printed.lid(rng, builder.size.length, builder.sprites.face, max_pip, view.px_per_mm)
    angle = float(rng.uniform(-math.pi, math.pi))
    for _ in range(20):
        p = rng.uniform(-1.1, 1.1, 2) * builder.span
        poly = rect_corners(float(p[0]), float(p[1]), angle, sheet.half_length, sheet.half_width)
        if any(overlap(poly, q) for q in builder.occ.polys):
            continue
        builder.occ.add(poly)
        builder.boxes.append(_sheet_box(sheet, p, angle))
        return


def _background(
    rng: np.random.Generator, cfg: SynthConfig, cam: Camera, photos: list[Path]
) -> np.ndarray:
    """The table surface in image space (float32 BGR), warped in perspective."""
    region = cam.table_region(margin_px=-0.05 * cam.width)
    x0, y0 = region.min(axis=0)
    x1, y1 = region.max(axis=0)
    span = max(x1 - x0, y1 - y0)
    size = 768
    mm_per_px = span / size
    tex = None
    if photos and rng.random() < cfg.photo_background_p:
        tex = backgrounds.photo(rng, photos[int(rng.integers(len(photos)))], size, size)
    if tex is None and cfg.sample_photo_p > 0 and rng.random() < cfg.sample_photo_p:
        bundled = backgrounds.sample_photos()
        if bundled:
            tex = backgrounds.photo(rng, bundled[int(rng.integers(len(bundled)))], size, size)
    if tex is None:
        kind = _choose(rng, cfg, "background_weights")
        dark = bool(rng.random() < cfg.dark_background_p)
        tex = backgrounds.texture(rng, kind, size, size, dark, mm_per_px, cfg.white_paper_p)
    A = np.array(
        [[1 / mm_per_px, 0, -x0 / mm_per_px], [0, 1 / mm_per_px, -y0 / mm_per_px], [0, 0, 1]]
    )
    M = cam.homography() @ np.linalg.inv(A)
    return cv2.warpPerspective(
        np.clip(tex, 0, 255).astype(np.float32),
        M,
        (cam.width, cam.height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )


def _chamfered(corners: np.ndarray, u: np.ndarray, v: np.ndarray, r: float) -> np.ndarray:
    """8 points: the rectangle with its corners cut by about r (3-D)."""
    if r <= 0:
        return corners
    signs = [(-1, -1), (-1, 1), (1, 1), (1, -1)]
    out = []
    k = 0.35 * r
    for c, (su, sv) in zip(corners, signs, strict=True):
        out.append(c - su * u * k)
        out.append(c - sv * v * k)
    return np.array(out)


@dataclass
class Rendered:
    """The picture before camera effects and its id map (int32: tile face pixels hold
    `tile index + 1`, sides `ID_SIDE + index + 1`, everything else 0)."""

    image: np.ndarray
    ids: np.ndarray


def render(scene: RenderedScene, rng: np.random.Generator, cfg: SynthConfig) -> Rendered:
    """Draw the scene (background, shadows, boxes far to near, arm) and the id map."""
    cam = scene.camera
    h, w = cam.height, cam.width
    img = scene.background.copy()
    ids = np.zeros((h, w), np.int32)
    # Shadows on the table.
    shadow = np.zeros((h // 2, w // 2), np.float32)
    for b in scene.boxes:
        if not b.on_table:
            continue
        base = b.face_corners() - b.n * b.thickness
        top = base + b.n * b.thickness
        off = np.array([scene.light[0], scene.light[1], 0.0]) * (b.centre[2])
        pts = np.vstack([base, top + off - np.array([0, 0, top[0, 2]])])
        pts[:, 2] = 0
        p2 = cam.project(pts) / 2
        hull = cv2.convexHull(p2.astype(np.float32))
        cv2.fillConvexPoly(shadow, np.round(hull * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    soft = float(rng.uniform(*cfg.shadow_softness_px)) / 2
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.5, soft))
    shadow = cv2.resize(shadow, (w, h), interpolation=cv2.INTER_LINEAR)
    img *= (1 - float(rng.uniform(*cfg.shadow_strength)) * np.clip(shadow, 0, 1))[..., None]
    # Boxes, far to near.
    # (a board under the tiles first: a tile on its far side is farther than its centre)
    order = sorted(
        range(len(scene.boxes)),
        key=lambda k: (
            not scene.boxes[k].under,
            -float(cam.depth(scene.boxes[k].centre[None])[0]),
        ),
    )
    light3 = np.array([-scene.light[0], -scene.light[1], 1.0])
    light3 /= np.linalg.norm(light3)
    for k in order:
        _draw_box(img, ids, cam, scene.boxes[k], light3)
    if scene.arm:
        _draw_arm(img, ids, rng, cfg.sleeve_p)
    # Marks that are not on the table (p > 0 tested first: configs without them draw the
    # same numbers as before they existed).
    if cfg.border_patch_p > 0 and rng.random() < cfg.border_patch_p:
        distractors.draw_border_patch(img, rng)
    if cfg.watermark_p > 0 and rng.random() < cfg.watermark_p:
        distractors.draw_watermark(img, rng)
    return Rendered(img, ids)


def _draw_box(
    img: np.ndarray, ids: np.ndarray, cam: Camera, b: RenderBox, light3: np.ndarray
) -> None:
    h, w = ids.shape
    top = b.face_corners()
    bottom = top - b.n * b.thickness
    pts = np.vstack([_chamfered(top, b.u, b.v, b.chamfer), _chamfered(bottom, b.u, b.v, b.chamfer)])
    p2 = cam.project(pts)
    if (
        p2[:, 0].max() < -2
        or p2[:, 1].max() < -2
        or p2[:, 0].min() > w + 2
        or p2[:, 1].min() > h + 2
    ):
        return
    hull = cv2.convexHull(p2.astype(np.float32)).reshape(-1, 2)
    # Sides: one colour, lit by the light coming from the side facing it.
    to_cam = cam.C - b.centre
    side_dirs = [-b.u, b.u, -b.v, b.v]
    seen = [d for d in side_dirs if d @ to_cam > 0] or [b.n]
    lit = float(np.mean([0.55 + 0.45 * max(0.0, float(d @ light3)) for d in seen]))
    side_col = tuple(float(c) * lit for c in b.side)
    poly = np.round(hull * 16).astype(np.int32)
    x0, y0 = np.floor(hull.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.float32)
    cv2.fillConvexPoly(mask, poly - np.array([x0, y0]) * 16, 1.0, cv2.LINE_AA, 4)
    a = mask[..., None] * b.opacity
    roi[:] = roi * (1 - a) + np.array(side_col, np.float32) * a
    ids[y0:y1, x0:x1][mask > 0.5] = ID_SIDE + b.tile + 1 if b.tile >= 0 else 0
    # Face: the sprite warped onto the projected top corners, from a pyramid level near size.
    f2 = cam.project(top)
    length_px = max(np.linalg.norm(f2[3] - f2[0]), np.linalg.norm(f2[2] - f2[1]), 1.0)
    spr, alp = b.sprite, b.alpha
    while spr.shape[0] > 2.5 * length_px and spr.shape[0] > 16:
        spr, alp = cv2.pyrDown(spr), cv2.pyrDown(alp)
    sh, sw = spr.shape[:2]
    src = np.array(
        [[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5], [-0.5, sh - 0.5]], np.float32
    )
    M = cv2.getPerspectiveTransform(src, (f2 - np.array([x0, y0])).astype(np.float32))
    face = cv2.warpPerspective(
        spr, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    fa = cv2.warpPerspective(
        alp, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    shade = 0.75 + 0.25 * max(0.0, float(b.n @ light3))
    a = fa[..., None] * b.opacity
    roi[:] = roi * (1 - a) + face * shade * a
    sub = ids[y0:y1, x0:x1]
    sub[fa > 0.5] = b.tile + 1 if b.tile >= 0 else 0


def _draw_arm(
    img: np.ndarray, ids: np.ndarray, rng: np.random.Generator, sleeve_p: float = 0.0
) -> None:
    """A player's arm and hand reaching in from a border (covers tiles: ids set to 0); with
    probability `sleeve_p` the arm is in a sleeve up to the wrist."""
    h, w = ids.shape
    side = int(rng.integers(4))
    t = float(rng.uniform(0.2, 0.8))
    start = [(t * w, h + 20), (t * w, -20), (-20, t * h), (w + 20, t * h)][side]
    inward = [(0, -1), (0, 1), (1, 0), (-1, 0)][side]
    ang = math.atan2(inward[1], inward[0]) + rng.normal(0, 0.35)
    d = np.array([math.cos(ang), math.sin(ang)])
    reach = float(rng.uniform(0.25, 0.55)) * min(h, w)
    width = float(rng.uniform(0.09, 0.16)) * min(h, w)
    end = np.array(start) + d * reach
    mask = np.zeros((h, w), np.uint8)
    cv2.line(
        mask, tuple(np.round(start).astype(int)), tuple(np.round(end).astype(int)), 255, int(width)
    )
    cv2.ellipse(
        mask,
        tuple(np.round(end + d * width * 0.5).astype(int)),
        (int(width * 0.75), int(width * 0.55)),
        math.degrees(ang),
        0,
        360,
        255,
        -1,
    )
    nrm = np.array([-d[1], d[0]])
    for k in range(4):
        base = end + d * width * 0.9 + nrm * width * (k - 1.5) * 0.3
        tip = base + d * width * float(rng.uniform(0.45, 0.8))
        cv2.line(
            mask,
            tuple(np.round(base).astype(int)),
            tuple(np.round(tip).astype(int)),
            255,
            max(2, int(width * 0.2)),
        )
    skin = np.array(
        rng.choice([(140, 170, 220), (100, 130, 190), (60, 90, 140), (40, 60, 95)]), np.float32
    )
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 1.2)
    shadow = cv2.GaussianBlur(
        np.roll(soft, (int(width * 0.4), int(width * 0.3)), axis=(0, 1)), (0, 0), width * 0.3
    )
    img *= (1 - 0.45 * shadow * (1 - soft))[..., None]
    dist = cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 3)
    shade = np.clip(0.6 + dist / (width * 0.5), 0.6, 1.1)
    colour = np.broadcast_to(skin, img.shape).astype(np.float32)
    if sleeve_p > 0 and rng.random() < sleeve_p:
        # The sleeve covers the arm from the border to the wrist, a little wider than it.
        sleeve = np.zeros((h, w), np.uint8)
        wrist = np.array(start) + d * reach * float(rng.uniform(0.6, 0.9))
        cv2.line(
            sleeve,
            tuple(np.round(start).astype(int)),
            tuple(np.round(wrist).astype(int)),
            255,
            int(width * 1.25),
        )
        cloth = rng.uniform(15, 230, 3).astype(np.float32)
        colour = np.where((sleeve > 0)[..., None], cloth, colour)
        mask = np.maximum(mask, sleeve)
        soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 1.2)
        dist = cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 3)
        shade = np.clip(0.6 + dist / (width * 0.5), 0.6, 1.1)
    img[:] = img * (1 - soft[..., None]) + (colour * shade[..., None]) * soft[..., None]
    ids[soft > 0.5] = 0


def camera_effects(
    image: np.ndarray, ids: np.ndarray, rng: np.random.Generator, cfg: SynthConfig
) -> np.ndarray:
    """Light, white balance, exposure, glare, blur and sensor noise; returns uint8 BGR."""
    h, w = ids.shape
    img = image
    # Smooth fields (light, vignette, glare) are computed at 1/8 resolution, then resized.
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32) * 8
    ang = rng.uniform(0, 2 * math.pi)
    ramp = ((xx - w / 2) * math.cos(ang) + (yy - h / 2) * math.sin(ang)) / max(h, w)
    g = float(rng.uniform(*cfg.light_gradient))
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    vign = ((xx - cx) ** 2 + (yy - cy) ** 2) / (w * w + h * h)
    light = (1 + g * ramp) * (1 - float(rng.uniform(0, 0.6)) * vign)
    gains = rng.uniform(*cfg.white_balance, 3).astype(np.float32)
    exposure = float(rng.uniform(*cfg.exposure))
    if rng.random() < cfg.auto_exposure_p:
        mean = float(img[::8, ::8].mean()) + 1.0
        exposure = float(np.clip(rng.uniform(*cfg.auto_exposure_target) / mean, 0.6, 3.0))
    if rng.random() < cfg.dim_p:
        exposure *= float(rng.uniform(0.25, 0.55))
    field = cv2.resize(light.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img = img * field[..., None] * (gains * exposure)
    if rng.random() < cfg.glare_p:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        sigma = rng.uniform(0.03, 0.15) * w
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)).astype(np.float32)
        blob = cv2.resize(blob, (w, h), interpolation=cv2.INTER_LINEAR)
        on_face = ((ids > 0) & (ids < ID_SIDE)).astype(np.float32)
        img = img + (float(rng.uniform(60, 160)) * blob * (0.3 + 0.7 * on_face))[..., None]
    if rng.random() < cfg.blur_p:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(*cfg.blur_sigma_px)))
    if rng.random() < cfg.motion_blur_p:
        n = int(rng.uniform(*cfg.motion_blur_px)) | 1
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, rot, (n, n))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    sigma = float(rng.uniform(*cfg.noise_sigma))
    if sigma > 0:
        noise = rng.standard_normal((h, w, 1), dtype=np.float32)
        color = rng.standard_normal((h // 2, w // 2, 3), dtype=np.float32)
        noise = noise * 0.7 + cv2.resize(color, (w, h)) * 0.5
        img = img + noise * (sigma * 0.5) + noise * (sigma / 16.0) * np.sqrt(np.clip(img, 0, 255))
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if cfg.grayscale_p > 0 and rng.random() < cfg.grayscale_p:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return out
