"""How sure the reading is: one calibrated probability per box, and what follows from it.

Every box the detector keeps gets two calibrated probabilities from a few features of its
detection and its reading (`box_features`), each a logistic regression fitted by
`dominocam calibrate` (`dominocam.measure.calibrate`) and committed as `models/calibration.json`:

* `p_tile`: the box is a real tile (face up or down) at all;
* `p_right`: it is a real tile read right: right face, and for a face-up tile both halves
  right. This is the Scene's `probability`.

What follows (`assess_tiles`, then `review_scene` once the layout is known):

* `p_tile < Calibration.reject_below`: probably not a tile. The box leaves `tiles` for
  `rejected` and is never counted.
* otherwise `p_right < Calibration.doubtful_below`, or a read that another tile also has
  (`dominocam.vision.decode`): the tile stays, `doubtful`.
* `needs_review` when anything could change a ruling: a doubtful tile, a layout doubt, a tile
  cut by the border, a rejected box that may still be a tile (`p_tile >= review_rejected`;
  in a hand photo `dominocam.vision.settings.HAND_REVIEW_REJECTED`), or one against an open end.
  Each reason is a warning in words a player understands.

Features (logits are clipped to +-9, a probability of 1e-4 .. 1 - 1e-4):
    det       logit of the detector's score
    half_lo   logit of the weaker half's probability of the reading (face up; else 0)
    half_hi   logit of the stronger half's probability (face up; else 0)
    up        1 for a face-up box, 0 for face down
    twice     1 when another tile of the Scene has the same reading (face up)
    down_det  `det` again for a face-down box, else 0: the detector's score says more about
              a back than about a face (a face's reading speaks too); a slope of its own
              lowered the fit's log-loss from 0.1052 to 0.1026 and its ECE from 0.018 to 0.013
    verifier  logit of the tile-or-not verifier's score, when the calibration uses it
A calibration may name instead each probability's two sides, ln p and -ln(1 - p), whose sum is
its logit, each with a slope of its own (beta calibration; `BETA_FEATURES`: `det_low` and
`det_high` for `det`, and so `down_det_*`, `half_lo_*`, `half_hi_*`, `verifier_*`): a score a
little under 1 can then cost less, and one far under it more, than one logit slope says
(docs/decisions/2026-12-04-calibration-fit.md).
Only numpy runs at run time; the fit lives in `dominocam.measure.calibrate`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.vision import messages
from dominocam.vision.decode import _FLOOR, _restrict, _tile_scores, set_tiles
from dominocam.vision.geometry import boxes_cut_by_border
from dominocam.vision.layout import boxes_at_open_ends
from dominocam.vision.notes import note
from dominocam.vision.scene import RejectedBox, Scene, SceneTile

CALIBRATION_FILE = "calibration.json"
FEATURES: tuple[str, ...] = ("det", "half_lo", "half_hi", "up", "twice", "down_det")
# The sides (ln p, -ln(1 - p)) of the scores whose logits are features, for a beta calibration.
SIDE_FEATURES: tuple[str, ...] = tuple(
    f"{name}_{side}"
    for name in ("det", "down_det", "half_lo", "half_hi")
    for side in ("low", "high")
)
BETA_FEATURES: tuple[str, ...] = (*SIDE_FEATURES, "up", "twice")
OPTIONAL_FEATURES: tuple[str, ...] = ("verifier", "verifier_low", "verifier_high")
LOGIT_CLIP = 9.0
# The probability whose logit is -LOGIT_CLIP: the sides are clipped where the logit is.
_EDGE = 1.0 / (1.0 + np.exp(LOGIT_CLIP))


def logit(p: float | np.ndarray) -> float | np.ndarray:
    """log(p / (1 - p)), clipped to +-LOGIT_CLIP (a probability of exactly 0 or 1 is finite)."""
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    out = np.clip(np.log(q) - np.log1p(-q), -LOGIT_CLIP, LOGIT_CLIP)
    return float(out) if out.ndim == 0 else out


def sides(p: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ln p, -ln(1 - p)): how far below 1 and how far above 0, whose sum is `logit(p)`;
    clipped where the logit is."""
    q = np.clip(np.asarray(p, dtype=np.float64), _EDGE, 1 - _EDGE)
    return np.log(q), -np.log1p(-q)


@dataclass(frozen=True)
class Logistic:
    """p = sigmoid(bias + weights . features), features named in `features`."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    def __post_init__(self) -> None:
        if len(self.features) != len(self.weights):
            raise ValueError("a logistic model needs one weight per feature")
        unknown = set(self.features) - set(FEATURES + BETA_FEATURES + OPTIONAL_FEATURES)
        if unknown:
            raise ValueError(f"unknown calibration features {sorted(unknown)}")

    def predict(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        """(n,) probabilities for n feature rows (dicts by feature name)."""
        if not rows:
            return np.zeros(0)
        x = np.array([[row[f] for f in self.features] for row in rows], dtype=np.float64)
        return self.predict_matrix(x)

    def predict_matrix(self, x: np.ndarray) -> np.ndarray:
        """(n,) probabilities for an (n, len(features)) matrix, columns in `features` order."""
        z = self.bias + x @ np.asarray(self.weights, dtype=np.float64)
        return 1.0 / (1.0 + np.exp(-z))

    def to_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Logistic:
        return cls(
            tuple(str(f) for f in data["features"]),
            tuple(float(w) for w in data["weights"]),
            float(data["bias"]),
        )


@dataclass(frozen=True)
class Calibration:
    """The fitted models and the thresholds that act on them (module docstring).

    Attributes:
        tile: the model of `p_tile`.
        right: the model of `p_right` (the Scene's `probability`).
        reject_below: a box with `p_tile` below this is not a tile.
        doubtful_below: a tile with `p_right` below this is doubtful.
        review_rejected: a rejected box with `p_tile` at least this still asks for a review.
        fit: what it was fitted on and how well (written by `dominocam calibrate`).
    """

    tile: Logistic
    right: Logistic
    reject_below: float
    doubtful_below: float
    review_rejected: float
    fit: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.review_rejected <= self.reject_below <= 1.0:
            raise ValueError("calibration thresholds need 0 <= review_rejected <= reject_below")
        if not 0.0 <= self.doubtful_below <= 1.0:
            raise ValueError("calibration doubtful_below must lie in [0, 1]")

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.tile.features + self.right.features))

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": self.tile.to_dict(),
            "right": self.right.to_dict(),
            "thresholds": {
                "reject_below": self.reject_below,
                "doubtful_below": self.doubtful_below,
                "review_rejected": self.review_rejected,
            },
            "fit": self.fit,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        thresholds = data["thresholds"]
        return cls(
            tile=Logistic.from_dict(data["tile"]),
            right=Logistic.from_dict(data["right"]),
            reject_below=float(thresholds["reject_below"]),
            doubtful_below=float(thresholds["doubtful_below"]),
            review_rejected=float(thresholds["review_rejected"]),
            fit=dict(data.get("fit", {})),
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")


def calibration_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The calibration file: `path`, else $DOMINOCAM_MODELS/calibration.json, else models/."""
    if path is not None:
        return Path(path)
    folder = os.environ.get("DOMINOCAM_MODELS")
    base = Path(folder) if folder else Path(__file__).resolve().parent.parent / "models"
    return base / CALIBRATION_FILE


def load_calibration(
    path: str | os.PathLike[str] | None = None, *, required: bool = False
) -> Calibration | None:
    """The committed calibration, or None where there is none and `required` is False.

    Raises:
        UserInputError: the file is unreadable, or missing while `required`.
    """
    file = calibration_path(path)
    if not file.is_file():
        if required or path is not None:
            raise UserInputError(f"no calibration file {file}: make one with `dominocam calibrate`")
        return None
    try:
        return Calibration.from_dict(json.loads(file.read_text()))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UserInputError(f"{file}: not a calibration file ({error})") from error


# --- features -------------------------------------------------------------------------------


def best_readings(
    half_probs: Sequence[np.ndarray], set_max: int
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The most likely tile (a, b), a <= b, of a double-`set_max` set for each box's half
    probabilities on its own, and the two halves' probabilities of it, weaker first: what
    `dominocam.vision.decode.joint_decode` gives each box decoded alone, for all boxes in one pass.

    Returns:
        The n readings, and (n, 2) probabilities sorted ascending per row.
    """
    if not len(half_probs):
        return [], np.zeros((0, 2))
    candidates = set_tiles(set_max)
    probs = _restrict(half_probs, set_max)  # (n, 2, set_max+1)
    logp = np.log(np.maximum(probs, _FLOOR))
    best = _tile_scores(logp, candidates).argmax(axis=1)
    a = np.array([candidates[k][0] for k in best.tolist()], dtype=np.int64)
    b = np.array([candidates[k][1] for k in best.tolist()], dtype=np.int64)
    rows = np.arange(len(best))
    # The orientation joint_decode picks decides which half's probability goes with a.
    flip = logp[rows, 0, b] + logp[rows, 1, a] > logp[rows, 0, a] + logp[rows, 1, b]
    first = np.where(flip, probs[rows, 1, a], probs[rows, 0, a])
    second = np.where(flip, probs[rows, 0, b], probs[rows, 1, b])
    confidence = np.sort(np.stack([first, second], axis=1), axis=1)
    return [(int(x), int(y)) for x, y in zip(a, b, strict=True)], confidence


def box_features(
    face: str,
    confidence: float,
    pip_confidence: Sequence[float] | None,
    *,
    twice: bool = False,
    verifier: float | None = None,
) -> dict[str, float]:
    """The feature row of one box (module docstring)."""
    det = float(logit(confidence))
    row = {"det": det, "half_lo": 0.0, "half_hi": 0.0, "up": 0.0, "twice": 0.0, "down_det": det}
    if face == "up":
        row["up"], row["down_det"] = 1.0, 0.0
        if pip_confidence is not None:
            lo, hi = sorted(float(p) for p in pip_confidence)
            row["half_lo"], row["half_hi"] = float(logit(lo)), float(logit(hi))
        else:  # unread: nothing speaks for a right reading
            row["half_lo"] = row["half_hi"] = -LOGIT_CLIP
        row["twice"] = float(twice)
    if verifier is not None:
        row["verifier"] = float(logit(verifier))
    return {**row, **_beta_row(face, confidence, pip_confidence, verifier)}


def _beta_row(
    face: str, confidence: float, pip_confidence: Sequence[float] | None, verifier: float | None
) -> dict[str, float]:
    """The sides of `box_features`'s probabilities (module docstring): a face-up box's halves
    (an unread one at the floor), a face-down box's detector score under `down_det_*`."""
    up = face == "up"
    det_low, det_high = (float(v) for v in sides(confidence))
    row = {
        "det_low": det_low if up else 0.0,
        "det_high": det_high if up else 0.0,
        "down_det_low": 0.0 if up else det_low,
        "down_det_high": 0.0 if up else det_high,
    }
    halves = sorted(float(p) for p in pip_confidence) if pip_confidence is not None else [0, 0]
    for name, p in zip(("half_lo", "half_hi"), halves, strict=True):
        low, high = (float(v) for v in sides(p))
        row[f"{name}_low"], row[f"{name}_high"] = (low, high) if up else (0.0, 0.0)
    if verifier is not None:
        low, high = (float(v) for v in sides(verifier))
        row["verifier_low"], row["verifier_high"] = low, high
    return row


def _repeated(tiles: Sequence[SceneTile]) -> set[int]:
    """Ids of face-up tiles whose reading another tile of the list also has."""
    seen: dict[tuple[int, int], list[int]] = {}
    for tile in tiles:
        if tile.face == "up" and tile.pips is not None:
            seen.setdefault(tile.pips, []).append(tile.id)
    return {i for ids in seen.values() if len(ids) > 1 for i in ids}


def _verifier_of(tile: SceneTile) -> float | None:
    return tile.verifier_score


def probabilities(
    tiles: Sequence[SceneTile], calibration: Calibration
) -> tuple[np.ndarray, np.ndarray]:
    """(p_tile, p_right) of every tile, from its current reading (`pips`, `pip_confidence`).

    `p_right` never exceeds `p_tile` (a tile read right is a tile).
    """
    twice = _repeated(tiles)
    return _predict(
        [t.face for t in tiles],
        [t.confidence for t in tiles],
        [t.pip_confidence for t in tiles],
        [t.id in twice for t in tiles],
        [_verifier_of(t) for t in tiles],
        calibration,
    )


def feature_matrix(
    faces: Sequence[str],
    confidences: Sequence[float],
    pip_confidences: Sequence[Sequence[float] | None],
    twice: Sequence[bool],
    verifiers: Sequence[float | None],
    features: Sequence[str],
) -> np.ndarray:
    """(n, len(features)) the `box_features` rows of n boxes, columns in `features` order,
    computed for all boxes at once.

    Raises:
        UserInputError: `features` names the verifier and a box has no verifier score.
    """
    n = len(faces)
    up = np.array([face == "up" for face in faces], dtype=bool)
    det = np.asarray(logit(np.asarray(confidences, dtype=np.float64).reshape(n)))
    read = np.array([up[i] and pip_confidences[i] is not None for i in range(n)], dtype=bool)
    halves = np.array(
        [
            sorted(float(p) for p in c) if r and c is not None else (0.5, 0.5)
            for c, r in zip(pip_confidences, read, strict=True)
        ],
        dtype=np.float64,
    ).reshape(n, 2)
    half = np.where(read[:, None], np.asarray(logit(halves)).reshape(n, 2), 0.0)
    half = np.where(up[:, None] & ~read[:, None], -LOGIT_CLIP, half)
    columns = {
        "det": det,
        "half_lo": half[:, 0],
        "half_hi": half[:, 1],
        "up": up.astype(np.float64),
        "twice": np.where(up, np.asarray(twice, dtype=np.float64).reshape(n), 0.0),
        "down_det": np.where(up, 0.0, det),
    }
    if set(features) & set(SIDE_FEATURES):
        det_sides = sides(np.asarray(confidences, dtype=np.float64).reshape(n))
        # An unread face-up box's halves at the floor, a face-down box's at none.
        half_p = np.where(read[:, None], halves, 0.0)
        for k, side in enumerate(("low", "high")):
            columns[f"det_{side}"] = np.where(up, det_sides[k], 0.0)
            columns[f"down_det_{side}"] = np.where(up, 0.0, det_sides[k])
            for j, name in enumerate(("half_lo", "half_hi")):
                columns[f"{name}_{side}"] = np.where(up, sides(half_p[:, j])[k], 0.0)
    if set(features) & set(OPTIONAL_FEATURES):
        if any(v is None for v in verifiers):
            raise UserInputError(
                "the calibration needs verifier for every box: use the models it was "
                "fitted with (models/calibration.json)"
            )
        scores = np.asarray(verifiers, dtype=np.float64).reshape(n)
        columns["verifier"] = np.asarray(logit(scores)).reshape(n)
        columns["verifier_low"], columns["verifier_high"] = sides(scores)
    return np.stack([columns[f] for f in features], axis=1) if n else np.zeros((0, len(features)))


def _predict(
    faces: Sequence[str],
    confidences: Sequence[float],
    pip_confidences: Sequence[Sequence[float] | None],
    twice: Sequence[bool],
    verifiers: Sequence[float | None],
    calibration: Calibration,
) -> tuple[np.ndarray, np.ndarray]:
    """(p_tile, p_right) of n boxes described by their features' inputs."""
    if not faces:
        return np.zeros(0), np.zeros(0)
    x = feature_matrix(faces, confidences, pip_confidences, twice, verifiers, calibration.features)
    column = {f: i for i, f in enumerate(calibration.features)}
    p_tile = calibration.tile.predict_matrix(x[:, [column[f] for f in calibration.tile.features]])
    p_right = calibration.right.predict_matrix(
        x[:, [column[f] for f in calibration.right.features]]
    )
    return p_tile, np.minimum(p_right, p_tile)


# --- what follows from them -----------------------------------------------------------------


@dataclass(frozen=True)
class Assessment:
    """The tiles kept (with `probability` and `doubtful` set), the boxes rejected, and the
    `p_tile` of each rejected box (same order), for `review_scene`."""

    tiles: list[SceneTile]
    rejected: list[RejectedBox]
    rejected_p_tile: tuple[float, ...]


def reject_boxes(
    tiles: Sequence[SceneTile], calibration: Calibration, set_max: int
) -> tuple[list[SceneTile], list[RejectedBox], tuple[float, ...]]:
    """Take out the boxes that are probably not tiles, judged on each box's reading on its
    own (before joint decoding, so that a false box never takes a real tile's value from it).

    Returns the kept tiles (renumbered 0..n-1), the rejected boxes and their `p_tile`.
    """
    read = [(i, t.half_probs) for i, t in enumerate(tiles) if t.face == "up"]
    up = [i for i, probs in read if probs is not None]
    readings, confidence = best_readings([p for _, p in read if p is not None], set_max)
    own_pips: list[tuple[int, int] | None] = [t.pips for t in tiles]
    own_confidence: list[Sequence[float] | None] = [t.pip_confidence for t in tiles]
    for row, i in enumerate(up):
        own_pips[i] = readings[row]
        own_confidence[i] = (float(confidence[row, 0]), float(confidence[row, 1]))
    seen: dict[tuple[int, int], int] = {}
    for tile, pips in zip(tiles, own_pips, strict=True):
        if tile.face == "up" and pips is not None:
            seen[pips] = seen.get(pips, 0) + 1
    twice = [
        t.face == "up" and p is not None and seen[p] > 1
        for t, p in zip(tiles, own_pips, strict=True)
    ]
    p_tile, p_right = _predict(
        [t.face for t in tiles],
        [t.confidence for t in tiles],
        own_confidence,
        twice,
        [_verifier_of(t) for t in tiles],
        calibration,
    )
    kept: list[SceneTile] = []
    rejected: list[RejectedBox] = []
    rejected_p: list[float] = []
    for tile, pips, pt, pr in zip(tiles, own_pips, p_tile, p_right, strict=True):
        if pt < calibration.reject_below:
            rejected.append(RejectedBox(tile.corners, float(pr), tile.face, pips))
            rejected_p.append(float(pt))
        else:
            kept.append(tile if tile.id == len(kept) else replace(tile, id=len(kept)))
    return kept, rejected, tuple(rejected_p)


def mark_doubtful(tiles: Sequence[SceneTile], calibration: Calibration) -> list[SceneTile]:
    """The tiles with `probability` (p_right of their final reading) and `doubtful` set.

    A tile below `doubtful_below` is always doubtful, and one already marked (a read another
    tile also has) stays so: joint decoding can never leave a tile under the threshold
    without the mark.
    """
    if not tiles:
        return []
    _, p_right = probabilities(tiles, calibration)
    return [
        t.assessed(float(p), t.doubtful or p < calibration.doubtful_below)
        for t, p in zip(tiles, p_right, strict=True)
    ]


def _tile_name(tile: SceneTile) -> str:
    if tile.face == "down":
        return f"the face-down tile #{tile.id}"
    if tile.pips is None:
        return f"the unread tile #{tile.id}"
    return f"tile {tile.pips[0]}-{tile.pips[1]} (#{tile.id})"


def _second_reading(tile: SceneTile, set_max: int) -> tuple[int, int] | None:
    """The next most likely reading of a face-up tile on its own, for "it could be"."""
    if tile.half_probs is None or tile.pips is None:
        return None

    candidates = set_tiles(set_max)
    probs = _restrict([tile.half_probs], set_max)
    scores = _tile_scores(np.log(np.maximum(probs, 1e-9)), candidates)[0]
    for k in np.argsort(-scores):
        if candidates[int(k)] != tile.pips:
            return candidates[int(k)]
    return None


def review_scene(
    scene: Scene,
    calibration: Calibration,
    set_max: int,
    rejected_p_tile: Sequence[float] = (),
    review_rejected: float | None = None,
) -> Scene:
    """The Scene with `needs_review` and its reasons in `warnings`, in a player's words.

    Args:
        scene: the assessed Scene (tiles with `doubtful`, `rejected` boxes, layout rebuilt).
        calibration: for `review_rejected`.
        set_max: the set's highest value (for "it could be ...").
        rejected_p_tile: `p_tile` of each of `scene.rejected`, same order.
        review_rejected: a rejected box with `p_tile` at least this asks; None: the
            calibration's `review_rejected`. A hand photo passes its own
            (`dominocam.vision.settings.HAND_REVIEW_REJECTED`,
            `dominocam.vision.reading.PhotoReader`).
    """
    ask_from = calibration.review_rejected if review_rejected is None else review_rejected

    reasons: list[str] = []
    for tile in scene.doubtful:
        other = _second_reading(tile, set_max)
        down = tile.face == "down"
        if tile.pips is not None:
            template = {
                (False, False): messages.MAY_BE_MISREAD,
                (False, True): messages.MAY_BE_MISREAD_COULD_BE,
                (True, False): messages.MAY_NOT_BE_A_TILE,
                (True, True): messages.MAY_NOT_BE_A_TILE_COULD_BE,
            }[(down, other is not None)]
            reasons.append(note(template, tile=tile.pips, id=tile.id, other=other))
        elif down:
            reasons.append(note(messages.FACE_DOWN_MAY_NOT_BE_A_TILE, id=tile.id))
        else:
            reasons.append(note(messages.UNREAD_MAY_BE_MISREAD, id=tile.id))
    cut = boxes_cut_by_border(np.array([t.corners for t in scene.tiles]), scene.width, scene.height)
    for tile, is_cut in zip(scene.tiles, cut, strict=True):
        if not is_cut:
            continue
        if tile.face == "down":
            reasons.append(note(messages.FACE_DOWN_CUT_BY_EDGE, id=tile.id))
        elif tile.pips is None:
            reasons.append(note(messages.UNREAD_CUT_BY_EDGE, id=tile.id))
        else:
            reasons.append(note(messages.CUT_BY_EDGE, tile=tile.pips, id=tile.id))
    at_ends = dict(boxes_at_open_ends(scene, np.array([b.corners for b in scene.rejected])))
    # A box without its p_tile (none given) is asked about only at an open end.
    p_tiles = [*rejected_p_tile, *[0.0] * (len(scene.rejected) - len(rejected_p_tile))]
    for i, (box, p) in enumerate(zip(scene.rejected, p_tiles, strict=False)):
        centre = box.corners.mean(axis=0)
        if i in at_ends:  # a tile there would change an open end, whatever its p
            end = at_ends[i]
            reasons.append(
                note(
                    messages.BOX_AT_OPEN_END, x=centre[0], y=centre[1], value=end.value, id=end.tile
                )
            )
        elif p >= ask_from:
            reasons.append(note(messages.BOX_MAY_BE_A_TILE, x=centre[0], y=centre[1], p=p))
    if scene.layout.doubts:
        reasons.append(note(messages.LAYOUT_DOUBTS))
    warnings = list(scene.warnings) + [r for r in reasons if r not in scene.warnings]
    return replace(scene, warnings=warnings, needs_review=bool(reasons))


def scene_doubt_summary(scene: Scene) -> str | None:
    """One line naming the doubtful tiles of a Scene (None without any), for rulings."""
    if not scene.doubtful:
        return None
    names = ", ".join(_tile_name(t) for t in scene.doubtful)
    return f"doubtful: {names}"
