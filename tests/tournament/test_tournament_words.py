"""Tournament mode in the player's language (issue 34): every page of the event (standings,
the two overlays, the phone hand page, the host page, the director page) and the words its
scripts write come from the product's catalogues in the language chosen as in single-table
mode (`?lang=`, the picker's cookie, Accept-Language), and so do the API's words the pages
show: a lock's reason, a held ruling, the audit trail, the table's stream, errors.

Real services (Redis, PostgreSQL) through the event's web app (Flask test client).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urljoin

import pytest
from page_words import SAME_ALLOWED, english_in, visible
from tournament_factories import bearer, event_data

from dominocam.i18n import use_language
from dominocam.rules import phrases
from dominocam.server import i18n

pytestmark = pytest.mark.tournament

TRANSLATED = ("hu", "it", "vi", "es")
TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}
# A word each language's phone page shows (its title, "My hand").
MY_HAND = {"hu": "A kezem", "it": "La mia mano", "vi": "Bài của tôi", "es": "Mi mano"}


def _event(make_event: Any) -> Any:
    """An event whose names are no English words (a table named "Table 1" would be one)."""
    data = event_data(tables=2)
    for number, table in enumerate(data["tables"], start=1):
        table["name"] = f"T-{number}"
    return make_event(data)


def _pages(tokens: Any) -> dict[str, str]:
    return {
        "standings": "/",
        "event overlay": "/overlay",
        "table overlay": "/tables/t1/overlay",
        "phone": f"/hand/{tokens.players['P1']}",
        "host": f"/host/{tokens.hosts['t1']}",
        "director": f"/director/{tokens.admin}",
    }


def _script_catalogue(html: str) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="dc-messages">(.*?)</script>', html, re.S
    )
    assert found, "the page carries no script catalogue"
    return json.loads(found.group(1))


def _held_proposal(client: Any, tokens: Any) -> None:
    """P1 and P2 confirm their hands at t1; P2's proposal is held for the host (hands lock)."""
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": TABLE}, headers=host).status_code == 200
    )
    for name, tiles in (("P1", [[0, 1]]), ("P2", [[2, 3]])):
        saved = client.put("/api/hand", json={"tiles": tiles}, headers=bearer(p[name]))
        assert saved.status_code == 200, saved.get_json()


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_page_speaks_the_language_and_no_english_word(make_event, web, language) -> None:
    """Today's failure: every page is English (`<html lang="en">`, "My hand", "Standings")."""
    _, tokens = _event(make_event)
    client = web(tokens.event_id)
    problems = []
    for page, path in _pages(tokens).items():
        answer = client.get(path, headers={"Accept-Language": language})
        assert answer.status_code == 200, (page, answer.status_code)
        html = answer.get_data(as_text=True)
        assert f'<html lang="{language}"' in html, page
        if english := english_in(visible(html)):
            problems.append(f"{page}: English {english}")
        # The scripts' words: every one the page's script catalogue holds is translated.
        catalogue = _script_catalogue(html)
        assert catalogue["language"] == language
        for msgid, text in catalogue["messages"].items():
            forms = text if isinstance(text, list) else [text]
            letters = re.sub(r"\{[^{}]*\}|[\W\d_]", "", msgid)
            if letters and msgid in forms and msgid not in SAME_ALLOWED[language]:
                problems.append(f"{page}: script message {msgid!r} in English")
    assert not problems, "\n".join(problems)
    phone = client.get(_pages(tokens)["phone"], headers={"Accept-Language": language})
    assert MY_HAND[language] in phone.get_data(as_text=True)


def test_the_scripts_words_are_in_the_page_catalogue(make_event, web) -> None:
    """Every string the event's scripts mark (`_()`, `ngettext()`) reaches their pages, so a
    script never falls back to English for want of it (host.js's ledger summary among them)."""
    _, tokens = _event(make_event)
    client = web(tokens.event_id)
    html = client.get(f"/host/{tokens.hosts['t1']}?lang=it").get_data(as_text=True)
    messages = _script_catalogue(html)["messages"]
    marked = i18n.script_messages("tournament")
    assert "All {count} tiles accounted for." in marked
    for message in marked:
        key = message[0] if isinstance(message, tuple) else message
        assert key in messages, key
    assert (
        messages["All {count} tiles accounted for."]
        == "Tutte le {count} tessere sono al loro posto."
    )


def test_the_language_is_chosen_as_in_single_table_mode(make_event, web) -> None:
    """`?lang=` first, then the picker's cookie, then Accept-Language, else English."""
    _, tokens = _event(make_event)
    client = web(tokens.event_id)
    path = _pages(tokens)["phone"]

    def lang(answer: Any) -> str:
        return re.search(r'<html lang="(\w+)"', answer.get_data(as_text=True)).group(1)

    assert lang(client.get(path)) == "en"
    assert lang(client.get(path, headers={"Accept-Language": "de, es;q=0.4"})) == "es"
    picked = client.post("/language", data={"lang": "vi", "next": path})
    assert picked.status_code == 303 and picked.headers["Location"].endswith(path)
    assert lang(client.get(path, headers={"Accept-Language": "es"})) == "vi"
    assert lang(client.get(path + "?lang=hu", headers={"Accept-Language": "es"})) == "hu"
    # The picker is on the page, in the page's language; the overlays (OBS) take `?lang=`.
    html = client.get(path).get_data(as_text=True)
    assert 'id="language-form"' in html and 'aria-label="Ngôn ngữ"' in html
    overlay = client.get("/tables/t1/overlay?lang=it").get_data(as_text=True)
    assert 'id="language-form"' not in overlay and '<html lang="it"' in overlay


def test_the_picker_stays_under_a_proxys_prefix(make_event, web) -> None:
    """Behind a proxy that mounts the event under /prefix (WSGI `SCRIPT_NAME`), the picker's
    `next` was the page's path without the prefix: choosing a language left the event."""
    _, tokens = _event(make_event)
    client = web(tokens.event_id)
    prefix = {"SCRIPT_NAME": "/prefix"}
    path = _pages(tokens)["host"]
    html = client.get(path, environ_overrides=prefix).get_data(as_text=True)
    picker = re.search(r'<form method="post" action="([^"]*)language".*?</form>', html, re.S)
    assert picker and f'name="next" value="/prefix{path}"' in picker.group(0)
    # The form's address is relative to the page: it resolves under the prefix.
    assert urljoin(f"http://event.example/prefix{path}", picker.group(1) + "language") == (
        "http://event.example/prefix/language"
    )
    picked = client.post("/language", data={"lang": "vi", "next": f"/prefix{path}"},
                         environ_overrides=prefix)  # fmt: skip
    assert picked.status_code == 303 and picked.headers["Location"] == f"/prefix{path}"
    for target in ("//evil.example/x", path, "/prefix/../x"):
        gone = client.post("/language", data={"lang": "vi", "next": target},
                           environ_overrides=prefix)  # fmt: skip
        assert gone.headers["Location"] == "/prefix/", target


def test_the_api_words_come_in_the_requested_language(make_event, web) -> None:
    """A held proposal: the lock's reason, the held ruling, the audit trail and the table's
    stream come in the request's language beside the stored English; so do errors.
    Today's failure: no `locked_shown` nor `pending_shown`, and the errors are English."""
    _, tokens = _event(make_event)
    client = web(tokens.event_id)
    p = tokens.players
    _held_proposal(client, tokens)
    held = client.post("/api/hand/propose?lang=es", headers=bearer(p["P2"]))
    assert held.status_code == 200 and held.get_json()["held"], held.get_json()
    pending = held.get_json()["pending"]
    with use_language("es"):
        assert (
            pending["shown"] == phrases.said(pending["text"], pending["words"]) != pending["text"]
        )
    assert pending["text"].startswith("Blocked: every player confirmed P2's block")

    hand = client.get("/api/hand?lang=hu", headers=bearer(p["P1"])).get_json()
    assert hand["locked"] == "P2 proposed a block"  # stored as written
    assert hand["locked_shown"] == "P2 blokkot jelentett"

    table = client.get("/api/tables/t1", headers={"Accept-Language": "it"}).get_json()
    current = table["rounds"][-1]
    assert current["locked_shown"] == "P2 ha proposto il blocco"
    with use_language("it"):
        shown = phrases.said(current["pending"], current["pending_words"])
        assert current["pending_shown"] == shown != current["pending"]

    audit = client.get("/api/tables/t1/audit?lang=vi").get_json()["audit"]
    assert any(e["shown"] != e["text"] and "P2" in e["shown"] for e in audit), audit

    # The table's stream (the overlay's): its first `table` event in the stream's language.
    stream = client.get("/api/tables/t1/events?lang=hu", buffered=False)
    try:
        first = next(iter(stream.response))
    finally:
        stream.close()
    state = json.loads(first.decode().split("data: ", 1)[1])
    assert state["rounds"][-1]["locked_shown"] == "P2 blokkot jelentett"

    # Errors: a wrong token, a locked hand, an unknown table.
    wrong = client.get("/api/hand?lang=it", headers=bearer("1.nope"))
    assert wrong.status_code == 403
    assert wrong.get_json()["error"] == "questo token non è valido per il torneo"
    unknown = client.get("/api/tables/nope?lang=es")
    assert unknown.status_code == 404
    assert unknown.get_json()["error"] == "no hay ninguna mesa 'nope' en este torneo"
    english = client.get("/api/tables/nope")
    assert english.get_json()["error"] == "no table 'nope' in this event"
