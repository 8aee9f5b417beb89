"""vision.messages: the live camera's event sentences read as before in English and are shown
in each language with their values. (The warnings are codes: tests/vision/test_vision_notes.py.)"""

from __future__ import annotations

import re

import pytest

from rules.i18n import LANGUAGES, use_language
from vision import messages


def _event_texts() -> list[str]:
    """Every kind of live-camera sentence, written by the tracker's own `event_text`."""
    import numpy as np

    from vision.track import _Track, event_text

    def track(face: str, guess=None) -> _Track:
        return _Track(7, np.zeros((4, 2)), {face: 1}, 0.9, guess=guess)

    up, down, unsure = track("up"), track("down"), track("up", guess=(5, 6))
    return [
        event_text("added", up, (6, 4), False, 1, 4, [4, 6]),
        event_text("added", up, (6, 4), False, 1, None, [4, 6]),
        event_text("added", up, (6, 4), False, None, None, []),
        event_text("added", down, None, False, 0, 3, [3]),
        event_text("added", down, None, False, None, None, [3]),
        event_text("added", unsure, None, True, 2, 6, [6, 1]),
        event_text("added", track("up"), None, True, None, None, []),
        event_text("removed", up, (2, 2), False, None, None, [1, 2]),
        event_text("changed", up, (3, 5), False, None, None, [5]),
    ]


def test_the_camera_events_read_as_before_in_english() -> None:
    texts = _event_texts()
    assert texts[0] == "6-4 played on line 2, open end now 4 (open ends: 4, 6)"
    assert texts[2] == "6-4 played (open ends: none)"
    assert texts[5] == (
        "a tile not read surely (maybe 5-6) played on line 3, open end now 6 "
        "(open ends: 6, 1): please check it"
    )
    assert texts[8] == "tile #7 now reads 3-5 (open ends: 5)"
    assert [messages.shown_event(t) for t in texts] == texts


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_the_camera_events_are_shown_in_the_language(language: str) -> None:
    texts = _event_texts()
    with use_language(language):
        shown = [messages.shown_event(t) for t in texts]
    for english, translated in zip(texts, shown, strict=True):
        assert translated != english, english
        # the values stay: tiles, line numbers and open ends
        for value in re.findall(r"\d+-\d+|#\d+", english):
            assert value in translated, (value, translated)
    assert all("open ends" not in t and "played" not in t for t in shown)
