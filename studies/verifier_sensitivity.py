"""What a camera does to a picture and a render does not: does the verifier still call a
tile a tile? (issue 36: the verifier doubts real tiles read right far more often than
synthetic ones.)

    python -m studies.verifier_sensitivity --synthetic runs/data/train:val \\
        [--pictures 80] [--verifier models/verifier.onnx] [--json]

It cuts every fully shown tile of the first `--pictures` pictures of a `dominocam synth` split
as the runtime cuts a box for the verifier (`dominocam.vision.verifier.verifier_crop`, the
truth's corners), changes every crop in one way of `CHANGES` (a colour cast, more saturation,
a gamma, softness, sharpening as a phone's camera sharpens, sensor noise, JPEG), and scores
it. Each row says how many of those tiles the verifier scores under `--unsure` (0.982, as in
`studies.verifier_contrast`: where its term of the calibration's `p_right` makes a tile read
right doubtful), with a Wilson interval, and the median score. Only synthetic pictures: a
change the verifier does not withstand on tiles it was made for is a weakness one may
train against. It only measures; nothing is fitted on what it reads.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dominocam.measure.truth import synthetic_truth
from dominocam.vision.image_io import load_image
from dominocam.vision.onnx_model import resolve_model_path
from dominocam.vision.verifier import Verifier, verifier_crop
from studies.misread_doubts import rate
from studies.verifier_contrast import UNSURE

Crops = np.ndarray  # (N, s, s, 3) uint8 BGR
NOISE_SEED = 0


def _gains(blue: float, green: float, red: float) -> Callable[[Crops], Crops]:
    def change(crops: Crops) -> Crops:
        scaled = crops.astype(np.float32) * np.array([blue, green, red], np.float32)
        return np.clip(scaled + 0.5, 0, 255).astype(np.uint8)

    return change


def _saturation(factor: float) -> Callable[[Crops], Crops]:
    def change(crops: Crops) -> Crops:
        out = np.empty_like(crops)
        for i, crop in enumerate(crops):
            hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV).astype(np.float32)
            hsv[..., 1] = np.clip(hsv[..., 1] * factor, 0, 255)
            out[i] = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        return out

    return change


def _gamma(power: float) -> Callable[[Crops], Crops]:
    table = np.clip((np.arange(256) / 255.0) ** power * 255 + 0.5, 0, 255).astype(np.uint8)
    return lambda crops: table[crops]


def _blur(sigma: float) -> Callable[[Crops], Crops]:
    return lambda crops: np.stack([cv2.GaussianBlur(c, (0, 0), sigma) for c in crops])


def _sharpen(amount: float, sigma: float = 1.5) -> Callable[[Crops], Crops]:
    """An unsharp mask, as a phone's picture pipeline applies one."""

    def change(crops: Crops) -> Crops:
        return np.stack(
            [
                cv2.addWeighted(c, 1 + amount, cv2.GaussianBlur(c, (0, 0), sigma), -amount, 0)
                for c in crops
            ]
        )

    return change


def _noise(sigma: float) -> Callable[[Crops], Crops]:
    def change(crops: Crops) -> Crops:
        rng = np.random.default_rng(NOISE_SEED)
        noisy = crops.astype(np.float32) + rng.normal(0.0, sigma, crops.shape)
        return np.clip(noisy + 0.5, 0, 255).astype(np.uint8)

    return change


def _jpeg(quality: int) -> Callable[[Crops], Crops]:
    def change(crops: Crops) -> Crops:
        params = [cv2.IMWRITE_JPEG_QUALITY, quality]
        return np.stack(
            [cv2.imdecode(cv2.imencode(".jpg", c, params)[1], cv2.IMREAD_COLOR) for c in crops]
        )

    return change


# Each change keeps what the crop shows: a tile stays a tile.
CHANGES: dict[str, Callable[[Crops], Crops]] = {
    "as rendered": lambda crops: crops,
    "warm light (blue x0.75, green x0.92)": _gains(0.75, 0.92, 1.0),
    "cool light (red x0.8)": _gains(1.0, 0.95, 0.8),
    "saturation x2": _saturation(2.0),
    "lighter (gamma 0.6)": _gamma(0.6),
    "darker (gamma 1.6)": _gamma(1.6),
    "soft (blur 1 px)": _blur(1.0),
    "sharpened (unsharp mask 1.0)": _sharpen(1.0),
    "sensor noise (8 grey levels)": _noise(8.0),
    "JPEG quality 40": _jpeg(40),
}


def tile_crops(root: Path, split: str, pictures: int, side: int) -> Crops:
    """The verifier's crops of every scored tile (`synthetic_truth`: not cut by the border,
    visible enough to have a box) of the first `pictures` pictures of a `dominocam synth`
    split, cut at the truth's corners."""
    crops = []
    for path in sorted((root / "detector" / "images" / split).glob("*.jpg"))[:pictures]:
        tiles = synthetic_truth(root / "truth" / f"{path.stem}.json")[0]
        image = load_image(path)
        crops += [verifier_crop(image, tile["corners"], side) for tile in tiles]
    return np.stack(crops) if crops else np.zeros((0, side, side, 3), np.uint8)


def sensitivity(
    crops: Crops, score: Callable[[Crops], np.ndarray], unsure: float = UNSURE
) -> list[dict[str, Any]]:
    """One row per change of `CHANGES`: the tiles the verifier (`score`) is unsure of after
    it, and the median score."""
    rows = []
    for name, change in CHANGES.items():
        scores = np.asarray(score(change(crops))) if len(crops) else np.zeros(0)
        rows.append(
            {
                "change": name,
                "unsure": rate(int((scores < unsure).sum()), len(scores)),
                "median": float(np.median(scores)) if len(scores) else None,
            }
        )
    return rows


def format_report(name: str, rows: list[dict[str, Any]], unsure: float = UNSURE) -> str:
    lines = [f"{name}: tile crops the verifier scores under {unsure}, by change"]
    for row in rows:
        share = row["unsure"]
        cell = (
            f"{share['k']}/{share['n']} {share['rate']:.3f} "
            f"[{share['low']:.3f}, {share['high']:.3f}]"
            if share["n"]
            else "-"
        )
        median = "-" if row["median"] is None else f"{row['median']:.4f}"
        lines.append(f"  {row['change']:38s} {cell:32s} median {median}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.verifier_sensitivity",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--synthetic", required=True, metavar="DIR[:SPLIT]",
        help="a `dominocam synth` folder and its split (val unless named)",
    )  # fmt: skip
    parser.add_argument("--pictures", type=int, default=80, help="pictures (%(default)s)")
    parser.add_argument("--verifier", help="a verifier .onnx (the committed one unless named)")
    parser.add_argument("--unsure", type=float, default=UNSURE, help="verifier score (%(default)s)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    verifier = Verifier(resolve_model_path("verifier", args.verifier), threads=args.threads)
    folder, _, split = args.synthetic.partition(":")
    crops = tile_crops(Path(folder), split or "val", args.pictures, verifier.side)
    if not len(crops):
        parser.error(f"{args.synthetic}: no tile to cut (is it a `dominocam synth` folder?)")
    rows = sensitivity(crops, verifier.classify, args.unsure)
    print(
        json.dumps(rows, indent=1)
        if args.json
        else format_report(args.synthetic, rows, args.unsure)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
