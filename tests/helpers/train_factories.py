"""Tiny hand-drawn domino pictures for the dominotrain and measure tests (not a data
generator: white rectangles with a divider and dots on a flat background, just enough to
exercise formats, a training step and an export)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

# Pip positions on a half, in units of the half's side (x right, y down), values 0..6.
PIP_GRID = {
    0: [],
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
}


def tile_corners(centre, length: float, angle_deg: float) -> np.ndarray:
    """(4, 2) corners in the tile convention: [0]-[1] the short edge at half 0's end."""
    cx, cy = centre
    a = np.deg2rad(angle_deg)
    axis = np.array([np.cos(a), np.sin(a)])  # from half 0 towards half 1
    across = np.array([-axis[1], axis[0]])
    half_len, half_w = length / 2, length / 4
    c = np.array([cx, cy], dtype=float)
    end0, end1 = c - axis * half_len, c + axis * half_len
    return np.array(
        [
            end0 - across * half_w,
            end0 + across * half_w,
            end1 + across * half_w,
            end1 - across * half_w,
        ]
    )


def draw_tile(image: np.ndarray, corners: np.ndarray, halves, face: str = "up") -> None:
    """Draw one tile: white body (grey-blue back when face down), divider and black pips."""
    pts = corners.astype(np.float32)
    colour = (235, 235, 235) if face == "up" else (120, 90, 60)
    cv2.fillConvexPoly(image, np.round(pts).astype(np.int32), colour, cv2.LINE_AA)
    if face != "up":
        return
    p0, p1, p2, p3 = pts
    mid_a, mid_b = (p1 + p2) / 2, (p3 + p0) / 2
    side = float(np.linalg.norm(p1 - p0))
    cv2.line(
        image,
        tuple(np.round(mid_a).astype(int)),
        tuple(np.round(mid_b).astype(int)),
        (40, 40, 40),
        max(1, round(side / 20)),
        cv2.LINE_AA,
    )
    # half 0 spans p0,p1 -> mid_a,mid_b ; half 1 spans mid_b,mid_a -> p2,p3 (seen from its end)
    for origin, u_end, v_end, value in (
        (p0, p1, mid_b, halves[0]),
        (p2, p3, mid_a, halves[1]),
    ):
        u, v = u_end - origin, v_end - origin
        for x, y in PIP_GRID[value]:
            point = origin + u * x + v * y
            cv2.circle(
                image,
                tuple(np.round(point).astype(int)),
                max(1, round(side / 10)),
                (20, 20, 20),
                -1,
                cv2.LINE_AA,
            )


def make_scene(rng: np.random.Generator, size=(320, 240), count: int = 3):
    """A picture and its tiles: [{'face', 'halves', 'corners'}], tiles not overlapping."""
    width, height = size
    image = np.full((height, width, 3), rng.integers(30, 90, 3), np.uint8)
    tiles = []
    slots = [(x, y) for y in (0.3, 0.72) for x in (0.2, 0.5, 0.8)]
    rng.shuffle(slots)
    for i in range(count):
        cx, cy = slots[i][0] * width, slots[i][1] * height
        length = float(rng.uniform(50, 70))
        corners = tile_corners((cx, cy), length, float(rng.uniform(0, 360)))
        face = "down" if rng.random() < 0.2 else "up"
        halves = (int(rng.integers(0, 7)), int(rng.integers(0, 7)))
        draw_tile(image, corners, halves, face)
        tiles.append(
            {"face": face, "halves": list(halves) if face == "up" else None, "corners": corners}
        )
    return image, tiles


def write_synth_like(root: Path, images: int = 8, seed: int = 0) -> Path:
    """A folder in the layout of `dominocam synth --out` (detector, reader, truth, card)."""
    from dominocam.vision.geometry import rectify_tile, split_halves

    rng = np.random.default_rng(seed)
    for split in ("train", "val"):
        (root / "detector" / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "detector" / "labels" / split).mkdir(parents=True, exist_ok=True)
        for value in range(13):
            (root / "reader" / split / str(value)).mkdir(parents=True, exist_ok=True)
    (root / "truth").mkdir(parents=True, exist_ok=True)
    for n in range(images):
        split = "val" if n % 4 == 3 else "train"
        name = f"img{n:03d}"
        image, tiles = make_scene(rng)
        h, w = image.shape[:2]
        cv2.imwrite(str(root / "detector" / "images" / split / f"{name}.jpg"), image)
        lines, truth = [], []
        for t, tile in enumerate(tiles):
            cls = 0 if tile["face"] == "up" else 1
            norm = (tile["corners"] / [w, h]).reshape(-1)
            lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in norm))
            pips = sorted(tile["halves"]) if tile["halves"] else None
            truth.append(
                {
                    "face": tile["face"],
                    "halves": tile["halves"],
                    "pips": pips,
                    "corners": tile["corners"].tolist(),
                }
            )
            if tile["face"] == "up":
                for half, crop in enumerate(split_halves(rectify_tile(image, tile["corners"]))):
                    folder = root / "reader" / split / str(tile["halves"][half])
                    cv2.imwrite(str(folder / f"{name}_{t}_{half}.png"), crop)
        (root / "detector" / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + "\n")
        (root / "truth" / f"{name}.json").write_text(json.dumps({"tiles": truth, "set": 6}))
    (root / "detector" / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/val\nnames:\n  0: tile_up\n  1: tile_down\n"
    )
    (root / "card.json").write_text(
        json.dumps({"name": "tests-factory", "seed": seed, "count": images})
    )
    return root
