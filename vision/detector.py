"""The tile detector: an ultralytics OBB model exported to ONNX, run with onnxruntime.

The raw output is `[1, 4 + nc + 1, A]`: for each of A anchors cx, cy, w, h (network-input
pixels), nc class scores (already sigmoid), and the angle in radians last. Decoding keeps
anchors above the confidence threshold, suppresses overlaps with probabilistic-IoU NMS (as
ultralytics does), and maps the boxes back to the original image through the letterbox.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

import cv2
import numpy as np

from dominocam.errors import UserInputError
from dominocam.vision import geometry, overlaps
from dominocam.vision.onnx_model import (
    metadata,
    open_session,
    parse_imgsz,
    parse_literal,
    parse_names,
)
from dominocam.vision.overlaps import OVERLAP_THRESHOLD
from dominocam.vision.settings import DETECTOR_CONF, NMS_IOU
from dominocam.vision.verifier import Verifier

# Class names the runtime understands, and the face each one means.
FACE_OF_CLASS: dict[str, str] = {"tile_up": "up", "tile_down": "down"}
# ultralytics offsets boxes of different classes by this many pixels for class-aware NMS.
_MAX_WH = 7680.0


@dataclass
class Detection:
    """One oriented box in original-image pixels.

    Attributes:
        corners: (4, 2) float64 corners, clockwise on screen, corners[0]-corners[1] a short
            edge (the tile convention of `dominocam.vision.geometry`).
        score: detector confidence 0..1.
        class_id: index into the model's `names`.
        name: class name, e.g. "tile_up".
        verifier_score: the verifier's probability that the box holds a real tile, looked
            at in the full-resolution photo (`dominocam.vision.verifier`); None when not verified.
        source: which look found it: "photo" (the whole photo), "closeup" (the photo framed
            by grey, `merge_closeups`) or "window" (the far-tile windows, `merge_slices`);
            the passes' boxes are right less often on real photos (docs/decisions/
            2026-12-01-not-a-tile.md), a fact the calibration may use.
    """

    corners: np.ndarray
    score: float
    class_id: int
    name: str
    verifier_score: float | None = None
    source: str = "photo"

    def __post_init__(self) -> None:
        self.corners = np.asarray(self.corners, dtype=np.float64)
        if self.corners.shape != (4, 2):
            raise ValueError(f"corners must have shape (4, 2), got {self.corners.shape}")
        self.score = float(self.score)
        self.class_id = int(self.class_id)

    @property
    def face(self) -> str | None:
        """ "up", "down", or None for a class that is not a tile."""
        return FACE_OF_CLASS.get(self.name)


# How many times a small picture may be enlarged to fill the network input. Tiles in the
# training pictures are 22..460 px long and sharp; a 100 px crop blown up 6.4x to 640 makes
# a 20..60 px tile a blurred 130..380 px giant that the detector never saw. 2x was chosen on
# synthetic tiles cut out and shrunk (`dominocam eval --sets synthetic_tiles`), not on the
# real crops; docs/vision.md has both.
MAX_UPSCALE: float | None = 2.0

# Close-ups. A tile longer than about 3/4 of the network input is beyond the detector (it
# boxes the halves; docs/vision.md, "Close-ups"), so a picture with few boxes is looked at
# a second time framed by grey, CLOSEUP_BORDER of its longer side on each side (a full-frame
# tile then spans half the input). From that pass only boxes at least CLOSEUP_MIN_LENGTH of
# the picture's longer side are kept: tiles that big cannot be boxed by the first pass.
# Chosen on synthetic close-ups (one tile filling a 640x352 picture, docs/vision.md): of 114
# tiles, 0.25 read 103 right end to end, 0.5 read 110, 0.75 109, 1.0 110 (0.5 has the most
# exact pictures, 87 of 121), and without the pass 79.
CLOSEUP_BORDER = 0.5
CLOSEUP_MIN_LENGTH = 0.5
# A picture in which a tile is half as long as the picture holds only a few tiles; with more
# boxes than this the second pass is skipped (a table photo pays nothing).
CLOSEUP_MAX_BOXES = 8

# Far tiles. Shrunk to the network input, a tile under about 20 px is often missed (synthetic
# val: recall 0.72 for tiles under 30 px in a 1280x720 photo, 0.97 for 40..60 px). When the
# median box of the first pass is shorter than SLICE_BELOW_INPUT_PX at the input (or nothing
# was found), the photo is detected again in SLICE_GRID x SLICE_GRID windows that overlap by
# SLICE_OVERLAP of a window's side, each letterboxed on its own: about 1.8 times the scale
# with a 2x2 grid. A tile cut by one window lies whole in its neighbour.
SLICE_BELOW_INPUT_PX = 24.0
SLICE_GRID = 2
SLICE_OVERLAP = 0.2
# Windows are only worth it when they are seen this many times larger than the whole photo: a
# picture smaller than the input is already enlarged as far as `MAX_UPSCALE` allows.
SLICE_MIN_ZOOM = 1.5


def frame_for_closeups(image: np.ndarray, border: float = CLOSEUP_BORDER) -> tuple[np.ndarray, int]:
    """`image` framed by grey `border` of its longer side, and the border in pixels."""
    return geometry.frame_in_grey(image, border)


def merge_closeups(
    first: list[Detection], framed: list[Detection], pad: int, shape: tuple[int, int]
) -> list[Detection]:
    """The first pass's boxes with the big tiles of the framed pass put in.

    Args:
        first: boxes found in the picture itself.
        framed: boxes found in the picture framed by `pad` pixels (`frame_for_closeups`).
        pad: the frame's width in pixels.
        shape: (height, width) of the picture.

    Returns:
        Boxes of the framed pass at least `CLOSEUP_MIN_LENGTH` of the picture's longer side
        (moved back into picture pixels), and the first pass's boxes whose centre lies in none
        of them (a big tile's halves and pips), best score first.
    """
    min_length = CLOSEUP_MIN_LENGTH * max(shape)
    big = [
        Detection(d.corners - pad, d.score, d.class_id, d.name, source="closeup")
        for d in framed
        if geometry.box_length(d.corners) >= min_length
    ]
    if not big:
        return first
    centres = np.array([d.corners.mean(axis=0) for d in first]).reshape(-1, 1, 2)
    inside = geometry.points_inside_boxes(centres, np.array([d.corners for d in big]))
    hits = np.asarray(np.asarray(inside).any(axis=(1, 2)))
    kept = [d for d, hit in zip(first, hits, strict=True) if not hit]
    return sorted(kept + big, key=lambda d: -d.score)


def input_scale(shape: tuple[int, int], imgsz: tuple[int, int], max_upscale: float | None) -> float:
    """How many network-input pixels one photo pixel becomes in the letterbox."""
    return geometry.letterbox_ratio(shape, imgsz, max_upscale)


def needs_slices(detections: list[Detection], scale: float) -> bool:
    """Whether the first pass's tiles are too small at the input (`SLICE_BELOW_INPUT_PX`)."""
    if not detections:
        return True
    lengths = geometry.box_lengths(np.array([d.corners for d in detections]))
    return float(np.median(lengths)) * scale < SLICE_BELOW_INPUT_PX


def slice_windows(
    shape: tuple[int, int], grid: int = SLICE_GRID, overlap: float = SLICE_OVERLAP
) -> list[tuple[int, int, int, int]]:
    """The (x0, y0, x1, y1) windows of a `grid` x `grid` cover of a (height, width) photo,
    neighbours overlapping by `overlap` of a window's side."""
    height, width = shape
    win_w = round(width / (grid - (grid - 1) * overlap))
    win_h = round(height / (grid - (grid - 1) * overlap))
    xs = np.linspace(0, width - win_w, grid).round().astype(int)
    ys = np.linspace(0, height - win_h, grid).round().astype(int)
    return [(int(x), int(y), int(x) + win_w, int(y) + win_h) for y in ys for x in xs]


def merge_slices(
    first: list[Detection],
    sliced: list[tuple[tuple[int, int, int, int], list[Detection]]],
    shape: tuple[int, int],
    iou: float,
    overlap: float | None,
) -> list[Detection]:
    """The first pass's boxes and the windows' boxes as one set, best score first.

    Args:
        first: boxes found in the whole photo.
        sliced: each window (x0, y0, x1, y1) and the boxes found in it (window pixels).
        shape: (height, width) of the photo.
        iou: probiou of the class-agnostic NMS that joins a tile found twice (the better
            box stays).
        overlap: `overlaps.keep_apart`'s threshold over the joined set; None skips it.

    A window's box that reaches a window edge inside the photo is dropped: that tile is cut
    there and lies whole in the neighbouring window.
    """
    height, width = shape
    near = 2.0  # px: how close to an edge a box counts as cut there (`box_cut_by_border`)
    boxes = list(first)
    for (x0, y0, x1, y1), found in sliced:
        for d in found:
            low, high = d.corners.min(axis=0), d.corners.max(axis=0)
            cut_inside = (
                (x0 > 0 and low[0] <= near)
                or (y0 > 0 and low[1] <= near)
                or (x1 < width and high[0] >= x1 - x0 - near)
                or (y1 < height and high[1] >= y1 - y0 - near)
            )
            if not cut_inside:
                offset = np.array([x0, y0], dtype=np.float64)
                boxes.append(
                    Detection(d.corners + offset, d.score, d.class_id, d.name, source="window")
                )
    if not boxes:
        return []
    corners = np.array([d.corners for d in boxes])
    scores = np.array([d.score for d in boxes])
    kept = geometry.nms_rotated(geometry.corners_to_xywhr(corners), scores, iou)
    if overlap is not None:
        kept = kept[overlaps.keep_apart(corners[kept], scores[kept], overlap)]
    return [boxes[i] for i in kept]


def decode_obb_output(
    raw: np.ndarray,
    num_classes: int,
    conf_threshold: float = DETECTOR_CONF,
    iou_threshold: float = NMS_IOU,
    *,
    agnostic: bool = True,
    max_det: int = 300,
    max_nms: int = 30000,
    greedy: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode a raw OBB output into boxes in network-input pixels.

    Args:
        raw: (1, 4 + nc + 1, A) or (4 + nc + 1, A) raw output.
        num_classes: nc.
        conf_threshold: keep anchors whose best class score is above this.
        iou_threshold: probiou threshold of the rotated NMS.
        agnostic: one NMS over all classes (a physical tile is either up or down, so an up
            and a down box on the same tile must not both survive); False is ultralytics'
            class-aware NMS.
        max_det: keep at most this many boxes.
        max_nms: consider at most this many best-scoring anchors in NMS.
        greedy: see `geometry.nms_rotated`.

    Returns:
        xywhr (N, 5) regularised boxes, scores (N,), class ids (N,) int64, best score first.
    """
    arr = np.asarray(raw)
    if arr.ndim == 3:
        if arr.shape[0] != 1:
            raise ValueError(f"expected batch size 1, got raw output shape {arr.shape}")
        arr = arr[0]
    if arr.ndim != 2 or arr.shape[0] != 4 + num_classes + 1:
        raise ValueError(
            f"raw OBB output must be (1, {4 + num_classes + 1}, anchors) for {num_classes} "
            f"classes, got {np.asarray(raw).shape}"
        )
    class_scores = arr[4 : 4 + num_classes]
    cls = class_scores.argmax(axis=0)
    score = class_scores.max(axis=0)
    keep = np.flatnonzero(score > conf_threshold)
    empty = (np.zeros((0, 5)), np.zeros(0), np.zeros(0, dtype=np.int64))
    if keep.size == 0:
        return empty
    if keep.size > max_nms:
        keep = keep[np.argsort(-score[keep], kind="stable")[:max_nms]]
    boxes = np.concatenate([arr[:4, keep], arr[4 + num_classes : 5 + num_classes, keep]]).T
    boxes = boxes.astype(np.float64)
    score, cls = score[keep].astype(np.float64), cls[keep].astype(np.int64)
    nms_boxes = boxes
    if not agnostic:
        nms_boxes = boxes.copy()
        nms_boxes[:, :2] += cls[:, None] * _MAX_WH
    order = geometry.nms_rotated(nms_boxes, score, iou_threshold, greedy=greedy)[:max_det]
    return geometry.regularize_xywhr(boxes[order]), score[order], cls[order]


class Detector:
    """An ONNX OBB tile detector; one onnxruntime session, safe to call from several threads.

    Args:
        path: the .onnx file (an ultralytics OBB export with names/imgsz/stride metadata).
        conf: confidence threshold.
        iou: probiou threshold of the rotated NMS.
        threads: onnxruntime intra-op threads; None for all cores.
        agnostic: class-agnostic NMS (default; see `decode_obb_output`).
        max_det: keep at most this many boxes.
        overlap: after NMS, keep the most confident set of boxes no two of which overlap by
            this share of either (drops a box straddling two touching tiles;
            `overlaps.keep_apart`); None keeps them all.
        max_upscale: enlarge a picture smaller than the network input at most this many
            times (`MAX_UPSCALE`); None enlarges it to fill the input.
        closeup_border: the grey frame of the close-up pass, a fraction of the picture's
            longer side on each side (`CLOSEUP_BORDER`; `frame_for_closeups`).

    Attributes:
        verifier: the tile-or-not stage that looks at each box again at full resolution
            (`dominocam.vision.verifier.Verifier`, set by `dominocam.vision.pipeline.load_models`);
            None: none.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        conf: float = DETECTOR_CONF,
        iou: float = NMS_IOU,
        threads: int | None = None,
        agnostic: bool = True,
        max_det: int = 300,
        overlap: float | None = OVERLAP_THRESHOLD,
        max_upscale: float | None = MAX_UPSCALE,
        closeup_border: float = CLOSEUP_BORDER,
    ) -> None:
        self.path = Path(path)
        self.conf, self.iou, self.agnostic, self.max_det = conf, iou, agnostic, max_det
        self.overlap, self.max_upscale = overlap, max_upscale
        self.closeup_border = closeup_border
        self.session = open_session(self.path, threads)
        self.verifier: Verifier | None = None
        meta = metadata(self.session)
        self.names = parse_names(meta, self.path)
        self.imgsz = parse_imgsz(meta, self.path)
        self.stride = parse_literal(meta, "stride", self.path) if "stride" in meta else None
        self.task = meta.get("task")
        if self.task not in (None, "obb"):
            raise UserInputError(f"{self.path} is a '{self.task}' model, not an OBB detector")
        if not any(name in FACE_OF_CLASS for name in self.names.values()):
            raise UserInputError(
                f"{self.path}: no class named {' or '.join(FACE_OF_CLASS)} in {self.names}"
            )
        self.num_classes = max(self.names) + 1
        inputs = self.session.get_inputs()
        self.input_name = inputs[0].name
        shape = inputs[0].shape
        static = len(shape) == 4 and all(isinstance(v, int) for v in shape[2:])
        # A dynamic height and width: each photo gets the smallest input that holds it at
        # the scale `imgsz` gives it (geometry.rect_input_shape), not the whole square.
        self.rect_input = not static
        if static and tuple(shape[2:]) != self.imgsz:
            raise UserInputError(
                f"{self.path}: input is {shape[2:]} but metadata imgsz says {self.imgsz}"
            )
        self.output_name = self.session.get_outputs()[0].name
        self.data_card = meta.get("data_card")

    def input_shape(self, image_shape: tuple[int, int]) -> tuple[int, int]:
        """(height, width) of the network input for a photo of `image_shape` (h, w)."""
        if not self.rect_input:
            return self.imgsz
        stride = int(self.stride) if isinstance(self.stride, int | float) else 32
        return geometry.rect_input_shape(image_shape, self.imgsz, stride, self.max_upscale)

    def preprocess(self, image: np.ndarray) -> tuple[np.ndarray, geometry.LetterboxTransform]:
        """BGR uint8 HxWx3 image -> (1, 3, H, W) float32 RGB 0..1 letterboxed (the square
        `imgsz`, or for a dynamic-shape detector the rectangle `input_shape` gives), and its
        transform."""
        shape = self.input_shape(image.shape[:2])
        padded, transform = geometry.letterbox(image, shape, max_upscale=self.max_upscale)
        if hasattr(cv2, "dnn"):  # one C++ pass: BGR->RGB, HWC->CHW, uint8->float32 / 255
            return cv2.dnn.blobFromImage(padded, 1.0 / 255.0, swapRB=True), transform
        tensor = padded[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32)
        tensor *= 1.0 / 255.0
        return np.ascontiguousarray(tensor), transform

    def forward(self, tensor: np.ndarray) -> np.ndarray:
        """The bare network call: input tensor -> raw output (1, 4 + nc + 1, A)."""
        return self.session.run([self.output_name], {self.input_name: tensor})[0]

    def postprocess(
        self, raw: np.ndarray, transform: geometry.LetterboxTransform
    ) -> list[Detection]:
        """Raw output -> detections in original-image pixels, best score first."""
        xywhr, scores, classes = decode_obb_output(
            raw,
            self.num_classes,
            self.conf,
            self.iou,
            agnostic=self.agnostic,
            max_det=self.max_det,
        )
        if len(scores) == 0:
            return []
        corners = transform.to_source(geometry.xywhr_to_corners(xywhr))
        corners = geometry.order_corners(corners)
        if self.overlap is not None:
            kept = overlaps.keep_apart(corners, scores, self.overlap)
            corners, scores, classes = corners[kept], scores[kept], classes[kept]
        return [
            Detection(corners=c, score=s, class_id=k, name=self.names.get(int(k), str(k)))
            for c, s, k in zip(corners, scores, classes, strict=True)
        ]

    def detect(self, image: np.ndarray, timings: dict[str, float] | None = None) -> list[Detection]:
        """Find the tiles in a BGR uint8 image (HxWx3, original resolution).

        Args:
            image: the photo.
            timings: when given, seconds spent in "preprocess", "forward" and "postprocess"
                are added to it.
        """
        t0 = perf_counter()
        tensor, transform = self.preprocess(image)
        t1 = perf_counter()
        raw = self.forward(tensor)
        t2 = perf_counter()
        detections = self.postprocess(raw, transform)
        t3 = perf_counter()
        if timings is not None:
            for key, value in (
                ("preprocess", t1 - t0),
                ("forward", t2 - t1),
                ("postprocess", t3 - t2),
            ):
                timings[key] = timings.get(key, 0.0) + value
        return detections

    def detect_far_tiles(
        self,
        image: np.ndarray,
        first: list[Detection],
        timings: dict[str, float] | None = None,
        tiles: list[Detection] | None = None,
    ) -> list[Detection]:
        """`first` (the boxes of `detect(image)`), with the boxes of a second look in
        overlapping windows when its boxes are too small at the input (`needs_slices`), or when
        `tiles` are: the boxes of `first` the verifier takes for tiles, which
        `dominocam.vision.pipeline.detect_tiles` passes so that large boxes on grass or wood grain
        do not hide tiles too small to be boxed at all (no such box: look again)."""
        scale = input_scale(image.shape[:2], self.imgsz, self.max_upscale)
        windows = slice_windows(image.shape[:2])
        x0, y0, x1, y1 = windows[0]
        zoom = input_scale((y1 - y0, x1 - x0), self.imgsz, self.max_upscale) / scale
        small = needs_slices(first, scale) or (tiles is not None and needs_slices(tiles, scale))
        if zoom < SLICE_MIN_ZOOM or not small:
            return first
        sliced = []
        for window in windows:
            x0, y0, x1, y1 = window
            part = np.ascontiguousarray(image[y0:y1, x0:x1])
            sliced.append((window, self.detect(part, timings)))
        return merge_slices(first, sliced, image.shape[:2], self.iou, self.overlap)

    def describe(self) -> dict[str, Any]:
        """Names, input size and stride, for reports."""
        return {
            "path": str(self.path),
            "names": self.names,
            "imgsz": list(self.imgsz),
            "stride": self.stride,
        }
