"""The live-table tracker: confirmation, occlusion, removal, reads that agree, box sizes, events."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from dominocam.cli import main
from dominocam.vision import geometry
from dominocam.vision.scene import Scene, SceneTile
from dominocam.vision.track import PlainDetection, TableTracker, TrackerConfig

W, H = 640, 360
TILE_L, TILE_W = 60.0, 30.0


def tile_box(x: float, y: float, angle: float = 0.0, face: str = "up") -> PlainDetection:
    """A tile's box centred at (x, y), long axis at `angle` radians."""
    corners = geometry.xywhr_to_corners(np.array([x, y, TILE_L, TILE_W, angle]))
    return PlainDetection(geometry.order_corners(corners), face, 0.9)


class FakeReader:
    """A test double of the reader MODEL interface: knows which tile lies where, counts calls.

    `tiles` maps a centre (x, y) to the halves (value at the end nearer the top-left, other).
    """

    def __init__(self, tiles: dict[tuple[float, float], tuple[int, int]], values: int = 13):
        self.tiles = tiles
        self.values = values
        self.boxes_read = 0
        self.calls = 0

    def __call__(self, corners: list[np.ndarray]) -> np.ndarray:
        self.calls += 1
        out = np.full((len(corners), 2, self.values), 1e-4)
        for i, c in enumerate(corners):
            self.boxes_read += 1
            centre = np.asarray(c).mean(axis=0)
            key = min(self.tiles, key=lambda k: np.hypot(k[0] - centre[0], k[1] - centre[1]))
            a, b = self.tiles[key]
            end0 = (c[0] + c[1]) / 2
            # Half 0 of the box is the end nearer the top-left of the tile's own centre.
            first = end0[0] + end0[1] <= centre[0] + centre[1]
            out[i, 0, a if first else b] = 0.98
            out[i, 1, b if first else a] = 0.98
        return out


def run(tracker: TableTracker, frames: list[list[PlainDetection]], reader=None):
    results = []
    for f, boxes in enumerate(frames):
        results.append(tracker.update(boxes, reader, f / 10))
    return results


def test_a_tile_is_confirmed_after_confirm_frames() -> None:
    reader = FakeReader({(100, 100): (6, 4)})
    tracker = TableTracker(W, H, TrackerConfig(confirm_frames=3))
    results = run(tracker, [[tile_box(100, 100)]] * 4, reader)
    assert [len(r.scene.tiles) for r in results] == [0, 0, 1, 1]
    assert [len(r.events) for r in results] == [0, 0, 1, 0]
    event = results[2].events[0]
    assert event.kind == "added" and event.pips == (4, 6) and event.frame == 2
    assert event.time_s == pytest.approx(0.2)
    assert results[2].tentative.shape == (0, 4, 2)
    assert results[0].tentative.shape == (1, 4, 2)


def test_a_one_frame_false_box_never_shows() -> None:
    reader = FakeReader({(100, 100): (1, 2)})
    tracker = TableTracker(W, H)
    frames = [[tile_box(100, 100)]] + [[]] * 10
    results = run(tracker, frames, reader)
    assert all(not r.scene.tiles and not r.events for r in results)
    assert reader.boxes_read == 0  # not even read: it never lasted long enough


def test_a_hidden_tile_stays_and_comes_back_without_events() -> None:
    reader = FakeReader({(100, 100): (6, 6), (200, 100): (3, 5)})
    cfg = TrackerConfig(confirm_frames=2, remove_frames=15)
    tracker = TableTracker(W, H, cfg)
    both = [tile_box(100, 100), tile_box(200, 100)]
    results = run(tracker, [both] * 3 + [[both[0]]] * 14 + [both] * 3, reader)
    during = results[3:17]
    assert all(len(r.scene.tiles) == 2 for r in during)  # an arm over 3-5: still shown
    assert all(len(r.hidden) == 1 for r in during)
    assert not any(r.events for r in results[3:])
    assert results[-1].hidden == ()


def test_a_tile_is_removed_only_after_remove_frames() -> None:
    reader = FakeReader({(100, 100): (2, 3)})
    tracker = TableTracker(W, H, TrackerConfig(confirm_frames=2, remove_frames=5))
    results = run(tracker, [[tile_box(100, 100)]] * 3 + [[]] * 6, reader)
    assert [len(r.scene.tiles) for r in results[3:]] == [1, 1, 1, 1, 0, 0]
    removed = [e for r in results for e in r.events if e.kind == "removed"]
    assert len(removed) == 1 and removed[0].frame == 7 and removed[0].pips == (2, 3)


def test_the_reader_is_paid_twice_per_tile_and_again_only_when_it_moved() -> None:
    tiles = {(100, 100): (0, 5), (300, 200): (4, 4)}
    reader = FakeReader(tiles)
    tracker = TableTracker(W, H)
    rng = np.random.default_rng(0)
    frames = []
    for _ in range(60):  # jitter and camera shake: the boxes do not "move"
        dx, dy = rng.normal(0, 1.0, 2)
        frames.append([tile_box(100 + dx, 100 + dy, 0.01), tile_box(300 - dy, 200 + dx, 1.2)])
    results = run(tracker, frames, reader)
    assert reader.boxes_read == 4  # two reads of each tile that agree
    assert all(len(r.scene.tiles) == 2 for r in results[5:])
    assert results[-1].scene.tiles[0].pips == (0, 5)
    # The 0-5 is pushed by a third of a tile: read again (and nothing else is).
    moved = [tile_box(100 + 14, 100, 0.01), tile_box(300, 200, 1.2)]
    tiles[(114, 100)] = (0, 5)
    more = [tracker.update(moved, reader, 7.0 + k / 10) for k in range(5)]
    assert reader.boxes_read == 5
    assert sum(r.reads for r in more) == 1
    assert not any(r.events for r in more)  # same values: no event


def scripted_reader(tile_per_read: list[tuple[int, int]]) -> tuple[Any, FakeReader]:
    """(a reader of one box at (100, 100) that names the next tile of the list at each read,
    then the last; the FakeReader under it, which counts the boxes read)."""
    reader = FakeReader({(100, 100): tile_per_read[0]})
    reads = iter(tile_per_read)

    def read(corners: list[np.ndarray]) -> np.ndarray:
        reader.tiles[(100, 100)] = next(reads, tile_per_read[-1])
        return reader(corners)

    return read, reader


def test_a_new_tile_is_shown_once_two_reads_agree() -> None:
    # Read first as the hand leaves it (a confident 1-7), then clear (2-7): 2-7 is shown, at
    # once, and no "changed" event follows.
    read, counter = scripted_reader([(1, 7), (2, 7)])
    results = run(TableTracker(W, H), [[tile_box(100, 100)]] * 10, read)
    events = [e for r in results for e in r.events]
    assert [(e.kind, e.pips) for e in events] == [("added", (2, 7))]
    assert counter.boxes_read == 3
    # Reads that agree at once cost no frame: the tile shows after confirm_frames as before.
    steady = FakeReader({(100, 100): (2, 7)})
    results = run(TableTracker(W, H), [[tile_box(100, 100)]] * 10, steady)
    shown = TrackerConfig().confirm_frames - 1  # frames count from 0
    assert [r.events[0].frame for r in results if r.events] == [shown]
    assert events[0].frame == shown + 1


def test_a_shown_tile_changes_only_when_two_reads_name_the_new_values() -> None:
    still = [[tile_box(100, 100)]] * 6
    pushed = [[tile_box(114, 100)]] * 6  # moved by a third of a tile: read again
    # One read of the pushed tile says 6-6 (an arm over it), the next 3-5 again: no event.
    arm_over, _ = scripted_reader([(3, 5), (3, 5), (6, 6), (3, 5)])
    results = run(TableTracker(W, H), still + pushed, arm_over)
    assert [(e.kind, e.pips) for r in results for e in r.events] == [("added", (3, 5))]
    assert results[-1].scene.tiles[0].pips == (3, 5)
    # Two reads in a row say 6-6 (the tile was swapped): one "changed" event, at the second.
    swapped, _ = scripted_reader([(3, 5), (3, 5), (6, 6)])
    results = run(TableTracker(W, H), still + pushed, swapped)
    events = [(e.kind, e.pips, e.frame) for r in results for e in r.events]
    assert events == [("added", (3, 5), 2), ("changed", (6, 6), len(still) + 1)]


def short_box(x: float, y: float) -> PlainDetection:
    """A box over the left 60 % of the tile at (x, y), as a detector sometimes draws."""
    corners = geometry.xywhr_to_corners(np.array([x - 0.2 * TILE_L, y, 0.6 * TILE_L, TILE_W, 0]))
    return PlainDetection(geometry.order_corners(corners), "up", 0.9)


def test_a_box_of_another_size_on_a_shown_tile_is_not_read() -> None:
    # A shown 3-5 gets a box over part of it now and then, which the reader reads confidently as
    # another tile (6-6): the tile stays, unread, unchanged, with no event.
    tiles = {(100, 100): (3, 5), (88, 100): (6, 6)}
    reader = FakeReader(tiles)
    tracker = TableTracker(W, H)
    short = TrackerConfig().resize_frames - 1
    frames = [[tile_box(100, 100)]] * 6 + (
        [[short_box(100, 100)]] * short + [[tile_box(100, 100)]]
    ) * 3
    results = run(tracker, frames, reader)
    assert [(e.kind, e.pips) for r in results for e in r.events] == [("added", (3, 5))]
    assert reader.boxes_read == 2
    assert all(len(r.scene.tiles) == 1 and not r.hidden for r in results[2:])
    # Boxes of the new size for resize_frames frames in a row are followed and read.
    more = run(tracker, [[short_box(100, 100)]] * (short + 3), reader)
    assert [(e.kind, e.pips) for r in more for e in r.events] == [("changed", (6, 6))]
    # Without the rule (resize_frames=1) the short boxes are read and the tile flips.
    flips = run(TableTracker(W, H, TrackerConfig(resize_frames=1)), frames, FakeReader(tiles))
    assert [e.kind for r in flips for e in r.events].count("changed") >= 2  # to and fro


def test_a_shown_tile_does_not_take_a_doubtful_reading() -> None:
    # The 3-5 is pushed (read again) and twice read as 6-6 with one half at p 0.45, under
    # the doubt threshold: it keeps 3-5. Two clear reads of 6-6 do change it.
    def reader_of(script: list[tuple[tuple[int, int], float]]):
        reads = iter(script)

        def read(corners: list[np.ndarray]) -> np.ndarray:
            out = np.full((len(corners), 2, 13), 1e-4)
            for i in range(len(corners)):
                (a, b), p = next(reads, script[-1])
                out[i, 0, a], out[i, 1, b] = 0.98, p
                out[i, 1, (b + 1) % 13] = 0.98 - p  # the doubt is between b and b + 1
            return out

        return read

    still = [[tile_box(100, 100)]] * 6
    pushed = [[tile_box(114, 100)]] * 6
    sure = [((3, 5), 0.98)] * 2
    doubtful = reader_of([*sure, ((6, 6), 0.45), ((6, 6), 0.45), ((3, 5), 0.98)])
    results = run(TableTracker(W, H), still + pushed, doubtful)
    assert [(e.kind, e.pips) for r in results for e in r.events] == [("added", (3, 5))]
    clear = reader_of([*sure, ((6, 6), 0.98)])
    results = run(TableTracker(W, H), still + pushed, clear)
    assert [e.kind for r in results for e in r.events] == ["added", "changed"]


def reader_by_script(script: list[tuple[tuple[int, int], float]]):
    """A reader that reads each box as the next (tile, weaker half's p) of `script`."""
    reads = iter(script)

    def read(corners: list[np.ndarray]) -> np.ndarray:
        out = np.full((len(corners), 2, 13), 1e-4)
        for i in range(len(corners)):
            (a, b), p = next(reads, script[-1])
            out[i, 0, a], out[i, 1, b] = 0.98, p
            out[i, 1, (b + 1) % 13] = 0.98 - p
        return out

    return read


def test_a_doubtful_tile_is_never_announced_as_a_confirmed_move() -> None:
    # Read at p 0.5 for longer than the tracker waits for a clear read: it is shown, but as
    # a tile to check, with no values; once a clear read comes, its values are announced.
    cfg = TrackerConfig(reread_every=4)
    read = reader_by_script([((2, 5), 0.5)] * 4 + [((2, 5), 0.98)])
    results = run(TableTracker(W, H, cfg), [[tile_box(100, 100)]] * 30, read)
    events = [e for r in results for e in r.events]
    assert events[0].kind == "added" and events[0].doubtful and events[0].pips is None
    assert "not read surely (maybe 2-5)" in events[0].text and "please check" in events[0].text
    first = next(r for r in results if r.events)
    assert first.scene.tiles[0].doubtful and first.scene.needs_review
    assert [(e.kind, e.pips, e.doubtful) for e in events[1:]] == [("changed", (2, 5), False)]
    assert not results[-1].scene.needs_review


def test_with_a_calibration_the_tracker_marks_by_its_probability() -> None:
    from dataclasses import replace

    from dominocam.vision.confidence import FEATURES, Logistic, load_calibration

    calibration = load_calibration(required=True)
    identity = Logistic(
        FEATURES, tuple(float(f == "half_lo") for f in FEATURES), 0.0
    )  # p = the weaker half
    calibration = replace(calibration, tile=identity, right=identity, doubtful_below=0.95)
    read = reader_by_script([((2, 5), 0.9)])  # clear for the tracker, under the threshold
    tracker = TableTracker(W, H, calibration=calibration)
    results = run(tracker, [[tile_box(100, 100)]] * 20, read)
    events = [e for r in results for e in r.events]
    assert [e.doubtful for e in events] == [True]
    assert results[-1].scene.tiles[0].probability == pytest.approx(0.9, abs=0.03)


def test_corner_order_flips_do_not_spoil_the_cached_reading() -> None:
    reader = FakeReader({(100, 100): (1, 6)})
    tracker = TableTracker(W, H)
    box = tile_box(100, 100, math.pi / 2)
    flipped = PlainDetection(np.roll(box.corners, 2, axis=0), "up", 0.9)
    results = run(tracker, [[box], [flipped]] * 10, reader)
    assert reader.boxes_read == 2
    assert results[-1].scene.tiles[0].pips == (1, 6)
    assert sum(len(r.events) for r in results) == 1


def test_events_name_where_the_tile_lies_and_its_open_end() -> None:
    # 6-6 then 6-4 end to end on a horizontal line near the top left of the frame: "6-4 played
    # at the top left, open end now 4" (issue 34: never "on line 2").
    tiles = {(100, 100): (6, 6), (160, 100): (6, 4)}
    reader = FakeReader(tiles)
    tracker = TableTracker(W, H, TrackerConfig(confirm_frames=2))
    first = [tile_box(100, 100)]
    results = run(tracker, [first] * 3 + [[*first, tile_box(160, 100)]] * 3, reader)
    events = [e for r in results for e in r.events]
    assert [e.pips for e in events] == [(6, 6), (4, 6)]
    assert events[1].open_end == 4 and events[1].line is not None
    assert "open end now 4" in events[1].text
    assert "at the top left," in events[1].text and "line" not in events[1].text
    assert 4 in events[1].open_ends
    assert json.loads(json.dumps(events[1].to_dict()))["open_end"] == 4


def test_update_scene_tracks_already_read_scenes_without_a_reader() -> None:
    corners = tile_box(100, 100).corners
    scene = Scene(W, H, [SceneTile(0, "up", corners, 0.9, (2, 5), (0.99, 0.97))])
    tracker = TableTracker(W, H, TrackerConfig(confirm_frames=2))
    results = [tracker.update_scene(scene, k / 10) for k in range(3)]
    assert [len(r.scene.tiles) for r in results] == [0, 1, 1]
    assert results[1].events[0].pips == (2, 5)


def test_face_down_tiles_are_tracked_without_reading() -> None:
    reader = FakeReader({(100, 100): (0, 0)})
    tracker = TableTracker(W, H, TrackerConfig(confirm_frames=2, confirm_down_frames=4))
    results = run(tracker, [[tile_box(100, 100, face="down")]] * 5, reader)
    assert reader.boxes_read == 0
    assert results[-1].scene.face_down == 1
    assert [len(r.events) for r in results] == [0, 0, 0, 1, 0]  # after confirm_down_frames
    assert results[3].events[0].face == "down"


def test_a_tile_carried_face_down_for_a_few_frames_never_shows() -> None:
    # A tile in a hand, boxed face down for 5 frames, then gone (set down elsewhere, face up).
    carried = [[tile_box(100, 100 + k, face="down")] for k in range(5)]
    results = run(TableTracker(W, H), carried + [[]] * 40, FakeReader({(100, 100): (0, 0)}))
    assert not any(r.events for r in results)


def test_config_is_validated_and_scales_with_the_frame_rate() -> None:
    with pytest.raises(ValueError):
        TrackerConfig(confirm_frames=0)
    with pytest.raises(ValueError):
        TrackerConfig(min_iou=1.5)
    with pytest.raises(ValueError):
        TrackerConfig(set_max=7)
    assert TrackerConfig.at_rate(10) == TrackerConfig()
    slow = TrackerConfig.at_rate(1)
    assert (slow.confirm_frames, slow.remove_frames) == (2, 3)
    assert TrackerConfig.at_rate(30).remove_frames == 75
    assert (slow.resize_frames, TrackerConfig.at_rate(30).resize_frames) == (2, 15)
    with pytest.raises(ValueError):
        TrackerConfig(max_resize=0)


def test_watch_with_a_bad_source_exits_2_with_one_line(capsys, tmp_path) -> None:
    assert main(["watch", str(tmp_path / "missing.mp4")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dominocam: error:") and "\n" not in err
    assert "missing.mp4" in err


def test_watch_bad_every_exits_2(capsys) -> None:
    assert main(["watch", "0", "--every", "0"]) == 2
    assert "--every" in capsys.readouterr().err


def test_watch_runs_a_video_end_to_end(double_models, painted_table, tmp_path, capsys) -> None:
    """The ONNX doubles see the painted table in every frame: its tiles become events."""
    import cv2

    video = tmp_path / "table.mp4"
    h, w = painted_table.image.shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 10, (w, h))
    for _ in range(TrackerConfig().confirm_down_frames + 2):  # its face-down tile shows too
        writer.write(painted_table.image)
    writer.release()
    events = tmp_path / "events.jsonl"
    out = tmp_path / "annotated.mp4"
    code = main(
        [
            "watch",
            str(video),
            "--detector",
            str(double_models / "detector.onnx"),
            "--reader",
            str(double_models / "reader.onnx"),
            "--events",
            str(events),
            "--annotate",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    assert len(lines) == len(painted_table.halves)
    assert all(e["kind"] == "added" for e in lines)
    # The same reads as the still pipeline on a decoded frame (mp4 shifts the painted codes).
    from dominocam.vision.pipeline import load_models, read_image

    models = load_models(double_models / "detector.onnx", double_models / "reader.onnx")
    capture = cv2.VideoCapture(str(video))
    ok, frame = capture.read()
    capture.release()
    assert ok
    still = read_image(frame, models.detector, models.reader, 12, with_layout=False, closeups=False)
    up = sorted(tuple(e["pips"]) for e in lines if e["face"] == "up")
    assert up == sorted(t.pips for t in still.tiles if t.pips is not None)
    assert out.stat().st_size > 0
    assert "played" in capsys.readouterr().out


def test_a_calibration_fitted_with_the_verifier_gives_way_to_the_trackers_own_rule() -> None:
    # The live path boxes frames with the detector alone (no verifier score): the committed
    # calibration cannot weigh such a box, so the tracker marks by its own doubt threshold.
    from dominocam.vision.confidence import load_calibration

    calibration = load_calibration(required=True)
    assert "verifier" in calibration.features
    read = reader_by_script([((2, 5), 0.9)])  # clear for the tracker's own rule
    results = run(TableTracker(W, H, calibration=calibration), [[tile_box(100, 100)]] * 12, read)
    events = [e for r in results for e in r.events]
    assert [(e.kind, e.pips, e.doubtful) for e in events] == [("added", (2, 5), False)]


def test_a_tracker_carried_between_processes_as_json_goes_on_unchanged() -> None:
    """`to_state` through JSON and `from_state` before every frame gives the same Scenes and
    events as one tracker kept in memory: tiles appear, are hidden, move, are swapped and
    removed (a tournament table's frames are read by whichever worker is free)."""
    frames = (
        [[tile_box(100, 100), tile_box(300, 200, 0.5)]] * 4
        + [[tile_box(300, 200, 0.5)]] * 3  # the first hidden by an arm
        + [[tile_box(114, 100), tile_box(300, 200, 0.5), tile_box(500, 80, face="down")]] * 4
        + [[tile_box(500, 80, face="down")]] * 40  # two removed
    )
    tiles = {(100, 100): (3, 5), (114, 100): (3, 5), (300, 200): (2, 9), (500, 80): (0, 0)}
    kept = TableTracker(W, H)
    carried_state = TableTracker(W, H).to_state()
    kept_results, carried_results = [], []
    for f, boxes in enumerate(frames):
        kept_results.append(kept.update(boxes, FakeReader(tiles), f / 10))
        carried = TableTracker.from_state(json.loads(json.dumps(carried_state)))
        carried_results.append(carried.update(boxes, FakeReader(tiles), f / 10))
        carried_state = carried.to_state()
    kinds = [e.kind for r in kept_results for e in r.events]
    assert {"added", "removed"} <= set(kinds)
    for a, b in zip(kept_results, carried_results, strict=True):
        assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
        assert a.scene.to_dict() == b.scene.to_dict()
        assert a.tracks == b.tracks and a.hidden == b.hidden and a.reads == b.reads
    # A fresh tracker instead of the carried one would show nothing at the next frame.
    fresh = TableTracker(W, H).update(frames[5], FakeReader(tiles), 0.5)
    assert fresh.scene.tiles == [] and kept_results[5].scene.tiles
