"""A page never draws a state older than the one on screen.

The CI failure of 2026-12-03: the phone page's first live-feed reload (asked for when the page
opened) was answered after the hand photo's own answer, and drew the round as it was before the
photo: no tiles, "Confirm my hand" back below the fold. Here that reload is held by the test and
answered late, on purpose.
"""

from __future__ import annotations

import pytest
from server_factories import ThreadedServer, fake_scene, jpeg_bytes
from test_server_browser import PHONE, TIMEOUT_MS
from test_server_phone_fits import _game

# The stale answer is drawn within a few event-loop turns of its arrival; this bounds the wait
# for it (a slower machine could only make the test miss the stale draw, never fail wrongly).
SETTLE_MS = 300


@pytest.mark.slow
def test_a_reload_answered_after_the_photo_does_not_bring_back_the_old_hand(
    browser, make_app, tmp_path
) -> None:
    from playwright.sync_api import APIResponse, Route, expect

    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes(300, 600))
    app = make_app(SCENE_PROVIDER=fake_scene, SSE_MAX_S=30.0)
    client = app.test_client()
    server = ThreadedServer(app)
    held: list[tuple[Route, APIResponse]] = []
    gets = {"count": 0}
    try:
        expect.set_options(timeout=TIMEOUT_MS)
        _, links, _ = _game(client)
        token = links["Ana"]

        def hold_reloads(route: Route) -> None:
            """The page's first load passes; every later reload is fetched now, answered later."""
            if route.request.method != "GET":
                route.continue_()
                return
            gets["count"] += 1
            if gets["count"] == 1:
                route.continue_()
            else:
                held.append((route, route.fetch()))

        phone = browser.new_context(**PHONE).new_page()
        phone.set_default_timeout(TIMEOUT_MS)
        phone.route(f"**/api/hand/{token}", hold_reloads)
        phone.goto(f"{server.url}/hand/{token}")
        expect(phone.locator("#round-info")).to_contain_text("Night")
        # The live feed's first state asks for a reload: it is fetched now, before the photo.
        for _ in range(TIMEOUT_MS // 50):
            if held:
                break
            phone.wait_for_timeout(50)
        assert held, "the live feed asked for no reload"
        stale_route, stale_answer = held.pop(0)

        phone.set_input_files("#hand-file", str(photo))
        expect(phone.locator("li.hand-tile")).to_have_count(2)
        stale_route.fulfill(response=stale_answer)  # the reload's answer, after the photo's
        phone.wait_for_timeout(SETTLE_MS)

        assert phone.locator("li.hand-tile").count() == 2  # the photo's reading stays
        save = phone.locator("#save").bounding_box()
        assert save and save["y"] + save["height"] <= PHONE["viewport"]["height"], save
        phone.context.close()
    finally:
        server.close()


@pytest.mark.slow
def test_older_tells_an_overtaken_state(browser, make_app) -> None:
    """`DC.older(next, current)`, which the phone page, the table page and the correction
    screen ask before they draw a state."""
    server = ThreadedServer(make_app(SCENE_PROVIDER=fake_scene))
    try:
        page = browser.new_context().new_page()
        page.goto(f"{server.url}/")
        cases = page.evaluate(
            "() => [DC.older({version: 3}, {version: 4}), DC.older({version: 4}, {version: 4}),"
            " DC.older({version: 5}, {version: 4}), DC.older({version: 3}, null),"
            " DC.older({error: 'x'}, {version: 4})]"
        )
        assert cases == [True, False, False, False, False]
        page.context.close()
    finally:
        server.close()
