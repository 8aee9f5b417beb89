"""Procedural table surfaces (and photo backgrounds), drawn as flat textures that the
renderer then warps into the camera's perspective.

Every function returns float32 BGR 0..255 of shape (h, w, 3) and uses only `rng`.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

KINDS: tuple[str, ...] = ("wood", "felt", "cloth", "pattern", "stone", "plastic", "plain")
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def _noise(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, h // cell), max(2, w // cell))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    px = np.uint8([[[np.clip(h, 0, 179), np.clip(s, 0, 255), np.clip(v, 0, 255)]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def texture(
    rng: np.random.Generator,
    kind: str,
    h: int,
    w: int,
    dark: bool,
    mm_per_px: float,
    white_paper_p: float = 0.5,
) -> np.ndarray:
    """A surface of `kind`; `dark` picks the near-black variants; `mm_per_px` sets scale;
    `white_paper_p` is the share of light `plain` surfaces that are white paper."""
    scale = max(0.05, 1.0 / mm_per_px)  # px per mm
    if kind == "wood":
        base = _hsv(
            rng.uniform(8, 20),
            rng.uniform(90, 200),
            rng.uniform(50, 90) if dark else rng.uniform(110, 220),
        )
        warp = _noise(rng, h, w, max(4, int(40 * scale))) * rng.uniform(4, 12) * scale
        yy = np.arange(h, dtype=np.float32)[:, None] + warp
        period = rng.uniform(1.5, 5) * scale
        rings = np.sin(yy / period * 2 * np.pi + _noise(rng, h, w, max(2, int(6 * scale))) * 2)
        streak = cv2.resize(
            rng.normal(0, 1, (h, max(2, w // max(8, int(30 * scale))))).astype(np.float32), (w, h)
        )
        img = base * (1 + 0.07 * rings[..., None] + 0.08 * streak[..., None])
        if rng.random() < 0.6:  # planks
            plank = rng.uniform(60, 160) * scale
            seam = (np.abs((yy - warp) % plank) < max(1.0, 0.8 * scale)).astype(np.float32)
            img *= 1 - 0.35 * seam[..., None]
            idx = ((yy - warp) // plank).astype(np.int32) % 7
            img *= (1 + 0.06 * (idx - 3) / 3)[..., None]
        if rng.random() < 0.5:
            img = np.ascontiguousarray(img.transpose(1, 0, 2)[:h, :w]) if h == w else img
        return img
    if kind == "felt":
        base = _hsv(
            rng.choice([60, 100, 110, 0, 170, 20]) + rng.uniform(-8, 8),
            rng.uniform(60, 220),
            rng.uniform(25, 60) if dark else rng.uniform(60, 170),
        )
        img = base * (1 + 0.08 * _noise(rng, h, w, max(3, int(25 * scale)))[..., None])
        img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
        return img
    if kind == "cloth":
        base = _hsv(
            rng.uniform(0, 180),
            rng.uniform(0, 160),
            rng.uniform(15, 50) if dark else rng.uniform(60, 220),
        )
        period = max(1.5, rng.uniform(0.6, 2.0) * scale)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        weave = np.sin(xx / period * np.pi) * np.sin(yy / period * np.pi)
        img = base * (
            1
            + 0.06 * weave[..., None]
            + 0.07 * _noise(rng, h, w, max(4, int(60 * scale)))[..., None]
        )
        img += rng.normal(0, 3, (h, w, 1)).astype(np.float32)
        return img
    if kind == "pattern":
        a = _hsv(rng.uniform(0, 180), rng.uniform(80, 220), rng.uniform(100, 220))
        b = _hsv(rng.uniform(0, 180), rng.uniform(0, 60), rng.uniform(180, 250))
        period = rng.uniform(10, 40) * scale
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        style = rng.integers(3)
        if style == 0:  # gingham
            m = ((xx // period) % 2 + (yy // period) % 2) / 2
        elif style == 1:  # stripes
            m = (xx // period) % 2
        else:  # dots
            m = ((xx % period) - period / 2) ** 2 + ((yy % period) - period / 2) ** 2 < (
                period / 4
            ) ** 2
        m = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 0.7)
        return a * m[..., None] + b * (1 - m[..., None])
    if kind == "stone":
        base = _hsv(
            rng.uniform(10, 30),
            rng.uniform(0, 50),
            rng.uniform(40, 70) if dark else rng.uniform(110, 210),
        )
        n = sum(
            _noise(rng, h, w, c) / (k + 1)
            for k, c in enumerate((max(4, int(80 * scale)), max(3, int(20 * scale)), 3))
        )
        veins = np.exp(-np.abs(_noise(rng, h, w, max(4, int(50 * scale)))) * 8)
        return base * (1 + 0.08 * n[..., None] - 0.15 * veins[..., None])
    if kind == "plastic":
        base = _hsv(
            rng.uniform(0, 180),
            rng.uniform(0, 200),
            rng.uniform(20, 50) if dark else rng.uniform(80, 240),
        )
        return base * (1 + 0.03 * _noise(rng, h, w, max(8, int(200 * scale)))[..., None])
    # plain: paper, dark cloth, grey board
    if dark:
        base = np.array([rng.uniform(5, 25), rng.uniform(8, 28), rng.uniform(12, 35)], np.float32)
    else:
        # White paper half the time: ivory tiles on white paper, where a blank tile is
        # little more than a faint outline, are the detector's hardest real photos.
        choice = 0 if rng.random() < white_paper_p else int(rng.integers(1, 3))
        if choice == 0:  # white paper, often slightly pink or blue
            base = np.array(
                [rng.uniform(215, 250), rng.uniform(210, 245), rng.uniform(215, 252)], np.float32
            )
        elif choice == 1:
            g = rng.uniform(60, 170)
            base = np.array([g, g, g], np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
        else:
            base = _hsv(rng.uniform(0, 180), rng.uniform(0, 90), rng.uniform(70, 230))
    img = base * (1 + 0.04 * _noise(rng, h, w, max(4, int(100 * scale)))[..., None])
    img += rng.normal(0, 2.5, (h, w, 1)).astype(np.float32)
    return img.astype(np.float32)


# Real photographs bundled inside scikit-image's wheel (skimage/data, read from disk: the
# `skimage.data` functions of other pictures may try to download). Surfaces a table may
# look like, and real clutter (coins, printed text, a page, a chessboard): never a domino.
SAMPLE_PHOTOS: tuple[str, ...] = (
    "brick.png",
    "grass.png",
    "gravel.png",
    "coins.png",
    "text.png",
    "page.png",
    "chessboard_RGB.png",
    "coffee.png",
)


def sample_photos() -> list[Path]:
    """The files of `SAMPLE_PHOTOS` in the installed scikit-image (the `synth` extra), or []
    where scikit-image is not installed."""
    try:
        import skimage
    except ImportError:
        return []
    folder = Path(skimage.__file__).parent / "data"
    return [folder / name for name in SAMPLE_PHOTOS if (folder / name).is_file()]


def list_photos(folder: str | Path | None) -> list[Path]:
    """Background photos in `folder`, sorted (so output does not depend on listing order)."""
    if not folder:
        return []
    return sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)


def photo(rng: np.random.Generator, path: Path, h: int, w: int) -> np.ndarray | None:
    """A random crop of a background photo resized to (h, w), or None if unreadable."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        return None
    ih, iw = img.shape[:2]
    frac = rng.uniform(0.5, 1.0)
    ch, cw = max(8, int(ih * frac)), max(8, int(iw * frac))
    y = int(rng.integers(0, ih - ch + 1))
    x = int(rng.integers(0, iw - cw + 1))
    crop = img[y : y + ch, x : x + cw]
    return cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
