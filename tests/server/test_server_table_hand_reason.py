"""The host enters a locked hand from the table page (issue 33, item 6): the refusal without
a reason is worded for a host, not as the API's "send 'reason'", and the table page's own
hand form has a reason field once the hands are locked."""

from __future__ import annotations

import pytest
from server_factories import ADMIN, ADMIN_TOKEN, ThreadedServer
from test_server_hand_fix import reopened_round

from dominocam.server import storage

HOST_WORDS = "The hands are locked: give a reason for the change (it is kept in the audit trail)."
TIMEOUT_MS = 15000


def _pid(client, gid: int, name: str) -> int:
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    return next(p["id"] for p in players if p["name"] == name)


def test_a_locked_hand_without_a_reason_is_refused_in_a_hosts_words(client, game, links) -> None:
    gid = game["game"]["id"]
    reopened_round(client, gid, links)
    url = f"/api/games/{gid}/rounds/current/hands/{_pid(client, gid, 'Dev')}"
    r = client.put(url, json={"tiles": [[0, 2]]}, headers=ADMIN)
    # Still a 400 for a request without 'reason'; the words are the host's.
    assert r.status_code == 400 and r.json["error"] == HOST_WORDS  # today: "... send 'reason'"
    r = client.put(url, json={"tiles": [[0, 2]]}, headers={**ADMIN, "Accept-Language": "it"})
    assert r.status_code == 400 and "send" not in r.json["error"]
    assert r.json["error"] != HOST_WORDS and "fissate" in r.json["error"]
    assert client.get(url, headers=ADMIN).json["tiles"] == [[0, 2], [1, 6]]


def test_the_table_pages_hand_form_has_a_reason_field(client, game) -> None:
    page = client.get(f"/games/{game['game']['id']}", headers=ADMIN).get_data(as_text=True)
    form = page[page.index('id="hand-form"') : page.index("</form>", page.index('id="hand-form"'))]
    assert 'id="hand-reason"' in form  # today: tiles only


@pytest.mark.slow
def test_the_host_enters_a_locked_hand_with_a_reason_on_the_table_page(
    browser, app, client, game, links
) -> None:
    """After a reopen the table page's hand form shows a reason field; saving without one
    says so in the host's words beside the form, with one the hand is saved."""
    from playwright.sync_api import expect

    gid = game["game"]["id"]
    server = ThreadedServer(app)
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        page = browser.new_context(locale="en-GB").new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.url}/login?next=/games/{gid}")
        page.fill("input[name=token]", ADMIN_TOKEN)
        page.click("button[type=submit]")
        page.wait_for_url(f"**/games/{gid}")
        page.click("#hand-entry summary")
        expect(page.locator("#hand-reason-label")).to_be_hidden()  # hands not locked
        reopened_round(client, gid, links)
        page.reload()
        page.click("#hand-entry summary")
        expect(page.locator("#hand-reason-label")).to_be_visible()
        expect(page.locator("#hand-reason-label")).to_contain_text(
            "Reason (needed: kept in the audit trail)"
        )
        page.select_option("#hand-player", "Dev")
        page.fill("#hand-tiles", "0-2 1-4")
        page.click("#hand-form button[type=submit]")
        expect(page.locator("#upload-msg")).to_have_text(
            "The hands are locked: write why you change Dev's hand (kept in the audit "
            "trail), then save again."
        )
        page.fill("#hand-reason", "1-6 was a 1-4")
        page.click("#hand-form button[type=submit]")
        expect(page.locator("#upload-msg")).to_have_text("Dev: 2 tiles saved.")
        expect(page.locator("#hand-reason")).to_have_value("")
    finally:
        server.close()
    conn = storage.connect(app.config["DATABASE"])
    try:
        rows = conn.execute("SELECT reason FROM audit WHERE action = 'hand'").fetchall()
    finally:
        conn.close()
    assert [r["reason"] for r in rows] == ["1-6 was a 1-4"]
    r = client.get(f"/api/games/{gid}/rounds/current/hands/{_pid(client, gid, 'Dev')}",
                   headers=ADMIN)  # fmt: skip
    assert r.json["tiles"] == [[0, 2], [1, 4]]
