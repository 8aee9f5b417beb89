"""`studies.closeup_stages`: a face-up box found on a labelled tile (its centre inside), or
any face-up box on a crop of one tile."""

from __future__ import annotations

import numpy as np

from studies.closeup_stages import _found


def square(x: float, y: float, side: float = 40.0) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], float)


def test_a_box_is_found_on_a_label_by_its_centre() -> None:
    assert _found([square(10, 10)], square(0, 0, 100))
    assert not _found([square(200, 200)], square(0, 0, 100))
    assert _found([square(200, 200)], None)  # a crop of one tile: any face-up box
    assert not _found([], None)
