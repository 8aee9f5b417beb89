"""The layout reconstruction measured against synthetic truth: `dominocam layout-eval`.

    dominocam layout-eval SYNTH_DIR [--limit N] [--json OUT] [--failures] [--draw DIR]
    dominocam layout-eval --generate 400 [--seed 101]

`dominocam.vision.layout.build_layout` runs on the *true* face-up tiles of every synthetic table
picture (exact corners and halves from `truth/*.json`, as `dominocam synth` wrote them; hand
pictures are skipped), with the layout kind of the table's variant and, for Mexican Train,
the number of trains and the engine's value (the game knows its players and its round; a
photo cannot count empty trains). Tables of a variant take a lone tile as the layout when
nothing is linked (`LayoutConfig.lone_root`: a game's table holds a layout). This
isolates the reconstruction from the detector and the reader. Per layout kind it reports:

* `open_ends`: tables whose multiset of open-end values is exactly the truth's (the gate of
  issue 5: >= 0.99 for every kind);
* `lines`: truth lines found with exactly their tiles (a line is compared without the tile
  it grows from; the two lines of a `line` table are compared as one chain, since which tile
  was set first cannot be seen);
* `no_false_link`: tables where every found link (two tiles played against each other) is a
  true one; `false_links` counts them over all found links;
* `open_ends_unambiguous`: the gate without the tables whose layout is a single tile among
  other face-up tiles (which one is the set tile cannot be seen in one picture);
* `with_doubts`: tables where the reconstruction reported a doubt (`Reconstruction.doubts`);
  `wrong_without_doubt`: tables whose open ends are wrong *and* no doubt was said - the
  silent errors a ruling could not flag.

Rates carry Wilson 95% intervals (`dominocam.measure.metrics`). Tables without a layout (loose
tiles only) are reported as kind `scatter`: they must give no open end at all.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dominocam.measure.metrics import Rate
from dominocam.vision.layout import LayoutConfig, LayoutTile, Reconstruction, build_layout
from dominosynth import render
from dominosynth.config import WEIGHT_CHOICES, SynthConfig
from dominosynth.generate import Job, truth_dict

# The generator's table layouts (a `dominocam synth` truth's `variant`), scored apart.
KINDS: tuple[str, ...] = WEIGHT_CHOICES["variant_weights"]
DEFAULT_CONFIG = LayoutConfig()


@dataclass
class KindResult:
    """Counts for one layout kind."""

    tables: int = 0
    open_ends_ok: int = 0
    lines_ok: int = 0
    lines: int = 0
    clean_tables: int = 0
    false_links: int = 0
    found_links: int = 0
    doubtful: int = 0
    silent: int = 0
    lone: int = 0
    lone_ok: int = 0
    failures: list[str] = field(default_factory=list)

    def rates(self) -> dict[str, Rate]:
        return {
            "open_ends": Rate(self.open_ends_ok, self.tables),
            "lines": Rate(self.lines_ok, self.lines),
            "no_false_link": Rate(self.clean_tables, self.tables),
            "false_links": Rate(self.false_links, self.found_links),
            "with_doubts": Rate(self.doubtful, self.tables),
            "wrong_without_doubt": Rate(self.silent, self.tables),
            "open_ends_unambiguous": Rate(
                self.open_ends_ok - self.lone_ok, self.tables - self.lone
            ),
        }


def truth_tiles(truth: dict[str, Any]) -> list[LayoutTile]:
    """The face-up tiles of a truth record as the layout sees them (halves in corner order)."""
    return [
        LayoutTile(t["id"], t["corners"], (int(t["halves"][0]), int(t["halves"][1])))
        for t in truth["tiles"]
        if t["face"] == "up"
    ]


def config_for(truth: dict[str, Any], base: LayoutConfig = DEFAULT_CONFIG) -> LayoutConfig:
    """The layout configuration a game would give for this table (kind, number of trains)."""
    variant = truth.get("variant") or "line"
    trains = len(truth["lines"]) if variant == "mexican" else None
    # A game's table holds a layout; a picture of loose tiles only (scatter) is no game.
    lone_root = truth.get("variant") is not None
    # Mexican Train players know the round's engine (the root double's value).
    hub_value = None
    if variant == "mexican" and truth["lines"]:
        root = next(t for t in truth["tiles"] if t["id"] == truth["lines"][0]["tiles"][0])
        hub_value = int(root["halves"][0])
    return replace(base, kind=variant, trains=trains, lone_root=lone_root, hub_value=hub_value)


def _lone_among_loose(truth: dict[str, Any]) -> bool:
    """The layout is one tile and other face-up tiles lie on the table: which one is the
    set tile cannot be seen (an ambiguity of the picture, reported apart)."""
    layout = {t for line in truth["lines"] for t in line["tiles"]}
    up = [t for t in truth["tiles"] if t["face"] == "up"]
    return len(layout) == 1 and len(up) > 1


def _size(truth: dict[str, Any]) -> tuple[int, int]:
    return int(truth["image"]["width"]), int(truth["image"]["height"])


def _true_links(truth: dict[str, Any]) -> set[frozenset[int]]:
    links: set[frozenset[int]] = set()
    for line in truth["lines"]:
        ids = line["tiles"]
        links.update(frozenset(p) for p in pairwise(ids))
    return links


def _line_keys(lines: Iterable[list[int]], chain: bool) -> Counter:
    """Lines as comparable keys: tiles after the first; a `line` table as one chain."""
    lines = list(lines)
    if chain:
        if not lines:
            return Counter()
        if len(lines) == 1:
            whole = tuple(lines[0])
        else:
            whole = tuple(reversed(lines[0])) + tuple(lines[1][1:])
        key = min(whole, tuple(reversed(whole)))
        return Counter([key])
    return Counter(tuple(ids[1:]) for ids in lines)


def score_table(truth: dict[str, Any], found: Reconstruction) -> tuple[bool, int, int, int, int]:
    """(open ends exact, lines found, truth lines, false links, found links) for one table."""
    want = Counter(truth["open_ends"])
    got = Counter(found.layout.open_ends)
    chain = truth.get("variant") == "line"
    true_lines = _line_keys([ln["tiles"] for ln in truth["lines"]], chain)
    found_lines = _line_keys([ln.tiles for ln in found.layout.lines], chain)
    lines_ok = sum((true_lines & found_lines).values())
    true_links = _true_links(truth)
    found_links = {frozenset(p) for p in found.links}
    false = len(found_links - true_links)
    return want == got, lines_ok, sum(true_lines.values()), false, len(found_links)


def generated_truths(count: int, seed: int, size: tuple[int, int] = (1280, 720)):
    """`count` synthetic table truths made in-process by dominosynth (placed and projected,
    not rendered: a few milliseconds each); yields (name, truth dict)."""
    cfg = SynthConfig()
    width, height = size
    for index in range(count):
        job = Job("-", index, seed, width, height, "table", 12, "val", cfg)
        rng = np.random.default_rng(np.random.SeedSequence([seed, index]))
        scene = render.build_scene(rng, cfg, width, height, "table", 12, [])
        ids = np.zeros((height, width), np.int32)
        yield f"s{seed}-{index:06d}", truth_dict(scene, ids, job, "table")


def folder_truths(root: Path):
    """The truths of a `dominocam synth` folder (or its `truth/`); yields (name, truth)."""
    folder = root / "truth" if (root / "truth").is_dir() else root
    files = sorted(folder.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"{root}: no truth/*.json (a `dominocam synth` output folder)")
    for path in files:
        yield path.stem, json.loads(path.read_text())


def evaluate(
    root: Path | None = None,
    limit: int | None = None,
    base: LayoutConfig = DEFAULT_CONFIG,
    truths: Iterable[tuple[str, dict[str, Any]]] | None = None,
) -> dict[str, KindResult]:
    """Run the reconstruction on every synthetic table of `truths` (default: those under
    `root`, a synth folder or its `truth/`); returns the counts per layout kind."""
    if truths is None:
        if root is None:
            raise ValueError("evaluate needs a folder or truths")
        truths = folder_truths(root)
    results = {kind: KindResult() for kind in KINDS}
    seen = 0
    for name, truth in truths:
        if truth.get("kind") != "table":
            continue
        if limit is not None and seen >= limit:
            break
        seen += 1
        kind = truth.get("variant") or "scatter"
        found = build_layout(truth_tiles(truth), config_for(truth, base), _size(truth))
        ends_ok, lines_ok, lines, false, links = score_table(truth, found)
        r = results[kind]
        r.tables += 1
        r.open_ends_ok += ends_ok
        r.lines_ok += lines_ok
        r.lines += lines
        r.clean_tables += false == 0
        r.false_links += false
        r.found_links += links
        r.doubtful += bool(found.doubts)
        r.silent += not ends_ok and not found.doubts
        if _lone_among_loose(truth):
            r.lone += 1
            r.lone_ok += ends_ok
        if not ends_ok:
            r.failures.append(name)
    return results


def draw_comparison(image: Any, truth: dict[str, Any], found: Reconstruction) -> Any:
    """The picture with truth and reconstruction drawn over it (BGR uint8, a copy).

    Tiles: grey outlines, values at their halves; true links thick green, found links thin
    red; true open ends green circles, found open ends red crosses with their values.
    """
    out = image.copy()
    tiles = {t["id"]: t for t in truth["tiles"]}

    def centre(tid: int) -> tuple[int, int]:
        c = np.asarray(tiles[tid]["corners"]).mean(axis=0)
        return int(c[0]), int(c[1])

    for t in truth["tiles"]:
        c = np.asarray(t["corners"])
        cv2.polylines(out, [np.round(c).astype(np.int32)], True, (160, 160, 160), 1)
        if t["face"] == "up":
            mid = c.mean(axis=0)
            for half, value in enumerate(t["halves"]):
                end = (c[0] + c[1]) / 2 if half == 0 else (c[2] + c[3]) / 2
                p = (mid + end) / 2
                cv2.putText(
                    out,
                    str(value),
                    (int(p[0]) - 5, int(p[1]) + 5),
                    cv2.FONT_HERSHEY_PLAIN,
                    0.9,
                    (255, 255, 0),
                    1,
                )
            cv2.putText(
                out,
                str(t["id"]),
                (int(mid[0]) + 4, int(mid[1]) - 4),
                cv2.FONT_HERSHEY_PLAIN,
                0.7,
                (200, 200, 255),
                1,
            )
    for a, b in _true_links(truth):
        cv2.line(out, centre(a), centre(b), (0, 200, 0), 4)
    for a, b in found.links:
        cv2.line(out, centre(a), centre(b), (0, 0, 255), 1)
    for line in truth["lines"]:
        if line.get("open_end"):
            p = np.round(line["open_end"]["point"]).astype(int)
            cv2.circle(out, (int(p[0]), int(p[1])), 9, (0, 220, 0), 2)
    for line in found.layout.lines:
        if line.open_end is not None:
            p = (int(line.open_end.point[0]), int(line.open_end.point[1]))
            cv2.drawMarker(out, p, (0, 0, 255), cv2.MARKER_TILTED_CROSS, 12, 2)
    text = (
        f"{truth.get('variant')} truth {sorted(truth['open_ends'])} "
        f"found {sorted(found.layout.open_ends)} root {found.roots}"
    )
    cv2.putText(out, text, (8, 20), cv2.FONT_HERSHEY_PLAIN, 1.2, (0, 0, 0), 3)
    cv2.putText(out, text, (8, 20), cv2.FONT_HERSHEY_PLAIN, 1.2, (255, 255, 255), 1)
    return out


def draw_failures(root: Path, names: Iterable[str], out_dir: Path) -> list[Path]:
    """PNG pictures of the given tables (truth vs found) under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    folder = root / "truth" if (root / "truth").is_dir() else root
    written = []
    for name in names:
        truth = json.loads((folder / f"{name}.json").read_text())
        image_path = next(root.glob(f"detector/images/*/{truth['image']['file']}"), None)
        if image_path is None:
            continue
        found = build_layout(truth_tiles(truth), config_for(truth), _size(truth))
        picture = draw_comparison(cv2.imread(str(image_path)), truth, found)
        path = out_dir / f"{name}.png"
        cv2.imwrite(str(path), picture)
        written.append(path)
    return written


COLUMNS = (
    ("open_ends", "open ends exact"),
    ("lines", "lines"),
    ("no_false_link", "no false link"),
    ("open_ends_unambiguous", "open ends, lone set tile apart"),
    ("with_doubts", "tables with doubts"),
    ("wrong_without_doubt", "open ends wrong, no doubt said"),
)


def format_results(results: dict[str, KindResult]) -> str:
    rows = []
    total = KindResult()
    for kind, r in results.items():
        if not r.tables:
            continue
        rates = r.rates()
        rows.append(f"{kind} ({r.tables} tables, {r.lone} with a lone set tile among loose ones)")
        rows += [f"  {label:<32} {rates[key]!s}" for key, label in COLUMNS]
        for name in (
            "tables",
            "open_ends_ok",
            "lines_ok",
            "lines",
            "clean_tables",
            "false_links",
            "found_links",
            "doubtful",
            "silent",
            "lone",
            "lone_ok",
        ):
            setattr(total, name, getattr(total, name) + getattr(r, name))
    rates = total.rates()
    rows.append(f"all ({total.tables} tables)")
    rows += [f"  {label:<32} {rates[key]!s}" for key, label in COLUMNS]
    return "\n".join(rows)
