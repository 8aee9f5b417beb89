"""Scoring functions of `dominocam eval`: plain numpy, no torch, no runtime.

Everything here works on plain data (corners as (4, 2) arrays, pips as pairs of ints) so it
is tested on hand-made cases. Conventions:

* A rate is `k` successes out of `n` trials with its Wilson 95% score interval.
* Tiles are compared by identity, order free: `[5, 10]` equals `[10, 5]`. The halves of a read
  tile are scored against a labelled tile under whichever pairing of halves agrees most
  (`halves_correct`), so a tile whose corners came out turned 180 degrees is not penalised.
* Two oriented boxes match when their polygon IoU is at least `MATCH_IOU` (0.5), or when the
  centre of each lies inside the other (small, thin boxes whose IoU suffers from a few pixels
  of error).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

Z95 = 1.959963984540054
# The polygon IoU at which a found box matches a labelled one (or each centre lies inside
# the other: `boxes_match`).
MATCH_IOU = 0.5


@dataclass(frozen=True)
class Rate:
    """`k` of `n` with a Wilson score interval (confidence 95% unless `z` says otherwise)."""

    k: int
    n: int
    z: float = Z95

    def __post_init__(self) -> None:
        if self.n < 0 or self.k < 0 or self.k > self.n:
            raise ValueError(f"a rate needs 0 <= k <= n, got k={self.k}, n={self.n}")

    @property
    def value(self) -> float | None:
        """k / n, or None when there were no trials."""
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The Wilson interval (low, high), or None when n is 0."""
        return wilson(self.k, self.n, self.z) if self.n else None

    def to_dict(self) -> dict:
        """JSON form: value, k, n, low, high (None where n is 0)."""
        low, high = self.interval or (None, None)
        return {"value": self.value, "k": self.k, "n": self.n, "low": low, "high": high}

    def __str__(self) -> str:
        if not self.n:
            return "n/a (n=0)"
        low, high = self.interval
        return f"{self.value:.4f} [{low:.4f}, {high:.4f}] ({self.k}/{self.n})"

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.k + other.k, self.n + other.n, self.z)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n.

    Args:
        k: successes, 0 <= k <= n.
        n: trials, n >= 1.
        z: the normal quantile (1.96 for 95%).

    Returns:
        (low, high), both within [0, 1]; exactly 0 or 1 at the ends (k = 0, k = n).
    """
    if n <= 0:
        raise ValueError("the Wilson interval needs n >= 1")
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


# ----------------------------------------------------------------------------- geometry


def polygon_area(poly: np.ndarray) -> float:
    """Unsigned area of a simple polygon given as (N, 2) points (shoelace)."""
    poly = np.asarray(poly, dtype=np.float64).reshape(-1, 2)
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _orient_ccw(poly: np.ndarray) -> np.ndarray:
    x, y = poly[:, 0], poly[:, 1]
    signed = float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    return poly if signed >= 0 else poly[::-1]


def convex_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection polygon of two convex polygons (Sutherland-Hodgman), shape (M, 2)."""
    subject = _orient_ccw(np.asarray(a, dtype=np.float64).reshape(-1, 2))
    clip = _orient_ccw(np.asarray(b, dtype=np.float64).reshape(-1, 2))
    output = list(subject)
    for i in range(len(clip)):
        if not output:
            break
        p, q = clip[i], clip[(i + 1) % len(clip)]
        edge = q - p

        def inside(point: np.ndarray, p: np.ndarray = p, edge: np.ndarray = edge) -> bool:
            return edge[0] * (point[1] - p[1]) - edge[1] * (point[0] - p[0]) >= -1e-12

        def crossing(s: np.ndarray, e: np.ndarray, p: np.ndarray = p, q: np.ndarray = q):
            d1, d2 = e - s, q - p
            denom = d1[0] * d2[1] - d1[1] * d2[0]
            if abs(denom) < 1e-18:
                return e
            t = ((p[0] - s[0]) * d2[1] - (p[1] - s[1]) * d2[0]) / denom
            return s + t * d1

        points, output = output, []
        for j, current in enumerate(points):
            previous = points[j - 1]
            if inside(current):
                if not inside(previous):
                    output.append(crossing(previous, current))
                output.append(current)
            elif inside(previous):
                output.append(crossing(previous, current))
    return np.array(output, dtype=np.float64).reshape(-1, 2)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex polygons (oriented boxes as (4, 2) corners)."""
    inter = polygon_area(convex_intersection(a, b))
    union = polygon_area(a) + polygon_area(b) - inter
    return inter / union if union > 0 else 0.0


def point_in_convex(point: Sequence[float], poly: np.ndarray) -> bool:
    """Whether `point` lies inside (or on) the convex polygon `poly`."""
    poly = _orient_ccw(np.asarray(poly, dtype=np.float64).reshape(-1, 2))
    px, py = float(point[0]), float(point[1])
    for i in range(len(poly)):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % len(poly)]
        if (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1) < -1e-9:
            return False
    return True


def boxes_match(
    a: np.ndarray, b: np.ndarray, iou_threshold: float = MATCH_IOU
) -> tuple[bool, float]:
    """(match, IoU): IoU >= threshold, or each box's centre inside the other."""
    iou = polygon_iou(a, b)
    if iou >= iou_threshold:
        return True, iou
    a, b = np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2)
    centred = point_in_convex(a.mean(0), b) and point_in_convex(b.mean(0), a)
    return centred, iou


@dataclass
class Matching:
    """Result of matching labelled boxes to predicted boxes, one to one.

    Attributes:
        pairs: (label index, prediction index, IoU) for each match.
        missed: label indices without a prediction (false negatives).
        extra: prediction indices without a label (false positives).
    """

    pairs: list[tuple[int, int, float]] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)


def match_boxes(
    labels: Sequence[np.ndarray],
    predictions: Sequence[np.ndarray],
    iou_threshold: float = MATCH_IOU,
    ignore: Sequence[np.ndarray] = (),
) -> Matching:
    """Greedy one-to-one matching, highest IoU first (class-agnostic).

    Args:
        labels: labelled boxes, each (4, 2) corners.
        predictions: predicted boxes, each (4, 2) corners.
        iou_threshold: IoU at which two boxes match (centre-in-box also matches).
        ignore: labelled boxes not scored (tiles cut by the frame): a prediction matching
            one of them is neither a hit nor a false positive.
    """
    candidates = []
    for i, label in enumerate(labels):
        for j, prediction in enumerate(predictions):
            ok, iou = boxes_match(label, prediction, iou_threshold)
            if ok:
                # centre-only matches rank below any IoU match
                candidates.append((iou if iou >= iou_threshold else iou - 1.0, i, j, iou))
    candidates.sort(key=lambda c: -c[0])
    used_labels: set[int] = set()
    used_predictions: set[int] = set()
    result = Matching()
    for _, i, j, iou in candidates:
        if i in used_labels or j in used_predictions:
            continue
        used_labels.add(i)
        used_predictions.add(j)
        result.pairs.append((i, j, iou))
    result.missed = [i for i in range(len(labels)) if i not in used_labels]
    extra = [j for j in range(len(predictions)) if j not in used_predictions]
    if ignore:
        extra = [
            j
            for j in extra
            if not any(boxes_match(box, predictions[j], iou_threshold)[0] for box in ignore)
        ]
    result.extra = extra
    result.pairs.sort()
    return result


# ----------------------------------------------------------------------------- tiles

# Upper edges (px, a tile's long side in the photo) of the groups the synthetic figures are
# broken down by; the last group is open. The issue puts the smallest tile a 1280x720 table
# camera sees at about 40 px, and the generator draws tiles down to about 20 px.
TILE_LENGTH_EDGES_PX = (30, 40, 60, 80, 120)
# The figures broken down by tile length, in table and plot order.
LENGTH_METRICS = ("detection_recall", "detection_precision", "half_accuracy")


def length_group(length: float, edges: Sequence[int] = TILE_LENGTH_EDGES_PX) -> str:
    """The name of the group a tile length falls in: '<30', '30-40', ..., '>=120'."""
    if length < edges[0]:
        return f"<{edges[0]}"
    for low, high in pairwise(edges):
        if length < high:
            return f"{low}-{high}"
    return f">={edges[-1]}"


def length_groups(edges: Sequence[int] = TILE_LENGTH_EDGES_PX) -> list[str]:
    """Every group name, shortest tiles first."""
    return [f"<{edges[0]}", *(f"{a}-{b}" for a, b in pairwise(edges)), f">={edges[-1]}"]


def halves_correct(label: Sequence[int] | None, read: Sequence[int] | None) -> int:
    """How many halves of `read` agree with `label` under the better pairing (0, 1 or 2).

    A missing read (None, e.g. the tile came out face down) scores 0.
    """
    if label is None or read is None:
        return 0
    a, b = int(label[0]), int(label[1])
    c, d = int(read[0]), int(read[1])
    return max((a == c) + (b == d), (a == d) + (b == c))


def paired_halves(label: Sequence[int], read: Sequence[int]) -> list[tuple[int, int]]:
    """The (label half, read half) pairs under the better pairing, for a confusion matrix."""
    a, b = int(label[0]), int(label[1])
    c, d = int(read[0]), int(read[1])
    if (a == c) + (b == d) >= (a == d) + (b == c):
        return [(a, c), (b, d)]
    return [(a, d), (b, c)]


def tile_key(pips: Sequence[int]) -> tuple[int, int]:
    """A tile's identity: its pips sorted."""
    a, b = int(pips[0]), int(pips[1])
    return (a, b) if a <= b else (b, a)


def multiset_hits(labels: Iterable[Sequence[int]], reads: Iterable[Sequence[int]]) -> int:
    """Size of the multiset intersection of two collections of tiles (order-free identities)."""
    return sum((Counter(map(tile_key, labels)) & Counter(map(tile_key, reads))).values())


def covers(reads: Iterable[tuple[int, int]], truth: Iterable[tuple[int, int]]) -> bool:
    """Whether the multiset `reads` holds every tile of the multiset `truth`."""
    return not Counter(truth) - Counter(reads)


def linear_assignment(score: np.ndarray) -> list[tuple[int, int]]:
    """Rows to columns, one to one, maximising the total score (Hungarian algorithm).

    Args:
        score: (R, C) array; every row is assigned when R <= C, else every column.

    Returns:
        (row, column) pairs, sorted by row.
    """
    score = np.asarray(score, dtype=np.float64)
    if score.size == 0:
        return []
    transposed = score.shape[0] > score.shape[1]
    cost = -(score.T if transposed else score)
    n, m = cost.shape  # n <= m
    inf = float("inf")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    p = np.zeros(m + 1, dtype=int)  # p[j]: row (1-based) assigned to column j
    way = np.zeros(m + 1, dtype=int)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta, j1 = inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    current = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if current < minv[j]:
                        minv[j] = current
                        way[j] = j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = [(int(p[j]) - 1, j - 1) for j in range(1, m + 1) if p[j] != 0]
    if transposed:
        pairs = [(c, r) for r, c in pairs]
    return sorted(pairs)


def assign_reads(
    labels: Sequence[Sequence[int]], reads: Sequence[Sequence[int]]
) -> list[tuple[int, int, int]]:
    """Pair read tiles with labelled tiles when no boxes are known (real scene photos).

    Maximises first the number of exact tiles, then the number of correct halves, so the
    per-half figure it yields is the most favourable reading of the evidence (an upper bound).

    Returns:
        (label index, read index, halves correct) for each pair.
    """
    if not labels or not reads:
        return []
    score = np.array(
        [
            [(3.0 if tile_key(lab) == tile_key(r) else 0.0) + halves_correct(lab, r) for r in reads]
            for lab in labels
        ]
    )
    return [(i, j, halves_correct(labels[i], reads[j])) for i, j in linear_assignment(score)]


def confusion_matrix(pairs: Iterable[tuple[int, int]], size: int = 13) -> np.ndarray:
    """(size, size) int counts: rows are labelled values, columns read values."""
    matrix = np.zeros((size, size), dtype=np.int64)
    for truth, read in pairs:
        if 0 <= truth < size and 0 <= read < size:
            matrix[truth, read] += 1
    return matrix


# The reliability diagram of a probability (`dominocam calibrate`, `dominocam eval`): equal-width
# bins of the probabilities, each with the fraction of boxes that were right.
RELIABILITY_BINS = 10


def reliability_bins(p: np.ndarray, y: np.ndarray, bins: int = RELIABILITY_BINS) -> list[dict]:
    """Equal-width bins of the probabilities `p` with the outcomes `y` (1 = right): for each
    bin with boxes, its range, count, mean probability, fraction right and their gap."""
    edges = np.linspace(0, 1, bins + 1)
    index = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    out = []
    for k in range(bins):
        mask = index == k
        if mask.any():
            mean_p, right = float(p[mask].mean()), float(y[mask].mean())
            out.append(
                {
                    "lo": round(float(edges[k]), 2),
                    "hi": round(float(edges[k + 1]), 2),
                    "n": int(mask.sum()),
                    "mean_p": round(mean_p, 4),
                    "right": round(right, 4),
                    "gap": round(abs(mean_p - right), 4),
                }
            )
    return out


def expected_calibration_error(p: np.ndarray, y: np.ndarray, bins: int = RELIABILITY_BINS) -> float:
    """Sum over equal-width bins of |mean p - fraction right| weighted by the bin's share."""
    if len(p) == 0:
        return float("nan")
    return float(sum(b["n"] * b["gap"] for b in reliability_bins(p, y, bins)) / len(p))
