"""What sends photos to review: the reasons of every Scene with `needs_review`, by kind.

    .venv/bin/python -m studies.review_reasons --realval ../shared/realval \
        [--synthetic runs/data/synth-s41-n300] [--threads 2]

Reads the real scenes (and the val split of a `dominocam synth` set) as `dominocam read`
does, with the committed models and calibration. Each warning of a Scene that needs a review
is counted by its code (`dominocam.vision.notes`). Per set it prints:

- how many photos need a review;
- for each kind of warning, on how many of those photos it appears;
- for each kind, on how many it is the only reason to ask (the warnings ending "please check
  it" / "them", and the layout's doubts behind "the lines on the table may not be ...").

It only measures. It shows which doubt a better model or a sharper rule would have to settle
for more photos to be read without review (issue 17's selective gate).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from dominocam.vision.notes import Note
from dominocam.vision.pipeline import load_models
from studies.product_reads import real_scenes, synthetic_scenes

PLACEHOLDER = re.compile(r"\{[^}]*\}")

# The review's own reasons (`dominocam.vision.confidence.review_scene`): everything else is context.
# Their codes (`dominocam.vision.notes`).
REVIEW_REASONS = frozenset(
    {
        "may_be_misread",
        "may_be_misread_could_be",
        "may_not_be_a_tile",
        "may_not_be_a_tile_could_be",
        "face_down_may_not_be_a_tile",
        "unread_may_be_misread",
        "face_down_cut_by_edge",
        "unread_cut_by_edge",
        "cut_by_edge",
        "box_may_be_a_tile",
        "box_at_open_end",
        "layout_doubts",
    }
)


def kind_of(warning: str, width: int = 64) -> str:
    """The template `warning` was written from (its code's, `dominocam.vision.notes.Note`; the text
    itself without a code), its fields shown as "#", cut to `width` characters."""
    template = PLACEHOLDER.sub("#", warning.kind.template if isinstance(warning, Note) else warning)
    return template if len(template) <= width else template[: width - 3] + "..."


def reasons_of(warnings: Iterable[str], doubts: Iterable[str]) -> set[str]:
    """The kinds of what asks for a review: the review's reasons, with the layout's reason
    replaced by the kinds of its doubts."""
    kinds = set()
    for warning in warnings:
        code = warning.code if isinstance(warning, Note) else None
        if code == "layout_doubts":
            kinds |= {"layout: " + kind_of(d) for d in doubts}
        elif code in REVIEW_REASONS:
            kinds.add(kind_of(warning))
    return kinds


def tally(scenes: Iterable) -> dict:
    """Counts over Scenes (module docstring)."""
    photos = review = 0
    anywhere: Counter = Counter()
    alone: Counter = Counter()
    for scene in scenes:
        photos += 1
        if not scene.needs_review:
            continue
        review += 1
        kinds = reasons_of(scene.warnings, scene.layout.doubts)
        anywhere.update(kinds)
        if len(kinds) == 1:
            alone.update(kinds)
    return {
        "photos": photos,
        "need_review": review,
        "reasons": {k: {"photos": n, "only_reason": alone[k]} for k, n in anywhere.most_common()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.review_reasons",
        description="what sends photos to review, by kind of reason (module docstring)",
    )
    parser.add_argument("--realval", help="the real photos folder (its scenes/)")
    parser.add_argument("--synthetic", help="a dominocam synth output folder (its val split)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if not args.realval and not args.synthetic:
        print("dominocam: error: give --realval DIR and/or --synthetic DIR", file=sys.stderr)
        return 2

    models = load_models(threads=args.threads)
    if models.calibration is None:
        print("dominocam: error: the models have no calibration: nothing asks for review")
        return 2
    found = {}
    if args.realval:
        found["real scenes"] = tally(s for _, s in real_scenes(Path(args.realval), models))
    if args.synthetic:
        scenes = synthetic_scenes(Path(args.synthetic), models)
        found["synthetic val"] = tally(s for _, _, s in scenes)
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    for name, counts in found.items():
        print(f"{name}: {counts['need_review']} of {counts['photos']} photos need a review")
        print(f"  {'photos':>6}  {'alone':>5}  reason")
        for kind, n in counts["reasons"].items():
            print(f"  {n['photos']:>6}  {n['only_reason']:>5}  {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
