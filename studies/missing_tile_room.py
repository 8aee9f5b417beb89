"""When a tile may be missing beyond an open end: the room it needs
(`dominocam.vision.layout.MISSING_TILE_ROOM`) and what the gap looks like (`GAP_MAY_HOLD_TILE`).

    .venv/bin/python -m studies.missing_tile_room --synthetic runs/data/synth-s41-n300 \
        [--split val] [--limit 150] [--threads 2] [--room 0.5]

On one split of a `dominocam synth` set, read as the product reads (committed models and
calibration):

1. how far each detected box's two end edges lie from those of the labelled tile it stands
   for, along the tile's axis, in tile widths (boxes matched by centre, within 0.3 widths;
   tiles cut by the border or not more than `READER_MIN_VISIBLE` visible left out);
2. for each "tile beyond the open end" doubt, the room between the open end and the nearest
   corner of the tile beyond, in widths, and whether a labelled tile lies there without a
   box (a tile the detector really missed). The doubts are raised with `--room` (default
   0: every doubt the rule would raise without the room it needs) and without the look at
   the gap;
3. for each such doubt, the verifier's highest score on the gap's tile-sized boxes
   (`dominocam.vision.layout.gap_boxes` along the stretch no other tile fills, `free_stretch`: the
   look `dominocam.vision.pipeline` takes), and how many doubts and real misses each threshold on it
   keeps.

A missed tile needs at least its width (a double set crosswise); a room narrower than that
less the two edges' error cannot hide one; a gap showing only table holds none. It only
measures.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

from dominocam.measure.truth import set_max
from dominocam.vision import layout
from dominocam.vision.image_io import load_image
from dominocam.vision.layout import free_stretch, gap_boxes, room_ahead
from dominosynth.config import READER_MIN_VISIBLE

BEYOND = re.compile(r"tile (\d+) lies about one tile beyond the open end on tile (\d+)")
MATCH_WIDTHS = 0.3


def _frame(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Centre, unit long axis, length and width of a (4, 2) box (corners 0-1 one end)."""
    c = np.asarray(corners, dtype=np.float64)
    top, bottom = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
    length = float(np.linalg.norm(bottom - top))
    width = float(np.linalg.norm(c[1] - c[0]))
    return c.mean(axis=0), (bottom - top) / max(length, 1e-9), length, width


def edge_errors(truth_tiles: list[dict], boxes: list[np.ndarray]) -> list[float]:
    """|detected - labelled| end-edge positions along the labelled axis, in widths."""
    tiles = [
        t
        for t in truth_tiles
        if not t["cut_by_border"] and t["visible_fraction"] > READER_MIN_VISIBLE
    ]
    frames = [_frame(np.asarray(t["corners"], dtype=np.float64)) for t in tiles]
    out: list[float] = []
    for box in boxes:
        centre = box.mean(axis=0)
        near = [(float(np.linalg.norm(f[0] - centre)), i) for i, f in enumerate(frames)]
        if not near:
            continue
        distance, i = min(near)
        _, axis, _, width = frames[i]
        if distance > MATCH_WIDTHS * width:
            continue
        labelled = np.asarray(tiles[i]["corners"], dtype=np.float64) @ axis
        detected = box @ axis
        out += [
            abs(detected.max() - labelled.max()) / width,
            abs(detected.min() - labelled.min()) / width,
        ]
    return out


def beyond_doubts(scene, truth_tiles: list[dict], gap_check=None) -> list[dict]:
    """Each "tile beyond the open end" doubt: its room in widths, a real miss or not, and
    `gap_check`'s score of its gap (None without one)."""
    by_id = {t.id: t for t in scene.tiles}
    centres = np.array([t.corners.mean(axis=0) for t in scene.tiles])
    out = []
    for doubt in scene.layout.doubts:
        found = BEYOND.search(doubt)
        if not found:
            continue
        beyond, end = by_id[int(found.group(1))], by_id[int(found.group(2))]
        centre, axis, length, width = _frame(end.corners)
        outward = axis if np.dot(beyond.corners.mean(axis=0) - centre, axis) > 0 else -axis
        normal = np.array([-outward[1], outward[0]])
        point = centre + outward * length / 2
        room = float(room_ahead(beyond.corners[None], point, outward)[0])
        missed = False
        for tile in truth_tiles:
            c = np.asarray(tile["corners"], dtype=np.float64).mean(axis=0)
            ahead, aside = float(np.dot(c - point, outward)), float(np.dot(c - point, normal))
            unboxed = np.linalg.norm(centres - c, axis=1).min() > MATCH_WIDTHS * width
            if 0 < ahead < room and abs(aside) < width and tile["visible_fraction"] > 0.3:
                missed = missed or bool(unboxed)
        gap = None
        if gap_check is not None:
            # The stretch of the gap no other read tile fills, as the layout looks at it.
            others = [
                t.corners
                for t in scene.tiles
                if t.face == "up" and t.pips is not None and t.id not in (beyond.id, end.id)
            ]
            start, free = free_stretch(
                np.array(others).reshape(-1, 4, 2), point, outward, width, room
            )
            gap = gap_check(gap_boxes(point + outward * start, outward, free, length, width))
        out.append({"room_widths": round(room / width, 3), "missed_tile": missed, "gap": gap})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.missing_tile_room",
        description="the room a missing tile needs beyond an open end (module docstring)",
    )
    parser.add_argument("--synthetic", required=True, help="a dominocam synth output folder")
    parser.add_argument("--split", default="val", help="the set's split to read (val)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many pictures")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--room", type=float, default=0.0, help="MISSING_TILE_ROOM for this run (default 0)"
    )
    args = parser.parse_args(argv)
    from dominocam.vision.pipeline import gap_check_of
    from dominocam.vision.reading import PhotoReader

    root = Path(args.synthetic)
    split = root / "detector" / "images" / args.split
    pictures = sorted(split.glob("*.jpg"))[: args.limit]
    if not pictures:
        print(f"dominocam: error: no pictures in {split}", file=sys.stderr)
        return 2
    layout.MISSING_TILE_ROOM = args.room
    layout.GAP_MAY_HOLD_TILE = 0.0  # raise every doubt; its gap is scored below
    reader = PhotoReader.load(threads=args.threads)
    errors: list[float] = []
    doubts: list[dict] = []
    for path in pictures:
        truth = json.loads((root / "truth" / f"{path.stem}.json").read_text())
        image = load_image(path)
        scene = reader.read(image, "table", set_max(truth.get("set")))
        errors += edge_errors(truth["tiles"], [t.corners for t in scene.tiles])
        doubts += beyond_doubts(scene, truth["tiles"], gap_check_of(image, reader.models.detector))
    e = np.array(errors)
    print(f"{len(e)} end edges of {len(pictures)} pictures, error in tile widths:")
    for q in (50, 90, 97, 99):
        print(f"  {q}th percentile {np.percentile(e, q):.3f}")
    print(f"  within a quarter width: {(e <= 0.25).mean():.4f}")
    missed = [d["room_widths"] for d in doubts if d["missed_tile"]]
    print(f"{len(doubts)} 'tile beyond the open end' doubts, {len(missed)} at a tile really missed")
    if missed:
        print(f"  the least room at a missed tile: {min(missed):.3f} widths")
    for limit in (0.25, 0.5, 0.75):
        kept = [d for d in doubts if d["room_widths"] >= limit]
        print(
            f"  room >= {limit}: {len(kept)} doubts kept, "
            f"{sum(d['missed_tile'] for d in kept)} of them at a missed tile"
        )
    doubts = [d for d in doubts if d["room_widths"] >= args.room and d["gap"] is not None]
    if doubts:
        print(f"the gap's highest verifier score, {len(doubts)} doubts with room >= {args.room}:")
        at_miss = [d["gap"] for d in doubts if d["missed_tile"]]
        if at_miss:
            print(f"  the least at a missed tile: {min(at_miss):.4f}")
        for limit in (0.02, 0.05, 0.1, 0.2):
            kept = [d for d in doubts if d["gap"] >= limit]
            print(
                f"  score >= {limit}: {len(kept)} doubts kept, "
                f"{sum(d['missed_tile'] for d in kept)} of {len(at_miss)} missed tiles"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
