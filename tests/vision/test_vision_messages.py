"""vision.messages: every warning template is recognised in its own text, with its values,
and shown in each language with those values; English and unknown texts pass unchanged."""

from __future__ import annotations

import re

import pytest

from rules.i18n import LANGUAGES, use_language
from vision import messages

FIELD = re.compile(r"\{(\w+)(?::[^{}]*)?\}")


def _sample(template: str) -> dict[str, object]:
    """Distinct values for each field (floats where the template formats decimals)."""
    values: dict[str, object] = {}
    for i, field in enumerate(FIELD.finditer(template)):
        name = field.group(1)
        if name in values:
            continue
        spec = field.group(0)
        values[name] = 0.25 + i / 100 if ":." in spec else f"{i + 2}-{i + 3}"
    if "why" in values:
        values["why"] = messages.COLLIDED.format(reading="4-5")
    return values


@pytest.mark.parametrize("template", messages.ALL)
def test_each_template_is_recognised_with_its_values(template: str) -> None:
    text = template.format(**_sample(template))
    found = messages.match(text)
    assert found is not None and found[0] == template, text


def test_the_templates_are_told_apart() -> None:
    texts = [t.format(**_sample(t)) for t in messages.ALL]
    assert [messages.match(text)[0] for text in texts] == list(messages.ALL)  # type: ignore[index]


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_each_template_is_shown_in_the_language_with_its_values(language: str) -> None:
    for template in messages.ALL:
        values = _sample(template)
        text = template.format(**values)
        with use_language(language):
            shown = messages.shown(text)
        assert shown != text, f"{language}: not translated: {text}"
        for name, value in values.items():
            if isinstance(value, str) and name != "why":
                assert value in shown, f"{language}: {value!r} lost in {shown!r}"


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        ("it", "la tessera 7 è tagliata dal bordo dell'immagine"),
        ("es", "la ficha 7 está cortada por el borde de la imagen"),
        ("hu", "a(z) 7. követ levágja a kép széle"),
        ("vi", "quân 7 bị cắt bởi mép ảnh"),
        ("en", "tile 7 is cut by the image border"),
    ],
)
def test_a_warning_is_shown_in_the_players_words(language: str, shown: str) -> None:
    with use_language(language):
        assert messages.shown(messages.CUT_BY_BORDER.format(tile=7)) == shown


def test_decimals_take_the_languages_decimal_sign() -> None:
    text = messages.BACK_BOTH_HALVES.format(tile=3, p=0.875)
    assert "p>=0.88" in text  # the Scene's English, as before
    with use_language("it"):
        assert "p>=0,88" in messages.shown(text)


def test_a_nested_reason_is_translated_too() -> None:
    why = messages.WENT_TO_TILE.format(reading="5-6", holder=2)
    text = messages.READ_CHANGED.format(
        tile=4, first="5-6", p_first=0.6, chosen="5-5", p=0.3, why=why
    )
    with use_language("es"):
        shown = messages.shown(text)
    assert shown.startswith("la ficha 4 leída como 5-6 (p=0,60) pasó a 5-5 (p=0,30): 5-6 fue")
    assert "went to" not in shown


def test_a_text_no_template_wrote_is_shown_as_it_is() -> None:
    with use_language("hu"):
        assert messages.shown("a note from an older Scene") == "a note from an older Scene"


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
