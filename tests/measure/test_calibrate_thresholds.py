"""How `dominocam calibrate` chooses `doubtful_below` on the fit photos (measure.calibrate):
hand-made outcomes, one per photo, as each grid value would leave it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from measure import calibrate


@dataclass(frozen=True)
class Photo:
    """A fit photo reduced to what the rule sees: below which threshold it asks for a
    review (`doubt`, its weakest tile's probability), and whether its reading is exact."""

    doubt: float
    exact: bool


def outcomes(photo: Photo, calibration) -> tuple[bool, bool]:
    return photo.doubt < calibration.doubtful_below, photo.exact


@pytest.fixture(autouse=True)
def simulated(monkeypatch):
    monkeypatch.setattr(calibrate, "_photo_outcome", outcomes)


def test_the_lowest_value_that_reaches_the_target_is_chosen():
    # One misread photo whose weakest tile is at 0.93: doubting below 0.95 catches it.
    photos = [Photo(0.999, True)] * 50 + [Photo(0.93, False), Photo(0.96, True)]
    chosen, table = calibrate.choose_thresholds(photos, None, None)
    assert chosen.doubtful_below == 0.95
    assert table["0.9"] == {"clear_photos": 52, "clear_exact": 51, "photos": 52}
    assert table["0.95"]["clear_exact"] == table["0.95"]["clear_photos"] == 51


def test_a_failure_no_doubt_can_catch_takes_the_best_share_not_the_strictest_value():
    # A photo whose tiles were all missed is clear at every threshold and never exact;
    # a misread at 0.88 is caught from 0.9 on, and doubting more only removes exact photos.
    photos = (
        [Photo(1.0, False)]
        + [Photo(0.88, False)]
        + [Photo(0.999, True)] * 40
        + [Photo(0.975, True)] * 30
    )
    chosen, table = calibrate.choose_thresholds(photos, None, None)
    assert all(
        row["clear_exact"] / row["clear_photos"] < calibrate.SELECTIVE_TARGET
        for row in table.values()
    )
    assert chosen.doubtful_below == 0.9  # 70/71 clear photos exact; 0.98 and 0.99: 40/41
