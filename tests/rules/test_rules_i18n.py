"""dominocam.i18n and its catalogues: every message translated in every language, the compiled
.mo files current, the language chosen from --lang or the environment, numbers per locale."""

from __future__ import annotations

import gettext
import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po
from factories import design_example, make_state

from dominocam.errors import UserInputError
from dominocam.i18n import (
    DOMAIN,
    LANGUAGES,
    LOCALE_DIR,
    _,
    format_number,
    ngettext,
    resolve_language,
    use_language,
)
from dominocam.rules import check, parse_state, ruling

REPO = Path(__file__).resolve().parents[2]
TRANSLATED = [code for code in LANGUAGES if code != "en"]
# Python's str.format fields, and the %(name)s of the Jinja templates (Flask-Babel).
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\(\w+\)s")


def _catalog(language: str):  # type: ignore[no-untyped-def]
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as file:
        return read_po(file, locale=language)


def _template():  # type: ignore[no-untyped-def]
    with (LOCALE_DIR / f"{DOMAIN}.pot").open("rb") as file:
        return read_po(file)


def _source_messages() -> set[str | tuple[str, ...]]:
    """Every message the source marks, extracted as `make messages` does (babel.cfg): the
    rules, the command line, the server's errors, the vision warnings, the page templates
    and the pages' scripts."""
    with (REPO / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: set[str | tuple[str, ...]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(REPO), method_map, options_map
    ):
        found.add(message)
    return found


def test_the_template_holds_every_message_of_the_source() -> None:
    template = {m.id for m in _template() if m.id}
    missing = _source_messages() - template
    assert not missing, f"run `make messages`: the template lacks {sorted(map(str, missing))}"
    assert len(template) > 80  # the rulings, the scoring reasons and the state errors
    where = {path.split("/")[1] for m in _template() for path, _line in m.locations}
    assert {"templates", "static"} <= where  # the pages and their scripts are in it


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(language: str) -> None:
    catalog = _catalog(language)
    translated = {m.id: m for m in catalog if m.id}
    problems = []
    for message in _template():
        if not message.id:
            continue
        entry = translated.get(message.id)
        if entry is None:
            problems.append(f"missing: {message.id!r}")
            continue
        if entry.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if len(forms) != catalog.num_plurals and isinstance(message.id, tuple):
            problems.append(
                f"{len(forms)} plural forms, want {catalog.num_plurals}: {message.id!r}"
            )
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = sorted(PLACEHOLDER.findall(sources[-1]))
        for form in forms:
            if not form:
                problems.append(f"empty: {message.id!r}")
            elif sorted(PLACEHOLDER.findall(form)) != wanted:
                problems.append(f"placeholders differ: {form!r} for {message.id!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalogue_uses_its_languages_plural_rule(language: str) -> None:
    catalog = _catalog(language)
    rule = get_plural(language)
    assert (catalog.num_plurals, catalog.plural_expr) == (rule.num_plurals, rule.plural_expr)


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_committed_mo_file_is_compiled_from_the_po_file(language: str) -> None:
    compiled = io.BytesIO()
    write_mo(compiled, _catalog(language))
    compiled.seek(0)
    fresh = gettext.GNUTranslations(compiled)
    committed_path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with committed_path.open("rb") as file:
        committed = gettext.GNUTranslations(file)
    # `_catalog` is the parsed message table (gettext keeps no public accessor for it).
    assert committed._catalog == fresh._catalog, "run `make messages` to recompile"  # type: ignore[attr-defined]


def test_english_is_the_default_and_the_source_text() -> None:
    text = ruling(check(parse_state(design_example())), parse_state(design_example()))
    assert "Verdict: BLOCKED. Both conditions hold" in text
    assert _("Verdict: BLOCKED.") == "Verdict: BLOCKED."


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [
        ("en", "must take 1 more tile first", "must take 3 more tiles first"),
        ("it", "prima deve ricevere ancora 1 tessera", "prima deve ricevere ancora 3 tessere"),
        ("es", "antes debe recibir 1 ficha más", "antes debe recibir 3 fichas más"),
        # Hungarian keeps the noun singular after a number; Vietnamese has one form.
        ("hu", "előbb még 1 követ kell kapnia", "előbb még 3 követ kell kapnia"),
        ("vi", "phải nhận thêm 1 quân trước", "phải nhận thêm 3 quân trước"),
    ],
)
def test_plural_forms_follow_the_count(language: str, one: str, three: str) -> None:
    singular, plural = "must take {count} more tile first", "must take {count} more tiles first"
    with use_language(language):
        assert ngettext(singular, plural, 1).format(count=1) == one
        assert ngettext(singular, plural, 3).format(count=3) == three


@pytest.mark.parametrize(
    ("language", "decimal", "large"),
    [("en", "0.70", "12,345"), ("it", "0,70", "12.345"), ("es", "0,70", "12.345"),
     ("vi", "0,70", "12.345"), ("hu", "0,70", "12\u00a0345")],
)  # fmt: skip
def test_numbers_are_formatted_per_locale(language: str, decimal: str, large: str) -> None:
    with use_language(language):
        assert format_number(0.7, decimals=2) == decimal
        assert format_number(12345) == large


def test_the_language_is_restored_after_the_block() -> None:
    with use_language("vi"):
        assert _("Notes:") == "Ghi chú:"
    assert _("Notes:") == "Notes:"


@pytest.mark.parametrize(
    ("requested", "environ", "language"),
    [
        ("hu", {"LANG": "es_ES.UTF-8"}, "hu"),
        ("it_IT.UTF-8", {}, "it"),
        ("ES", {}, "es"),
        (None, {"LANG": "vi_VN.UTF-8"}, "vi"),
        (None, {"LC_ALL": "hu_HU.UTF-8", "LANG": "it_IT.UTF-8"}, "hu"),
        (None, {"LC_MESSAGES": "es_AR.UTF-8", "LANG": "it_IT.UTF-8"}, "es"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),  # not available: English, not an error
        (None, {}, "en"),
    ],
)
def test_the_language_comes_from_the_option_then_the_environment(
    requested: str | None, environ: dict[str, str], language: str
) -> None:
    assert resolve_language(requested, environ) == language


def test_an_unknown_language_is_refused_with_the_available_ones() -> None:
    with pytest.raises(
        UserInputError, match=r"unknown language 'de'; available: en, hu, it, vi, es"
    ):
        resolve_language("de", {})


def test_state_errors_are_in_the_chosen_language() -> None:
    state = {**design_example(), "colour": "red"}
    with use_language("it"), pytest.raises(UserInputError, match="campo sconosciuto 'colour'"):
        parse_state(state)


def test_a_not_blocked_ruling_with_a_foul_in_spanish() -> None:
    state = make_state(
        "draw",
        hands={"Ana": ["0-1"], "Ben": ["4-6"], "Cy": ["2-2"]},
        ends={"main": 11, "side": 4},
        boneyard=5,
        proposer="Cy",
        declarations=["Ben"],
    )
    with use_language("es"):
        text = ruling(check(state), state)
    assert "Todavía se pueden robar 3 fichas (pozo 5, 2 de ellas nunca se roban)." in text
    assert "FALTA: Ben dijo que no llevaba, pero tiene 4-6 en «side» (punta abierta 4)." in text
    assert "Veredicto: NO TRANCADO" in text
