"""`dominocam read` and `dominocam watch` as a user meets them (issue 34): a progress bar on
standard error, the open ends and the set assumed in `read`'s summary, a hand photo without
table warnings, and `watch` on a file that is not a video answered in one line.

`read` runs in-process (`dominocam.cli.main`, so this worktree's code) on painted photos read
by ONNX doubles of the models (tests/helpers/standin.py): the detector double boxes two
horizontal tiles that touch end to end in any photo, the reader double reads a half's red
level as its value. `watch` runs as `python -m dominocam` in a subprocess: what FFmpeg
writes to the file descriptor itself is only seen there.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 320, 240
DETECTOR_SIZE = 160
# Two tiles 80x40 px, centres 82 px apart: they touch end to end (x 80..160 and 162..242).
BOXES = np.array([[120.0, 120.0, 80.0, 40.0, 0.0], [202.0, 120.0, 80.0, 40.0, 0.0]])


def paint(halves: list[tuple[int, int]]) -> np.ndarray:
    """A photo of the two tiles of `BOXES`, each half painted in the reader double's code
    for its value (first value at the end of corners 0-1)."""
    from standin import value_level

    from dominocam.vision import geometry

    image = np.full((HEIGHT, WIDTH, 3), (40, 90, 30), np.uint8)
    for box, values in zip(BOXES, halves, strict=True):
        c = geometry.order_corners(geometry.xywhr_to_corners(box))
        m12, m30 = (c[1] + c[2]) / 2, (c[3] + c[0]) / 2
        halves_at = (np.array([c[0], c[1], m12, m30]), np.array([m30, m12, c[2], c[3]]))
        for poly, value in zip(halves_at, values, strict=True):
            colour = (60, 60, value_level(value))
            cv2.fillConvexPoly(image, np.round(poly).astype(np.int32), colour)
    return image


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder: a detector double boxing `BOXES`, a reader double of values 0..12."""
    pytest.importorskip("onnx")
    from standin import raw_from_boxes, write_detector, write_reader

    from dominocam.vision import geometry

    folder = tmp_path_factory.mktemp("models")
    _, transform = geometry.letterbox(np.zeros((HEIGHT, WIDTH, 3), np.uint8), DETECTOR_SIZE)
    boxes = BOXES.copy()
    boxes[:, :2] = transform.to_input(boxes[:, :2])
    boxes[:, 2:4] *= transform.scale_x
    raw = raw_from_boxes(boxes, np.array([0, 0]), np.array([0.95, 0.9]))
    write_detector(folder / "detector.onnx", raw, imgsz=DETECTOR_SIZE)
    write_reader(folder / "reader.onnx", side=32)
    return folder


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`played`: 3-5 then 5-2, a line with open ends 3 (left) and 2 (right); `side_by_side`:
    3-5 beside 4-2 (halves 5 and 4 touch: not a played line); `eight`: 8-1 then 1-2."""
    folder = tmp_path_factory.mktemp("photos")
    paths = {}
    for name, halves in {
        "played": [(3, 5), (5, 2)],
        "side_by_side": [(3, 5), (4, 2)],
        "eight": [(8, 1), (1, 2)],
    }.items():
        paths[name] = folder / f"{name}.png"
        cv2.imwrite(str(paths[name]), paint(halves))
    return paths


@pytest.fixture
def read(models: Path, command_runner, monkeypatch: pytest.MonkeyPatch):
    """`read("a.png", "--json")` -> (exit status, stdout, stderr) of `dominocam read`."""
    monkeypatch.setenv("DOMINOCAM_MODELS", str(models))
    run = command_runner("dominocam.vision.cli")

    def call(*args: str | Path) -> tuple[int, str, str]:
        return run("read", *(str(a) for a in args), "--no-closeups")

    return call


def records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


# --- the summary: open ends, in words -------------------------------------------------------


def test_summary_names_each_open_end_and_where_it_lies(read, photos):
    code, out, _ = read(photos["played"])
    assert code == 0
    assert "face up: 3-5, 2-5" in out
    assert "  open ends: 3 on the left, 2 on the right" in out


def test_place_words_by_thirds_of_the_photo():
    from dominocam.rules.places import place_words

    assert place_words((310, 5), 320, 240) == "at the top right"
    assert place_words((160, 120), 320, 240) == "in the middle"
    assert place_words((0, 239), 320, 240) == "at the bottom left"
    assert place_words((320, 240), 320, 240) == "at the bottom right"  # the far edge


# --- the warnings: a player's sentence, the details, and the codes in --json -----------------


def test_json_carries_each_warnings_code_parameters_and_english_text(read, photos):
    code, out, _ = read(photos["side_by_side"], "--json")
    assert code == 0
    (scene,) = records(out)
    assert len(scene["notes"]) == len(scene["warnings"]) > 0
    for note, text in zip(scene["notes"], scene["warnings"], strict=True):
        assert set(note) == {"code", "params", "text"} and note["text"] == text
    differ = next(n for n in scene["notes"] if n["code"] == "halves_differ")
    # Typed parameters: the two tiles' ids, the halves that touch, where they lie.
    assert {differ["params"]["x"], differ["params"]["y"]} == {5, 4}
    assert {differ["params"]["a"], differ["params"]["b"]} == {0, 1}
    assert differ["params"]["place"] in {"left", "middle"}
    assert differ["text"].startswith("tiles ") and "which do not match" in differ["text"]


def test_summary_says_what_to_check_then_the_readers_details(read, photos):
    code, out, _ = read(photos["side_by_side"])
    assert code == 0
    assert "  warning: Check the tiles " in out and "two touching halves, 5 and 4" in out
    assert "    details: tiles " in out and "not a played line" in out


# --- a hand photo ---------------------------------------------------------------------------


def test_hand_photo_has_no_layout_warnings_nor_open_ends(read, photos):
    code, table, _ = read(photos["side_by_side"])
    assert code == 0 and "not a played line" in table  # read as a table: the layout's doubt
    code, hand, _ = read(photos["side_by_side"], "--hand")
    assert code == 0
    assert "face up: 3-5, 2-4" in hand
    assert "not a played line" not in hand and "warning" not in hand
    assert "open ends" not in hand
    code, out, _ = read(photos["played"], "--hand", "--json")
    assert code == 0
    (scene,) = records(out)
    assert scene["layout"]["lines"] == [] and scene["layout"]["open_ends"] == []


# --- the set: assumed from the values read, and said ----------------------------------------


def test_set_is_assumed_from_the_highest_value_read_and_said(read, photos):
    code, out, _ = read(photos["played"])
    assert code == 0
    assert "set: double-6 (assumed: the highest value read is 5; give --set N" in out
    code, out, _ = read(photos["played"], "--json")
    (scene,) = records(out)
    assert (scene["set"], scene["set_assumed"]) == (6, True)


def test_a_value_above_six_reads_as_double_nine_not_clamped(read, photos):
    code, out, _ = read(photos["eight"], "--json")
    assert code == 0
    (scene,) = records(out)
    assert (scene["set"], scene["set_assumed"]) == (9, True)
    assert sorted(t["pips"] for t in scene["tiles"]) == [[1, 2], [1, 8]]
    assert not any("more than a double" in w for w in scene["warnings"])


def test_the_set_of_a_run_grows_and_stays(read, photos):
    """Photos of one run are of one set: once an 8 is read, the next photos are double-9."""
    code, out, _ = read(photos["played"], photos["eight"], photos["played"], "--json")
    assert code == 0
    assert [r["set"] for r in records(out)] == [6, 9, 9]


def test_a_given_set_is_used_and_not_called_assumed(read, photos):
    code, out, _ = read(photos["eight"], "--set", "12", "--json")
    (scene,) = records(out)
    assert (scene["set"], scene["set_assumed"]) == (12, False)
    code, out, _ = read(photos["eight"], "--set", "12")
    assert code == 0 and "assumed" not in out


# --- the progress bar -----------------------------------------------------------------------


class Terminal(io.StringIO):
    """Standard error as a terminal (what tqdm asks before it shows a bar)."""

    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_with_several_photos(read, photos, monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = read(photos["played"], photos["eight"], "--json")
    assert code == 0
    assert "2/2" in terminal.getvalue() and "photo" in terminal.getvalue()
    assert len(records(out)) == 2  # standard output holds the JSON lines only


def test_no_progress_bar_for_one_photo_nor_off_a_terminal(read, photos, monkeypatch):
    code, _, err = read(photos["played"], photos["eight"])
    assert code == 0 and err == ""  # standard error is not a terminal here
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert read(photos["played"])[0] == 0
    assert read(photos["played"], photos["eight"], "--quiet")[0] == 0
    assert terminal.getvalue() == ""


def test_progress_when_asked_even_off_a_terminal(read, photos):
    code, out, err = read(photos["played"], photos["eight"], "--json", "--progress")
    assert code == 0
    assert "2/2" in err
    assert [r["path"] for r in records(out)] == [str(photos["played"]), str(photos["eight"])]


# --- watch on something that is not a video -------------------------------------------------


def watch(source: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "dominocam", "watch", str(source), "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # no FFmpeg or OpenCV lines beside it
    assert lines[0].startswith("dominocam: error: ")
    return lines[0]


def test_watch_a_photo_says_to_read_it(tmp_path, photos):
    line = one_error_line(watch(photos["played"]))
    assert "is a picture, not a video" in line and "dominocam read" in line


def test_watch_a_file_named_like_a_photo_that_is_none(tmp_path):
    fake = tmp_path / "notaphoto.jpg"
    fake.write_text("not a photo\n")
    line = one_error_line(watch(fake))
    assert "not a video" in line


@pytest.mark.parametrize("content", [b"", bytes(range(256)) * 12], ids=["empty", "noise"])
def test_watch_a_file_that_is_no_video_in_one_line(tmp_path, content):
    broken = tmp_path / "game.mp4"
    broken.write_bytes(content)
    line = one_error_line(watch(broken))
    assert "cannot be played as a video" in line and "camera index" in line


# --- watch: the set from --set, the game's --variant, or the values read --------------------


@pytest.fixture(scope="module")
def eight_video(photos: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few seconds of video of the `eight` photo (8-1 then 1-2), lossless enough for the
    reader double (Motion JPEG at its best quality)."""
    path = tmp_path_factory.mktemp("video") / "eight.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 5.0, (WIDTH, HEIGHT))
    assert writer.isOpened()
    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 100)
    frame = cv2.imread(str(photos["eight"]))
    for _ in range(12):
        writer.write(frame)
    writer.release()
    return path


def watch_events(video: Path, models: Path, *args: str) -> tuple[list[dict], str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "DOMINOCAM_MODELS": str(models)}
    result = subprocess.run(
        [sys.executable, "-m", "dominocam", "watch", str(video), "--json", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return records(result.stdout), result.stderr


def test_watch_without_a_set_reads_the_set_the_values_need(eight_video, models):
    """No double-12 assumed: the set grows from double-6 to the smallest that holds the 8."""
    events, err = watch_events(eight_video, models)
    assert sorted(e["pips"] for e in events if e["kind"] == "added") == [[1, 2], [1, 8]]
    assert {e["set"] for e in events} == {9}
    assert "set: double-9 (assumed: the highest value read is 8" in err


def test_watch_takes_the_set_of_the_games_variant_or_of_set(eight_video, models):
    # The block game is played with a double-6 set: an 8 cannot be, it is read within 6.
    events, err = watch_events(eight_video, models, "--variant", "block", "--quiet")
    assert {e["set"] for e in events} == {6} and err == ""
    assert all(max(e["pips"]) <= 6 for e in events if e["pips"])
    events, _ = watch_events(eight_video, models, "--variant", "block", "--set", "12")
    assert {e["set"] for e in events} == {12}
    assert sorted(e["pips"] for e in events if e["kind"] == "added") == [[1, 2], [1, 8]]


def test_watch_help_says_where_the_set_comes_from(capsys):
    from dominocam.cli import main

    with pytest.raises(SystemExit):
        main(["watch", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--variant NAME" in text and "usual set" in text
    assert "smallest of 6, 9, 12, 15 that holds the highest value read" in text
    assert "default 12" not in text
