"""Tiles set down side by side, or a line broken by a misread? (`dominocam.vision.layout`'s
`SET_DOWN_MISMATCHES_PER_LINK`)

    .venv/bin/python -m studies.set_down --synthetic runs/data/v4-synth-s75-n400:train \
        [--synthetic DIR[:SPLIT] ...] [--realval ../shared/realval] [--threads 2]

"Tiles touch without matching at an open end" asks for a review because a misread breaks a
played line right there. A photo of no named game may show tiles set down side by side
instead, where most touching halves differ. Each picture is read as `dominocam read` reads
it (committed models and calibration, layout kind `auto`) but with that rule off
(`LayoutConfig.set_down_ratio=None`), so that every such doubt is raised. For each doubt it
records the table's links (matching contacts) and touching halves that differ
(`dominocam.vision.layout.touch_counts`), whether both tiles are sure (neither doubtful) and, where
the picture has labelled boxes, whether both are read right (the labelled tile that covers
each box). For each candidate ratio it prints:

- doubts: how many such doubts the rule would drop, of all;
- sure: how many of those dropped are between two sure tiles (the doubtful ones ask anyway);
- sure misread: how many of those sure pairs hold a misread: a confident error the doubt
  would have caught;
- photos let go: the photos that would need no review any more (the doubt was their only
  reason), and of those how many are read exactly (synthetic: `dominocam eval`'s exact tile
  set, where it is scored; real: against the labels).

`--synthetic DIR[:SPLIT]` reads a `dominocam synth` set's split (val unless named). It only
measures.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dominocam.measure.scoring import (
    SetResult,
    scene_predictions,
    score_boxed_image,
    score_scene_photo,
)
from dominocam.measure.truth import synthetic_truth, synthetic_visibility
from dominocam.vision import messages
from dominocam.vision.layout import AUTO, LayoutConfig, touch_counts
from dominocam.vision.notes import Note
from studies.product_reads import covering_label, real_scenes, synthetic_scenes, tally_sets
from studies.review_reasons import reasons_of

RATIOS: tuple[float, ...] = (0.5, 1.0, 2.0)
NO_MATCH_KIND = "layout: " + messages.NO_MATCH_AT_END.split("{")[0]


@dataclass(frozen=True)
class Doubt:
    """One "touch without matching at an open end" doubt and its table."""

    links: int
    mismatches: int
    sure: bool
    misread: bool | None  # None: no labelled boxes


@dataclass(frozen=True)
class Picture:
    """One picture's doubts of that kind, whether they are its only reason to ask, and
    whether it is read exactly (None: not scored)."""

    doubts: tuple[Doubt, ...]
    only_reason: bool
    exact: bool | None


def no_match_pairs(scene) -> list[tuple[int, int]]:
    """The (a, b) tile pairs of the Scene's "touch without matching" doubts."""
    pairs = []
    for doubt in scene.layout.doubts:
        if isinstance(doubt, Note) and doubt.code == "no_match_at_end":
            pairs.append((int(doubt.params["a"]), int(doubt.params["b"])))
    return pairs


def picture_of(scene, truth_tiles: list[dict] | None, exact: bool | None) -> Picture:
    """The `Picture` of a Scene read with the rule off."""
    links, mismatches = touch_counts(scene, LayoutConfig(kind=AUTO))
    by_id = {t.id: t for t in scene.tiles}

    def misread(tile) -> bool | None:
        if truth_tiles is None:
            return None
        label = covering_label(tile.corners, truth_tiles)
        pips = None if label is None else label.get("pips")
        return pips is None or sorted(pips) != sorted(tile.pips)

    doubts = []
    for a, b in no_match_pairs(scene):
        wrong = [misread(by_id[a]), misread(by_id[b])]
        doubts.append(
            Doubt(
                links,
                mismatches,
                not by_id[a].doubtful and not by_id[b].doubtful,
                None if truth_tiles is None else any(wrong),
            )
        )
    kinds = reasons_of(scene.warnings, scene.layout.doubts)
    only = bool(kinds) and all(k.startswith(NO_MATCH_KIND) for k in kinds)
    return Picture(tuple(doubts), only, exact)


def tally(pictures: Iterable[Picture]) -> list[dict]:
    """Per ratio of `RATIOS`: the counts of the module docstring."""
    pictures = [p for p in pictures if p.doubts]
    rows = []
    for ratio in RATIOS:
        dropped = [d for p in pictures for d in p.doubts if d.mismatches > ratio * d.links]
        sure = [d for d in dropped if d.sure]
        let_go = [
            p
            for p in pictures
            if p.only_reason and all(d.mismatches > ratio * d.links for d in p.doubts)
        ]
        rows.append(
            {
                "ratio": ratio,
                "doubts": [len(dropped), sum(len(p.doubts) for p in pictures)],
                "sure": len(sure),
                "sure_misread": sum(d.misread is True for d in sure),
                "photos_let_go": len(let_go),
                "let_go_exact": [
                    sum(p.exact is True for p in let_go),
                    sum(p.exact is not None for p in let_go),
                ],
            }
        )
    return rows


def _rule_off():
    return {"layout_config": LayoutConfig(kind=AUTO, set_down_ratio=None)}


def _synthetic(folder: Path, split: str, models) -> Iterator[Picture]:
    visibility = synthetic_visibility(folder)
    for truth_file, truth, scene in synthetic_scenes(folder, models, split, **_rule_off()):
        scored, ignore, _, photo = synthetic_truth(truth_file, *visibility)
        one = SetResult("one")
        score_boxed_image(one, truth_file.name, scored, scene_predictions(scene), ignore, photo)
        exact = one.counts.get("exact_tile_set")
        yield picture_of(scene, truth["tiles"], None if exact is None else exact[0] == 1)


def _real(root: Path, models) -> Iterator[Picture]:
    for label, scene in real_scenes(root, models, **_rule_off()):
        one = SetResult("one")
        score_scene_photo(one, label["image"], label, scene_predictions(scene))
        yield picture_of(scene, None, one.counts["exact_tile_set"][0] == 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.set_down",
        description="tiles set down side by side, or a line broken by a misread? "
        "(module docstring)",
    )
    found, as_json = tally_sets(parser, argv, _synthetic, _real, tally)
    if as_json:
        print(json.dumps(found, indent=1))
        return 0
    for name, rows in found.items():
        print(name)
        print(
            f"  {'differ > r*links':>16}  {'doubts':>9}  {'sure':>4}  {'sure misread':>12}  "
            "photos let go (exact)"
        )
        for row in rows:
            k, n = row["doubts"]
            ek, en = row["let_go_exact"]
            print(
                f"  {'r = ' + format(row['ratio'], 'g'):>16}  {f'{k}/{n}':>9}  {row['sure']:>4}  "
                f"{row['sure_misread']:>12}  {row['photos_let_go']} ({ek} of {en} scored)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
