"""`studies.search_afar`: what the look in windows finds where the first look holds no
probable tile, matched to the labels and tallied."""

from __future__ import annotations

import numpy as np
from train_factories import tile_corners

from dominocam.vision.detector import Detection, Detector
from studies.search_afar import Search, search, tally


def box(cx: float, cy: float, length: float, score: float = 0.9) -> Detection:
    """A face-up box of a horizontal tile `length` px long centred at (cx, cy)."""
    return Detection(tile_corners((cx, cy), length, 0.0), score, 0, "tile_up")


class _Verifier:
    """Boxes longer than 100 px are clutter."""

    def scores(self, image, corners) -> np.ndarray:
        from dominocam.vision import geometry

        return np.where(geometry.box_lengths(np.array(corners)) > 100, 0.01, 0.99)


class _Detector:
    """The first look boxes clutter only; each window sees one small tile at its centre."""

    imgsz, max_upscale, iou, overlap = (640, 640), 2.0, 0.7, 0.3
    detect_far_tiles = Detector.detect_far_tiles
    verifier = _Verifier()

    def __init__(self, first: list) -> None:
        self.first, self.calls = first, 0

    def detect(self, image, timings=None):
        self.calls += 1
        if self.calls == 1:
            return list(self.first)
        h, w = image.shape[:2]
        return [box(w / 2, h / 2, 30, 0.8)]


def _label_at(detection) -> dict:
    return {"corners": detection.corners.tolist()}


def test_a_first_look_of_clutter_is_searched_and_the_believed_boxes_matched() -> None:
    photo = np.full((720, 1280, 3), 90, np.uint8)
    detector = _Detector([box(200, 200, 200, 0.6)] * 9)  # 9 boxes: no close-up pass
    # One labelled tile lies under the top-left window's box (the window's centre).
    from dominocam.vision.detector import slice_windows

    x0, y0, x1, y1 = slice_windows(photo.shape[:2])[0]
    label = _label_at(box((x0 + x1) / 2, (y0 + y1) / 2, 30))
    found = search(photo, detector, [label], "a.jpg")
    assert found == Search("a.jpg", labelled=1, believed=4, on_tiles=1)


def test_a_first_look_with_a_probable_tile_is_not_searched() -> None:
    photo = np.full((720, 1280, 3), 90, np.uint8)
    detector = _Detector([box(200, 200, 60, 0.6)] * 9)  # believed, 30 px at the input
    assert search(photo, detector, [], "b.jpg") is None


def test_tally_groups_by_kind_of_picture_and_believed_boxes() -> None:
    rows = tally(
        [
            Search("a.jpg", 0, 1, 0),
            Search("b.jpg", 0, 1, 0),
            Search("c.jpg", 5, 3, 3),
            Search("d.jpg", None, 4, None),
        ]
    )
    assert [(r["pictures_on"], r["believed"], r["pictures"], r["on_tiles"]) for r in rows] == [
        ("no tile", 1, 2, 0),
        ("real", 4, 1, None),
        ("table", 3, 1, 3),
    ]
