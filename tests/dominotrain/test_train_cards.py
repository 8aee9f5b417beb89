"""Model cards from an export summary and an eval JSON (no torch)."""

from __future__ import annotations

from dominotrain.cards import accuracy_table, length_table, rate_cell, write_card

SUMMARY = {
    "kind": "reader",
    "path": "models/reader.onnx",
    "bytes": 5_865_139,
    "sha256": "abc",
    "weights": "runs/reader/r/weights/best.pt",
    "imgsz": 64,
    "names": {0: "0", 1: "1"},
    "latency": [
        {
            "batch": 80,
            "input": [80, 3, 64, 64],
            "threads": 2,
            "runs": 10,
            "median_ms": 48.4,
            "p90_ms": 52.0,
        }
    ],
    "last_epoch": {"metrics/accuracy_top1": "0.9584"},
    "data_card": {
        "seed": 7,
        "command": "dominocam synth ...",
        "training_command": "dominocam train reader --data D",
    },
    "checkpoint_args": {"model": "yolov8n-cls.yaml", "epochs": 5, "imgsz": 64},
}
EVAL = {
    "command": "dominocam eval --realval R",
    "models": {"reader": {"sha256": "abc"}, "detector": {"sha256": "def"}},
    "sets": {
        "realval_halves": {
            "images": 65,
            "note": "reader only",
            "metrics": {"half_accuracy": {"k": 60, "n": 65}},
        }
    },
}


def test_rate_cell():
    assert rate_cell({"k": 60, "n": 65}) == "0.9231 [0.8322, 0.9667] (60/65)"
    assert rate_cell(None) == "-" and rate_cell({"k": 0, "n": 0}) == "-"


def test_accuracy_table_has_one_column_per_set():
    table = accuracy_table(EVAL)
    assert "| metric | real halves |" in table
    assert "| per-half accuracy | 0.9231 [0.8322, 0.9667] (60/65) |" in table


def test_card_names_the_architecture_the_run_started_from(tmp_path):
    resumed = {**SUMMARY, "architecture": "yolov8-cls-narrow.yaml"}
    resumed["checkpoint_args"] = {**SUMMARY["checkpoint_args"], "model": "weights/last.pt"}
    text = write_card(tmp_path / "reader.md", resumed).read_text()
    assert "architecture `yolov8-cls-narrow.yaml`" in text and "last.pt" not in text


def test_card_says_what_was_measured_on_which_file(tmp_path):
    text = write_card(tmp_path / "reader.md", SUMMARY, EVAL).read_text()
    assert "dominocam train reader --data D" in text
    assert "Measured on this very file" in text
    assert "detector sha256 `def`" in text
    assert "48.4 ms" in text and "5.87 MB" in text
    other = dict(EVAL, models={"reader": {"sha256": "zzz"}})
    text = write_card(tmp_path / "reader.md", SUMMARY, other).read_text()
    assert "Measured on another file" in text
    text = write_card(tmp_path / "reader.md", SUMMARY, None).read_text()
    assert "Not measured yet" in text


def test_length_table_lists_the_groups_of_each_boxed_set():
    evaluation = {
        "sets": {
            "synthetic": {
                "by_tile_length": {
                    "<30": {"detection_recall": {"k": 3, "n": 4}},
                    ">=120": {
                        "detection_recall": {"k": 9, "n": 9},
                        "half_accuracy": {"k": 18, "n": 18},
                    },
                }
            },
            "realval_halves": {"metrics": {}},
        }
    }
    table = length_table(evaluation)
    rows = [line for line in table.splitlines() if line.startswith(("| <30", "| >=120"))]
    assert len(rows) == 2 and "(3/4)" in rows[0] and "(18/18)" in rows[1]
    assert rows[0].endswith("| - | - |")
    assert length_table(EVAL) == ""


def test_card_names_runs_from_the_runs_folder_not_the_checkout(tmp_path):
    absolute = {
        **SUMMARY,
        "weights": "/home/ana/dominocam/runs/reader/r/weights/best.pt",
        "checkpoint_args": {**SUMMARY["checkpoint_args"], "pretrained": "/srv/x/runs/p/best.pt"},
    }
    text = write_card(tmp_path / "reader.md", absolute).read_text()
    assert "`runs/reader/r/weights/best.pt`" in text and "`runs/p/best.pt`" in text
    assert "/home/ana" not in text and "/srv/x" not in text


def test_a_re_exported_card_tells_the_training_of_the_file_it_came_from(tmp_path):
    card = {
        **SUMMARY["data_card"],
        "re_exported_from": "models/detector.onnx",
        "training": {"model": "yolov8n-obb.yaml", "epochs": 7, "imgsz": 640, "batch": 16},
    }
    summary = {**SUMMARY, "data_card": card, "checkpoint_args": {"imgsz": 640}}
    text = write_card(tmp_path / "reader.md", summary).read_text()
    assert "rebuilt from `models/detector.onnx` by `dominotrain.from_onnx`" in text
    assert "- epochs 7, image size 640, batch 16" in text
    assert "trained from scratch" not in text


def test_a_card_rewritten_from_weights_rebuilt_from_its_own_file_keeps_that_files_training(
    tmp_path,
):
    # `dominocam export reader --weights <from_onnx of models/reader.onnx> --card-only`: the
    # weights carry no training arguments; the file's data card recorded them.
    summary = {
        **SUMMARY,
        "weights": "runs/reader/from-onnx/reader.pt",
        "last_epoch": {},
        "checkpoint_args": {"model": "narrow.yaml", "epochs": 12, "imgsz": 64, "batch": 64},
        "card_from_recovered": True,
    }
    text = write_card(tmp_path / "reader.md", summary).read_text()
    assert "this card was written again from `runs/reader/from-onnx/reader.pt`" in text
    assert "exported from `runs/reader/from-onnx/reader.pt`" not in text
    assert "- epochs 12, image size 64, batch 64\n" in text
    assert "seed None" not in text and "not kept in the ONNX file" in text
