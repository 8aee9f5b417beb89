"""How the calibration's features move its fit and its doubt threshold (issue 36: the
calibration fitted on synthetic pictures asks for a review on most real photos). Synthetic
pictures only; nothing here is kept or fitted for the product.

    python -m studies.calibration_features --boxes runs/fit/boxes.json \\
        --fit tables --fit negatives --fit print --fit small --fit closeup [--json]

`--boxes` is a `dominocam calibrate --cache` file: the labelled boxes of synthetic pictures,
read by the committed models without a calibration. The sources named by `--fit` (folder
names) are fitted on, as `dominocam calibrate` fits (`measure.calibrate.fit_logistic`, each
source weighing alike); the other sources are judged. Two ways to turn a box into features:

* `logit` (`dominocam calibrate`'s default): each probability p (the detector's score, the
  verifier's, each half's) as its logit, one slope each. A step from 0.97 to 0.9999 weighs
  as much as one from 0.03 to 0.5.
* `beta` (`dominocam calibrate --features beta`): each probability as its two sides, ln p and
  -ln(1 - p), each with its slope (beta calibration: Kull, Silva Filho and Flach, 2017;
  `dominocam.vision.confidence.BETA_FEATURES`). Their sum is the logit, so `beta` can fit
  whatever `logit` fits; it can also let a score near 1 count less than one far from it.

Both are fitted with the penalty `--l2` (default `dominocam calibrate`'s). For each, it
prints the log-loss and the expected calibration error of `p_tile` and `p_right` on each
judged source, and, for the fit photos and the judged ones, the selective table of
`measure.calibrate.choose_thresholds` (at each `doubtful_below`: of the photos that would
need no review, how many keep no misread or false tile) and the value that rule chooses.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.measure.calibrate import (
    L2,
    PhotoRecord,
    box_row,
    choose_thresholds,
    fit_features,
    fit_model,
    labelled_boxes,
    load_photos,
)
from dominocam.measure.metrics import expected_calibration_error

WAYS = ("logit", "beta")


def _fit_figures(model: Any, photos: Sequence[PhotoRecord], label: str) -> dict:
    boxes = labelled_boxes(photos, label)
    if not boxes:
        return {"boxes": 0}
    p = np.clip(model.predict([box_row(b) for b in boxes]), 1e-6, 1 - 1e-6)
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
    for way in WAYS:
        features = fit_features(way, with_verifier)
        tile = fit_model(fitted, "tile", features, l2)
        right = fit_model(fitted, "right", features, l2)
        report: dict[str, Any] = {
            "right_weights": {f: round(w, 3) for f, w in zip(features, right.weights, strict=True)},
            "sources": {},
        }
        for source in sorted({p.source for p in judged}):
            mine = [p for p in judged if p.source == source]
            report["sources"][source] = {
                "tile": _fit_figures(tile, mine, "tile"),
                "right": _fit_figures(right, mine, "right"),
            }
        for name, group in (("fit", fitted), ("judged", judged)):
            chosen, table = choose_thresholds(group, tile, right)
            report[f"{name}_photos"] = {"chooses": chosen.doubtful_below, "table": table}
        out[way] = report
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
