"""The labelled sets the measuring commands read: a `dominocam synth` set's truth files and
the real photos' labels (realval/scenes/labels.json). Shared by `dominocam eval`
(`dominocam.measure.evaluate`) and `dominocam calibrate` (`dominocam.measure.calibrate`), and the
studies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.measure.metrics import tile_key
from dominosynth.config import MIN_VISIBLE_FRACTION, READER_MIN_VISIBLE, SHOWN

# The sources of the 66 real scenes added later: never fitted on, never tuned on.
HELD_OUT_SOURCES: tuple[str, ...] = ("Guix266", "ljparrish", "MikeyGBG")


def set_max(text: str | None, default: int = 12) -> int:
    """The top value of a label's set ("double-12" -> 12), `default` when it names none
    ("unknown")."""
    digits = "".join(ch for ch in str(text or "") if ch.isdigit())
    return int(digits) if digits else default


def held_out(label: dict[str, Any]) -> bool:
    """Whether a label of realval/scenes is one of the 66 added later (it has `free_ends` or
    `hand`, or comes from a `HELD_OUT_SOURCES`), which nothing is fitted or tuned on."""
    later = "free_ends" in label or "hand" in label
    return later or label["image"].split("__")[0] in HELD_OUT_SOURCES


def synthetic_truth(
    path: Path,
    min_visible: float = MIN_VISIBLE_FRACTION,
    min_readable: float = READER_MIN_VISIBLE,
) -> tuple[list[dict], list[np.ndarray], int, tuple[bool, bool]]:
    """Scored tiles, ignored boxes, the set's top value, and which photo totals are scored,
    from a `truth/NAME.json` of `dominocam synth`.

    A tile cut by the image border or less visible than `min_visible` (the generator's
    `min_visible_fraction`: it has no box in the training labels either) is not scored; a
    prediction on it is neither a hit nor a false box. A tile is scored for reading only when
    at least `min_readable` of it is visible (the generator's `reader_min_visible`): one half
    hidden under an arm cannot be read by anyone. The photo's pip total is scored when every
    face-up tile that shows at all is readable; its face-down count when every face-down tile
    that shows at all is scored (hidden tiles in a stack would make either a guess).
    """
    data = json.loads(path.read_text())
    tiles, ignore = [], []
    pip_total_scored = face_down_scored = True
    for tile in data.get("tiles", []):
        corners = np.asarray(tile["corners"], dtype=float)
        visible = float(tile.get("visible_fraction", 1.0))
        cut = bool(tile.get("cut_by_border"))
        up = tile.get("face", "up") == "up"
        shows = visible > SHOWN
        if shows and up and (cut or visible < min_readable):
            pip_total_scored = False
        if shows and not up and (cut or visible < min_visible):
            face_down_scored = False
        if cut or visible < min_visible:
            ignore.append(corners)
            continue
        tiles.append(
            {
                "face": "up" if up else "down",
                "pips": tile_key(tile["pips"]) if up and tile.get("pips") is not None else None,
                "corners": corners,
                "readable": up and visible >= min_readable,
            }
        )
    return tiles, ignore, set_max(data.get("set")), (pip_total_scored, face_down_scored)


def synthetic_visibility(root: Path) -> tuple[float, float]:
    """A `dominocam synth` set's `min_visible_fraction` and `reader_min_visible` (its
    card.json; the generator's defaults without one): what `synthetic_truth` scores."""
    card = json.loads((root / "card.json").read_text()) if (root / "card.json").is_file() else {}
    config = card.get("config") or {}
    config = config.get("values", config)
    return float(config.get("min_visible_fraction", MIN_VISIBLE_FRACTION)), float(
        config.get("reader_min_visible", READER_MIN_VISIBLE)
    )
