"""One synthetic picture: a 3-D scene of boxes (tiles, dice, cards...) on a table plane,
seen by a pinhole camera, drawn with OpenCV, with exact labels.

Coordinates: the table is the plane z = 0 in millimetres (x right, y down, z up towards the
camera). Image points are pixels, x right, y down, pixel centres at integers (OpenCV).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dominosynth import backgrounds, sprites
from dominosynth.config import SynthConfig
from dominosynth.placement import Occupancy, Pose, TablePlacer, overlap, rect_corners
from dominosynth.play import VARIANTS, Layout, simulate
from rules.tiles import Tile, full_set

ID_SIDE = 100000  # id-map offset for the sides of a box (not its face)
CLOSEUP = 3  # the hand arrangement after row, cluster, rack: one tile filling the frame


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
class Box:
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

    def face_corners(self) -> np.ndarray:
        """(4, 3) corners of the top face in the vision/geometry.py order."""
        c, u, v = self.centre, self.u * self.hl, self.v * self.hw
        return np.array([c - u - v, c - u + v, c + u + v, c + u - v])


@dataclass
class SceneTile:
    """Ground truth of one tile (before projection)."""

    face: str  # up / down
    tile: Tile
    halves: tuple[int, int]
    role: str  # layout, loose, boneyard, hand
    uid: int = -1  # index in the layout, -1 when not played


@dataclass
class Scene:
    camera: Camera
    kind: str
    variant: str | None
    max_pip: int
    boxes: list[Box]
    tiles: list[SceneTile]
    layout: Layout | None
    background: np.ndarray
    light: np.ndarray  # horizontal shadow offset per mm of height (2,)
    arm: bool = False
    extras: dict = field(default_factory=dict)


def _loguniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _weighted(rng: np.random.Generator, weights) -> int:
    w = np.asarray(weights, np.float64)
    return int(rng.choice(len(w), p=w / w.sum()))


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


def build_scene(
    rng: np.random.Generator,
    cfg: SynthConfig,
    width: int,
    height: int,
    kind: str,
    max_pip: int,
    photos: list[Path] | None = None,
) -> Scene:
    """Sample a whole scene: camera, layout, tiles, distractors, background."""
    L = float(rng.uniform(*cfg.tile_length_mm))
    W = L / 2
    T = W * float(rng.uniform(*cfg.tile_thickness_ratio))
    style = sprites.random_style(rng, cfg)
    sc = _SpriteCache(style, rng)
    tile_px = _loguniform(
        rng, *(cfg.tile_px_log_table if kind == "table" else cfg.tile_px_log_hand)
    )
    tilt = 0.0 if rng.random() < cfg.flat_view_p else float(rng.uniform(*cfg.tilt_deg))
    arrangement = _weighted(rng, cfg.hand_arrangement_weights) if kind == "hand" else -1
    # (p > 0 is tested first so that configs without close-ups draw the same numbers as before)
    closeup = kind == "hand" and cfg.closeup_p > 0 and rng.random() < cfg.closeup_p
    if closeup:
        arrangement = CLOSEUP
        along_long_side = rng.random() < 0.8
        tile_px = float(rng.uniform(*cfg.closeup_fill)) * (
            max(width, height) if along_long_side else min(width, height)
        )
        horizontal = along_long_side == (width >= height)
    if arrangement == 2:
        tilt = max(tilt, 18.0)
    yaw = float(rng.uniform(*cfg.yaw_deg)) if arrangement != 2 else float(rng.uniform(-12, 12))
    focal = width * float(rng.uniform(0.8, 1.5))
    px_per_mm = tile_px / L
    if closeup:
        # A camera a few tile lengths away: a longer lens, and the scale set on the tile's top
        # face, which at that distance is noticeably nearer than the table.
        focal = width * float(rng.uniform(1.5, 3.5))
        px_per_mm = focal / (focal / px_per_mm + T)
    cam = make_camera(width, height, np.zeros(2), px_per_mm, focal, tilt, yaw)
    deck = full_set(max_pip)
    deck = [deck[i] for i in rng.permutation(len(deck))]
    boxes: list[Box] = []
    tiles: list[SceneTile] = []
    cut = rng.random() < 0.3
    region = cam.table_region(margin_px=-0.08 * width if cut else 0.04 * min(width, height))
    occ = Occupancy(region)
    layout = None
    variant = None

    def flat_tile(pose: Pose, st: SceneTile, base: float = 0.0) -> None:
        a = pose.angle
        u = np.array([math.cos(a), math.sin(a), 0.0])
        v = np.array([u[1], -u[0], 0.0])
        spr, alp = sc.face(st.halves) if st.face == "up" else sc.back()
        tiles.append(st)
        boxes.append(
            Box(
                np.array([pose.cx, pose.cy, base + T]),
                u,
                v,
                np.array([0, 0, 1.0]),
                L / 2,
                W / 2,
                T,
                spr,
                alp,
                style.side,
                len(tiles) - 1,
                0.88 if style.translucent else 1.0,
                True,
                style.corner_radius * W,
            )
        )

    def random_free_pose(centre: np.ndarray, spread: float, tries: int = 30) -> Pose | None:
        for _ in range(tries):
            p = centre + rng.normal(0, spread, 2)
            pose = Pose(float(p[0]), float(p[1]), float(rng.uniform(-math.pi, math.pi)))
            poly = pose.corners(L, shrink=0.5)
            if occ.free(poly):
                occ.add(poly)
                return pose
        return None

    span = float(np.ptp(region[:, 0]) + np.ptp(region[:, 1])) / 4
    if kind == "table":
        vi = _weighted(rng, cfg.variant_weights)
        if vi < len(VARIANTS):
            variant = VARIANTS[vi]
            heading = (
                math.radians(-yaw) + rng.integers(4) * math.pi / 2 + rng.normal(0, 0.05)
                if rng.random() < 0.75
                else float(rng.uniform(-math.pi, math.pi))
            )
            centre = rng.normal(0, 0.15, 2) * span
            placer = TablePlacer(
                rng,
                L,
                occ,
                (float(centre[0]), float(centre[1])),
                heading,
                cfg.gap_mm,
                cfg.touching_p,
                cfg.skew_deg,
            )
            target = int(rng.integers(int(cfg.layout_tiles[0]), int(cfg.layout_tiles[1]) + 1))
            import random as _random

            layout = simulate(
                _random.Random(int(rng.integers(2**31))),
                variant,
                deck,
                target,
                placer,
                players=int(rng.integers(2, 7)),
            )
            for uid, pt in enumerate(layout.tiles):
                flat_tile(
                    placer.poses[uid], SceneTile("up", pt.tile, (pt.inner, pt.outer), "layout", uid)
                )
        for _ in range(
            int(rng.integers(int(cfg.loose_tiles[0]), int(cfg.loose_tiles[1]) + 1))
            + (6 if vi == 4 else 0)
        ):
            if not deck:
                break
            pose = random_free_pose(rng.normal(0, 0.3, 2) * span, span * 0.6)
            if pose is None:
                break
            t = deck.pop()
            h = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
            tiles_face = "up" if vi != 4 or rng.random() < 0.75 else "down"
            flat_tile(pose, SceneTile(tiles_face, t, h, "loose"))
        n_bone = int(rng.integers(int(cfg.boneyard_tiles[0]), int(cfg.boneyard_tiles[1]) + 1))
        bone_centre = rng.normal(0, 0.5, 2) * span
        for _ in range(n_bone):
            if not deck:
                break
            t = deck.pop()
            stacked = [
                b
                for b in boxes
                if b.tile >= 0 and tiles[b.tile].role == "boneyard" and b.centre[2] < 1.5 * T
            ]
            if stacked and rng.random() < cfg.boneyard_stack_p:
                under = stacked[int(rng.integers(len(stacked)))]
                ang = math.atan2(under.u[1], under.u[0]) + rng.normal(0, 0.3)
                p = under.centre[:2] + rng.normal(0, W * 0.25, 2)
                flat_tile(
                    Pose(float(p[0]), float(p[1]), float(ang)),
                    SceneTile("down", t, (t.low, t.high), "boneyard"),
                    base=T,
                )
                continue
            pose = random_free_pose(bone_centre, L * 1.2)
            if pose is None:
                deck.append(t)
                break
            flat_tile(pose, SceneTile("down", t, (t.low, t.high), "boneyard"))
    elif closeup:
        pose, st = _closeup_tile(rng, deck, L, math.radians(-yaw), horizontal)
        occ.add(pose.corners(L))
        flat_tile(pose, st)
    else:
        n = int(rng.integers(int(cfg.hand_tiles[0]), int(cfg.hand_tiles[1]) + 1))
        hand = [deck.pop() for _ in range(min(n, len(deck)))]
        if arrangement == 0:  # a row on the table
            upright = rng.random() < 0.7
            pitch = (W if upright else L) + float(rng.uniform(0, 6))
            per_row = max(1, int(np.ptp(region[:, 0]) * 0.9 // pitch))
            row_gap = (L if upright else W) + float(rng.uniform(3, 15))
            x0 = -min(len(hand), per_row) * pitch / 2 + pitch / 2
            for k, t in enumerate(hand):
                r, c = divmod(k, per_row)
                p = np.array([x0 + c * pitch, r * row_gap - row_gap * (len(hand) // per_row) / 2])
                ang = (
                    (math.pi / 2 if upright else 0.0)
                    + math.radians(float(rng.normal(0, 2)))
                    + rng.integers(2) * math.pi
                )
                rot = math.radians(-yaw)
                pr = np.array(
                    [
                        p[0] * math.cos(rot) - p[1] * math.sin(rot),
                        p[0] * math.sin(rot) + p[1] * math.cos(rot),
                    ]
                )
                pose = Pose(float(pr[0]), float(pr[1]), ang + rot)
                poly = pose.corners(L, shrink=0.5)
                if not occ.free(poly):
                    continue
                occ.add(poly)
                flat_tile(pose, SceneTile("up", t, (t.low, t.high), "hand"))
        elif arrangement == 1:  # a cluster
            for t in hand:
                pose = random_free_pose(np.zeros(2), L * 1.1)
                if pose is None:
                    break
                h = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
                flat_tile(pose, SceneTile("up", t, h, "hand"))
        else:  # standing in a rack, long edge down, leaning back, facing the camera
            _rack(rng, cam, hand, L, W, T, style, sc, boxes, tiles)
    _distractors(rng, cfg, cam, occ, boxes, sc, style, L, span, max_pip)
    light_dir = rng.uniform(-math.pi, math.pi)
    light = np.array([math.cos(light_dir), math.sin(light_dir)]) * float(
        rng.uniform(*cfg.shadow_offset)
    )
    bg = _background(rng, cfg, cam, photos or [])
    return Scene(
        cam,
        kind,
        variant,
        max_pip,
        boxes,
        tiles,
        layout,
        bg,
        light,
        arm=bool(rng.random() < cfg.arm_p),
        extras={"style": style, "tile_px": tile_px, "tilt": tilt},
    )


def _closeup_tile(
    rng: np.random.Generator, deck: list, L: float, rot: float, horizontal: bool
) -> tuple[Pose, SceneTile]:
    """One tile near the picture centre, its long side along the picture's width (or height).

    `rot` is the table angle that appears horizontal in the image (minus the camera yaw).
    Mostly face up: a close-up is taken to read a tile.
    """
    t = deck.pop()
    ang = rot + (0.0 if horizontal else math.pi / 2) + math.radians(float(rng.normal(0, 3)))
    ang += float(rng.integers(2)) * math.pi
    centre = rng.normal(0, 0.04 * L, 2)
    face = "up" if rng.random() < 0.85 else "down"
    h = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
    return Pose(float(centre[0]), float(centre[1]), ang), SceneTile(face, t, h, "hand")


def _rack(rng, cam, hand, L, W, T, style, sc, boxes, tiles) -> None:
    """Tiles standing in a rack: long axis along the rack, faces leaning back to the camera."""
    toward = cam.C[:2] / (np.linalg.norm(cam.C[:2]) + 1e-9)
    along = np.array([toward[1], -toward[0]])
    lean = math.radians(float(rng.uniform(15, 35)))
    up = np.array([0, 0, 1.0])
    tw = np.array([toward[0], toward[1], 0.0])
    n = math.cos(lean) * tw + math.sin(lean) * up  # face normal
    vdir = math.cos(lean) * up - math.sin(lean) * tw  # up the face
    pitch = L + float(rng.uniform(0.5, 3))
    rack_h = T * 1.5
    start = -pitch * (len(hand) - 1) / 2
    for k, t in enumerate(hand):
        base = np.array([*(along * (start + k * pitch)), rack_h])
        centre = base + vdir * (W / 2) + n * 0.0
        u = np.array([along[0], along[1], 0.0])
        halves = (t.low, t.high) if rng.random() < 0.5 else (t.high, t.low)
        if rng.random() < 0.5:
            u = -u
        v = np.cross(n, u)  # so that the face is not mirrored seen from the front
        spr, alp = sc.face(halves)
        tiles.append(SceneTile("up", t, halves, "hand"))
        boxes.append(
            Box(
                centre,
                u,
                -v,
                n,
                L / 2,
                W / 2,
                T,
                spr,
                alp,
                style.side,
                len(tiles) - 1,
                0.88 if style.translucent else 1.0,
                False,
                style.corner_radius * W,
            )
        )
    # The rack itself: a long wooden bar in front of and below the tiles.
    wood = np.empty((64, 512, 3), np.float32)
    wood[:] = rng.uniform(40, 160, 3)
    wood *= 1 + 0.08 * np.sin(np.arange(512) / rng.uniform(3, 9))[None, :, None]
    length = pitch * len(hand) / 2 + L * 0.4
    bar_c = np.array([*(tw[:2] * (T * 1.2)), rack_h])
    boxes.append(
        Box(
            bar_c,
            np.array([along[0], along[1], 0.0]),
            np.array([tw[0], tw[1], 0.0]),
            up,
            length,
            T * 1.0,
            rack_h,
            cv2.resize(wood, (64, 512)).astype(np.float32),
            np.ones((512, 64), np.float32),
            tuple(float(c) * 0.7 for c in wood[0, 0]),
        )
    )


def _flat_sprite(h: int, w: int, colour) -> tuple[np.ndarray, np.ndarray]:
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    return img, np.ones((h, w), np.float32)


def _distractors(rng, cfg, cam, occ, boxes, sc, style, L, span, max_pip) -> None:
    n = int(rng.integers(int(cfg.distractors[0]), int(cfg.distractors[1]) + 1))
    for _ in range(n):
        kind = rng.choice(["die", "card", "coin", "pad", "picture"])
        ang = float(rng.uniform(-math.pi, math.pi))
        if kind == "die":
            s = L * rng.uniform(0.3, 0.45)
            hl = hw = s / 2
            th = s
            img, alp = _flat_sprite(
                128,
                128,
                rng.choice([(235, 235, 235), (40, 40, 200), (30, 30, 30), (220, 220, 240)]),
            )
            pipc = (20, 20, 20) if img[0, 0].sum() > 400 else (240, 240, 240)
            pts = {
                1: [(64, 64)],
                2: [(32, 32), (96, 96)],
                3: [(32, 32), (64, 64), (96, 96)],
                4: [(32, 32), (96, 32), (32, 96), (96, 96)],
                5: [(32, 32), (96, 32), (32, 96), (96, 96), (64, 64)],
                6: [(32, 28), (32, 64), (32, 100), (96, 28), (96, 64), (96, 100)],
            }[int(rng.integers(1, 7))]
            for p in pts:
                cv2.circle(img, p, 11, pipc, -1, cv2.LINE_AA)
            side = tuple(float(c) * 0.75 for c in img[0, 0])
        elif kind == "card":
            hl, hw, th = 44.0, 31.5, 0.4
            img8 = np.full((256, 180, 3), 245, np.uint8)
            alp = np.ones((256, 180), np.float32)
            col = (30, 30, 200) if rng.random() < 0.5 else (20, 20, 20)
            cv2.rectangle(img8, (14, 14), (165, 241), col, 2)
            for k in range(int(rng.integers(1, 9))):
                cv2.circle(img8, (60 + 60 * (k % 2), 50 + 40 * (k // 2)), 12, col, -1, cv2.LINE_AA)
            cv2.putText(
                img8,
                str(rng.choice(list("A23456789JQK"))),
                (20, 40),
                cv2.FONT_HERSHEY_SIMPLEX,
                1,
                col,
                2,
            )
            img = img8.astype(np.float32)
            side = (200, 200, 200)
        elif kind == "coin":
            r = float(rng.uniform(9, 14))
            hl = hw = r
            th = 1.8
            metal = tuple(
                float(c) for c in rng.choice([(60, 140, 190), (170, 170, 170), (40, 90, 150)])
            )
            img = np.zeros((128, 128, 3), np.float32)
            alp = np.zeros((128, 128), np.float32)
            cv2.circle(alp, (64, 64), 63, 1.0, -1, cv2.LINE_AA)
            cv2.circle(img, (64, 64), 63, metal, -1, cv2.LINE_AA)
            cv2.circle(img, (64, 64), 52, tuple(c * 0.8 for c in metal), 2, cv2.LINE_AA)
            cv2.circle(img, (52, 52), 18, tuple(min(255, c * 1.3) for c in metal), -1, cv2.LINE_AA)
            img = cv2.GaussianBlur(img, (0, 0), 2)
            side = tuple(c * 0.7 for c in metal)
        elif kind == "pad":
            hl, hw, th = float(rng.uniform(50, 75)), float(rng.uniform(35, 50)), 3.0
            img, alp = _flat_sprite(256, 180, (230, 245, 250))
            for y in range(30, 256, 14):
                cv2.line(img, (0, y), (180, y), (200, 170, 150), 1)
            for y in range(44, 230, 14):
                if rng.random() < 0.7:
                    x = int(rng.integers(10, 60))
                    pts = np.array(
                        [
                            [x + 6 * k, y - 2 - int(rng.integers(0, 7))]
                            for k in range(int(rng.integers(3, 18)))
                        ],
                        np.int32,
                    )
                    cv2.polylines(img, [pts], False, (120, 40, 20), 1, cv2.LINE_AA)
            side = (210, 220, 225)
        else:  # a printed picture of a domino (a hard negative: flat, on paper, no tile label)
            hl, hw, th = L * rng.uniform(0.6, 1.2), L * rng.uniform(0.5, 0.9), 0.2
            img, alp = _flat_sprite(256, 200, (240, 240, 240))
            t = Tile.of(int(rng.integers(0, max_pip + 1)), int(rng.integers(0, max_pip + 1)))
            face, fa = sc.face((t.low, t.high))
            small = cv2.resize(face, (60, 120))
            fa = cv2.resize(fa, (60, 120))[..., None]
            roi = img[60:180, 70:130]
            roi[:] = roi * (1 - fa) + small * fa * 0.9
            cv2.rectangle(img, (0, 0), (199, 255), (200, 200, 200), 3)
            side = (220, 220, 220)
        for _ in range(20):
            p = rng.uniform(-1.2, 1.2, 2) * span
            poly = rect_corners(float(p[0]), float(p[1]), ang, hl, hw)
            if not any(overlap(poly, q) for q in occ.polys):
                occ.add(poly)
                u = np.array([math.cos(ang), math.sin(ang), 0.0])
                v = np.array([u[1], -u[0], 0.0])
                boxes.append(
                    Box(
                        np.array([p[0], p[1], th]),
                        u,
                        v,
                        np.array([0, 0, 1.0]),
                        hl,
                        hw,
                        th,
                        img.astype(np.float32),
                        alp,
                        side,
                    )
                )
                break


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
    if tex is None:
        kind = backgrounds.KINDS[_weighted(rng, cfg.background_weights)]
        tex = backgrounds.texture(
            rng, kind, size, size, bool(rng.random() < cfg.dark_background_p), mm_per_px
        )
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


def render(scene: Scene, rng: np.random.Generator, cfg: SynthConfig) -> Rendered:
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
    order = sorted(
        range(len(scene.boxes)), key=lambda k: -float(cam.depth(scene.boxes[k].centre[None])[0])
    )
    light3 = np.array([-scene.light[0], -scene.light[1], 1.0])
    light3 /= np.linalg.norm(light3)
    for k in order:
        _draw_box(img, ids, cam, scene.boxes[k], light3)
    if scene.arm:
        _draw_arm(img, ids, rng)
    return Rendered(img, ids)


def _draw_box(img: np.ndarray, ids: np.ndarray, cam: Camera, b: Box, light3: np.ndarray) -> None:
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


def _draw_arm(img: np.ndarray, ids: np.ndarray, rng: np.random.Generator) -> None:
    """A player's arm and hand reaching in from a border (covers tiles: ids set to 0)."""
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
    img[:] = img * (1 - soft[..., None]) + (skin * shade[..., None]) * soft[..., None]
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
