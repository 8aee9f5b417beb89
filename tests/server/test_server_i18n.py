"""Issue 19 point 8: the pages, the overlay, the rulings, the API's errors and the numbers in
English, Hungarian, Italian, Vietnamese and Spanish, through the real app: the language from
Accept-Language, the picker's cookie or `?lang=`, `<html lang>`, every page rendered in each
language, a ruling per language, and the scripts' catalogue complete."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from server_factories import ADMIN, ADMIN_TOKEN

from dominocam import server
from dominocam.i18n import use_language
from dominocam.rounds import wording
from dominocam.rules import phrases
from dominocam.server import i18n

REPO = Path(__file__).resolve().parents[2]
STATIC = Path(server.__file__).parent / "static"
TRANSLATED = ("hu", "it", "vi", "es")
CATALOGUE = re.compile(r'<script type="application/json" id="dc-messages">(.*?)</script>', re.S)

# A heading or label each page shows, as players of each language say it (domino words:
# kő, tessera, quân, ficha; "blocked" as trancado, bloccata, chặn, blokkolt).
WORDS = {
    "table": {"hu": "Blokkellenőrzés", "it": "Verifica del blocco", "vi": "Kiểm tra chặn",
              "es": "Comprobación del tranque"},
    "hand": {"hu": "A köveid", "it": "Le tue tessere", "vi": "Các quân của bạn",
             "es": "Tus fichas"},
    "setup": {"hu": "Játék létrehozása", "it": "Crea la partita", "vi": "Tạo trận",
              "es": "Crear partida"},
    "players": {"hu": "Játékoslinkek", "it": "Link dei giocatori", "vi": "Liên kết người chơi",
                "es": "Enlaces de jugadores"},
    "correct": {"hu": "Sorok és nyitott végek", "it": "Linee ed estremità aperte",
                "vi": "Các hàng và đầu mở", "es": "Líneas y puntas abiertas"},
    "overlay": {"hu": "Kövek a kézben", "it": "Tessere in mano", "vi": "Quân trên tay",
                "es": "Fichas en la mano"},
    "print": {"hu": "Vissza az asztalhoz", "it": "Torna al tavolo", "vi": "Quay lại bàn",
              "es": "Volver a la mesa"},
    "login": {"hu": "Bejelentkezés az asztal irányításához",
              "it": "Accedi per controllare il tavolo", "vi": "Đăng nhập để điều khiển bàn",
              "es": "Inicia sesión para controlar la mesa"},
    "first-run": {"hu": "Első indítás: válassz jelmondatot",
                  "it": "Primo avvio: scegli una frase segreta",
                  "vi": "Khởi động lần đầu: chọn cụm mật khẩu",
                  "es": "Primer arranque: elige una frase de acceso"},
    "error": {"hu": "nincs ilyen játék: 999", "it": "nessuna partita 999",
              "vi": "không có trận 999", "es": "no existe la partida 999"},
}  # fmt: skip
ENGLISH = {
    "table": "Block check", "hand": "Your tiles", "setup": "Create game",
    "players": "Player links", "correct": "Lines and open ends", "overlay": "Tiles in hand",
    "print": "Back to the table", "login": "Log in to control the table",
    "first-run": "First start: choose a passphrase", "error": "no game 999",
}  # fmt: skip


def _lang(html: str) -> str:
    found = re.search(r'<html lang="([\w-]+)"', html)
    assert found, html[:200]
    return found.group(1)


def _catalogue(html: str) -> dict:
    found = CATALOGUE.search(html)
    assert found, "the page carries no script catalogue"
    return json.loads(found.group(1))


def _paths(gid: int, token: str) -> dict[str, str]:
    return {
        "table": f"/games/{gid}",
        "hand": f"/hand/{token}",
        "setup": "/setup",
        "players": f"/games/{gid}/players",
        "correct": f"/games/{gid}/correct",
        "overlay": f"/overlay?game={gid}",
        "print": f"/games/{gid}/print",
        "login": "/login",
        "first-run": "/first-run",
        "error": "/games/999",
    }


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_every_page_is_rendered_in_the_language(make_app, language: str) -> None:
    client = make_app().test_client()
    r = client.post(
        "/api/games",
        json={"name": "Night", "variant": "block", "set": 6, "players": ["Ana", "Ben"]},
        headers=ADMIN,
    )
    gid = r.json["game"]["id"]
    token = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"][0]["token"]
    pages = _paths(gid, token)
    # The first-run page before logging in: it closes once the host is in (a session).
    first = client.get(pages.pop("first-run"), headers={"Accept-Language": language})
    assert _lang(first.get_data(as_text=True)) == language
    want = ENGLISH["first-run"] if language == "en" else WORDS["first-run"][language]
    assert want in first.get_data(as_text=True)
    assert client.post("/login", data={"token": ADMIN_TOKEN}).status_code == 302
    for page, path in pages.items():
        r = client.get(path, headers={"Accept-Language": language})
        html = r.get_data(as_text=True)
        assert r.status_code == (404 if page == "error" else 200), (page, r.status_code)
        assert _lang(html) == language, page
        want = ENGLISH[page] if language == "en" else WORDS[page][language]
        assert want in html, f"{page} in {language}: no {want!r}"
        if language != "en":
            assert ENGLISH[page] not in html, f"{page} in {language} still says {ENGLISH[page]!r}"
        if page != "error":
            assert _catalogue(html)["language"] == language, page


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("hu-HU,hu;q=0.9,en;q=0.5", "hu"),
        ("it", "it"),
        ("vi-VN", "vi"),
        ("de-DE,de;q=0.9,es;q=0.4", "es"),  # the best available, not the first asked
        ("fr-FR,de;q=0.8", "en"),  # none available: English
        ("", "en"),
    ],
)
def test_pages_follow_accept_language(client, game, header: str, language: str) -> None:
    headers = {"Accept-Language": header} if header else {}
    html = client.get(f"/games/{game['game']['id']}", headers=headers).get_data(as_text=True)
    assert _lang(html) == language


def test_the_picker_remembers_the_choice_in_a_cookie(client, game) -> None:
    gid = game["game"]["id"]
    page = client.get(f"/games/{gid}", headers={"Accept-Language": "hu"}).get_data(as_text=True)
    # One small form on every page: each language named in its own words, the shown one picked.
    picker = re.search(r'<form method="post" action="/language".*?</form>', page, re.S)
    assert picker and 'name="lang"' in picker.group(0)
    for name in ("English", "magyar", "italiano", "Tiếng Việt", "español"):
        assert name in picker.group(0)
    assert '<option value="hu" lang="hu" selected>' in picker.group(0)
    # Without scripts the form has its button (common.js sends it on change instead).
    assert re.search(r'<noscript><button type="submit"[^>]*>Nyelv váltása<', picker.group(0))
    assert f'name="next" value="/games/{gid}"' in picker.group(0)

    r = client.post("/language", data={"lang": "it", "next": f"/games/{gid}?x=1"})
    assert r.status_code == 303 and r.headers["Location"] == f"/games/{gid}?x=1"
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(f"{i18n.COOKIE}=it;") and "SameSite=Lax" in cookie
    # The cookie beats the browser's language, `?lang=` beats the cookie.
    html = client.get(f"/games/{gid}", headers={"Accept-Language": "hu"}).get_data(as_text=True)
    assert _lang(html) == "it" and "Verifica del blocco" in html
    assert _lang(client.get(f"/games/{gid}?lang=vi").get_data(as_text=True)) == "vi"
    # An unknown choice forgets it: Accept-Language decides again.
    r = client.post("/language", data={"lang": "xx", "next": "/"})
    assert r.status_code == 303 and f"{i18n.COOKIE}=;" in r.headers["Set-Cookie"]
    html = client.get(f"/games/{gid}", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert _lang(html) == "es"


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "evil", ""])
def test_the_picker_goes_back_to_this_site_only(client, target: str) -> None:
    r = client.post("/language", data={"lang": "es", "next": target})
    assert r.status_code == 303 and r.headers["Location"] == "/"


PREFIX = {"SCRIPT_NAME": "/prefix"}  # a reverse proxy that mounts the app under /prefix


def test_the_picker_stays_under_a_proxys_prefix(client, game) -> None:
    """Behind a proxy that mounts the app under /prefix (WSGI `SCRIPT_NAME`), the picker
    posted to /language and went back to /games/1: both outside the app."""
    gid = game["game"]["id"]
    page = client.get(f"/games/{gid}?x=1&lang=hu", environ_overrides=PREFIX)
    picker = re.search(r'<form method="post" action="/prefix/language".*?</form>',
                       page.get_data(as_text=True), re.S)  # fmt: skip
    assert picker, "the picker does not post under the prefix"
    assert f'name="next" value="/prefix/games/{gid}?x=1"' in picker.group(0)
    r = client.post("/language", data={"lang": "it", "next": f"/prefix/games/{gid}?x=1"},
                    environ_overrides=PREFIX)  # fmt: skip
    assert r.status_code == 303 and r.headers["Location"] == f"/prefix/games/{gid}?x=1"
    assert r.headers["Set-Cookie"].startswith(f"{i18n.COOKIE}=it;")


@pytest.mark.parametrize(
    "target",
    ["//evil.example/x", "https://evil.example/", "/\\evil.example", "evil", "", "/games/1",
     "/prefixed/games/1", "/prefix/../games/1", "/prefix/%2e%2e/x"],
)  # fmt: skip
def test_under_a_prefix_the_picker_goes_back_into_the_app_only(client, target: str) -> None:
    """A `next` off the site, or on it but outside the app's prefix, goes to the app's root."""
    r = client.post("/language", data={"lang": "es", "next": target}, environ_overrides=PREFIX)
    assert r.status_code == 303 and r.headers["Location"] == "/prefix/"


def test_the_picker_drops_lang_from_the_page_it_returns_to(client, game) -> None:
    gid = game["game"]["id"]
    html = client.get(f"/overlay?game={gid}&lang=it&corner=tl").get_data(as_text=True)
    assert _lang(html) == "it"  # OBS has no picker: the overlay follows ?lang=
    page = client.get(f"/games/{gid}/print?lang=vi").get_data(as_text=True)
    assert f'name="next" value="/games/{gid}/print"' in page


# --- a ruling per language --------------------------------------------------------------------

HANDS = {"Ana": [[1, 2]], "Ben": [[3, 3]], "Caro": [[4, 5]], "Dev": [[6, 6]]}
BLOCKED = {  # the print view: how the round ended, and the winner
    "en": ("blocked game", "winner Ana"),
    "hu": ("blokkolt játszma", "győztes: Ana"),
    "it": ("partita bloccata", "vincitore Ana"),
    "vi": ("ván bị chặn", "người thắng Ana"),
    "es": ("tranque", "ganador Ana"),
}
# The block check's result as the table and phone pages write it.
RESULT = "Blocked: confirmed by every player. The round is over."
RESULTS = {
    "hu": "Blokkolt: minden játékos megerősítette. A leosztásnak vége.",
    "it": "Bloccata: confermato da ogni giocatore. La manche è finita.",
    "vi": "Bị chặn: mọi người chơi đã xác nhận. Ván đã kết thúc.",
    "es": "Trancado: confirmado por todos los jugadores. La ronda ha terminado.",
}
MISSING_HANDS = {
    "en": "no confirmed hand yet for Ana, Ben, Caro, Dev",
    "hu": "még nincs megerősített kéz: Ana, Ben, Caro, Dev",
    "it": "ancora nessuna mano confermata per Ana, Ben, Caro, Dev",
    "vi": "chưa có bài đã xác nhận của Ana, Ben, Caro, Dev",
    "es": "todavía no hay mano confirmada de Ana, Ben, Caro, Dev",
}
FINISHED = {
    "en": "Finished: the table ended it after 1 round. Ana wins with the highest total",
    "hu": "Vége: az asztal 1 leosztás után befejezte. Ana nyer a legnagyobb összeggel",
    "it": "Finita: il tavolo l'ha chiusa dopo 1 manche. Vince Ana con il totale più alto",
    "vi": "Kết thúc: bàn đã kết thúc sau 1 ván. Ana thắng với tổng cao nhất",
    "es": "Terminada: la mesa la terminó tras 1 ronda. Gana Ana con el total más alto",
}


def _block(client, gid: int, links: dict[str, str], language: str) -> dict:
    headers = {**ADMIN, "Accept-Language": language}
    layout = {"lines": [{"name": "main", "open_end": 0}, {"name": "side", "open_end": 0}]}
    r = client.put(
        f"/api/games/{gid}/rounds/current/layout", json={**layout, "boneyard": 0}, headers=headers
    )
    assert r.status_code == 200, r.json
    for name, tiles in HANDS.items():
        assert (
            client.put(f"/api/hand/{links[name]}/tiles", json={"tiles": tiles}).status_code == 200
        )
    r = client.post(
        f"/api/games/{gid}/rounds/current/block-check",
        json={"proposer": "Ana", "confirm": True},
        headers=headers,
    )
    assert r.status_code == 200, r.json
    return r.json


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_a_ruling_in_each_language(client, game, links, language: str) -> None:
    gid = game["game"]["id"]
    headers = {"Accept-Language": language}
    r = client.post(
        f"/api/games/{gid}/rounds/current/block-check",
        json={"proposer": "Ana"},
        headers={**ADMIN, **headers},
    )
    assert r.status_code == 409 and MISSING_HANDS[language] in r.json["error"]
    outcome = _block(client, gid, links, language)
    # Machine fields are never translated, and the stored verdict stays English.
    assert outcome["outcome"]["blocked"] is True and set(outcome["state"]["round"]) >= {"status"}
    assert outcome["state"]["round"]["ended_by"] == "block"
    html = client.get(f"/games/{gid}/print", headers=headers).get_data(as_text=True)
    how, winner = BLOCKED[language]
    assert how in html and winner in html, html
    page = client.get(f"/games/{gid}", headers=headers).get_data(as_text=True)
    if language != "en":  # the page's script writes the result from its catalogue
        assert _catalogue(page)["messages"][RESULT] == RESULTS[language]
    assert client.post(f"/api/games/{gid}/finish", headers=ADMIN).status_code == 200
    final = client.get(f"/api/state?game={gid}", headers=headers).json["scoreboard"]["final"]
    assert final["text"].startswith(FINISHED[language]), final["text"]
    assert final["winners"] == ["Ana"]


def test_the_live_stream_speaks_the_listeners_language(client, game) -> None:
    gid = game["game"]["id"]
    assert client.post(f"/api/games/{gid}/finish", headers=ADMIN).status_code == 200
    texts = {}
    for language in ("en", "es"):
        r = client.get(f"/api/events?game={gid}&max_s=0.05", headers={"Accept-Language": language})
        body = r.get_data(as_text=True)
        state = json.loads(
            next(line[6:] for line in body.splitlines() if line.startswith("data: {"))
        )
        texts[language] = state["scoreboard"]["final"]["text"]
    assert texts["en"].startswith("Finished: the table ended it after 0 rounds")
    assert texts["es"].startswith("Terminada: la mesa la terminó tras 0 rondas")


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "list 2 to 10 players in clockwise seat order"),
        ("it", "elenca da 2 a 10 giocatori nell'ordine dei posti in senso orario"),
        ("hu", "adj meg 2–10 játékost az óramutató járása szerinti ülésrendben"),
        ("vi", "hãy liệt kê 2 đến 10 người chơi theo thứ tự chỗ ngồi chiều kim đồng hồ"),
        ("es", "indica de 2 a 10 jugadores en el orden de los asientos"),
    ],
)
def test_api_errors_come_in_the_request_language(client, language: str, message: str) -> None:
    r = client.post(
        "/api/games",
        json={"variant": "block", "players": ["Ana"]},
        headers={**ADMIN, "Accept-Language": language},
    )
    assert r.status_code == 400 and message in r.json["error"], r.json
    assert r.json["status"] == 400  # machine fields stay as they are
    assert (r.json["code"], r.json["params"]) == ("bad_players", {"max_players": 10})
    r = client.get("/api/nope", headers={"Accept-Language": language})
    assert r.status_code == 404 and set(r.json) == {"error", "status", "code", "params"}


def test_numbers_are_written_per_locale_on_pages_not_in_exports(client, game, links) -> None:
    gid = game["game"]["id"]
    _block(client, gid, links, "en")
    r = client.patch(
        f"/api/games/{gid}/rounds/1/score",
        json={"points": {"Ana": 12345}, "reason": "test"},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.json
    pages = {lang: client.get(f"/games/{gid}/print", headers={"Accept-Language": lang})
             for lang in ("en", "it", "hu")}  # fmt: skip
    for language, total in (("en", "12,345"), ("it", "12.345"), ("hu", "12\u00a0345")):
        html = pages[language].get_data(as_text=True)
        assert re.search(f'data-total="Ana"[^>]*>{total}<', html), language
        assert f"<td>{total}</td>" in html  # the round's points and the history too
    csv_text = client.get(
        f"/api/games/{gid}/export.csv", headers={**ADMIN, "Accept-Language": "it"}
    ).get_data(as_text=True)
    assert ",12345" in csv_text and "12.345" not in csv_text
    exported = client.get(
        f"/api/games/{gid}/export.json", headers={**ADMIN, "Accept-Language": "hu"}
    )
    assert exported.json["scoreboard"]["totals"]["Ana"] == 12345


# --- the scripts' strings -----------------------------------------------------------------------


def test_every_script_string_reaches_the_catalogue() -> None:
    """pybabel's JavaScript extractor skips a `_()` nested in another call's arguments: every
    string the scripts pass to `_` or `ngettext` must be extracted, or it stays English."""
    with (REPO / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    extracted: set[str] = set()
    for name, _l, message, _c, _x in extract_from_dir(str(REPO), method_map, options_map):
        if name.startswith("server/static/"):
            extracted.update(message if isinstance(message, tuple) else (message,))
    missing = []
    for script in sorted(STATIC.glob("*.js")):
        source = script.read_text()
        source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)  # comments quote examples
        for call in re.finditer(r'(?<![\w.])(?:_|ngettext)\("((?:[^"\\]|\\.)*)"', source):
            text = json.loads(f'"{call.group(1)}"')
            if text not in extracted:
                missing.append(f"{script.name}: {text!r}")
    assert not missing, missing
    assert len(i18n.script_messages()) > 150


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_script_catalogue_translates_every_script_string(client, language: str) -> None:
    catalogue = _catalogue(
        client.get("/login", headers={"Accept-Language": language}).get_data(as_text=True)
    )
    messages = catalogue["messages"]
    for message in i18n.script_messages():
        key = message[0] if isinstance(message, tuple) else message
        value = messages[key]
        forms = value if isinstance(value, list) else [value]
        assert all(isinstance(f, str) and f for f in forms), f"{language}: {key!r} missing"
    assert messages[RESULT] == RESULTS[language]
    assert catalogue["plurals"]["one"] == 0 and "other" in catalogue["plurals"]


# --- in a real browser: the scripts look their words up -------------------------------------

# (the `browser` fixture: tests/conftest.py)


@pytest.mark.slow
def test_the_scripts_write_in_the_pages_language(make_app, browser) -> None:
    """The table page in Hungarian (the browser's language), the phone page in Spanish, the
    overlay in Vietnamese (`?lang=`), and the picker switching the table to Italian: what the
    scripts write comes from each page's catalogue, with no script error."""
    from playwright.sync_api import expect
    from server_factories import ThreadedServer, fake_scene

    app = make_app(SCENE_PROVIDER=fake_scene)
    client = app.test_client()
    r = client.post(
        "/api/games",
        json={"name": "Night", "variant": "block", "set": 6, "players": list(HANDS)},
        headers=ADMIN,
    )
    gid = r.json["game"]["id"]
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    links = {p["name"]: p["token"] for p in players}
    _block(client, gid, links, "en")
    server = ThreadedServer(app)
    errors: list[str] = []
    try:
        table = browser.new_context(locale="hu-HU").new_page()
        table.on("pageerror", lambda error: errors.append(str(error)))
        table.goto(f"{server.url}/games/{gid}")
        expect(table.locator("html")).to_have_attribute("lang", "hu")
        expect(table.locator("#block-result")).to_have_text(RESULTS["hu"], timeout=10000)
        expect(table.locator("#winner")).to_contain_text("Győztes: Ana")
        expect(table.locator("#scoreboard-table th").first).to_have_text("Leosztás")
        expect(table.locator("#connection")).to_contain_text("frissítések:")

        phone = browser.new_context(locale="es-ES").new_page()
        phone.on("pageerror", lambda error: errors.append(str(error)))
        phone.goto(f"{server.url}/hand/{links['Caro']}")
        expect(phone.locator("html")).to_have_attribute("lang", "es")
        expect(phone.locator("#block-title")).to_have_text("Resultado de la ronda")
        expect(phone.locator("#reveal")).to_contain_text("Caro: 4-5 = 9 puntos")

        overlay = browser.new_context().new_page()
        overlay.on("pageerror", lambda error: errors.append(str(error)))
        overlay.goto(f"{server.url}/overlay?game={gid}&lang=vi")
        expect(overlay.locator("#scores-label")).to_have_text("Ván 1 · đã xong · bảng điểm")
        expect(overlay.locator("#round-result")).to_have_text("Người thắng: Ana")

        table.select_option("#language-form select", "it")
        expect(table.locator("html")).to_have_attribute("lang", "it")
        expect(table.locator("#block-result")).to_have_text(RESULTS["it"], timeout=10000)
        table.reload()
        expect(table.locator("html")).to_have_attribute("lang", "it")  # the cookie stays
    finally:
        server.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("language", "label", "title"),
    [
        ("en", "Who wins a blocked round", "Block"),
        ("it", "Chi vince una manche bloccata", "Blocco"),
        ("es", "Quién gana una ronda trancada", "Bloqueo"),
    ],
)
def test_the_setup_names_settings_in_the_language(client, language, label, title) -> None:
    data = client.get("/api/variants", headers={"Accept-Language": language}).json
    assert data["schema"]["block_winner"]["label"] == label
    assert data["info"]["block"]["title"] == title
    # The values a setting takes are the engine's codes: never translated.
    assert "lowest-hand" in data["schema"]["block_winner"]["choices"]
    assert data["settings"]["block"]["block_winner"] == "lowest-hand"


def test_the_audit_trail_and_the_lock_are_shown_in_the_language(client, game, links) -> None:
    gid = game["game"]["id"]
    _block(client, gid, links, "en")
    state = client.get(f"/api/state?game={gid}", headers={"Accept-Language": "it"}).json
    lock = next(e for e in state["audit"] if e["action"] == "lock")
    assert lock["text"] == "hands locked: Ana proposed a block"  # stored as it happened
    assert lock["shown"] == "mani fissate: Ana ha proposto il blocco"
    r = client.post(f"/api/games/{gid}/rounds/reopen", json={"reason": "x"}, headers=ADMIN)
    assert r.status_code == 200, r.json
    state = client.get(f"/api/state?game={gid}", headers={"Accept-Language": "es"}).json
    assert state["round"]["locked"]["by_shown"] == "Ana propuso el tranque"
    reopened = next(e for e in state["audit"] if e["action"] == "reopen")
    assert reopened["shown"].startswith("el anfitrión reabrió la ronda 1 (sus puntos Ana ")


@pytest.mark.parametrize("template", wording.ALL)
def test_each_audit_template_is_stored_with_its_code_and_translated(template) -> None:
    fields = re.findall(r"\{(\w+)\}", template)
    values = {name: f"V{i}" for i, name in enumerate(dict.fromkeys(fields))}
    if "text" in values:
        values["text"] = wording.PROPOSED_A_BLOCK.format(name="Ana")
    text = template.format(**values)
    stored = json.loads(json.dumps(phrases.to_json(text)))
    assert stored["code"] == template.code
    for language in TRANSLATED:
        with use_language(language):
            shown = phrases.said(str(text), stored)
        assert shown != text, f"{language}: {text}"
        assert all(v in shown for k, v in values.items() if k != "text"), (language, shown)
