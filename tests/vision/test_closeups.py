"""The close-up pass: a tile too big for the detector's input is found in the framed picture."""

from __future__ import annotations

import numpy as np
from vision_factories import upright_detection as _box

from dominocam.vision import geometry
from dominocam.vision.detector import (
    CLOSEUP_BORDER,
    CLOSEUP_MAX_BOXES,
    Detection,
    frame_for_closeups,
    merge_closeups,
)
from dominocam.vision.pipeline import read_image


def test_frame_for_closeups_adds_grey_around_the_picture() -> None:
    image = np.full((300, 600, 3), 200, np.uint8)
    framed, pad = frame_for_closeups(image)
    assert pad == round(CLOSEUP_BORDER * 600)
    assert framed.shape == (300 + 2 * pad, 600 + 2 * pad, 3)
    assert (framed[pad : pad + 300, pad : pad + 600] == 200).all()
    assert (framed[:pad] == geometry.LETTERBOX_PAD_VALUE).all()


def test_a_big_framed_box_replaces_the_boxes_on_its_halves() -> None:
    pad, shape = 300, (300, 600)
    halves = [_box(150, 150, 200, 0.6), _box(450, 150, 200, 0.5)]
    elsewhere = _box(590, 290, 40, 0.4)  # centre outside the big tile: kept
    whole = _box(300 + pad, 150 + pad, 560, 0.7)  # framed-pass pixels
    merged = merge_closeups([*halves, elsewhere], [whole], pad, shape)
    assert [round(d.score, 2) for d in merged] == [0.7, 0.4]
    assert [d.source for d in merged] == ["closeup", "photo"]
    np.testing.assert_allclose(merged[0].corners.mean(axis=0), [300, 150])


def test_small_framed_boxes_change_nothing() -> None:
    first = [_box(150, 150, 200)]
    framed = [_box(150 + 300, 150 + 300, 250)]  # under half the picture's longer side
    assert merge_closeups(first, framed, 300, (300, 600)) is first


class _CountingDetector:
    """Returns `boxes` for the picture itself and one full-frame box for the framed one."""

    def __init__(self, boxes: list[Detection]) -> None:
        self.boxes, self.shapes = boxes, []

    def detect(self, image, timings=None):
        self.shapes.append(image.shape[:2])
        if len(self.shapes) == 1:
            return list(self.boxes)
        h, w = image.shape[:2]
        return [_box(w / 2, h / 2, 0.45 * w, 0.8)]


def test_read_image_looks_again_only_at_pictures_with_few_boxes() -> None:
    image = np.full((300, 600, 3), 200, np.uint8)
    few = _CountingDetector([_box(150, 150, 200, 0.6)])
    scene = read_image(image, few, None, with_layout=False, far_tiles=False)
    assert len(few.shapes) == 2
    assert len(scene.tiles) == 1 and geometry.polygon_area(scene.tiles[0].corners) > 500 * 250

    many = _CountingDetector([_box(30 + 60 * i, 150, 50) for i in range(CLOSEUP_MAX_BOXES + 1)])
    read_image(image, many, None, with_layout=False, far_tiles=False)
    assert len(many.shapes) == 1

    off = _CountingDetector([_box(150, 150, 200, 0.6)])
    read_image(image, off, None, with_layout=False, closeups=False, far_tiles=False)
    assert len(off.shapes) == 1


def test_the_close_up_frame_is_the_detectors_setting() -> None:
    image = np.full((300, 600, 3), 200, np.uint8)
    detector = _CountingDetector([_box(150, 150, 200, 0.6)])
    detector.closeup_border = 0.25  # as `Detector(closeup_border=...)` and eval's flag set it
    read_image(image, detector, None, with_layout=False, far_tiles=False)
    assert detector.shapes[1] == (300 + 2 * 150, 600 + 2 * 150)
    assert frame_for_closeups(image, 0.25)[1] == 150
