"""The phone page once the hands are locked (issue 33, item 4): its controls stay in place,
look disabled and say why; a block check that stops leaves them as they were.

Headless Debian chromium driven by Playwright, a 390x844 phone, against the event's web app
served by the web process's own server (`served`) on real Redis and PostgreSQL.
"""

from __future__ import annotations

import pytest
from tournament_factories import bearer

pytest.importorskip("waitress", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = [pytest.mark.tournament, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
TIMEOUT_MS = 20000
TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}
CONTROLS = ("#save", "#tiles", "#photo", "#propose", "#domino", "#declare")


def test_locked_controls_look_disabled_and_say_why(browser, make_event, served) -> None:
    from playwright.sync_api import expect

    _, tokens = make_event(tables=1)
    url, client = served(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": TABLE}, headers=host).status_code == 200
    )
    for name, tiles in (("P1", [[0, 1]]), ("P2", [[4, 6], [2, 3]])):
        saved = client.put("/api/hand", json={"tiles": tiles}, headers=bearer(p[name]))
        assert saved.status_code == 200
    expect.set_options(timeout=TIMEOUT_MS)
    phone = browser.new_context(**PHONE).new_page()
    phone.set_default_timeout(TIMEOUT_MS)
    phone.goto(f"{url}/hand/{p['P1']}")
    expect(phone.locator("#title")).to_contain_text("P1")

    # P2's proposal stops (P2 can play 4-6): nothing locks, P1's page plays on.
    stopped = client.post("/api/hand/propose", headers=bearer(p["P2"]))
    assert stopped.status_code == 200 and not stopped.get_json()["held"]
    phone.reload()
    expect(phone.locator("#again")).to_be_visible()  # play went on: confirm it again
    for control in CONTROLS:
        expect(phone.locator(control)).to_be_enabled()
    expect(phone.locator("#save-why")).to_be_hidden()

    # P2 played 4-6; both confirm; P2's next proposal is held for the host: that locks.
    assert (
        client.put("/api/hand", json={"tiles": [[2, 3]]}, headers=bearer(p["P2"])).status_code
        == 200
    )
    phone.click("#confirm-again")
    expect(phone.locator("#message")).to_contain_text("Confirmed again")
    held = client.post("/api/hand/propose", headers=bearer(p["P2"]))
    assert held.status_code == 200 and held.get_json()["held"], held.get_json()
    phone.reload()
    why = "Your hand is locked (P2 proposed a block): only the table host changes a hand now."
    expect(phone.locator("#save-why")).to_have_text(why)
    expect(phone.locator("#actions-why")).to_have_text(why)
    for control in CONTROLS:
        expect(phone.locator(control)).to_be_disabled()
    for control in ("#save", "#propose", "#photo-label"):
        expect(phone.locator(control)).to_be_visible()  # in place, not hidden
        opacity = phone.locator(control).evaluate("e => Number(getComputedStyle(e).opacity)")
        assert opacity < 0.6, (control, opacity)
    width = phone.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, width

    # The round scored: it has ended, and the page says so beside the controls.
    scored = client.post("/api/tables/t1/rounds/current/score", headers=host)
    assert scored.status_code == 200 and scored.get_json()["ended"], scored.get_json()
    phone.reload()
    expect(phone.locator("#title")).to_contain_text("round 2")
    for control in CONTROLS:
        expect(phone.locator(control)).to_be_enabled()


def test_the_host_page_shows_tiles_typed_over_a_reading(browser, make_event, served, db) -> None:
    """Issue 33, item 2: the table host's page shows, beside the seat, the tiles a player
    typed instead of the photo's reading; the player's own page does not."""
    from playwright.sync_api import expect

    from dominocam.tournament import rounds, store

    _, tokens = make_event(tables=1)
    url, client = served(tokens.event_id)
    player = store.seat_player(db, tokens.event_id, "t1", 1)
    assert rounds.store_pending_reading(db, tokens.event_id, player, [[3, 4], [3, 6]], {})
    me = bearer(tokens.players["P1"])
    assert client.put("/api/hand", json={"tiles": [[0, 1], [0, 0]]}, headers=me).status_code == 200
    expect.set_options(timeout=TIMEOUT_MS)
    page = browser.new_context(**PHONE).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{url}/host/{tokens.hosts['t1']}")
    expect(page.locator("#seat-1 .replaced")).to_have_text(
        "P1 typed 0-1 0-0 instead of the photo's reading 3-4 3-6."
    )
    expect(page.locator("#seat-2 .replaced")).to_be_hidden()
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{url}/hand/{tokens.players['P1']}")
    expect(phone.locator("#hand")).to_have_text("Saved: 0-1 0-0")
    assert "3-4" not in phone.content() and "instead of" not in phone.content()
