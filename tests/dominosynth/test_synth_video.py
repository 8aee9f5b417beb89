"""The video mode of the synthetic data engine: a game played, with its true events."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from dominocam.cli import main
from dominocam.rules.tiles import Tile
from dominosynth.video import VideoSpec, plan_video, read_truth, render_frames, write_video

SMALL = VideoSpec(width=320, height=180, move_gap=(4, 6), tail=6)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def video():
    return plan_video(4, SMALL)


def test_events_follow_legal_play_in_time_order(video) -> None:
    events = video.events
    assert len(events) >= 2
    assert [e["id"] for e in events] == list(range(len(events)))
    frames = [e["frame"] for e in events]
    assert frames == sorted(frames) and len(set(frames)) == len(frames)
    tiles = [tuple(e["tile"]) for e in events]
    assert len(set(tiles)) == len(tiles)  # a set holds each tile once
    for e in events:
        assert Tile.of(*e["halves"]).as_list() == e["tile"]
        assert e["time_s"] == pytest.approx(e["frame"] / SMALL.fps)
        if e["visible_frame"] is not None:
            assert e["visible_frame"] >= e["frame"]
        assert e["open_end"] == (None if e["id"] == 0 else e["halves"][1])
        if e["open_end"] is not None:
            assert e["open_end"] in e["open_ends"]
    # Every move after the first is played on an open end of the table before it.
    for before, e in itertools.pairwise(events):
        assert e["halves"][0] in before["open_ends"]


def test_frames_show_each_tile_from_the_move_on_and_arms_hide_tiles(video) -> None:
    assert len(video.frames) == video.frame_count
    placed = {e["id"]: e["frame"] for e in video.events}
    hidden = 0
    for fr in video.frames:
        ids = [t["id"] for t in fr["tiles"]]
        assert ids == [i for i in placed if placed[i] <= fr["frame"]]
        for t in fr["tiles"]:
            assert np.asarray(t["corners"]).shape == (4, 2)
            assert sorted(t["halves"]) == t["pips"]
            if fr["arm"] and t["visible_fraction"] < 0.5:
                hidden += 1
    assert hidden > 0  # the arm that sets a tile down hides it for a few frames
    # The camera shakes a little, never much.
    shakes = np.array([fr["shake"] for fr in video.frames])
    assert 0 < np.abs(shakes[:, :2]).max() <= 3 * SMALL.shake_px + 1e-6


def test_planning_and_rendering_are_deterministic() -> None:
    a, b = plan_video(9, SMALL), plan_video(9, SMALL)
    assert a.events == b.events and a.frames == b.frames
    assert plan_video(10, SMALL).events != a.events
    first = [f for _, f in zip(range(3), render_frames(a), strict=False)]
    again = [f for _, f in zip(range(3), render_frames(b), strict=False)]
    assert all(np.array_equal(x, y) for x, y in zip(first, again, strict=True))
    assert first[0].shape == (180, 320, 3) and first[0].dtype == np.uint8


def test_written_videos_are_identical_for_a_seed(tmp_path) -> None:
    write_video(tmp_path / "a", 3, SMALL, frames_dir=True)
    write_video(tmp_path / "b", 3, SMALL, frames_dir=True)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    events, frames, card = read_truth(tmp_path / "a")
    assert card["frames"] == len(frames) == len(list((tmp_path / "a" / "frames").iterdir()))
    assert card["tiles"] == len(events)


def test_cli_writes_an_mp4_and_refuses_a_full_folder(tmp_path, capsys) -> None:
    import cv2

    out = tmp_path / "v"
    args = ["synth-video", "--out", str(out), "--seed", "2", "--size", "320x180", "--quiet"]
    assert main(args) == 0
    assert {"video.mp4", "events.jsonl", "frames.jsonl", "video.json"} <= {
        p.name for p in out.iterdir()
    }
    capture = cv2.VideoCapture(str(out / "video.mp4"))
    count = 0
    while capture.read()[0]:
        count += 1
    capture.release()
    assert count == json.loads((out / "video.json").read_text())["frames"]
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "not empty" in err and "\n" not in err


def test_spec_is_validated() -> None:
    with pytest.raises(ValueError):
        VideoSpec(fps=0)
    with pytest.raises(ValueError):
        VideoSpec(move_gap=(5, 2))
