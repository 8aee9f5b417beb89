"""The data set on disk: determinism across workers, the file layout, the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dominocam.errors import UserInputError
from dominosynth.config import CONFIGS, SynthConfig, load_config
from dominosynth.generate import generate


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "a"
    generate(
        out,
        5,
        42,
        320,
        240,
        "mixed",
        12,
        CONFIGS["default"],
        workers=1,
        val_fraction=0.4,
        command="test",
        progress=False,
    )
    return out


def test_same_seed_same_bytes_across_workers(tiny: Path, tmp_path: Path) -> None:
    other = tmp_path / "b"
    generate(
        other,
        5,
        42,
        320,
        240,
        "mixed",
        12,
        CONFIGS["default"],
        workers=2,
        val_fraction=0.4,
        command="test",
        progress=False,
    )
    a, b = _tree(tiny), _tree(other)
    a.pop("detector/data.yaml"), b.pop("detector/data.yaml")  # holds the absolute path
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


def test_layout_of_the_output(tiny: Path) -> None:
    d = tiny / "detector"
    train = sorted((d / "images" / "train").glob("*.jpg"))
    val = sorted((d / "images" / "val").glob("*.jpg"))
    assert len(train) == 3 and len(val) == 2
    for img in train + val:
        label = d / "labels" / img.parent.name / f"{img.stem}.txt"
        for row in label.read_text().splitlines():
            parts = row.split()
            assert parts[0] in ("0", "1") and len(parts) == 9
            assert all(0.0 <= float(v) <= 1.0 for v in parts[1:])
        truth = json.loads((tiny / "truth" / f"{img.stem}.json").read_text())
        assert truth["image"] == {"width": 320, "height": 240, "file": img.name}
        assert truth["kind"] in ("table", "hand")
        for t in truth["tiles"]:
            assert len(t["corners"]) == 4
            if t["face"] == "up":
                assert sorted(t["halves"]) == t["pips"]
    yaml_text = (d / "data.yaml").read_text()
    assert f"path: {d}" in yaml_text and "0: tile_up" in yaml_text and "1: tile_down" in yaml_text
    card = json.loads((tiny / "card.json").read_text())
    assert card["seed"] == 42 and card["config"]["name"] == "default"
    assert card["splits"]["train"]["images"] == 3
    assert (tiny / "contact_sheet.png").stat().st_size > 1000
    crops = list((tiny / "reader").rglob("*.png"))
    assert crops and all(p.parent.name == "back" or int(p.parent.name) <= 12 for p in crops)


def test_config_yaml_round_trip(tmp_path: Path) -> None:
    for cfg in CONFIGS.values():
        assert SynthConfig.from_yaml(cfg.to_yaml()) == cfg
    path = tmp_path / "mine.yaml"
    path.write_text("base: robot\nname: mine\ndim_p: 0.5\n")
    mine = load_config(str(path))
    assert (
        mine.name == "mine"
        and mine.dim_p == 0.5
        and mine.body_weights == CONFIGS["robot"].body_weights
    )
    with pytest.raises(UserInputError, match="valid"):
        load_config("nonsense")
    with pytest.raises(UserInputError, match=r"0\.\.1"):
        SynthConfig(glare_p=2.0)


def _main(argv: list[str]) -> int:
    """The console script with this module's subcommands only."""
    from unittest import mock

    import dominocam.cli

    with mock.patch.object(dominocam.cli, "COMMAND_MODULES", ("dominosynth.cli",)):
        return dominocam.cli.main(argv)


def test_cli_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        _main(["synth", "--help"])
    assert exc.value.code == 0
    assert "--backgrounds" in capsys.readouterr().out


def test_cli_registered_in_console_script() -> None:
    from dominocam import cli

    assert "dominosynth.cli" in cli.COMMAND_MODULES


def test_cli_tiny_run(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    rc = _main(
        [
            "synth",
            "--out",
            str(out),
            "--count",
            "4",
            "--seed",
            "1",
            "--size",
            "256x192",
            "--quiet",
            "--set",
            "6",
            "--kind",
            "table",
        ]
    )
    assert rc == 0
    assert len(list((out / "truth").glob("*.json"))) == 4
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra",
    [
        ["--size", "big"],
        ["--set", "7"],
        ["--set", "6,7"],
        ["--set", "six"],
        ["--count", "0"],
        ["--workers", "0"],
        ["--config", "nope"],
        ["--val-fraction", "1.5"],
        ["--backgrounds", "/no/such/dir"],
    ],
)
def test_cli_bad_arguments(tmp_path: Path, capsys, extra: list[str]) -> None:
    rc = _main(["synth", "--out", str(tmp_path / "x"), "--count", "2", "--seed", "1", *extra])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dominocam: error:") and "\n" not in err


def test_mixed_sets_share_the_pictures_evenly(tmp_path: Path) -> None:
    out = tmp_path / "mixed"
    args = [
        "--count",
        "6",
        "--seed",
        "3",
        "--size",
        "256x192",
        "--quiet",
        "--set",
        "6,12",
        "--kind",
        "table",
    ]
    rc = _main(["synth", "--out", str(out), *args])
    assert rc == 0
    shown = [json.loads(p.read_text())["set"] for p in sorted((out / "truth").glob("*.json"))]
    assert sorted(shown) == [6, 6, 6, 12, 12, 12]
    for truth in (out / "truth").glob("*.json"):  # no tile beyond its picture's set
        data = json.loads(truth.read_text())
        assert all(max(t["pips"]) <= data["set"] for t in data["tiles"] if t.get("pips"))
    card = json.loads((out / "card.json").read_text())
    assert card["set"] == [6, 12]
    assert sorted(p.name for p in (out / "reader" / "train").iterdir()) == sorted(
        [*(str(v) for v in range(13)), "back"]
    )


def test_picture_sets_are_seeded_and_even() -> None:
    from dominosynth.generate import picture_sets

    first = picture_sets(9, 5, (6, 9, 12))
    assert first == picture_sets(9, 5, (6, 9, 12))
    assert sorted(first) == [6] * 3 + [9] * 3 + [12] * 3
    assert picture_sets(4, 5, (12,)) == [12] * 4


def test_cli_refuses_non_empty_out(tmp_path: Path, capsys) -> None:
    (tmp_path / "f.txt").write_text("x")
    assert _main(["synth", "--out", str(tmp_path), "--count", "1", "--seed", "1"]) == 2


@pytest.mark.train
def test_ultralytics_accepts_the_dataset(tiny: Path, tmp_path: Path, monkeypatch) -> None:
    """ultralytics' own checker loads data.yaml and every OBB label (needs the train extra)."""
    pytest.importorskip("ultralytics")
    monkeypatch.setenv("YOLO_OFFLINE", "1")
    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo"))
    os.makedirs(tmp_path / "yolo", exist_ok=True)
    from ultralytics.data.dataset import YOLODataset
    from ultralytics.data.utils import check_det_dataset

    data = check_det_dataset(str(tiny / "detector" / "data.yaml"), autodownload=False)
    assert data["nc"] == 2 and data["names"][0] == "tile_up"
    ds = YOLODataset(img_path=data["train"], data=data, task="obb", imgsz=320, augment=False)
    labels = ds.get_labels()
    assert len(labels) == 3
    assert sum(len(lb["cls"]) for lb in labels) > 0
