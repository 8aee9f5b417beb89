"""The crop of one tile that `dominocam eval` scores and the detector trains on
(`dominosynth.tile_crops`): its window and the tiles it may be cut around."""

from __future__ import annotations

import numpy as np

from dominosynth.tile_crops import (
    TILE_CROP_PX,
    shrink_window,
    tile_crop_candidates,
    tile_crop_window,
)


def _square(cx: float, cy: float, half_w: float, half_h: float) -> np.ndarray:
    return np.array(
        [
            [cx - half_w, cy - half_h],
            [cx + half_w, cy - half_h],
            [cx + half_w, cy + half_h],
            [cx - half_w, cy + half_h],
        ],
        dtype=float,
    )


def test_tile_crop_window_spans_tile_lengths_and_refuses_what_real_crops_lack() -> None:
    tile = _square(300, 200, 15, 30)  # 60 px long
    assert tile_crop_window(tile, [], (400, 600), 2.0) == (240, 140, 120)
    # Smaller than a crop: it would have to be enlarged.
    assert tile_crop_window(tile, [], (400, 600), 1.5) is None
    # Leaves the image.
    assert tile_crop_window(_square(40, 200, 15, 30), [], (400, 600), 2.0) is None
    # Another tile reaches into it; one outside does not matter.
    assert tile_crop_window(tile, [_square(350, 200, 15, 30)], (400, 600), 2.0) is None
    assert tile_crop_window(tile, [_square(500, 200, 15, 30)], (400, 600), 2.0) is not None


def test_the_candidates_are_whole_face_up_tiles_with_every_other_tile_shown() -> None:
    def tile(id_, cx, face="up", visible=1.0, pips=(2, 5)):
        return {
            "id": id_,
            "face": face,
            "pips": list(pips) if face == "up" and pips else None,
            "corners": _square(cx, 200, 15, 30).tolist(),
            "visible_fraction": visible,
        }

    truth = {
        "tiles": [
            tile(0, 100),
            tile(1, 200, face="down"),
            tile(2, 300, visible=0.6),  # partly hidden: no crop, but it is in the way
            tile(3, 400, visible=0.01),  # hidden: not in the way either
            tile(4, 500, pips=None),  # unread in the truth
        ]
    }
    candidates = tile_crop_candidates(truth)
    assert [c[0]["id"] for c in candidates] == [0]
    _, corners, others = candidates[0]
    assert np.array_equal(corners, _square(100, 200, 15, 30))
    assert len(others) == 3  # tiles 1, 2 and 4


def test_a_window_is_shrunk_to_a_crop() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    image[50:250, 100:300] = 200
    crop = shrink_window(image, (100, 50, 200))
    assert crop.shape == (TILE_CROP_PX, TILE_CROP_PX, 3)
    assert (crop == 200).all()
