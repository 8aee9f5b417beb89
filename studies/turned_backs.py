"""How often the reader is right to turn a tile face down (`dominocam.vision.reader.BACK_SURE`).

    .venv/bin/python -m studies.turned_backs --synthetic runs/data/synth-s41-n300 \
        [--synthetic DIR:train ...] [--realval ../shared/realval] [--threads 2]

`dominocam.vision.pipeline.backs_face_down` counts face down a box the detector calls face up when
the reader reads both its halves as a tile's back (`BACK_MIN`), and it is doubtful under
`BACK_SURE`. Each picture is read as the product reads it (committed models and calibration); each
tile so turned (its warning says so, with the weaker half's back probability) is matched to the
labelled tile it overlaps most, by area (more than half of the box: else it is no tile). Per set and
per band of that probability it prints how many tiles were turned, how many truly lie face down, and
how many of the others are not doubtful: a wrong count that nothing asks a person about.

`--synthetic DIR[:SPLIT]` reads a `dominocam synth` set's split (val unless named). Real
photos have no labelled boxes, so `--realval` only counts the turned tiles and their doubts.
It only measures.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dominocam.vision.notes import Note
from studies.product_reads import covering_label, real_scenes, synthetic_scenes, tally_sets

# Bands of the weaker half's back probability: [low, high).
BANDS: tuple[tuple[float, float], ...] = ((0.5, 0.7), (0.7, 0.9), (0.9, 0.99), (0.99, 1.01))
NO_TILE = "none"


@dataclass(frozen=True)
class Turned:
    """One tile the reader turned face down: its back probability, the labelled face (None
    without labels) and whether the Scene marked it doubtful."""

    back: float
    truth: str | None
    doubtful: bool


def truth_face(corners: np.ndarray, truth_tiles: Sequence[dict]) -> str:
    """The face of the labelled tile that covers most of the box `corners`, or `NO_TILE`
    when none covers more than half of it."""
    label = covering_label(corners, truth_tiles)
    return NO_TILE if label is None else label.get("face", "up")


def turned_tiles(scene, truth_tiles: Sequence[dict] | None) -> list[Turned]:
    """The tiles of `scene` the reader turned face down (code `back_both_halves`)."""
    by_id = {t.id: t for t in scene.tiles}
    out = []
    for warning in scene.warnings:
        if not isinstance(warning, Note) or warning.code != "back_both_halves":
            continue
        tile = by_id[int(warning.params["tile"])]
        truth = None if truth_tiles is None else truth_face(tile.corners, truth_tiles)
        out.append(Turned(float(warning.params["p"]), truth, tile.doubtful))
    return out


def tally(turned: Iterable[Turned]) -> list[dict]:
    """Per band of `BANDS`: tiles turned, truly face down, and the others not doubtful."""
    turned = list(turned)
    rows = []
    for low, high in BANDS:
        band = [t for t in turned if low <= t.back < high]
        wrong = [t for t in band if t.truth is not None and t.truth != "down"]
        rows.append(
            {
                "band": [low, min(high, 1.0)],
                "turned": len(band),
                "face_down": sum(t.truth == "down" for t in band),
                "wrong_not_doubtful": sum(not t.doubtful for t in wrong),
                "doubtful": sum(t.doubtful for t in band),
            }
        )
    return rows


def _synthetic(folder: Path, split: str, models) -> Iterable[Turned]:
    for _, truth, scene in synthetic_scenes(folder, models, split):
        yield from turned_tiles(scene, truth["tiles"])


def _real(root: Path, models) -> Iterable[Turned]:
    for _, scene in real_scenes(root, models):
        yield from turned_tiles(scene, None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.turned_backs",
        description="how often the reader is right to turn a tile face down (module docstring)",
    )
    found, as_json = tally_sets(
        parser,
        argv,
        _synthetic,
        _real,
        tally,
        realval_help="the real photos folder (its scenes/): counts only",
    )
    if as_json:
        print(json.dumps(found, indent=1))
        return 0
    for name, rows in found.items():
        print(name)
        print(
            f"  {'back read':>11}  {'turned':>6}  {'face down':>9}  {'others sure':>11}  doubtful"
        )
        for row in rows:
            low, high = row["band"]
            print(
                f"  {low:.2f}-{high:.2f}  {row['turned']:>6}  {row['face_down']:>9}  "
                f"{row['wrong_not_doubtful']:>11}  {row['doubtful']:>8}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
