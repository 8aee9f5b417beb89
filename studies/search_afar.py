"""How the search in windows does where the first look holds no probable tile
(`dominocam.vision.pipeline.searched_afar`): for each picture whose first look (with its close-up
pass) keeps no box the verifier takes for a tile, how many boxes the windows find that the verifier
believes, and how many of those lie on a labelled tile. `MIN_TILES_AFAR` was chosen from its table
on the calibration's fit pictures:

    python -m studies.search_afar --synthetic runs/data/synth-s41-n300:train \\
        --synthetic runs/data/negatives-s43-n80:train

Real photos label tiles, not boxes, so on them only the count of believed boxes is given.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dominocam.vision.image_io import load_image
from dominocam.vision.pipeline import first_look, look_in_windows, probable_tiles
from studies.product_reads import covering_label, tally_sets


@dataclass(frozen=True)
class Search:
    """One picture searched in windows.

    Attributes:
        picture: the picture's file name.
        labelled: tiles labelled in it (None: a real photo, whose labels are not boxes).
        believed: the windows' boxes the verifier takes for tiles (`probable_tiles`).
        on_tiles: how many of those lie on a labelled tile (None on a real photo).
    """

    picture: str
    labelled: int | None
    believed: int
    on_tiles: int | None


def search(image, detector, truth_tiles: list[dict] | None, picture: str) -> Search | None:
    """The search in windows of `image`, or None where its first look holds a probable tile
    or the picture is too small for windows."""
    first = first_look(image, detector)
    if probable_tiles(first):
        return None
    looked = look_in_windows(image, detector, first, [])
    if looked is first:
        return None
    believed = probable_tiles([d for d in looked if d.source == "window"])
    on_tiles = None
    if truth_tiles is not None:
        on_tiles = sum(covering_label(d.corners, truth_tiles) is not None for d in believed)
    labelled = None if truth_tiles is None else len(truth_tiles)
    return Search(picture, labelled, len(believed), on_tiles)


def synthetic_searches(folder: Path, split: str, models) -> Iterator[Search]:
    """The searches of one split of a `dominocam synth` set."""
    for path in sorted((folder / "detector" / "images" / split).glob("*.jpg")):
        truth = json.loads((folder / "truth" / f"{path.stem}.json").read_text())
        found = search(load_image(path), models.detector, truth.get("tiles") or [], path.name)
        if found is not None:
            yield found


def real_searches(root: Path, models) -> Iterator[Search]:
    """The searches of the real photos of `root/scenes/labels.json`."""
    for label in json.loads((root / "scenes" / "labels.json").read_text()):
        image = load_image(root / "scenes" / label["image"])
        found = search(image, models.detector, None, label["image"])
        if found is not None:
            yield found


def tally(searches: Iterable[Search]) -> list[dict]:
    """One row per kind of picture (on a table, on no tile, real) and number of boxes the
    windows' verifier believes: how many pictures, and how many of the boxes lie on tiles."""
    rows: dict[tuple[str, int], dict] = {}
    for s in searches:
        kind = "real" if s.labelled is None else ("table" if s.labelled else "no tile")
        row = rows.setdefault(
            (kind, s.believed),
            {"pictures_on": kind, "believed": s.believed, "pictures": 0, "on_tiles": 0},
        )
        row["pictures"] += 1
        if s.on_tiles is None:
            row["on_tiles"] = None
        else:
            row["on_tiles"] += s.on_tiles
        row.setdefault("examples", []).append(s.picture)
    return [rows[k] for k in sorted(rows)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.search_afar",
        description=(
            "Count what the look in windows finds where the first look holds no probable "
            "tile: the boxes the verifier believes, and how many lie on a labelled tile."
        ),
    )
    found, as_json = tally_sets(parser, argv, synthetic_searches, real_searches, tally)
    if as_json:
        print(json.dumps(found, indent=1))
        return 0
    for name, rows in found.items():
        print(name)
        print(f"  {'pictures on':<12} {'believed':>8} {'pictures':>8} {'on tiles':>8}")
        for r in rows:
            on_tiles = "-" if r["on_tiles"] is None else r["on_tiles"]
            print(
                f"  {r['pictures_on']:<12} {r['believed']:>8} {r['pictures']:>8} "
                f"{on_tiles:>8}  {' '.join(r['examples'][:4])}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
