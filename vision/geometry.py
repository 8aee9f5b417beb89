"""Pure numpy/OpenCV geometry shared by the runtime and the data generator.

Conventions (used everywhere in the project):
* Points are `(x, y)` in pixels of the image they refer to, x to the right, y down.
* A tile's `corners` is a float array of shape (4, 2) in a fixed order that says which half
  is which: corners[0] -> corners[1] is the short edge at the end of half 0, corners[2] ->
  corners[3] the short edge at the end of half 1. The divider bar therefore runs from the
  midpoint of corners[1]-corners[2] to the midpoint of corners[3]-corners[0].
* A rectified tile is upright: long axis vertical, half 0 on top, shape (2*S, S, channels).
* A half crop is square (S, S) with the divider along its bottom edge, so a classifier
  always sees a half the same way up whichever half of the tile it came from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from dominocam.vision.settings import NMS_IOU


def rectify_tile(image: np.ndarray, corners: np.ndarray, side: int = 64) -> np.ndarray:
    """Warp one tile out of `image` into an upright crop of shape (2*side, side[, C]).

    Args:
        image: the full-resolution photo, HxW or HxWxC, any dtype OpenCV can warp.
        corners: (4, 2) tile corners in image pixels, in the order of the module docstring.
        side: width of the output in pixels (the height is twice that).
    """
    src = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    # corners[0]..[1] are the top edge (half 0's end), [2]..[3] the bottom edge.
    dst = np.array(
        [[0, 0], [side - 1, 0], [side - 1, 2 * side - 1], [0, 2 * side - 1]], dtype=np.float32
    )
    matrix = cv2.getPerspectiveTransform(src, dst)
    # Bilinear: OpenCV's warps have no area filter (they take INTER_AREA as INTER_LINEAR), so
    # a large tile is sampled, not averaged. The reader and its training crops are cut so.
    return cv2.warpPerspective(
        image, matrix, (side, 2 * side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def split_halves(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split an upright tile crop into two square half crops, divider at the bottom of each.

    Half 0 is the top square as it is; half 1 is the bottom square turned 180 degrees.
    """
    halves = split_halves_many(tile[None])
    return halves[0, 0], halves[0, 1]


def split_halves_many(tiles: np.ndarray) -> np.ndarray:
    """`split_halves` of N upright tile crops at once: (N, 2*S, S[, C]) -> (N, 2, S, S[, C]),
    C-contiguous, half 0 then half 1 of each tile."""
    side = tiles.shape[2]
    halves = np.empty((len(tiles), 2, side, side, *tiles.shape[3:]), dtype=tiles.dtype)
    halves[:, 0] = tiles[:, :side]
    halves[:, 1] = tiles[:, side : 2 * side][:, ::-1, ::-1]
    return halves


# --------------------------------------------------------------------------------------------
# Letterbox (ultralytics LetterBox, centred). A detector with a fixed input gets the whole
# square; one exported with dynamic height and width gets the smallest stride-multiple
# rectangle that holds the photo at the same scale (`rect_input_shape`), as ultralytics'
# rectangular inference does: a 16:9 frame then costs 640x384 instead of 640x640.
# --------------------------------------------------------------------------------------------

LETTERBOX_PAD_VALUE = 114


def letterbox_ratio(
    source_shape: tuple[int, int], input_shape: tuple[int, int], max_upscale: float | None
) -> float:
    """Input pixels per source pixel when `source_shape` (h, w) is letterboxed into
    `input_shape` (h, w): the largest that fits, at most `max_upscale` (None: no limit)."""
    ratio = min(input_shape[0] / source_shape[0], input_shape[1] / source_shape[1])
    if max_upscale is not None:
        ratio = min(ratio, float(max_upscale))
    return ratio


def rect_input_shape(
    source_shape: tuple[int, int],
    max_shape: tuple[int, int],
    stride: int,
    max_upscale: float | None = None,
) -> tuple[int, int]:
    """The (height, width) input for a dynamic-shape network: the photo at the scale the
    full `max_shape` would give it, padded up to a multiple of `stride` on each side (never
    beyond `max_shape`). The boxes are then the same as in the square input, but the
    network does not look at the padding the square would add."""
    if source_shape[0] <= 0 or source_shape[1] <= 0:
        raise ValueError(f"cannot letterbox an empty image of shape {source_shape}")
    if stride <= 0:
        raise ValueError(f"stride must be positive, got {stride}")
    ratio = letterbox_ratio(source_shape, max_shape, max_upscale)

    def padded(side: int, limit: int) -> int:
        multiples = math.ceil(round(side * ratio) / stride)
        return min(limit, max(1, multiples) * stride)

    return padded(source_shape[0], max_shape[0]), padded(source_shape[1], max_shape[1])


@dataclass(frozen=True)
class LetterboxTransform:
    """How a source image was placed into the network input by `letterbox`.

    A source pixel (x, y) lands at (x * scale_x + pad_x, y * scale_y + pad_y) of the input.
    `scale_x` and `scale_y` differ only by the rounding of the resized size (< 0.1 %).

    Attributes:
        scale_x, scale_y: resize factors (input pixels per source pixel).
        pad_x, pad_y: left and top padding in input pixels.
        source_shape: (height, width) of the source image.
        input_shape: (height, width) of the network input.
    """

    scale_x: float
    scale_y: float
    pad_x: int
    pad_y: int
    source_shape: tuple[int, int]
    input_shape: tuple[int, int]

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """Map source-image points (..., 2) to network-input pixels."""
        pts = np.asarray(points, dtype=np.float64)
        out = np.empty_like(pts)
        out[..., 0] = pts[..., 0] * self.scale_x + self.pad_x
        out[..., 1] = pts[..., 1] * self.scale_y + self.pad_y
        return out

    def to_source(self, points: np.ndarray) -> np.ndarray:
        """Map network-input points (..., 2) back to source-image pixels (the inverse)."""
        pts = np.asarray(points, dtype=np.float64)
        out = np.empty_like(pts)
        out[..., 0] = (pts[..., 0] - self.pad_x) / self.scale_x
        out[..., 1] = (pts[..., 1] - self.pad_y) / self.scale_y
        return out


def letterbox(
    image: np.ndarray,
    new_shape: tuple[int, int] | int,
    *,
    pad_value: int = LETTERBOX_PAD_VALUE,
    max_upscale: float | None = None,
) -> tuple[np.ndarray, LetterboxTransform]:
    """Resize keeping the aspect ratio and pad to `new_shape`, centred, like ultralytics.

    Args:
        image: HxW or HxWxC image (uint8 usually).
        new_shape: (height, width) of the network input, or one int for a square.
        pad_value: grey level of the padding (ultralytics uses 114).
        max_upscale: enlarge a small image at most this many times (None: without limit,
            ultralytics' default for inference; 1.0: never enlarge).

    Returns:
        The padded image of exactly `new_shape`, and the transform to map points both ways.
    """
    if isinstance(new_shape, int):
        new_shape = (new_shape, new_shape)
    out_h, out_w = int(new_shape[0]), int(new_shape[1])
    src_h, src_w = image.shape[:2]
    if src_h <= 0 or src_w <= 0:
        raise ValueError(f"cannot letterbox an empty image of shape {image.shape}")
    ratio = letterbox_ratio((src_h, src_w), (out_h, out_w), max_upscale)
    new_w, new_h = round(src_w * ratio), round(src_h * ratio)
    new_w, new_h = max(1, min(new_w, out_w)), max(1, min(new_h, out_h))
    dw, dh = (out_w - new_w) / 2, (out_h - new_h) / 2
    # ultralytics rounds (dh - 0.1) for the top and (dh + 0.1) for the bottom; the far
    # side is then whatever makes the shape exact.
    top, left = round(dh - 0.1), round(dw - 0.1)
    bottom = out_h - new_h - top
    right = out_w - new_w - left
    resized = image
    if (src_w, src_h) != (new_w, new_h):
        resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    channels = 1 if resized.ndim == 2 else resized.shape[2]
    value = (pad_value,) * max(channels, 1) if channels > 1 else pad_value
    padded = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT, value=value)
    if image.ndim == 3 and padded.ndim == 2:  # OpenCV drops a single channel axis
        padded = padded[:, :, None]
    transform = LetterboxTransform(
        scale_x=new_w / src_w,
        scale_y=new_h / src_h,
        pad_x=left,
        pad_y=top,
        source_shape=(src_h, src_w),
        input_shape=(out_h, out_w),
    )
    return padded, transform


def frame_in_grey(image: np.ndarray, fraction: float) -> tuple[np.ndarray, int]:
    """`image` framed on every side by letterbox grey `fraction` of its longer side wide,
    and that width in pixels (a source point (x, y) lies at (x + pad, y + pad) in the frame)."""
    pad = round(fraction * max(image.shape[:2]))
    grey = (LETTERBOX_PAD_VALUE,) * (image.shape[2] if image.ndim == 3 else 1)
    framed = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=grey)
    if image.ndim == 3 and framed.ndim == 2:  # OpenCV drops a single channel axis
        framed = framed[:, :, None]
    return framed, pad


# --------------------------------------------------------------------------------------------
# Oriented boxes: (cx, cy, w, h, angle in radians) <-> corners, ordering, probabilistic IoU.
# --------------------------------------------------------------------------------------------


def regularize_xywhr(xywhr: np.ndarray) -> np.ndarray:
    """Bring oriented boxes to ultralytics' canonical form, angle in [0, pi/2).

    A box and its copy turned by 90 degrees with w and h swapped are the same rectangle;
    this picks the one representation with the angle in [0, pi/2) (ultralytics
    `regularize_rboxes`).

    Args:
        xywhr: (..., 5) array of cx, cy, w, h, angle (radians, clockwise on screen since y
            points down).
    """
    boxes = np.array(xywhr, dtype=np.float64, copy=True)
    w, h, t = boxes[..., 2].copy(), boxes[..., 3].copy(), boxes[..., 4]
    t = np.mod(t, np.pi)
    # Snap angles a rounding error away from 0, pi/2 or pi, so that one rectangle always
    # gets one representation.
    t = np.where(np.abs(t - np.pi) < 1e-9, 0.0, t)
    t = np.where(np.abs(t - np.pi / 2) < 1e-9, np.pi / 2, t)
    swap = t >= np.pi / 2
    boxes[..., 2] = np.where(swap, h, w)
    boxes[..., 3] = np.where(swap, w, h)
    boxes[..., 4] = np.where(swap, t - np.pi / 2, t)
    return boxes


def xywhr_to_corners(xywhr: np.ndarray) -> np.ndarray:
    """Corners of oriented boxes, (..., 5) -> (..., 4, 2), in ultralytics' order.

    The order is c+u+v, c+u-v, c-u-v, c-u+v with u = w/2 along the angle and v = h/2 across
    it (ultralytics `xywhr2xyxyxyxy`). Use `order_corners` for the tile convention.
    """
    boxes = np.asarray(xywhr, dtype=np.float64)
    ctr = boxes[..., :2]
    w, h, t = boxes[..., 2:3], boxes[..., 3:4], boxes[..., 4:5]
    cos, sin = np.cos(t), np.sin(t)
    u = np.concatenate([w / 2 * cos, w / 2 * sin], axis=-1)
    v = np.concatenate([-h / 2 * sin, h / 2 * cos], axis=-1)
    return np.stack([ctr + u + v, ctr + u - v, ctr - u - v, ctr - u + v], axis=-2)


def corners_to_xywhr(corners: np.ndarray) -> np.ndarray:
    """Oriented boxes from corners in cyclic order (either direction), (..., 4, 2) -> (..., 5).

    The centre is the mean of the corners, w the length of edge 1->2 and h of edge 0->1 (mean
    of the opposite edges), the angle that of edge 1->2; the result is regularised.
    """
    pts = np.asarray(corners, dtype=np.float64)
    ctr = pts.mean(axis=-2)
    e01 = pts[..., 1, :] - pts[..., 0, :]
    e32 = pts[..., 2, :] - pts[..., 3, :]
    e12 = pts[..., 2, :] - pts[..., 1, :]
    e03 = pts[..., 3, :] - pts[..., 0, :]
    h = (np.linalg.norm(e01, axis=-1) + np.linalg.norm(e32, axis=-1)) / 2
    along = (e12 + e03) / 2
    w = np.linalg.norm(along, axis=-1)
    t = np.arctan2(along[..., 1], along[..., 0])
    return regularize_xywhr(np.concatenate([ctr, w[..., None], h[..., None], t[..., None]], -1))


def order_corners(corners: np.ndarray) -> np.ndarray:
    """Put rectangle corners in the tile convention: clockwise on screen, short edge first.

    Args:
        corners: (4, 2) or (N, 4, 2) corners of rectangles, in any order.

    Returns:
        The same corners reordered so that they go clockwise as seen on screen (x right, y
        down; the order `rectify_tile` maps to an unmirrored crop) and corners[0] -> corners[1]
        is a short edge. Of the two short edges the one whose midpoint is higher in the image
        (smaller y; on a near tie, further left) comes first. Which half of a tile it bounds
        is not known from the box alone: the reader decides.
    """
    pts = np.asarray(corners, dtype=np.float64)
    single = pts.ndim == 2
    if single:
        pts = pts[None]
    if pts.shape[-2:] != (4, 2):
        raise ValueError(f"corners must have shape (4, 2) or (N, 4, 2), got {pts.shape}")
    ctr = pts.mean(axis=1, keepdims=True)
    angles = np.arctan2(pts[..., 1] - ctr[..., 1], pts[..., 0] - ctr[..., 0])
    cyc = np.take_along_axis(pts, np.argsort(angles, axis=1)[..., None], axis=1)
    edge = np.linalg.norm(np.roll(cyc, -1, axis=1) - cyc, axis=-1)  # edge i: i -> i+1
    # A rectangle's edges 0 and 2 have one length, 1 and 3 the other.
    start_a = np.where(edge[:, 0] + edge[:, 2] <= edge[:, 1] + edge[:, 3], 0, 1)
    start_b = start_a + 2
    rows = np.arange(len(cyc))
    mid_a = (cyc[rows, start_a] + cyc[rows, (start_a + 1) % 4]) / 2
    mid_b = (cyc[rows, start_b] + cyc[rows, (start_b + 1) % 4]) / 2
    scale = np.maximum(edge.max(axis=1), 1e-9)
    dy = (mid_b[:, 1] - mid_a[:, 1]) / scale
    a_first = np.where(np.abs(dy) > 1e-3, dy > 0, mid_a[:, 0] <= mid_b[:, 0])
    start = np.where(a_first, start_a, start_b)
    idx = (start[:, None] + np.arange(4)[None]) % 4
    out = np.take_along_axis(cyc, idx[..., None], axis=1)
    return out[0] if single else out


def box_length(corners: np.ndarray) -> float:
    """The longer side of one oriented box given by its four corners in order."""
    corners = np.asarray(corners, dtype=float)
    return float(
        max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[1]))
    )


def box_lengths(corners: np.ndarray) -> np.ndarray:
    """`box_length` of (N, 4, 2) boxes at once: (N,) longer sides."""
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    first = np.linalg.norm(c[:, 1] - c[:, 0], axis=-1)
    second = np.linalg.norm(c[:, 2] - c[:, 1], axis=-1)
    return np.maximum(first, second)


def polygon_area(corners: np.ndarray) -> np.ndarray:
    """Signed shoelace area of polygons (..., K, 2); positive when clockwise on screen."""
    pts = np.asarray(corners, dtype=np.float64)
    x, y = pts[..., 0], pts[..., 1]
    return 0.5 * np.sum(x * np.roll(y, -1, axis=-1) - np.roll(x, -1, axis=-1) * y, axis=-1)


def _covariance(xywhr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian covariance terms (a, b, c) of oriented boxes (ultralytics)."""
    a0 = xywhr[..., 2] ** 2 / 12
    b0 = xywhr[..., 3] ** 2 / 12
    cos, sin = np.cos(xywhr[..., 4]), np.sin(xywhr[..., 4])
    return a0 * cos**2 + b0 * sin**2, a0 * sin**2 + b0 * cos**2, (a0 - b0) * cos * sin


def probiou(boxes1: np.ndarray, boxes2: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Probabilistic IoU of every pair of oriented boxes (ultralytics `batch_probiou`).

    Each box is treated as a 2-D Gaussian; the score is 1 minus the Hellinger distance of
    the two Gaussians, in [0, 1], 1 for identical boxes. It is what ultralytics' rotated NMS
    uses, so NMS thresholds mean the same thing here as in training and validation.

    Args:
        boxes1: (N, 5) cx, cy, w, h, angle (radians).
        boxes2: (M, 5) the same.

    Returns:
        (N, M) float64 array.
    """
    b1 = np.asarray(boxes1, dtype=np.float64).reshape(-1, 5)
    b2 = np.asarray(boxes2, dtype=np.float64).reshape(-1, 5)
    g1 = (b1[:, 0], b1[:, 1], *_covariance(b1))
    g2 = (b2[:, 0], b2[:, 1], *_covariance(b2))
    return _probiou_gauss(tuple(v[:, None] for v in g1), tuple(v[None, :] for v in g2), eps)


def _probiou_gauss(g1: tuple, g2: tuple, eps: float = 1e-7) -> np.ndarray:
    """probiou from precomputed (x, y, a, b, c) Gaussian terms that broadcast together."""
    x1, y1, a1, bb1, c1 = g1
    x2, y2, a2, bb2, c2 = g2
    denom = (a1 + a2) * (bb1 + bb2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (bb1 + bb2) * (x1 - x2) ** 2) / denom * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / denom * 0.5
    det1 = np.clip(a1 * bb1 - c1**2, 0, None)
    det2 = np.clip(a2 * bb2 - c2**2, 0, None)
    t3 = np.log(denom / (4 * np.sqrt(det1 * det2) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    hd = np.sqrt(1.0 - np.exp(-bd) + eps)
    return 1 - hd


# NMS ranks scores rounded to this many decimals: onnxruntime's kernels for one CPU and another
# give the same box scores that differ in the last bits (float32, about 1e-7), and two boxes of
# one tile scored alike must not keep the one box here and the other there.
NMS_SCORE_DECIMALS = 6


def nms_rotated(
    xywhr: np.ndarray, scores: np.ndarray, iou_threshold: float = NMS_IOU, *, greedy: bool = True
) -> np.ndarray:
    """Non-maximum suppression of oriented boxes by probabilistic IoU.

    Args:
        xywhr: (N, 5) boxes.
        scores: (N,) confidences.
        iou_threshold: a box is dropped when its probiou with a kept, better box is >= this.
        greedy: True for classic greedy NMS (a box suppressed by a better one cannot
            suppress others); False for ultralytics' exact matrix "fast NMS", where any
            better box suppresses, kept or not (it drops slightly more in crowded chains).

    Returns:
        Indices of the kept boxes, best score first (scores equal to `NMS_SCORE_DECIMALS`
        decimals: in their given order).
    """
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    if scores.size == 0:
        return np.zeros(0, dtype=np.int64)
    # Scores equal to `NMS_SCORE_DECIMALS` keep the boxes' given order (the anchors', a fixed
    # grid) rather than follow the last bits of float arithmetic, which differ between CPUs.
    order = np.argsort(-np.round(scores, NMS_SCORE_DECIMALS), kind="stable")
    boxes = np.asarray(xywhr, dtype=np.float64)[order]
    if not greedy:
        ious = np.triu(probiou(boxes, boxes), k=1)  # ious[i, j] for better i, worse j
        return order[~np.any(ious >= iou_threshold, axis=0)]
    # Greedy, over the pairs close enough to reach the threshold (`_reach`): probiou is
    # computed once for those pairs (a few per candidate, found by a k-d tree) instead of
    # once per kept box against every candidate left (36 tiles x 20 candidates: 3.7 -> 1.8 ms).
    first, second = _pairs_within(boxes, _reach(boxes, iou_threshold))
    gauss = (boxes[:, 0], boxes[:, 1], *_covariance(boxes))
    ious = _probiou_gauss(tuple(v[first] for v in gauss), tuple(v[second] for v in gauss))
    hit = ious >= iou_threshold
    first, second = first[hit], second[hit]  # better box first: boxes are sorted by score
    starts = np.searchsorted(first, np.arange(len(boxes) + 1))
    alive = np.ones(len(boxes), dtype=bool)
    keep = []
    for best in range(len(boxes)):
        if alive[best]:
            keep.append(best)
            alive[second[starts[best] : starts[best + 1]]] = False
    return order[np.array(keep, dtype=np.int64)]


def _reach(xywhr: np.ndarray, iou_threshold: float) -> float:
    """A centre distance beyond which no two of these boxes reach `iou_threshold` probiou.

    probiou >= t needs the Bhattacharyya distance B <= -ln(1 - (1 - t)^2); B is at least
    |d|^2 / (8 lambda) for centres d apart, lambda the largest eigenvalue of the mean of the
    two covariances, at most L^2 / 12 for L the longest side of any box. The small margin
    covers the eps terms of `_probiou_gauss` for boxes of pixel size; for boxes so thin that
    those terms matter, and when every pair counts (t <= 0), the reach is infinite.
    """
    if iou_threshold <= 0 or (len(xywhr) and float(np.min(xywhr[:, 2:4])) < 0.01):
        return np.inf
    if iou_threshold >= 1:
        return 0.0
    longest = float(np.max(xywhr[:, 2:4])) if len(xywhr) else 0.0
    max_distance = -np.log(1.0 - (1.0 - iou_threshold) ** 2)
    return 1.01 * longest * np.sqrt(8.0 * max_distance / 12.0) + 1e-6


def _pairs_within(xywhr: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i < j) of boxes whose centres lie within `radius`, sorted by i then j."""
    n = len(xywhr)
    if n < 2 or radius <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if not np.isfinite(radius):
        first, second = np.triu_indices(n, k=1)
        return first.astype(np.int64), second.astype(np.int64)
    from scipy.spatial import cKDTree

    pairs = cKDTree(xywhr[:, :2]).query_pairs(radius, output_type="ndarray").astype(np.int64)
    keys = np.sort(pairs.min(axis=1) * n + pairs.max(axis=1))  # one sort, not a lexsort
    return keys // n, keys % n


def box_sample_points(corners: np.ndarray, per_side: int = 10) -> np.ndarray:
    """A per_side x per_side grid of points at cell centres inside each box: (N, P, 2)."""
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    t = (np.arange(per_side) + 0.5) / per_side
    u, v = (g.reshape(-1) for g in np.meshgrid(t, t, indexing="ij"))
    e1, e3 = c[:, 1] - c[:, 0], c[:, 3] - c[:, 0]
    return c[:, None, 0] + u[None, :, None] * e1[:, None] + v[None, :, None] * e3[:, None]


def points_inside_boxes(points: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """inside[i, j, p]: point p of set i lies in box j. points (N, P, 2), corners (M, 4, 2)
    in corner order (a parallelogram spanned by corner 1 - 0 and corner 3 - 0)."""
    pts = np.asarray(points, dtype=np.float64)
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    return points_inside_paired_boxes(pts[:, None], np.broadcast_to(c, (len(pts), *c.shape)))


def points_inside_paired_boxes(points: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """inside[..., p]: point p of points[...] lies in box corners[...]. points (..., P, 2),
    corners (..., 4, 2) in corner order."""
    c = np.asarray(corners, dtype=np.float64)
    e1, e3 = c[..., 1, :] - c[..., 0, :], c[..., 3, :] - c[..., 0, :]
    d = np.asarray(points, dtype=np.float64) - c[..., None, 0, :]
    a = (d * e1[..., None, :]).sum(axis=-1) / (e1**2).sum(axis=-1)[..., None]
    b = (d * e3[..., None, :]).sum(axis=-1) / (e3**2).sum(axis=-1)[..., None]
    return (a >= 0) & (a <= 1) & (b >= 0) & (b <= 1)


def box_fully_inside(
    corners: np.ndarray, width: int, height: int, margin: float = 0.0
) -> np.ndarray | bool:
    """True where every corner lies at least `margin` pixels inside the image.

    Args:
        corners: (4, 2) or (N, 4, 2) in image pixels.
        width, height: image size in pixels; the image spans [0, width] x [0, height].
        margin: pixels of clearance required from every border.
    """
    pts = np.asarray(corners, dtype=np.float64)
    inside = (
        (pts[..., 0] >= margin)
        & (pts[..., 0] <= width - margin)
        & (pts[..., 1] >= margin)
        & (pts[..., 1] <= height - margin)
    ).all(axis=-1)
    return bool(inside) if inside.ndim == 0 else np.asarray(inside)


def box_cut_by_border(
    corners: np.ndarray, width: int, height: int, margin: float = 2.0
) -> np.ndarray | bool:
    """True where a box reaches within `margin` pixels of the border or beyond it.

    A detector only sees the visible part of a tile cut by the image border, so such a box
    ends at (or within a pixel or two of) the border; pass margin=0 to test "crosses it".
    """
    inside = box_fully_inside(corners, width, height, margin)
    return (not inside) if isinstance(inside, bool) else ~inside


def boxes_cut_by_border(
    corners: np.ndarray, width: int, height: int, margin: float = 2.0
) -> np.ndarray:
    """`box_cut_by_border` of (N, 4, 2) boxes at once: an (N,) bool array (empty for none)."""
    boxes = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    return np.asarray(~np.asarray(box_fully_inside(boxes, width, height, margin)), dtype=bool)
