"""`dominocam train --also`: more data sets' train splits added to a run, validation kept on
`--data`'s; the run's record and the model card say which sets were used. No torch needed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from train_factories import write_synth_like

from dominocam.errors import UserInputError
from dominotrain.export import architecture, build_data_card
from dominotrain.train import (
    absolute_data_yaml,
    combined_reader_folder,
    count_classes,
    cpu_optimizer,
    resolve_detector_data,
    resolve_reader_data,
)


@pytest.fixture
def two_sets(tmp_path: Path) -> tuple[Path, Path]:
    first = write_synth_like(tmp_path / "first", images=4, seed=1)
    second = write_synth_like(tmp_path / "second", images=4, seed=2)
    return first, second


def test_one_set_keeps_its_relative_splits(two_sets, tmp_path: Path) -> None:
    first, _ = two_sets
    spec = yaml.safe_load(
        absolute_data_yaml(resolve_detector_data(first), tmp_path / "d.yaml").read_text()
    )
    assert Path(spec["path"]).is_absolute()
    assert spec["train"] == "images/train" and spec["val"] == "images/val"


def test_also_adds_train_splits_and_keeps_validation(two_sets, tmp_path: Path) -> None:
    first, second = two_sets
    target = absolute_data_yaml(
        resolve_detector_data(first), tmp_path / "d.yaml", (resolve_detector_data(second),)
    )
    spec = yaml.safe_load(target.read_text())
    assert spec["train"] == [
        str(first.resolve() / "detector" / "images" / "train"),
        str(second.resolve() / "detector" / "images" / "train"),
    ]
    assert spec["val"] == [str(first.resolve() / "detector" / "images" / "val")]
    assert all(Path(folder).is_dir() for folder in spec["train"] + spec["val"])


def test_sets_with_other_classes_are_refused(two_sets, tmp_path: Path) -> None:
    first, second = two_sets
    other = resolve_detector_data(second)
    spec = yaml.safe_load(other.read_text())
    spec["names"] = {0: "tile"}
    other.write_text(yaml.safe_dump(spec))
    with pytest.raises(UserInputError, match="differ"):
        absolute_data_yaml(resolve_detector_data(first), tmp_path / "d.yaml", (other,))


def test_reader_folder_links_every_train_split_and_one_val(two_sets, tmp_path: Path) -> None:
    first, second = two_sets
    sources = [resolve_reader_data(first), resolve_reader_data(second)]
    target = combined_reader_folder(sources[0], (sources[1],), tmp_path / "reader-data")

    def images(root: Path, split: str) -> int:
        return len(list((root / split).glob("*/*")))

    assert images(target, "train") == images(sources[0], "train") + images(sources[1], "train")
    assert images(target, "val") == images(sources[0], "val")
    assert images(target, "train") > 0
    link = next((target / "train").glob("*/s1_*"))
    assert link.is_symlink() and link.resolve().is_relative_to(sources[1])
    # Made again from scratch (a resumed or repeated run), not added to.
    combined_reader_folder(sources[0], (), target)
    assert images(target, "train") == images(sources[0], "train")


def test_model_card_names_the_added_sets() -> None:
    record = {
        "command": "dominocam train detector --data a --also b",
        "data_card": {"command": "dominocam synth --out a"},
        "also": [
            {"data": "b/detector/data.yaml", "data_card": {"command": "dominocam synth --out b"}}
        ],
    }
    card = build_data_card(record, {})
    assert card["command"] == "dominocam synth --out a"
    assert card["also_trained_on"] == [
        {"data": "b/detector/data.yaml", "command": "dominocam synth --out b"}
    ]
    assert "also_trained_on" not in build_data_card({"data_card": {}}, {})


def test_a_checkpoint_rebuilt_from_onnx_keeps_the_card_of_the_file_it_came_from() -> None:
    import json

    original = {"command": "dominocam synth --out a", "training": {"epochs": 10}}
    recovered = {"onnx": "models/detector.onnx", "data_card": json.dumps(original)}
    card = build_data_card({}, {"imgsz": 640}, recovered)
    assert card["command"] == "dominocam synth --out a"
    assert card["training"] == {"epochs": 10}
    assert card["re_exported_from"] == "models/detector.onnx"
    # Trained since (a run record exists): the run's own card, not the old one.
    trained = build_data_card({"data_card": {"command": "new"}}, {}, recovered)
    assert trained["command"] == "new" and "re_exported_from" not in trained


def test_a_resumed_run_is_named_by_the_yaml_it_started_from() -> None:
    # ultralytics' resume rewrites the checkpoint's `model` to the run's own last.pt.
    resumed_args = {"model": "runs/reader/r/weights/last.pt", "pretrained": "base.pt"}
    record = {"config": {"model": "models/dominotrain/yolov8-cls-narrow.yaml"}}
    card = build_data_card(record, resumed_args)
    assert card["training"]["model"] == "models/dominotrain/yolov8-cls-narrow.yaml"
    assert architecture({}, resumed_args) == "runs/reader/r/weights/last.pt"


def test_also_is_spelt_out_in_the_recorded_command() -> None:
    import argparse

    from dominotrain.cli import _rebuild_argv, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["train", "detector", "--data", "a", "--also", "b", "--also", "c"])
    argv = _rebuild_argv(args)
    assert argv[:8] == ["train", "detector", "--data", "a", "--also", "b", "--also", "c"]


def test_classes_are_counted_from_the_prepared_data(two_sets, tmp_path: Path) -> None:
    first, _ = two_sets
    detector = absolute_data_yaml(resolve_detector_data(first), tmp_path / "d.yaml")
    assert count_classes("detector", detector) == 2
    assert count_classes("reader", resolve_reader_data(first)) == 13  # pip counts 0..12


def test_a_cpu_run_takes_adamw_at_the_auto_rate_whatever_its_length() -> None:
    # the rates ultralytics' `auto` gave the committed models (their train.log)
    assert cpu_optimizer("cpu", 13) == {
        "optimizer": "AdamW",
        "lr0": 0.000588,
        "momentum": 0.9,
        "warmup_bias_lr": 0.0,
    }
    assert cpu_optimizer("cpu", 2)["lr0"] == 0.001667
    assert cpu_optimizer("0", 2) == {}
