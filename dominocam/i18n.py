"""The language of the words the product writes for people: rulings, error messages, the
command line's, the vision layer's and the web pages' words. Part of the ground floor: every
layer imports it, and it imports no other first-party package.

English is written in the source and is the default; Hungarian, Italian, Vietnamese and
Spanish come from the gettext catalogues under `dominocam/locale/<lang>/LC_MESSAGES/`, domain
`dominocam` (one domain for the whole product, so the dashboard pages can share it). The
`.po` files are the translators' text; the `.mo` files beside them are compiled by
`make messages` and committed, so an installed wheel needs no build step
(tests/rules/test_rules_i18n.py checks that they match).

Only the standard library's gettext is used to read the catalogues; Babel (locale-aware
numbers) is imported when a number is formatted in a language other than English.

    with use_language("hu"):
        text = ruling(check(state), state)   # in Hungarian

The language is held in a context variable, so threads and requests do not leak theirs
into each other. Machine output (the verdict JSON) is never translated: run `check` with
the default language when its reason texts feed JSON.
"""

from __future__ import annotations

import argparse
import gettext
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from dominocam.errors import UserInputError

DOMAIN = "dominocam"
# The catalogues are the `rules` package's data (package-data in pyproject.toml): `rules/`
# is this package's sibling both in the repository and in an installed wheel. Found by path
# rather than through importlib.resources, which would import `rules` (the ground imports
# no layer).
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "en"
# Code -> the language's own name (what a picker shows).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "hu": "magyar",
    "it": "italiano",
    "vi": "Tiếng Việt",
    "es": "español",
}
# POSIX precedence: LC_ALL overrides LC_MESSAGES, which overrides LANG.
ENVIRONMENT_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

_language: ContextVar[str] = ContextVar("dominocam_language", default=DEFAULT_LANGUAGE)


def N_(message: str) -> str:
    """Mark `message` for extraction without translating it now (translated where shown)."""
    return message


@cache
def _translations(language: str) -> gettext.NullTranslations:
    if language == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    # fallback=False: a missing compiled catalogue is a packaging bug, not English output.
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])


def _(message: str) -> str:
    """`message` in the current language."""
    return _translations(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of the message for `count`, by the current language's plural rule."""
    return _translations(_language.get()).ngettext(singular, plural, count)


def current_language() -> str:
    """The code of the language in use (`en` unless `use_language` set another)."""
    return _language.get()


@contextmanager
def use_language(language: str) -> Iterator[str]:
    """Write in `language` (a code of LANGUAGES, see `resolve_language`) inside the block."""
    if language not in LANGUAGES:
        raise UserInputError(_unknown(language))
    token = _language.set(language)
    try:
        yield language
    finally:
        _language.reset(token)


def _code(tag: str) -> str:
    """`hu_HU.UTF-8`, `es-ES`, `IT` -> `hu`, `es`, `it` (the language part of a locale tag)."""
    for separator in ".@-_":
        tag = tag.split(separator, 1)[0]
    return tag.strip().lower()


def _unknown(requested: str) -> str:
    # Written in the current language: the request itself could not be honoured.
    return _("unknown language {requested!r}; available: {available}").format(
        requested=requested, available=", ".join(LANGUAGES)
    )


def resolve_language(requested: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to write in: `requested` (e.g. `--lang hu`), else the environment's
    LC_ALL / LC_MESSAGES / LANG when it names an available language, else English.

    Raises:
        UserInputError: `requested` names no available language (the message lists them).
    """
    if requested is not None:
        code = _code(requested)
        if code not in LANGUAGES:
            raise UserInputError(_unknown(requested))
        return code
    env = os.environ if environ is None else environ
    for variable in ENVIRONMENT_VARIABLES:
        value = env.get(variable, "")
        if value:
            # The first one set decides; C, POSIX or an unavailable language mean English.
            code = _code(value)
            return code if code in LANGUAGES else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def format_number(value: float, decimals: int = 0) -> str:
    """`value` with the current language's decimal sign and grouping (`0.70` -> `0,70`)."""
    language = _language.get()
    if language == DEFAULT_LANGUAGE:
        return f"{value:,.{decimals}f}"
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return str(format_decimal(value, format=pattern, locale=language))


def add_language_option(parser: argparse.ArgumentParser) -> None:
    """`--lang CODE` on a command that writes a ruling (`resolve_language` applies it)."""
    parser.add_argument(
        "--lang",
        metavar="CODE",
        default=None,
        help=(
            f"language of the ruling and of error messages: {', '.join(LANGUAGES)} "
            "(default: from LC_ALL / LC_MESSAGES / LANG, else en); --json keys stay English"
        ),
    )
