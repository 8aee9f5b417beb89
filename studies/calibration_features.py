"""How the calibration's features move its fit and its doubt threshold (issue 36: the
calibration fitted on synthetic pictures asks for a review on most real photos). Synthetic
pictures only; nothing here is kept or fitted for the product.

    python -m studies.calibration_features --boxes runs/fit/boxes.json \\
        --fit tables --fit negatives --fit print --fit small --fit closeup [--json]

`--boxes` is a `dominocam calibrate --cache` file: the labelled boxes of synthetic pictures,
read by the committed models without a calibration. The sources named by `--fit` (folder
names) are fitted on, as `dominocam calibrate` fits (`measure.calibrate.fit_logistic`, each
source weighing alike); the other sources are judged. Two ways to turn a box into features:

* `logit`, the runtime's (`dominocam.vision.confidence.box_features`): each probability p (the
  detector's score, the verifier's, each half's) as its logit, one slope each. A step from
  0.97 to 0.9999 weighs as much as one from 0.03 to 0.5.
* `beta`: each probability as two features, ln p and -ln(1 - p), each with its slope (beta
  calibration: Kull, Silva Filho and Flach, 2017). Their sum is the logit, so `beta` can fit
  whatever `logit` fits; it can also let a score near 1 count less than one far from it.

For each, it prints the log-loss and the expected calibration error of `p_tile` and `p_right`
on each judged source, and, for the fit photos and the judged ones, the selective table of
`measure.calibrate.choose_thresholds` (at each `doubtful_below`: of the photos that would need
no review, how many keep no misread or false tile) and the value that rule chooses.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.measure.calibrate import (
    L2,
    PhotoRecord,
    RowOf,
    box_row,
    choose_thresholds,
    fit_logistic,
    labelled_boxes,
    load_photos,
    source_weights,
)
from dominocam.measure.metrics import expected_calibration_error
from dominocam.vision.confidence import FEATURES, box_features

# ln p and -ln(1 - p) are clipped as the runtime clips its logits (+-9): p in [1e-4, 1 - 1e-4].
EDGE = 1e-4


def _sides(p: float) -> tuple[float, float]:
    """(ln p, -ln(1 - p)) of a probability, clipped: how far below 1 and how far above 0."""
    q = min(max(float(p), EDGE), 1.0 - EDGE)
    return math.log(q), -math.log1p(-q)


def beta_row(
    face: str,
    confidence: float,
    pip_confidence: Sequence[float] | None,
    *,
    twice: bool = False,
    verifier: float | None = None,
) -> dict[str, float]:
    """The `beta` feature row of one box (module docstring), beside `box_features`'s `up` and
    `twice`. A face-up box's detector score and a face-down box's have slopes of their own, as
    `det` and `down_det` do; an unread face-up box has both halves at the floor."""
    up = face == "up"
    det = _sides(confidence)
    row = {
        "up": float(up),
        "twice": float(up and twice),
        "det_low": det[0] if up else 0.0,
        "det_high": det[1] if up else 0.0,
        "down_det_low": 0.0 if up else det[0],
        "down_det_high": 0.0 if up else det[1],
    }
    if up and pip_confidence is not None:
        lo, hi = sorted(float(p) for p in pip_confidence)
    else:
        lo = hi = 0.0 if up else 1.0 - EDGE  # face down: the halves say nothing (zeroed below)
    for name, p in (("half_lo", lo), ("half_hi", hi)):
        low, high = _sides(p)
        row[f"{name}_low"], row[f"{name}_high"] = (low, high) if up else (0.0, 0.0)
    if verifier is not None:
        row["verifier_low"], row["verifier_high"] = _sides(verifier)
    return row


BETA_FEATURES = (
    "det_low",
    "det_high",
    "down_det_low",
    "down_det_high",
    "half_lo_low",
    "half_lo_high",
    "half_hi_low",
    "half_hi_high",
    "up",
    "twice",
)


@dataclass(frozen=True)
class Model:
    """A fitted logistic model over any named features (the runtime's `Logistic` knows only
    its own)."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    def predict(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        if not rows:
            return np.zeros(0)
        x = np.array([[row[f] for f in self.features] for row in rows], dtype=np.float64)
        return 1.0 / (1.0 + np.exp(-(self.bias + x @ np.asarray(self.weights))))


@dataclass(frozen=True)
class Way:
    """One way to turn a box into features."""

    name: str
    row_of: RowOf
    features: tuple[str, ...]


def ways(with_verifier: bool) -> tuple[Way, ...]:
    logit = FEATURES + (("verifier",) if with_verifier else ())
    beta = BETA_FEATURES + (("verifier_low", "verifier_high") if with_verifier else ())
    return (Way("logit", box_features, logit), Way("beta", beta_row, beta))


def fit(photos: Sequence[PhotoRecord], label: str, way: Way, l2: float = L2) -> Model:
    """`measure.calibrate.fit_model` with `way`'s features and penalty `l2`."""
    boxes = labelled_boxes(photos, label)
    if len(boxes) < 10 or len({getattr(b, label) for b in boxes}) < 2:
        raise UserInputError(f"too few labelled boxes to fit p_{label} ({len(boxes)})")
    x = np.array([[box_row(b, way.row_of)[f] for f in way.features] for b in boxes])
    y = np.array([float(getattr(b, label)) for b in boxes])
    coef, bias = fit_logistic(x, y, source_weights(boxes), l2)
    return Model(way.features, tuple(float(c) for c in coef), bias)


def _fit_figures(model: Model, photos: Sequence[PhotoRecord], label: str, way: Way) -> dict:
    boxes = labelled_boxes(photos, label)
    if not boxes:
        return {"boxes": 0}
    p = np.clip(model.predict([box_row(b, way.row_of) for b in boxes]), 1e-6, 1 - 1e-6)
    y = np.array([float(getattr(b, label)) for b in boxes])
    log_loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    return {
        "boxes": len(boxes),
        "log_loss": round(log_loss, 4),
        "ece": round(float(expected_calibration_error(p, y)), 4),
    }


def compare(
    photos: Sequence[PhotoRecord], fit_sources: set[str], l2: float = L2
) -> dict[str, dict[str, Any]]:
    """Each way fitted on `fit_sources` with penalty `l2` and judged on the others (module
    docstring)."""
    fitted = [p for p in photos if p.source in fit_sources]
    judged = [p for p in photos if p.source not in fit_sources]
    if not fitted or not judged:
        raise UserInputError("--fit must name some of the sources of --boxes, not all of them")
    boxes = [b for p in photos for b in p.boxes]
    with_verifier = bool(boxes) and all(b.verifier is not None for b in boxes)
    out: dict[str, dict[str, Any]] = {}
    for way in ways(with_verifier):
        tile, right = fit(fitted, "tile", way, l2), fit(fitted, "right", way, l2)
        report: dict[str, Any] = {
            "right_weights": dict(
                zip(way.features, (round(w, 3) for w in right.weights), strict=True)
            ),
            "sources": {},
        }
        for source in sorted({p.source for p in judged}):
            mine = [p for p in judged if p.source == source]
            report["sources"][source] = {
                "tile": _fit_figures(tile, mine, "tile", way),
                "right": _fit_figures(right, mine, "right", way),
            }
        for name, group in (("fit", fitted), ("judged", judged)):
            chosen, table = choose_thresholds(group, tile, right, way.row_of)
            report[f"{name}_photos"] = {"chooses": chosen.doubtful_below, "table": table}
        out[way.name] = report
    return out


def format_report(report: Mapping[str, Mapping[str, Any]]) -> str:
    lines = []
    for name, figures in report.items():
        lines.append(f"{name}: p_right slopes {figures['right_weights']}")
        for source, fig in figures["sources"].items():
            t, r = fig["tile"], fig["right"]
            lines.append(
                f"  {source}: p_tile log-loss {t['log_loss']:.4f} (ECE {t['ece']:.3f}), "
                f"p_right log-loss {r['log_loss']:.4f} (ECE {r['ece']:.3f}), {r['boxes']} boxes"
            )
        for group in ("fit", "judged"):
            chosen = figures[f"{group}_photos"]
            cells = "  ".join(
                f"{value}: {row['clear_read_right']}/{row['clear_photos']}"
                for value, row in chosen["table"].items()
            )
            lines.append(f"  {group} photos, chooses {chosen['chooses']}: {cells}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.calibration_features",
        description=(
            "Fit the calibration two ways (logit features, beta features) on some sources of "
            "a `dominocam calibrate --cache` file and judge both on the others: log-loss, ECE "
            "and the doubt threshold each would choose. Synthetic pictures only."
        ),
    )
    parser.add_argument("--boxes", type=Path, required=True, help="a calibrate --cache file")
    parser.add_argument(
        "--fit", action="append", default=[], metavar="SOURCE", help="a source to fit on (repeat)"
    )
    parser.add_argument(
        "--l2",
        type=float,
        default=L2,
        help=f"the fit's penalty per unit of weight (default {L2}, `dominocam calibrate`'s)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if not args.boxes.is_file():
        raise UserInputError(f"--boxes {args.boxes}: no such file (make it with calibrate --cache)")
    photos = load_photos(args.boxes)
    if any(p.source == "real" for p in photos):
        raise UserInputError(f"{args.boxes} holds real photos' boxes: synthetic ones only")
    report = compare(photos, set(args.fit), args.l2)
    out(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
