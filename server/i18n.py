"""The pages' language: Flask-Babel over the catalogues of `dominocam.i18n` (one domain, one set
of .po files for the rulings, the command line, the pages, the scripts and the API's errors).

* **Choice.** `?lang=CODE` (the overlay: OBS has no picker), then the picker's cookie, then
  the browser's Accept-Language (best match among `dominocam.i18n.LANGUAGES`), else English.
* **Python.** Every request writes in its language: `dominocam.i18n`'s language is set for the
  request, so an error message or ruling written with `dominocam.i18n._` comes in it.
* **Templates.** Flask-Babel's `_`/`ngettext`; `<html lang>` is `page_language`.
* **Scripts.** The strings the scripts under the app's static/ mark with `_("…")` or
  `ngettext("…", "…", n)` are found with Babel's JavaScript extractor (the same one
  `make messages` uses), translated here and rendered into the page as JSON
  (`<script type="application/json" id="dc-messages">`); common.js looks them up.

Tournament mode's web app (`dominocam.tournament.web`) calls `init_app` too: the same choice, cookie
and catalogue; its scripts are those of its own package's static/ (the app's import name).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import unquote, urlencode

from babel import Locale
from babel.messages.extract import extract_javascript
from flask import Flask, Response, current_app, g, redirect, request
from flask_babel import Babel, format_decimal, get_locale, get_translations

from dominocam import i18n as dominocam_i18n
from dominocam.i18n import _
from dominocam.server.redirects import same_site_path
from dominocam.server.setup_words import variant_title

COOKIE = "dominocam_lang"
# A year: the choice belongs to the device, like a setting.
COOKIE_MAX_AGE_S = 365 * 24 * 3600
JS_KEYWORDS = {"_": None, "ngettext": (1, 2)}


def select_language() -> str:
    """The language of this request (see the module docstring)."""
    for requested in (request.args.get("lang"), request.cookies.get(COOKIE)):
        if requested in dominocam_i18n.LANGUAGES:
            return requested
    best = request.accept_languages.best_match(list(dominocam_i18n.LANGUAGES))
    return best or dominocam_i18n.DEFAULT_LANGUAGE


def page_language() -> str:
    """The code of the language this request is answered in."""
    return str(get_locale() or dominocam_i18n.DEFAULT_LANGUAGE)


def init_app(app: Flask) -> None:
    """Flask-Babel on `app`, the request's language for `dominocam.i18n`, the picker's route."""
    app.config.setdefault("BABEL_DEFAULT_LOCALE", dominocam_i18n.DEFAULT_LANGUAGE)
    app.config.setdefault("BABEL_DOMAIN", dominocam_i18n.DOMAIN)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(dominocam_i18n.LOCALE_DIR))
    Babel(app, locale_selector=select_language)

    @app.before_request
    def _language() -> None:
        # Held in g and left in teardown: a server thread serves many requests.
        block = dominocam_i18n.use_language(page_language())
        block.__enter__()
        g.dominocam_language = block

    @app.teardown_request
    def _language_done(_error: BaseException | None) -> None:
        block = g.pop("dominocam_language", None)
        if block is not None:
            block.__exit__(None, None, None)

    @app.context_processor
    def _page() -> dict[str, Any]:
        return {
            "page_language": page_language(),
            "languages": dominocam_i18n.LANGUAGES,
            "js_messages": js_messages,
            "language_next": _this_page_without_lang(),
            "format_decimal": format_decimal,
            "ended_by_words": ended_by_words,
            # A game's variant by its name in words, never its code (`mexican-train`).
            "variant_title": variant_title,
        }

    app.add_url_rule("/language", "language", choose_language, methods=["POST"])


def ended_by_words(ended_by: str | None) -> str:
    """How a round ended, in words (`domino`, `block` are the machine codes of the state)."""
    if ended_by == "domino":
        return _("domino")
    if ended_by == "block":
        return _("blocked game")
    return _("ended")


def choose_language() -> Response:
    """The picker's form: remember the language in a cookie, go back to the page (no script
    needed). An unknown code forgets the choice (Accept-Language decides again).

    `next` must be a path of this app (`same_site_path`), under its prefix when a proxy mounts
    it under one (`request.script_root`, the WSGI `SCRIPT_NAME`); anything else goes back to
    the app's first page."""
    chosen = request.form.get("lang", "")
    response = redirect(_back_in_app(request.form.get("next")), code=303)
    if chosen in dominocam_i18n.LANGUAGES:
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_MAX_AGE_S, samesite="Lax", httponly=True)
    else:
        response.delete_cookie(COOKIE, samesite="Lax", httponly=True)
    return response


def _back_in_app(text: str | None) -> str:
    """`text` when it is a path of this app (under its prefix, if any), else the app's root."""
    root = request.script_root  # "" or "/prefix" (no trailing slash)
    target = same_site_path(text)
    path = target.split("?", 1)[0]
    # A dot segment ("/prefix/../other", "%2e%2e" too) would climb out of the prefix.
    climbs = any(part in (".", "..") for part in unquote(path).split("/"))
    if not climbs and (path == root or path.startswith(root + "/")):
        return target
    return root + "/"


def _this_page_without_lang() -> str:
    """This page's address on the site, under the app's prefix (`request.script_root`), and
    its query less `lang` (the picker's choice must not be overridden by the query it came
    from)."""
    query = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    return request.script_root + request.path + ("?" + urlencode(query) if query else "")


@cache
def script_messages(package: str = "server") -> tuple[str | tuple[str, str], ...]:
    """Every message the scripts under `package`'s static/ mark (single-table mode's
    `server`, or `tournament`), as `make messages` extracts them."""
    found: dict[str | tuple[str, str], None] = {}
    for script in sorted(resources.files(package).joinpath("static").iterdir(), key=str):
        if not script.name.endswith(".js"):
            continue
        with script.open("rb") as file:
            for _line, function, message, _comments in extract_javascript(
                file, JS_KEYWORDS, [], {}
            ):
                # A call with more arguments (the placeholders' values) comes as a tuple,
                # None where an argument is not a string.
                parts = message if isinstance(message, tuple) else (message,)
                if function == "ngettext" and len(parts) >= 2 and parts[0] and parts[1]:
                    found[(parts[0], parts[1])] = None
                elif parts[0]:
                    found[parts[0]] = None
    return tuple(found)


def _plural_indexes(language: str, plural: Any) -> dict[str, int]:
    """CLDR plural category (what the browser's Intl.PluralRules names) -> the index of the
    catalogue's form for it (what the .po's Plural-Forms expression gives)."""
    rule = Locale.parse(language).plural_form
    indexes: dict[str, int] = {}
    for n in [*range(0, 201), 1_000_000]:
        indexes.setdefault(rule(n), int(plural(n)))
    return indexes


def js_messages() -> dict[str, Any]:
    """The page's script catalogue: `messages` (msgid -> text, or the plural forms in
    catalogue order) and `plurals` (CLDR category -> form index); empty in English, where
    the scripts' own text is shown."""
    language = page_language()
    if language == dominocam_i18n.DEFAULT_LANGUAGE:
        return {"language": language, "messages": {}, "plurals": {"one": 0, "other": 1}}
    return _script_catalogue(current_app.import_name, language, get_translations())


@cache
def _script_catalogue(package: str, language: str, translations: Any) -> dict[str, Any]:
    """The catalogue of `language` for the scripts of `package` (computed once: the compiled
    catalogues do not change while the server runs)."""
    plural = getattr(translations, "plural", lambda n: int(n != 1))
    indexes = _plural_indexes(language, plural)
    # The count that selects each form, asked of the catalogue's own plural expression.
    samples = {int(plural(n)): n for n in [*range(0, 201), 1_000_000]}
    messages: dict[str, Any] = {}
    for message in script_messages(package):
        if isinstance(message, tuple):
            singular, plural_id = message
            messages[singular] = [
                translations.ngettext(singular, plural_id, samples[i]) for i in sorted(samples)
            ]
        else:
            messages[message] = translations.gettext(message)
    return {"language": language, "messages": messages, "plurals": indexes}
