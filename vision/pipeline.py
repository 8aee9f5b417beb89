"""From an image to a Scene: detect, read, decode jointly, rebuild the layout.

    scene = read_image(load_image("table.jpg"), detector, reader, set_max=12)

`read_image` returns its result and stores nothing, so one Detector and one Reader can serve
several threads (the Flask dev server is threaded).

The product reads through `dominocam.vision.reading.PhotoReader`, which decides the options below
for each kind of photo (table or hand) once; `read_image` is the lower level, for measuring a stage
alone or with another option.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from time import perf_counter

import numpy as np

from dominocam.vision import geometry, messages
from dominocam.vision.confidence import (
    CALIBRATION_FILE,
    Calibration,
    load_calibration,
    mark_doubtful,
    reject_boxes,
    review_scene,
)
from dominocam.vision.decode import AdjacencyConstraint, joint_decode
from dominocam.vision.detector import (
    CLOSEUP_BORDER,
    CLOSEUP_MAX_BOXES,
    Detection,
    Detector,
    frame_for_closeups,
    merge_closeups,
)
from dominocam.vision.layout import AUTO, GapCheck, LayoutConfig, layout_scene, safe_adjacency
from dominocam.vision.notes import Note, note, renumbered
from dominocam.vision.onnx_model import MODEL_FILES, resolve_model_path
from dominocam.vision.reader import BACK_SURE, HalfReads, Reader, shows_back
from dominocam.vision.scene import RejectedBox, Scene, SceneTile
from dominocam.vision.settings import DETECTOR_CONF, NMS_IOU
from dominocam.vision.verifier import Verifier

# Stages timed by `read_image(..., timings=...)` (detect is split in three).
STAGES: tuple[str, ...] = (
    "preprocess",
    "forward",
    "postprocess",
    "verify",
    "read",
    "decode",
    "layout",
)

# A box the verifier scores below this is not a tile: it leaves the Scene. The highest
# threshold that keeps 99 % of the tile crops of the verifier's synthetic val split (4042 of
# 4082 at 0.244; it leaves out 1636 of 1695 boxes that are not tiles), rounded down; chosen
# on synthetic data only, never on real photos (models/verifier.md). The calibrated tile
# probability replaces this single threshold where it exists.
VERIFIER_THRESHOLD = 0.2

# A first look that holds no probable tile is searched again in windows (`searched_afar`);
# the search counts from this many probable tiles. Chosen on the calibration's fit pictures
# (the train splits of synth-s41-n300 and negatives-s43-n80): of the 22 first looks there
# without a probable tile, the 2 on tables found 11 and 3 tiles, all real; the 20 on no tile
# found none 15 times, 1 four times and 3 once (docs/decisions/2026-12-02-a-look-past-clutter.md).
MIN_TILES_AFAR = 3

# Given the Scene after a first decoding, the pairs of touching halves that must agree
# (the layout module's hook); an empty list means nothing to add.
AdjacencyFn = Callable[[Scene], Sequence[AdjacencyConstraint]]


@dataclass
class Models:
    """The detector (with its verifier, when there is one), the reader and the calibration
    of their scores, loaded once and shared.

    `calibration` is None where no `calibration.json` lies beside the detector: tiles then
    carry no probability and nothing is rejected or marked doubtful.
    """

    detector: Detector
    reader: Reader
    calibration: Calibration | None = None

    @property
    def verifier(self) -> Verifier | None:
        return self.detector.verifier


def load_models(
    detector: str | os.PathLike[str] | None = None,
    reader: str | os.PathLike[str] | None = None,
    *,
    threads: int | None = None,
    conf: float = DETECTOR_CONF,
    iou: float = NMS_IOU,
    verifier: str | os.PathLike[str] | None = None,
    calibration: str | os.PathLike[str] | None = None,
) -> Models:
    """Open the models (paths default to $DOMINOCAM_MODELS or the repository's models/).

    The verifier is optional: without `verifier` it is the `verifier.onnx` beside the
    detector's file when there is one (a verifier is trained on one detector's boxes). So is
    the calibration: `calibration.json` beside the detector, or the file named (which must
    exist); it fits the models it was fitted with.

    Raises:
        UserInputError: a model file is missing or unreadable (the message says how to get it).
    """
    detector_path = resolve_model_path("detector", detector)
    reader_path = resolve_model_path("reader", reader)
    if verifier is not None:
        verifier_path: Path | None = resolve_model_path("verifier", verifier)
    else:
        beside_verifier = detector_path.parent / MODEL_FILES["verifier"]
        verifier_path = beside_verifier if beside_verifier.is_file() else None
    loaded = Detector(detector_path, conf=conf, iou=iou, threads=threads)
    if verifier_path is not None:
        loaded.verifier = Verifier(verifier_path, threads=threads)
    beside = _beside(detector_path)
    return Models(
        detector=loaded,
        reader=Reader(reader_path, threads=threads),
        calibration=load_calibration(calibration or beside) if calibration or beside else None,
    )


def _beside(detector_path: os.PathLike[str] | str) -> os.PathLike[str] | None:
    """The calibration of a detector: `calibration.json` in its folder, where there is one
    (a calibration fits the models it was fitted with, so it is looked for beside them)."""
    path = Path(detector_path).parent / CALIBRATION_FILE
    return path if path.is_file() else None


def read_image(
    image: np.ndarray,
    detector: Detector,
    reader: Reader | None,
    set_max: int = 12,
    *,
    adjacency: AdjacencyFn | None = None,
    timings: dict[str, float] | None = None,
    with_layout: bool = True,
    layout_config: LayoutConfig | None = None,
    closeups: bool = True,
    far_tiles: bool = True,
    calibration: Calibration | None = None,
    verifier_threshold: float | None = None,
    rejected: list[Detection] | None = None,
    review_rejected: float | None = None,
) -> Scene:
    """Read one photo into a Scene.

    Args:
        image: BGR uint8 HxWx3 at full resolution (see `dominocam.vision.image_io.load_image`).
        detector: the tile detector.
        reader: the pip reader; None leaves face-up tiles unread (with a warning).
        set_max: the set's highest value (6, 9, 12 or 15).
        adjacency: layout hook, called with the decoded Scene; the touching halves it
            returns are decoded again jointly (see `dominocam.vision.decode.joint_decode`). By
            default (None) a table photo uses `dominocam.vision.layout.safe_adjacency`: only halves
            in contact where one read is doubtful and a value fits both; a hand photo uses none.
        timings: when given, seconds per stage of `STAGES` are added to it. with_layout: rebuild
        lines and open ends (`dominocam.vision.layout`); False for a hand photo,
            whose tiles lie side by side without being played.
        layout_config: the layout kind and tolerances (`dominocam.vision.layout.LayoutConfig`).
        closeups: when the first detection finds few boxes, detect again in the picture
            framed by grey, for a tile too big for the detector's input
            (`dominocam.vision.detector.merge_closeups`); False skips that second pass.
        far_tiles: when the first detection's tiles are small at the network input, detect
            again in overlapping windows of the photo (`Detector.detect_far_tiles`); False
            skips that.
        calibration: turns the scores into each tile's `probability` and acts on it
            (`dominocam.vision.confidence`): boxes that are probably not tiles go to `rejected`,
            probably misread tiles are `doubtful`, and `needs_review` says why in
            `warnings`. None (the default) leaves tiles unassessed.
        verifier_threshold: boxes the detector's verifier scores below this are left out.
            None (the default) keeps every box, each with its `verifier_score`, for the
            calibrated tile probability to weigh: at `VERIFIER_THRESHOLD` the verifier alone
            also leaves out real tiles (models/verifier.md).
        rejected: when given, the boxes left out by the verifier are appended to it.
        review_rejected: a box the calibration leaves out asks for a review from this tile
            probability (`p_tile`) on; None: the calibration's own `review_rejected`. A hand
            photo asks from `dominocam.vision.settings.HAND_REVIEW_REJECTED` (`PhotoReader.read`).

    Returns:
        The Scene; an image without tiles gives a Scene without tiles, not an error.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 HxWx3 image, got {image.dtype} {image.shape}")
    height, width = image.shape[:2]
    detections = detect_tiles(
        image, detector, timings=timings, closeups=closeups, far_tiles=far_tiles
    )
    if verifier_threshold is not None:
        verified = [
            d.verifier_score is None or d.verifier_score >= verifier_threshold for d in detections
        ]
        if rejected is not None:
            rejected.extend(d for d, ok in zip(detections, verified, strict=True) if not ok)
        detections = [d for d, ok in zip(detections, verified, strict=True) if ok]
    # Reading order: top to bottom, then left to right (ids are stable for a still table).
    if detections:
        centres = np.array([d.corners for d in detections]).mean(axis=1)
        keys = [(round(float(y) / 8), x) for x, y in centres.tolist()]
        order = sorted(range(len(detections)), key=keys.__getitem__)
        detections = [detections[i] for i in order]

    warnings: list[str] = []
    tiles = [
        SceneTile(
            id=i,
            face=d.face or "down",
            corners=d.corners,
            confidence=d.score,
            verifier_score=d.verifier_score,
        )
        for i, d in enumerate(detections)
    ]

    t0 = perf_counter()
    up = [t for t in tiles if t.face == "up"]
    if up and reader is not None:
        reads = reader.read_halves(image, [t.corners for t in up])
        for tile, p in zip(up, reads.values, strict=True):
            tile.half_probs = p
        tiles, back_warnings = backs_face_down(tiles, up, reads)
        warnings += back_warnings
    elif up:
        warnings.append(note(messages.NOT_READ, count=len(up)))
    rejected_boxes: list[RejectedBox] = []
    rejected_p: tuple[float, ...] = ()
    if calibration is not None:
        # Before joint decoding: a false box must not take a real tile's value from it.
        before = tiles
        tiles, rejected_boxes, rejected_p = reject_boxes(tiles, calibration, set_max)
        warnings = _renumbered(warnings, before, tiles)
    cut = geometry.boxes_cut_by_border(np.array([t.corners for t in tiles]), width, height)
    warnings += [
        note(messages.CUT_BY_BORDER, tile=t.id) for t, c in zip(tiles, cut, strict=True) if c
    ]
    t1 = perf_counter()
    tiles, decode_warnings = joint_decode(tiles, set_max)
    config = layout_config or LayoutConfig(kind=AUTO)
    if adjacency is None and with_layout:

        def adjacency(scene: Scene) -> Sequence[AdjacencyConstraint]:
            return safe_adjacency(scene, config)

    if adjacency is not None:
        constraints = list(adjacency(Scene(width, height, tiles)))
        if constraints:
            tiles, decode_warnings = joint_decode(tiles, set_max, constraints)
    t2 = perf_counter()
    if timings is not None:
        timings["read"] = timings.get("read", 0.0) + (t1 - t0)
        timings["decode"] = timings.get("decode", 0.0) + (t2 - t1)
    if calibration is not None:
        tiles = mark_doubtful(tiles, calibration)
    scene = Scene(
        width=width,
        height=height,
        tiles=tiles,
        warnings=warnings + decode_warnings,
        rejected=rejected_boxes,
    )
    if with_layout:
        scene = layout_scene(scene, config, gap_check_of(image, detector))
    if calibration is not None:
        scene = review_scene(scene, calibration, set_max, rejected_p, review_rejected)
    if timings is not None:
        timings["layout"] = timings.get("layout", 0.0) + (perf_counter() - t2)
    return scene


def gap_check_of(image: np.ndarray, detector: Detector) -> GapCheck | None:
    """The layout's look at a gap where a tile may be missing (`dominocam.vision.layout.GapCheck`):
    the detector's verifier on those boxes of this photo, the highest score; None without a
    verifier."""
    # getattr: a stand-in detector (tests, tools) need not carry the attribute.
    verifier = getattr(detector, "verifier", None)
    if verifier is None:
        return None

    def gap_check(boxes: np.ndarray) -> float:
        return float(verifier.scores(image, list(boxes)).max()) if len(boxes) else 0.0

    return gap_check


def detect_tiles(
    image: np.ndarray,
    detector: Detector,
    *,
    timings: dict[str, float] | None = None,
    closeups: bool = True,
    far_tiles: bool = True,
) -> list[Detection]:
    """The detector's tile boxes in `image`, with the close-up and far-tile passes
    (`read_image` explains them), each scored by the detector's verifier when it has one
    (`Detection.verifier_score`; the time goes to the "verify" stage).

    The look in windows is taken when the first look's boxes are small at the input, and
    also when the boxes the verifier takes for tiles are (`probable_tiles`): on a cluttered
    table the first look may box only grass or wood grain, large and confident, while the
    tiles are too small at the input to be boxed at all. So a first look that holds no
    probable tile looks again larger before the Scene may say the table is empty; what
    that search adds is `searched_afar`.
    """
    detections = first_look(image, detector, timings=timings, closeups=closeups)
    # After the close-up pass: the halves and pips of a tile filling the frame are small
    # boxes, which would otherwise ask for a look in windows.
    if far_tiles:
        probable = probable_tiles(detections)
        looked = look_in_windows(image, detector, detections, probable, timings)
        detections = looked if probable else searched_afar(detections, looked)
    return detections


def first_look(
    image: np.ndarray,
    detector: Detector,
    *,
    timings: dict[str, float] | None = None,
    closeups: bool = True,
) -> list[Detection]:
    """The detector's boxes in the photo itself, with the close-up pass when few are found,
    each scored by the verifier."""
    height, width = image.shape[:2]
    detections = detector.detect(image, timings)
    if closeups and len(detections) <= CLOSEUP_MAX_BOXES:
        # getattr: a stand-in detector (tests, tools) need not carry the attribute.
        framed, pad = frame_for_closeups(image, getattr(detector, "closeup_border", CLOSEUP_BORDER))
        detections = merge_closeups(
            detections, detector.detect(framed, timings), pad, (height, width)
        )
    detections = [d for d in detections if d.face is not None]
    verify_boxes(image, detector, detections, timings)
    return detections


def look_in_windows(
    image: np.ndarray,
    detector: Detector,
    first: list[Detection],
    probable: list[Detection],
    timings: dict[str, float] | None = None,
) -> list[Detection]:
    """`first` joined with the boxes of a look in windows where the first look's boxes, or
    its `probable` tiles, are small at the input (`Detector.detect_far_tiles`); the new
    boxes verified. `first` itself when no look is taken."""
    looked = detector.detect_far_tiles(image, first, timings, tiles=probable)
    looked = [d for d in looked if d.face is not None]
    verify_boxes(image, detector, looked, timings)
    return looked


def searched_afar(first: list[Detection], looked: list[Detection]) -> list[Detection]:
    """What a look in windows adds to a first look that holds no probable tile.

    There the windows search a photo that may hold no tile at all, and each window is one
    more chance to box clutter. So the search counts only when it finds a table seen from
    afar, `MIN_TILES_AFAR` probable tiles or more, and then adds those only; otherwise the
    first look stands. `looked` is `first` joined with the windows' boxes, all verified.
    """
    found = probable_tiles([d for d in looked if d.source == "window"])
    if len(found) < MIN_TILES_AFAR:
        return first
    kept = {id(d) for d in found}
    return [d for d in looked if d.source != "window" or id(d) in kept]


def probable_tiles(detections: Sequence[Detection]) -> list[Detection]:
    """The boxes the verifier does not rule out (`VERIFIER_THRESHOLD`); every box that has no
    verifier score."""
    return [
        d for d in detections if d.verifier_score is None or d.verifier_score >= VERIFIER_THRESHOLD
    ]


def verify_boxes(
    image: np.ndarray,
    detector: Detector,
    detections: Sequence[Detection],
    timings: dict[str, float] | None = None,
) -> None:
    """Score with the detector's verifier, in one batch, each box not scored yet (its
    `verifier_score`); nothing without a verifier."""
    t0 = perf_counter()
    # getattr: a stand-in detector (tests, tools) need not carry the attribute.
    verifier = getattr(detector, "verifier", None)
    todo = [d for d in detections if d.verifier_score is None]
    if verifier is not None and todo:
        scores = verifier.scores(image, [d.corners for d in todo])
        for d, score in zip(todo, scores, strict=True):
            d.verifier_score = float(score)
    if timings is not None:  # the stage is reported even when there is nothing to score
        timings["verify"] = timings.get("verify", 0.0) + (perf_counter() - t0)


def backs_face_down(
    tiles: list[SceneTile], up: Sequence[SceneTile], reads: HalfReads
) -> tuple[list[SceneTile], list[str]]:
    """Turn face down the tiles of `up` whose two halves the reader reads as a tile's back
    (`dominocam.vision.reader.shows_back`); a tile turned on a weaker back read than `BACK_SURE` on
    either half is doubtful (the detector and the reader disagree).

    The detector decides face up or down from the letterboxed picture; the reader looks at
    the tile at full resolution and, given a `back` class, tells a plain or patterned back
    from a face (a blank half has the divider line along its edge). `reads` are the reader's
    reads of `up`, in order.
    """
    turned = {
        tile.id: float(back.min())
        for tile, back in zip(up, reads.back, strict=True)
        if shows_back(back)
    }
    if not turned:
        return tiles, []
    out = [
        replace(
            t,
            face="down",
            half_probs=None,
            pips=None,
            pip_confidence=None,
            doubtful=t.doubtful or turned[t.id] < BACK_SURE,
        )
        if t.id in turned
        else t
        for t in tiles
    ]
    warnings: list[str] = [
        note(messages.BACK_BOTH_HALVES, tile=tile_id, p=p) for tile_id, p in turned.items()
    ]
    return out, warnings


def _renumbered(
    warnings: list[str], before: Sequence[SceneTile], after: Sequence[SceneTile]
) -> list[str]:
    """Warnings about `before`, their tile ids renumbered to `after` (the same tiles less the
    rejected ones, same order; matched by their corners); a warning about a rejected box is
    dropped (`dominocam.vision.notes.renumbered`)."""
    if len(before) == len(after):
        return warnings
    new_id: dict[int, int] = {}
    k = 0
    for tile in before:
        if k < len(after) and np.array_equal(tile.corners, after[k].corners):
            new_id[tile.id] = k
            k += 1
    out = []
    for warning in warnings:
        if isinstance(warning, Note):
            moved = renumbered(warning, new_id)
            if moved is None:
                continue
            warning = moved
        out.append(warning)
    return out
