"""Of the tiles the reader reads with a wrong value, how many does it doubt? (issue 32, the
misread that counting cannot see.)

    python -m studies.misread_doubts --synthetic runs/data/synth-s41-n300 \\
        --synthetic runs/data/hands-s73-n200 --realval ../shared/realval [--json]

Each picture is read as the product reads it (`dominocam.vision.reading.PhotoReader` with the
committed models and calibration): a synthetic picture as a table or a hand photo as its truth says,
a real scene as a hand photo when its label says `hand`, else as a table, a real single-tile crop as
`dominocam eval` reads it (a table photo, the most confident face-up tile).

A read face-up tile is paired with its labelled tile as `dominocam eval` pairs them
(`dominocam.measure.scoring`): synthetic boxes one to one (`dominocam.measure.metrics.match_boxes`,
scored tiles only: `dominocam.measure.truth.synthetic_truth`), real scenes by identity
(`dominocam.measure.metrics.assign_reads`, the pairing most favourable to the reader: an upper bound
on its accuracy, so misreads are if anything undercounted there). For each pair:

* read right, or read with a WRONG value (either half);
* the tile is `doubtful`, and whether its photo asks at all (`needs_review`, or any doubtful
  tile): a misread *asks* when a person is asked to check that photo before a ruling counts
  (`dominocam round` says "uncertain" for it; the dashboard's host checks the table; a hand
  is its owner's to confirm).

Read tiles paired with no label (a box on no tile, read face up) are counted apart: a tile
that is not there, with the same two doubts. A labelled face-up tile read face down or not
read is a missed tile, not a misread (the ledger counts it), and is not counted here.

Every figure is k of n with a Wilson 95% interval (`dominocam.measure.metrics.wilson`). It only
measures; nothing is fitted or tuned on what it reads. The synthetic figure of "a misread
asks" is `studies.round_simulation.FaultRates.misread_asks` (and "a tile read right is
doubtful" its `right_doubtful`); the real one is shown beside it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dominocam.measure.metrics import assign_reads, match_boxes, tile_key, wilson
from dominocam.measure.truth import set_max, synthetic_truth
from dominocam.vision.image_io import load_image


@dataclass(frozen=True)
class ReadTile:
    """One read face-up tile and what the reader said of it.

    Attributes:
        photo: the picture's file name.
        truth: the labelled tile (sorted pips), or None for a read paired with no label.
        read: the tile as read (sorted pips).
        doubtful: the tile is marked doubtful.
        photo_asks: its photo asks a person (`needs_review`, or a doubtful tile in it).
    """

    photo: str
    truth: tuple[int, int] | None
    read: tuple[int, int]
    doubtful: bool
    photo_asks: bool

    @property
    def wrong(self) -> bool:
        return self.truth is not None and self.truth != self.read


@dataclass
class Tally:
    """The counts of one set (`tally`)."""

    photos: int = 0
    photos_asking: int = 0
    right: int = 0
    right_doubtful: int = 0
    right_photo_asks: int = 0
    wrong: int = 0
    wrong_doubtful: int = 0
    wrong_asks: int = 0
    unlabelled: int = 0
    unlabelled_asks: int = 0
    silent: list[str] = field(default_factory=list)  # misreads whose photo asks nothing

    def add_photo(self, tiles: Iterable[ReadTile], asks: bool) -> None:
        self.photos += 1
        self.photos_asking += asks
        for tile in tiles:
            if tile.truth is None:
                self.unlabelled += 1
                self.unlabelled_asks += tile.photo_asks
            elif tile.wrong:
                self.wrong += 1
                self.wrong_doubtful += tile.doubtful
                self.wrong_asks += tile.photo_asks
                if not tile.photo_asks:
                    self.silent.append(
                        f"{tile.photo}: {tile.truth[0]}-{tile.truth[1]} read as "
                        f"{tile.read[0]}-{tile.read[1]}"
                    )
            else:
                self.right += 1
                self.right_doubtful += tile.doubtful
                self.right_photo_asks += tile.photo_asks

    def merged(self, other: Tally) -> Tally:
        out = Tally()
        for name in out.__dataclass_fields__:
            setattr(out, name, getattr(self, name) + getattr(other, name))
        return out


def rate(k: int, n: int) -> dict[str, object]:
    """k of n with its Wilson 95% interval (None without any n)."""
    if not n:
        return {"k": k, "n": n, "rate": None, "low": None, "high": None}
    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": k / n, "low": low, "high": high}


def figures(t: Tally) -> dict[str, object]:
    """A set's figures as JSON-able values."""
    return {
        "photos": t.photos,
        "photos_asking": rate(t.photos_asking, t.photos),
        "misread_asks": rate(t.wrong_asks, t.wrong),
        "misread_doubtful": rate(t.wrong_doubtful, t.wrong),
        "right_doubtful": rate(t.right_doubtful, t.right),
        "right_photo_asks": rate(t.right_photo_asks, t.right),
        "misread_rate": rate(t.wrong, t.wrong + t.right),
        "unlabelled_asks": rate(t.unlabelled_asks, t.unlabelled),
        "silent_misreads": list(t.silent),
    }


# --- reading the sets -------------------------------------------------------------------------


def _asks(scene) -> bool:
    return bool(scene.needs_review) or any(t.doubtful for t in scene.tiles)


def _up(scene) -> list:
    return [t for t in scene.tiles if t.face == "up" and t.pips is not None]


def synthetic_pairs(scene, truth_file: Path) -> list[tuple[tuple[int, int] | None, object]]:
    """(labelled tile or None, read tile) for each face-up read of a synthetic picture's
    Scene: paired one to one with the scored labels, a read on no label with None."""
    truth, ignore, _top, _photo = synthetic_truth(truth_file)
    tiles = list(scene.tiles)
    labels = [np.asarray(t["corners"], dtype=float) for t in truth]
    matching = match_boxes(labels, [np.asarray(t.corners, float) for t in tiles], ignore=ignore)
    out: list[tuple[tuple[int, int] | None, object]] = []
    for i, j, _ in matching.pairs:
        label, read = truth[i], tiles[j]
        if label["face"] != "up" or not label["readable"] or read.face != "up":
            continue
        if read.pips is None:
            continue
        out.append((tuple(label["pips"]), read))
    for j in matching.extra:
        read = tiles[j]
        if read.face == "up" and read.pips is not None:
            out.append((None, read))
    return out


def synthetic_reads(root: Path, split: str, reader) -> Iterator[tuple[str, object, object, list]]:
    """(picture name, image, Scene, pairs) per picture of a `dominocam synth` split: each read
    as its truth's kind (a hand photo, or a table), its reads paired (`synthetic_pairs`)."""
    for path in sorted((root / "detector" / "images" / split).glob("*.jpg")):
        truth_file = root / "truth" / f"{path.stem}.json"
        kind = "hand" if json.loads(truth_file.read_text()).get("kind") == "hand" else "table"
        _truth, _ignore, top, _photo = synthetic_truth(truth_file)
        image = load_image(path)
        scene = reader.read(image, kind, top)
        yield path.name, image, scene, synthetic_pairs(scene, truth_file)


def synthetic_tiles(root: Path, split: str, reader) -> Iterator[tuple[list[ReadTile], bool]]:
    """(read tiles, photo asks) per picture of a `dominocam synth` split (`synthetic_reads`)."""
    for name, _image, scene, pairs in synthetic_reads(root, split, reader):
        asks = _asks(scene)
        yield (
            [
                ReadTile(name, truth, tile_key(read.pips), read.doubtful, asks)
                for truth, read in pairs
            ],
            asks,
        )


def real_pairs(scene, label: dict) -> list[tuple[tuple[int, int] | None, object]]:
    """(labelled tile or None, read tile) for each face-up read of a real scene's Scene,
    paired by identity (`assign_reads`); a read beyond the labels with None."""
    truth_up = [tile_key(p) for p in label.get("face_up", [])]
    read = _up(scene)
    pairs = assign_reads(truth_up, [t.pips for t in read])
    paired = {j for _, j, _ in pairs}
    out: list[tuple[tuple[int, int] | None, object]] = [
        (tuple(truth_up[i]), read[j]) for i, j, _ in pairs
    ]
    # A read beyond the labels: a box on no tile, or on a tile the label excludes (cut by
    # the frame: not scored, so not counted either).
    excluded = len(label.get("excluded") or [])
    extra = [j for j in range(len(read)) if j not in paired]
    out += [(None, read[j]) for j in extra[excluded:]]
    return out


def real_reads(root: Path, reader) -> Iterator[tuple[str, object, object, list]]:
    """(photo name, image, Scene, pairs) per real scene (realval/scenes): a hand photo when
    its label says `hand`, else a table; its reads paired by identity (`real_pairs`)."""
    for label in json.loads((root / "scenes" / "labels.json").read_text()):
        kind = "hand" if label.get("hand") else "table"
        image = load_image(root / "scenes" / label["image"])
        scene = reader.read(image, kind, set_max(label["set"]))
        yield label["image"], image, scene, real_pairs(scene, label)


def real_scene_tiles(root: Path, reader) -> Iterator[tuple[list[ReadTile], bool]]:
    """(read tiles, photo asks) per real scene (`real_reads`)."""
    for name, _image, scene, pairs in real_reads(root, reader):
        asks = _asks(scene)
        yield (
            [
                ReadTile(name, truth, tile_key(read.pips), read.doubtful, asks)
                for truth, read in pairs
            ],
            asks,
        )


def real_crop_tiles(root: Path, reader) -> Iterator[tuple[list[ReadTile], bool]]:
    """(read tile, photo asks) per real single-tile crop (realval/tiles), read as
    `dominocam eval` reads it: the most confident face-up tile of the whole crop."""
    for label in json.loads((root / "tiles" / "labels.json").read_text()):
        top = 12 if "12" in str(label.get("note", "")) else 6
        scene = reader.read(load_image(root / "tiles" / label["image"]), "table", top)
        asks = _asks(scene)
        up = sorted(_up(scene), key=lambda t: -t.confidence)
        tiles = []
        if up:
            best = up[0]
            pips = tile_key(label["pips"])
            tiles.append(ReadTile(label["image"], pips, tile_key(best.pips), best.doubtful, asks))
        yield tiles, asks


def tally(photos: Iterable[tuple[list[ReadTile], bool]], progress: str | None = None) -> Tally:
    """The counts of a set's photos."""
    if progress:
        from tqdm import tqdm

        photos = tqdm(photos, desc=progress, unit="img", leave=False)
    out = Tally()
    for tiles, asks in photos:
        out.add_photo(tiles, asks)
    return out


# --- the report -------------------------------------------------------------------------------


def _cell(figure: dict) -> str:
    if not figure["n"]:
        return "-"
    return (
        f"{figure['k']}/{figure['n']} {100 * figure['rate']:.1f}% "
        f"({100 * figure['low']:.1f}-{100 * figure['high']:.1f})"
    )


COLUMNS = (
    ("misread_asks", "misread: photo asks"),
    ("misread_doubtful", "misread: tile doubtful"),
    ("right_doubtful", "read right: doubtful"),
    ("misread_rate", "misread of read tiles"),
    ("unlabelled_asks", "no tile there: asks"),
)


def format_report(sets: dict[str, dict]) -> str:
    """The figures as a plain-text table, one row per set, one column per figure."""
    lines = [
        "Misreads and the reader's doubts (k/n, %, Wilson 95% interval); a photo asks when it "
        "needs review or holds a doubtful tile",
        "",
    ]
    width = max(len(name) for name in sets) + 2
    head = f"{'set':<{width}}{'photos':>7}"
    for _key, title in COLUMNS:
        head += f"  {title:<30}"
    lines.append(head)
    for name, row in sets.items():
        line = f"{name:<{width}}{row['photos']:>7}"
        for key, _title in COLUMNS:
            line += f"  {_cell(row[key]):<30}"
        lines.append(line)
    silent = [
        (name, s)
        for name, row in sets.items()
        if not name.startswith("all ")
        for s in row["silent_misreads"]
    ]
    if silent:
        lines += ["", "Misreads whose photo asks nothing:"]
        lines += [f"  {name}: {text}" for name, text in silent]
    return "\n".join(lines)


def measure(
    synthetic: Iterable[str], realval: Path | None, reader, quiet: bool = False
) -> dict[str, dict]:
    """The figures of each set, then of all synthetic and all real sets pooled."""
    found: dict[str, Tally] = {}
    for spec in synthetic:
        folder, _, split = spec.partition(":")
        name = f"synthetic {Path(folder).name}:{split or 'val'}"
        found[name] = tally(
            synthetic_tiles(Path(folder), split or "val", reader), None if quiet else name
        )
    if realval is not None:
        found["real scenes"] = tally(
            real_scene_tiles(realval, reader), None if quiet else "real scenes"
        )
        if (realval / "tiles" / "labels.json").is_file():
            found["real tile crops"] = tally(
                real_crop_tiles(realval, reader), None if quiet else "real tile crops"
            )
    out = {name: figures(t) for name, t in found.items()}
    for prefix in ("synthetic", "real"):
        parts = [t for name, t in found.items() if name.startswith(prefix)]
        if len(parts) > 1:
            pooled = parts[0]
            for part in parts[1:]:
                pooled = pooled.merged(part)
            out[f"all {prefix}"] = figures(pooled)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.misread_doubts",
        description=(
            "Of the tiles the committed reader reads with a wrong value, how many carry a doubt "
            "(the tile doubtful, or its photo needs review), and of those read right, how many "
            "are doubtful: synthetic pictures and real photos, Wilson 95% intervals."
        ),
    )
    parser.add_argument(
        "--synthetic",
        action="append",
        default=[],
        metavar="DIR[:SPLIT]",
        help="a dominocam synth output folder and its split (default val); repeatable",
    )
    parser.add_argument("--realval", type=Path, help="the real photos folder (scenes/, tiles/)")
    parser.add_argument("--threads", type=int, default=2, help="ONNX threads (default 2)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    if not args.synthetic and args.realval is None:
        parser.error("give --synthetic DIR[:SPLIT] and/or --realval DIR")
    if args.realval is not None and not (args.realval / "scenes" / "labels.json").is_file():
        parser.error(f"--realval {args.realval}: no scenes/labels.json there")
    for spec in args.synthetic:
        folder, _, split = spec.partition(":")
        if not (Path(folder) / "detector" / "images" / (split or "val")).is_dir():
            parser.error(f"--synthetic {spec}: not a dominocam synth folder with that split")
    from dominocam.vision.pipeline import load_models
    from dominocam.vision.reading import PhotoReader

    reader = PhotoReader(load_models(threads=args.threads))
    sets = measure(args.synthetic, args.realval, reader, quiet=args.quiet)
    print(json.dumps(sets, indent=1) if args.json else format_report(sets))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
