"""The phone page in Vietnamese on a 390x844 phone (issue 34): the browser's language picks
the page's, the scripts write in it (counts through the plural catalogue), the API's words
they show (a lock's reason) come in it, and no English word is left on the page.

Headless Debian chromium driven by Playwright, against the event's web app served by the web
process's own server (`served`) on real Redis and PostgreSQL.
"""

from __future__ import annotations

import pytest
from page_words import english_in
from tournament_factories import bearer

pytest.importorskip("waitress", reason="needs the `tournament` extra (make test-tournament)")

pytestmark = [pytest.mark.tournament, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "locale": "vi-VN"}
TIMEOUT_MS = 20000
TABLE = {"lines": [{"name": "left", "open_end": 5}, {"name": "right", "open_end": 4}]}


def test_the_phone_page_in_vietnamese(browser, make_event, served) -> None:
    from playwright.sync_api import expect

    _, tokens = make_event(tables=1)
    url, client = served(tokens.event_id)
    p = tokens.players
    host = bearer(tokens.hosts["t1"])
    assert (
        client.put("/api/tables/t1/table", json={"layout": TABLE}, headers=host).status_code == 200
    )
    saved = client.put("/api/hand", json={"tiles": [[2, 3]]}, headers=bearer(p["P2"]))
    assert saved.status_code == 200

    expect.set_options(timeout=TIMEOUT_MS)
    phone = browser.new_context(**PHONE).new_page()
    phone.set_default_timeout(TIMEOUT_MS)
    phone.goto(f"{url}/hand/{p['P1']}")
    expect(phone.locator("html")).to_have_attribute("lang", "vi")
    expect(phone.locator("#title")).to_have_text("P1, t1, ván 1")
    expect(phone.locator("#hand")).to_have_text("Chưa có bài nào được xác nhận.")
    expect(phone.locator("#save")).to_have_text("Lưu bài của tôi")

    # A script's sentence with a count, from the plural catalogue.
    phone.fill("#tiles", "0-1")
    phone.click("#save")
    expect(phone.locator("#message")).to_have_text("Đã lưu 1 quân cho ván 1.")
    expect(phone.locator("#hand")).to_have_text("Đã lưu: 0-1")

    # P2's proposal is held for the host: the lock's reason comes from the API in Vietnamese.
    held = client.post("/api/hand/propose", headers=bearer(p["P2"]))
    assert held.status_code == 200 and held.get_json()["held"], held.get_json()
    phone.reload()
    why = "Bài của bạn đã bị khóa (P2 đã đề nghị chặn ván): giờ chỉ chủ bàn mới được đổi bài."
    expect(phone.locator("#save-why")).to_have_text(why)
    expect(phone.locator("#lock")).to_contain_text("P2 đã đề nghị chặn ván")

    text = phone.locator("body").inner_text()
    assert not english_in(text), english_in(text)
    width = phone.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, width
