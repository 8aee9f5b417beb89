"""`studies.calibration_features`: the logit and the beta fits compared on held-out sources."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.measure.calibrate import DOUBT_GRID, BoxRecord, PhotoRecord, save_photos
from studies.calibration_features import compare, main


def photos(source: str, count: int, seed: int) -> list[PhotoRecord]:
    """Tables of 5 face-up tiles whose weaker half's probability p (half of them near 1, half
    anywhere from 0.05 to 0.95) says how likely the tile is read right with two slopes, 3 on
    ln p and 0.5 on -ln(1 - p): a doubt that grows much faster below 1 than one logit slope
    can follow."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        boxes = []
        for _ in range(5):
            near_one = rng.random() < 0.5
            lo = float(1 - 10 ** rng.uniform(-4, -1) if near_one else rng.uniform(0.05, 0.95))
            z = 1.0 + 3.0 * math.log(max(lo, 1e-4)) - 0.5 * math.log(max(1 - lo, 1e-4))
            right = bool(rng.random() < 1 / (1 + math.exp(-z)))
            boxes.append(
                BoxRecord(
                    source,
                    f"{k}.jpg",
                    "up",
                    0.9,
                    (lo, 0.999),
                    (1, 2),
                    False,
                    False,
                    True,
                    right,
                    0.99,
                )
            )
        out.append(PhotoRecord(source, f"{k}.jpg", boxes, False, 0, [], 0, 0))
    return out


def with_false_boxes(records: list[PhotoRecord], seed: int) -> list[PhotoRecord]:
    """One box in four is no tile (p_tile needs both labels)."""
    rng = np.random.default_rng(seed)
    for photo in records:
        for box in photo.boxes:
            if rng.random() < 0.25:
                box.tile = box.right = False
                box.confidence, box.verifier = 0.3, 0.2
    return records


def test_compare_fits_both_ways_and_judges_them_on_other_sources():
    records = with_false_boxes(photos("a", 150, 1) + photos("b", 150, 2), 3)
    report = compare(records, {"a"}, l2=1e-5)
    assert set(report) == {"logit", "beta"}
    for figures in report.values():
        assert set(figures["sources"]) == {"b"}
        assert figures["fit_photos"]["chooses"] in DOUBT_GRID
        assert set(figures["judged_photos"]["table"]) == {str(v) for v in DOUBT_GRID}
    loss = {name: report[name]["sources"]["b"]["right"]["log_loss"] for name in report}
    assert loss["beta"] < loss["logit"] - 0.005


def test_main_reads_a_cache_and_refuses_real_boxes(tmp_path):
    cache = tmp_path / "boxes.json"
    save_photos(cache, with_false_boxes(photos("a", 40, 1) + photos("b", 40, 2), 3))
    lines: list[str] = []
    assert main(["--boxes", str(cache), "--fit", "a", "--json"], out=lines.append) == 0
    assert set(json.loads(lines[0])) == {"logit", "beta"}
    with pytest.raises(UserInputError, match="not all of them"):
        main(["--boxes", str(cache), "--fit", "a", "--fit", "b"], out=lines.append)
    real = photos("real", 3, 4)
    save_photos(cache, real)
    with pytest.raises(UserInputError, match="real photos"):
        main(["--boxes", str(cache), "--fit", "real"], out=lines.append)
