"""`dominocam eval`: the runtime (`vision`) measured on synthetic validation and real photos.

Runs exactly what `dominocam read` runs (`dominocam.vision.pipeline.read_image`: ONNX detector,
reader, joint decoding) and scores it. Needs no torch and no matplotlib: tables, JSON, and PNG plots
drawn with OpenCV, so it runs in the runtime environment.

Sets and how each figure is defined (every figure is k of n with a Wilson 95% interval):

* `synthetic` (`--synthetic DIR`, the val split of `dominocam synth`): labelled boxes, so
  detection is scored box by box (one-to-one, rotated IoU >= 0.5 or each centre inside the
  other). Per-half and exact-tile accuracy over face-up tiles that were found; a face-up tile
  found as face down counts as wrongly read. Pip total and face-down count exact per photo.
* `synthetic_halves` (`--synthetic DIR`, its `reader/val/` crops): the reader alone on the half
  crops the generator wrote, as they are; its own accuracy, apart from detection.
* `synthetic_tiles` (`--synthetic DIR`): single-tile crops cut from the val pictures the way
  `realval/tiles` was made: a square around one fully visible face-up tile with no other
  tile reaching into it, 1.7..5 tile lengths wide, shrunk to 100x100 px (so the tile is
  20..60 px long). Scored like `realval_tiles`. It asks what the real crops ask (is a small
  low-resolution picture read?) on pictures nobody tunes on.
* `synthetic_print` (`--synthetic-print DIR`, the val split of a `dominocam synth --config
  print` set): printed dominoes on a game board's track and on a box lid, beside real tiles
  lying on the same board. The real tiles are scored as in `synthetic`; on each picture that
  shows a printed domino (the truth's `printed`), `no_printed_tile` counts whether no read
  tile stands on one (a read tile that is no labelled tile, matched one to one with the
  printed dominoes as tiles are matched), `no_printed_tile_undoubted` whether none is read
  without a doubt; `printed_read_as_tile` counts the printed dominoes read as tiles of all
  shown and `printed_tile_doubtful` the doubtful ones among those read.
* `realval_scenes` (`realval/scenes`): labels list tile identities, not boxes. Detection is
  scored by counts per photo: hits = min(found, labelled); recall = sum hits / sum labelled,
  precision = sum hits / sum found. That is an upper bound: a missed tile plus a false box in the
  same photo reads as two hits. Reading is scored by pairing the read face-up tiles with the
  labelled ones (an assignment maximising exact tiles, then correct halves): per-half and exact-tile
  accuracy over the pairs (upper bounds too), exact tiles of all labelled end to end, exact pip
  total and face-down count per photo. `open_ends`: of the photos whose labels hold played lines,
  those whose rebuilt layout (`dominocam.vision.layout`, as `read` rebuilds it) has exactly the
  labelled open ends (as a multiset), whatever the detector missed on the way.
* `realval_tiles` (`realval/tiles`): one tile per crop; the pipeline runs on the whole crop.
  Found = at least one face-up detection; the most confident one is read. Precision counts
  extra boxes as false. Half and tile accuracy over crops where the tile was found.
* `realval_halves` (`realval/halves`): the reader alone on each crop, resized to its input.
  The crops come with the divider at the top or the bottom, so the crop and its 180-degree
  turn are both classified and their probabilities averaged (a pip count does not change
  when turned; the reader was trained with the divider at the bottom).

The two reader-only sets open only the reader model (`SET_MODELS`): they run before any
detector exists. The set of a photo (double-6, double-12) is the user's setting in
`dominocam read --set`; here it comes from each label (`set` of a scene, the source of a tile
crop).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from tqdm import tqdm

from dominocam.errors import UserInputError
from dominocam.measure.calibrate import label_real, label_synthetic
from dominocam.measure.metrics import LENGTH_METRICS, Rate, tile_key
from dominocam.measure.scoring import (
    Failure,
    SetResult,
    scene_predictions,
    score_boxed_image,
    score_print_image,
    score_scene_photo,
    score_tile_crop,
)
from dominocam.measure.truth import held_out, set_max, synthetic_truth, synthetic_visibility
from dominocam.vision.confidence import CALIBRATION_FILE, load_calibration
from dominocam.vision.detector import CLOSEUP_BORDER, MAX_UPSCALE, Detector
from dominocam.vision.geometry import frame_in_grey
from dominocam.vision.image_io import IMAGE_SUFFIXES, load_image
from dominocam.vision.onnx_model import MODEL_FILES, file_sha256, resolve_model_path
from dominocam.vision.overlaps import OVERLAP_THRESHOLD
from dominocam.vision.pipeline import Models
from dominocam.vision.reader import BACK_CLASS, BACK_MIN, Reader
from dominocam.vision.reading import PhotoReader
from dominocam.vision.scene import Scene, SceneTile
from dominocam.vision.verifier import Verifier
from dominosynth.tile_crops import (
    random_crop_span,
    shrink_window,
    tile_crop_candidates,
    tile_crop_window,
)

if TYPE_CHECKING:
    from dominocam.vision.confidence import Calibration
    from dominocam.vision.detector import Detector
    from dominocam.vision.reader import Reader

SETS = (
    "synthetic",
    "synthetic_halves",
    "synthetic_tiles",
    "synthetic_print",
    "realval_scenes",
    "realval_tiles",
    "realval_halves",
)
# The folder flag each set reads, and the models it runs: the reader-only sets never open the
# detector file, so they can be measured before any detector exists.
SET_FOLDER: dict[str, str] = {
    "synthetic": "synthetic",
    "synthetic_halves": "synthetic",
    "synthetic_tiles": "synthetic",
    "synthetic_print": "synthetic_print",
    "realval_scenes": "realval",
    "realval_tiles": "realval",
    "realval_halves": "realval",
}
SET_MODELS: dict[str, tuple[str, ...]] = {
    "synthetic": ("detector", "reader"),
    "synthetic_halves": ("reader",),
    "synthetic_tiles": ("detector", "reader"),
    "synthetic_print": ("detector", "reader"),
    "realval_scenes": ("detector", "reader"),
    "realval_tiles": ("detector", "reader"),
    "realval_halves": ("reader",),
}


def _progress(items, desc: str, quiet: bool):
    return tqdm(items, desc=desc, unit="img", disable=quiet, leave=False)


def eval_synthetic(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    """Score the val split of a `dominocam synth` folder."""
    images_dir = root / "detector" / "images" / "val"
    truth_dir = root / "truth"
    if not images_dir.is_dir() or not truth_dir.is_dir():
        raise UserInputError(
            f"--synthetic {root}: expected detector/images/val/ and truth/ (a `dominocam synth` "
            "output folder)"
        )
    files = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    files = files[:limit] if limit else files
    min_visible, min_readable = synthetic_visibility(root)
    result = SetResult(
        "synthetic",
        note=f"{root} val split; reading scored on tiles >= {min_readable:.0%} visible, "
        "photo totals where every tile that counts is scored",
    )
    start = time.perf_counter()
    for path in _progress(files, "synthetic", quiet):
        truth_file = truth_dir / f"{path.stem}.json"
        if not truth_file.is_file():
            raise UserInputError(f"no truth file {truth_file} for {path}")
        truth, ignore, top, photo = synthetic_truth(truth_file, min_visible, min_readable)
        scene = models.photo_reader().read(load_image(path), "table", top)
        review = scene.needs_review if models.calibration is not None else None
        score_boxed_image(result, str(path), truth, scene_predictions(scene), ignore, photo, review)
        if models.calibration is not None:
            result.calibration_points += probability_points(scene, truth_file=truth_file)
    result.seconds = time.perf_counter() - start
    return result


def eval_synthetic_print(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    """Score the val split of a print set (`dominocam synth --config print`): the real
    tiles as `eval_synthetic` scores them, and the printed dominoes read as tiles."""
    images_dir = root / "detector" / "images" / "val"
    truth_dir = root / "truth"
    if not images_dir.is_dir() or not truth_dir.is_dir():
        raise UserInputError(
            f"--synthetic-print {root}: expected detector/images/val/ and truth/ (a "
            "`dominocam synth --config print` output folder)"
        )
    files = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    files = files[:limit] if limit else files
    min_visible, min_readable = synthetic_visibility(root)
    result = SetResult(
        "synthetic_print",
        note=f"{root} val split; no printed domino in `tiles`, over the pictures showing one",
    )
    start = time.perf_counter()
    for path in _progress(files, "synthetic print", quiet):
        truth_file = truth_dir / f"{path.stem}.json"
        if not truth_file.is_file():
            raise UserInputError(f"no truth file {truth_file} for {path}")
        truth, ignore, top, photo = synthetic_truth(truth_file, min_visible, min_readable)
        printed = [
            np.asarray(p["corners"], dtype=float)
            for p in json.loads(truth_file.read_text()).get("printed", [])
        ]
        scene = models.photo_reader().read(load_image(path), "table", top)
        review = scene.needs_review if models.calibration is not None else None
        score_print_image(
            result,
            str(path),
            truth,
            printed,
            scene_predictions(scene),
            [t.doubtful for t in scene.tiles],
            ignore,
            photo,
            review,
        )
    result.seconds = time.perf_counter() - start
    return result


def synthetic_tile_crops(root: Path, limit: int | None):
    """Yield (crop file, 100x100 crop, true tile, set top value) for `synthetic_tiles`.

    The crops are also written to `root/tile_crops/` (the same every time: the span of each
    is seeded by its picture) so that failure galleries can show them.
    """

    images_dir, truth_dir = root / "detector" / "images" / "val", root / "truth"
    if not images_dir.is_dir() or not truth_dir.is_dir():
        raise UserInputError(f"--synthetic {root}: expected detector/images/val/ and truth/")
    crops_dir = root / "tile_crops"
    crops_dir.mkdir(exist_ok=True)
    made = 0
    for path in sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        data = json.loads((truth_dir / f"{path.stem}.json").read_text())
        shape = (int(data["image"]["height"]), int(data["image"]["width"]))
        rng = np.random.default_rng(int(data["generator"]["index"]))
        image = None
        for tile, corners, others in tile_crop_candidates(data):
            window = tile_crop_window(corners, others, shape, random_crop_span(rng))
            if window is None:
                continue
            image = load_image(path) if image is None else image
            crop = shrink_window(image, window)
            crop_path = crops_dir / f"{path.stem}_tile{tile['id']}.png"
            if not crop_path.is_file():
                cv2.imwrite(str(crop_path), crop)
            yield crop_path, crop, tile_key(tile["pips"]), set_max(data.get("set"))
            made += 1
            if limit and made >= limit:
                return


def add_border(image: np.ndarray, fraction: float) -> np.ndarray:
    """`image` framed by a grey border `fraction` of its longer side wide on every side.

    A probe of scale: a close-up whose tile fills the frame becomes a tile on a plain table,
    as long in the detector's input as `1 / (1 + 2 * fraction)` of the input. (The runtime's
    close-up pass frames a picture with few boxes the same way, `dominocam.vision.detector`.)
    """
    return frame_in_grey(image, fraction)[0] if fraction > 0 else image


def _border_note(border: float) -> str:
    return f", framed by a grey border {border:g} of the longer side" if border > 0 else ""


def eval_synthetic_tiles(
    models, root: Path, limit: int | None, quiet: bool, border: float = 0.0
) -> SetResult:
    """The pipeline on single-tile crops cut from the synthetic val pictures (module doc)."""

    note = f"{root} val tiles cut out, shrunk to 100 px{_border_note(border)}"
    result = SetResult("synthetic_tiles", note=note)
    start = time.perf_counter()
    crops = synthetic_tile_crops(root, limit)
    for path, crop, pips, top in _progress(crops, "synthetic tiles", quiet):
        image = add_border(crop, border)
        scene = models.photo_reader().read(image, "table", top)
        score_tile_crop(result, str(path), pips, scene_predictions(scene))
    result.seconds = time.perf_counter() - start
    return result


def eval_realval_scenes(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    labels = json.loads((root / "scenes" / "labels.json").read_text())
    labels = labels[:limit] if limit else labels
    result = SetResult("realval_scenes", note="identity labels, no boxes: count-based detection")
    start = time.perf_counter()
    for label in _progress(labels, "real scenes", quiet):
        path = root / "scenes" / label["image"]
        kind = "hand" if label.get("hand") else "table"  # a hand photo is read as one
        scene = models.photo_reader().read(load_image(path), kind, set_max(label["set"]))
        review = scene.needs_review if models.calibration is not None else None
        points = probability_points(scene, label=label) if models.calibration is not None else []
        part = result.parts.setdefault(
            scene_part(label),
            SetResult(f"realval_scenes_{scene_part(label)}", note=SCENE_PARTS[scene_part(label)]),
        )
        for target in (result, part):
            score_scene_photo(
                target, str(path), label, scene_predictions(scene), scene.layout.open_ends, review
            )
            target.calibration_points += points
    result.seconds = time.perf_counter() - start
    return result


# The parts of realval/scenes scored apart: the 42 photos the runtime was first measured on,
# and the 66 added later from three other sources (labels with `free_ends` or `hand`).
SCENE_PARTS = {
    "first42": "the first 42 photos (DomiBot, jmherzog): the runtime was first measured on them",
    "new66": "the 66 photos added later (Guix266, ljparrish, MikeyGBG)",
}


def scene_part(label: dict) -> str:
    """`first42` or `new66` for one label of realval/scenes (`SCENE_PARTS`)."""
    return "new66" if held_out(label) else "first42"


def probability_points(
    scene, label: dict | None = None, truth_file: Path | None = None
) -> list[tuple[float, bool]]:
    """(probability, read right) of every box of an assessed Scene, its tiles and its
    rejected boxes, labelled as `dominocam calibrate` labels them
    (`dominocam.measure.calibrate`)."""
    boxes = [(t.probability, t.face, t.corners, t.pips) for t in scene.tiles]
    boxes += [(b.probability, b.face, b.corners, b.pips) for b in scene.rejected]
    boxes = [b for b in boxes if b[0] is not None]
    if not boxes:
        return []
    every = Scene(
        scene.width,
        scene.height,
        [
            SceneTile(i, face, corners, p, pips if face == "up" else None)
            for i, (p, face, corners, pips) in enumerate(boxes)
        ],
    )
    if truth_file is not None:
        photo = label_synthetic(every, truth_file, truth_file.name)
    else:
        assert label is not None
        photo = label_real(every, label)
    return [
        (b[0], bool(r.right))
        for b, r in zip(boxes, photo.boxes, strict=True)
        if r.right is not None
    ]


def eval_realval_tiles(
    models, root: Path, limit: int | None, quiet: bool, border: float = 0.0
) -> SetResult:
    labels = json.loads((root / "tiles" / "labels.json").read_text())
    labels = labels[:limit] if limit else labels
    result = SetResult("realval_tiles", note=f"pipeline on each whole crop{_border_note(border)}")
    start = time.perf_counter()
    for label in _progress(labels, "real tiles", quiet):
        path = root / "tiles" / label["image"]
        top = 12 if "12" in str(label.get("note", "")) else 6
        image = add_border(load_image(path), border)
        scene = models.photo_reader().read(image, "table", top)
        score_tile_crop(result, str(path), tile_key(label["pips"]), scene_predictions(scene))
    result.seconds = time.perf_counter() - start
    return result


def classify_half_crops(reader, images: list[np.ndarray]) -> np.ndarray:
    """(N, V) probabilities of each crop and its 180-degree turn, averaged."""
    side = reader.side
    crops = np.stack([cv2.resize(im, (side, side), interpolation=cv2.INTER_AREA) for im in images])
    turned = np.ascontiguousarray(crops[:, ::-1, ::-1])
    probs = reader.classify(np.concatenate([crops, turned]))
    return (probs[: len(crops)] + probs[len(crops) :]) / 2


def score_halves(
    result: SetResult, paths: list[Path], truths: list[int], probs: np.ndarray
) -> None:
    """Score reader-only half crops: argmax of each row of `probs` against its label."""
    for path, truth, p in zip(paths, truths, probs, strict=True):
        read = int(np.argmax(p))
        result.images += 1
        result.add("half_accuracy", read == truth, 1)
        result.halves.append((truth, read))
        if read != truth:
            text = f"{truth} read as {read} (p={p[read]:.2f})"
            result.failures.append(Failure(result.name, str(path), 1.0 + float(p[read]), [text]))


def eval_realval_halves(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    labels = json.loads((root / "halves" / "labels.json").read_text())
    labels = labels[:limit] if limit else labels
    result = SetResult("realval_halves", note="reader only; crop and its 180-degree turn averaged")
    start = time.perf_counter()
    paths = [root / "halves" / label["image"] for label in labels]
    images = [load_image(p) for p in _progress(paths, "real halves", quiet)]
    probs = classify_half_crops(models.reader, images) if images else np.zeros((0, 13))
    score_halves(result, paths, [int(label["pips"]) for label in labels], probs)
    result.seconds = time.perf_counter() - start
    return result


def eval_synthetic_halves(models, root: Path, limit: int | None, quiet: bool) -> SetResult:
    """The reader alone on the val half crops `dominocam synth` wrote (reader/val/<value>/);
    with a reader that has a `back` class and a set with reader/val/back/ crops, also how
    often a back is read as a back and a face as a back (`dominocam.vision.reader.BACK_MIN`)."""

    folder = root / "reader" / "val"
    if not folder.is_dir():
        raise UserInputError(f"--synthetic {root}: no reader/val/ folder")
    items = sorted(
        (p, int(p.parent.name)) for p in folder.glob("*/*.png") if p.parent.name.isdigit()
    )
    backs = sorted((folder / BACK_CLASS).glob("*.png")) if models.reader.has_back else []
    if limit:
        items = items[:: max(1, len(items) // limit)][:limit]
        backs = backs[:: max(1, len(backs) // limit)][:limit]
    result = SetResult("synthetic_halves", note=f"{folder}: reader only, crops as written")
    start = time.perf_counter()
    side = models.reader.side
    paths = [p for p, _ in items] + backs
    values, back = [], []
    for chunk in _progress(range(0, len(paths), 256), "synthetic halves", quiet):
        crops = [
            cv2.resize(cv2.imread(str(p)), (side, side), interpolation=cv2.INTER_AREA)
            for p in paths[chunk : chunk + 256]
        ]
        reads = models.reader.classify_halves(np.stack(crops))
        values.append(reads.values)
        back.append(reads.back)
    probs = np.concatenate(values) if values else np.zeros((0, 13))
    back_probs = np.concatenate(back) if back else np.zeros(0)
    faces = len(items)
    score_halves(result, paths[:faces], [v for _, v in items], probs[:faces])
    if backs:
        result.add("back_read_as_back", int((back_probs[faces:] >= BACK_MIN).sum()), len(backs))
        result.add("face_read_as_back", int((back_probs[:faces] >= BACK_MIN).sum()), faces)
    result.seconds = time.perf_counter() - start
    return result


@dataclass
class EvalModels:
    """The models the chosen sets run; one that no chosen set runs is None (never opened).
    `closeups` and `far_tiles`: whether `read_image` takes its second looks (at pictures
    with few boxes, and at photos whose tiles are small at the network input)."""

    detector: Detector | None = None
    reader: Reader | None = None
    closeups: bool = True
    far_tiles: bool = True
    calibration: Calibration | None = None
    calibration_path: Path | None = None

    @property
    def passes(self) -> dict[str, bool]:
        """The second looks, as `read_image` keywords."""
        return {"closeups": self.closeups, "far_tiles": self.far_tiles}

    def photo_reader(self) -> PhotoReader:
        """These models read as the product reads a photo (`dominocam.vision.reading.PhotoReader`:
        `dominocam read`, the dashboard), with the second looks chosen and the calibration
        (None: without one, `--no-calibration`)."""
        assert self.detector is not None and self.reader is not None, "a set that reads photos"
        return PhotoReader(
            Models(self.detector, self.reader, self.calibration),
            closeups=self.closeups,
            far_tiles=self.far_tiles,
        )


# The labels file of each real set, inside the --realval folder.
REALVAL_LABELS = {
    "realval_scenes": "scenes/labels.json",
    "realval_tiles": "tiles/labels.json",
    "realval_halves": "halves/labels.json",
}


def sets_to_run(
    wanted: Iterable[str],
    synthetic: Path | None,
    realval: Path | None,
    synthetic_print: Path | None = None,
) -> list[str]:
    """The wanted sets whose folder was given, in `SETS` order."""
    given = {
        "synthetic": synthetic is not None,
        "realval": realval is not None,
        "synthetic_print": synthetic_print is not None,
    }
    wanted = set(wanted)
    return [s for s in SETS if s in wanted and given[SET_FOLDER[s]]]


def load_eval_models(
    sets: Iterable[str],
    detector: str | None = None,
    reader: str | None = None,
    threads: int | None = None,
    conf: float | None = None,
    iou: float | None = None,
    overlap: float | None = OVERLAP_THRESHOLD,
    max_upscale: float | None = MAX_UPSCALE,
    closeup_border: float = CLOSEUP_BORDER,
) -> EvalModels:
    """Open only the models that `sets` run (`SET_MODELS`), with `dominocam read`'s defaults
    unless `conf` / `iou` (the detector's thresholds) are given; `overlap` is the detector's
    overlapping-box threshold (None keeps overlapping boxes), `max_upscale` how far it enlarges a
    small picture (None: to fill its input), `closeup_border` the close-up pass's frame.

    Raises:
        UserInputError: a needed model file is missing or unreadable.
    """
    kinds = {kind for s in sets for kind in SET_MODELS[s]}
    models = EvalModels()
    if "detector" in kinds:
        thresholds = {k: v for k, v in (("conf", conf), ("iou", iou)) if v is not None}
        detector_path = resolve_model_path("detector", detector)
        models.detector = Detector(
            detector_path,
            threads=threads,
            overlap=overlap,
            max_upscale=max_upscale,
            closeup_border=closeup_border,
            **thresholds,
        )
        # The verifier beside the detector, as `dominocam.vision.pipeline.load_models` takes it.
        beside = detector_path.parent / MODEL_FILES["verifier"]
        if beside.is_file():
            models.detector.verifier = Verifier(beside, threads=threads)
    if "reader" in kinds:
        models.reader = Reader(resolve_model_path("reader", reader), threads=threads)
    return models


def run_eval(
    synthetic: Path | None,
    realval: Path | None,
    detector: str | None = None,
    reader: str | None = None,
    sets: Iterable[str] | None = None,
    limit: int | None = None,
    threads: int | None = None,
    quiet: bool = False,
    conf: float | None = None,
    iou: float | None = None,
    overlap: float | None = OVERLAP_THRESHOLD,
    max_upscale: float | None = MAX_UPSCALE,
    border: float = 0.0,
    closeup_border: float = CLOSEUP_BORDER,
    closeups: bool = True,
    far_tiles: bool = True,
    calibrated: bool = True,
    calibration: str | None = None,
    synthetic_print: Path | None = None,
) -> dict[str, SetResult]:
    """Evaluate the runtime on the chosen sets; returns the results by set name (a set's
    parts, such as the real scenes' first 42 and new 66, under their own names), and the
    `EvalModels` under "_models". `border` frames every tile crop (`add_border`);
    `calibrated` reads as the product does, with the committed calibration (or the file
    `calibration`), False without any. `synthetic_print`: a print set's folder
    (`dominocam synth --config print`) for the set of that name."""
    wanted = set(sets or SETS)
    unknown = wanted - set(SETS)
    if unknown:
        raise UserInputError(f"unknown set(s) {sorted(unknown)}; valid: {list(SETS)}")
    if synthetic is None and realval is None and synthetic_print is None:
        raise UserInputError(
            "nothing to evaluate: give --synthetic DIR, --synthetic-print DIR and/or --realval DIR"
        )
    running = sets_to_run(wanted, synthetic, realval, synthetic_print)
    for name in running:  # each real set reads its own labels
        labels = REALVAL_LABELS.get(name)
        if labels and not (Path(realval) / labels).is_file():  # type: ignore[arg-type]
            raise UserInputError(f"--realval {realval}: no {labels} there")
    if not running:
        flags = " and ".join(sorted({f"--{SET_FOLDER[s].replace('_', '-')} DIR" for s in wanted}))
        raise UserInputError(
            f"nothing to evaluate: set(s) {', '.join(sorted(wanted))} need {flags}"
        )
    models = load_eval_models(
        running, detector, reader, threads, conf, iou, overlap, max_upscale, closeup_border
    )
    models.closeups, models.far_tiles = closeups, far_tiles
    if calibrated and models.detector is not None:
        # As `load_models`: the file given, else the one beside the detector, else none.
        beside = Path(models.detector.path).parent / CALIBRATION_FILE
        if calibration is not None or beside.is_file():
            models.calibration_path = Path(calibration or beside)
            models.calibration = load_calibration(models.calibration_path)
    evaluators = {
        "synthetic": (eval_synthetic, synthetic),
        "synthetic_halves": (eval_synthetic_halves, synthetic),
        "synthetic_tiles": (partial(eval_synthetic_tiles, border=border), synthetic),
        "synthetic_print": (eval_synthetic_print, synthetic_print),
        "realval_scenes": (eval_realval_scenes, realval),
        "realval_tiles": (partial(eval_realval_tiles, border=border), realval),
        "realval_halves": (eval_realval_halves, realval),
    }
    results: dict[str, SetResult] = {}
    for name in running:
        fn, root = evaluators[name]
        results[name] = fn(models, Path(root), limit, quiet)
        for part in sorted(results[name].parts):
            results[results[name].parts[part].name] = results[name].parts[part]
    results["_models"] = models  # type: ignore[assignment]
    return results


def describe_models(models: EvalModels) -> dict:
    """Paths, hashes and metadata of the evaluated models (those opened), for the JSON."""
    out: dict[str, Any] = {}
    if models.calibration is not None:
        out["calibration"] = {
            "thresholds": models.calibration.to_dict()["thresholds"],
            "features": list(models.calibration.features),
        }
        if models.calibration_path is not None:
            path = models.calibration_path
            out["calibration"].update(path=str(path), sha256=file_sha256(path))
    verifier = getattr(models.detector, "verifier", None)
    if verifier is not None:
        path = Path(verifier.path)
        out["verifier"] = {"path": str(path), "sha256": file_sha256(path)}
    for kind in ("detector", "reader"):
        model = getattr(models, kind)
        if model is None:
            continue
        path = Path(model.path)
        out[kind] = {"path": str(path), "sha256": file_sha256(path), "bytes": path.stat().st_size}
        if kind == "detector":  # the thresholds change every detection figure
            out[kind].update(
                conf=model.conf,
                iou=model.iou,
                overlap=model.overlap,
                max_upscale=model.max_upscale,
                closeup_border=model.closeup_border,
                rect_input=model.rect_input,
                **models.passes,
            )
    return out


def format_table(results: dict[str, SetResult]) -> str:
    """The printed table: one block per set, one line per metric."""
    lines = []
    for name, result in results.items():
        lines.append(f"{name}: {result.images} images, {result.seconds:.1f} s ({result.note})")
        for metric, rate in result.metrics().items():
            lines.append(f"  {metric:<26} {rate}")
        if result.by_length:
            lines.append(f"  by tile length (px): {', '.join(LENGTH_METRICS)}")
            for group, rates in result.length_metrics().items():
                cells = [_short_rate(rates.get(m)) for m in LENGTH_METRICS]
                lines.append(f"    {group:<8} " + "  ".join(f"{c:<17}" for c in cells))
    return "\n".join(lines)


def _short_rate(rate: Rate | None) -> str:
    """'0.9660 (197/204)' or '-'."""
    return f"{rate.value:.4f} ({rate.k}/{rate.n})" if rate and rate.n else "-"
