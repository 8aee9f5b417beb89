"""Detector training pictures of one tile cut out and shrunk, as the runtime shows them.

    python -m dominotrain.crop_data --synth runs/data/synth-s91-n900 --out runs/data/crops-s91

A photo of one tile, small and low in resolution (a crop of a bigger photo, a thumbnail), is a use
the product measures (`dominocam eval --sets synthetic_tiles,realval_tiles`). The detector's
training pictures never look like it: the runtime enlarges such a picture at most
`dominocam.vision.detector.MAX_UPSCALE` times and pads the rest of its input with grey, while
training enlarges every picture to fill the input. This cuts such crops from a `dominocam synth`
set's pictures exactly the way `dominocam eval` cuts its val crops (`dominosynth.tile_crops`: a
square around one whole face-up tile with no other tile reaching into it, `TILE_CROP_SPAN` tile
lengths wide, shrunk to `TILE_CROP_PX`), saves each once more as a JPEG (a phone's crop is one), and
writes it letterboxed into the detector's square input (`dominocam.vision.geometry.letterbox`) at
the scale the runtime gives it, with its tile's box as the label.

Each split of the source set gives the same split here, so the val crops stay out of
training. The output is a `dominocam synth`-shaped detector folder with a `card.json` that
names its source, for `dominocam train detector --also`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from dominocam.errors import UserInputError
from dominocam.vision import geometry
from dominocam.vision.detector import MAX_UPSCALE
from dominocam.vision.image_io import IMAGE_SUFFIXES
from dominosynth.tile_crops import (
    TILE_CROP_PX,
    TILE_CROP_SPAN,
    random_crop_span,
    shrink_window,
    tile_crop_candidates,
    tile_crop_window,
)

INPUT_PX = 640  # the detector's square input (models/detector.md)
JPEG_QUALITY = (50, 95)  # a crop saved again by a phone or a browser
CROPS_PER_PICTURE = 2  # at most; tiles of one picture are cut in a random order


@dataclass(frozen=True)
class TileCrop:
    """One training picture: the letterboxed crop and its tile's corners in it (pixels)."""

    picture: np.ndarray
    corners: np.ndarray


def cut_tile_crop(
    image: np.ndarray, corners: np.ndarray, window: tuple[int, int, int], quality: int
) -> TileCrop:
    """The tile `corners` of `image` in the square `window` (x0, y0, side): shrunk to
    `TILE_CROP_PX`, saved as a JPEG of `quality`, letterboxed into the detector's input."""
    x0, y0, side = window
    scale = TILE_CROP_PX / side
    crop = shrink_window(image, window)
    ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 picture
        raise RuntimeError("JPEG encoding failed")
    crop = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    picture, transform = geometry.letterbox(crop, INPUT_PX, max_upscale=MAX_UPSCALE)
    in_crop = (np.asarray(corners, dtype=float) - (x0, y0)) * scale
    return TileCrop(picture, transform.to_input(in_crop))


def obb_label_line(corners: np.ndarray, class_id: int, size: int) -> str:
    """One YOLO-OBB label line: the class and four corners as fractions of the picture."""
    values = " ".join(f"{v:.6f}" for v in (np.asarray(corners, dtype=float) / size).ravel())
    return f"{class_id} {values}"


def picture_crops(
    image: np.ndarray, truth: dict, rng: np.random.Generator, most: int = CROPS_PER_PICTURE
) -> list[TileCrop]:
    """Up to `most` crops of one synthetic picture, one whole face-up tile each."""
    shape = image.shape[:2]
    candidates = tile_crop_candidates(truth)
    crops: list[TileCrop] = []
    for index in rng.permutation(len(candidates)):
        _, corners, others = candidates[index]
        window = tile_crop_window(corners, others, shape, random_crop_span(rng))
        if window is None:
            continue
        quality = int(rng.integers(JPEG_QUALITY[0], JPEG_QUALITY[1] + 1))
        crops.append(cut_tile_crop(image, corners, window, quality))
        if len(crops) >= most:
            break
    return crops


def write_split(source: Path, out: Path, split: str, seed: int, class_up: int) -> int:
    """Cut the crops of one split of `source` into `out`, labelled as class `class_up`;
    returns how many were written."""
    images_dir = source / "detector" / "images" / split
    truth_dir = source / "truth"
    out_images, out_labels = (out / "detector" / kind / split for kind in ("images", "labels"))
    out_images.mkdir(parents=True, exist_ok=True)
    out_labels.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        truth_file = truth_dir / f"{path.stem}.json"
        if not truth_file.is_file():
            continue
        truth = json.loads(truth_file.read_text())
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise UserInputError(f"{path}: not a picture OpenCV can read")
        rng = np.random.default_rng([seed, int(truth["generator"]["index"])])
        for number, crop in enumerate(picture_crops(image, truth, rng)):
            name = f"{path.stem}_crop{number}"
            cv2.imwrite(
                str(out_images / f"{name}.jpg"), crop.picture, [cv2.IMWRITE_JPEG_QUALITY, 95]
            )
            line = obb_label_line(crop.corners, class_up, INPUT_PX)
            (out_labels / f"{name}.txt").write_text(line + "\n")
            written += 1
    return written


def build(source: Path, out: Path, seed: int, command: str = "") -> dict:
    """Write the crop set of `source` into `out`; returns its card (also `card.json`), which
    records `command`, the command line that built it."""
    if not (source / "detector" / "images" / "train").is_dir() or not (source / "truth").is_dir():
        raise UserInputError(f"--synth {source}: not a `dominocam synth` folder (no truth/)")
    names = yaml.safe_load((source / "detector" / "data.yaml").read_text())["names"]
    names = dict(enumerate(names)) if isinstance(names, list) else names  # both YOLO forms
    class_up = next((int(k) for k, name in names.items() if name == "tile_up"), None)
    if class_up is None:
        raise UserInputError(f"--synth {source}: its data.yaml names no `tile_up` class")
    counts = {split: write_split(source, out, split, seed, class_up) for split in ("train", "val")}
    spec = {"path": str((out / "detector").resolve()), "train": "images/train"}
    spec |= {"val": "images/val", "names": names}
    (out / "detector" / "data.yaml").write_text(
        "# written by dominotrain.crop_data\n" + yaml.safe_dump(spec, sort_keys=False)
    )
    source_card = json.loads((source / "card.json").read_text())
    card = {
        "generator": "dominotrain.crop_data",
        "command": command,
        "source": str(source),
        "source_generator": f"{source_card.get('generator')} {source_card.get('version')}",
        "seed": seed,
        "crop_px": TILE_CROP_PX,
        "crop_span_tile_lengths": list(TILE_CROP_SPAN),
        "jpeg_quality": list(JPEG_QUALITY),
        "input_px": INPUT_PX,
        "max_upscale": MAX_UPSCALE,
        "pictures": counts,
    }
    (out / "card.json").write_text(json.dumps(card, indent=1) + "\n")
    return card


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominotrain.crop_data",
        description=__doc__.split("\n\n")[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--synth", type=Path, required=True, help="a `dominocam synth` folder")
    parser.add_argument("--out", type=Path, required=True, help="the crop set's folder")
    parser.add_argument("--seed", type=int, default=0, help="seed of the spans and JPEG qualities")
    args = parser.parse_args(argv)
    command = "python -m dominotrain.crop_data " + " ".join(argv or sys.argv[1:])
    try:
        card = build(args.synth, args.out, args.seed, command)
    except UserInputError as error:
        print(f"dominocam: error: {error}", file=sys.stderr)
        return 2
    print(
        f"wrote {card['pictures']['train']} train and {card['pictures']['val']} val crops "
        f"in {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
