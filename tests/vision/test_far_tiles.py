"""The far-tiles pass: a photo whose tiles are small at the network input is detected again
in overlapping windows, and the windows' boxes join the first pass's."""

from __future__ import annotations

import numpy as np
import pytest
from vision_factories import upright_detection as _box

from dominocam.vision.detector import (
    SLICE_BELOW_INPUT_PX,
    SLICE_OVERLAP,
    Detector,
    input_scale,
    merge_slices,
    needs_slices,
    slice_windows,
)
from dominocam.vision.pipeline import read_image


@pytest.mark.parametrize("shape", [(720, 1280), (3024, 4032), (101, 203)])
def test_windows_cover_the_photo_and_overlap(shape) -> None:
    height, width = shape
    windows = slice_windows(shape)
    assert len(windows) == 4
    covered = np.zeros(shape, bool)
    for x0, y0, x1, y1 in windows:
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
        covered[y0:y1, x0:x1] = True
    assert covered.all()
    (ax0, _, ax1, _), (bx0, _, _, _) = windows[0], windows[1]
    assert ax1 - bx0 == pytest.approx(SLICE_OVERLAP * (ax1 - ax0), abs=2)


def test_input_scale_follows_the_letterbox_and_its_cap() -> None:
    assert input_scale((720, 1280), (640, 640), 2.0) == 0.5
    assert input_scale((100, 100), (640, 640), 2.0) == 2.0
    assert input_scale((100, 100), (640, 640), None) == 6.4


def test_slices_are_asked_for_small_tiles_and_for_nothing_found() -> None:
    small = [_box(100, 100, 40), _box(300, 100, 44), _box(500, 100, 200)]
    assert needs_slices(small, 0.5)  # median 44 px -> 22 px at the input
    assert not needs_slices(small, 1.0)
    assert needs_slices([], 0.5)
    assert SLICE_BELOW_INPUT_PX == 24.0


def test_merge_maps_window_boxes_back_and_keeps_one_box_per_tile() -> None:
    shape = (720, 1280)
    windows = slice_windows(shape)
    x0, y0 = windows[3][:2]
    first = [_box(1000, 600, 40, 0.5)]
    sliced = [
        (windows[0], [_box(200, 100, 40, 0.8)]),  # a tile the first pass missed
        (windows[3], [_box(1000 - x0, 600 - y0, 40, 0.9)]),  # the same tile as `first`
    ]
    merged = merge_slices(first, sliced, shape, iou=0.7, overlap=0.3)
    centres = sorted(tuple(np.round(d.corners.mean(axis=0))) for d in merged)
    assert centres == [(200.0, 100.0), (1000.0, 600.0)]
    assert max(d.score for d in merged) == pytest.approx(0.9)  # the better box of the tile
    # Each box says which look found it: both came from windows, the first pass's lost NMS.
    assert {d.source for d in merged} == {"window"}
    assert first[0].source == "photo"


def test_a_tile_cut_by_a_window_edge_inside_the_photo_is_left_to_its_neighbour() -> None:
    shape = (720, 1280)
    windows = slice_windows(shape)
    x1 = windows[0][2]
    cut = _box(x1 - 10, 100, 40, 0.9)  # reaches the right edge of the top-left window
    at_photo_edge = _box(15, 100, 40, 0.9)  # reaches x = -5: the photo's own border
    merged = merge_slices([], [(windows[0], [cut, at_photo_edge])], shape, 0.7, 0.85)
    assert [tuple(np.round(d.corners.mean(axis=0))) for d in merged] == [(15.0, 100.0)]


class _WindowDetector:
    """A detector double: one small tile in the whole photo, one more in each window."""

    imgsz, max_upscale, iou, overlap = (640, 640), 2.0, 0.7, 0.3
    detect_far_tiles = Detector.detect_far_tiles

    def __init__(self, tile_px: float) -> None:
        self.tile_px, self.shapes = tile_px, []

    def detect(self, image, timings=None):
        self.shapes.append(image.shape[:2])
        h, w = image.shape[:2]
        return [_box(w / 2, h / 2, self.tile_px, 0.9 - 0.1 * (len(self.shapes) > 1))]


def test_read_image_looks_in_windows_only_at_photos_of_small_tiles() -> None:
    photo = np.full((720, 1280, 3), 90, np.uint8)
    far = _WindowDetector(tile_px=30)  # 15 px at the input
    scene = read_image(photo, far, None, with_layout=False, closeups=False)
    assert len(far.shapes) == 5 and len(scene.tiles) == 5

    near = _WindowDetector(tile_px=80)  # 40 px at the input
    assert len(read_image(photo, near, None, with_layout=False, closeups=False).tiles) == 1
    assert len(near.shapes) == 1

    off = _WindowDetector(tile_px=30)
    read_image(photo, off, None, with_layout=False, closeups=False, far_tiles=False)
    assert len(off.shapes) == 1


def test_a_picture_smaller_than_the_input_is_not_sliced() -> None:
    # A 100 px crop is enlarged 2x already (the cap); its windows would be too.
    crop = np.full((100, 100, 3), 90, np.uint8)
    detector = _WindowDetector(tile_px=5)
    read_image(crop, detector, None, with_layout=False, closeups=False)
    assert len(detector.shapes) == 1


class _Verifier:
    """A verifier double: a box longer than `max_tile_px` is no tile (grass, wood grain)."""

    def __init__(self, max_tile_px: float) -> None:
        self.max_tile_px = max_tile_px

    def scores(self, image, corners) -> np.ndarray:
        from dominocam.vision import geometry

        lengths = geometry.box_lengths(np.array(corners))
        return np.where(lengths > self.max_tile_px, 0.01, 0.99)


class _ClutterDetector(_WindowDetector):
    """The first look boxes only clutter (big boxes); the windows see small tiles."""

    def detect(self, image, timings=None):
        self.shapes.append(image.shape[:2])
        h, w = image.shape[:2]
        if len(self.shapes) == 1:
            return [_box(200, 200, 200, 0.6), _box(900, 500, 180, 0.5)]
        return [_box(w / 2, h / 2, self.tile_px, 0.8)]


def test_boxes_the_verifier_rules_out_do_not_hide_small_tiles() -> None:
    # Big confident boxes on clutter put the median box at 95 input px; the verifier takes
    # none of them for a tile, so the photo is looked at again in windows.
    photo = np.full((720, 1280, 3), 90, np.uint8)
    cluttered = _ClutterDetector(tile_px=30)
    cluttered.verifier = _Verifier(max_tile_px=100)
    scene = read_image(photo, cluttered, None, with_layout=False, closeups=False)
    assert len(cluttered.shapes) == 5
    assert sum(t.verifier_score == 0.99 for t in scene.tiles) == 4  # one tile per window

    # Where the verifier takes the big boxes for tiles, they are tiles of a size the first
    # look sees: no windows.
    believed = _ClutterDetector(tile_px=30)
    believed.verifier = _Verifier(max_tile_px=1000)
    read_image(photo, believed, None, with_layout=False, closeups=False)
    assert len(believed.shapes) == 1


def _window_box(length: float, score: float, verifier_score: float):
    box = _box(100, 100, length, score)
    box.source, box.verifier_score = "window", verifier_score
    return box


def test_a_search_afar_counts_from_enough_probable_tiles_and_adds_only_those() -> None:
    from dominocam.vision.pipeline import MIN_TILES_AFAR, searched_afar

    first = [_box(600, 300, 200, 0.6)]
    first[0].verifier_score = 0.01  # clutter: the first look holds no probable tile
    tiles = [_window_box(30, 0.8, 0.95) for _ in range(MIN_TILES_AFAR)]
    clutter = _window_box(30, 0.7, 0.05)
    assert searched_afar(first, first + tiles + [clutter]) == first + tiles
    too_few = tiles[: MIN_TILES_AFAR - 1]
    assert searched_afar(first, first + too_few + [clutter]) == first
    assert searched_afar([], []) == []
