"""The host fixes a locked hand from the correction screen on a phone after reopening a
round (issue 33, item 6): a reason field beside each hand, and a missing reason said next to
that hand in the host's words (and language), never the API's wording under the table photo.

Headless Debian chromium driven by Playwright (`scripts/install-browser.sh`).
"""

from __future__ import annotations

import pytest
from server_factories import ADMIN, ADMIN_TOKEN, ThreadedServer
from test_server_hand_fix import reopened_round

from dominocam.server import storage

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
TIMEOUT_MS = 15000


def _logged_in(browser, server, gid: int, locale: str = "en-GB"):
    page = browser.new_context(**PHONE, locale=locale).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{server.url}/login?next=/games/{gid}/correct")
    page.fill("input[name=token]", ADMIN_TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"**/games/{gid}/correct")
    return page


@pytest.mark.slow
def test_the_host_fixes_a_locked_hand_after_reopening_on_a_phone(browser, app, client, game,
                                                                 links) -> None:  # fmt: skip
    from playwright.sync_api import expect

    gid = game["game"]["id"]
    reopened_round(client, gid, links)
    server = ThreadedServer(app)
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        page = _logged_in(browser, server, gid)
        expect(page.locator("#hands-locked")).to_be_visible()
        expect(page.locator("#hands-locked")).to_contain_text("a change needs a reason")
        dev = page.locator("form.hand-fix[data-player=Dev]")
        expect(dev.locator(".hand-now")).to_have_text("Now: 0-2 1-6")
        expect(dev.locator(".reason-text")).to_have_text("Reason (needed: kept in the audit trail)")
        dev.locator(".hand-tiles").fill("0-2 1-4")
        dev.locator("button[type=submit]").click()
        message = dev.locator(".hand-msg")
        expect(message).to_have_text(
            "The hands are locked: write why you change Dev's hand (kept in the audit "
            "trail), then save again."
        )
        assert "send" not in message.inner_text() and page.locator("#msg").inner_text() == ""
        dev.locator(".hand-reason").fill("1-6 was a 1-4")
        dev.locator("button[type=submit]").click()
        expect(message).to_have_text("Dev: 2 tiles saved.")
        expect(dev.locator(".hand-now")).to_have_text("Now: 0-2 1-4")
        # A hand the server refuses (a tile twice): said beside that hand too.
        ben = page.locator("form.hand-fix[data-player=Ben]")
        ben.locator(".hand-tiles").fill("1-1 1-1")
        ben.locator(".hand-reason").fill("typo")
        ben.locator("button[type=submit]").click()
        expect(ben.locator(".hand-msg")).to_have_class("hand-msg error")
        expect(message).to_have_text("Dev: 2 tiles saved.")
        # Everything fits the phone's width.
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 390, width

        # In the host's language.
        es = _logged_in(browser, server, gid, locale="es-ES")
        caro = es.locator("form.hand-fix[data-player=Caro]")
        caro.locator(".hand-tiles").fill("2-4")
        caro.locator("button[type=submit]").click()
        expect(caro.locator(".hand-msg")).to_contain_text("Caro")  # the server has answered
        text = caro.locator(".hand-msg").inner_text()
        assert "The hands are locked" not in text, text
    finally:
        server.close()
    conn = storage.connect(app.config["DATABASE"])
    try:
        rows = conn.execute("SELECT reason FROM audit WHERE action = 'hand'").fetchall()
    finally:
        conn.close()
    assert [r["reason"] for r in rows] == ["1-6 was a 1-4"]
    r = client.get(f"/api/games/{gid}/rounds/current/hands/{_pid(client, gid, 'Caro')}",
                   headers=ADMIN)  # fmt: skip
    assert r.json["tiles"] == [[2, 4], [4, 4]]


def _pid(client, gid: int, name: str) -> int:
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    return next(p["id"] for p in players if p["name"] == name)
