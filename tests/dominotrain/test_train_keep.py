"""`dominotrain.keep` (scripts/keep-candidate-models.sh) and `dominocam.measure.keep_gates`:
candidates are copied into models/ with their cards only when every gate of issue 36 holds.

The candidates here are copies of the committed files with a report written by hand, so no
training is needed; the real run is tests/dominotrain/test_train_device_run.py.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from dominocam.measure.keep_gates import KEEP_GATES, PRINT_SET, check_gates
from dominotrain import keep
from dominotrain.device_run import CANDIDATE_FILES, REPORT
from dominotrain.export import add_metadata

ROOT = Path(__file__).resolve().parents[2]


def rate(k: int, n: int) -> dict:
    return {"value": k / n, "k": k, "n": n, "low": None, "high": None}


def passing_report(candidates: Path) -> dict:
    """A report whose every figure reaches its gate."""
    files = {
        name: {"sha256": hashlib.sha256((candidates / name).read_bytes()).hexdigest()}
        for name in CANDIDATE_FILES
    }
    scenes = {
        "exact_tile_set": rate(106, 108),
        "detection_precision": rate(999, 1000),
        "empty_scene": rate(4, 4),
        "no_review": rate(90, 108),
        "exact_tile_set_without_review": rate(90, 90),
    }
    tiles = {"detection_recall": rate(570, 574), "tile_accuracy_end_to_end": rate(569, 574)}
    return {
        "plan": {"name": "gpu"},
        "machine": {"device": "cuda:0 (NVIDIA H200)"},
        "finished": "2026-12-03T10:00:00+00:00",
        "files": files,
        "eval": {
            "command": "dominocam eval ...",
            "models": {
                kind: {"sha256": files[f"{kind}.onnx"]["sha256"]} for kind in ("detector", "reader")
            },
            "sets": {
                "realval_scenes": {"metrics": scenes},
                "realval_tiles": {"metrics": tiles},
                PRINT_SET: {"metrics": {"no_printed_tile": rate(97, 100)}},
            },
        },
        "keep": {
            "bench": {"total_median_ms": 71.5},
            "baseline": {
                "sets": {
                    "realval_tiles": {
                        "metrics": {
                            "detection_recall": rate(567, 574),
                            "tile_accuracy_end_to_end": rate(567, 574),
                        }
                    }
                }
            },
        },
    }


@pytest.fixture
def folders(tmp_path):
    """(candidates, models): copies of the committed files and their cards."""
    candidates, models = tmp_path / "candidates", tmp_path / "models"
    candidates.mkdir()
    models.mkdir()
    for name in CANDIDATE_FILES:
        shutil.copyfile(ROOT / "models" / name, candidates / name)
        shutil.copyfile(ROOT / "models" / name, models / name)
    for card in ("detector.md", "reader.md", "verifier.md", "calibration.md"):
        shutil.copyfile(ROOT / "models" / card, models / card)
    # the candidate detector differs from the committed one by a metadata entry
    add_metadata(candidates / "detector.onnx", {"candidate": "yes"})
    return candidates, models


def test_every_gate_reads_its_figure():
    report = _figures_only()
    checked = check_gates(report)
    assert checked["all_hold"] is True
    assert [row["gate"] for row in checked["gates"]] == [gate.name for gate in KEEP_GATES]
    tiles = [row for row in checked["gates"] if row["set"] == "realval_tiles"]
    assert all(row["target"] == pytest.approx(567 / 574) for row in tiles)


def _figures_only() -> dict:
    report = passing_report(ROOT / "models")
    return {"eval": report["eval"], "keep": report["keep"]}


@pytest.mark.parametrize(
    ("where", "metric", "figure", "expected"),
    [
        ("realval_scenes", "exact_tile_set", rate(104, 108), False),  # 0.963 < 0.97
        ("realval_scenes", "detection_precision", rate(994, 1000), False),
        ("realval_scenes", "empty_scene", rate(3, 4), False),
        ("realval_scenes", "no_review", rate(86, 108), False),  # 0.796 < 0.80
        ("realval_tiles", "detection_recall", rate(566, 574), False),  # worse than today
        ("realval_tiles", "detection_recall", rate(567, 574), True),  # as good as today
        (PRINT_SET, "no_printed_tile", None, None),  # not measured
    ],
)
def test_one_figure_decides_its_gate(where, metric, figure, expected):
    report = _figures_only()
    metrics = report["eval"]["sets"][where]["metrics"]
    if figure is None:
        del metrics[metric]
    else:
        metrics[metric] = figure
    checked = check_gates(report)
    (row,) = [r for r in checked["gates"] if r["set"] == where and r["metric"] == metric]
    assert row["holds"] is expected
    assert checked["all_hold"] is (expected is True)


def test_speed_gate_is_at_most():
    report = _figures_only()
    report["keep"]["bench"]["total_median_ms"] = 80.5
    (row,) = [r for r in check_gates(report)["gates"] if r["set"] == "bench"]
    assert row["holds"] is False
    del report["keep"]["bench"]
    (row,) = [r for r in check_gates(report)["gates"] if r["set"] == "bench"]
    assert row["holds"] is None


def test_keep_copies_and_writes_cards_when_every_gate_holds(folders, tmp_path, capsys):
    candidates, models = folders
    (candidates / REPORT).write_text(json.dumps(passing_report(candidates)))
    argv = ["--candidates", str(candidates), "--models", str(models), "--no-bench"]
    assert keep.main([*argv, "--work", str(tmp_path / "work")]) == 0
    for name in CANDIDATE_FILES:
        assert (models / name).read_bytes() == (candidates / name).read_bytes()
    sha = hashlib.sha256((candidates / "detector.onnx").read_bytes()).hexdigest()
    detector_card = (models / "detector.md").read_text()
    assert sha in detector_card and "Measured on this very file" in detector_card
    verifier_card = (models / "verifier.md").read_text()
    assert verifier_card.startswith("# ") and verifier_card.count(keep.NOTE_BEGIN) == 1
    assert "scripts/train-on-device.sh" in verifier_card
    # kept again: the note is replaced, not added twice
    assert keep.main([*argv, "--work", str(tmp_path / "work2")]) == 0
    assert (models / "calibration.md").read_text().count(keep.NOTE_BEGIN) == 1
    assert "every gate holds" in capsys.readouterr().out


def test_keep_leaves_models_alone_when_a_gate_fails(folders, tmp_path):
    candidates, models = folders
    report = passing_report(candidates)
    report["eval"]["sets"]["realval_scenes"]["metrics"]["empty_scene"] = rate(3, 4)
    (candidates / REPORT).write_text(json.dumps(report))
    before = {p.name: p.read_bytes() for p in models.iterdir()}
    argv = ["--candidates", str(candidates), "--models", str(models), "--no-bench"]
    assert keep.main([*argv, "--work", str(tmp_path / "work")]) == 1
    assert {p.name: p.read_bytes() for p in models.iterdir()} == before
    assert keep.main([*argv, "--work", str(tmp_path / "w2"), "--dry-run"]) == 1


def test_keep_refuses_a_file_the_report_did_not_measure(folders, tmp_path, capsys):
    candidates, models = folders
    (candidates / REPORT).write_text(json.dumps(passing_report(candidates)))
    with open(candidates / "reader.onnx", "ab") as handle:
        handle.write(b"\0")
    argv = ["--candidates", str(candidates), "--models", str(models), "--no-bench"]
    assert keep.main([*argv, "--work", str(tmp_path / "work")]) == 2
    assert "not the file the report measured" in capsys.readouterr().err
