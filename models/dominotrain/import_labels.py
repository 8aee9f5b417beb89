"""`dominocam import-labels`: a user's labelled photos (YOLO-OBB from CVAT or Label Studio) to
our training layout, so both models can be fine-tuned on a set we never rendered.

Input: an export in the YOLO oriented-box format, one text file per image with lines
`class x1 y1 x2 y2 x3 y3 x4 y4` (coordinates normalised to 0..1), and the class names in
`data.yaml` (CVAT "Ultralytics YOLO Oriented Bounding Boxes", `--format yolo-obb`) or
`classes.txt` (Label Studio "YOLOv8 OBB", `--format label-studio`). Images sit under
`images/` (any sub-folders), labels under `labels/` with the same relative names.

Class names:
* a face-up tile is named by its values, `"5-10"` (any separator of `-`, `_`, `:`, `|`, ` `);
* a face-down tile is `"down"` (also `"tile_down"`, `"back"`, `"face-down"`).

Which half is which (`--orient`):
* `corners` (default): trust the point order. The first two points are the corners of the
  short edge at the end of the FIRST value of the name ("5-10": points 1-2 close the 5 end),
  the next two close the other end. A box whose first edge is the long one cannot say which
  end is which: it is kept for the detector and left out of the reader crops (counted).
* `reader`: let a reader model (`--reader models/reader.onnx`) choose, for every tile with
  two different values, the orientation it finds more likely; doubles need no choice.

Output (the layout `dominocam synth` writes, so `dominocam train` takes it as it is):
`OUT/detector/{data.yaml, images/{train,val}/, labels/{train,val}/}` with classes
{0: tile_up, 1: tile_down}, corners written in the tile convention of `vision/geometry.py`;
`OUT/reader/{train,val}/{0..N}/*.png` square half crops, divider at the bottom, and
`OUT/reader/{train,val}/back/*.png` both halves of each face-down tile (the reader's class
`back`);
`OUT/truth/NAME.json` per image (tiles with face, halves, pips, corners);
`OUT/card.json` describing the import. The split is by image name (a stable hash).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from dominocam.errors import UserInputError
from dominocam.vision.geometry import rectify_tile, split_halves
from dominocam.vision.image_io import load_image
from dominocam.vision.onnx_model import resolve_model_path
from dominocam.vision.reader import BACK_CLASS, Reader

FORMATS = ("yolo-obb", "label-studio")
DOWN_NAMES = {"down", "tile_down", "back", "face-down", "face_down", "facedown"}
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
_VALUE_NAME = re.compile(r"^\s*(\d{1,2})\s*[-_:| ]\s*(\d{1,2})\s*$")


@dataclass
class LabelledTile:
    """One labelled box.

    Attributes:
        face: "up" or "down".
        corners: (4, 2) pixels, first edge short (the tile convention once oriented).
        values: the halves in corner order; None when face down or not yet oriented.
        oriented: whether the corner order says which end is which.
        name_values: the values as the class name lists them (None when face down).
    """

    face: str
    corners: np.ndarray
    values: tuple[int, int] | None
    oriented: bool
    name_values: tuple[int, int] | None = None


def parse_class_name(name: str) -> tuple[str, tuple[int, int] | None]:
    """("up", (a, b)) for "a-b", ("down", None) for a face-down name.

    Raises:
        UserInputError: any other name.
    """
    text = str(name).strip()
    if text.lower() in DOWN_NAMES:
        return "down", None
    match = _VALUE_NAME.match(text)
    if not match:
        raise UserInputError(
            f"class name {name!r} is neither a tile like '5-10' nor 'down'; rename it in the "
            "labelling tool"
        )
    return "up", (int(match.group(1)), int(match.group(2)))


def read_names(root: Path, fmt: str) -> dict[int, str]:
    """Class index -> name from data.yaml (CVAT) or classes.txt (Label Studio)."""
    yaml_files = [root / "data.yaml", *sorted(root.glob("*.yaml"))]
    classes_txt = root / "classes.txt"
    order = ("yaml", "txt") if fmt == "yolo-obb" else ("txt", "yaml")
    for source in order:
        if source == "txt" and classes_txt.is_file():
            lines = [ln.strip() for ln in classes_txt.read_text().splitlines() if ln.strip()]
            return dict(enumerate(lines))
        if source == "yaml":
            for path in yaml_files:
                if path.is_file():
                    spec = yaml.safe_load(path.read_text()) or {}
                    names = spec.get("names") if isinstance(spec, dict) else None
                    if isinstance(names, list):
                        return dict(enumerate(str(n) for n in names))
                    if isinstance(names, dict):
                        return {int(k): str(v) for k, v in names.items()}
    raise UserInputError(f"{root}: no class names found (expected data.yaml or classes.txt)")


def find_pairs(root: Path) -> list[tuple[Path, Path]]:
    """(image, label file) pairs: labels/REL.txt with images/REL.<ext> (or beside it)."""
    labels_dir = root / "labels"
    if not labels_dir.is_dir():
        raise UserInputError(f"{root}: no labels/ folder (is this a YOLO-OBB export?)")
    images = {}
    for path in (root / "images").rglob("*") if (root / "images").is_dir() else []:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            images[path.relative_to(root / "images").with_suffix("").as_posix()] = path
    pairs = []
    for label in sorted(labels_dir.rglob("*.txt")):
        key = label.relative_to(labels_dir).with_suffix("").as_posix()
        image = images.get(key)
        if image is None:  # Label Studio sometimes flattens names; fall back on the stem
            matches = [p for k, p in images.items() if Path(k).name == label.stem]
            image = matches[0] if len(matches) == 1 else None
        if image is None:
            raise UserInputError(f"{label}: no image named {key}.* under {root / 'images'}")
        pairs.append((image, label))
    if not pairs:
        raise UserInputError(f"{root}: labels/ holds no .txt files")
    return pairs


def order_tile_corners(points: np.ndarray) -> tuple[np.ndarray, bool]:
    """Points as labelled -> (corners with the first edge short, whether that is trusted).

    The polygon is made clockwise on screen (y down) keeping its first edge (so the end it
    closes stays half a's end). If the first edge is the long one, the order is turned by one
    point and reported as not trusted.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    x, y = pts[:, 0], pts[:, 1]
    signed = float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    if signed < 0:  # counter-clockwise on screen: keep point 0 and 1, reverse the rest
        pts = pts[[1, 0, 3, 2]]
    first = np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[3] - pts[2])
    second = np.linalg.norm(pts[2] - pts[1]) + np.linalg.norm(pts[0] - pts[3])
    if first <= second:
        return pts, True
    return np.roll(pts, -1, axis=0), False


def parse_label_file(
    path: Path, names: dict[int, str], width: int, height: int
) -> list[LabelledTile]:
    """The tiles of one label file, corners in pixels."""
    tiles = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 9:
            raise UserInputError(
                f"{path}:{number}: expected 'class x1 y1 x2 y2 x3 y3 x4 y4', got {len(parts)} "
                "fields (export as YOLO oriented boxes, not axis-aligned boxes)"
            )
        try:
            cls = int(parts[0])
            coords = np.array([float(v) for v in parts[1:]], dtype=np.float64).reshape(4, 2)
        except ValueError as error:
            raise UserInputError(f"{path}:{number}: not numbers ({error})") from error
        if cls not in names:
            raise UserInputError(f"{path}:{number}: class {cls} has no name")
        face, values = parse_class_name(names[cls])
        corners, trusted = order_tile_corners(coords * [width, height])
        known = values if trusted or (values is not None and values[0] == values[1]) else None
        tiles.append(LabelledTile(face, corners, known, trusted, values))
    return tiles


def _split(name: str, val_fraction: float) -> str:
    digest = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "val" if digest < val_fraction else "train"


def _orient_by_reader(reader, image: np.ndarray, tile: LabelledTile) -> None:
    """Choose the half order (a, b) or (b, a) the reader finds more likely; in place."""
    a, b = tile.name_values
    probs = reader.read(image, [tile.corners])[0]  # (2, V)
    eps = 1e-9
    keep = np.log(probs[0, a] + eps) + np.log(probs[1, b] + eps)
    swap = np.log(probs[0, b] + eps) + np.log(probs[1, a] + eps)
    tile.values = (a, b) if keep >= swap else (b, a)
    tile.oriented = True


def import_labels(
    source: Path,
    out: Path,
    fmt: str = "yolo-obb",
    orient: str = "corners",
    reader_path: Path | None = None,
    val_fraction: float = 0.2,
    crop: int = 64,
) -> dict:
    """Convert a YOLO-OBB export into `out`; returns the card (also written to card.json).

    Raises:
        UserInputError: a malformed export, unknown class names, an output folder that is not
            empty, or `--orient reader` without a reader model.
    """
    source, out = Path(source), Path(out)
    if fmt not in FORMATS:
        raise UserInputError(f"unknown format {fmt!r}; choose one of {FORMATS}")
    if orient not in ("corners", "reader"):
        raise UserInputError(f"unknown --orient {orient!r}; choose corners or reader")
    if not source.is_dir():
        raise UserInputError(f"{source}: not a folder")
    if not 0 <= val_fraction < 1:
        raise UserInputError(f"--val-fraction must be in [0, 1), got {val_fraction}")
    if out.exists() and any(out.iterdir()):
        raise UserInputError(f"{out} exists and is not empty; choose a new --out")
    reader = None
    if orient == "reader":
        reader = Reader(resolve_model_path("reader", reader_path))
    names = read_names(source, fmt)
    for name in names.values():
        parse_class_name(name)  # fail early, before writing anything
    pairs = find_pairs(source)

    stats: Counter = Counter()
    max_value = 0
    for split in ("train", "val"):
        (out / "detector" / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "detector" / "labels" / split).mkdir(parents=True, exist_ok=True)
    (out / "truth").mkdir(parents=True, exist_ok=True)
    for image_path, label_path in pairs:
        image = load_image(image_path)
        height, width = image.shape[:2]
        tiles = parse_label_file(label_path, names, width, height)
        stem = label_path.relative_to(source / "labels").with_suffix("").as_posix()
        stem = stem.replace("/", "__")
        split = _split(stem, val_fraction)
        stats[f"images_{split}"] += 1
        suffix = image_path.suffix.lower()
        shutil.copyfile(image_path, out / "detector" / "images" / split / f"{stem}{suffix}")
        lines, truth = [], []
        for index, tile in enumerate(tiles):
            stats[f"tiles_{tile.face}"] += 1
            name_values = tile.name_values
            if reader is not None and name_values and name_values[0] != name_values[1]:
                before = tile.values
                _orient_by_reader(reader, image, tile)
                stats["oriented_by_reader"] += 1
                stats["reader_disagreed_with_corners"] += bool(before and before != tile.values)
            cls = 0 if tile.face == "up" else 1
            norm = (tile.corners / [width, height]).clip(0, 1).reshape(-1)
            lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in norm))
            truth.append(
                {
                    "face": tile.face,
                    "halves": list(tile.values) if tile.values else None,
                    "pips": sorted(name_values) if name_values else None,
                    "corners": np.round(tile.corners, 2).tolist(),
                }
            )
            if tile.face == "up" and tile.values is None:
                stats["halves_unoriented_skipped"] += 2
                continue
            # A face-down tile's halves teach the reader's `back` class, as the generator's do.
            labels = tile.values if tile.face == "up" else (BACK_CLASS, BACK_CLASS)
            tile_crop = rectify_tile(image, tile.corners, crop)
            for half, (label, half_crop) in enumerate(
                zip(labels, split_halves(tile_crop), strict=True)
            ):
                folder = out / "reader" / split / str(label)
                folder.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(folder / f"{stem}_t{index}_h{half}.png"), half_crop)
                kind = "halves" if tile.face == "up" else "backs"
                stats[f"{kind}_{split}"] += 1
                if tile.face == "up":
                    max_value = max(max_value, int(label))
        (out / "detector" / "labels" / split / f"{stem}.txt").write_text(
            "\n".join(lines) + ("\n" if lines else "")
        )
        (out / "truth" / f"{stem}.json").write_text(
            json.dumps(
                {"image": f"{stem}{suffix}", "width": width, "height": height, "tiles": truth},
                indent=1,
            )
        )
    # Every class folder 0..max must exist in both splits (ultralytics takes classes from
    # the folders; an empty one keeps the class index).
    if (out / "reader").is_dir():
        for split in ("train", "val"):
            for label in [*range(max(max_value, 12) + 1), BACK_CLASS]:
                (out / "reader" / split / str(label)).mkdir(parents=True, exist_ok=True)
    data_yaml = {
        "path": str(out.resolve() / "detector"),
        "train": "images/train",
        "val": "images/val",
        "names": {0: "tile_up", 1: "tile_down"},
    }
    (out / "detector" / "data.yaml").write_text(yaml.safe_dump(data_yaml, sort_keys=False))
    card = {
        "name": f"imported:{source.name}",
        "source": str(source.resolve()),
        "format": fmt,
        "orient": orient,
        "val_fraction": val_fraction,
        "reader_crop_px": crop,
        "counts": dict(sorted(stats.items())),
    }
    (out / "card.json").write_text(json.dumps(card, indent=2))
    return card
