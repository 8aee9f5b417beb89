"""dominocam.vision.messages: the live camera's event sentences read as before in English, carry
their code and parameters (`dominocam.rules.phrases`), and are shown in each language with their
values, from the event itself or from its stored JSON; nothing reads the English back. (The warnings
are codes: tests/vision/test_vision_notes.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dominocam.i18n import LANGUAGES, use_language
from dominocam.rules import phrases
from dominocam.rules.phrases import Phrase
from dominocam.vision import messages

REPO = Path(__file__).resolve().parents[2]


def _event_texts() -> list[Phrase]:
    """Every kind of live-camera sentence, written by the tracker's own `event_text`."""
    import numpy as np

    from dominocam.vision.track import _Track, event_text

    def track(face: str, guess=None) -> _Track:
        return _Track(7, np.zeros((4, 2)), {face: 1}, 0.9, guess=guess)

    up, down, unsure = track("up"), track("down"), track("up", guess=(5, 6))
    return [
        event_text("added", up, (6, 4), False, "top-right", 4, [4, 6]),
        event_text("added", up, (6, 4), False, "left", None, [4, 6]),
        event_text("added", up, (6, 4), False, None, None, []),
        event_text("added", down, None, False, "bottom", 3, [3]),
        event_text("added", down, None, False, None, None, [3]),
        event_text("added", unsure, None, True, "middle", 6, [6, 1]),
        event_text("added", track("up"), None, True, None, None, []),
        event_text("removed", up, (2, 2), False, None, None, [1, 2]),
        event_text("changed", up, (3, 5), False, "bottom-left", None, [5]),
        event_text("changed", up, (3, 5), False, None, None, [5]),
    ]


def test_the_camera_events_name_a_tile_by_where_it_lies() -> None:
    """Issue 34: "line 5" means nothing to a player; the events said "6-4 played on line 2"."""
    texts = _event_texts()
    assert texts[0] == "6-4 played at the top right, open end now 4 (open ends: 4, 6)"
    assert texts[1] == "6-4 played on the left (open ends: 4, 6)"
    assert texts[2] == "6-4 played (open ends: none)"
    assert texts[3] == "a face-down tile appeared at the bottom, open end now 3 (open ends: 3)"
    assert texts[5] == (
        "a tile not read surely (maybe 5-6) played in the middle, open end now 6 "
        "(open ends: 6, 1): please check it"
    )
    assert texts[8] == "the tile at the bottom left now reads 3-5 (open ends: 5)"
    assert texts[9] == "tile #7 now reads 3-5 (open ends: 5)"  # where it lies is not known
    assert not [t for t in texts if "line" in t]
    assert [phrases.said(t) for t in texts] == texts
    # Stored as JSON beside the text, and back: the same sentence.
    assert [phrases.said(str(t), phrases.to_json(t)) for t in texts] == texts
    assert phrases.to_json(texts[5]) == {
        "code": "event_to_check",
        "params": {
            "event": {
                "code": "event_played_at_end",
                "params": {
                    "name": {"code": "tile_not_sure_maybe", "params": {"maybe": [5, 6]}},
                    "place": {"code": "place_middle", "params": {}},
                    "end": 6,
                    "ends": [6, 1],
                },
            }
        },
    }


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_the_camera_events_are_shown_in_the_language(language: str) -> None:
    texts = _event_texts()
    with use_language(language):
        shown = [phrases.said(t) for t in texts]
        stored = [phrases.said(str(t), phrases.to_json(t)) for t in texts]
    assert stored == shown
    for english, translated in zip(texts, shown, strict=True):
        assert translated != english, english
        # the values stay: tiles, track numbers and open ends
        for value in re.findall(r"\d+-\d+|#\d+", english):
            assert value in translated, (value, translated)
    assert all("open ends" not in t and "played" not in t for t in shown)


def test_the_tracker_event_carries_its_words() -> None:
    import numpy as np

    from dominocam.vision.track import TableEvent, _Track, event_text

    text = event_text(
        "added", _Track(3, np.zeros((4, 2)), {"up": 1}, 0.9), (2, 5), False, "top", 5, [5]
    )
    event = TableEvent("added", 4, 1.0, 3, "up", (2, 5), 0, 5, (5,), text).to_dict()
    assert event["text"] == "2-5 played at the top, open end now 5 (open ends: 5)"
    assert event["words"]["code"] == "event_played_at_end"
    assert event["line"] == 0  # the line's index stays for programs
    with use_language("it"):
        assert phrases.said(event["text"], event["words"]) == phrases.said(text)


def test_an_event_stored_with_its_line_number_is_still_translated() -> None:
    """Events stored before they said where a tile lies keep their codes' words."""
    stored = {
        "code": "event_played_on_line_end",
        "params": {"name": [4, 6], "line": 2, "end": 4, "ends": [4, 6]},
    }
    text = "4-6 played on line 2, open end now 4 (open ends: 4, 6)"
    assert phrases.said(text, stored) == text
    with use_language("hu"):
        assert phrases.said(text, stored) != text


def test_a_text_without_words_is_shown_as_stored() -> None:
    """An event stored before codes (or words naming no known code) shows its English."""
    text = "6-4 played on line 2, open end now 4 (open ends: 4, 6)"
    with use_language("hu"):
        assert phrases.said(text) == text
        assert phrases.said(text, None) == text
        assert phrases.said(text, {"code": "no_such_code", "params": {}}) == text


def test_nothing_reads_an_event_or_audit_sentence_back() -> None:
    """The regular expressions that reversed the templates are gone, and nothing uses them."""
    source = (REPO / "vision" / "messages.py").read_text()
    assert "import re" not in source and "re.compile" not in source
    for name in ("shown_from", "shown_event", "EVENT_TEMPLATES", "match"):
        assert not hasattr(messages, name), name
    offenders = []
    for folder in ("dominocam", "rules", "server", "vision", "tournament", "scripts"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text()
            # ... nor finds a sentence of its own output again to rewrite it (the ruling's
            # verdict line: `dominocam.rules.ruling`'s `blocked`).
            for banned in (
                "shown_from",
                "shown_event",
                "wording.shown(",
                "messages.match(",
                ".replace(_(",
                ".partition(_(",
                "said in text",
            ):
                if banned in text and path != Path(__file__).resolve():
                    offenders.append(f"{path.relative_to(REPO)}: {banned}")
    assert not offenders, offenders
