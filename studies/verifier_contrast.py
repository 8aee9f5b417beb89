"""Which tiles read right does the reading doubt, by how far each stands out from the table
around it? (issue 36: the honest calibration doubts many real tiles read right.)

    python -m studies.verifier_contrast --synthetic runs/data/holdout:train \\
        --realval ../shared/realval [--json]

Each picture is read as the product reads it (`dominocam.vision.reading.PhotoReader`, the
committed models and calibration); its face-up reads are paired with their labels as
`studies.misread_doubts` pairs them. For every tile read right it takes:

* `standout`: the median grey level inside the box (shrunk to 0.8 about its centre) less the
  median of the ring between the box and the box grown to 1.35: near 0 where a light tile lies
  on a light table, negative where the table is the lighter;
* the verifier's score (`verifier_score`) and whether the tile is `doubtful`.

It counts them in bins of `standout`: how many tiles, how many doubtful, how many with a
verifier score under `--unsure`, and of the doubtful ones how many the verifier is unsure of
(0.982, a logit of 4: where the verifier's term of the calibration's `p_right` falls about
1.3 below its value on a typical tile read right). It only measures; nothing is fitted or
tuned on what it reads.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dominocam.measure.metrics import tile_key
from studies.misread_doubts import rate, real_reads, synthetic_reads

# Bins of `standout` (grey levels): [low, high).
BINS: tuple[tuple[float, float], ...] = (
    (-256.0, 0.0),
    (0.0, 20.0),
    (20.0, 40.0),
    (40.0, 80.0),
    (80.0, 256.0),
)
INNER, OUTER = 0.8, 1.35  # the box shrunk and grown about its centre
UNSURE = 0.982


@dataclass(frozen=True)
class RightTile:
    """One tile read right: how far it stands out, what the verifier and the doubt said."""

    photo: str
    standout: float
    verifier: float | None
    doubtful: bool


def _scaled(corners: np.ndarray, factor: float) -> np.ndarray:
    centre = corners.mean(axis=0)
    return (corners - centre) * factor + centre


def standout(grey: np.ndarray, corners: np.ndarray) -> float | None:
    """The tile's median grey level less its surroundings' (module docstring), or None
    where the box leaves no pixel inside or around it in the picture."""
    corners = np.asarray(corners, dtype=np.float64)
    inner = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(inner, [np.round(_scaled(corners, INNER)).astype(np.int32)], 1)
    box = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(box, [np.round(corners).astype(np.int32)], 1)
    outer = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(outer, [np.round(_scaled(corners, OUTER)).astype(np.int32)], 1)
    ring = (outer > 0) & (box == 0)
    if not inner.any() or not ring.any():
        return None
    return float(np.median(grey[inner > 0]) - np.median(grey[ring]))


def right_tiles(image: np.ndarray, photo: str, pairs) -> list[RightTile]:
    """The tiles of `pairs` ((label, read tile), `studies.misread_doubts`) read right."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    out = []
    for truth, read in pairs:
        if truth is None or tile_key(read.pips) != tile_key(truth):
            continue
        value = standout(grey, read.corners)
        if value is not None:
            out.append(RightTile(photo, value, read.verifier_score, bool(read.doubtful)))
    return out


def synthetic_right(root: Path, split: str, reader) -> Iterator[RightTile]:
    for name, image, _scene, pairs in synthetic_reads(root, split, reader):
        yield from right_tiles(image, name, pairs)


def real_right(root: Path, reader) -> Iterator[RightTile]:
    for name, image, _scene, pairs in real_reads(root, reader):
        yield from right_tiles(image, name, pairs)


def by_standout(tiles: list[RightTile], unsure: float = UNSURE) -> list[dict[str, object]]:
    """One row per bin of `BINS`: tiles, doubtful ones, ones the verifier is unsure of."""
    rows = []
    for low, high in BINS:
        group = [t for t in tiles if low <= t.standout < high]
        doubtful = [t for t in group if t.doubtful]
        scores = [t.verifier for t in group if t.verifier is not None]
        rows.append(
            {
                "standout": [low, high],
                "tiles": len(group),
                "doubtful": rate(sum(t.doubtful for t in group), len(group)),
                "verifier_unsure": rate(sum(s < unsure for s in scores), len(scores)),
                # Of the doubtful tiles, those the verifier is unsure of: its doubt.
                "doubtful_verifier_unsure": rate(
                    sum(t.verifier is not None and t.verifier < unsure for t in doubtful),
                    len(doubtful),
                ),
                "verifier_median": float(np.median(scores)) if scores else None,
            }
        )
    return rows


def _cell(rate: dict) -> str:
    if not rate["n"]:
        return "-"
    return f"{rate['k']}/{rate['n']} {rate['rate']:.2f} [{rate['low']:.2f}, {rate['high']:.2f}]"


def format_report(sets: dict[str, list[dict]], unsure: float = UNSURE) -> str:
    lines = []
    for name, rows in sets.items():
        lines.append(f"{name}: tiles read right, by how far each stands out (grey levels)")
        lines.append(
            f"  standout      tiles  doubtful                     verifier < {unsure}"
            "           of the doubtful, verifier unsure"
        )
        for row in rows:
            low, high = row["standout"]
            lines.append(
                f"  {low:5.0f}..{high:<5.0f} {row['tiles']:6d}  {_cell(row['doubtful']):28s} "
                f"{_cell(row['verifier_unsure']):28s} {_cell(row['doubtful_verifier_unsure'])}"
            )
        doubtful = sum(row["doubtful"]["k"] for row in rows)
        unsure_doubtful = sum(row["doubtful_verifier_unsure"]["k"] for row in rows)
        total = sum(row["tiles"] for row in rows)
        lines.append(
            f"  all: {doubtful} of {total} doubtful, "
            f"{unsure_doubtful} of them with the verifier unsure"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.verifier_contrast",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--synthetic", action="append", default=[], metavar="DIR[:SPLIT]",
        help="a `dominocam synth` folder and its split (val unless named); repeat for more",
    )  # fmt: skip
    parser.add_argument("--realval", help="the realval folder (its scenes/), read only")
    parser.add_argument("--unsure", type=float, default=UNSURE, help="verifier score (%(default)s)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not args.synthetic and not args.realval:
        parser.error("give --synthetic DIR[:SPLIT] or --realval DIR (or both)")
    from dominocam.vision.pipeline import load_models
    from dominocam.vision.reading import PhotoReader

    reader = PhotoReader(load_models(threads=args.threads))
    sets: dict[str, list[dict]] = {}
    for spec in args.synthetic:
        folder, _, split = spec.partition(":")
        tiles = list(synthetic_right(Path(folder), split or "val", reader))
        sets[spec] = by_standout(tiles, args.unsure)
    if args.realval:
        sets["real scenes"] = by_standout(list(real_right(Path(args.realval), reader)), args.unsure)
    print(json.dumps(sets, indent=1) if args.json else format_report(sets, args.unsure))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
