"""How `dominocam calibrate` chooses `doubtful_below` on the fit photos (measure.calibrate):
hand-made outcomes, one per photo, as each grid value would leave it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dominocam.measure import calibrate


@dataclass(frozen=True)
class Photo:
    """A fit photo reduced to what the rule sees: below which threshold it asks for a
    review (`doubt`, its weakest kept tile's probability), whether a kept tile is misread
    or false, and whether tiles were missed (no box to doubt)."""

    doubt: float
    misread: bool = False
    missed: bool = False


def outcome(photo: Photo, calibration) -> calibrate.PhotoOutcome:
    review = photo.doubt < calibration.doubtful_below
    exact = not photo.misread and not photo.missed
    return calibrate.PhotoOutcome(review, exact, photo.misread)


@pytest.fixture(autouse=True)
def simulated(monkeypatch):
    monkeypatch.setattr(calibrate, "_photo_outcome", outcome)


def test_the_lowest_value_at_which_clear_photos_keep_no_misread_tile_is_chosen():
    # One misread photo whose weakest tile is at 0.93: doubting below 0.95 catches it.
    photos = [Photo(0.999)] * 50 + [Photo(0.93, misread=True), Photo(0.96)]
    chosen, table = calibrate.choose_thresholds(photos, None, None)
    assert chosen.doubtful_below == 0.95
    assert table["0.9"] == {
        "clear_photos": 52,
        "clear_read_right": 51,
        "clear_exact": 51,
        "photos": 52,
    }
    assert table["0.95"]["clear_read_right"] == table["0.95"]["clear_photos"] == 51


def test_tiles_the_detector_missed_do_not_push_the_threshold_up():
    # A photo whose tiles were all missed holds no box to doubt: clear at every value and
    # never exact. It is counted among the exact sets, not against the threshold, which
    # would otherwise go to the grid's end and call nearly every tile doubtful.
    photos = [Photo(1.0, missed=True)] + [Photo(0.88, misread=True)] + [Photo(0.999)] * 40
    chosen, table = calibrate.choose_thresholds(photos, None, None)
    assert chosen.doubtful_below == 0.9
    assert table["0.9"]["clear_exact"] == 40 and table["0.9"]["clear_photos"] == 41


def test_without_any_value_reaching_the_target_the_strictest_is_taken():
    photos = [Photo(0.9999, misread=True)] + [Photo(0.999)] * 10
    chosen, _ = calibrate.choose_thresholds(photos, None, None)
    assert chosen.doubtful_below == calibrate.DOUBT_GRID[-1]
