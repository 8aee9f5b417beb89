"""`dominocam read` and `dominocam bench` through the real console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

SCRIPT = Path(sys.executable).with_name("dominocam")


# The detector double emits fixed boxes (conftest.double_models): no close-up pass.
NO_CLOSEUPS = ("--no-closeups",)


def run(
    *args: str, models: Path | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if models is not None:
        env["DOMINOCAM_MODELS"] = str(models)
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "dominocam"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


@pytest.fixture(scope="module")
def table_file(painted_table, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("photos") / "table.png"
    cv2.imwrite(str(path), painted_table.image)
    return path


def test_read_json_one_image(table_file, double_models, painted_table):
    result = run("read", str(table_file), "--json", *NO_CLOSEUPS, models=double_models)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    scene = json.loads(lines[0])
    assert scene["path"] == str(table_file)
    assert scene["image"] == {"width": 320, "height": 240}
    assert scene["face_down"] == 1
    expected = sorted(sorted(h) for h in painted_table.halves if h)
    assert sorted(t["pips"] for t in scene["tiles"] if t["face"] == "up") == expected


def test_read_several_images_one_line_each_and_annotate(table_file, double_models, tmp_path):
    second = tmp_path / "again.png"
    second.write_bytes(table_file.read_bytes())
    out = tmp_path / "annotated"
    result = run(
        "read", str(table_file), str(second), "--json", "--annotate", str(out), models=double_models
    )
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert [r["path"] for r in records] == [str(table_file), str(second)]
    assert sorted(p.name for p in out.iterdir()) == ["again.annotated.png", "table.annotated.png"]
    assert cv2.imread(str(out / "table.annotated.png")).shape == (240, 320, 3)


def test_read_human_summary(table_file, double_models):
    result = run("read", str(table_file), *NO_CLOSEUPS, models=double_models)
    assert result.returncode == 0, result.stderr
    assert "5 tiles (4 face up, 1 face down), pip total" in result.stdout


def test_bad_image_is_one_line_exit_2(tmp_path, double_models):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0garbage")
    result = run("read", str(bad), models=double_models)
    assert result.returncode == 2
    assert result.stderr.startswith("dominocam: error: ")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_one_bad_image_among_several_still_reads_the_others(table_file, tmp_path, double_models):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    result = run("read", str(empty), str(table_file), "--json", models=double_models)
    assert result.returncode == 2
    assert "empty" in result.stderr and "Traceback" not in result.stderr
    assert json.loads(result.stdout.strip())["path"] == str(table_file)


def test_missing_model_is_a_clear_message(table_file, tmp_path):
    result = run("read", str(table_file), models=tmp_path)
    assert result.returncode == 2
    assert "detector model not found" in result.stderr and "dominocam train" in result.stderr
    assert "Traceback" not in result.stderr


def test_bench_json_on_a_small_table(double_models):
    result = run(
        "bench",
        "--sizes",
        "320x240",
        "--tiles",
        "6",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--json",
        models=double_models,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    stages = report["results"][0]["stages"]
    assert {
        "decode_image",
        "preprocess",
        "forward",
        "postprocess",
        "read",
        "decode",
        "total",
    } <= set(stages)
    assert stages["total"]["median_ms"] > 0


def test_bench_table_output(double_models):
    result = run(
        "bench",
        "--sizes",
        "320x240",
        "--tiles",
        "4",
        "--runs",
        "1",
        "--warmup",
        "0",
        models=double_models,
    )
    assert result.returncode == 0, result.stderr
    assert "total / forward" in result.stdout and "320x240 median" in result.stdout


def test_help_stays_light():
    code = (
        "import sys, argparse, dominocam.vision.cli; "
        "dominocam.vision.cli.register(argparse.ArgumentParser().add_subparsers()); "
        "print('onnxruntime' in sys.modules, 'cv2' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False False", result.stderr


def test_read_with_a_calibration_beside_the_models_rejects_and_asks_for_review(
    table_file, double_models, tmp_path
):
    # A copy of the stand-in models with a calibration whose probability is the detector's
    # score: the painted table's scores are 0.95 .. 0.75, "not a tile" below 0.8.
    import shutil

    from dominocam.vision.confidence import FEATURES, Calibration, Logistic

    folder = tmp_path / "models"
    shutil.copytree(double_models, folder)
    identity = Logistic(FEATURES, tuple(float(f == "det") for f in FEATURES), 0.0)
    Calibration(identity, identity, 0.8, 0.9, 0.5).save(folder / "calibration.json")
    result = run("read", str(table_file), "--json", *NO_CLOSEUPS, models=folder)
    assert result.returncode == 0, result.stderr
    scene = json.loads(result.stdout)
    assert len(scene["rejected"]) == 1 and scene["needs_review"] is True
    assert all("probability" in t and "doubtful" in t for t in scene["tiles"])
    text = run("read", str(table_file), *NO_CLOSEUPS, models=folder)
    assert "left out as probably not tiles: 1 boxes" in text.stdout
    assert "needs review" in text.stdout and "?" in text.stdout
    plain = json.loads(
        run("read", str(table_file), "--json", *NO_CLOSEUPS, models=double_models).stdout
    )
    assert plain["rejected"] == [] and plain["needs_review"] is False
