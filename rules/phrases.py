"""A stored sentence as data: the code of its template and its parameters, put into words
where it is shown, in the reader's language.

The live camera's events (`dominocam.vision.messages`) and the audit trail's lines and a round's
lock reason (`dominocam.rounds.wording`) are stored in English, for whoever reads the database, with
their code and parameters beside them (`to_json`, JSON), so that a page, the API's `shown` fields or
the overlay write them in the reader's language (`said`) without reading the English back.

A `Template` is an `N_`-marked English template with its code. Its `format` gives a
`Phrase`: the English text (a `str`, so whatever stores, compares or prints the text does as
before) that holds its code and parameters. A template used without `format` (a sentence
without values) is one too (`phrase_of`).

Parameters are plain values: names and other text as `str` (kept as they are in every
language), ints, lists of ints (written "4, 6"), a tile's value as `[a, b]` in a field the
template names in `tiles` (written "a-b"), and nested phrases (a lock's reason in the audit
line that records it), which are written in the reader's language too.

    >>> LOCKED = Template("hands_locked", N_("hands locked: {text}"))
    >>> p = LOCKED.format(text=CALLED.format(name="Ana"))   # "hands locked: Ana called domino"
    >>> with use_language("es"): said(p)                   # the Spanish sentence, nested too
    >>> said(str(p), to_json(p))                           # the same from the stored JSON
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from dominocam.i18n import _

_TEMPLATES: dict[str, Template] = {}


class Template(str):
    """An English template (this `str`, `N_`-marked where it is written) with its code.

    Attributes:
        code: the stable name stored beside the text (JSON `code`).
        tiles: the fields holding a tile's value `[a, b]`, written "a-b".
    """

    code: str
    tiles: tuple[str, ...]

    def __new__(cls, code: str, english: str, tiles: tuple[str, ...] = ()) -> Template:
        known = _TEMPLATES.get(code)
        if known is not None and str(known) != english:
            raise ValueError(f"the code {code!r} already names another template: {known!r}")
        out = super().__new__(cls, english)
        out.code = code
        out.tiles = tuple(tiles)
        _TEMPLATES[code] = out
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (Template, (self.code, str(self), self.tiles))

    def format(self, *args: object, **params: Any) -> Phrase:
        """The phrase of this template with `params` (its English text is the template
        filled in)."""
        if args:
            raise TypeError("a template's values are named")
        return Phrase(self.code, params)


class Phrase(str):
    """A sentence: its English text (this `str`) with the `code` of its template and its
    `params` (plain values, nested phrases)."""

    code: str
    params: dict[str, Any]

    def __new__(cls, code: str, params: Mapping[str, Any], text: str | None = None) -> Phrase:
        template = _TEMPLATES.get(code)
        if template is None:
            raise ValueError(f"unknown sentence code {code!r}")
        clean = {k: _plain(v) for k, v in params.items()}
        out = super().__new__(cls, _written(template, clean, _english) if text is None else text)
        out.code = code
        out.params = clean
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (Phrase, (self.code, self.params, str(self)))


def templates() -> dict[str, Template]:
    """Every template made so far, by code (those of the modules imported)."""
    return dict(_TEMPLATES)


def _plain(value: Any) -> Any:
    if isinstance(value, Phrase):
        return value
    if isinstance(value, Template):
        return value.format()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, str)) or value is None:
        return value
    if hasattr(value, "__index__"):  # numpy integers too
        return int(value)
    if isinstance(value, float):
        return value
    return str(value)


def _english(phrase: Phrase) -> str:
    return str(phrase)


def _written(template: Template, params: Mapping[str, Any], nested: Any, text: str = "") -> str:
    """`text` (the template itself when empty) filled in with `params`; a nested phrase is
    written by `nested`."""
    values: dict[str, Any] = {}
    for _text, name, _spec, _conv in string.Formatter().parse(text or template):
        if name is None or name in values:
            continue
        value = params.get(name)
        if isinstance(value, Phrase):
            values[name] = nested(value)
        elif name in template.tiles and isinstance(value, list):
            values[name] = "-".join(str(v) for v in value)
        elif isinstance(value, list):
            values[name] = ", ".join(nested(v) if isinstance(v, Phrase) else str(v) for v in value)
        else:
            values[name] = "" if value is None else value
    return str.format(text or template, **values)


def phrase_of(text: object) -> Phrase | None:
    """`text` as a phrase when it is one (or a template without values); None for plain
    text."""
    if isinstance(text, Phrase):
        return text
    if isinstance(text, Template):
        return text.format()
    return None


def said(text: str, words: object = None) -> str:
    """A sentence in the current language (`dominocam.i18n.use_language`): `text` itself when it
    is a phrase, or the phrase `words` (its stored `to_json`) stands for; the stored `text`
    as it is when there is neither (a row stored before codes) or `words` names no known
    template."""
    phrase = phrase_of(text)
    if phrase is None and isinstance(words, Mapping):
        phrase = from_json(words, str(text))
    if phrase is None:
        return str(text)
    template = _TEMPLATES[phrase.code]
    return _written(template, phrase.params, lambda p: said(p), _(template))


def to_json(text: object) -> dict[str, Any] | None:
    """`{"code", "params"}` of a phrase (a nested phrase as such a dict too); None for plain
    text."""
    phrase = phrase_of(text)
    if phrase is None:
        return None
    return {"code": phrase.code, "params": {k: _json(v) for k, v in phrase.params.items()}}


def _json(value: Any) -> Any:
    if isinstance(value, Phrase):
        return to_json(value)
    if isinstance(value, list):
        return [_json(v) for v in value]
    return value


def from_json(data: Mapping[str, Any], text: str | None = None) -> Phrase | None:
    """The phrase of `to_json`'s JSON (with `text` as its English when given), or None when
    its code is unknown or its parameters are not plain values."""
    try:
        code = str(data["code"])
        if code not in _TEMPLATES:
            return None
        params = {str(k): _from_json(v) for k, v in dict(data.get("params") or {}).items()}
        return Phrase(code, params, text)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def stored(text: str, words: object) -> str:
    """A stored sentence as its phrase (its English `text` with the code and parameters of
    `words`, `to_json`'s JSON), or `text` as it is when `words` is missing or names no
    known template (a row stored before codes)."""
    found = from_json(words, text) if isinstance(words, Mapping) else None
    return text if found is None else found


def _from_json(value: Any) -> Any:
    if isinstance(value, Mapping):
        phrase = from_json(value)
        if phrase is None:
            raise ValueError("a nested sentence with an unknown code")
        return phrase
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value
